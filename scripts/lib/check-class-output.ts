// What check:class writes for people and gradebooks: the class table (class.md), one short
// feedback page per learner (reports/<learner>.md), the points (points.csv) and JUnit (class.xml).
import type { ClassReport, LearnerRow } from "./check-class.ts";
import {
  attributes,
  markdownText as cell,
  markdownCode as code,
  printable,
  seconds,
  text,
} from "./check-junit.ts";
import { isMainLine, ROOT, STAGES } from "./command.ts";

// The stages that give points: the main line's of those checked; a check of optional stages only
// (one challenge stage, say) scores those.
export function pointStages(stages: string[]): string[] {
  const main = stages.filter(isMainLine);
  return main.length > 0 ? main : stages;
}

// How wide class.md's lines are: a table that fits a screen (a terminal, an editor's pane).
const WIDTH = 100;
// A message longer than this is cut: the feedback page stays small (decision 0058: under 10 KB).
const HINT_CHARS = 600;

// Where a learner stands, in the words of the table's second column: not checked (the grader's
// to fix, no points), does not build or does not start (the learner's, nothing reached), or the
// headline.
export function standing(row: LearnerRow): string {
  if (row.error !== null) return "not checked";
  if (row.buildError !== null) return "does not build";
  if ((row.startError ?? null) !== null) return "does not start";
  return row.highestStagePassed ?? "none";
}

// Why a row has no headline: the reason it was not checked, or the cause it reached nothing.
export function cause(row: LearnerRow): string | null {
  return row.error?.replace(/^not checked: /, "") ?? row.buildError ?? row.startError ?? null;
}

function pointsCell(row: LearnerRow): string {
  return row.points.awarded === null
    ? `-/${row.points.available}`
    : `${row.points.awarded}/${row.points.available}`;
}

// A line per learner: the headline, points, and the next thing to fix; the stages one by one are
// on each learner's page (reports/<learner>.md), and every scenario in class.json.
export function classMarkdown(report: ClassReport): string {
  const commit = report.course.commit?.slice(0, 12) ?? "(no git commit)";
  const lines = [
    `# Class report: ${cell(report.dir)}`,
    "",
    ...unsandboxedLines(report),
    ...wrap(
      `Checked ${cell(report.checkedAt)} by the course at ${cell(commit)} (version ${cell(report.course.version)}), ${report.seed === null ? "no seed" : `seed ${cell(String(report.seed))}`} for every learner, on ${cell(stagesNamed(report.stages))}. Points are one per main-line stage up to the highest passed; "not checked" gets none, not 0. Each learner's page, \`reports/<learner>.md\`, has the stages one by one.`,
    ),
    "",
    "| learner | highest stage passed | points | next to fix |",
    "| --- | --- | --- | --- |",
  ];
  for (const row of report.learners) {
    const start = `| ${cell(row.learner)} | ${cell(standing(row))} | ${cell(pointsCell(row))} | `;
    lines.push(`${start}${cutTo(nextCell(row), WIDTH - start.length - 2)} |`);
  }
  return `${lines.join("\n")}\n`;
}

// The table's last cell: the cause for a row without a headline, else the next scenario to fix
// and how many more fail above the headline.
function nextCell(row: LearnerRow): string {
  const why = cause(row);
  if (why !== null) return cell(why);
  const next = row.nextToFix;
  if (next === null) return "none";
  const more = row.failingCore.filter((id) => id !== `${next.stage}/${next.id}`).length;
  return `${code(`${next.stage}/${next.id}`)}${more > 0 ? ` and ${more} more` : ""}`;
}

// The learners whose code ran without the sandbox, and why: none when it ran in one. Every learner
// when the class's checks ran on one machine without it; in a class combined from reports, those
// whose reports say so.
export function unsandboxedLearners(
  report: ClassReport,
): { learners: string[]; why: string } | null {
  const learners = report.learners.filter((row) => row.unsandboxed !== undefined);
  const why =
    report.unsandboxed ?? [...new Set(learners.map((row) => row.unsandboxed ?? ""))].join("; ");
  if (why === "") return null;
  return { learners: learners.map((row) => row.learner), why };
}

// A paragraph under the heading when learner code ran without the sandbox: which learners' (all
// unless named), and why.
function unsandboxedLines(report: ClassReport): string[] {
  const found = unsandboxedLearners(report);
  if (found === null) return [];
  const some = found.learners.length > 0 && found.learners.length < report.learners.length;
  const whose = some ? ` for ${found.learners.map(cell).join(", ")}` : "";
  return [...wrap(`**Learner code ran without the sandbox${whose}**: ${cell(found.why)}`), ""];
}

// Text cut to `width` characters, with an ellipsis when it was longer.
function cutTo(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(1, width - 1))}…`;
}

// Prose in lines of WIDTH at most, broken at spaces. A line the break starts with a word of the
// text's (a learner's, maybe) starts nothing of its own: no heading, quote or list.
function wrap(text: string): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = lineStart(word);
    } else line = line === "" ? word : `${line} ${word}`;
  }
  return [...lines, line];
}

// Text at the start of a line, its first character escaped when it would open a block (a
// heading, a quote, a list item, a rule, a setext underline).
function lineStart(text: string): string {
  return text.replace(/^(\s*)([#>+*=_~-])/, "$1\\$2").replace(/^(\s*\d+)([.)])/, "$1\\$2");
}

function stagesNamed(stages: string[]): string {
  if (stages.length === 0) return "no stage";
  if (stages.length === 1) return stages[0] ?? "";
  return `${stages.length} stages (${stages[0]} to ${stages.at(-1)})`;
}

// What a learner types in their project's folder to be asked the same again: the class's stages,
// options and seed. `--dir` is the course checkout that graded them; a learner's own works too.
export function replayCommand(report: ClassReport): string {
  const stages =
    report.stages.length === 1
      ? [report.stages[0] ?? ""]
      : report.stages.length === STAGES.length
        ? ["--all"]
        : ["--stages", report.stages.join(",")];
  const words = [
    "pnpm",
    "--dir",
    ROOT,
    "check",
    ...stages,
    "--project",
    ".",
    ...(report.options ?? []),
    ...(report.seed === null ? [] : ["--seed", String(report.seed)]),
  ];
  return words.map(shellWord).join(" ");
}

function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

// A learner's page: where they stand (or why nothing was reached) on its first line, the command
// that asks the same again, the one thing to fix next, and each stage with what was outgrown.
export function feedbackMarkdown(row: LearnerRow, report: ClassReport): string {
  const lines = [`# agent-code check, ${cell(row.learner)}: ${headline(row)}`, ""];
  const by = `by the course at ${cell(report.course.commit ?? "(no git commit)")} (version ${cell(report.course.version)})`;
  const commit = row.commit === null ? "" : `, your commit ${cell(row.commit)}`;
  const seed = report.seed === null ? "" : `, at seed ${cell(String(report.seed))}`;
  lines.push(`Checked ${cell(report.checkedAt)}${commit}, ${by}${seed}.`, "");
  const why = row.unsandboxed;
  if (why !== undefined) {
    lines.push(
      `**Learner code ran without the sandbox** on the grader's machine: ${cell(why)}`,
      "",
    );
  }
  if (row.error !== null) return `${lines.join("\n")}\n`;
  lines.push(
    "To be asked the same again, run this in your project's folder (`--dir` is where the course was checked out when you were graded; give your own checkout's):",
    "",
    "```sh",
    replayCommand(report),
    "```",
    "",
  );
  if ((row.startError ?? null) !== null) {
    lines.push(
      "Every run of your program ended with a failure before it printed a line, so it reached nothing. Run it yourself to see the whole error.",
      "",
    );
  }
  lines.push("## Next thing to fix", "");
  const next = row.nextToFix;
  if (next === null) {
    lines.push("Nothing: every core scenario above your highest stage passed.", "");
  } else {
    lines.push(`${cell(next.stage)}, ${code(next.id)}: ${cell(next.title)}`, "");
    if (next.message !== "") {
      const quoted = short(next.message)
        .split(/\r?\n/)
        .map((line) => lineStart(cell(line)));
      lines.push(`> ${quoted.join("\n> ")}`, "");
    }
    if (next.docs !== null) lines.push(`Read: ${code(next.docs)} in the course.`, "");
    const more = row.failingCore.filter((id) => id !== `${next.stage}/${next.id}`).length;
    // A program that does not start misses everything for that one reason.
    if (more > 0 && cause(row) === null)
      lines.push(
        `After it, ${more} more core scenario${more === 1 ? "" : "s"} above your highest stage.`,
        "",
      );
  }
  if (row.stages.length === 0) return `${lines.join("\n")}\n`;
  lines.push("## Stage by stage", "", "| stage | core scenarios | |", "| --- | --- | --- |");
  for (const stage of row.stages) {
    const optional = isMainLine(stage.stage) ? "" : " (optional)";
    const { passed, total } = stage.core;
    const outgrown = stage.outgrown ?? 0;
    const counted = cell(
      `${passed} of ${total} passed${outgrown > 0 ? `, ${outgrown} outgrown` : ""}`,
    );
    // An optional stage is never the headline: it passes or not.
    const verdict = optional
      ? stage.passed
        ? "passed"
        : "not passed"
      : stage.reached
        ? "reached"
        : "not reached";
    lines.push(`| ${cell(stage.stage)}${optional} | ${counted} | ${verdict} |`);
  }
  if (row.stages.some((stage) => (stage.outgrown ?? 0) > 0)) {
    lines.push(
      "",
      "Outgrown: a later stage changed the scenario, and your project does what that stage asks. It does not count against the stage.",
    );
  }
  return `${lines.join("\n")}\n`;
}

// The page's first line: the headline and points, or why there is none.
function headline(row: LearnerRow): string {
  const points = `${row.points.awarded ?? 0} of ${row.points.available} points`;
  if (row.error !== null) return `not checked (no points): ${cell(cause(row) ?? "")}`;
  const why = cause(row);
  if (why !== null) return `${cell(standing(row))} (${cell(points)}): ${cell(why)}`;
  return `highest stage passed ${cell(row.highestStagePassed ?? "none")} (${cell(points)})`;
}

function short(text: string): string {
  return text.length > HINT_CHARS ? `${text.slice(0, HINT_CHARS)}…` : text;
}

// The class as JUnit XML (class.xml), for a CI's test-report step: a suite per learner, a case per
// stage graded. A stage not reached fails with the next thing to fix; a project not checked, or
// whose sources do not build, is one case in error with the reason.
export function classJunitXml(report: ClassReport): string {
  const suites = report.learners.map((row) => learnerSuite(row, report));
  const count = (name: "tests" | "failures" | "skipped" | "errors") =>
    suites.reduce((sum, suite) => sum + suite.counts[name], 0);
  const ms = report.learners.reduce(
    (sum, row) => sum + row.stages.reduce((total, stage) => total + stage.durationMs, 0),
    0,
  );
  return `${[
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes({ name: "agent-code class", tests: count("tests"), failures: count("failures"), skipped: count("skipped"), errors: count("errors"), time: seconds(ms) })}>`,
    ...suites.flatMap((suite) => suite.lines),
    "</testsuites>",
  ].join("\n")}\n`;
}

function learnerSuite(
  row: LearnerRow,
  report: ClassReport,
): { lines: string[]; counts: Record<"tests" | "failures" | "skipped" | "errors", number> } {
  const properties: Record<string, string> = {
    project: row.project,
    "project.commit": row.commit ?? "",
    "course.commit": report.course.commit ?? "",
    seed: String(report.seed ?? ""),
    highestStagePassed: row.highestStagePassed ?? "",
    standing: standing(row),
    points: pointsCell(row),
    // Learner code ran without the sandbox: why, and what it could reach.
    ...(row.unsandboxed === undefined ? {} : { unsandboxed: row.unsandboxed }),
  };
  const why = cause(row);
  const optional = (stage: LearnerRow["stages"][number]) => !isMainLine(stage.stage);
  const cases =
    why !== null
      ? [
          `    <testcase${attributes({ name: "checked", classname: row.learner, time: seconds(0) })}>`,
          `      <error${attributes({ message: `${standing(row)}: ${why}`, type: standing(row) })}>${text(why)}</error>`,
          "    </testcase>",
        ]
      : row.stages.flatMap((stage) => {
          const open = `    <testcase${attributes({ name: stage.stage, classname: row.learner, time: seconds(stage.durationMs) })}`;
          if (stage.reached) return [`${open}/>`];
          const counted = `${stage.core.passed}/${stage.core.total} core scenarios passed`;
          // An optional stage is never the headline, so one not passed fails nothing.
          if (optional(stage)) {
            return [
              `${open}>`,
              `      <skipped${attributes({ message: `optional stage, apart from the headline: ${counted}` })}/>`,
              "    </testcase>",
            ];
          }
          const next = row.nextToFix?.stage === stage.stage ? row.nextToFix : null;
          const message = next
            ? `${next.id}: ${next.message}`
            : `${stage.core.total - stage.core.passed} core scenarios failed`;
          return [
            `${open}>`,
            `      <failure${attributes({ message, type: "not reached" })}>${text(`${counted}${next?.docs ? `; read ${next.docs}` : ""}`)}</failure>`,
            "    </testcase>",
          ];
        });
  const missed = row.stages.filter((stage) => !stage.reached);
  const counts = {
    tests: why !== null ? 1 : row.stages.length,
    failures: why !== null ? 0 : missed.filter((stage) => !optional(stage)).length,
    skipped: why !== null ? 0 : missed.filter(optional).length,
    errors: why !== null ? 1 : 0,
  };
  return {
    counts,
    lines: [
      `  <testsuite${attributes({ name: row.learner, ...counts, time: seconds(row.stages.reduce((sum, stage) => sum + stage.durationMs, 0)), timestamp: report.checkedAt })}>`,
      "    <properties>",
      ...Object.entries(properties).map(
        ([name, value]) => `      <property${attributes({ name, value })}/>`,
      ),
      "    </properties>",
      ...cases,
      "  </testsuite>",
    ],
  };
}

// Column names as in GitHub Classroom's grades export, so the file joins it by learner. A learner
// not checked has no points (an empty cell, never 0) and the reason in `note`; one whose project
// does not build or start has 0, and the cause there too.
export function pointsCsv(report: ClassReport): string {
  const lines = ["learner,highest_stage_passed,points_awarded,points_available,note"];
  for (const row of report.learners) {
    const why = cause(row);
    lines.push(
      [
        csv(row.learner),
        csv(standing(row)),
        row.points.awarded ?? "",
        row.points.available,
        why === null ? "" : csv(why),
      ].join(","),
    );
  }
  return `${lines.join("\n")}\n`;
}

// Every file of a class's grades but the reports, by name: what check:class combine writes.
export function classFiles(report: ClassReport): [string, string][] {
  return [
    ["class.json", `${JSON.stringify(report, null, 2)}\n`],
    ["class.md", classMarkdown(report)],
    ["points.csv", pointsCsv(report)],
    ["class.xml", classJunitXml(report)],
  ];
}

// What check:class prints on the terminal for a learner: where they stand or why not, a line of
// text whatever their folder's name or their program's stderr holds.
export function learnerLine(row: LearnerRow): string {
  const why = cause(row);
  const line =
    row.error !== null
      ? row.error
      : why !== null
        ? `${standing(row)}: ${why}`
        : `highest stage passed: ${row.highestStagePassed ?? "none"}`;
  return printable(`${row.learner}: ${line}`);
}

function csv(value: string): string {
  return /[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

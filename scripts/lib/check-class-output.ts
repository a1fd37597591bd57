// What check:class writes for people and gradebooks: the class table (class.md), one short
// feedback page per learner (reports/<learner>.md) and the points (points.csv).
import type { ClassReport, LearnerRow } from "./check-class.ts";
import { attributes, seconds, text } from "./check-junit.ts";
import { isMainLine } from "./command.ts";

// The stages that give points: the main line's of those checked; a check of optional stages only
// (one challenge stage, say) scores those.
export function pointStages(stages: string[]): string[] {
  const main = stages.filter(isMainLine);
  return main.length > 0 ? main : stages;
}

// How many failing core scenarios a table cell names before it counts the rest.
const FIRST_FEW = 3;
// A message longer than this is cut: the feedback page stays small (decision 0058: under 10 KB).
const HINT_CHARS = 600;

export function classMarkdown(report: ClassReport): string {
  const header = [
    "learner",
    "highest stage passed",
    "points",
    ...report.stages,
    "failing core scenarios above it",
  ];
  const lines = [
    `# Class report: ${cell(report.dir)}`,
    "",
    `Checked ${report.checkedAt} by the course at ${report.course.commit ?? "(no git commit)"} (version ${report.course.version}), seed ${report.seed} for every project. A stage's column is its core scenarios passed of those run; points are one per main-line stage up to the highest passed.`,
    "",
    `| ${header.join(" | ")} |`,
    `| ${header.map(() => "---").join(" | ")} |`,
  ];
  for (const row of report.learners) {
    const stages = report.stages.map((name) => {
      const stage = row.stages.find((candidate) => candidate.stage === name);
      return stage === undefined ? "-" : `${stage.core.passed}/${stage.core.total}`;
    });
    const points = row.error !== null ? "-" : `${row.points.awarded}/${row.points.available}`;
    const highest = row.error !== null ? "not checked" : (row.highestStagePassed ?? "none");
    const failing =
      row.error !== null
        ? cell(row.error)
        : row.buildError !== null
          ? `does not build: ${cell(row.buildError)}`
          : firstFew(row.failingCore);
    lines.push(`| ${[cell(row.learner), highest, points, ...stages, failing].join(" | ")} |`);
  }
  return `${lines.join("\n")}\n`;
}

function firstFew(ids: string[]): string {
  if (ids.length === 0) return "none";
  const named = ids
    .slice(0, FIRST_FEW)
    .map((id) => `\`${id}\``)
    .join(", ");
  return ids.length > FIRST_FEW ? `${named} and ${ids.length - FIRST_FEW} more` : named;
}

// A learner's page: where they stand, the one thing to fix next, and the counts per stage.
export function feedbackMarkdown(row: LearnerRow, report: ClassReport): string {
  const lines = [`# agent-code check: ${row.learner}`, ""];
  const by = `by the course at ${report.course.commit ?? "(no git commit)"} (version ${report.course.version})`;
  const commit = row.commit === null ? "" : `, your commit ${row.commit}`;
  lines.push(
    `Checked ${report.checkedAt}${commit}, ${by}, at seed ${report.seed}: \`pnpm check --seed ${report.seed}\` asks your project the same again.`,
    "",
  );
  if (row.error !== null) {
    lines.push(`**Not graded.** ${row.error.replace(/^not checked: /, "")}`, "");
    return `${lines.join("\n")}\n`;
  }
  lines.push(
    `**Highest stage passed: ${row.highestStagePassed ?? "none"}** (${row.points.awarded} of ${row.points.available} points).`,
    "",
    "## Next thing to fix",
    "",
  );
  const next = row.nextToFix;
  if (next === null) {
    lines.push("Nothing: every core scenario above your highest stage passed.", "");
  } else {
    lines.push(`${next.stage}, \`${next.id}\`: ${next.title}`, "");
    if (next.message !== "") lines.push(`> ${short(next.message).replace(/\n/g, "\n> ")}`, "");
    if (next.docs !== null) lines.push(`Read: \`${next.docs}\` in the course.`, "");
    const more = row.failingCore.length - 1;
    if (more > 0)
      lines.push(
        `After it, ${more} more core scenario${more === 1 ? "" : "s"} above your highest stage.`,
        "",
      );
  }
  lines.push("## Core scenarios passed per stage", "", "| stage | core passed |", "| --- | --- |");
  for (const stage of row.stages) {
    const optional = isMainLine(stage.stage) ? "" : " (optional)";
    lines.push(`| ${stage.stage}${optional} | ${stage.core.passed}/${stage.core.total} |`);
  }
  return `${lines.join("\n")}\n`;
}

function short(text: string): string {
  return text.length > HINT_CHARS ? `${text.slice(0, HINT_CHARS)}…` : text;
}

// The class as JUnit XML (class.xml), for a CI's test-report step: a suite per learner, a case per
// stage graded. A stage not reached fails with the next thing to fix; a project not checked, or
// whose sources do not build, is one case in error with the reason.
export function classJunitXml(report: ClassReport): string {
  const suites = report.learners.map((row) => learnerSuite(row, report));
  const count = (name: "tests" | "failures" | "errors") =>
    suites.reduce((sum, suite) => sum + suite.counts[name], 0);
  const ms = report.learners.reduce(
    (sum, row) => sum + row.stages.reduce((total, stage) => total + stage.durationMs, 0),
    0,
  );
  return `${[
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes({ name: "agent-code class", tests: count("tests"), failures: count("failures"), errors: count("errors"), time: seconds(ms) })}>`,
    ...suites.flatMap((suite) => suite.lines),
    "</testsuites>",
  ].join("\n")}\n`;
}

function learnerSuite(
  row: LearnerRow,
  report: ClassReport,
): { lines: string[]; counts: Record<"tests" | "failures" | "errors", number> } {
  const properties: Record<string, string> = {
    project: row.project,
    "project.commit": row.commit ?? "",
    "course.commit": report.course.commit ?? "",
    seed: String(report.seed),
    highestStagePassed: row.highestStagePassed ?? "",
    points: `${row.points.awarded}/${row.points.available}`,
  };
  const why = row.error ?? (row.buildError === null ? null : `does not build: ${row.buildError}`);
  const cases =
    why !== null
      ? [
          `    <testcase${attributes({ name: "checked", classname: row.learner, time: seconds(0) })}>`,
          `      <error${attributes({ message: why, type: "error" })}>${text(why)}</error>`,
          "    </testcase>",
        ]
      : row.stages.flatMap((stage) => {
          const open = `    <testcase${attributes({ name: stage.stage, classname: row.learner, time: seconds(stage.durationMs) })}`;
          if (stage.reached) return [`${open}/>`];
          const next = row.nextToFix?.stage === stage.stage ? row.nextToFix : null;
          const message = next
            ? `${next.id}: ${next.message}`
            : `${stage.core.total - stage.core.passed} core scenarios failed`;
          return [
            `${open}>`,
            `      <failure${attributes({ message, type: "not reached" })}>${text(`${stage.core.passed}/${stage.core.total} core scenarios passed${next?.docs ? `; read ${next.docs}` : ""}`)}</failure>`,
            "    </testcase>",
          ];
        });
  const counts = {
    tests: why !== null ? 1 : row.stages.length,
    failures: why !== null ? 0 : row.stages.filter((stage) => !stage.reached).length,
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

// Column names as in GitHub Classroom's grades export, so the file joins it by learner.
export function pointsCsv(report: ClassReport): string {
  const lines = ["learner,highest_stage_passed,points_awarded,points_available"];
  for (const row of report.learners) {
    const headline = row.error !== null ? "not checked" : (row.highestStagePassed ?? "none");
    lines.push([csv(row.learner), headline, row.points.awarded, row.points.available].join(","));
  }
  return `${lines.join("\n")}\n`;
}

function csv(value: string): string {
  return /[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

function cell(value: string): string {
  return value.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

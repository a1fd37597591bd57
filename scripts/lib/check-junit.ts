// `pnpm check --reporter junit`: the check as JUnit XML, which GitHub, GitLab and Jenkins show
// natively, and under GitHub Actions a Markdown table for the job's summary page. One test suite
// per stage, one test case per scenario: a deciding miss is a <failure>, a conformance note a
// <skipped> with its reasons (decision 0039). A check that stops on an error is still a report:
// one failed test case that says why (decision 0056).
import type { CourseRevision } from "./check-course.ts";
import { startErrorLines } from "./check-report.ts";
import type { CheckOutput, CheckReport, ScenarioReport, StageReport } from "./check-run.ts";

type Write = (text: string) => void;

export function junitOutput(write: Write): CheckOutput {
  return {
    start() {},
    stage() {},
    scenario() {},
    stageDone() {},
    done(report) {
      write(junitXml(report));
    },
  };
}

export function junitXml(report: CheckReport): string {
  const cases = report.stages.flatMap((stage) =>
    stage.scenarios.map((scenario) => outcome(stage, scenario)),
  );
  const start = report.startError;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes({
      name: "agent-code check",
      tests: cases.length + (start === undefined ? 0 : 1),
      failures: cases.filter((one) => one === "failure").length,
      skipped: cases.filter((one) => one === "skipped").length,
      errors: start === undefined ? 0 : 1,
      time: seconds(report.stages.reduce((sum, stage) => sum + stageMs(stage), 0)),
    })}>`,
  ];
  // A program that never started: its cause as the error, before the stages whose misses follow.
  if (start !== undefined) {
    const counts = { tests: 1, failures: 0, skipped: 0, errors: 1, time: seconds(0) };
    lines.push(
      `  <testsuite${attributes({ name: "check", ...counts, timestamp: report.checkedAt })}>`,
      `    <testcase${attributes({ name: START_CASE, classname: "check", time: seconds(0) })}>`,
      `      <error${attributes({ message: `does not start: ${start}`, type: "does not start" })}>${text(startErrorLines(start).join("\n"))}</error>`,
      "    </testcase>",
      "  </testsuite>",
    );
  }
  for (const stage of report.stages) lines.push(...suite(stage, report));
  lines.push("</testsuites>");
  return `${lines.join("\n")}\n`;
}

// The test case that holds a program that does not start.
export const START_CASE = "the program starts";
// The test case that holds sources that do not build.
export const BUILD_CASE = "src/cli.ts builds";

// A scenario as a JUnit case: a deciding miss fails, unless it is outgrown (a later stage changed
// it, and the project does what that stage asks) or of an optional stage (never the headline):
// those are skipped with the reason, as a conformance note is.
function outcome(stage: StageReport, scenario: ScenarioReport): "pass" | "failure" | "skipped" {
  if (scenario.verdict === "pass") return "pass";
  if (scenario.verdict === "note" || scenario.outgrown === true || stage.mainLine === false) {
    return "skipped";
  }
  return "failure";
}

function suite(stage: StageReport, report: CheckReport): string[] {
  const properties: Record<string, string> = {
    project: report.project,
    command: report.command.join(" "),
    strict: String(report.strict),
    complete: String(report.complete),
    passed: String(stage.passed),
    "course.commit": report.course.commit ?? "",
    "course.version": report.course.version,
    "project.commit": report.projectCommit ?? "",
    seed: String(report.seed ?? ""),
    highestStagePassed: report.highestStagePassed ?? "",
    optionalPassed: (report.optionalPassed ?? []).join(","),
    mainLine: String(stage.mainLine ?? false),
    nextToFix: report.nextToFix ? `${report.nextToFix.stage}/${report.nextToFix.id}` : "",
    // Learner code ran without the sandbox: why, and what it could reach.
    ...(report.unsandboxed === undefined ? {} : { unsandboxed: report.unsandboxed }),
  };
  const cases = stage.scenarios.map((scenario) => outcome(stage, scenario));
  return [
    `  <testsuite${attributes({
      name: stage.stage,
      tests: stage.scenarios.length,
      failures: cases.filter((one) => one === "failure").length,
      skipped: cases.filter((one) => one === "skipped").length,
      errors: 0,
      timestamp: report.checkedAt,
      time: seconds(stageMs(stage)),
    })}>`,
    "    <properties>",
    ...Object.entries(properties).map(
      ([name, value]) => `      <property${attributes({ name, value })}/>`,
    ),
    "    </properties>",
    ...stage.scenarios.flatMap((scenario) => testCase(stage, scenario)),
    "  </testsuite>",
  ];
}

function testCase(stage: StageReport, scenario: ScenarioReport): string[] {
  const open = `    <testcase${attributes({
    name: `${scenario.title} [${scenario.id}]`,
    classname: `${stage.stage}.${scenario.level}`,
    time: seconds(scenario.durationMs ?? 0),
  })}`;
  const kind = outcome(stage, scenario);
  if (kind === "pass") return [`${open}/>`];
  const [first] = scenario.failures;
  const message = first?.message ?? "failed";
  if (kind === "failure") {
    return [
      `${open}>`,
      `      <failure${attributes({ message, type: scenario.level })}>${text(details(scenario))}</failure>`,
      "    </testcase>",
    ];
  }
  const why =
    scenario.verdict === "note"
      ? "note (conformance, counts with --strict)"
      : scenario.outgrown === true
        ? "outgrown (a later stage changed it, and the project does what that stage asks)"
        : "optional stage, apart from the headline";
  return [
    `${open}>`,
    `      <skipped${attributes({ message: `${why}: ${message}` })}/>`,
    `      <system-out>${text(details(scenario))}</system-out>`,
    "    </testcase>",
  ];
}

// What the text report shows under a miss.
function details(scenario: ScenarioReport): string {
  const lines = scenario.failures.map((failure) => `- ${failure.message}`);
  if (scenario.serverText !== null) {
    lines.push(`the API rejected a request (400): ${scenario.serverText}`);
  }
  if (scenario.stderrTail !== null) lines.push("stderr (last lines):", ...scenario.stderrTail);
  const links = new Set(scenario.failures.flatMap((failure) => failure.docs ?? []));
  for (const link of links) lines.push(`read: ${link}`);
  return lines.join("\n");
}

// A stage's wall time when the report has it, else the sum of its scenarios' runs.
function stageMs(stage: StageReport): number {
  return (
    stage.durationMs ??
    stage.scenarios.reduce((sum, scenario) => sum + (scenario.durationMs ?? 0), 0)
  );
}

// JUnit's `time`: seconds, to the millisecond.
export function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

// What stopped a check before it judged anything: a usage error (exit 2), sources that do not
// build (exit 1), a failure of the check itself.
export interface CheckFailure {
  course: CourseRevision;
  checkedAt: string;
  // The project, when the arguments named one that exists.
  project: string | null;
  projectCommit: string | null;
  stages: string[];
  // The seed --seed named, when it named a valid one.
  seed: number | null;
  // What the test case is: "the check ran", "src/cli.ts builds".
  name: string;
  message: string;
}

// The failure as one failed test case, so that a CI's JUnit step shows why rather than nothing.
export function junitFailureXml(failure: CheckFailure): string {
  const properties: Record<string, string> = {
    project: failure.project ?? "",
    stages: failure.stages.join(","),
    "course.commit": failure.course.commit ?? "",
    "course.version": failure.course.version,
    "project.commit": failure.projectCommit ?? "",
    seed: String(failure.seed ?? ""),
    highestStagePassed: "",
  };
  const counts = { tests: 1, failures: 1, skipped: 0, errors: 0, time: seconds(0) };
  return `${[
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes({ name: "agent-code check", ...counts })}>`,
    `  <testsuite${attributes({ name: "check", ...counts, timestamp: failure.checkedAt })}>`,
    "    <properties>",
    ...Object.entries(properties).map(
      ([name, value]) => `      <property${attributes({ name, value })}/>`,
    ),
    "    </properties>",
    `    <testcase${attributes({ name: failure.name, classname: "check", time: seconds(0) })}>`,
    `      <failure${attributes({ message: failure.message, type: "error" })}>${text(failure.message)}</failure>`,
    "    </testcase>",
    "  </testsuite>",
    "</testsuites>",
  ].join("\n")}\n`;
}

// The step summary of a check that stopped: the error where the table would be. Sources that do
// not build were judged (nothing reached); any other stop left the project not checked.
export function failureSummary(failure: CheckFailure): string {
  const why =
    failure.name === BUILD_CASE
      ? `**does not build**: ${markdownText(failure.message)}`
      : `not checked: ${failure.name === "the check ran" ? "" : `${markdownText(failure.name)}: `}${markdownText(failure.message)}`;
  return `${[
    `### agent-code check: ${markdownText(failure.project ?? "(no project)")}`,
    "",
    "highest stage passed: **none**",
    "",
    why,
    "",
    revisions(failure.course, failure.projectCommit, failure.seed),
  ].join("\n")}\n\n`;
}

// Which commit of the learner's was judged by which commit of the course, at which seed.
function revisions(
  course: CourseRevision,
  project: string | null | undefined,
  seed: number | null | undefined,
): string {
  const short = (commit: string | null | undefined) =>
    commit ? markdownCode(commit.slice(0, 12)) : "not a git repository";
  const seeded =
    seed === null || seed === undefined ? "" : `; seed ${seed} (\`--seed ${seed}\` repeats it)`;
  return `learner's commit: ${short(project)}; course: ${short(course.commit)} (version ${course.version})${seeded}`;
}

export function attributes(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([name, value]) => ` ${name}="${text(String(value)).replace(/"/g, "&quot;")}"`)
    .join("");
}

// XML text: markup escaped, and the control characters XML 1.0 cannot hold at all (a program's
// stderr may have any) dropped, with DEL and the C1 controls it can but should not (`--reporter
// junit` prints it on a terminal, which would act on them).
export function text(value: string): string {
  return value
    .replace(/[^\t\n\r\u0020-\u007E\u00A0-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
}

// The job summary under GitHub Actions: a table per check, what a class repository's Actions
// page shows without opening a file.
export function stepSummary(report: CheckReport): string {
  const verdict = report.complete
    ? `highest stage passed: **${markdownText(report.highestStagePassed ?? "none")}**`
    : report.battery === true
      ? "the bypass battery (`--battery`)"
      : "not a full check (`--only`)";
  const next = report.nextToFix;
  const lines = [
    `### agent-code check: ${markdownText(report.project)}`,
    "",
    ...(report.unsandboxed === undefined
      ? []
      : [`**Learner code ran without the sandbox**: ${markdownText(report.unsandboxed)}`, ""]),
    ...(report.startError === undefined
      ? []
      : [`**does not start**: ${markdownText(report.startError)}`, ""]),
    verdict,
    ...(next
      ? [
          "",
          `next to fix (${markdownText(next.stage)}): ${markdownText(next.title)} ${markdownCode(next.id)}: ${markdownText(next.message)}${next.docs ? ` (read ${markdownCode(next.docs)})` : ""}`,
        ]
      : []),
    "",
    revisions(report.course, report.projectCommit, report.seed),
    "",
    "| stage | passed | core | conformance | failing core scenarios |",
    "| --- | --- | --- | --- | --- |",
  ];
  // The main line first, then the optional stages; an outgrown miss is not a failing one.
  const optional = (stage: StageReport) => stage.mainLine === false;
  const ordered = [
    ...report.stages.filter((stage) => !optional(stage)),
    ...report.stages.filter(optional),
  ];
  for (const stage of ordered) {
    const failing = stage.scenarios
      .filter((scenario) => scenario.level === "core" && scenario.verdict !== "pass")
      .filter((scenario) => !scenario.outgrown)
      .map((scenario) => markdownCode(scenario.id));
    const { core, conformance } = stage.counts;
    const name = markdownText(optional(stage) ? `${stage.stage} (optional)` : stage.stage);
    const passed = (stage.reached ?? stage.passed) ? "yes" : "no";
    lines.push(
      `| ${name} | ${passed} | ${core.passed}/${core.total} | ${conformance.passed}/${conformance.total} | ${failing.join(", ") || "none"} |`,
    );
  }
  return `${lines.join("\n")}\n\n`;
}

// Markdown that shows its text as text: a learner's folder name, an error line, a message quoting
// their program's output or anything read from a report they could write may hold a `|`, a line
// break, a link, a code span or HTML, which in a table, a page or the Actions step summary would
// make cells, rows or markup of their own. A backslash is escaped too, so that none can undo an
// escape, and control characters go as in a terminal line.
export function markdownText(value: string): string {
  return printable(value.replace(/[\r\n]+/g, " ")).replace(/[\\|<>[\]`]/g, "\\$&");
}

// An id (a stage, a scenario, a docs link, a commit) in a code span when it is one, letters,
// digits and `-_./:#@`; anything else, which no escape inside a code span could hold, as text.
export function markdownCode(value: string): string {
  return /^[\w./:#@-]+$/.test(value) ? `\`${value}\`` : markdownText(value);
}

// A line a terminal shows as text: control characters (C0 but tab, DEL and C1), with which a
// program's stderr could move the cursor, rewrite a line, recolour or retitle the terminal (every
// escape sequence starts with ESC or a C1 control), each become U+FFFD.
export function printable(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters replaced
  return value.replace(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g, "\uFFFD");
}

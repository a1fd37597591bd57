// `pnpm check --reporter junit`: the check as JUnit XML, which GitHub, GitLab and Jenkins show
// natively, and under GitHub Actions a Markdown table for the job's summary page. One test suite
// per stage, one test case per scenario: a deciding miss is a <failure>, a conformance note a
// <skipped> with its reasons (decision 0039). A check that stops on an error is still a report:
// one failed test case that says why (decision 0056).
import type { CourseRevision } from "./check-course.ts";
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
  const scenarios = report.stages.flatMap((stage) => stage.scenarios);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes({
      name: "agent-code check",
      tests: scenarios.length,
      failures: scenarios.filter((scenario) => scenario.verdict === "fail").length,
      skipped: scenarios.filter((scenario) => scenario.verdict === "note").length,
      errors: 0,
      time: seconds(report.stages.reduce((sum, stage) => sum + stageMs(stage), 0)),
    })}>`,
  ];
  for (const stage of report.stages) lines.push(...suite(stage, report));
  lines.push("</testsuites>");
  return `${lines.join("\n")}\n`;
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
  };
  return [
    `  <testsuite${attributes({
      name: stage.stage,
      tests: stage.scenarios.length,
      failures: stage.scenarios.filter((scenario) => scenario.verdict === "fail").length,
      skipped: stage.scenarios.filter((scenario) => scenario.verdict === "note").length,
      errors: 0,
      timestamp: report.checkedAt,
      time: seconds(stageMs(stage)),
    })}>`,
    "    <properties>",
    ...Object.entries(properties).map(
      ([name, value]) => `      <property${attributes({ name, value })}/>`,
    ),
    "    </properties>",
    ...stage.scenarios.flatMap((scenario) => testCase(stage.stage, scenario)),
    "  </testsuite>",
  ];
}

function testCase(stage: string, scenario: ScenarioReport): string[] {
  const open = `    <testcase${attributes({
    name: `${scenario.title} [${scenario.id}]`,
    classname: `${stage}.${scenario.level}`,
    time: seconds(scenario.durationMs ?? 0),
  })}`;
  if (scenario.verdict === "pass") return [`${open}/>`];
  const [first] = scenario.failures;
  const message = first?.message ?? "failed";
  const tag =
    scenario.verdict === "fail"
      ? `      <failure${attributes({ message, type: scenario.level })}>${text(details(scenario))}</failure>`
      : `      <skipped${attributes({ message: `note (conformance, counts with --strict): ${message}` })}/>`;
  const out =
    scenario.verdict === "note"
      ? [`      <system-out>${text(details(scenario))}</system-out>`]
      : [];
  return [`${open}>`, tag, ...out, "    </testcase>"];
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

// The step summary of a check that stopped: the error where the table would be.
export function failureSummary(failure: CheckFailure): string {
  return `${[
    `### agent-code check: ${cell(failure.project ?? "(no project)")}`,
    "",
    "highest stage passed: **none**",
    "",
    `not checked: ${failure.name === "the check ran" ? "" : `${failure.name}: `}${failure.message}`,
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
    commit ? `\`${commit.slice(0, 12)}\`` : "not a git repository";
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
// stderr may have any) dropped.
export function text(value: string): string {
  return value
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
}

// The job summary under GitHub Actions: a table per check, what a class repository's Actions
// page shows without opening a file.
export function stepSummary(report: CheckReport): string {
  const verdict = report.complete
    ? `highest stage passed: **${report.highestStagePassed ?? "none"}**`
    : "not a full check (`--only`)";
  const next = report.nextToFix;
  const lines = [
    `### agent-code check: ${cell(report.project)}`,
    "",
    verdict,
    ...(next
      ? [
          "",
          `next to fix (${next.stage}): ${cell(next.title)} \`${next.id}\`: ${cell(next.message)}${next.docs ? ` (read ${next.docs})` : ""}`,
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
      .map((scenario) => `\`${scenario.id}\``);
    const { core, conformance } = stage.counts;
    const name = optional(stage) ? `${stage.stage} (optional)` : stage.stage;
    const passed = (stage.reached ?? stage.passed) ? "yes" : "no";
    lines.push(
      `| ${name} | ${passed} | ${core.passed}/${core.total} | ${conformance.passed}/${conformance.total} | ${failing.join(", ") || "none"} |`,
    );
  }
  return `${lines.join("\n")}\n\n`;
}

function cell(value: string): string {
  return value.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

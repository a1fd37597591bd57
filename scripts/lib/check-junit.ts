// `pnpm check --reporter junit`: the check as JUnit XML, which GitHub, GitLab and Jenkins show
// natively, and under GitHub Actions a Markdown table for the job's summary page. One test suite
// per stage, one test case per scenario: a deciding miss is a <failure>, a conformance note a
// <skipped> with its reasons (decision 0039).
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
    highestStagePassed: report.highestStagePassed ?? "",
  };
  return [
    `  <testsuite${attributes({
      name: stage.stage,
      tests: stage.scenarios.length,
      failures: stage.scenarios.filter((scenario) => scenario.verdict === "fail").length,
      skipped: stage.scenarios.filter((scenario) => scenario.verdict === "note").length,
      errors: 0,
      timestamp: report.checkedAt,
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

function attributes(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([name, value]) => ` ${name}="${text(String(value)).replace(/"/g, "&quot;")}"`)
    .join("");
}

// XML text: markup escaped, and the control characters XML 1.0 cannot hold at all (a program's
// stderr may have any) dropped.
function text(value: string): string {
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
  const lines = [
    `### agent-code check: ${cell(report.project)}`,
    "",
    verdict,
    "",
    "| stage | passed | core | conformance | failing core scenarios |",
    "| --- | --- | --- | --- | --- |",
  ];
  for (const stage of report.stages) {
    const failing = stage.scenarios
      .filter((scenario) => scenario.level === "core" && scenario.verdict !== "pass")
      .map((scenario) => `\`${scenario.id}\``);
    const { core, conformance } = stage.counts;
    lines.push(
      `| ${stage.stage} | ${stage.passed ? "yes" : "no"} | ${core.passed}/${core.total} | ${conformance.passed}/${conformance.total} | ${failing.join(", ") || "none"} |`,
    );
  }
  return `${lines.join("\n")}\n\n`;
}

function cell(value: string): string {
  return value.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

// How `pnpm check` shows a check: text for a person, printed scenario by scenario as the check
// goes, or one JSON document for a grader (its schema is check-schema.json).
import type { CheckOutput, CheckReport, ScenarioReport, StageReport } from "./check-run.ts";
import { paint } from "./command.ts";

type Write = (text: string) => void;

const LABELS = {
  pass: ["PASS", "green"],
  fail: ["FAIL", "red"],
  note: ["NOTE", "yellow"],
} as const;

export function textOutput(write: Write, colour: boolean): CheckOutput {
  let strict = false;
  return {
    start(settings) {
      strict = settings.strict;
      write(`project: ${settings.project}\ncommand: ${settings.command.join(" ")}\n`);
    },
    stage(stage, title) {
      write(`\n${stage}: ${title}\n`);
    },
    scenario(_stage, scenario) {
      write(`${scenarioLines(scenario, colour).join("\n")}\n`);
    },
    stageDone(report) {
      write(`${stageSummary(report, strict)}\n`);
    },
    done(report) {
      write(`\n${lastLine(report)}\n`);
    },
  };
}

// The highest stage passed; a check that --only narrowed decides none.
export function lastLine(report: CheckReport): string {
  if (report.complete) return `highest stage passed: ${report.highestStagePassed ?? "none"}`;
  const run = report.stages.reduce((sum, stage) => sum + stage.scenarios.length, 0);
  return `not a full check (--only: ${run} ${run === 1 ? "scenario" : "scenarios"} run): no highest stage`;
}

// The document goes out whole at the end; `progress`, when given (a terminal), gets one line per
// scenario meanwhile.
export function jsonOutput(write: Write, progress?: Write, colour = false): CheckOutput {
  return {
    start() {},
    stage() {},
    scenario(stage, scenario) {
      progress?.(`${stage}  ${scenarioLine(scenario, colour)}\n`);
    },
    stageDone() {},
    done(report: CheckReport) {
      write(`${JSON.stringify(report, null, 2)}\n`);
    },
  };
}

// The verdict and title, then for a miss each failed judgement, the API's 400 text, the end of
// stderr, the docs.
export function scenarioLines(scenario: ScenarioReport, colour: boolean): string[] {
  const lines = [scenarioLine(scenario, colour)];
  if (scenario.verdict === "pass") return lines;
  for (const failure of scenario.failures) lines.push(`      - ${failure.message}`);
  if (scenario.serverText !== null) {
    lines.push(`      the API rejected a request (400): ${scenario.serverText}`);
  }
  if (scenario.stderrTail !== null) {
    lines.push("      stderr (last lines):");
    for (const line of scenario.stderrTail) lines.push(paint(colour, "dim", `        ${line}`));
  }
  const links = new Set(scenario.failures.flatMap((failure) => failure.docs ?? []));
  for (const link of links) lines.push(paint(colour, "dim", `      read: ${link}`));
  return lines;
}

function scenarioLine(scenario: ScenarioReport, colour: boolean): string {
  const [label, hue] = LABELS[scenario.verdict];
  return `${paint(colour, hue, label)}  ${scenario.title}  ${paint(colour, "dim", `[${scenario.id}]`)}`;
}

// Which scenarios decided the stage (core, or all of them with --strict), and the notes.
function stageSummary(report: StageReport, strict: boolean): string {
  const deciding = report.scenarios.filter((scenario) => strict || scenario.level === "core");
  const failed = deciding.filter((scenario) => scenario.verdict === "fail").length;
  const notes = report.scenarios.filter((scenario) => scenario.verdict === "note").length;
  const kind = strict ? "scenarios" : "core scenarios";
  const verdict = report.passed
    ? `${report.stage} passed: ${deciding.length} of ${deciding.length} ${kind}`
    : `${report.stage} not passed: ${failed} of ${deciding.length} ${kind} failed`;
  if (notes === 0) return verdict;
  return `${verdict}; ${notes} ${notes === 1 ? "note" : "notes"} (conformance: they count with --strict)`;
}

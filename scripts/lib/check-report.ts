// How `pnpm check` shows a check: text for a person, printed scenario by scenario as the check
// goes, or one JSON document for a grader (its schema is check-schema.json).

import { courseRevision } from "./check-course.ts";
import type {
  CheckOutput,
  CheckReport,
  CheckSettings,
  ScenarioReport,
  StageReport,
} from "./check-run.ts";
import { paint } from "./command.ts";

type Write = (text: string) => void;

const LABELS = {
  pass: ["PASS", "green"],
  fail: ["FAIL", "red"],
  note: ["NOTE", "yellow"],
} as const;

// One stage: every scenario as it finishes. Several (--all): a first screen of one line per stage
// once they are all done, then the misses of the stage after the highest passed; `verbose` prints
// every stage's scenarios as they finish, as for one stage.
export function textOutput(write: Write, colour: boolean, verbose = false): CheckOutput {
  let strict = false;
  let summaryOnly = false;
  // The API's 400 texts already quoted in this stage: a text many scenarios share is quoted once.
  let quoted = new Set<string>();
  return {
    start(settings) {
      strict = settings.strict;
      summaryOnly = settings.stages.length > 1 && !verbose;
      write(`project: ${settings.project}\ncommand: ${settings.command.join(" ")}\n`);
    },
    stage(stage, title) {
      quoted = new Set();
      if (!summaryOnly) write(`\n${stage}: ${title}\n`);
    },
    scenario(_stage, scenario) {
      if (!summaryOnly) write(`${scenarioLines(scenario, colour, quoted).join("\n")}\n`);
    },
    stageDone(report) {
      if (!summaryOnly) write(`${stageSummary(report, strict)}\n`);
    },
    done(report) {
      if (summaryOnly) write(`\n${firstScreen(report, colour).join("\n")}\n`);
      write(`\n${lastLine(report)}\n`);
    },
  };
}

// The next stage's misses the first screen shows, each in two or three lines; the rest are counted.
// With a line a stage, this keeps a check of the whole course under 40 lines.
const MISSES_SHOWN = 4;

// The highest stage first, a line per stage, why the stages before it miss, and the misses of the
// stage to work on next (or of the first stage, when none passed).
function firstScreen(report: CheckReport, colour: boolean): string[] {
  const highest = report.highestStagePassed;
  const order = report.stages.map((stage) => stage.stage);
  const top = highest === null ? -1 : order.indexOf(highest);
  const width = Math.max(...order.map((stage) => stage.length));
  const lines = [`highest stage passed: ${highest ?? "none"}`, ""];
  report.stages.forEach((stage, index) => {
    const outgrown = !stage.passed && index < top;
    const verdict = stageVerdict(stage, report.strict, outgrown ? "outgrown" : undefined);
    lines.push(`${stage.stage.padEnd(width)}  ${verdict}`);
  });
  const outgrown = report.stages.filter((stage, index) => !stage.passed && index < top);
  if (outgrown.length > 0) {
    lines.push(
      "",
      `outgrown: ${outgrown.map((stage) => stage.stage).join(", ")} missed, but ${highest} passed. Each stage changes what`,
      "the one before did (a real model for the mock, tools in each request): nothing to fix there.",
    );
  }
  const next = report.stages[top + 1];
  if (next !== undefined) {
    lines.push("", `${next.stage}, the next stage, still misses:`);
    let read: string | null = null;
    const misses = next.scenarios.filter(({ verdict }) => verdict === "fail");
    for (const scenario of misses.slice(0, MISSES_SHOWN)) {
      // The judgement that leads, with the rest counted; a docs link when it changes.
      const [first, ...rest] = scenario.failures;
      const more = rest.length > 0 ? ` (and ${rest.length} more)` : "";
      lines.push(scenarioLine(scenario, colour), `      - ${first?.message ?? "missed"}${more}`);
      const docs = scenario.failures.find((failure) => failure.docs !== null)?.docs ?? null;
      if (docs !== null && docs !== read) lines.push(paint(colour, "dim", `      read: ${docs}`));
      read = docs;
    }
    const hidden = misses.length - MISSES_SHOWN;
    lines.push(
      `${hidden > 0 ? `and ${hidden} more; ` : ""}every scenario, stderr and notes: pnpm check ${next.stage}; every stage: --all --verbose`,
    );
  }
  return lines;
}

// A project whose sources do not parse: one failure quoting esbuild's `file:line:column: text`,
// and no scenario run. In JSON, no stages and the message as `buildError`.
export function buildFailure(
  settings: Pick<CheckSettings, "project" | "strict">,
  message: string,
  json: boolean,
): string {
  if (json) {
    const report: CheckReport = {
      version: 2,
      course: courseRevision(),
      checkedAt: new Date().toISOString(),
      project: settings.project,
      command: [],
      strict: settings.strict,
      complete: true,
      stages: [],
      highestStagePassed: null,
      buildError: message,
    };
    return `${JSON.stringify(report, null, 2)}\n`;
  }
  return [
    `project: ${settings.project}`,
    "",
    "FAIL  src/cli.ts does not build, so no scenario ran",
    `      ${message}`,
    "",
    "highest stage passed: none",
    "",
  ].join("\n");
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

// The verdict and title, then for a miss each failed judgement, the API's 400 text (once, when
// `quoted` holds the texts shown already), what stderr says went wrong, the docs.
export function scenarioLines(
  scenario: ScenarioReport,
  colour: boolean,
  quoted = new Set<string>(),
): string[] {
  const lines = [scenarioLine(scenario, colour)];
  if (scenario.verdict === "pass") return lines;
  for (const failure of scenario.failures) lines.push(`      - ${failure.message}`);
  if (scenario.serverText !== null) {
    lines.push(
      quoted.has(scenario.serverText)
        ? "      the API rejected a request (400), with the text quoted above"
        : `      the API rejected a request (400): ${scenario.serverText}`,
    );
    quoted.add(scenario.serverText);
  }
  const excerpt = scenario.stderrExcerpt ?? scenario.stderrTail;
  if (excerpt !== null) {
    lines.push(excerpt === scenario.stderrTail ? "      stderr (last lines):" : "      stderr:");
    for (const line of excerpt) lines.push(paint(colour, "dim", `        ${line}`));
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
  const verdict = `${report.stage} ${stageVerdict(report, strict)}`;
  if (!verdict.includes("note")) return verdict;
  return `${verdict} (conformance: they count with --strict)`;
}

// `passed: 16 of 16 core scenarios`, `not passed: 1 of 11 core scenarios failed; 2 notes`; a stage
// before the highest one passed says `outgrown` instead of `not passed`.
function stageVerdict(report: StageReport, strict: boolean, missed = "not passed"): string {
  const deciding = report.scenarios.filter((scenario) => strict || scenario.level === "core");
  const failed = deciding.filter((scenario) => scenario.verdict === "fail").length;
  const notes = report.scenarios.filter((scenario) => scenario.verdict === "note").length;
  const kind = strict ? "scenarios" : "core scenarios";
  const verdict = report.passed
    ? `passed: ${deciding.length} of ${deciding.length} ${kind}`
    : `${missed}: ${failed} of ${deciding.length} ${kind} failed`;
  return notes === 0 ? verdict : `${verdict}; ${notes} ${notes === 1 ? "note" : "notes"}`;
}

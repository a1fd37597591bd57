// How `pnpm check` shows a check: text for a person, printed scenario by scenario as the check
// goes, or one JSON document for a grader (its schema is check-schema.json).

import { courseRevision } from "./check-course.ts";
import { changedBy } from "./check-headline.ts";
import type { CheckFailure } from "./check-junit.ts";
import {
  type CheckOutput,
  type CheckReport,
  type CheckSettings,
  projectCommit,
  type ScenarioReport,
  type StageReport,
} from "./check-run.ts";
import { isMainLine, MAIN_LINE, paint } from "./command.ts";

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
      const whose =
        settings.courseCode === undefined
          ? ""
          : ` (this course's own code, not yours: to check your project, run in its folder: ${settings.courseCode})`;
      write(`project: ${settings.project}${whose}\ncommand: ${settings.command.join(" ")}\n`);
      if (settings.seed !== undefined) write(`${seedLine(settings.seed)}\n`);
    },
    startError(message) {
      write(`\n${startErrorLines(message).join("\n")}\n`);
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
      const next = nextToFixLines(report, colour);
      if (!summaryOnly && next.length > 0) write(`\n${next.join("\n")}\n`);
      const aside = summaryOnly ? [] : setAsideLines(report);
      if (aside.length > 0) write(`\n${aside.join("\n")}\n`);
      write(`\n${lastLine(report)}\n`);
    },
  };
}

// The misses the first screen shows, each in two or three lines (the next thing to fix, then
// others of its stage); the rest are counted. With a line a stage, this keeps a check of the whole
// course under 45 lines.
const MISSES_SHOWN = 4;

// The headline first and the next thing to fix, a line per main-line stage, the optional stages
// apart, what was set aside as outgrown, then the other misses of the next thing's stage.
function firstScreen(report: CheckReport, colour: boolean): string[] {
  const width = Math.max(...report.stages.map((stage) => stage.stage.length));
  const line = (stage: StageReport) =>
    `${stage.stage.padEnd(width)}  ${stageVerdict(stage, report.strict)}`;
  const mainLine = report.stages.filter((stage) => stage.mainLine ?? isMainLine(stage.stage));
  const optional = report.stages.filter((stage) => !mainLine.includes(stage));
  const lines = [headlineLine(report), ...nextToFixLines(report, colour)];
  lines.push("", ...mainLine.map(line));
  if (optional.length > 0) lines.push("optional, apart from the headline:", ...optional.map(line));
  const outgrown = mainLine.filter((stage) => stage.scenarios.some((one) => one.outgrown));
  if (outgrown.length > 0) {
    const count = outgrown.flatMap((stage) => stage.scenarios.filter((one) => one.outgrown)).length;
    const kind = report.strict ? "scenarios" : "core scenarios";
    lines.push(
      "",
      `outgrown, set aside: ${count} ${kind} of ${outgrown.map((stage) => stage.stage).join(", ")} that later stages changed`,
    );
  }
  // The next thing's stage; without one (only optional stages checked), the first that missed.
  const next =
    report.stages.find((stage) => stage.stage === report.nextToFix?.stage) ??
    (report.nextToFix === null || report.nextToFix === undefined
      ? optional.find((stage) => !stage.passed)
      : undefined);
  if (next !== undefined) {
    const misses = next.scenarios.filter(
      ({ id, verdict, outgrown }) => verdict === "fail" && !outgrown && id !== report.nextToFix?.id,
    );
    const shown = misses.slice(0, MISSES_SHOWN - (report.nextToFix ? 1 : 0));
    if (shown.length > 0) lines.push("", `${next.stage} also misses:`);
    let read = report.nextToFix?.docs ?? null;
    for (const scenario of shown) {
      lines.push(...missLines(scenario, colour, read));
      read = scenario.failures.find((failure) => failure.docs !== null)?.docs ?? null;
    }
    const hidden = misses.length - shown.length;
    lines.push(
      ...(shown.length > 0 ? [] : [""]),
      `${hidden > 0 ? `and ${hidden} more; ` : ""}every scenario, stderr and notes: pnpm check ${next.stage}; every stage: --all --verbose`,
    );
  }
  return lines;
}

// `highest stage passed: day-5-v1`, or `none`. A stage reached with misses set aside as outgrown
// by a later stage the check did not show names it: `highest stage passed: day-5-v1 (3 core
// scenarios outgrown by day-5-v2)` (decision 0070).
export function headlineLine(report: CheckReport): string {
  const highest = report.highestStagePassed;
  const stage = report.stages.find((one) => one.stage === highest);
  const shown = new Set(report.stages.map((one) => one.stage));
  const outgrown = (stage?.scenarios ?? []).filter(
    (scenario) =>
      scenario.outgrown && !shown.has(changedBy(highest ?? "", scenario.id) ?? highest ?? ""),
  );
  if (highest === null || outgrown.length === 0)
    return `highest stage passed: ${highest ?? "none"}`;
  return `highest stage passed: ${highest} (${counted(outgrown.length, report.strict)} outgrown by ${outgrownBy(highest, outgrown).join(", ")})`;
}

// One stage checked: its misses set aside, and why, before the headline.
function setAsideLines(report: CheckReport): string[] {
  return report.stages.flatMap((stage) => {
    const outgrown = stage.scenarios.filter((scenario) => scenario.outgrown);
    if (outgrown.length === 0) return [];
    const by = outgrownBy(stage.stage, outgrown).join(", ");
    return [
      `outgrown, set aside: ${counted(outgrown.length, report.strict)} of ${stage.stage} that ${by} changed: your project does what ${by} asks instead`,
    ];
  });
}

// The later stages that replaced or dropped these scenarios of `stage`, in course order.
function outgrownBy(stage: string, scenarios: ScenarioReport[]): string[] {
  const by = new Set(scenarios.map((scenario) => changedBy(stage, scenario.id) ?? "a later stage"));
  return MAIN_LINE.filter((one) => by.has(one)).concat(
    by.has("a later stage") ? ["a later stage"] : [],
  );
}

function counted(count: number, strict: boolean): string {
  const kind = strict ? "scenario" : "core scenario";
  return `${count} ${kind}${count === 1 ? "" : "s"}`;
}

// A miss in two or three lines: its verdict and title, the judgement that leads with the rest
// counted, and a docs link unless it is the one just shown.
function missLines(scenario: ScenarioReport, colour: boolean, read: string | null): string[] {
  const [first, ...rest] = scenario.failures;
  const more = rest.length > 0 ? ` (and ${rest.length} more)` : "";
  const lines = [scenarioLine(scenario, colour), `      - ${first?.message ?? "missed"}${more}`];
  const docs = scenario.failures.find((failure) => failure.docs !== null)?.docs ?? null;
  if (docs !== null && docs !== read) lines.push(paint(colour, "dim", `      read: ${docs}`));
  return lines;
}

// `next to fix (day-2-v2): <title>  [id]`, the judgement that leads and its docs link.
function nextToFixLines(report: CheckReport, colour: boolean): string[] {
  const next = report.nextToFix;
  if (next === null || next === undefined) return [];
  const lines = [
    `next to fix (${next.stage}): ${next.title}  ${paint(colour, "dim", `[${next.id}]`)}`,
    `      - ${next.message}`,
  ];
  if (next.docs !== null) lines.push(paint(colour, "dim", `      read: ${next.docs}`));
  return lines;
}

// A program that never started: the cause first, since every miss below follows from it.
export function startErrorLines(message: string): string[] {
  return [
    `does not start: ${message}`,
    "      every run ended with a failure before the program printed a line",
  ];
}

// The seed a check drew from, and how to ask the same again: a learner who fixes a seeded
// scenario checks it at the seed it missed at.
export function seedLine(seed: number): string {
  return `seed: ${seed} (--seed ${seed} asks the same words and file names again)`;
}

// A check that stopped before it judged anything, as the JSON document `--json` promised: no
// stages, and the error.
export function failureJson(failure: CheckFailure): string {
  const report: CheckReport = {
    version: 5,
    course: failure.course,
    checkedAt: failure.checkedAt,
    project: failure.project ?? "",
    projectCommit: failure.projectCommit,
    seed: failure.seed,
    command: [],
    strict: false,
    complete: false,
    stages: [],
    highestStagePassed: null,
    optionalPassed: [],
    nextToFix: null,
    error: failure.message,
  };
  return `${JSON.stringify(report, null, 2)}\n`;
}

// A project whose sources do not build (a file that does not parse, an import of a file that is
// not there): one failure quoting esbuild's `file:line:column: text`, and no scenario run. In
// JSON, no stages and the message as `buildError`.
export function buildFailure(
  settings: Pick<CheckSettings, "project" | "strict" | "seed">,
  message: string,
  json: boolean,
): string {
  if (json) {
    const report: CheckReport = {
      version: 5,
      course: courseRevision(),
      checkedAt: new Date().toISOString(),
      project: settings.project,
      projectCommit: projectCommit(settings.project),
      seed: settings.seed ?? null,
      command: [],
      strict: settings.strict,
      complete: true,
      stages: [],
      highestStagePassed: null,
      optionalPassed: [],
      nextToFix: null,
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

// A report a person can open (check:class's reports/<learner>.json): each stage keeps its counts
// and judgement, names the scenarios that passed and the notes by id, and holds in full only its
// deciding misses, each once: a kept scenario that misses the same way in every later stage is
// named there. A program that never started has one cause, the report's startError, so no
// scenario repeats its stderr. Everything that judged a miss stays; --verbose keeps every scenario.
export function briefReport(report: CheckReport): CheckReport {
  const shown = new Set<string>();
  const quiet = report.startError !== undefined;
  const stages = report.stages.map((stage) => {
    const passedIds: string[] = [];
    const notedIds: string[] = [];
    const failedAboveIds: string[] = [];
    const scenarios: ScenarioReport[] = [];
    for (const scenario of stage.scenarios) {
      if (scenario.verdict === "pass") passedIds.push(scenario.id);
      else if (scenario.verdict === "note") notedIds.push(scenario.id);
      else {
        const key = JSON.stringify([
          scenario.id,
          scenario.outgrown,
          scenario.failures,
          scenario.serverText,
        ]);
        if (shown.has(key)) failedAboveIds.push(scenario.id);
        else {
          shown.add(key);
          scenarios.push(quiet ? { ...scenario, stderrTail: null, stderrExcerpt: null } : scenario);
        }
      }
    }
    return { ...stage, scenarios, passedIds, notedIds, failedAboveIds };
  });
  return { ...report, stages, brief: true };
}

// The highest stage passed, and the optional stages that passed; a check that --only narrowed
// decides none.
export function lastLine(report: CheckReport): string {
  if (report.complete) {
    const optional = report.optionalPassed ?? [];
    const also = optional.length > 0 ? `; optional stages passed: ${optional.join(", ")}` : "";
    return `${headlineLine(report)}${also}`;
  }
  const run = report.stages.reduce((sum, stage) => sum + stage.scenarios.length, 0);
  if (report.battery === true) return batteryLine(report, run);
  return `not a full check (--only: ${run} ${run === 1 ? "scenario" : "scenarios"} run): no highest stage`;
}

// --battery: how many commands went as the rules say, the ids of those that did not.
function batteryLine(report: CheckReport, run: number): string {
  const missed = report.stages.flatMap((stage) =>
    stage.scenarios.filter((scenario) => scenario.verdict === "fail").map(({ id }) => id),
  );
  const counted =
    missed.length === 0
      ? `all ${run} ${run === 1 ? "command" : "commands"} went as the rules say`
      : `${missed.length} of ${run} ${run === 1 ? "command" : "commands"} did not go as the rules say: ${missed.join(", ")}`;
  return `battery: ${counted} (the battery alone names no highest stage)`;
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

// A selection (--only) of conformance scenarios alone decides nothing: it says so, and counts them.
function conformanceOnly(report: StageReport): string {
  const passed = report.scenarios.filter((scenario) => scenario.verdict === "pass").length;
  const notes = report.scenarios.length - passed;
  const counts = `no core scenario in this selection; conformance: ${passed} of ${report.scenarios.length} passed`;
  return notes === 0 ? counts : `${counts}; ${notes} ${notes === 1 ? "note" : "notes"}`;
}

// `passed: 16 of 16 core scenarios`, `not passed: 1 of 11 core scenarios failed; 2 notes`; the
// scenarios set aside as outgrown are not counted but named: `passed: 10 of 10 core scenarios,
// 1 outgrown`. A selection without a core scenario: `no core scenario in this selection;
// conformance: 12 of 12 passed`.
function stageVerdict(report: StageReport, strict: boolean): string {
  const deciding = report.scenarios.filter((scenario) => strict || scenario.level === "core");
  if (deciding.length === 0 && report.scenarios.length > 0) return conformanceOnly(report);
  const outgrown = deciding.filter((scenario) => scenario.outgrown).length;
  const kept = deciding.length - outgrown;
  const failed = deciding.filter((scenario) => scenario.verdict === "fail" && !scenario.outgrown);
  const notes = report.scenarios.filter((scenario) => scenario.verdict === "note").length;
  const kind = strict ? "scenarios" : "core scenarios";
  const verdict =
    (report.reached ?? report.passed)
      ? `passed: ${kept} of ${kept} ${kind}`
      : `not passed: ${failed.length} of ${kept} ${kind} failed`;
  const set = outgrown === 0 ? verdict : `${verdict}, ${outgrown} outgrown`;
  return notes === 0 ? set : `${set}; ${notes} ${notes === 1 ? "note" : "notes"}`;
}

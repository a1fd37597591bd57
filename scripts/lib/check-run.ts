// Runs stage contracts against a learner's command and keeps the facts `pnpm check` reports,
// as text or as JSON (scripts/lib/check-schema.json describes that document).
import { availableParallelism } from "node:os";
import {
  findContract,
  runContract,
  type ScenarioResult,
  type SharedRuns,
} from "@agent-code/test-kit";
import { type CourseRevision, courseRevision } from "./check-course.ts";
import { inheritFilter } from "./check-env.ts";
import { STAGES, UsageError } from "./command.ts";

export interface CheckSettings {
  stages: string[];
  project: string;
  command: string[];
  strict: boolean;
  only: string[] | undefined;
  timeoutMs: number;
  // The caller's variables the command gets beyond the allowlist (--pass-env).
  passEnv?: string[];
}

// pass; fail (decides the stage); note (a conformance miss, which decides only with --strict).
export type Verdict = "pass" | "fail" | "note";

export interface ScenarioReport {
  // Stable across course revisions; a renamed scenario lists its old ids in `aliases`.
  id: string;
  aliases: string[];
  title: string;
  level: "core" | "conformance";
  verdict: Verdict;
  timedOut: boolean;
  failures: { message: string; docs: string | null }[];
  serverText: string | null;
  // The last lines the command wrote to stderr, when it missed: a crash shows why.
  stderrTail: string[] | null;
}

export interface StageReport {
  stage: string;
  title: string;
  passed: boolean;
  // How many scenarios of each level ran and passed.
  counts: Record<"core" | "conformance", { passed: number; total: number }>;
  scenarios: ScenarioReport[];
}

export interface CheckReport {
  version: 2;
  // The revision of this course that judged the project, and when the check started.
  course: CourseRevision;
  checkedAt: string;
  project: string;
  command: string[];
  strict: boolean;
  // false when --only left scenarios out: no stage was checked whole, so none is "passed".
  complete: boolean;
  stages: StageReport[];
  highestStagePassed: string | null;
}

// What the text and JSON outputs are told as the check goes; scenarios arrive in contract order.
export interface CheckOutput {
  start(settings: CheckSettings): void;
  stage(stage: string, title: string): void;
  scenario(stage: string, scenario: ScenarioReport): void;
  stageDone(report: StageReport): void;
  done(report: CheckReport): void;
}

// A start costs CPU (a bundle about 0.2 s, tsx about a second): one scenario per core, at least
// two (scenarios also wait on retries and timeouts), at most four (a check should not take over a
// machine).
const CONCURRENCY = Math.min(4, Math.max(2, availableParallelism()));

// Every stage of the settings in turn; undefined when `signal` stopped the check (Ctrl-C).
export async function runCheck(
  settings: CheckSettings,
  output: CheckOutput,
  signal?: AbortSignal,
): Promise<CheckReport | undefined> {
  const checkedAt = new Date().toISOString();
  output.start(settings);
  const stages: StageReport[] = [];
  // Later stages keep many of their base's scenarios unchanged, and a conformance scenario often
  // judges the same run as a core one: each distinct run happens once a check.
  const sharedRuns: SharedRuns = new Map();
  for (const stage of settings.stages) {
    const report = await checkStage(stage, settings, output, sharedRuns, signal);
    if (report === undefined) return undefined;
    output.stageDone(report);
    stages.push(report);
  }
  const complete = settings.only === undefined;
  const report: CheckReport = {
    version: 2,
    course: courseRevision(),
    checkedAt,
    project: settings.project,
    command: settings.command,
    strict: settings.strict,
    complete,
    stages,
    highestStagePassed: complete ? highestStagePassed(stages) : null,
  };
  output.done(report);
  return report;
}

async function checkStage(
  stage: string,
  settings: CheckSettings,
  output: CheckOutput,
  sharedRuns: SharedRuns,
  signal?: AbortSignal,
): Promise<StageReport | undefined> {
  const contract = findContract(stage);
  if (contract === undefined) throw new Error(`no contract for stage: ${stage}`);
  output.stage(stage, contract.title);
  // A command that cannot start fails every scenario the same way: stop at the first one.
  const cannotStart = new AbortController();
  const stop = signal ? AbortSignal.any([signal, cannotStart.signal]) : cannotStart.signal;
  let spawnError: string | undefined;
  // Results arrive as scenarios finish; they are passed on in contract order.
  const pending = contract.scenarios
    .filter((scenario) => settings.only === undefined || settings.only.includes(scenario.id))
    .map((scenario) => scenario.id);
  const finished = new Map<string, ScenarioReport>();
  const aliases = new Map(contract.scenarios.map((scenario) => [scenario.id, scenario.aliases]));

  const result = await runContract(contract, {
    command: settings.command,
    cwd: settings.project,
    timeoutMs: settings.timeoutMs,
    only: settings.only,
    concurrency: CONCURRENCY,
    signal: stop,
    sharedRuns,
    inheritEnv: inheritFilter(settings.passEnv),
    onScenario(scenario) {
      if (stop.aborted) return;
      if (scenario.run.spawnError !== undefined) {
        spawnError = scenario.run.spawnError;
        cannotStart.abort();
        return;
      }
      finished.set(scenario.id, scenarioReport(scenario, settings.strict, aliases));
      for (const id of [...pending]) {
        const next = finished.get(id);
        if (next === undefined) break;
        output.scenario(stage, next);
        pending.shift();
      }
    },
  });
  if (spawnError !== undefined) {
    throw new UsageError(`cannot start \`${settings.command.join(" ")}\`: ${spawnError}`);
  }
  if (signal?.aborted) return undefined;
  const scenarios = result.scenarios.map((scenario) =>
    scenarioReport(scenario, settings.strict, aliases),
  );
  return {
    stage: contract.stage,
    title: contract.title,
    passed: settings.strict ? result.strictPassed : result.passed,
    counts: { core: count(scenarios, "core"), conformance: count(scenarios, "conformance") },
    scenarios,
  };
}

function count(scenarios: ScenarioReport[], level: ScenarioReport["level"]) {
  const of = scenarios.filter((scenario) => scenario.level === level);
  return {
    passed: of.filter((scenario) => scenario.verdict === "pass").length,
    total: of.length,
  };
}

function scenarioReport(
  result: ScenarioResult,
  strict: boolean,
  aliases: Map<string, string[] | undefined>,
): ScenarioReport {
  const decides = strict || result.level === "core";
  return {
    id: result.id,
    aliases: aliases.get(result.id) ?? [],
    title: result.title,
    level: result.level,
    verdict: result.passed ? "pass" : decides ? "fail" : "note",
    timedOut: result.timedOut,
    failures: result.failures.map(({ message, docs }) => ({ message, docs: docs || null })),
    serverText: result.serverText ?? null,
    stderrTail: result.passed ? null : stderrTail(result.run.stderr),
  };
}

const STDERR_LINES = 5;

function stderrTail(stderr: string): string[] | null {
  const lines = stderr.split("\n").filter((line) => line.trim() !== "");
  return lines.length === 0 ? null : lines.slice(-STDERR_LINES);
}

// The latest stage, in course order, that passed. Each stage is judged on its own: an earlier
// stage that fails (a text that changed since, say) does not hide a later one that passes.
export function highestStagePassed(
  stages: { stage: string; passed: boolean }[],
  order: string[] = STAGES,
): string | null {
  let highest: string | null = null;
  for (const stage of order) {
    if (stages.some((report) => report.stage === stage && report.passed)) highest = stage;
  }
  return highest;
}

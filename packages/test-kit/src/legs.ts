// What each run of the suite asks of each stage's contract (docs/decisions/0062-where-a-scenario-
// runs.md). A scenario runs where it proves something. On every commit (`pnpm test`, CI's full
// leg) a stage runs the scenarios it adds or changes, every core one, and what only it proves (the
// scenarios no later stage carries unchanged); each day's last main-line stage, each challenges
// stage and the appendix run their whole contract; the rest, an intermediate stage's inherited
// conformance scenarios, run in one of SLICES slices, chosen by the commit, so each runs within
// SLICES commits. CI's floor leg, on the oldest Node `engines` allows, runs the newest day's last
// stage whole and what each stage off the main line adds. `pnpm test:all` runs everything.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { contracts as courseContracts } from "../contracts/index.ts";
import { type Contract, runKey, type Scenario } from "./contract.ts";

export type TestLeg = "full" | "floor" | "all";

// AGENT_CODE_TEST_LEG names the leg; unset is the full leg. Any other value is a mistake in a
// script, not a reason to run less: it throws.
export function testLeg(env: NodeJS.ProcessEnv = process.env): TestLeg {
  const value = env.AGENT_CODE_TEST_LEG;
  if (value === undefined || value === "" || value === "full") return "full";
  if (value === "floor" || value === "all") return value;
  throw new Error(
    `AGENT_CODE_TEST_LEG must be "full", "floor" or "all", not ${JSON.stringify(value)}`,
  );
}

// How many commits it takes for every inherited conformance scenario of an intermediate stage to
// have run once on the full leg. Changing it is a decision (0062), as the budget is.
export const SLICES = 4;

// The slice this run takes: AGENT_CODE_SLICE (any whole number, `.ci/run` gives the commit count)
// modulo SLICES; unset, the repository's commit count, so a developer's runs turn too.
export function commitSlice(env: NodeJS.ProcessEnv = process.env): number {
  const value = env.AGENT_CODE_SLICE;
  if (value !== undefined && value !== "") {
    if (!/^\d+$/.test(value)) {
      throw new Error(`AGENT_CODE_SLICE must be a whole number, not ${JSON.stringify(value)}`);
    }
    return Number(BigInt(value) % BigInt(SLICES));
  }
  return commitCount() % SLICES;
}

let counted: number | undefined;
function commitCount(): number {
  if (counted === undefined) {
    try {
      const root = fileURLToPath(new URL("../../..", import.meta.url));
      const out = execFileSync("git", ["rev-list", "--count", "HEAD"], {
        cwd: root,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      });
      counted = Number.parseInt(out, 10) || 0;
    } catch {
      counted = 0;
    }
  }
  return counted;
}

// The slice a scenario of a stage belongs to: a hash of both names, so the copies of one scenario
// in several stages fall in different slices and some copy of it runs on most commits.
export function scenarioSlice(stage: string, id: string): number {
  let hash = 0x811c9dc5;
  for (const char of `${stage}\0${id}`) {
    hash ^= char.codePointAt(0) ?? 0;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % SLICES;
}

// A stage of the main line (day-1, day-N-vK), as opposed to a challenges stage or an appendix.
export function isMainLineStage(stage: string): boolean {
  return /^day-\d+(-v\d+)?$/.test(stage);
}

const stagesOf = (contracts: Contract[]) => contracts.map((contract) => contract.stage);

// The stages that run their whole contract on every commit: the last main-line stage of each day
// (the one that holds every earlier lesson of that day), and every stage off the main line (the
// challenges and the appendix), whose code no later stage carries.
export function wholeStages(stages: string[] = stagesOf(courseContracts)): string[] {
  const lastOfDay = new Map<string, string>();
  for (const stage of stages.filter(isMainLineStage)) {
    lastOfDay.set(/^day-\d+/.exec(stage)?.[0] ?? stage, stage);
  }
  const chosen = new Set(lastOfDay.values());
  return stages.filter((stage) => chosen.has(stage) || !isMainLineStage(stage));
}

// The newest day's last main-line stage: it holds the code of every earlier lesson that is still
// taught, and the floor leg runs it whole.
export function newestStage(stages: string[] = stagesOf(courseContracts)): string | undefined {
  return stages.filter(isMainLineStage).at(-1);
}

// The stages the floor leg tests at all: the newest stage, and every stage off the main line (for
// what only it adds). Their packages, test-kit's and the scripts' make the floor leg's turbo filter.
export function floorStages(stages: string[] = stagesOf(courseContracts)): string[] {
  const newest = newestStage(stages);
  return stages.filter((stage) => stage === newest || !isMainLineStage(stage));
}

// Whether a stage runs its whole contract on this leg, and with it the tests that follow the
// contract (the file tools' race tests): every stage on `all`, the whole stages on the full leg,
// the newest stage on the floor leg.
export function runsWhole(
  stage: string,
  leg: TestLeg = testLeg(),
  stages: string[] = stagesOf(courseContracts),
): boolean {
  if (leg === "all") return true;
  if (leg === "floor") return stage === newestStage(stages);
  return wholeStages(stages).includes(stage);
}

// Why a scenario runs: the stage runs whole; the stage adds or changes it (own); it is core; no
// later stage carries it unchanged (only here); it judges a run that a planned scenario makes
// anyway (shared, a conformance twin); it is in the commit's slice.
export type RunReason = "whole" | "own" | "core" | "only-here" | "shared" | "slice";

export interface PlannedScenario {
  scenario: Scenario;
  reason: RunReason;
}

export interface PlanOptions {
  leg?: TestLeg;
  slice?: number;
  contracts?: Contract[];
}

// The scenarios of a stage's contract that this leg runs, in contract order, each with its reason.
export function contractPlan(stage: string, options: PlanOptions = {}): PlannedScenario[] {
  const contracts = options.contracts ?? courseContracts;
  const leg = options.leg ?? testLeg();
  const stages = stagesOf(contracts);
  const contract = contracts.find((candidate) => candidate.stage === stage);
  if (contract === undefined) throw new Error(`no contract for stage: ${stage}`);
  const all = (reason: RunReason) => contract.scenarios.map((scenario) => ({ scenario, reason }));
  if (runsWhole(stage, leg, stages)) return all("whole");
  if (leg === "floor" && isMainLineStage(stage)) return [];

  const base = contracts.find((candidate) => candidate.stage === contract.base);
  const inBase = new Map(base?.scenarios.map((scenario) => [scenario.id, scenario]) ?? []);
  const children = contracts.filter((candidate) => candidate.base === stage);
  const slice = leg === "full" ? (options.slice ?? commitSlice()) : undefined;
  const reasons = new Map<Scenario, RunReason>();
  for (const scenario of contract.scenarios) {
    const reason: RunReason | undefined =
      inBase.get(scenario.id) !== scenario
        ? "own"
        : leg === "floor"
          ? undefined
          : scenario.level === "core"
            ? "core"
            : children.length > 0 && !children.some((child) => child.scenarios.includes(scenario))
              ? "only-here"
              : scenarioSlice(stage, scenario.id) === slice
                ? "slice"
                : undefined;
    if (reason !== undefined) reasons.set(scenario, reason);
  }
  // A scenario judged on a run that a planned one makes anyway costs nothing: it runs too.
  const keys = new Set([...reasons.keys()].map(runKey));
  for (const scenario of contract.scenarios) {
    if (!reasons.has(scenario) && keys.has(runKey(scenario))) reasons.set(scenario, "shared");
  }
  return contract.scenarios.flatMap((scenario) => {
    const reason = reasons.get(scenario);
    return reason === undefined ? [] : [{ scenario, reason }];
  });
}

// The stage a test file belongs to (`packages/<stage>/test/x.test.ts`), for tests that follow the
// contract's legs: the race tests of the file tools run thousands of tool calls against a second
// process, and run where the stage's whole contract runs (runsWhole).
export function stageOfTest(testFileUrl: string): string {
  return path.basename(path.dirname(path.dirname(fileURLToPath(testFileUrl))));
}

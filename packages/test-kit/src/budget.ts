// What the suite asks of the stages' contracts, counted from the contracts and the leg rules alone
// (docs/decisions/0063-the-suite-budget.md): the CLI runs each leg makes and the seconds of waits
// its scenarios declare. No clock is read, so the count is the same on any machine, and the budget
// test can fail when a contract grows past what the decision allows.
import { contracts as courseContracts } from "../contracts/index.ts";
import { type Contract, runKey, type Scenario, type ScenarioContext } from "./contract.ts";
import { contractPlan, floorStages, SLICES, type TestLeg } from "./legs.ts";

export interface StageCost {
  stage: string;
  // Scenarios the leg judges, and the CLI runs they take: one per distinct run, one more for each
  // seeded scenario (its second seed), and the learner's path (the sources through tsx) once.
  scenarios: number;
  runs: number;
  // Seconds the planned scenarios wait on purpose: settleMs, an interrupt's afterMs, and the
  // delays of the fake server's steps.
  waitSeconds: number;
}

export interface LegCost {
  leg: TestLeg;
  runs: number;
  waitSeconds: number;
  stages: StageCost[];
}

// A leg's cost on its costliest slice (the full leg's slice changes every commit; the budget holds
// for each of them).
export function legCost(leg: TestLeg, contracts: Contract[] = courseContracts): LegCost {
  const slices = leg === "full" ? Array.from({ length: SLICES }, (_, slice) => slice) : [0];
  const costs = slices.map((slice) => legCostAt(leg, slice, contracts));
  return costs.reduce((worst, cost) => (cost.runs > worst.runs ? cost : worst));
}

function legCostAt(leg: TestLeg, slice: number, contracts: Contract[]): LegCost {
  const stages = contracts.map((contract) => contract.stage);
  // The floor leg tests the floor's packages only; the other legs test every stage.
  const tested = leg === "floor" ? floorStages(stages) : stages;
  const costs = tested.map((stage) => {
    const plan = contractPlan(stage, { leg, slice, contracts });
    const scenarios = plan.map((planned) => planned.scenario);
    const byRun = new Map(scenarios.map((scenario) => [runKey(scenario), scenario]));
    const runs = [...byRun.values()].reduce((sum, scenario) => sum + runsOf(scenario), 0);
    const seeded = scenarios.filter(isSeeded).length;
    const waitMs = scenarios.reduce((sum, scenario) => sum + declaredWaitMs(scenario), 0);
    return {
      stage,
      scenarios: scenarios.length + seeded,
      runs: runs + seeded + 1,
      waitSeconds: waitMs / 1000,
    };
  });
  return {
    leg,
    runs: costs.reduce((sum, cost) => sum + cost.runs, 0),
    waitSeconds: costs.reduce((sum, cost) => sum + cost.waitSeconds, 0),
    stages: costs,
  };
}

// A planned scenario of a day not built yet stands for the CLI starts its design gives it (a Day 6
// scenario starts it two or three times); a real one starts it once, and once more for each of
// its later `runs`.
const plannedRuns = new WeakMap<Scenario, number>();

function runsOf(scenario: Scenario): number {
  return plannedRuns.get(scenario) ?? 1 + (scenario.runs?.length ?? 0);
}

// A stage the designs plan: its base, the scenarios it adds by level, how many of its base's it
// changes, and how many CLI starts one of its scenarios makes.
export interface PlannedStage {
  stage: string;
  base: string;
  core: number;
  conformance: number;
  changed?: number;
  runsEach?: number;
}

// The course as the designs plan it: today's contracts, then each planned stage as its base's
// scenarios (the same objects, so carried ones stay carried) with its own added and changed.
export function plannedContracts(
  planned: PlannedStage[],
  contracts: Contract[] = courseContracts,
): Contract[] {
  const all = [...contracts];
  for (const stage of planned) {
    const base = all.find((contract) => contract.stage === stage.base);
    if (base === undefined) throw new Error(`${stage.stage}: no stage ${stage.base}`);
    if (all.some((contract) => contract.stage === stage.stage)) {
      throw new Error(`${stage.stage} is built: take it out of the planned stages`);
    }
    const made = (id: string, level: Scenario["level"]): Scenario => {
      const scenario: Scenario = { id, title: id, level, args: [stage.stage, id], judgements: [] };
      plannedRuns.set(scenario, stage.runsEach ?? 1);
      return scenario;
    };
    const changed = new Set(
      base.scenarios.slice(0, stage.changed ?? 0).map((scenario) => scenario.id),
    );
    all.push({
      stage: stage.stage,
      title: stage.stage,
      base: stage.base,
      scenarios: [
        ...base.scenarios.map((scenario) =>
          changed.has(scenario.id) ? made(scenario.id, scenario.level) : scenario,
        ),
        ...Array.from({ length: stage.core }, (_, n) => made(`${stage.stage}-core-${n}`, "core")),
        ...Array.from({ length: stage.conformance }, (_, n) =>
          made(`${stage.stage}-conformance-${n}`, "conformance"),
        ),
      ],
    });
  }
  return all;
}

// Days 7 to 9 as the course plans them, before their pages are written: the scenarios each stage
// adds, without the twins (they judge another's run and cost nothing), and the CLI starts of each.
export const PLANNED_STAGES: PlannedStage[] = [
  // Day 8: one runtime, modes, type-ahead, batches, todos, plan mode.
  { stage: "day-8-v1", base: "day-7-v5", core: 0, conformance: 2, changed: 2 },
  { stage: "day-8-v2", base: "day-8-v1", core: 1, conformance: 2, runsEach: 1.5 },
  { stage: "day-8-v3", base: "day-8-v2", core: 1, conformance: 3 },
  { stage: "day-8-v4", base: "day-8-v3", core: 2, conformance: 1 },
  { stage: "day-8-v5", base: "day-8-v4", core: 1, conformance: 1, runsEach: 1.5 },
  { stage: "day-8-v6", base: "day-8-v5", core: 4, conformance: 1 },
  // Day 9: skills, their scope, output styles.
  { stage: "day-9-v1", base: "day-8-v6", core: 2, conformance: 6 },
  { stage: "day-9-v2", base: "day-9-v1", core: 1, conformance: 1 },
  { stage: "day-9-v3", base: "day-9-v2", core: 2, conformance: 2 },
  { stage: "day-9-v4", base: "day-9-v3", core: 0, conformance: 2, runsEach: 1.5 },
  { stage: "day-9-v5", base: "day-9-v4", core: 0, conformance: 2 },
];

// The context a scenario's inputs are built from, in no real folder: enough to see what they are.
function probe(onSeed: () => void): ScenarioContext {
  return {
    dir: "/probe",
    file: "/probe/not-a-directory.txt",
    work: "/probe/work",
    home: "/probe/home",
    serverUrl: "http://127.0.0.1:9",
    webUrl: "http://127.0.0.1:9",
    get seed() {
      onSeed();
      return 0;
    },
  };
}

const seededCache = new WeakMap<Scenario, boolean>();

// Whether building the scenario's inputs reads the seed: such a scenario runs at a second seed too.
export function isSeeded(scenario: Scenario): boolean {
  const known = seededCache.get(scenario);
  if (known !== undefined) return known;
  let read = false;
  const context = probe(() => {
    read = true;
  });
  for (const input of [
    scenario.args,
    scenario.env,
    scenario.files,
    scenario.homeFiles,
    scenario.secrets,
    scenario.server?.steps,
    scenario.web?.routes,
  ]) {
    if (typeof input === "function") (input as (context: ScenarioContext) => unknown)(context);
  }
  seededCache.set(scenario, read);
  return read;
}

// The milliseconds a scenario waits on purpose, as it declares them: its settleMs, its interrupt's
// afterMs, and its steps' delays, each no longer than the client's timeout when the scenario sets
// one, and none when a Ctrl-C ends the run while the server holds its answer.
export function declaredWaitMs(scenario: Scenario): number {
  const context = probe(() => {});
  const steps = scenario.server?.steps;
  const list = typeof steps === "function" ? steps(context) : (steps ?? []);
  const env = typeof scenario.env === "function" ? scenario.env(context) : scenario.env;
  const timeout = Number(env?.AGENT_CODE_TIMEOUT_MS ?? Number.POSITIVE_INFINITY);
  const stepWaits =
    scenario.interrupt === undefined
      ? list.reduce((sum, step) => {
          if (typeof step === "function") return sum;
          return sum + Math.min((step as { delay_ms?: number }).delay_ms ?? 0, timeout);
        }, 0)
      : 0;
  // Each run settles, and each run's Ctrl-C waits its own afterMs.
  const runs = 1 + (scenario.runs?.length ?? 0);
  const laterWaits = (scenario.runs ?? []).reduce(
    (sum, run) => sum + (run.interrupt?.afterMs ?? 0),
    0,
  );
  // A line typed later waits its afterMs (a wait for requests is the run's own time).
  const typed = [scenario.stdinLines, ...(scenario.runs ?? []).map((run) => run.stdinLines)]
    .flatMap((lines) => lines ?? [])
    .reduce((sum, line) => sum + (line.afterMs ?? 0), 0);
  return (
    (scenario.settleMs ?? 0) * runs +
    (scenario.interrupt?.afterMs ?? 0) +
    laterWaits +
    stepWaits +
    typed
  );
}

// The budget decision 0063 records, for the course as Days 1 to 9 plan it: a leg's CLI runs and
// declared waits over every stage it tests, and any one stage's runs on any leg. Raising it is a
// decision, never a silent edit.
export const BUDGET = {
  full: { runs: 8_000, waitSeconds: 300 },
  floor: { runs: 700, waitSeconds: 60 },
  stageRuns: 450,
};

// What a leg's cost breaks of the budget, in words; empty when it fits.
export function overBudget(cost: LegCost): string[] {
  if (cost.leg === "all") return [];
  const limit = BUDGET[cost.leg];
  const problems: string[] = [];
  if (cost.runs > limit.runs) {
    problems.push(
      `the ${cost.leg} leg makes ${Math.round(cost.runs)} CLI runs; the budget is ${limit.runs}`,
    );
  }
  if (cost.waitSeconds > limit.waitSeconds) {
    problems.push(
      `the ${cost.leg} leg waits ${cost.waitSeconds.toFixed(1)} s on purpose; the budget is ${limit.waitSeconds} s`,
    );
  }
  for (const stage of cost.stages.filter((one) => one.runs > BUDGET.stageRuns)) {
    problems.push(
      `${stage.stage} makes ${Math.round(stage.runs)} CLI runs on the ${cost.leg} leg; the budget is ${BUDGET.stageRuns} a stage`,
    );
  }
  return problems;
}

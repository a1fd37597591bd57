// `pnpm bench:test [--leg full|floor|both] [--filter <package>]... [--project]`: what a cold run
// of the suite (turbo's cache off) costs, and where every second of CPU goes. For each leg it
// prints the wall time, the CPU time of every process the run started, the CPU of each turbo task
// (each task's whole process tree, read from turbo's reaped children), each package's, the
// slowest test files, the contract scenarios the leg ran against the sum of every stage's
// contract, and each contract's CPU per scenario split between the CLI processes and the test
// process (the runner and the fake servers). `--leg both` runs CI's two legs, floor then full, on
// this Node; `--project` prints the cold `.ci/run` of Days 1 to 9 as their designs plan them, from
// the measured costs and the budget's counts (decision 0063), over the legs it ran and the last
// saved run of the other leg (`.ci/run` runs each leg on its own Node: run `--leg floor` with the
// floor's Node first on PATH, then `--leg full --project` with the newest LTS). A benchmark to
// read, not a test: a shared machine only ever adds time. The runs' output goes to
// .test-results/bench-test-<leg>.log.
import { existsSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  CONTRACT_CPU_FILE,
  type Contract,
  type ContractCpu,
  contracts,
  legCost,
  PLANNED_STAGES,
  plannedContracts,
} from "@agent-code/test-kit";
import { ROOT, runCommand, STAGES, UsageError } from "./lib/command.ts";
import {
  coldTestCommand,
  reportsSince,
  runTests,
  type TaskTime,
  type TestRun,
  taskCpu,
  taskTimes,
  type VitestReport,
} from "./lib/test-runs.ts";

export type Leg = "full" | "floor";
// The pnpm script each leg runs (package.json; docs/decisions/0049-two-legs.md).
export const LEG_SCRIPTS: Record<Leg, string> = { full: "test", floor: "test:floor" };

export interface FileTime {
  file: string;
  seconds: number;
}

// The files of every report, slowest first, named from the repository root.
export function slowestFiles(
  root: string,
  reports: { report: VitestReport }[],
  count = 10,
): FileTime[] {
  return reports
    .flatMap(({ report }) => report.testResults ?? [])
    .map((file) => ({
      file: file.name.startsWith(root) ? file.name.slice(root.length + 1) : file.name,
      seconds: (file.endTime - file.startTime) / 1000,
    }))
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, count);
}

export interface StageCost {
  stage: string;
  build: number;
  typecheck: number;
  test: number;
  // Seconds of tests in other packages whose name holds the stage's (`day-2-v3: ...`), a test that
  // names n stages counting 1/n of its seconds to each.
  elsewhere: number;
  // CPU seconds of the stage's own tasks (build, typecheck, test), when they were measured.
  cpu?: number;
  // The CPU of its tests elsewhere, when their tasks' CPU was measured: each test's seconds times
  // its task's CPU a second of test (tasksCpuShare), or 1 where that task's CPU is not known.
  elsewhereCpu?: number;
}

// Of each report's tests, the CPU a second of their summed durations: the task's CPU over those
// seconds, at most 1, for a task's CPU also holds what ran before its tests (the site's build).
// A named test then counts its task's mean rate, and a stage's tests elsewhere never add up to
// more CPU than their tasks used. A report without a measured task has none.
export function tasksCpuShare(
  reports: { task?: string; report: VitestReport }[],
  cpuByTask: Map<string, number>,
): Map<string, number> {
  const shares = new Map<string, number>();
  for (const { task, report } of reports) {
    const cpu = task === undefined ? undefined : cpuByTask.get(task);
    if (task === undefined || cpu === undefined) continue;
    const seconds = (report.testResults ?? [])
      .flatMap((file) => file.assertionResults)
      .reduce((total, test) => total + (test.duration ?? 0) / 1000, 0);
    shares.set(task, seconds === 0 ? 1 : Math.min(1, cpu / seconds));
  }
  return shares;
}

// A stage's own tasks, and the tests outside its package that name it; stages the run left out
// are not listed.
export function stageCosts(
  stages: string[],
  tasks: TaskTime[],
  reports: { dir: string; task?: string; report: VitestReport }[],
  cpuByTask?: Map<string, number>,
): StageCost[] {
  const seconds = (stage: string, task: string) =>
    tasks.find((entry) => entry.taskId === `@agent-code/${stage}#${task}`)?.seconds ?? 0;
  const shares = cpuByTask === undefined ? undefined : tasksCpuShare(reports, cpuByTask);
  const patterns = stages.map((stage) => ({
    stage,
    dir: join("packages", stage),
    named: new RegExp(`(^|[^\\w-])${stage.replace(/[-]/g, "\\-")}($|[^\\w-])`),
  }));
  // A test that names several stages (a diff of two, a check of many) is shared between those it
  // is elsewhere for, so that their tests elsewhere add up to its seconds, not once per name.
  const namedIn = (fullName: string, dir: string) =>
    patterns.filter((one) => one.dir !== dir && one.named.test(fullName)).length;
  return patterns.flatMap(({ stage, dir: own, named }) => {
    const elsewhereTests = reports
      .filter(({ dir }) => dir !== own)
      .flatMap(({ dir, task, report }) =>
        (report.testResults ?? [])
          .flatMap((file) => file.assertionResults)
          .filter((test) => named.test(test.fullName))
          .map((test) => ({
            task,
            seconds: (test.duration ?? 0) / 1000 / namedIn(test.fullName, dir),
          })),
      );
    const cost: StageCost = {
      stage,
      build: seconds(stage, "build"),
      typecheck: seconds(stage, "typecheck"),
      test: seconds(stage, "test"),
      elsewhere: elsewhereTests.reduce((total, test) => total + test.seconds, 0),
    };
    if (cpuByTask !== undefined) {
      cost.cpu = ["build", "typecheck", "test"].reduce(
        (sum, task) => sum + (cpuByTask.get(`@agent-code/${stage}#${task}`) ?? 0),
        0,
      );
      cost.elsewhereCpu = elsewhereTests.reduce(
        (total, test) =>
          total + test.seconds * (test.task === undefined ? 1 : (shares?.get(test.task) ?? 1)),
        0,
      );
    }
    // A stage the run left out (--filter) has no figures to show.
    return cost.build + cost.typecheck + cost.test + cost.elsewhere > 0 ? [cost] : [];
  });
}

// Each package's tasks, the longest first: `test 93.1 s, typecheck 8.0 s`; with CPU figures, the
// package's CPU too, and the packages ordered by it.
export function packageTimes(
  tasks: TaskTime[],
  cpuByTask?: Map<string, number>,
): { name: string; total: number; tasks: string; cpu?: number }[] {
  const byPackage = new Map<string, TaskTime[]>();
  for (const task of tasks)
    byPackage.set(task.package, [...(byPackage.get(task.package) ?? []), task]);
  return [...byPackage.entries()]
    .map(([name, own]) => ({
      name,
      total: own.reduce((sum, task) => sum + task.seconds, 0),
      tasks: own
        .filter((task) => task.seconds > 0)
        .sort((a, b) => b.seconds - a.seconds)
        .map((task) => {
          const cpu = cpuByTask?.get(task.taskId);
          return `${task.task} ${task.seconds.toFixed(1)} s${cpu === undefined ? "" : ` (CPU ${cpu.toFixed(1)} s)`}`;
        })
        .join(", "),
      ...(cpuByTask === undefined
        ? {}
        : { cpu: own.reduce((sum, task) => sum + (cpuByTask.get(task.taskId) ?? 0), 0) }),
    }))
    .sort((a, b) => (b.cpu ?? b.total) - (a.cpu ?? a.total));
}

export interface ContractCount {
  stage: string;
  ran: number;
  // Every scenario of the stage's contract.
  size: number;
}

// The contract scenarios each stage's tests ran (passed or failed, not skipped), from the Vitest
// reports: the tests of `<stage> contract against the bundle`.
export function contractCounts(
  reports: { report: VitestReport }[],
  sizes: Map<string, number> = new Map(contracts.map((c) => [c.stage, c.scenarios.length])),
): ContractCount[] {
  const ran = new Map<string, number>();
  for (const test of reports.flatMap(({ report }) =>
    (report.testResults ?? []).flatMap((file) => file.assertionResults),
  )) {
    const stage = /^(\S+) contract against the bundle /.exec(test.fullName)?.[1];
    if (stage === undefined || !["passed", "failed"].includes(test.status)) continue;
    ran.set(stage, (ran.get(stage) ?? 0) + 1);
  }
  return [...sizes.entries()].map(([stage, size]) => ({ stage, ran: ran.get(stage) ?? 0, size }));
}

// The contract CPU records (test-kit's contractCpuMeter) the run wrote.
export function contractCpuSince(root: string, since: number): ContractCpu[] {
  return STAGES.map((stage) => join(root, "packages", stage, CONTRACT_CPU_FILE))
    .filter((path) => existsSync(path) && statSync(path).mtimeMs >= since)
    .map((path) => JSON.parse(readFileSync(path, "utf8")) as ContractCpu);
}

export interface LegFigures {
  leg: Leg;
  node: string;
  run: TestRun;
  files: FileTime[];
  packages: ReturnType<typeof packageTimes>;
  stages: StageCost[];
  counts: ContractCount[];
  contractCpu: ContractCpu[];
  // CPU the task sampler could not give to a task (it ended between samples with no task).
  unattributed: number;
}

const perScenario = (records: ContractCpu[], key: "cli" | "test") => {
  const scenarios = records.reduce((sum, record) => sum + record.scenarios, 0);
  return scenarios === 0 ? 0 : records.reduce((sum, record) => sum + record[key], 0) / scenarios;
};

export function legReport(figures: LegFigures, machine: string): string {
  const { run } = figures;
  const cpu = run.cpu
    ? `${(run.cpu.user + run.cpu.system).toFixed(0)} s (user ${run.cpu.user.toFixed(0)} s, system ${run.cpu.system.toFixed(0)} s)`
    : "not measured on this platform";
  const ran = figures.counts.reduce((sum, count) => sum + count.ran, 0);
  const whole = figures.counts.reduce((sum, count) => sum + count.size, 0);
  const lines = [
    `== the ${figures.leg} leg (\`pnpm ${LEG_SCRIPTS[figures.leg]}\`) on Node ${figures.node}`,
    `machine: ${machine}; ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`,
    `wall time: ${run.seconds.toFixed(0)} s`,
    `CPU time:  ${cpu}`,
    "",
    "CPU per package and task (each task's whole process tree; seconds it ran in brackets):",
    ...figures.packages.map(
      (entry) =>
        `  ${(entry.cpu ?? entry.total).toFixed(1).padStart(6)} s  ${entry.name.padEnd(30)} ${entry.tasks}`,
    ),
  ];
  if (figures.unattributed > 0.5)
    lines.push(`  ${figures.unattributed.toFixed(1).padStart(6)} s  (not given to a task)`);
  lines.push(
    "",
    "slowest test files (Vitest's start to end of each file):",
    ...figures.files.map((file) => `  ${file.seconds.toFixed(1).padStart(6)} s  ${file.file}`),
    "",
    `contract scenarios run: ${ran} (every stage's whole contract: ${whole})`,
    ...figures.counts.map(
      (count) =>
        `  ${String(count.ran).padStart(4)} of ${String(count.size).padEnd(4)} ${count.stage}`,
    ),
  );
  if (figures.contractCpu.length > 0) {
    const cli = perScenario(figures.contractCpu, "cli");
    const test = perScenario(figures.contractCpu, "test");
    lines.push(
      "",
      `contract CPU a scenario: ${(cli + test).toFixed(3)} s (CLI processes ${cli.toFixed(3)} s, test process with the fakes ${test.toFixed(3)} s)`,
      ...figures.contractCpu.map(
        (record) =>
          `  ${((record.cli + record.test) / record.scenarios).toFixed(3)} s  ${record.stage.padEnd(20)} ${record.scenarios} scenarios, ${record.runs} runs: CLI ${record.cli.toFixed(1)} s, test process ${record.test.toFixed(1)} s`,
      ),
    );
  }
  if (figures.stages.length > 0) {
    lines.push(
      "",
      "cost per stage: its own tasks' CPU; seconds of its build, typecheck, test, and its tests elsewhere:",
      ...figures.stages.map(
        (stage) =>
          `  ${(stage.cpu ?? 0).toFixed(1).padStart(6)} s  ${stage.stage.padEnd(20)} build ${stage.build.toFixed(1)}, typecheck ${stage.typecheck.toFixed(1)}, test ${stage.test.toFixed(1)}, elsewhere ${stage.elsewhere.toFixed(1)}${stage.elsewhereCpu === undefined ? "" : ` (CPU ${stage.elsewhereCpu.toFixed(1)})`}`,
      ),
      `  mean ${meanStageCpu(figures.stages).toFixed(1)} s a stage, its tasks' CPU and its tests elsewhere`,
    );
  }
  return lines.join("\n");
}

// The CPU of a stage's tests elsewhere: as measured (elsewhereCpu), or, from a run saved before it
// was, each of their seconds counted as a second of CPU, which errs high (they run in the scripts
// and site packages, and a test there waits on a process more than it computes).
export const elsewhereCpuOf = (stage: StageCost) => stage.elsewhereCpu ?? stage.elsewhere;

// A stage's cost for a projection: its own tasks' CPU, and the CPU of its tests elsewhere (the
// scripts and site packages, which a new stage grows too).
export function meanStageCpu(stages: StageCost[]): number {
  return stages.length === 0
    ? 0
    : stages.reduce((sum, stage) => sum + (stage.cpu ?? 0) + elsewhereCpuOf(stage), 0) /
        stages.length;
}

// A cold `.ci/run` of the course as Days 6 to 9 plan it (test-kit's PLANNED_STAGES), from the legs
// measured today: each leg's CPU, plus its CPU a contract run times the runs the budget counts
// more (decision 0063), plus, for each stage more the leg tests, the mean stage's CPU that is not
// its contract (its unit tests, type check and build, and its tests elsewhere); the wall time at
// today's use of the cores. Install and the Node downloads are not in it.
export function projectRun(
  legs: LegFigures[],
  course: Contract[] = plannedContracts(PLANNED_STAGES),
): { cpu: number; wall: number; legs: LegProjection[] } {
  const projected = legs.map((figures) => projectLeg(figures, course));
  const cpu = projected.reduce((sum, leg) => sum + leg.cpu, 0);
  const wall = projected.reduce((sum, leg) => sum + leg.wall, 0);
  return { cpu, wall, legs: projected };
}

export interface LegProjection {
  leg: Leg;
  runs: { today: number; planned: number };
  stages: { today: number; planned: number };
  cpuPerRun: number;
  otherPerStage: number;
  cpu: number;
  wall: number;
}

function projectLeg(figures: LegFigures, course: Contract[]): LegProjection {
  const today = legCost(figures.leg);
  const planned = legCost(figures.leg, course);
  const contractCpu = figures.contractCpu.reduce(
    (sum, record) => sum + record.cli + record.test,
    0,
  );
  const runs = figures.contractCpu.reduce((sum, record) => sum + record.runs, 0);
  const cpuPerRun = runs === 0 ? 0 : contractCpu / runs;
  const contractOf = (stage: string) => {
    const record = figures.contractCpu.find((one) => one.stage === stage);
    return record === undefined ? 0 : record.cli + record.test;
  };
  const others = figures.stages.map(
    (stage) => (stage.cpu ?? 0) + elsewhereCpuOf(stage) - contractOf(stage.stage),
  );
  const otherPerStage =
    others.length === 0 ? 0 : others.reduce((sum, value) => sum + value, 0) / others.length;
  const measured = cpuOf(figures.run);
  const cpu =
    measured +
    (planned.runs - today.runs) * cpuPerRun +
    (planned.stages.length - today.stages.length) * Math.max(0, otherPerStage);
  return {
    leg: figures.leg,
    runs: { today: today.runs, planned: planned.runs },
    stages: { today: today.stages.length, planned: planned.stages.length },
    cpuPerRun,
    otherPerStage,
    cpu,
    wall: measured === 0 ? 0 : (figures.run.seconds * cpu) / measured,
  };
}

const cpuOf = (run: TestRun) => (run.cpu ? run.cpu.user + run.cpu.system : 0);

// The cold run of one leg, with turbo's summary for the task times. A failing task must not stop
// the others, whose figures are the point: the scripts' own `--continue` sees to it (turbo refuses
// a flag given twice, so it is not added here).
export function benchCommand(filters: string[], leg: Leg = "full"): string[] {
  return coldTestCommand(
    ["--summarize", ...filters.map((filter) => `--filter=${filter}`)],
    LEG_SCRIPTS[leg],
  );
}

function machine(): string {
  const models = [...new Set(cpus().map((cpu) => cpu.model.trim()))].join(", ");
  let load = "";
  try {
    load = `, load ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")} before the run`;
  } catch {}
  return `${cpus().length} cores (${models}), Node ${process.version}${load}`;
}

export interface BenchOptions {
  legs: Leg[];
  filters: string[];
  project?: boolean;
}

export function benchOptions(argv: string[]): BenchOptions {
  let values: { filter?: string[]; leg?: string; project?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        filter: { type: "string", multiple: true },
        leg: { type: "string" },
        project: { type: "boolean" },
      },
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const leg = values.leg ?? (values.project === true ? "both" : "full");
  if (!["full", "floor", "both"].includes(leg))
    throw new UsageError(`--leg must be full, floor or both: ${leg}`);
  return {
    legs: leg === "both" ? ["floor", "full"] : [leg as Leg],
    filters: values.filter ?? [],
    ...(values.project === true ? { project: true } : {}),
  };
}

async function runLeg(leg: Leg, filters: string[]): Promise<LegFigures> {
  const command = benchCommand(filters, leg);
  const log = join(ROOT, ".test-results", `bench-test-${leg}.log`);
  mkdirSync(join(ROOT, ".test-results"), { recursive: true });
  console.log(`bench:test: \`${command.join(" ")}\`, its output in ${log}`);
  const since = Date.now();
  const current = runTests(ROOT, command, openSync(log, "w"));
  const stop = () => current.stop("SIGINT");
  process.on("SIGINT", stop);
  const run = await current.done;
  process.off("SIGINT", stop);
  const reports = reportsSince(ROOT, since);
  const tasks = taskTimes(ROOT, since);
  const { byTask, unattributed } = taskCpu(run.samples, tasks);
  const measured = run.samples.length > 1 ? byTask : undefined;
  return {
    leg,
    node: process.version,
    run,
    files: slowestFiles(ROOT, reports),
    packages: packageTimes(tasks, measured),
    stages: stageCosts(STAGES, tasks, reports, measured),
    counts: contractCounts(reports),
    contractCpu: contractCpuSince(ROOT, since),
    unattributed,
  };
}

// Each leg's figures are kept, so that a projection can add the other leg's last run: `.ci/run`
// runs the two legs on two Nodes, and one bench:test runs on one.
const savedLeg = (leg: Leg) => join(ROOT, ".test-results", `bench-test-${leg}.json`);

function otherLegs(ran: LegFigures[]): LegFigures[] {
  return (["floor", "full"] as Leg[])
    .filter((leg) => !ran.some((figures) => figures.leg === leg) && existsSync(savedLeg(leg)))
    .map((leg) => JSON.parse(readFileSync(savedLeg(leg), "utf8")) as LegFigures);
}

async function main(argv: string[]): Promise<number> {
  const options = benchOptions(argv);
  const where = machine();
  const ran: LegFigures[] = [];
  for (const leg of options.legs) {
    const figures = await runLeg(leg, options.filters);
    ran.push(figures);
    writeFileSync(savedLeg(leg), `${JSON.stringify(figures)}\n`);
    console.log(`${legReport(figures, where)}\n`);
  }
  const legs = [...(options.project === true ? otherLegs(ran) : []), ...ran];
  for (const saved of legs.filter((figures) => !ran.includes(figures))) {
    console.log(
      `the ${saved.leg} leg: its last run's figures (Node ${saved.node}, wall ${saved.run.seconds.toFixed(0)} s, CPU ${cpuOf(saved.run).toFixed(0)} s), from ${savedLeg(saved.leg)}`,
    );
  }
  if (legs.length > 1) {
    const wall = legs.reduce((sum, leg) => sum + leg.run.seconds, 0);
    const cpu = legs.reduce((sum, leg) => sum + cpuOf(leg.run), 0);
    const ran = legs.map(
      (leg) => `${leg.leg} ${leg.counts.reduce((sum, count) => sum + count.ran, 0)}`,
    );
    console.log(
      `both legs: wall ${wall.toFixed(0)} s (${(wall / 60).toFixed(1)} min), CPU ${cpu.toFixed(0)} s; contract scenarios ${ran.join(", ")}`,
    );
  }
  if (options.project === true) {
    const projection = projectRun(legs);
    for (const leg of projection.legs) {
      console.log(
        `the ${leg.leg} leg with Days 6 to 9 as planned: ${Math.round(leg.runs.planned)} CLI runs (today ${leg.runs.today}) at ${leg.cpuPerRun.toFixed(3)} s of CPU, ${leg.stages.planned} stages (today ${leg.stages.today}) at ${leg.otherPerStage.toFixed(1)} s of other CPU each: CPU ${leg.cpu.toFixed(0)} s, wall ${leg.wall.toFixed(0)} s`,
      );
    }
    console.log(
      `projected cold run of Days 1 to 9 over ${legs.length === 1 ? "this leg" : "both legs"}: CPU ${projection.cpu.toFixed(0)} s, wall ${projection.wall.toFixed(0)} s (${(projection.wall / 60).toFixed(1)} min)`,
    );
  }
  const failed = legs.filter((leg) => leg.run.exitCode !== 0);
  for (const leg of failed) {
    console.log(
      `the ${leg.leg} leg FAILED (exit ${leg.run.exitCode ?? leg.run.signal}): see .test-results/bench-test-${leg.leg}.log`,
    );
  }
  return failed.length === 0 ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runCommand(() => main(process.argv.slice(2)));
}

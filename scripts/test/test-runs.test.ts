// What pnpm test:stress and pnpm bench:test read and start: the CPU time of ended children, turbo's
// run summary, the Vitest reports, the burners (which must never outlive the command), and their
// options. The commands themselves run the whole suite, so no test runs them.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { childCpuSeconds, legCost, PLANNED_STAGES, plannedContracts } from "@agent-code/test-kit";
import { afterAll, expect, test } from "vitest";
import {
  benchCommand,
  benchOptions,
  contractCounts,
  type LegFigures,
  legReport,
  packageTimes,
  projectRun,
  slowestFiles,
  stageCosts,
  tasksCpuShare,
} from "../bench-test.ts";
import { ROOT } from "../lib/command.ts";
import {
  burnerArgs,
  coldTestCommand,
  reportsSince,
  startBurners,
  summaryTasks,
  taskCpu,
  type VitestReport,
} from "../lib/test-runs.ts";
import { stressSettings } from "../test-stress.ts";

const root = mkdtempSync(join(tmpdir(), "test-runs-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// Alive and not a zombie: an orphan's zombie waits on whatever reaps in this container.
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return process.platform !== "linux";
  }
}

test("CPU time of ended children: fields 16 and 17 of /proc/self/stat, in clock ticks", () => {
  // The command name may hold spaces and parentheses; the fields count from its last ")".
  const stat = `4242 (node (a b)) S 1 4242 4242 0 -1 4194304 100 0 0 0 12 3 250 75 20 0 11 0 900`;
  expect(childCpuSeconds(stat, 100)).toEqual({ user: 2.5, system: 0.75 });
  expect(childCpuSeconds(null)).toBeNull();
  expect(childCpuSeconds("1 (x) S 1", 100)).toBeNull();
});

const report = (files: { name: string; seconds: number; tests: [string, number][] }[]) =>
  ({
    numPassedTests: files.length,
    numFailedTests: 0,
    numPendingTests: 0,
    testResults: files.map((file) => ({
      name: join(root, file.name),
      startTime: 1000,
      endTime: 1000 + file.seconds * 1000,
      status: "passed",
      assertionResults: file.tests.map(([fullName, ms]) => ({
        fullName,
        status: "passed",
        duration: ms,
      })),
    })),
  }) satisfies VitestReport;

const REPORTS = [
  {
    dir: "packages/day-2-v3",
    task: "@agent-code/day-2-v3#test",
    report: report([
      { name: "packages/day-2-v3/test/cli.test.ts", seconds: 20, tests: [["day-2-v3 x", 9000]] },
      { name: "packages/day-2-v3/test/tools.test.ts", seconds: 1, tests: [] },
    ]),
  },
  {
    dir: "scripts",
    task: "@agent-code/scripts#test",
    report: report([
      {
        name: "scripts/test/ctrl-c-terminal.test.ts",
        seconds: 8,
        tests: [
          ["day-2-v3: Ctrl-C typed in the REPL", 2000],
          ["day-2-v3-extra: not this stage", 5000],
          ["check --all names day-2-v3 and day-1", 500],
        ],
      },
    ]),
  },
];

test("the slowest files come first, named from the root, as many as asked", () => {
  expect(slowestFiles(root, REPORTS, 2)).toEqual([
    { file: "packages/day-2-v3/test/cli.test.ts", seconds: 20 },
    { file: "scripts/test/ctrl-c-terminal.test.ts", seconds: 8 },
  ]);
});

const TASKS = summaryTasks({
  tasks: [
    {
      taskId: "@agent-code/day-2-v3#test",
      package: "@agent-code/day-2-v3",
      task: "test",
      cache: { status: "MISS" },
      execution: { startTime: 0, endTime: 30_000 },
    },
    {
      taskId: "@agent-code/day-2-v3#build",
      package: "@agent-code/day-2-v3",
      task: "build",
      execution: { startTime: 0, endTime: 1500 },
    },
    {
      taskId: "@agent-code/scripts#test",
      package: "@agent-code/scripts",
      task: "test",
      cache: { status: "HIT" },
      execution: { startTime: 0, endTime: 40_000 },
    },
  ],
});

test("turbo's summary gives each task's seconds; a stage's cost adds its tests elsewhere", () => {
  expect(TASKS.map((task) => [task.taskId, task.seconds, task.cached])).toEqual([
    ["@agent-code/day-2-v3#test", 30, false],
    ["@agent-code/day-2-v3#build", 1.5, false],
    ["@agent-code/scripts#test", 40, true],
  ]);
  expect(packageTimes(TASKS)).toEqual([
    { name: "@agent-code/scripts", total: 40, tasks: "test 40.0 s" },
    { name: "@agent-code/day-2-v3", total: 31.5, tasks: "test 30.0 s, build 1.5 s" },
  ]);
  // Its own package's tests are in `test` already; a stage whose name only starts the same does
  // not count; a test that names two stages counts half to each; a stage the run left out is not
  // listed.
  expect(stageCosts(["day-1", "day-2-v1", "day-2-v3"], TASKS, REPORTS)).toEqual([
    { stage: "day-1", build: 0, typecheck: 0, test: 0, elsewhere: 0.25 },
    { stage: "day-2-v3", build: 1.5, typecheck: 0, test: 30, elsewhere: 2.25 },
  ]);
  // Named once among the stages asked for, it counts whole.
  expect(stageCosts(["day-2-v3"], TASKS, REPORTS)).toMatchObject([{ elsewhere: 2.5 }]);
});

// turbo reaps each task's process tree when the task ends: a jump in its counters between two
// samples is the CPU of the tasks that ended then, shared by their time when several did.
test("task CPU: a jump goes to the task that ended in its interval, shared when several did", () => {
  const samples = [
    { at: 0, reaped: 0 },
    { at: 1000, reaped: 0 },
    { at: 2000, reaped: 12 },
    { at: 3000, reaped: 12 },
    { at: 4000, reaped: 18 },
    { at: 5000, reaped: 19 },
  ];
  const { byTask, unattributed } = taskCpu(samples, [
    { taskId: "a#test", end: 1500, seconds: 9 },
    { taskId: "b#build", end: 3500, seconds: 1 },
    { taskId: "c#test", end: 3600, seconds: 2 },
  ]);
  expect(Object.fromEntries(byTask)).toEqual({ "a#test": 12, "b#build": 2, "c#test": 4 });
  // Nothing ended near the last jump.
  expect(unattributed).toBe(1);
});

test("contract counts: tests of `<stage> contract against the bundle` that ran, by stage", () => {
  const counts = contractCounts(
    [
      {
        report: {
          numPassedTests: 3,
          numFailedTests: 1,
          numPendingTests: 1,
          testResults: [
            {
              name: "cli.test.ts",
              startTime: 0,
              endTime: 1,
              status: "failed",
              assertionResults: [
                { fullName: "day-1 contract against the bundle echo", status: "passed" },
                { fullName: "day-1 contract against the bundle repl", status: "failed" },
                { fullName: "day-2-v1 contract against the bundle header", status: "skipped" },
                { fullName: "the learner's path, tsx on the sources", status: "passed" },
              ],
            },
          ],
        },
      },
    ],
    new Map([
      ["day-1", 2],
      ["day-2-v1", 5],
    ]),
  );
  expect(counts).toEqual([
    { stage: "day-1", ran: 2, size: 2 },
    { stage: "day-2-v1", ran: 0, size: 5 },
  ]);
});

const LEG: LegFigures = {
  leg: "full",
  node: "v26.12.1",
  run: { exitCode: 0, signal: null, seconds: 300.4, cpu: { user: 400, system: 50 }, samples: [] },
  files: slowestFiles(root, REPORTS),
  packages: packageTimes(TASKS, new Map([["@agent-code/day-2-v3#test", 44]])),
  stages: stageCosts(["day-2-v3"], TASKS, REPORTS, new Map([["@agent-code/day-2-v3#test", 44]])),
  counts: [{ stage: "day-2-v3", ran: 63, size: 63 }],
  contractCpu: [{ stage: "day-2-v3", scenarios: 63, runs: 50, cli: 9.45, test: 3.15 }],
  unattributed: 0,
};

test("the report names the leg and machine, and gives CPU by task, contracts and stages", () => {
  const text = legReport(LEG, "2 cores");
  expect(text).toMatch(
    /^== the full leg \(`pnpm test`\) on Node v26\.12\.1\nmachine: 2 cores; \d{4}-/,
  );
  expect(text).toContain("wall time: 300 s\nCPU time:  450 s (user 400 s, system 50 s)\n");
  expect(text).toContain("test 30.0 s (CPU 44.0 s), build 1.5 s");
  expect(text).toContain("    20.0 s  packages/day-2-v3/test/cli.test.ts\n");
  expect(text).toContain("contract scenarios run: 63 (every stage's whole contract: 63)\n");
  expect(text).toContain(
    "contract CPU a scenario: 0.200 s (CLI processes 0.150 s, test process with the fakes 0.050 s)",
  );
  expect(text).toContain("    44.0 s  day-2-v3             build 1.5, typecheck 0.0, test 30.0");
  expect(text).toContain("  mean 46.5 s a stage, its tasks' CPU and its tests elsewhere");
});

test("a projection adds each leg's CPU a run for the runs Days 6 to 9 add, and its other CPU a stage", () => {
  const floor: LegFigures = {
    ...LEG,
    leg: "floor",
    run: { ...LEG.run, seconds: 100, cpu: { user: 150, system: 0 } },
    stages: [{ ...(LEG.stages[0] as LegFigures["stages"][number]), cpu: 6 }],
  };
  const course = plannedContracts(PLANNED_STAGES);
  const projection = projectRun([floor, LEG], course);
  // day-2-v3's contract: 12.6 s of CPU for 50 runs; its other CPU: 44 + 2.5 - 12.6 s on the full
  // leg, and 6 + 2.5 - 12.6 s (nothing) on the floor.
  const full = projection.legs[1];
  expect(full?.cpuPerRun).toBeCloseTo(12.6 / 50);
  expect(full?.otherPerStage).toBeCloseTo(44 + 2.5 - 12.6);
  const cost = { today: legCost("full"), planned: legCost("full", course) };
  expect(full?.runs).toEqual({ today: cost.today.runs, planned: cost.planned.runs });
  expect(full?.cpu).toBeCloseTo(
    450 +
      (cost.planned.runs - cost.today.runs) * (12.6 / 50) +
      (cost.planned.stages.length - cost.today.stages.length) * (44 + 2.5 - 12.6),
  );
  expect(full?.wall).toBeCloseTo((300.4 * (full?.cpu ?? 0)) / 450);
  expect(projection.legs[0]?.otherPerStage).toBeLessThan(0);
  expect(projection.cpu).toBeCloseTo((projection.legs[0]?.cpu ?? 0) + (full?.cpu ?? 0));
});

// A test elsewhere runs at its task's mean rate: the scripts' task above holds 7.5 s of tests, so
// with 3 s of CPU each of its seconds is 0.4 s of CPU; a task whose CPU outran its tests (a build
// before them) counts a second as a second, never more; an unmeasured task counts as before.
test("a stage's tests elsewhere count their task's CPU a second of test, at most one", () => {
  expect(
    Object.fromEntries(tasksCpuShare(REPORTS, new Map([["@agent-code/scripts#test", 3]]))),
  ).toEqual({ "@agent-code/scripts#test": 0.4 });
  const costs = (cpu: [string, number][]) =>
    stageCosts(["day-1", "day-2-v3"], TASKS, REPORTS, new Map(cpu));
  const day2 = (cpu: [string, number][]) => costs(cpu).find((cost) => cost.stage === "day-2-v3");
  expect(day2([["@agent-code/scripts#test", 3]])).toMatchObject({ elsewhere: 2.25 });
  expect(day2([["@agent-code/scripts#test", 3]])?.elsewhereCpu).toBeCloseTo(0.9);
  expect(day2([["@agent-code/scripts#test", 60]])?.elsewhereCpu).toBeCloseTo(2.25);
  expect(day2([])?.elsewhereCpu).toBeCloseTo(2.25);
  expect(costs([["@agent-code/scripts#test", 3]])[0]?.elsewhereCpu).toBeCloseTo(0.1);
  // Shared, the two stages' tests elsewhere add up to the tests that name them, 2.5 s, at 0.4.
  expect(
    costs([["@agent-code/scripts#test", 3]]).reduce(
      (sum, cost) => sum + (cost.elsewhereCpu ?? 0),
      0,
    ),
  ).toBeCloseTo(1);
  // The report and the projection use the CPU; a run saved before it was measured, the seconds.
  const measured: LegFigures = {
    ...LEG,
    stages: stageCosts(
      ["day-2-v3"],
      TASKS,
      REPORTS,
      new Map([
        ["@agent-code/day-2-v3#test", 44],
        ["@agent-code/scripts#test", 3],
      ]),
    ),
  };
  expect(legReport(measured, "2 cores")).toContain(
    "    44.0 s  day-2-v3             build 1.5, typecheck 0.0, test 30.0, elsewhere 2.5 (CPU 1.0)\n  mean 45.0 s a stage",
  );
  const course = plannedContracts(PLANNED_STAGES);
  expect(projectRun([measured], course).legs[0]?.otherPerStage).toBeCloseTo(44 + 1 - 12.6);
  const saved = {
    ...measured,
    stages: measured.stages.map(({ elsewhereCpu: _, ...rest }) => rest),
  };
  expect(projectRun([saved], course).legs[0]?.otherPerStage).toBeCloseTo(44 + 2.5 - 12.6);
});

test("bench:test options: a leg, filters and a projection; bad values are usage errors", () => {
  expect(benchOptions([])).toEqual({ legs: ["full"], filters: [] });
  expect(benchOptions(["--leg", "floor", "--filter", "scripts"])).toEqual({
    legs: ["floor"],
    filters: ["scripts"],
  });
  expect(benchOptions(["--project"])).toEqual({
    legs: ["floor", "full"],
    filters: [],
    project: true,
  });
  expect(() => benchOptions(["--leg", "middle"])).toThrow("--leg must be full, floor or both");
  expect(() => benchOptions(["--project", "34"])).toThrow(/34/);
  expect(() => benchOptions(["--fast"])).toThrow(/--fast/);
});

test("only this run's reports are read", () => {
  mkdirSync(join(root, "packages", "day-1", ".test-results"), { recursive: true });
  writeFileSync(
    join(root, "packages", "day-1", ".test-results", "vitest.json"),
    JSON.stringify({ numPassedTests: 1, numFailedTests: 0, numPendingTests: 0 }),
  );
  mkdirSync(join(root, "scripts", ".test-results"), { recursive: true });
  writeFileSync(
    join(root, "scripts", ".test-results", "vitest-docs.json"),
    JSON.stringify({ numPassedTests: 1, numFailedTests: 0, numPendingTests: 0 }),
  );
  // Each report names the turbo task that wrote it.
  expect(reportsSince(root, 0).map(({ dir, task }) => [dir, task])).toEqual([
    ["packages/day-1", "@agent-code/day-1#test"],
    ["scripts", "@agent-code/scripts#test:docs"],
  ]);
  expect(reportsSince(root, Date.now() + 60_000)).toEqual([]);
});

test("stress options: three runs, a burner per core; bad values are usage errors", () => {
  expect(stressSettings([])).toMatchObject({ runs: 3, filters: [], burnMinutes: 20 });
  expect(stressSettings([]).burners).toBeGreaterThan(0);
  expect(
    stressSettings(["--runs", "1", "--filter", "@agent-code/day-1", "--filter", "scripts"]),
  ).toMatchObject({ runs: 1, filters: ["@agent-code/day-1", "scripts"] });
  expect(() => stressSettings(["--runs", "0"])).toThrow(
    "--runs must be a positive whole number: 0",
  );
  expect(() => stressSettings(["--burners", "two"])).toThrow(
    "--burners must be a positive whole number: two",
  );
  expect(() => stressSettings(["--loud"])).toThrow(/--loud/);
});

test("burners stop when told, after their time limit, and when their parent is gone", async () => {
  const stopped = startBurners(1, 60_000);
  expect(stopped.pids.every(running)).toBe(true);
  stopped.stop();
  await expect.poll(() => stopped.pids.some(running), { timeout: 10_000 }).toBe(false);

  const timed = startBurners(1, 1);
  await expect.poll(() => timed.pids.some(running), { timeout: 10_000 }).toBe(false);

  // An orphan's parent id is no longer the one it was given: a burner told of another parent
  // than the process that started it ends at once, as an orphan would.
  const orphan = spawn(process.execPath, burnerArgs(600_000, process.pid + 1), { stdio: "ignore" });
  const code = await new Promise((resolve) => orphan.on("close", resolve));
  expect(code).toBe(0);
}, 30_000);

// turbo refuses a flag given twice ("the argument '--continue' cannot be used multiple times"), and
// pnpm appends these commands' flags to the test script's own: none may repeat one of the script's.
test("bench:test and test:stress add no flag the test script already gives", () => {
  const script: string = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts.test;
  const given = script.split(" ").filter((word) => word.startsWith("--"));
  const flag = (word: string) => word.split("=")[0];
  for (const command of [
    benchCommand(["@agent-code/day-1", "@agent-code/test-kit"]),
    coldTestCommand(),
  ]) {
    expect(command.slice(0, 3)).toEqual(["pnpm", "run", "test"]);
    const added = command.slice(3).filter((word) => !word.startsWith("--filter="));
    expect(added.filter((word) => given.map(flag).includes(flag(word)))).toEqual([]);
  }
  // The floor leg's script has flags of its own, which its command must not repeat either.
  const floor: string = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts[
    "test:floor"
  ];
  const floorGiven = floor.split(" ").filter((word) => word.startsWith("--"));
  const floorCommand = benchCommand([], "floor");
  expect(floorCommand.slice(0, 3)).toEqual(["pnpm", "run", "test:floor"]);
  expect(floorCommand.slice(3).filter((word) => floorGiven.map(flag).includes(flag(word)))).toEqual(
    [],
  );
  expect(benchCommand([])).toContain("--summarize");
  expect(given).toContain("--continue");
  expect(floor).toContain("--continue");
});

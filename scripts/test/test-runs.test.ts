// What pnpm test:stress and pnpm bench:test read and start: the CPU time of ended children, turbo's
// run summary, the Vitest reports, the burners (which must never outlive the command), and their
// options. The commands themselves run the whole suite, so no test runs them.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import {
  benchCommand,
  benchReport,
  packageTimes,
  slowestFiles,
  stageCosts,
} from "../bench-test.ts";
import { ROOT } from "../lib/command.ts";
import {
  burnerArgs,
  childCpuSeconds,
  coldTestCommand,
  reportsSince,
  startBurners,
  summaryTasks,
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
    report: report([
      { name: "packages/day-2-v3/test/cli.test.ts", seconds: 20, tests: [["day-2-v3 x", 9000]] },
      { name: "packages/day-2-v3/test/tools.test.ts", seconds: 1, tests: [] },
    ]),
  },
  {
    dir: "scripts",
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
  // not count; a stage the run left out is not listed.
  expect(stageCosts(["day-1", "day-2-v1", "day-2-v3"], TASKS, REPORTS)).toEqual([
    { stage: "day-1", build: 0, typecheck: 0, test: 0, elsewhere: 0.5 },
    { stage: "day-2-v3", build: 1.5, typecheck: 0, test: 30, elsewhere: 2.5 },
  ]);
});

test("the report names the machine and gives wall time, CPU time and a mean per stage", () => {
  const text = benchReport(
    { exitCode: 0, signal: null, seconds: 300.4, cpu: { user: 400, system: 50 } },
    slowestFiles(root, REPORTS),
    packageTimes(TASKS),
    stageCosts(["day-2-v3"], TASKS, REPORTS),
    "2 cores",
  );
  expect(text).toMatch(/^machine: 2 cores; \d{4}-\d\d-\d\d \d\d:\d\d UTC\n/);
  expect(text).toContain("wall time: 300 s\nCPU time:  450 s (user 400 s, system 50 s)\n");
  expect(text).toContain("    20.0 s  packages/day-2-v3/test/cli.test.ts\n");
  expect(text).toContain(
    "    34.0 s  day-2-v3             build 1.5, typecheck 0.0, test 30.0, elsewhere 2.5\n  mean 34.0 s a stage",
  );
});

test("only this run's reports are read", () => {
  mkdirSync(join(root, "packages", "day-1", ".test-results"), { recursive: true });
  writeFileSync(
    join(root, "packages", "day-1", ".test-results", "vitest.json"),
    JSON.stringify({ numPassedTests: 1, numFailedTests: 0, numPendingTests: 0 }),
  );
  expect(reportsSince(root, 0).map((entry) => entry.dir)).toEqual(["packages/day-1"]);
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
  expect(benchCommand([])).toContain("--summarize");
  expect(given).toContain("--continue");
});

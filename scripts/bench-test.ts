// `pnpm bench:test [--filter <package>]...`: what a cold `pnpm test` (turbo's cache off) costs. It
// prints the wall time, the CPU time of every process the run started, the ten slowest test
// files, each package's task times, and each stage's own cost: its bundle, type check and tests,
// and the tests elsewhere named after it (scripts' and the site's), which a new stage adds too.
// A benchmark to read, not a test: a shared machine only ever adds time. The run's output goes to
// .test-results/bench-test.log.
import { mkdirSync, openSync, readFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ROOT, runCommand, STAGES, UsageError } from "./lib/command.ts";
import {
  coldTestCommand,
  reportsSince,
  runTests,
  type TaskTime,
  type TestRun,
  taskTimes,
  type VitestReport,
} from "./lib/test-runs.ts";

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
  // Seconds of tests in other packages whose name holds the stage's (`day-2-v3: ...`).
  elsewhere: number;
}

// A stage's own tasks, and the tests outside its package that name it; stages the run left out
// are not listed.
export function stageCosts(
  stages: string[],
  tasks: TaskTime[],
  reports: { dir: string; report: VitestReport }[],
): StageCost[] {
  const seconds = (stage: string, task: string) =>
    tasks.find((entry) => entry.taskId === `@agent-code/${stage}#${task}`)?.seconds ?? 0;
  return stages.flatMap((stage) => {
    const named = new RegExp(`(^|[^\\w-])${stage.replace(/[-]/g, "\\-")}($|[^\\w-])`);
    const elsewhere = reports
      .filter(({ dir }) => dir !== join("packages", stage))
      .flatMap(({ report }) => report.testResults ?? [])
      .flatMap((file) => file.assertionResults)
      .filter((test) => named.test(test.fullName))
      .reduce((total, test) => total + (test.duration ?? 0) / 1000, 0);
    const cost = {
      stage,
      build: seconds(stage, "build"),
      typecheck: seconds(stage, "typecheck"),
      test: seconds(stage, "test"),
      elsewhere,
    };
    // A stage the run left out (--filter) has no figures to show.
    return cost.build + cost.typecheck + cost.test + cost.elsewhere > 0 ? [cost] : [];
  });
}

// Each package's tasks, the longest first: `test 93.1 s, typecheck 8.0 s`.
export function packageTimes(tasks: TaskTime[]): { name: string; total: number; tasks: string }[] {
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
        .map((task) => `${task.task} ${task.seconds.toFixed(1)} s`)
        .join(", "),
    }))
    .sort((a, b) => b.total - a.total);
}

export function benchReport(
  run: TestRun,
  files: FileTime[],
  packages: ReturnType<typeof packageTimes>,
  stages: StageCost[],
  machine: string,
): string {
  const cpu = run.cpu
    ? `${(run.cpu.user + run.cpu.system).toFixed(0)} s (user ${run.cpu.user.toFixed(0)} s, system ${run.cpu.system.toFixed(0)} s)`
    : "not measured on this platform";
  const lines = [
    `machine: ${machine}; ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`,
    `wall time: ${run.seconds.toFixed(0)} s`,
    `CPU time:  ${cpu}`,
    "",
    "slowest test files (Vitest's start to end of each file):",
    ...files.map((file) => `  ${file.seconds.toFixed(1).padStart(6)} s  ${file.file}`),
    "",
    "tasks per package (seconds each task ran, side by side with others):",
    ...packages.map(
      (entry) =>
        `  ${entry.total.toFixed(1).padStart(6)} s  ${entry.name.padEnd(30)} ${entry.tasks}`,
    ),
    "",
    "cost per stage: its build + typecheck + test, and its tests elsewhere (scripts, site):",
    ...stages.map(
      (stage) =>
        `  ${(stage.build + stage.typecheck + stage.test + stage.elsewhere).toFixed(1).padStart(6)} s  ${stage.stage.padEnd(20)} build ${stage.build.toFixed(1)}, typecheck ${stage.typecheck.toFixed(1)}, test ${stage.test.toFixed(1)}, elsewhere ${stage.elsewhere.toFixed(1)}`,
    ),
  ];
  if (stages.length > 0) {
    const total = stages.reduce(
      (sum, stage) => sum + stage.build + stage.typecheck + stage.test + stage.elsewhere,
      0,
    );
    lines.push(`  mean ${(total / stages.length).toFixed(1)} s a stage`);
  }
  return lines.join("\n");
}

function machine(): string {
  const models = [...new Set(cpus().map((cpu) => cpu.model.trim()))].join(", ");
  let load = "";
  try {
    load = `, load ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")} before the run`;
  } catch {}
  return `${cpus().length} cores (${models}), Node ${process.version}${load}`;
}

// The cold run, with turbo's summary for the task times. A failing task must not stop the others,
// whose figures are the point: the test script's own `--continue` sees to it (turbo refuses a flag
// given twice, so it is not added here).
export function benchCommand(filters: string[]): string[] {
  return coldTestCommand(["--summarize", ...filters.map((filter) => `--filter=${filter}`)]);
}

async function main(argv: string[]): Promise<number> {
  let filters: string[];
  try {
    const { values } = parseArgs({
      args: argv,
      options: { filter: { type: "string", multiple: true } },
    });
    filters = values.filter ?? [];
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const command = benchCommand(filters);
  const log = join(ROOT, ".test-results", "bench-test.log");
  mkdirSync(join(ROOT, ".test-results"), { recursive: true });
  const where = machine();
  console.log(`bench:test: \`${command.join(" ")}\`, its output in ${log}`);
  const since = Date.now();
  const current = runTests(ROOT, command, openSync(log, "w"));
  process.on("SIGINT", () => current.stop("SIGINT"));
  const run = await current.done;
  const reports = reportsSince(ROOT, since);
  const tasks = taskTimes(ROOT, since);
  console.log(
    benchReport(
      run,
      slowestFiles(ROOT, reports),
      packageTimes(tasks),
      stageCosts(STAGES, tasks, reports),
      where,
    ),
  );
  if (run.exitCode !== 0) {
    console.log(`\nthe run FAILED (exit ${run.exitCode ?? run.signal}): see ${log}`);
    return 1;
  }
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runCommand(() => main(process.argv.slice(2)));
}

// What `pnpm test:stress` and `pnpm bench:test` share: a cold `pnpm test` (turbo's cache off), the
// CPU time its processes used, the Vitest reports and turbo's run summary it wrote, and the CPU
// burners that keep every core busy while it runs.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { reportPaths } from "../test-summary.ts";

export interface TestRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  seconds: number;
  // User and system CPU seconds of every process the run started and waited for; null where the
  // platform does not say (only Linux's /proc is read).
  cpu: { user: number; system: number } | null;
}

// `pnpm test` with turbo's cache off, plus any further turbo arguments (`--filter`, `--summarize`).
export function coldTestCommand(extra: string[] = []): string[] {
  return ["pnpm", "run", "test", "--force", ...extra];
}

// Runs the command in `root`; `output` says where its stdout and stderr go. Stopping it (Ctrl-C,
// SIGTERM) is left to `stop`, which the caller may call from a signal handler.
export function runTests(
  root: string,
  command: string[],
  output: "inherit" | number,
): { done: Promise<TestRun>; stop: (signal: NodeJS.Signals) => void } {
  const [program = "pnpm", ...args] = command;
  const cpuBefore = childCpuSeconds();
  const started = performance.now();
  const child = spawn(program, args, {
    cwd: root,
    stdio: ["ignore", output, output],
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1" },
  });
  const done = new Promise<TestRun>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (exitCode, signal) => {
      const cpuAfter = childCpuSeconds();
      resolve({
        exitCode,
        signal,
        seconds: (performance.now() - started) / 1000,
        cpu:
          cpuBefore && cpuAfter
            ? { user: cpuAfter.user - cpuBefore.user, system: cpuAfter.system - cpuBefore.system }
            : null,
      });
    });
  });
  return { done, stop: (signal) => child.kill(signal) };
}

// The CPU time of this process's children that have ended (and of theirs, which they waited for):
// fields 16 and 17 of /proc/self/stat, in clock ticks.
export function childCpuSeconds(
  stat: string | null = readProcStat(),
  ticks = clockTicks(),
): { user: number; system: number } | null {
  if (stat === null) return null;
  // The command name (field 2) is in parentheses and may hold spaces: count from after it.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const user = Number(fields[13]);
  const system = Number(fields[14]);
  if (!Number.isFinite(user) || !Number.isFinite(system)) return null;
  return { user: user / ticks, system: system / ticks };
}

function readProcStat(): string | null {
  try {
    return readFileSync("/proc/self/stat", "utf8");
  } catch {
    return null;
  }
}

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    const answer = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout);
    ticksPerSecond = Number.isInteger(answer) && answer > 0 ? answer : 100;
  }
  return ticksPerSecond;
}

export interface FileReport {
  name: string;
  startTime: number;
  endTime: number;
  status: string;
  assertionResults: { fullName: string; status: string; duration?: number | null }[];
}

export interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  testResults?: FileReport[];
}

// The packages' Vitest reports written since `since` (ms since the epoch): those of this run.
export function reportsSince(root: string, since: number): { dir: string; report: VitestReport }[] {
  return reportPaths(root)
    .filter((path) => statSync(path).mtimeMs >= since)
    .map((path) => ({
      dir:
        path
          .slice(root.length)
          .replace(/^[/\\]/, "")
          .split(/[/\\]\.test-results/)[0] ?? path,
      report: JSON.parse(readFileSync(path, "utf8")) as VitestReport,
    }));
}

export interface TaskTime {
  taskId: string;
  package: string;
  task: string;
  seconds: number;
  cached: boolean;
}

// Every task of turbo's newest run summary (`--summarize` writes .turbo/runs/<id>.json) that
// started at or after `since`.
export function taskTimes(root: string, since: number): TaskTime[] {
  const dir = join(root, ".turbo", "runs");
  if (!existsSync(dir)) return [];
  const newest = readdirSync(dir)
    .filter((file) => file.endsWith(".json"))
    .map((file) => join(dir, file))
    .filter((path) => statSync(path).mtimeMs >= since)
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  if (newest === undefined) return [];
  return summaryTasks(JSON.parse(readFileSync(newest, "utf8")));
}

interface TurboSummary {
  tasks?: {
    taskId: string;
    package: string;
    task: string;
    cache?: { status?: string };
    execution?: { startTime: number; endTime: number };
  }[];
}

export function summaryTasks(summary: TurboSummary): TaskTime[] {
  return (summary.tasks ?? []).map((task) => ({
    taskId: task.taskId,
    package: task.package,
    task: task.task,
    seconds: task.execution ? (task.execution.endTime - task.execution.startTime) / 1000 : 0,
    cached: task.cache?.status === "HIT",
  }));
}

// A busy process per core, each ending by itself after `limitMs`, or as soon as the process that
// started it is gone (its parent id is no longer the one it was given: an orphan's changes), so a
// burner never outlives the command, even one killed with SIGKILL before the burner started.
const BURN = `
const parent = Number(process.argv[2]);
const end = Date.now() + Number(process.argv[1]);
for (;;) {
  for (let i = 0; i < 2e6; i++);
  if (Date.now() > end || process.ppid !== parent) process.exit(0);
}
`;

// A burner's `node` arguments: it burns until `limitMs` have passed or its parent is not `parent`.
export function burnerArgs(limitMs: number, parent = process.pid): string[] {
  return ["-e", BURN, String(limitMs), String(parent)];
}

export interface Burners {
  pids: number[];
  stop(): void;
}

export function startBurners(count: number, limitMs: number): Burners {
  const children: ChildProcess[] = [];
  for (let index = 0; index < count; index++) {
    children.push(
      spawn(process.execPath, burnerArgs(limitMs), { stdio: "ignore" }).on("error", () => {}),
    );
  }
  return {
    pids: children.map((child) => child.pid ?? -1),
    stop: () => {
      for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}

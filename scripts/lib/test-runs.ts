// What `pnpm test:stress` and `pnpm bench:test` share: a cold `pnpm test` (turbo's cache off), the
// CPU time its processes used, the Vitest reports and turbo's run summary it wrote, and the CPU
// burners that keep every core busy while it runs.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { childCpuSeconds, ownCpuSeconds } from "@agent-code/test-kit";
import { reportPaths } from "../test-summary.ts";

export interface TestRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  seconds: number;
  // User and system CPU seconds of every process the run started and waited for; null where the
  // platform does not say (only Linux's /proc is read).
  cpu: { user: number; system: number } | null;
  // turbo's reaped-children CPU seconds over time, sampled while it ran (see taskCpu); empty where
  // /proc is missing.
  samples: CpuSample[];
}

export interface CpuSample {
  // ms since the epoch, and the CPU seconds (user + system) of the tasks turbo had reaped by then.
  at: number;
  reaped: number;
}

// A pnpm test script (`test`, the full leg; `test:floor`, CI's floor leg) with turbo's cache off,
// plus any further turbo arguments (`--filter`, `--summarize`).
export function coldTestCommand(extra: string[] = [], script = "test"): string[] {
  return ["pnpm", "run", script, "--force", ...extra];
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
  const samples: CpuSample[] = [];
  let turbo: number | undefined;
  // turbo's own CPU at the last sample: what is left of the run's CPU when it is gone.
  let turboSelf = 0;
  const sampler = setInterval(() => {
    turbo ??= descendantNamed(child.pid, "turbo");
    const cpu = turbo === undefined ? null : turboCpu(turbo);
    if (cpu === null) return;
    samples.push({ at: Date.now(), reaped: cpu.reaped });
    turboSelf = cpu.self;
  }, SAMPLE_MS);
  const done = new Promise<TestRun>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (exitCode, signal) => {
      clearInterval(sampler);
      const cpuAfter = childCpuSeconds();
      // The tasks that ended after the last sample: turbo is gone, so their CPU is what the whole
      // run used less turbo's own and what the samples saw (the pnpm and node wrappers around
      // turbo, under a second, go with them).
      const last = samples.at(-1);
      if (last !== undefined && cpuBefore && cpuAfter) {
        const total =
          cpuAfter.user + cpuAfter.system - cpuBefore.user - cpuBefore.system - turboSelf;
        if (total > last.reaped) samples.push({ at: Date.now(), reaped: total });
      }
      resolve({
        exitCode,
        signal,
        seconds: (performance.now() - started) / 1000,
        cpu:
          cpuBefore && cpuAfter
            ? { user: cpuAfter.user - cpuBefore.user, system: cpuAfter.system - cpuBefore.system }
            : null,
        samples,
      });
    });
  });
  return { done, stop: (signal) => child.kill(signal) };
}

const SAMPLE_MS = 100;

// turbo starts each task as its own child process and waits for it, so the CPU of a task's whole
// process tree lands in turbo's reaped-children counters the moment the task ends. Sampling those
// counters while the run goes on, a jump belongs to the tasks that ended in that interval: a
// task's exact CPU when it ended alone, shared by their time when several ended together.
export function taskCpu(
  samples: CpuSample[],
  tasks: { taskId: string; end: number; seconds: number }[],
  slackMs = 2 * SAMPLE_MS,
): { byTask: Map<string, number>; unattributed: number } {
  const byTask = new Map<string, number>();
  let unattributed = 0;
  for (let index = 1; index < samples.length; index++) {
    const before = samples[index - 1] as CpuSample;
    const after = samples[index] as CpuSample;
    const jump = after.reaped - before.reaped;
    if (jump <= 0) continue;
    const ended = tasks.filter(
      (task) => task.end >= before.at - slackMs && task.end <= after.at + slackMs,
    );
    const weight = ended.reduce((sum, task) => sum + Math.max(task.seconds, 0.001), 0);
    if (ended.length === 0) unattributed += jump;
    for (const task of ended) {
      const share = (jump * Math.max(task.seconds, 0.001)) / weight;
      byTask.set(task.taskId, (byTask.get(task.taskId) ?? 0) + share);
    }
  }
  return { byTask, unattributed };
}

// The first process below `pid` whose name is `name` (breadth first), from /proc.
function descendantNamed(pid: number | undefined, name: string): number | undefined {
  if (pid === undefined) return undefined;
  let entries: string[];
  try {
    entries = readdirSync("/proc").filter((entry) => /^\d+$/.test(entry));
  } catch {
    return undefined;
  }
  const children = new Map<number, { pid: number; name: string }[]>();
  for (const entry of entries) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const processName = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [
        ...(children.get(parent) ?? []),
        { pid: Number(entry), name: processName },
      ]);
    } catch {}
  }
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      if (child.name === name) return child.pid;
      queue.push(child.pid);
    }
  }
  return undefined;
}

// A process's reaped children's CPU seconds and its own (fields 14 and 15 of its stat).
function turboCpu(pid: number): { reaped: number; self: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const reaped = childCpuSeconds(stat);
    const self = ownCpuSeconds(stat);
    if (reaped === null || self === null) return null;
    return { reaped: reaped.user + reaped.system, self: self.user + self.system };
  } catch {
    return null;
  }
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

export interface ReportEntry {
  // The package's folder, from the root: `packages/day-1`, `scripts`.
  dir: string;
  // The turbo task that wrote it: `vitest.json` is the package's `test`, `vitest-docs.json` its
  // `test:docs`.
  task: string;
  report: VitestReport;
}

// The packages' Vitest reports written since `since` (ms since the epoch): those of this run.
export function reportsSince(root: string, since: number): ReportEntry[] {
  return reportPaths(root)
    .filter((path) => statSync(path).mtimeMs >= since)
    .map((path) => {
      const dir =
        path
          .slice(root.length)
          .replace(/^[/\\]/, "")
          .split(/[/\\]\.test-results/)[0] ?? path;
      const part = /vitest(?:-([a-z]+))?\.json$/.exec(path)?.[1];
      return {
        dir,
        task: `@agent-code/${basename(dir)}#${part === undefined ? "test" : `test:${part}`}`,
        report: JSON.parse(readFileSync(path, "utf8")) as VitestReport,
      };
    });
}

export interface TaskTime {
  taskId: string;
  package: string;
  task: string;
  seconds: number;
  // When the task ended, ms since the epoch (0 when turbo did not run it).
  end: number;
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
    end: task.execution?.endTime ?? 0,
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

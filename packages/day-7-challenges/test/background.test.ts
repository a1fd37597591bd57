import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { expect, test } from "vitest";
import { chooseSandbox } from "../src/sandbox.ts";
import { BackgroundTasks, MAX_LOG_BYTES, MAX_TASKS } from "../src/shell.ts";

const posix = process.platform !== "win32";
// Where commands run in a PID namespace of their own (Linux with unshare and user namespaces).
const namespace = process.platform === "linux" && chooseSandbox().prefix !== undefined;

function folder(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), "agent-code-bg-")));
}

// Polls until `check` holds, for at most `ms`: a task runs on its own time.
async function until(check: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(25)) {
    if (await check()) return;
  }
  throw new Error("timed out waiting");
}

test.runIf(posix)(
  "a task starts at once, logs stdout and stderr in order, and says when it ended",
  async () => {
    const cwd = folder();
    const tasks = new BackgroundTasks();
    const log = await tasks.start("echo one; echo two >&2; sleep 0.2; echo three", cwd);
    expect(log).toBe(".agent/bg/bg_1.log");
    expect(readFileSync(join(cwd, ".agent/.gitignore"), "utf8")).toBe("*\n");
    await until(async () => (await tasks.output("bg_1")).startsWith("bg_1: exited"));
    const file = readFileSync(join(cwd, log), "utf8");
    expect(file).toBe("one\ntwo\nthree\n");
    tasks.stopAll();
  },
);

test.runIf(posix)(
  "bash_output gives what is new since the last read, after the state",
  async () => {
    const cwd = folder();
    const tasks = new BackgroundTasks();
    await tasks.start("echo first; while [ ! -e go.txt ]; do sleep 0.05; done; echo second", cwd);
    // The line is in the log once agent-code has copied it from the task's pipe.
    await until(() => readFileSync(join(cwd, ".agent/bg/bg_1.log"), "utf8") === "first\n");
    expect(await tasks.output("bg_1")).toBe("bg_1: running\nfirst");
    expect(await tasks.output("bg_1")).toBe("bg_1: running\n(no new output)");
    await import("node:fs/promises").then((fs) => fs.writeFile(join(cwd, "go.txt"), ""));
    await until(async () => (await tasks.output("bg_1")) !== "bg_1: running\n(no new output)");
    await until(async () => (await tasks.output("bg_1")).startsWith("bg_1: exited with code 0"));
    tasks.stopAll();
  },
);

test.runIf(posix)(
  "kill_shell stops the whole group, and nothing it started writes later",
  async () => {
    const cwd = folder();
    const tasks = new BackgroundTasks();
    await tasks.start("(sleep 1; touch late.txt) & touch started.txt; sleep 30", cwd);
    await until(() => existsSync(join(cwd, "started.txt")));
    expect(tasks.stop("bg_1")).toBe("Stopped bg_1");
    expect(await tasks.output("bg_1")).toBe("bg_1: stopped\n(no new output)");
    expect(tasks.stop("bg_1")).toBe("bg_1 had already been stopped");
    await sleep(1_500);
    expect(existsSync(join(cwd, "late.txt"))).toBe(false);
    tasks.stopAll();
  },
);

test.runIf(posix)(
  "stopAll ends every task of the session: the end of a run takes them along",
  async () => {
    const cwd = folder();
    const tasks = new BackgroundTasks();
    await tasks.start("sleep 1; touch a.txt", cwd);
    await tasks.start("sleep 1; touch b.txt", cwd);
    tasks.stopAll();
    await sleep(1_500);
    expect(existsSync(join(cwd, "a.txt"))).toBe(false);
    expect(existsSync(join(cwd, "b.txt"))).toBe(false);
  },
);

test.runIf(posix)(
  "a session that ends while a task still prints stops it quietly, with no unhandled rejection",
  async () => {
    const cwd = folder();
    const tasks = new BackgroundTasks();
    const rejections: unknown[] = [];
    const note = (reason: unknown) => rejections.push(reason);
    process.on("unhandledRejection", note);
    try {
      await tasks.start("yes", cwd);
      await until(() => statSync(join(cwd, ".agent/bg/bg_1.log")).size > 0);
      // The session ends: the log's reader is closed while the pipe still holds what `yes` printed.
      tasks.stopAll();
      await sleep(1_000);
      expect(rejections).toEqual([]);
    } finally {
      process.off("unhandledRejection", note);
    }
  },
);

test.runIf(posix)("at most 8 live tasks; an unknown id is a refusal", async () => {
  const cwd = folder();
  const tasks = new BackgroundTasks();
  for (let n = 0; n < MAX_TASKS; n++) await tasks.start("sleep 30", cwd);
  await expect(tasks.start("sleep 30", cwd)).rejects.toThrow(
    "too many background tasks (8); stop one with kill_shell",
  );
  tasks.stop("bg_3");
  expect(await tasks.start("true", cwd)).toBe(".agent/bg/bg_9.log");
  await expect(tasks.output("bg_99")).rejects.toThrow("no background task bg_99");
  expect(() => tasks.stop("bg_99")).toThrow("no background task bg_99");
  tasks.stopAll();
});

test.runIf(posix)("a log folder that is a symlink is refused, never followed", async () => {
  const cwd = folder();
  const outside = folder();
  const { mkdirSync } = await import("node:fs");
  mkdirSync(join(cwd, ".agent"));
  symlinkSync(outside, join(cwd, ".agent", "bg"));
  await expect(new BackgroundTasks().start("echo hi", cwd)).rejects.toThrow(
    "symlink not followed: .agent/bg",
  );
});

test.runIf(posix)("a task that ends at once, or cannot start, is seen to end", async () => {
  const cwd = folder();
  const tasks = new BackgroundTasks();
  await tasks.start("true", cwd);
  await until(async () => (await tasks.output("bg_1")).startsWith("bg_1: exited with code 0"));
  const saved = process.env.AGENT_CODE_SHELL;
  process.env.AGENT_CODE_SHELL = join(cwd, "no-such-shell");
  try {
    await tasks.start("echo hi", cwd);
  } finally {
    if (saved === undefined) delete process.env.AGENT_CODE_SHELL;
    else process.env.AGENT_CODE_SHELL = saved;
  }
  await until(async () => (await tasks.output("bg_2")).startsWith("bg_2: could not be started"));
  tasks.stopAll();
});

test.runIf(posix)("a second session goes on past the logs an earlier one left", async () => {
  const cwd = folder();
  const first = new BackgroundTasks();
  await first.start("echo one", cwd);
  first.stopAll();
  const second = new BackgroundTasks();
  expect(await second.start("echo two", cwd)).toBe(".agent/bg/bg_2.log");
  await until(async () => (await second.output("bg_2")).startsWith("bg_2: exited with code 0"));
  expect(readFileSync(join(cwd, ".agent/bg/bg_2.log"), "utf8")).toBe("two\n");
  second.stopAll();
});

test.runIf(posix)(
  "a large new part is read at its two ends, the cut counted in bytes",
  async () => {
    const cwd = folder();
    const tasks = new BackgroundTasks();
    // 100,000 lines of 8 bytes: 800,000 bytes, of which 4,000 + 8,000 are shown. The task waits
    // for go.txt, so it is still running when the whole part has been logged.
    await tasks.start("seq 1000001 1100000; while [ ! -e go.txt ]; do sleep 0.05; done", cwd);
    await until(
      async () => (await readFileSync(join(cwd, ".agent/bg/bg_1.log"))).length === 800_000,
    );
    const text = await tasks.output("bg_1");
    expect(text.startsWith("bg_1: running\n1000001\n1000002\n")).toBe(true);
    expect(text.endsWith("1099999\n1100000")).toBe(true);
    expect(text).toContain("\n[output cut: 788000 bytes in the middle not shown]\n");
    tasks.stopAll();
  },
);

test.runIf(posix)(
  "a task that floods its log is stopped with exactly MAX_LOG_BYTES written",
  async () => {
    const cwd = folder();
    try {
      const tasks = new BackgroundTasks();
      await tasks.start("cat /dev/zero", cwd);
      await until(async () => (await tasks.output("bg_1")).startsWith("bg_1: stopped"), 60_000);
      expect((await tasks.output("bg_1")).split("\n")[0]).toBe(
        `bg_1: stopped: its log passed ${MAX_LOG_BYTES} bytes`,
      );
      expect(statSync(join(cwd, ".agent/bg/bg_1.log")).size).toBe(MAX_LOG_BYTES);
      tasks.stopAll();
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  },
  60_000,
);

// The processes whose arguments hold `mark` (a zombie has none: it is dead already).
function processesWith(mark: string): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes(mark);
      } catch {
        return false;
      }
    })
    .map(Number);
}

test.runIf(namespace)(
  "a task sees no process above it, and kill_shell stops what it started in a session of its own",
  async () => {
    const cwd = folder();
    // A sleep no other test or process runs: its seconds carry this process's id.
    const mark = `30.${process.pid}`;
    const tasks = new BackgroundTasks();
    try {
      await tasks.start(
        `echo "parent $PPID"; setsid -f sleep ${mark}; touch started.txt; sleep 30`,
        cwd,
      );
      await until(() => existsSync(join(cwd, "started.txt")));
      // Its first line is in the log once agent-code has copied it from the pipe.
      const log = join(cwd, ".agent/bg/bg_1.log");
      await until(() => readFileSync(log, "utf8") === "parent 1\n");
      expect(processesWith(mark)).toHaveLength(1);
      expect(tasks.stop("bg_1")).toBe("Stopped bg_1");
      await until(() => processesWith(mark).length === 0, 10_000);
    } finally {
      tasks.stopAll();
      for (const pid of processesWith(mark)) process.kill(pid, "SIGKILL");
    }
  },
  30_000,
);

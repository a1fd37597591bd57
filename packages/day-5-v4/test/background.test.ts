import { existsSync, mkdtempSync, readFileSync, realpathSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { expect, test, vi } from "vitest";
import { BackgroundTasks, MAX_TASKS } from "../src/shell.ts";

const posix = process.platform !== "win32";

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
  },
);

test.runIf(posix)(
  "bash_output gives what is new since the last read, after the state",
  async () => {
    const cwd = folder();
    const tasks = new BackgroundTasks();
    await tasks.start(
      "echo first; touch ready.txt; while [ ! -e go.txt ]; do sleep 0.05; done; echo second",
      cwd,
    );
    await until(() => existsSync(join(cwd, "ready.txt")));
    expect(await tasks.output("bg_1")).toBe("bg_1: running\nfirst");
    expect(await tasks.output("bg_1")).toBe("bg_1: running\n(no new output)");
    await import("node:fs/promises").then((fs) => fs.writeFile(join(cwd, "go.txt"), ""));
    await until(async () => (await tasks.output("bg_1")) !== "bg_1: running\n(no new output)");
    await until(async () => (await tasks.output("bg_1")).startsWith("bg_1: exited with code 0"));
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
  "the log watch that fires after stopAll closed the log stops quietly, with no unhandled rejection",
  async () => {
    const cwd = folder();
    const tasks = new BackgroundTasks();
    const rejections: unknown[] = [];
    const note = (reason: unknown) => rejections.push(reason);
    process.on("unhandledRejection", note);
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    try {
      await tasks.start("sleep 30", cwd);
      // The session ends: the log is closed while the killed task has not been seen to exit, and
      // the watch's next tick comes before that exit does.
      tasks.stopAll();
      vi.advanceTimersByTime(2_000);
      await sleep(100);
      expect(rejections).toEqual([]);
    } finally {
      vi.useRealTimers();
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
});

test.runIf(posix)("a second session goes on past the logs an earlier one left", async () => {
  const cwd = folder();
  const first = new BackgroundTasks();
  await first.start("echo one", cwd);
  first.stopAll();
  const second = new BackgroundTasks();
  expect(await second.start("echo two", cwd)).toBe(".agent/bg/bg_2.log");
  await until(async () => (await second.output("bg_2")) === "bg_2: exited with code 0\ntwo");
  second.stopAll();
});

test.runIf(posix)(
  "a large new part is read at its two ends, the cut counted in bytes",
  async () => {
    const cwd = folder();
    const tasks = new BackgroundTasks();
    // 100,000 lines of 8 bytes: 800,000 bytes, of which 4,000 + 8,000 are shown.
    await tasks.start("seq 1000001 1100000", cwd);
    await until(
      async () => (await readFileSync(join(cwd, ".agent/bg/bg_1.log"))).length === 800_000,
    );
    const text = await tasks.output("bg_1");
    expect(text.startsWith("bg_1: exited with code 0\n1000001\n1000002\n")).toBe(true);
    expect(text.endsWith("1099999\n1100000")).toBe(true);
    expect(text).toContain("\n[output cut: 788000 bytes in the middle not shown]\n");
    tasks.stopAll();
  },
);

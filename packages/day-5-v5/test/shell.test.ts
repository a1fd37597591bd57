import { existsSync, mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { expect, test } from "vitest";
import { commandEnv, findShell, runCommand, stopAllCommands } from "../src/shell.ts";

const posix = process.platform !== "win32";

function folder(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), "agent-code-shell-")));
}

async function sh(command: string, timeoutMs = 10_000, cwd = folder()) {
  const [file = "/bin/sh", ...flags] = findShell();
  return runCommand(file, [...flags, command], { cwd, timeoutMs });
}

test("a command's environment holds the allowlist and the no-prompt settings, never a secret", () => {
  const env = commandEnv({
    PATH: "/usr/bin",
    HOME: "/home/me",
    GITHUB_TOKEN: "ghp_canary",
    ANTHROPIC_AUTH_TOKEN: "sk-canary",
    DB_PASSWORD: "hunter2",
    BASH_ENV: "/tmp/evil.sh",
    ENV: "/tmp/evil.sh",
    NODE_ENV: "test",
    MY_API_KEY: "k",
    AGENT_CODE_BASH_ENV: "NODE_ENV, MY_API_KEY,BASH_ENV",
  });
  expect(env).toEqual({
    PATH: "/usr/bin",
    HOME: "/home/me",
    NODE_ENV: "test",
    TERM: "dumb",
    GIT_TERMINAL_PROMPT: "0",
    GIT_PAGER: "cat",
    PAGER: "cat",
  });
});

test.runIf(posix)("the shell is bash without profiles when bash is on PATH, else /bin/sh", () => {
  expect(findShell({ PATH: "/nonexistent" })).toEqual(["/bin/sh", "-c"]);
  expect(findShell({ AGENT_CODE_SHELL: "/bin/dash" })).toEqual(["/bin/dash", "-c"]);
  const [bash, ...flags] = findShell({ PATH: process.env.PATH });
  expect(bash).toMatch(/\/bash$/);
  expect(flags).toEqual(["--noprofile", "--norc", "-c"]);
});

test.runIf(posix)("stdout, then stderr under [stderr]; a non-zero exit leads as data", async () => {
  expect(await sh("echo hi")).toEqual({ text: "hi", stopped: false });
  expect(await sh("true")).toEqual({ text: "(no output)", stopped: false });
  expect(await sh("echo out; echo boom >&2; exit 3")).toEqual({
    text: "exit code 3\nout\n[stderr]\nboom",
    stopped: false,
  });
  expect(await sh("kill -SEGV $$")).toEqual({
    text: "killed by signal SIGSEGV\n(no output)",
    stopped: false,
  });
});

test.runIf(posix)("stdin is empty: a command that reads it ends at once", async () => {
  expect(await sh("cat; echo after", 5_000)).toEqual({ text: "after", stopped: false });
});

test.runIf(posix)(
  "output is decoded as UTF-8 with U+FFFD for bad bytes, escapes removed",
  async () => {
    expect((await sh("printf '\\342\\202\\254\\377 \\033[31mred\\033[0m'")).text).toBe(
      "€\ufffd red",
    );
  },
);

test.runIf(posix)("long output keeps its first 4,000 and last 8,000 characters", async () => {
  const { text } = await sh("seq 1 200000");
  expect(text.length).toBeLessThan(12_100);
  expect(text.startsWith("1\n2\n3\n")).toBe(true);
  expect(text.endsWith("199999\n200000")).toBe(true);
  // seq prints 1,288,895 characters; the result shows 12,000 of them.
  expect(text).toContain("\n[output cut: 1276894 characters in the middle not shown]\n");
});

test.runIf(posix)("a command that floods its output is stopped after 8 MiB", async () => {
  const { text, stopped } = await sh("yes", 30_000);
  expect(stopped).toBe(true);
  expect(text.startsWith("[command stopped: it printed more than 8388608 bytes]\ny\ny\n")).toBe(
    true,
  );
  expect(text.length).toBeLessThan(13_000);
});

test.runIf(posix)("a timeout stops the whole group, with the output so far", async () => {
  const cwd = folder();
  const outcome = await sh("echo early; (sleep 1; touch late.txt) & sleep 30", 300, cwd);
  expect(outcome).toEqual({
    text: "command timed out after 0 s and was stopped; output so far:\nearly",
    stopped: true,
  });
  await sleep(1_500);
  expect(existsSync(join(cwd, "late.txt"))).toBe(false);
});

test.runIf(posix)("what a finished command left running is stopped with it", async () => {
  const cwd = folder();
  expect(await sh("(sleep 1; touch late.txt) & echo started", 10_000, cwd)).toEqual({
    text: "started",
    stopped: false,
  });
  await sleep(1_500);
  expect(existsSync(join(cwd, "late.txt"))).toBe(false);
});

test.runIf(posix)("stopAllCommands kills every live command's group", async () => {
  const cwd = folder();
  const running = sh("(sleep 1; touch late.txt) & sleep 30", 60_000, cwd);
  await sleep(200);
  stopAllCommands();
  expect(await running).toEqual({ text: "killed by signal SIGKILL\n(no output)", stopped: false });
  await sleep(1_500);
  expect(existsSync(join(cwd, "late.txt"))).toBe(false);
});

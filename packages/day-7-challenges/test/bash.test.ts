import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import type { Ui } from "../src/diff-ui.ts";
import { ReadState } from "../src/fs-safety.ts";
import { defaultTools, type ToolContext } from "../src/tools/index.ts";

const posix = process.platform !== "win32";

// A person who answers from a list and whose screen is an array of lines.
function person(answers: boolean[]): { ui: Ui; screen: string[] } {
  const screen: string[] = [];
  const ui: Ui = {
    colour: false,
    print: (line) => screen.push(line),
    choose: async () => ({ kind: "skipped" as const }),
    confirm: async (question) => {
      const answer = answers.shift() ?? false;
      screen.push(`${question} ${answer ? "y" : "n"}`);
      return answer;
    },
  };
  return { ui, screen };
}

function context(ui: Ui): ToolContext {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), "agent-code-bash-")));
  return { cwd, readState: new ReadState(), signal: new AbortController().signal, ui };
}

async function call(name: string, args: Record<string, unknown>, ctx: ToolContext) {
  return defaultTools().run({ id: "toolu_1", name, arguments: args }, ctx);
}

test.runIf(posix)("bash shows the command, asks, and runs it in the working folder", async () => {
  const { ui, screen } = person([true]);
  const ctx = context(ui);
  const result = await call("bash", { command: "pwd" }, ctx);
  expect(result).toEqual({ toolCallId: "toolu_1", content: ctx.cwd, isError: false });
  expect(screen).toEqual(["Command: pwd", "Run this command? y"]);
});

test.runIf(posix)("a rejected command does not run and the model is told so", async () => {
  const { ui, screen } = person([false]);
  const ctx = context(ui);
  const result = await call("bash", { command: "touch pwned.txt" }, ctx);
  expect(result.content).toBe("the user rejected this command; it was not run");
  expect(result.isError).toBe(true);
  expect(existsSync(join(ctx.cwd, "pwned.txt"))).toBe(false);
  expect(screen).toEqual(["Command: touch pwned.txt", "Run this command? n"]);
});

test("controls in a command show as U+FFFD, so nothing is hidden from the person", async () => {
  const { ui, screen } = person([false]);
  await call("bash", { command: "echo safe\r\u001b[2Ktouch x\u202e\n\tls" }, context(ui));
  expect(screen.slice(0, 2)).toEqual([
    "Command: echo safe\ufffd\ufffd[2Ktouch x\ufffd",
    "         \tls",
  ]);
});

test("a command of several lines is shown whole, under its first line, and the question counts them", async () => {
  const { ui, screen } = person([false]);
  const lines = ["python3 -c '", ...Array.from({ length: 300 }, (_, n) => `print(${n})`), "'"];
  await call("bash", { command: lines.join("\n") }, context(ui));
  expect(screen).toEqual([
    `Command: ${lines[0]}`,
    ...lines.slice(1).map((line) => `         ${line}`),
    "Run this command? (302 lines) n",
  ]);
});

test("a timeout outside 1..600 is refused before anyone is asked", async () => {
  for (const timeout of [0, 601, -5]) {
    const { ui, screen } = person([true]);
    const result = await call("bash", { command: "echo hi", timeout }, context(ui));
    expect(result).toEqual({
      toolCallId: "toolu_1",
      content: "bad arguments for bash: timeout must be between 1 and 600 seconds",
      isError: true,
    });
    expect(screen).toEqual([]);
  }
});

test.runIf(posix)("a timed-out command is an error result with its output so far", async () => {
  const { ui } = person([true]);
  // Two seconds, not one: `echo` must have run before the timeout, on a busy machine too.
  const result = await call("bash", { command: "echo early; sleep 10", timeout: 2 }, context(ui));
  expect(result.content).toBe("command timed out after 2 s and was stopped; output so far:\nearly");
  expect(result.isError).toBe(true);
});

test.runIf(posix)("each call is a fresh shell: cd does not carry over", async () => {
  const { ui } = person([true, true]);
  const ctx = context(ui);
  execFileSync("mkdir", ["sub"], { cwd: ctx.cwd });
  expect((await call("bash", { command: "cd sub && pwd" }, ctx)).content).toBe(
    join(ctx.cwd, "sub"),
  );
  expect((await call("bash", { command: "pwd" }, ctx)).content).toBe(ctx.cwd);
});

test.runIf(posix)("git_status and git_diff run git without asking", async () => {
  const { ui, screen } = person([]);
  const ctx = context(ui);
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: ctx.cwd,
      env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
    });
  writeFileSync(join(ctx.cwd, "a.txt"), "one\n");
  git("init", "-q");
  git("add", "a.txt");
  git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "first");
  writeFileSync(join(ctx.cwd, "a.txt"), "two\n");
  const status = await call("git_status", {}, ctx);
  expect(status.isError).toBe(false);
  expect(status.content).toMatch(/modified: +a\.txt/);
  const diff = await call("git_diff", {}, ctx);
  expect(diff.content).toMatch(/^diff --git a\/a\.txt b\/a\.txt\n[\s\S]*\n-one\n\+two$/);
  expect(screen).toEqual([]);
  expect(existsSync(join(ctx.cwd, ".git", "index.lock"))).toBe(false);
});

test.runIf(posix)("git_status outside a repository reports git's own words", async () => {
  const { ui } = person([]);
  const result = await call("git_status", {}, context(ui));
  expect(result.content).toMatch(/^exit code 128\n\[stderr\]\nfatal: not a git repository/);
  expect(result.isError).toBe(false);
});

test("a command that holds a NUL byte is refused in one line, before anyone is asked", async () => {
  const { ui, screen } = person([]);
  const result = await call("bash", { command: "echo safe\u0000; touch x" }, context(ui));
  expect(result).toEqual({
    toolCallId: "toolu_1",
    content: "the command holds a NUL byte, which no shell can run",
    isError: true,
  });
  expect(screen).toEqual([]);
});

test.runIf(posix)("a command of 64 KiB runs; one byte more is refused in one line", async () => {
  const { ui, screen } = person([true, true]);
  const ctx = context(ui);
  // `:` does nothing with its argument: 2 + 65,534 bytes.
  const longest = `: ${"x".repeat(64 * 1024 - 2)}`;
  expect((await call("bash", { command: longest }, ctx)).content).toBe("(no output)");
  const result = await call("bash", { command: `${longest}x` }, ctx);
  expect(result).toEqual({
    toolCallId: "toolu_1",
    content: "the command is 65537 bytes long; agent-code runs commands of at most 65536 bytes",
    isError: true,
  });
  expect(screen.filter((line) => line.startsWith("Run this command?"))).toHaveLength(1);
});

test.runIf(posix)("a shell that cannot be started is a one-line refusal", async () => {
  const { ui } = person([true]);
  const ctx = context(ui);
  // There, but not executable.
  const shell = join(ctx.cwd, "not-a-shell");
  writeFileSync(shell, "", { mode: 0o644 });
  const saved = process.env.AGENT_CODE_SHELL;
  process.env.AGENT_CODE_SHELL = shell;
  try {
    const result = await call("bash", { command: "echo hi" }, ctx);
    expect(result.content).toBe(`the command could not be started: spawn ${shell} EACCES`);
    expect(result.isError).toBe(true);
  } finally {
    if (saved === undefined) delete process.env.AGENT_CODE_SHELL;
    else process.env.AGENT_CODE_SHELL = saved;
  }
});

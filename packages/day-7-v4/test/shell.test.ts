import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, test } from "vitest";
import { chooseSandbox, SANDBOX_VARIABLE } from "../src/sandbox.ts";
import { commandEnv, findShell, runCommand, stopAllCommands } from "../src/shell.ts";

const posix = process.platform !== "win32";
const linux = process.platform === "linux";
// Where commands run in a PID namespace of their own (Linux with unshare and user namespaces).
const namespace = linux && chooseSandbox().prefix !== undefined;
const packageDir = fileURLToPath(new URL("..", import.meta.url));

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
  // The child left in the background waits for go.txt, written only once the timeout has struck:
  // a group that outlived the timeout would then touch late.txt. The two seconds are for `echo` to
  // run on a busy machine; what the test proves hangs on order, not on the clock.
  const command =
    "echo early; (until [ -e go.txt ]; do sleep 0.05; done; touch late.txt) & sleep 30";
  expect(await sh(command, 2_000, cwd)).toEqual({
    text: "command timed out after 2 s and was stopped; output so far:\nearly",
    stopped: true,
  });
  writeFileSync(join(cwd, "go.txt"), "");
  await sleep(500);
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

// A sleep no other test or process runs: its seconds carry this process's id and a count.
let sleeps = 0;
function uniqueSleep(): string {
  return `30.${process.pid}${++sleeps}`;
}

function killAll(pids: number[]): void {
  for (const pid of pids) process.kill(pid, "SIGKILL");
}

test.runIf(namespace)(
  "what a command starts in a session or a job of its own dies with the command",
  async () => {
    const [session, job] = [uniqueSleep(), uniqueSleep()];
    try {
      expect(await sh(`setsid -f sleep ${session}; set -m; sleep ${job} & echo started`)).toEqual({
        text: "started",
        stopped: false,
      });
      expect(processesWith(session)).toEqual([]);
      expect(processesWith(job)).toEqual([]);
    } finally {
      killAll([...processesWith(session), ...processesWith(job)]);
    }
  },
  30_000,
);

// This run's own canary: another stage's copy of this test may snoop at the same moment, and
// the scan below reads every process on the machine, its canary among them.
const CANARY = `snoop-canary-${randomUUID()}`;
// Reads the environment of its parent and of every process it can see, and counts the lines that
// hold this canary, and PATH (its own environment has one: it did read).
const SNOOP = `for f in /proc/$PPID/environ /proc/[0-9]*/environ; do tr '\\0' '\\n' < "$f"; done 2>/dev/null | awk '/^SNOOP_TOKEN=${CANARY}$/ { found++ } /^PATH=/ { path++ } END { print "found " found+0 ", PATH " path+0 }'`;

// A process started with the canary in its environment, as agent-code is started with its keys,
// that runs each command with runCommand and prints the results, then whether it still holds the
// canary itself.
async function snoopFrom(commands: string[], sandbox: "on" | "off") {
  const script = [
    'import { findShell, runCommand } from "./src/shell.ts";',
    'const [file = "/bin/sh", ...flags] = findShell();',
    "for (const command of process.argv.slice(1)) {",
    "  const outcome = await runCommand(file, [...flags, command], { cwd: process.cwd(), timeoutMs: 20_000 });",
    "  console.log(outcome.text);",
    "}",
    `console.log("kept: " + (process.env.SNOOP_TOKEN === "${CANARY}"));`,
  ].join("\n");
  const env: NodeJS.ProcessEnv = { ...process.env, SNOOP_TOKEN: CANARY };
  delete env[SANDBOX_VARIABLE];
  if (sandbox === "off") env[SANDBOX_VARIABLE] = "off";
  return promisify(execFile)(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "-e", script, ...commands],
    { cwd: packageDir, env },
  );
}

test.runIf(namespace)(
  "a command sees no process above it: no environment of agent-code's, nor of its callers",
  async () => {
    const { stdout, stderr } = await snoopFrom([SNOOP], "on");
    expect(stdout).toMatch(/^found 0, PATH [1-9]\d*\nkept: true\n$/);
    expect(stderr).toBe("");
  },
  30_000,
);

test.runIf(linux)(
  "without the namespace agent-code hides its own variables from its commands, and says once what is left",
  async () => {
    const { stdout, stderr } = await snoopFrom([SNOOP, "echo second"], "off");
    expect(stdout).toMatch(/^found 0, PATH [1-9]\d*\nsecond\nkept: true\n$/);
    expect(stderr).toBe(
      "note: commands run without a PID namespace (AGENT_CODE_SANDBOX=off): agent-code's environment is hidden from them, but not that of the shell that started agent-code, nor of any process above it\n",
    );
  },
  30_000,
);

import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { runCli, splitCommand } from "../src/run-cli.ts";

const printEnv = ["node", "-e", "console.log(JSON.stringify(process.env))"];
const saved = { ...process.env };

afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
});

test("the caller's credentials, proxies and agent-code settings do not reach the child", async () => {
  process.env.ANTHROPIC_API_KEY = "sk-canary-api-key";
  process.env.ANTHROPIC_AUTH_TOKEN = "sk-canary-auth-token";
  process.env.ANTHROPIC_BASE_URL = "https://example.invalid";
  process.env.AGENT_CODE_MAX_RETRIES = "9";
  process.env.HTTPS_PROXY = "http://proxy.invalid:3128";
  process.env.DEEPSEEK_API_KEY = "sk-canary-deepseek";
  const run = await runCli(printEnv, []);
  expect(run.stdout).not.toContain("canary");
  const env = JSON.parse(run.stdout) as Record<string, string>;
  for (const name of [
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "AGENT_CODE_MAX_RETRIES",
    "HTTPS_PROXY",
    "DEEPSEEK_API_KEY",
  ]) {
    expect(env[name], name).toBeUndefined();
  }
  expect(env).toMatchObject({ NO_PROXY: "127.0.0.1,localhost", NO_COLOR: "1", TZ: "UTC" });
});

test("given variables are set, and a variable given as undefined stays removed", async () => {
  process.env.KEEP_ME = "from-caller";
  const run = await runCli(printEnv, [], {
    env: { ANTHROPIC_AUTH_TOKEN: "given", KEEP_ME: undefined, TZ: "Asia/Shanghai" },
  });
  const env = JSON.parse(run.stdout) as Record<string, string>;
  expect(env.ANTHROPIC_AUTH_TOKEN).toBe("given");
  expect(env.KEEP_ME).toBeUndefined();
  expect(env.TZ).toBe("Asia/Shanghai");
});

test("stdin, stdout lines, stderr, exit code and the parsed trace come back", async () => {
  const script =
    'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{console.log("final: "+s.trim());console.error("oops");process.exitCode=3})';
  const run = await runCli(["node", "-e", script], [], { stdin: "two\nlines\n" });
  expect(run.stdoutLines).toEqual(["final: two", "lines"]);
  expect(run.trace).toEqual([{ kind: "final", text: "two\nlines" }]);
  expect(run.stderr).toBe("oops\n");
  expect(run.exitCode).toBe(3);
  expect(run.timedOut).toBe(false);
});

test("a timeout kills the child and its grandchild", async () => {
  const dir = mkdtempSync(join(tmpdir(), "run-cli-"));
  const pidFile = join(dir, "grandchild.pid");
  const parent = join(dir, "parent.mjs");
  writeFileSync(
    parent,
    `import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
const grandchild = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
writeFileSync(${JSON.stringify(pidFile)}, String(grandchild.pid));
setInterval(() => {}, 1000);
`,
  );
  // A busy machine may start the parent too slowly to reach its grandchild before the timeout:
  // then nothing is left to prove about grandchildren, and the next try waits four times longer.
  for (const timeoutMs of [1000, 4000, 16_000]) {
    const run = await runCli(["node", parent], [], { timeoutMs });
    expect(run.timedOut).toBe(true);
    expect(run.exitCode).toBeNull();
    expect(run.signal).toBe("SIGKILL");
    if (!existsSync(pidFile)) continue;
    const pid = Number(readFileSync(pidFile, "utf8"));
    await expect.poll(() => isRunning(pid), { timeout: 5000 }).toBe(false);
    return;
  }
  throw new Error("the parent never started its grandchild before the timeout");
}, 30_000);

test("the caller's search keys do not reach the child", async () => {
  process.env.TAVILY_API_KEY = "tvly-caller-canary";
  process.env.BRAVE_API_KEY = "BSA-caller-canary";
  process.env.AGENT_CODE_SEARCH_BASE_URL = "https://example.invalid";
  const run = await runCli(printEnv, []);
  expect(run.stdout).not.toContain("caller-canary");
  expect(run.stdout).not.toContain("example.invalid");
});

test("a run ends when the command exits, though a child it left holds stdout", async () => {
  // The shell exits at once; `sleep` keeps the output pipes open for far longer than the timeout.
  const run = await runCli(["sh", "-c", "echo started; sleep 300 & echo $!; exit 4"], [], {
    timeoutMs: 20_000,
  });
  expect(run.timedOut).toBe(false);
  expect(run.exitCode).toBe(4);
  expect(run.leftRunning).toBe(true);
  expect(run.stdoutLines[0]).toBe("started");
  const pid = Number(run.stdoutLines[1]);
  expect(pid).toBeGreaterThan(0);
  await expect.poll(() => isRunning(pid), { timeout: 5000 }).toBe(false);
}, 30_000);

test("a command whose pipes close as it exits was not left running", async () => {
  const run = await runCli(["sh", "-c", "sleep 0.2; echo done"], []);
  expect(run.stdoutLines).toEqual(["done"]);
  expect(run.leftRunning).toBeUndefined();
});

test("a program that does not exist is reported, not thrown", async () => {
  const run = await runCli(["agent-code-no-such-program"], []);
  expect(run.spawnError).toMatch(/ENOENT/);
  expect(run.exitCode).toBeNull();
});

test("splitCommand splits like a shell does for simple commands", () => {
  expect(splitCommand("uv run agent-code")).toEqual(["uv", "run", "agent-code"]);
  expect(splitCommand(`python3 -m "agent code" 'x y'`)).toEqual([
    "python3",
    "-m",
    "agent code",
    "x y",
  ]);
});

// A killed process that nobody has reaped yet is a zombie: it no longer runs.
function isRunning(pid: number): boolean {
  const status = `/proc/${pid}/status`;
  if (existsSync(status)) return !/^State:\s+Z/m.test(readFileSync(status, "utf8"));
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test("stdinOpen writes stdin but ends it only when the command exits", async () => {
  // Prints what it read, then whether its input ended within 300 ms.
  const script = [
    "let ended = false;",
    "process.stdin.on('data', (d) => console.log('read ' + String(d).trim()));",
    "process.stdin.on('end', () => { ended = true; });",
    "setTimeout(() => { console.log(ended ? 'ended' : 'open'); process.exit(0); }, 300);",
  ].join(" ");
  const open = await runCli(["node", "-e", script], [], { stdin: "y\n", stdinOpen: true });
  expect(open.stdoutLines).toEqual(["read y", "open"]);
  const closed = await runCli(["node", "-e", script], [], { stdin: "y\n" });
  expect(closed.stdoutLines).toEqual(["read y", "ended"]);
});

test("a stdin feed writes each line when it is yielded, then ends stdin", async () => {
  // The child marks a file when it reads "one"; the feed yields "two" only once the mark is there,
  // so a runner that held the lines back until the feed ended would never finish.
  const mark = join(mkdtempSync(join(tmpdir(), "feed-")), "one-read");
  const script = `
    require("node:readline").createInterface({ input: process.stdin })
      .on("line", (line) => {
        console.log(line);
        if (line === "one") require("node:fs").writeFileSync(${JSON.stringify(mark)}, "");
      })
      .on("close", () => console.log("end"));
  `;
  async function* lines() {
    yield "one\n";
    while (!existsSync(mark)) await new Promise((resolve) => setTimeout(resolve, 10));
    yield "two\n";
  }
  const run = await runCli(["node", "-e", script], [], {
    stdin: "zero\n",
    stdinFeed: lines(),
    timeoutMs: 20_000,
  });
  expect(run.timedOut).toBe(false);
  expect(run.stdoutLines).toEqual(["zero", "one", "two", "end"]);
  expect(run.exitCode).toBe(0);
});

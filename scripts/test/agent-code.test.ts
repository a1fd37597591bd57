import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "@agent-code/test-kit";
import { expect, test } from "vitest";
import { withCallerCwd } from "../agent-code.mjs";

const script = fileURLToPath(new URL("../agent-code.mjs", import.meta.url));

test("adds --cwd <the caller's directory> only when the user gave none", () => {
  expect(withCallerCwd(["hi"], "/home/me")).toEqual(["--cwd", "/home/me", "hi"]);
  for (const args of [["-C", "x", "hi"], ["--cwd", "x"], ["--cwd=x"], ["-Cx"]]) {
    expect(withCallerCwd(args, "/home/me")).toEqual(args);
  }
});

test("drops the leading `--` that `pnpm agent-code -- …` passes on, so the prompt stays a prompt", () => {
  expect(withCallerCwd(["--", "hi"], "/home/me")).toEqual(["--cwd", "/home/me", "hi"]);
  expect(withCallerCwd(["--", "-C", "x", "hi"], "/home/me")).toEqual(["-C", "x", "hi"]);
});

test("runs the newest stage offline in the directory pnpm was called from", async () => {
  const caller = realpathSync(mkdtempSync(join(tmpdir(), "caller-")));
  // The stage keeps its session under AGENT_CODE_HOME: a folder of the test's, never the tester's.
  const home = mkdtempSync(join(tmpdir(), "home-"));
  const run = await runCli(
    ["node", script],
    ["--provider", "mock", "echo hi using the echo tool"],
    { env: { INIT_CWD: caller, AGENT_CODE_HOME: home } },
  );
  expect(run.exitCode).toBe(0);
  expect(run.stdoutLines.slice(0, 3)).toEqual([
    "Agent Code",
    `cwd: ${caller}`,
    "provider: mock  model: deepseek-v4-flash",
  ]);
  expect(run.stdoutLines[3]).toMatch(/^session: \d{8}-\d{6}-[0-9a-f]{6}$/);
  expect(run.trace.at(-1)).toEqual({ kind: "final", text: "echo tool returned: hi" });
}, 30_000);

test("a usage error keeps the stage's exit code and its one error line", async () => {
  const run = await runCli(["node", script], ["--max-steps", "0", "hi"]);
  expect(run.exitCode).toBe(2);
  expect(run.stderr).toBe("error: --max-steps must be a positive integer, got 0\n");
  expect(run.stdout).toBe("");
}, 30_000);

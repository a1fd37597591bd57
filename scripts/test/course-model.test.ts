// `pnpm course-model`: a page's checkpoint without a key. The command prints the line to run in a
// project; run against a stage's bundle, that line meets the scenario's script, and the command
// reports each request as the fake server judged it.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "@agent-code/test-kit";
import { afterEach, expect, test } from "vitest";
import { ROOT, STAGES, stageDir } from "../lib/command.ts";
import { withBundle } from "./course-model-run.ts";

const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill("SIGKILL");
});

function courseModel(args: string[]) {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/course-model.ts", ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  async function until(wanted: RegExp): Promise<RegExpExecArray> {
    for (;;) {
      const match = wanted.exec(stdout);
      if (match !== null) return match;
      if (child.exitCode !== null) throw new Error(`exited first: ${stdout}${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  return { child, exited, until, out: () => stdout, err: () => stderr };
}

test("day-5-v1/bash-yes: the printed line runs the agent against the script, each request reported", async () => {
  const model = courseModel(["day-5-v1/bash-yes"]);
  const [, line = ""] = await model.until(/in your project, in a second terminal:\n {2}(.*)\n/);
  expect(model.out()).toMatch(/^course model: day-5-v1\/bash-yes, bash answered y/);
  expect(model.out()).toContain("its script holds 2 replies");
  expect(model.out()).toContain("then type, a line at a time: y\n");
  expect(line).toMatch(
    /^ANTHROPIC_BASE_URL=http:\/\/127\.0\.0\.1:\d+ ANTHROPIC_AUTH_TOKEN=course-model AGENT_CODE_HOME=\S+\/home pnpm start -- -C \S+\/work 'Run the command\.'$/,
  );
  const folder = /^folder: (\S+) /m.exec(model.out())?.[1] ?? "";
  expect(existsSync(join(folder, "work"))).toBe(true);

  const run = await runCli(["bash", "-c", withBundle(line, "day-5-v1")], [], {
    cwd: stageDir("day-5-v1"),
    stdin: "y\n",
    timeoutMs: 30_000,
    inherit: (name) => name === "PATH" || name === "HOME",
  });
  expect(run.exitCode).toBe(0);
  expect(run.stdout).toContain("tool_call: bash");
  expect(run.stdout).toContain("hello-bash");
  await model.until(/request 2: answered \(the script's last reply\)\n/);
  expect(model.out()).toContain("request 1: answered\n");

  model.child.kill("SIGINT");
  expect(await model.exited).toBe(0);
  expect(existsSync(folder)).toBe(false);
});

test("a request the real API would refuse is reported with its status and place", async () => {
  const model = courseModel(["day-2-v1/one-line-answer"]);
  const [, control = ""] = await model.until(/what your agent sent: curl -s (\S+)\/requests\n/);
  const base = /ANTHROPIC_BASE_URL=(\S+)/.exec(model.out())?.[1] ?? "";
  // A request with no max_tokens, as a hand-made client might send.
  const response = await fetch(`${base}/v1/messages`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-api-key": "course-model",
      "anthropic-version": "2023-06-01",
    },
    body: JSON.stringify({ model: "deepseek-chat", messages: [{ role: "user", content: "Hi" }] }),
  });
  expect(response.status).toBe(400);
  await model.until(/request 1: refused with 400/);
  expect(model.out()).toMatch(/request 1: refused with 400( at \S+)?: .*max_tokens/);
  expect(control).toMatch(/\/_fake\/\S+$/);
  model.child.kill("SIGTERM");
  expect(await model.exited).toBe(0);
});

test("a scenario that is not there, or not named as <stage>/<scenario>: one error line, exit 2", async () => {
  for (const [args, message] of [
    [
      ["day-5-v1/no-such"],
      "error: day-5-v1 has no scenario no-such (pnpm check day-5-v1 --verbose lists them)",
    ],
    [["day-9-v9/bash-yes"], `error: unknown stage: day-9-v9 (stages: ${STAGES.join(", ")})`],
    [
      ["bash-yes"],
      'error: name a scenario as <stage>/<scenario>, such as day-5-v1/bash-yes: got "bash-yes"',
    ],
    [[], "error: name one scenario (usage: pnpm course-model <stage>/<scenario> [--seed <n>])"],
    [["day-5-v1/bash-yes", "--seed", "x"], "error: --seed must be a whole number: x"],
  ] as const) {
    const model = courseModel([...args]);
    expect(await model.exited).toBe(2);
    expect(model.err()).toBe(`${message}\n`);
    expect(model.out()).toBe("");
  }
});

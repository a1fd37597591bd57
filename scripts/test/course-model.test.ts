// `pnpm course-model`: a page's checkpoint without a key. The command prints the line to run in a
// project; run against a stage's bundle, that line meets the scenario's script, and the command
// reports each request as the fake server judged it.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  type CliRun,
  FIXED_SEED,
  findContract,
  type Observed,
  type RecordedRequest,
  type RunObserved,
  readFolder,
  runCli,
  type Scenario,
} from "@agent-code/test-kit";
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
    stdio: ["pipe", "pipe", "pipe"],
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

// A printed line pasted into bash in the stage's folder, with its bundle for `pnpm start --`.
function pasted(line: string, stage: string, stdin = ""): Promise<CliRun> {
  return runCli(["bash", "-c", withBundle(line, stage)], [], {
    cwd: stageDir(stage),
    stdin,
    timeoutMs: 30_000,
    inherit: (name) => name === "PATH" || name === "HOME",
  });
}

async function recorded(control: string): Promise<RecordedRequest[]> {
  return (await (await fetch(`${control}/requests`)).json()) as RecordedRequest[];
}

function scenarioOf(stage: string, id: string): Scenario {
  const scenario = findContract(stage)?.scenarios.find((candidate) => candidate.id === id);
  if (scenario === undefined) throw new Error(`no ${stage}/${id}`);
  return scenario;
}

// Pastes each printed line in turn: `next(run)` gives run `run`'s line (0 for the first), once
// the run before it has finished. What the runs showed, as the contract would observe it, for
// the scenario's own judgements.
async function pasteRuns(
  model: ReturnType<typeof courseModel>,
  stage: string,
  count: number,
  next: (run: number, before: CliRun[]) => Promise<string>,
): Promise<Observed> {
  const [, control = ""] = await model.until(/what your agent sent: curl -s (\S+)\/requests\n/);
  const folder = /^folder: (\S+) /m.exec(model.out())?.[1] ?? "";
  const cli: CliRun[] = [];
  const runs: RunObserved[] = [];
  for (let run = 0; run < count; run += 1) {
    const line = await next(run, cli);
    const firstRequest = (await recorded(control)).length;
    const output = await pasted(line, stage);
    cli.push(output);
    const { trace, stdout, stdoutLines, stderr, exitCode, signal, durationMs } = output;
    const endRequest = (await recorded(control)).length;
    runs.push({
      command: output.command,
      trace,
      stdout,
      stdoutLines,
      stderr,
      exitCode,
      signal,
      durationMs,
      firstRequest,
      endRequest,
    });
  }
  const last = runs.at(-1);
  if (last === undefined) throw new Error("no run");
  const { firstRequest: _first, endRequest: _end, ...output } = last;
  const modes: Record<string, number> = {};
  return {
    ...output,
    requests: await recorded(control),
    context: {
      dir: folder,
      file: join(folder, "not-a-directory.txt"),
      work: join(folder, "work"),
      home: join(folder, "home"),
      seed: FIXED_SEED,
    },
    files: readFolder(folder, modes),
    modes,
    outsideChanged: [],
    webRequests: [],
    leftRunning: false,
    strayProcesses: [],
    runs,
  };
}

function failures(scenario: Scenario, observed: Observed): string[] {
  return scenario.judgements
    .filter((judgement) => !judgement.check(observed))
    .map((judgement) => judgement.message);
}

test("day-6-v1/session-continue: both lines are printed at once, and pasted in turn they pass the scenario", async () => {
  const model = courseModel(["day-6-v1/session-continue"]);
  const [, first = "", second = ""] = await model.until(
    /in your project, in a second terminal:\n {2}(.*)\nthen:\n {2}(.*)\n\n/,
  );
  expect(model.out()).toContain("it runs your agent 2 times, one after the other");
  expect(first).toMatch(/ pnpm start -- -C \S+\/work 'Remember the word quokka\.'$/);
  expect(second).toMatch(/ pnpm start -- -C \S+\/work -c 'Which word did I give you\?'$/);
  const observed = await pasteRuns(model, "day-6-v1", 2, async (run) =>
    run === 0 ? first : second,
  );
  expect(failures(scenarioOf("day-6-v1", "session-continue"), observed)).toEqual([]);
  expect(failures(scenarioOf("day-6-v1", "session-continue-private"), observed)).toEqual([]);
  await model.until(/request 2: answered \(the script's last reply\)\n/);
  model.child.kill("SIGINT");
  expect(await model.exited).toBe(0);
});

test("day-6-v1/session-torn-line: each later line waits for an Enter, after the half line is written", async () => {
  const model = courseModel(["day-6-v1/session-torn-line"]);
  const [, first = ""] = await model.until(/in your project, in a second terminal:\n {2}(.*)\n/);
  expect(model.out()).toContain("when run 1 has finished, press Enter here for run 2's line\n");
  expect(model.out()).not.toContain("then:");
  const observed = await pasteRuns(model, "day-6-v1", 3, async (run) => {
    if (run === 0) return first;
    model.child.stdin?.write("\n");
    const pattern = new RegExp(`(?:then:\n {2}(.*)\n[^]*){${run}}`);
    return (await model.until(pattern))[1] ?? "";
  });
  expect(model.out()).toContain("when run 2 has finished, press Enter here for run 3's line\n");
  expect(observed.runs[1]?.stdout).toContain("session:");
  expect(failures(scenarioOf("day-6-v1", "session-torn-line"), observed)).toEqual([]);
  // Its twin reads the note run 2 prints on the half line: it was there when run 2 started.
  expect(failures(scenarioOf("day-6-v1", "session-torn-line-text"), observed)).toEqual([]);
  model.child.kill("SIGINT");
  expect(await model.exited).toBe(0);
});

test("day-6-v1/session-resume-by-id: run 2's line is made from the output pasted for run 1", async () => {
  const model = courseModel(["day-6-v1/session-resume-by-id"]);
  const [, first = ""] = await model.until(/in your project, in a second terminal:\n {2}(.*)\n/);
  expect(model.out()).toContain(
    "when run 1 has finished, paste here what run 1 printed (run 2's line is made from it), then an empty line\n",
  );
  const observed = await pasteRuns(model, "day-6-v1", 2, async (run, before) => {
    if (run === 0) return first;
    model.child.stdin?.write(`${before[0]?.stdout ?? ""}\n`);
    return (await model.until(/then:\n {2}(.*)\n/))[1] ?? "";
  });
  const id = /^session: (\S+)/m.exec(observed.runs[0]?.stdout ?? "")?.[1] ?? "";
  expect(id).not.toBe("");
  expect(model.out()).toContain(` --resume ${id} 'Which colour?'\n`);
  expect(failures(scenarioOf("day-6-v1", "session-resume-by-id"), observed)).toEqual([]);
  model.child.kill("SIGINT");
  expect(await model.exited).toBe(0);
});

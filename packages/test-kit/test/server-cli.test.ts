import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import Anthropic, { AuthenticationError } from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { expect, onTestFinished, test } from "vitest";
import type { RecordedRequest } from "../src/server.ts";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const VIA_TSX = ["--import", "tsx", "src/server-cli.ts"];
const PARAMS = {
  model: "deepseek-v4-flash",
  max_tokens: 256,
  messages: [{ role: "user" as const, content: "hello" }],
};

// In its own process group, so that a failed test still kills everything it started.
function launch(args: string[], entry = VIA_TSX): ChildProcess {
  const child = spawn(process.execPath, [...entry, ...args], {
    cwd: PACKAGE_DIR,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) killGroup(child, "SIGKILL");
  });
  return child;
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid !== undefined) process.kill(-child.pid, signal);
}

async function firstLine(child: ChildProcess): Promise<string> {
  return (await firstLines(child, 1))[0] ?? "";
}

async function firstLines(child: ChildProcess, count: number): Promise<string[]> {
  if (!child.stdout) throw new Error("no stdout");
  const lines = createInterface({ input: child.stdout });
  const read: string[] = [];
  for await (const line of lines) {
    read.push(line);
    if (read.length === count) break;
  }
  return read;
}

// The two lines the command starts with: where it listens, and where its control routes are.
async function started(child: ChildProcess): Promise<{ url: string; control: string }> {
  const [listening = "", control = ""] = await firstLines(child, 2);
  expect(listening).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
  const url = listening.slice("listening on ".length);
  expect(control).toMatch(new RegExp(`^control: ${url}/_fake/[\\w-]{22}$`));
  return { url, control: control.slice("control: ".length) };
}

async function runToExit(args: string[]) {
  const child = launch(args);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  // "close", not "exit": exit can come before the last of stderr has been read.
  const [code] = await once(child, "close");
  return { code, stdout, stderr };
}

async function scriptFile(content: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "fake-server-"));
  const file = join(dir, "script.json");
  await writeFile(file, content);
  return file;
}

test("the command line serves a script file, the control API drives it, SIGTERM exits 0", {
  timeout: 30_000,
}, async () => {
  const file = await scriptFile(
    JSON.stringify([{ content: [{ type: "tool_use", name: "echo", input: { text: "hi" } }] }]),
  );
  const child = launch(["--script", file, "--key", "sk-cli", "--flavour", "deepseek"]);
  const { url, control } = await started(child);
  const client = new Anthropic({ baseURL: url, apiKey: "sk-cli", maxRetries: 0, timeout: 5000 });

  // The deepseek flavour thinks before a tool call, names calls call_… and has its own envelope.
  const reply = await client.messages.create(PARAMS);
  expect(reply.content).toEqual([
    {
      type: "thinking",
      thinking: "To answer this I will call echo.",
      signature: expect.any(String),
    },
    { type: "tool_use", id: "call_1", name: "echo", input: { text: "hi" } },
  ]);
  const wrongKey = new Anthropic({ baseURL: url, apiKey: "sk-nope", maxRetries: 0, timeout: 5000 });
  const denied = await wrongKey.messages.create(PARAMS).catch((error: unknown) => error);
  expect(denied).toBeInstanceOf(AuthenticationError);
  expect((denied as AuthenticationError).error).toEqual({
    error: {
      message: "Invalid bearer token",
      type: "authentication_error",
      param: null,
      code: "authentication_error",
    },
  });

  // Without the token it printed, the control API changes nothing and shows nothing.
  const guessed = [
    await fetch(`${url}/_fake/script`, { method: "POST", body: "[]" }),
    await fetch(`${url}/_fake/requests`),
    await fetch(`${url}/_fake/${"x".repeat(22)}/requests`),
  ];
  expect(guessed.map((response) => response.status)).toEqual([403, 403, 403]);
  expect(await guessed[1]?.text()).not.toContain("sk-cli");

  const scripted = await fetch(`${control}/script`, {
    method: "POST",
    body: JSON.stringify([{ content: [{ type: "text", text: "from the control API" }] }]),
  });
  expect(await scripted.json()).toEqual({ steps: 1 });
  const streamed = await client.messages.stream(PARAMS).finalMessage();
  expect(streamed.content).toEqual([{ type: "text", text: "from the control API" }]);

  const requests = (await (await fetch(`${control}/requests`)).json()) as RecordedRequest[];
  expect(requests.map((r) => r.verdict.accepted)).toEqual([true, false, true]);
  expect(requests[2]?.body.stream).toBe(true);
  await fetch(`${control}/reset`, { method: "POST" });
  expect(await (await fetch(`${control}/requests`)).json()).toEqual([]);

  killGroup(child, "SIGTERM");
  const [code, signal] = await once(child, "exit");
  expect({ code, signal }).toEqual({ code: 0, signal: null });
});

test("the bin launcher starts the server on the port asked for", { timeout: 30_000 }, async () => {
  const probe = launch([], ["bin/fake-server.mjs"]);
  const free = Number(new URL((await firstLine(probe)).slice("listening on ".length)).port);
  killGroup(probe, "SIGTERM");
  await once(probe, "exit");

  const child = launch(["--port", String(free)], ["bin/fake-server.mjs"]);
  expect(await firstLine(child)).toBe(`listening on http://127.0.0.1:${free}`);
  const response = await fetch(`http://127.0.0.1:${free}/v1/messages`, {
    method: "POST",
    body: JSON.stringify(PARAMS),
  });
  expect(response.status).toBe(500);
  expect(response.headers.get("x-should-retry")).toBe("false");
  killGroup(child, "SIGINT");
  const [code] = await once(child, "exit");
  expect(code).toBe(0);
});

test("bad arguments and bad script files give one error line and exit 2", {
  timeout: 30_000,
}, async () => {
  const notArray = await scriptFile('{"content": []}');
  const notJson = await scriptFile("[{");
  const badStep = await scriptFile(
    '[{"content": [{"type": "text", "text": "ok"}]}, {"fault": "fire"}]',
  );
  const cases: [string[], RegExp][] = [
    [["--colour", "red"], /^error: Unknown option '--colour'/],
    [["--port"], /^error: Option '--port <value>' argument missing/],
    [["extra"], /^error: Unexpected argument 'extra'/],
    [["--port", "http"], /^error: --port must be an integer from 0 to 65535, got "http"$/],
    [["--port", "70000"], /^error: --port must be an integer/],
    [["--flavour", "openai"], /^error: --flavour must be anthropic or deepseek, got "openai"$/],
    [
      ["--script", "/nonexistent/steps.json"],
      /^error: cannot read script file \/nonexistent\/steps\.json \(ENOENT\)$/,
    ],
    [
      ["--script", notArray],
      /^error: script file .* is not a JSON array of steps: steps must be a JSON array$/,
    ],
    [["--script", notJson], /^error: script file .* is not a JSON array of steps: /],
    [["--script", badStep], /^error: script file .*: step 2: "fault" must be one of drop, /],
  ];
  const results = await Promise.all(cases.map(([args]) => runToExit(args)));
  results.forEach((result, i) => {
    const [args, pattern] = cases[i] ?? [[], /never/];
    expect({ args, ...result, stderr: result.stderr.trimEnd() }).toMatchObject({
      code: 2,
      stdout: "",
      stderr: expect.stringMatching(pattern),
    });
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
  });
});

test("the command line serves the OpenAI endpoints from the same script and log", {
  timeout: 30_000,
}, async () => {
  const file = await scriptFile(
    JSON.stringify([
      { content: [{ type: "text", text: "neutral" }] },
      {
        output: [{ type: "function_call", name: "echo", arguments: '{"text":' }],
        status: "incomplete",
      },
    ]),
  );
  const badNative = await scriptFile(
    '[{"output": [{"type": "function_call", "name": "echo", "arguments": {}}]}]',
  );
  const refused = await runToExit(["--script", badNative]);
  expect(refused).toMatchObject({ code: 2 });
  expect(refused.stderr).toMatch(
    /^error: script file .*: step 1: output\[0\]: "arguments" must be a string\n$/,
  );

  const child = launch(["--script", file]);
  const { url, control } = await started(child);
  const client = new OpenAI({
    baseURL: `${url}/v1`,
    apiKey: "sk-cli",
    maxRetries: 0,
    timeout: 5000,
  });
  const chat = await client.chat.completions.create({
    model: "gpt-4.1",
    messages: [{ role: "user", content: "hi" }],
  });
  expect(chat.choices[0]?.message.content).toBe("neutral");
  const response = await client.responses.create({ model: "gpt-4.1", input: "hi" });
  expect(response).toMatchObject({
    status: "incomplete",
    output: [{ type: "function_call", arguments: '{"text":', status: "incomplete" }],
  });
  const requests = (await (await fetch(`${control}/requests`)).json()) as RecordedRequest[];
  expect(requests.map((r) => [r.api, r.requestId])).toEqual([
    ["chat", "req_1"],
    ["responses", "req_2"],
  ]);
  killGroup(child, "SIGTERM");
  await once(child, "exit");
});

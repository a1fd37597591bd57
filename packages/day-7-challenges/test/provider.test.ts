// AnthropicProvider through the real SDK against the test-kit's fake server: what it sends, what
// it makes of the reply, and how each failure becomes one ApiError a user can act on.
import { startFakeServer } from "@agent-code/test-kit";
import { afterEach, beforeEach, expect, test } from "vitest";
import { runAgent } from "../src/agent.ts";
import { AnthropicProvider, ApiError } from "../src/model.ts";
import { defaultTools } from "../src/tools/index.ts";

const VARIABLES = [
  "ANTHROPIC_AUTH_TOKEN",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_BASE_URL",
  "AGENT_CODE_TIMEOUT_MS",
  "AGENT_CODE_MAX_RETRIES",
];
const saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));

beforeEach(() => {
  for (const name of VARIABLES) delete process.env[name];
  process.env.ANTHROPIC_AUTH_TOKEN = "sk-test";
  process.env.AGENT_CODE_MAX_RETRIES = "0";
});

afterEach(() => {
  for (const name of VARIABLES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

test("sends the model, max_tokens and the messages; joins the reply's text", async () => {
  const server = await startFakeServer({
    script: [
      {
        content: [
          { type: "text", text: "Hello" },
          { type: "text", text: "there" },
        ],
      },
    ],
  });
  const provider = new AnthropicProvider({ baseURL: server.url });
  const response = await provider.complete([{ role: "user", content: "Hi" }]);
  expect(response).toMatchObject({ text: "Hello\nthere", toolCalls: [], stopReason: "end_turn" });
  expect(server.requests()[0]?.body).toEqual({
    model: "deepseek-v4-flash",
    max_tokens: 1024,
    messages: [{ role: "user", content: "Hi" }],
  });
  await server.close();
});

test("the system prompt is sent as the top-level system string; an empty one is not sent", async () => {
  const server = await startFakeServer({
    script: [
      { content: [{ type: "text", text: "ok" }] },
      { content: [{ type: "text", text: "ok" }] },
    ],
  });
  const provider = new AnthropicProvider({ baseURL: server.url });
  await provider.complete([{ role: "user", content: "Hi" }], [], { system: "Be brief." });
  await provider.complete([{ role: "user", content: "Hi" }], [], { system: "" });
  const [first, second] = server.requests().map((request) => request.body);
  expect(first).toEqual({
    model: "deepseek-v4-flash",
    max_tokens: 1024,
    system: "Be brief.",
    messages: [{ role: "user", content: "Hi" }],
  });
  expect(second).not.toHaveProperty("system");
  await server.close();
});

test("every request of a run carries the same system prompt", async () => {
  const server = await startFakeServer({
    script: [
      { content: [{ type: "tool_use", name: "echo", input: { text: "hi" } }] },
      { content: [{ type: "text", text: "done" }] },
    ],
  });
  const provider = new AnthropicProvider({ baseURL: server.url });
  const system = 'You are agent-code.\n\n<project-rules source="AGENT.md">\nx\n</project-rules>';
  await runAgent("echo hi", provider, defaultTools(), { cwd: process.cwd(), system });
  expect(server.requests().map((request) => request.body.system)).toEqual([system, system]);
  await server.close();
});

test("a reply without text has no text, and the stop reason comes through", async () => {
  const server = await startFakeServer({ script: [{ content: [], stop_reason: "max_tokens" }] });
  const response = await new AnthropicProvider({ baseURL: server.url }).complete([
    { role: "user", content: "Hi" },
  ]);
  expect(response).toMatchObject({ text: null, toolCalls: [], stopReason: "max_tokens" });
  await server.close();
});

test("the base URL: the argument, else ANTHROPIC_BASE_URL, else DeepSeek's endpoint", async () => {
  expect(new AnthropicProvider().baseURL).toBe("https://api.deepseek.com/anthropic");
  const server = await startFakeServer({ script: [{ content: [{ type: "text", text: "ok" }] }] });
  process.env.ANTHROPIC_BASE_URL = server.url;
  const fromEnv = new AnthropicProvider();
  expect(fromEnv.baseURL).toBe(server.url);
  await fromEnv.complete([{ role: "user", content: "Hi" }]);
  expect(server.requests()).toHaveLength(1);
  expect(new AnthropicProvider({ baseURL: "http://127.0.0.1:9" }).baseURL).toBe(
    "http://127.0.0.1:9",
  );
  await server.close();
});

test("the credential: ANTHROPIC_AUTH_TOKEN first, else ANTHROPIC_API_KEY, sent by us", async () => {
  const server = await startFakeServer({
    key: "sk-token",
    script: [
      { content: [{ type: "text", text: "a" }] },
      { content: [{ type: "text", text: "b" }] },
    ],
  });
  process.env.ANTHROPIC_AUTH_TOKEN = "sk-token";
  process.env.ANTHROPIC_API_KEY = "sk-wrong";
  await new AnthropicProvider({ baseURL: server.url }).complete([{ role: "user", content: "Hi" }]);
  delete process.env.ANTHROPIC_AUTH_TOKEN;
  process.env.ANTHROPIC_API_KEY = "sk-token";
  await new AnthropicProvider({ baseURL: server.url }).complete([{ role: "user", content: "Hi" }]);
  expect(server.requests().map((request) => request.verdict.accepted)).toEqual([true, true]);
  await server.close();
});

test("no key at all: an ApiError that says which variable to export", () => {
  delete process.env.ANTHROPIC_AUTH_TOKEN;
  expect(() => new AnthropicProvider()).toThrow(
    new ApiError("set ANTHROPIC_AUTH_TOKEN, e.g. export ANTHROPIC_AUTH_TOKEN='sk-...'"),
  );
});

test("a bad AGENT_CODE_* value is an ApiError naming the variable", () => {
  process.env.AGENT_CODE_TIMEOUT_MS = "soon";
  expect(() => new AnthropicProvider()).toThrow(
    'AGENT_CODE_TIMEOUT_MS must be a whole number, got "soon"',
  );
});

test.each([
  {
    name: "401",
    step: { error: { status: 401, type: "authentication_error", message: "Invalid bearer token" } },
    expected:
      /^authentication failed at http:\/\/127\.0\.0\.1:\d+ \(401\): check ANTHROPIC_AUTH_TOKEN/,
  },
  {
    name: "400 with the API's own text",
    step: {
      error: { status: 400, type: "invalid_request_error", message: "max_tokens: Field required" },
    },
    expected: /^the API rejected the request \(400\): max_tokens: Field required$/,
  },
  {
    name: "529",
    step: { error: { status: 529, type: "overloaded_error", message: "Overloaded" } },
    expected: /^http:\/\/127\.0\.0\.1:\d+ answered 529: Overloaded$/,
  },
])("$name becomes one ApiError fit for a user", async ({ step, expected }) => {
  const server = await startFakeServer({ script: [step] });
  const provider = new AnthropicProvider({ baseURL: server.url });
  const error = await provider.complete([{ role: "user", content: "Hi" }]).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).message).toMatch(expected);
  expect((error as ApiError).message).not.toContain("sk-test");
  await server.close();
});

test("retries follow AGENT_CODE_MAX_RETRIES and are counted in the message", async () => {
  process.env.AGENT_CODE_MAX_RETRIES = "2";
  const overloaded = {
    error: {
      status: 529,
      type: "overloaded_error",
      message: "Overloaded",
      headers: { "retry-after-ms": "5" },
    },
  };
  const server = await startFakeServer({ script: [overloaded, overloaded, overloaded] });
  const error = await new AnthropicProvider({ baseURL: server.url })
    .complete([{ role: "user", content: "Hi" }])
    .catch((e: unknown) => e);
  expect(server.requests()).toHaveLength(3);
  expect((error as ApiError).message).toMatch(/answered 529 \(tried 3 times\): Overloaded$/);
  await server.close();
});

test("a timeout and a refused connection become ApiErrors naming the base URL", async () => {
  process.env.AGENT_CODE_TIMEOUT_MS = "100";
  const server = await startFakeServer({
    script: [{ content: [{ type: "text", text: "late" }], delay_ms: 2000 }],
  });
  const timedOut = await new AnthropicProvider({ baseURL: server.url })
    .complete([{ role: "user", content: "Hi" }])
    .catch((e: unknown) => e);
  expect((timedOut as ApiError).message).toBe(
    `request to ${server.url} timed out; AGENT_CODE_TIMEOUT_MS sets the limit`,
  );
  const url = server.url;
  await server.close();
  // Refused at once, but a busy machine may run the 100 ms timer before it reads the refusal.
  delete process.env.AGENT_CODE_TIMEOUT_MS;
  const refused = await new AnthropicProvider({ baseURL: url })
    .complete([{ role: "user", content: "Hi" }])
    .catch((e: unknown) => e);
  expect((refused as ApiError).message).toBe(`could not connect to ${url}: ECONNREFUSED`);
});

test.each([
  { fault: "html-page", shows: '200 text/html; charset=utf-8 "<!doctype html> <html lang="en">' },
  { fault: "not-a-message", shows: '200 application/json "{"ok":true}"' },
  { fault: "string-content", shows: '200 application/json "{"id":"msg_1","type":"message"' },
  { fault: "malformed", shows: '200 application/json "{"id":"msg_1"' },
  { fault: "wrong-content-type", shows: '200 text/plain; charset=utf-8 "{"id":"msg_1"' },
  {
    fault: "event-stream",
    shows: '200 text/event-stream; charset=utf-8 "event: message_start data:',
  },
] as const)(
  "an answer that is not a message ($fault) is one ApiError saying what came",
  async ({ fault, shows }) => {
    const server = await startFakeServer({ script: [{ fault }] });
    const error = await new AnthropicProvider({ baseURL: server.url })
      .complete([{ role: "user", content: "Hi" }])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    const message = (error as ApiError).message;
    expect(message).toContain(`${server.url} answered ${shows}`);
    expect(message).toMatch(
      /", which is not the Messages API: check the base URL \(DeepSeek's ends in \/anthropic\) and any proxy in between$/,
    );
    expect(message).not.toContain("\n");
    await server.close();
  },
);

test("an error page without the API's envelope: its status, type and first characters", async () => {
  const page = `<html>\n<head><title>502 Bad Gateway</title></head>\n${"<p>x</p>".repeat(20)}</html>`;
  const server = await startFakeServer({
    script: [{ raw: { status: 502, headers: { "content-type": "text/html" }, body: page } }],
  });
  const error = await new AnthropicProvider({ baseURL: server.url })
    .complete([{ role: "user", content: "Hi" }])
    .catch((e: unknown) => e);
  expect((error as ApiError).message).toBe(
    `${server.url} answered 502 text/html "<html> <head><title>502 Bad Gateway</title></head> <p>x</p><...", which is not the Messages API: check the base URL (DeepSeek's ends in /anthropic) and any proxy in between`,
  );
  await server.close();
});

test("a connection that dies halfway through the body is an ApiError too", async () => {
  const server = await startFakeServer({ script: [{ fault: "stream-cut" }] });
  const error = await new AnthropicProvider({ baseURL: server.url })
    .complete([{ role: "user", content: "Hi" }])
    .catch((e: unknown) => e);
  expect((error as ApiError).message).toBe(`${server.url} broke off its answer halfway; try again`);
  await server.close();
});

test("sends the tools as input_schema and turns tool_use blocks into tool calls", async () => {
  const server = await startFakeServer({
    script: [
      {
        content: [
          { type: "text", text: "Let me check." },
          { type: "tool_use", id: "toolu_1", name: "echo", input: { text: "a", n: { deep: [1] } } },
          { type: "tool_use", id: "toolu_2", name: "system_date", input: {} },
        ],
      },
    ],
  });
  const provider = new AnthropicProvider({ baseURL: server.url });
  const response = await provider.complete(
    [{ role: "user", content: "Hi" }],
    defaultTools().list(),
  );
  const sent = server.requests()[0]?.body.tools;
  expect(sent.map((tool: { name: string }) => tool.name)).toEqual([
    "echo",
    "system_date",
    "read_file",
    "list_files",
    "glob",
    "grep",
    "project_tree",
    "web_fetch",
    "web_search",
    "file_write",
    "file_edit",
    "bash",
    "git_status",
    "git_diff",
    "ask_user_question",
    "bash_output",
    "kill_shell",
    "memory_write",
    "memory_recall",
    "cron_create",
    "cron_list",
    "cron_cancel",
  ]);
  expect(sent[2].input_schema.required).toEqual(["path"]);
  expect(sent.slice(0, 2)).toEqual([
    {
      name: "echo",
      description: "Repeat the given text back.",
      input_schema: {
        type: "object",
        properties: { text: { type: "string", description: "The text to repeat." } },
        required: ["text"],
        additionalProperties: false,
      },
    },
    {
      name: "system_date",
      description: "Return the current local date, time and time zone of this machine.",
      input_schema: { type: "object", properties: {} },
    },
  ]);
  expect(response).toMatchObject({
    text: "Let me check.",
    stopReason: "tool_use",
    toolCalls: [
      { id: "toolu_1", name: "echo", arguments: { text: "a", n: { deep: [1] } } },
      { id: "toolu_2", name: "system_date", arguments: {} },
    ],
  });
  await server.close();
});

test("blocks of unknown types stay in the assistant content; an input is kept as sent", async () => {
  const content = [
    { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "x" } },
    { type: "hologram", shimmer: 3 },
    { type: "tool_use", id: "toolu_1", name: "echo", input: "not an object" },
  ];
  const body = JSON.stringify({ id: "msg_1", type: "message", role: "assistant", content });
  const server = await startFakeServer({
    script: [{ raw: { headers: { "content-type": "application/json" }, body } }],
  });
  const response = await new AnthropicProvider({ baseURL: server.url }).complete([
    { role: "user", content: "Hi" },
  ]);
  expect(response.assistantContent).toEqual(content);
  expect(response.toolCalls).toEqual([{ id: "toolu_1", name: "echo", arguments: "not an object" }]);
  await server.close();
});

test("the assistant content comes back verbatim: DeepSeek accepts the next turn", async () => {
  const server = await startFakeServer({
    flavour: "deepseek",
    script: [
      { content: [{ type: "tool_use", name: "system_date", input: {} }] },
      { content: [{ type: "text", text: "Today." }] },
    ],
  });
  const provider = new AnthropicProvider({ baseURL: server.url });
  const tools = defaultTools().list();
  const first = await provider.complete([{ role: "user", content: "date?" }], tools);
  expect(first.assistantContent[0]).toMatchObject({ type: "thinking" });
  const call = first.toolCalls[0];
  if (call === undefined) throw new Error("expected a tool call");
  const second = await provider.complete(
    [
      { role: "user", content: "date?" },
      { role: "assistant", content: first.assistantContent },
      { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: "now" }] },
    ],
    tools,
  );
  expect(second.text).toBe("Today.");
  expect(server.requests().map((request) => request.verdict.accepted)).toEqual([true, true]);
  await server.close();
});

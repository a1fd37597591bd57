// The Messages API providers (deepseek, anthropic) through the real SDK against the test-kit's
// fake server: what they send, what they make of the reply, what goes back, and how each failure
// becomes one ApiError a user can act on.
import { startFakeServer } from "@agent-code/test-kit";
import { afterEach, beforeEach, expect, test } from "vitest";
import { ApiError, createProvider, defaultModel, type ModelProvider } from "../src/model.ts";
import { defaultTools } from "../src/tools.ts";

const VARIABLES = [
  "ANTHROPIC_AUTH_TOKEN",
  "ANTHROPIC_API_KEY",
  "DEEPSEEK_API_KEY",
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

// What the CLI builds for --provider deepseek (or anthropic) and --base-url.
function messagesProvider(baseURL?: string, name = "deepseek"): ModelProvider {
  return createProvider(name, defaultModel(name), baseURL);
}

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
  const provider = messagesProvider(server.url);
  const response = await provider.complete([{ role: "user", content: "Hi" }]);
  expect(response).toMatchObject({ text: "Hello\nthere", toolCalls: [], stopReason: "end_turn" });
  expect(server.requests()[0]?.body).toEqual({
    model: "deepseek-v4-flash",
    max_tokens: 1024,
    messages: [{ role: "user", content: "Hi" }],
  });
  await server.close();
});

test("a reply without text has no text, and the stop reason comes through", async () => {
  const server = await startFakeServer({ script: [{ content: [], stop_reason: "max_tokens" }] });
  const response = await messagesProvider(server.url).complete([{ role: "user", content: "Hi" }]);
  expect(response).toMatchObject({ text: null, toolCalls: [], stopReason: "max_tokens" });
  await server.close();
});

test("the base URL: the argument, else ANTHROPIC_BASE_URL, else the service's own", async () => {
  expect(messagesProvider()).toMatchObject({ baseURL: "https://api.deepseek.com/anthropic" });
  const server = await startFakeServer({ script: [{ content: [{ type: "text", text: "ok" }] }] });
  process.env.ANTHROPIC_BASE_URL = server.url;
  const fromEnv = messagesProvider();
  expect(fromEnv).toMatchObject({ baseURL: server.url });
  await fromEnv.complete([{ role: "user", content: "Hi" }]);
  expect(server.requests()).toHaveLength(1);
  expect(messagesProvider("http://127.0.0.1:9")).toMatchObject({ baseURL: "http://127.0.0.1:9" });
  await server.close();
});

test("each service sends its own key: deepseek's token, or anthropic's API key", async () => {
  const server = await startFakeServer({
    key: "sk-right",
    script: [
      { content: [{ type: "text", text: "a" }] },
      { content: [{ type: "text", text: "b" }] },
      { content: [{ type: "text", text: "c" }] },
    ],
  });
  process.env.ANTHROPIC_AUTH_TOKEN = "sk-right";
  process.env.ANTHROPIC_API_KEY = "sk-wrong";
  await messagesProvider(server.url).complete([{ role: "user", content: "Hi" }]);
  delete process.env.ANTHROPIC_AUTH_TOKEN;
  process.env.DEEPSEEK_API_KEY = "sk-right";
  await messagesProvider(server.url).complete([{ role: "user", content: "Hi" }]);
  process.env.ANTHROPIC_API_KEY = "sk-right";
  process.env.DEEPSEEK_API_KEY = "sk-wrong";
  await messagesProvider(server.url, "anthropic").complete([{ role: "user", content: "Hi" }]);
  expect(server.requests().map((request) => request.verdict.accepted)).toEqual([true, true, true]);
  expect(server.requests().map((request) => request.body.model)).toEqual([
    "deepseek-v4-flash",
    "deepseek-v4-flash",
    "claude-sonnet-5-5",
  ]);
  await server.close();
});

test("a bad AGENT_CODE_* value is an ApiError naming the variable", () => {
  process.env.AGENT_CODE_TIMEOUT_MS = "soon";
  expect(() => messagesProvider()).toThrow(
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
  const provider = messagesProvider(server.url);
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
  const error = await messagesProvider(server.url)
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
  const timedOut = await messagesProvider(server.url)
    .complete([{ role: "user", content: "Hi" }])
    .catch((e: unknown) => e);
  expect((timedOut as ApiError).message).toBe(
    `request to ${server.url} timed out; AGENT_CODE_TIMEOUT_MS sets the limit`,
  );
  const url = server.url;
  await server.close();
  // Refused at once, but a busy machine may run the 100 ms timer before it reads the refusal.
  delete process.env.AGENT_CODE_TIMEOUT_MS;
  const refused = await messagesProvider(url)
    .complete([{ role: "user", content: "Hi" }])
    .catch((e: unknown) => e);
  expect((refused as ApiError).message).toBe(`could not connect to ${url}: ECONNREFUSED`);
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
  const provider = messagesProvider(server.url);
  const response = await provider.complete(
    [{ role: "user", content: "Hi" }],
    defaultTools().list(),
  );
  expect(server.requests()[0]?.body.tools).toEqual([
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

test("the turn goes back verbatim and the results in one user message: DeepSeek accepts it", async () => {
  const server = await startFakeServer({
    flavour: "deepseek",
    script: [
      {
        content: [
          { type: "tool_use", id: "toolu_a", name: "echo", input: { text: "a" } },
          { type: "tool_use", id: "toolu_b", name: "system_date", input: {} },
        ],
      },
      { content: [{ type: "text", text: "Today." }] },
    ],
  });
  const provider = messagesProvider(server.url);
  const tools = defaultTools().list();
  const conversation: object[] = [{ role: "user", content: "date?" }];
  const first = await provider.complete(conversation, tools);
  // Thinking first (DeepSeek's, signed), then both calls: the content exactly as it came.
  expect(first.assistantItems).toEqual([
    {
      role: "assistant",
      content: [
        expect.objectContaining({ type: "thinking" }),
        { type: "tool_use", id: "toolu_a", name: "echo", input: { text: "a" } },
        { type: "tool_use", id: "toolu_b", name: "system_date", input: {} },
      ],
    },
  ]);
  const results = provider.toolResults([
    { toolCallId: "toolu_a", content: "a", isError: false },
    { toolCallId: "toolu_b", content: "oops", isError: true },
  ]);
  expect(results).toEqual([
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_a", content: "a", is_error: false },
        { type: "tool_result", tool_use_id: "toolu_b", content: "oops", is_error: true },
      ],
    },
  ]);
  const second = await provider.complete(
    [...conversation, ...first.assistantItems, ...results],
    tools,
  );
  expect(second.text).toBe("Today.");
  expect(server.requests().map((request) => request.verdict.accepted)).toEqual([true, true]);
  await server.close();
});

test("stop_sequence is an answer in the neutral vocabulary", async () => {
  const server = await startFakeServer({
    script: [{ content: [{ type: "text", text: "Hello" }], stop_reason: "stop_sequence" }],
  });
  const response = await messagesProvider(server.url).complete([{ role: "user", content: "hi" }]);
  expect(response).toMatchObject({ text: "Hello", stopReason: "end_turn" });
  await server.close();
});

// The openai-chat provider (Chat Completions) through the real `openai` SDK against the test-kit's
// fake server, in its OpenAI and DeepSeek flavours: tools, tool messages, finish reasons, traps.
import { startFakeServer } from "@agent-code/test-kit";
import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { type ApiError, createProvider, type ModelProvider } from "../src/model.ts";
import { defaultTools } from "../src/tools.ts";

// The first request loads the openai SDK's modules through Vitest's transform: seconds of CPU
// on a busy machine, past Vitest's default 5 s.
vi.setConfig({ testTimeout: 30_000 });

const VARIABLES = ["OPENAI_CHAT_API_KEY", "OPENAI_CHAT_BASE_URL", "AGENT_CODE_MAX_RETRIES"];
const saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));

beforeEach(() => {
  for (const name of VARIABLES) delete process.env[name];
  process.env.OPENAI_CHAT_API_KEY = "sk-test";
  process.env.AGENT_CODE_MAX_RETRIES = "0";
});

afterEach(() => {
  for (const name of VARIABLES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

function chat(url: string): ModelProvider {
  return createProvider("openai-chat", "gpt-test", `${url}/v1`);
}

const HI = [{ role: "user", content: "Hi" }];

test("sends nested tools; reads tool_calls with their JSON arguments; the message goes back", async () => {
  const server = await startFakeServer({
    script: [
      {
        message: {
          content: null,
          tool_calls: [
            { id: "call_a", function: { name: "echo", arguments: '{"text":"a"}' } },
            { id: "call_b", function: { name: "system_date", arguments: "" } },
          ],
        },
      },
    ],
  });
  const response = await chat(server.url).complete(HI, defaultTools().list());
  const [request] = server.requests();
  expect(request?.path).toBe("/v1/chat/completions");
  expect(request?.body).toMatchObject({ model: "gpt-test", messages: HI });
  expect(request?.body.tools[1]).toEqual({
    type: "function",
    function: {
      name: "system_date",
      description: "Return the current local date, time and time zone of this machine.",
      parameters: { type: "object", properties: {} },
    },
  });
  expect(response).toMatchObject({
    text: null,
    stopReason: "tool_use",
    toolCalls: [
      { id: "call_a", name: "echo", arguments: { text: "a" } },
      { id: "call_b", name: "system_date", arguments: {} },
    ],
  });
  expect(response.assistantItems).toEqual([
    expect.objectContaining({
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_a", type: "function", function: { name: "echo", arguments: '{"text":"a"}' } },
        { id: "call_b", type: "function", function: { name: "system_date", arguments: "" } },
      ],
    }),
  ]);
  await server.close();
});

test("results go back as one tool message per call, and the service accepts the turn", async () => {
  const server = await startFakeServer({
    script: [
      {
        content: [
          { type: "tool_use", id: "call_1", name: "echo", input: { text: "a" } },
          { type: "tool_use", id: "call_2", name: "echo", input: { text: "b" } },
        ],
      },
      { content: [{ type: "text", text: "Both." }] },
    ],
  });
  const provider = chat(server.url);
  const first = await provider.complete(HI, defaultTools().list());
  const results = provider.toolResults([
    { toolCallId: "call_1", content: "a", isError: false },
    { toolCallId: "call_2", content: "unknown tool: x", isError: true },
  ]);
  expect(results).toEqual([
    { role: "tool", tool_call_id: "call_1", content: "a" },
    { role: "tool", tool_call_id: "call_2", content: "unknown tool: x" },
  ]);
  const second = await provider.complete([...HI, ...first.assistantItems, ...results]);
  expect(second.text).toBe("Both.");
  expect(server.requests().map((request) => request.verdict.accepted)).toEqual([true, true]);
  await server.close();
});

test("DeepSeek's reasoning_content stays on the tool-call turn, so thinking mode accepts it", async () => {
  const server = await startFakeServer({
    flavour: "deepseek",
    script: [
      { content: [{ type: "tool_use", name: "system_date", input: {} }] },
      { content: [{ type: "text", text: "Today." }] },
    ],
  });
  const provider = chat(server.url);
  const first = await provider.complete(HI, defaultTools().list());
  expect(first.assistantItems[0]).toHaveProperty("reasoning_content");
  const [call] = first.toolCalls;
  const results = provider.toolResults([
    { toolCallId: call?.id ?? "", content: "now", isError: false },
  ]);
  const second = await provider.complete([...HI, ...first.assistantItems, ...results]);
  expect(second.text).toBe("Today.");
  await server.close();
});

test.each([
  ["length", "max_tokens"],
  ["content_filter", "content_filter"],
  ["stop", "tool_use"],
  ["tool_calls", "tool_use"],
])("finish_reason %s with a call stops as %s", async (finish, stopReason) => {
  const server = await startFakeServer({
    script: [
      {
        message: { tool_calls: [{ id: "c", function: { name: "echo", arguments: '{"te' } }] },
        finish_reason: finish,
      },
    ],
  });
  expect((await chat(server.url).complete(HI, defaultTools().list())).stopReason).toBe(stopReason);
  await server.close();
});

test("an empty tool_calls list is an answer, and is not sent back empty", async () => {
  const server = await startFakeServer({
    script: [{ message: { content: "Done.", tool_calls: [] }, finish_reason: "tool_calls" }],
  });
  const response = await chat(server.url).complete(HI, defaultTools().list());
  expect(response).toMatchObject({ text: "Done.", toolCalls: [], stopReason: "end_turn" });
  expect(response.assistantItems[0]).not.toHaveProperty("tool_calls");
  await server.close();
});

test("a refusal makes the stop reason refusal", async () => {
  const server = await startFakeServer({
    script: [{ message: { content: null, refusal: "I can't help with that." } }],
  });
  expect((await chat(server.url).complete(HI)).stopReason).toBe("refusal");
  await server.close();
});

test("arguments that are not JSON become an arguments error; other JSON is the input", async () => {
  const server = await startFakeServer({
    script: [
      {
        message: {
          tool_calls: [
            { id: "c", function: { name: "echo", arguments: "{x" } },
            { id: "d", function: { name: "echo", arguments: "[1]" } },
          ],
        },
      },
    ],
  });
  const response = await chat(server.url).complete(HI, defaultTools().list());
  expect(response.toolCalls).toEqual([
    { id: "c", name: "echo", arguments: "{x", argumentsError: "not valid JSON: {x" },
    { id: "d", name: "echo", arguments: [1] },
  ]);
  await server.close();
});

test("a rejected key names OPENAI_CHAT_API_KEY; a 500 names the base URL", async () => {
  const server = await startFakeServer({
    key: "sk-right",
    script: [],
  });
  const denied = await chat(server.url)
    .complete(HI)
    .catch((e: unknown) => e);
  expect((denied as ApiError).message).toMatch(/\(401\): check OPENAI_CHAT_API_KEY$/);
  await server.close();
  const failing = await startFakeServer({
    script: [{ error: { status: 500, type: "server_error", message: "The server had an error" } }],
  });
  const failed = await chat(failing.url)
    .complete(HI)
    .catch((e: unknown) => e);
  expect((failed as ApiError).message).toBe(
    `${failing.url}/v1 answered 500: The server had an error`,
  );
  await failing.close();
});

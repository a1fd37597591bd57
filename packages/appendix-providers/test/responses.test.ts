// The openai provider (the Responses API) through the real `openai` SDK against the test-kit's
// fake server: what it sends, what it makes of the output items, what goes back, and its traps.
import { startFakeServer } from "@agent-code/test-kit";
import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { ApiError, createProvider, type ModelProvider } from "../src/model.ts";
import { defaultTools } from "../src/tools.ts";

// The first request loads the openai SDK's modules through Vitest's transform: seconds of CPU
// on a busy machine, past Vitest's default 5 s.
vi.setConfig({ testTimeout: 30_000 });

const VARIABLES = ["OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENT_CODE_MAX_RETRIES"];
const saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));

beforeEach(() => {
  for (const name of VARIABLES) delete process.env[name];
  process.env.OPENAI_API_KEY = "sk-test";
  process.env.AGENT_CODE_MAX_RETRIES = "0";
});

afterEach(() => {
  for (const name of VARIABLES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

function openai(url: string, model = "gpt-4.1"): ModelProvider {
  return createProvider("openai", model, `${url}/v1`);
}

const HI = [{ role: "user", content: "Hi" }];

test("sends the conversation as input with store: false and flat tools; reads calls by call_id", async () => {
  const server = await startFakeServer({
    script: [
      {
        output: [
          { type: "message", content: [{ type: "output_text", text: "Let me check." }] },
          { type: "function_call", call_id: "call_a", name: "echo", arguments: '{"text":"a"}' },
          { type: "function_call", call_id: "call_b", name: "system_date", arguments: "{}" },
        ],
      },
    ],
  });
  const response = await openai(server.url).complete(HI, defaultTools().list());
  const [request] = server.requests();
  expect(request?.path).toBe("/v1/responses");
  expect(request?.body).toMatchObject({ model: "gpt-4.1", input: HI, store: false });
  expect(request?.body.previous_response_id).toBeUndefined();
  expect(request?.body.tools[0]).toEqual({
    type: "function",
    name: "echo",
    description: "Repeat the given text back.",
    parameters: {
      type: "object",
      properties: { text: { type: "string", description: "The text to repeat." } },
      required: ["text"],
      additionalProperties: false,
    },
    strict: false,
  });
  expect(response).toMatchObject({
    text: "Let me check.",
    stopReason: "tool_use",
    toolCalls: [
      { id: "call_a", name: "echo", arguments: { text: "a" } },
      { id: "call_b", name: "system_date", arguments: {} },
    ],
  });
  await server.close();
});

test("the output items go back in order without their ids, the outputs after them", async () => {
  const server = await startFakeServer({
    script: [
      {
        content: [
          { type: "thinking", thinking: "I need the date." },
          { type: "tool_use", id: "call_d", name: "system_date", input: {} },
        ],
      },
      { content: [{ type: "text", text: "Today." }] },
    ],
  });
  // A reasoning model: its reasoning item comes with encrypted_content and must go back too.
  const provider = openai(server.url, "gpt-5");
  const first = await provider.complete(HI, defaultTools().list());
  expect(first.assistantItems.map((item) => (item as { type: string }).type)).toEqual([
    "reasoning",
    "function_call",
  ]);
  expect(first.assistantItems.every((item) => !("id" in item))).toBe(true);
  expect(first.assistantItems[0]).toHaveProperty("encrypted_content");
  const results = provider.toolResults([{ toolCallId: "call_d", content: "now", isError: false }]);
  expect(results).toEqual([{ type: "function_call_output", call_id: "call_d", output: "now" }]);
  const second = await provider.complete([...HI, ...first.assistantItems, ...results]);
  expect(second).toMatchObject({ text: "Today.", stopReason: "end_turn" });
  expect(server.requests().map((request) => request.verdict.accepted)).toEqual([true, true]);
  await server.close();
});

test("a reasoning item without encrypted_content is left out: it could not be replayed", async () => {
  const server = await startFakeServer({
    script: [
      {
        output: [
          { type: "reasoning", summary: [], encrypted_content: "" },
          { type: "message", content: [{ type: "output_text", text: "Hi." }] },
        ],
      },
    ],
  });
  const response = await openai(server.url).complete(HI);
  expect(response.assistantItems).toEqual([
    {
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: "Hi.", annotations: [] }],
    },
  ]);
  await server.close();
});

test.each([
  [{ status: "incomplete", incomplete_details: { reason: "max_output_tokens" } }, "max_tokens"],
  [{ status: "incomplete", incomplete_details: { reason: "content_filter" } }, "content_filter"],
])("a response that is not completed (%j) stops as %s", async (fields, stopReason) => {
  const server = await startFakeServer({
    script: [
      {
        output: [{ type: "function_call", call_id: "c", name: "echo", arguments: '{"te' }],
        ...(fields as { status: "incomplete" }),
      },
    ],
  });
  const response = await openai(server.url).complete(HI, defaultTools().list());
  expect(response.stopReason).toBe(stopReason);
  await server.close();
});

test("a refusal part makes the stop reason refusal", async () => {
  const server = await startFakeServer({
    script: [{ output: [{ type: "message", content: [{ type: "refusal", refusal: "No." }] }] }],
  });
  expect((await openai(server.url).complete(HI)).stopReason).toBe("refusal");
  await server.close();
});

test("arguments that are not JSON become an arguments error on the call", async () => {
  const server = await startFakeServer({
    script: [{ output: [{ type: "function_call", call_id: "c", name: "echo", arguments: "{x" }] }],
  });
  const response = await openai(server.url).complete(HI, defaultTools().list());
  expect(response.toolCalls).toEqual([
    { id: "c", name: "echo", arguments: "{x", argumentsError: "not valid JSON: {x" },
  ]);
  await server.close();
});

test("a failed response is an ApiError", async () => {
  const server = await startFakeServer({ script: [{ output: [], status: "failed" }] });
  const error = await openai(server.url)
    .complete(HI)
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).message).toMatch(
    /^the model failed at http:\/\/127\.0\.0\.1:\d+\/v1: /,
  );
  await server.close();
});

test("a rejected key names OPENAI_API_KEY and never the key", async () => {
  process.env.OPENAI_API_KEY = "sk-canary-never-print-me";
  const server = await startFakeServer({ key: "sk-right" });
  const error = await openai(server.url)
    .complete(HI)
    .catch((e: unknown) => e);
  expect((error as ApiError).message).toMatch(
    /^authentication failed at http:\/\/127\.0\.0\.1:\d+\/v1 \(401\): check OPENAI_API_KEY$/,
  );
  await server.close();
});

test("a 400 carries the API's own words, without the SDK's status prefix", async () => {
  const server = await startFakeServer({
    script: [
      {
        error: {
          status: 400,
          type: "invalid_request_error",
          message: "No tool output found for function call call_x.",
        },
      },
    ],
  });
  const error = await openai(server.url)
    .complete(HI)
    .catch((e: unknown) => e);
  expect((error as ApiError).message).toBe(
    "the API rejected the request (400): No tool output found for function call call_x.",
  );
  await server.close();
});

test("a 429 is retried as AGENT_CODE_MAX_RETRIES says, then the answer comes", async () => {
  process.env.AGENT_CODE_MAX_RETRIES = "1";
  const server = await startFakeServer({
    script: [
      {
        error: {
          status: 429,
          type: "requests",
          message: "Rate limit reached",
          headers: { "retry-after-ms": "5" },
        },
      },
      { content: [{ type: "text", text: "ok" }] },
    ],
  });
  expect((await openai(server.url).complete(HI)).text).toBe("ok");
  expect(server.requests()).toHaveLength(2);
  await server.close();
});

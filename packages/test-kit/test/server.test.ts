import {
  AnthropicError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  AuthenticationError,
  BadRequestError,
  InternalServerError,
  NotFoundError,
  OverloadedError,
} from "@anthropic-ai/sdk";
import { betaTool } from "@anthropic-ai/sdk/helpers/beta/json-schema";
import { describe, expect, test } from "vitest";
import type { FakeServer, RecordedRequest } from "../src/server.ts";
import {
  parseSteps,
  type ReplyBlock,
  type ReplyStep,
  SUMMARY_INSTRUCTION,
  summaryStep,
} from "../src/server-steps.ts";
import { signThinking, verifyThinking } from "../src/signature.ts";
import { clientFor, rejection, start } from "./support.ts";

const PARAMS = {
  model: "deepseek-v4-flash",
  max_tokens: 1024,
  messages: [{ role: "user" as const, content: "What is the weather in Paris?" }],
};

interface SseEvent {
  event: string;
  // biome-ignore lint/suspicious/noExplicitAny: parsed event data, read field by field below.
  data: any;
}

function parseSse(text: string): SseEvent[] {
  return text
    .trim()
    .split("\n\n")
    .map((chunk) => {
      const [eventLine, dataLine, ...rest] = chunk.split("\n");
      expect(rest).toEqual([]);
      expect(eventLine).toMatch(/^event: /);
      expect(dataLine).toMatch(/^data: /);
      return { event: eventLine?.slice(7) ?? "", data: JSON.parse(dataLine?.slice(6) ?? "") };
    });
}

describe("replies", () => {
  const thinking = "The user asks about the weather, so I should call the weather tool.";
  const cases: { name: string; content: ReplyBlock[]; expected: unknown[] }[] = [
    {
      name: "text",
      content: [{ type: "text", text: "Paris is sunny today, with a light breeze from the west." }],
      expected: [
        { type: "text", text: "Paris is sunny today, with a light breeze from the west." },
      ],
    },
    {
      name: "tool_use with nested arguments",
      content: [
        { type: "text", text: "Let me look that up." },
        {
          type: "tool_use",
          name: "get_weather",
          input: {
            city: "Paris",
            when: { days: [1, 2, 3], exact: true },
            unit: null,
            note: "é 😀",
          },
        },
      ],
      expected: [
        { type: "text", text: "Let me look that up." },
        {
          type: "tool_use",
          id: "toolu_1",
          name: "get_weather",
          input: {
            city: "Paris",
            when: { days: [1, 2, 3], exact: true },
            unit: null,
            note: "é 😀",
          },
        },
      ],
    },
    {
      name: "several tool_use blocks",
      content: [
        { type: "tool_use", name: "echo", input: { text: "one" } },
        { type: "tool_use", name: "echo", input: { text: "two" } },
        { type: "tool_use", id: "toolu_custom", name: "get_weather", input: { city: "Rome" } },
      ],
      expected: [
        { type: "tool_use", id: "toolu_1", name: "echo", input: { text: "one" } },
        { type: "tool_use", id: "toolu_2", name: "echo", input: { text: "two" } },
        { type: "tool_use", id: "toolu_custom", name: "get_weather", input: { city: "Rome" } },
      ],
    },
    {
      name: "thinking with signature",
      content: [
        { type: "thinking", thinking },
        { type: "tool_use", name: "get_weather", input: { city: "Paris" } },
      ],
      expected: [
        { type: "thinking", thinking, signature: signThinking(thinking) },
        { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
      ],
    },
    {
      name: "a tool with no arguments",
      content: [{ type: "tool_use", name: "system_date" }],
      expected: [{ type: "tool_use", id: "toolu_1", name: "system_date", input: {} }],
    },
  ];

  test.each(cases)(
    "messages.create and messages.stream give the same message: $name",
    async ({ content, expected }) => {
      const server = await start({ script: [{ content }] });
      const client = clientFor(server);
      const created = await client.messages.create(PARAMS);
      // Same counters for the second call, so the ids match.
      server.reset();
      server.script([{ content }]);
      const streamed = await client.messages.stream(PARAMS).finalMessage();

      expect(created.content).toEqual(expected);
      expect(created).toMatchObject({
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: PARAMS.model,
      });
      // The stream helper adds `parsed_output: null`; the rest must be the very same message.
      const { parsed_output, ...rest } = streamed;
      expect(parsed_output).toBeNull();
      expect(rest).toStrictEqual({ ...created });
    },
  );

  test("fills ids from counters, derives the stop reason and echoes the model", async () => {
    const server = await start({
      script: [
        { content: [{ type: "tool_use", name: "echo", input: { text: "a" } }] },
        { content: [{ type: "tool_use", name: "echo", input: { text: "b" } }] },
        { content: [{ type: "text", text: "done" }] },
        {
          content: [{ type: "text", text: "cut" }],
          stop_reason: "max_tokens",
          usage: { output_tokens: 7 },
        },
        {
          content: [{ type: "text", text: "x" }],
          stop_reason: "stop_sequence",
          stop_sequence: "END",
        },
      ],
    });
    const client = clientFor(server);
    const replies = [];
    for (let i = 0; i < 5; i++)
      replies.push(await client.messages.create({ ...PARAMS, model: `model-${i}` }));

    expect(replies.map((r) => r.id)).toEqual(["msg_1", "msg_2", "msg_3", "msg_4", "msg_5"]);
    expect(replies.map((r) => r.model)).toEqual([
      "model-0",
      "model-1",
      "model-2",
      "model-3",
      "model-4",
    ]);
    expect(replies.map((r) => r.stop_reason)).toEqual([
      "tool_use",
      "tool_use",
      "end_turn",
      "max_tokens",
      "stop_sequence",
    ]);
    expect(replies[1]?.content[0]).toMatchObject({ id: "toolu_2" });
    expect(replies[3]?.usage.output_tokens).toBe(7);
    expect(replies[4]?.stop_sequence).toBe("END");
    expect(replies.map((r) => r._request_id)).toEqual([
      "req_1",
      "req_2",
      "req_3",
      "req_4",
      "req_5",
    ]);
  });

  test("signs thinking blocks so that the signature verifies, and keeps a given signature", async () => {
    const server = await start({
      script: [
        { content: [{ type: "thinking", thinking: "let me think" }] },
        { content: [{ type: "thinking", thinking: "given", signature: "sig-from-script" }] },
      ],
    });
    const client = clientFor(server);
    const [first] = (await client.messages.create(PARAMS)).content;
    const [second] = (await client.messages.create(PARAMS)).content;

    expect(first?.type === "thinking" && verifyThinking(first.thinking, first.signature)).toBe(
      true,
    );
    expect(second).toEqual({ type: "thinking", thinking: "given", signature: "sig-from-script" });
  });

  test("streams realistic server-sent events", async () => {
    const text = "A longer answer, so that the text is cut into several deltas of varying size.";
    const thought = "I need both tools before I can answer this question properly.";
    const step: ReplyStep = {
      content: [
        { type: "thinking", thinking: thought },
        { type: "text", text },
        { type: "tool_use", name: "get_weather", input: { city: "Paris", days: [1, 2] } },
        { type: "tool_use", name: "system_date" },
      ],
    };
    const server = await start({ script: [step, step] });
    const response = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...PARAMS, stream: true }),
    });
    const events = parseSse(await response.text());
    const whole = await clientFor(server).messages.create(PARAMS);

    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(response.headers.get("request-id")).toBe("req_1");
    for (const { event, data } of events) expect(data.type).toBe(event);
    expect(events.map((e) => e.event).slice(0, 3)).toEqual([
      "message_start",
      "content_block_start",
      "ping",
    ]);
    expect(events.at(-2)?.event).toBe("message_delta");
    expect(events.at(-1)?.event).toBe("message_stop");
    expect(events[0]?.data.message).toMatchObject({ content: [], stop_reason: null });

    const deltas = (index: number) =>
      events
        .filter((e) => e.event === "content_block_delta" && e.data.index === index)
        .map((e) => e.data.delta);
    const thinkingDeltas = deltas(0);
    expect(thinkingDeltas.at(-1)).toEqual({
      type: "signature_delta",
      signature: signThinking(thought),
    });
    expect(thinkingDeltas.slice(0, -1).every((d) => d.type === "thinking_delta")).toBe(true);
    expect(
      thinkingDeltas
        .slice(0, -1)
        .map((d) => d.thinking)
        .join(""),
    ).toBe(thought);

    const textPieces = deltas(1).map((d) => d.text as string);
    expect(textPieces.length).toBeGreaterThan(3);
    expect(new Set(textPieces.map((p) => p.length)).size).toBeGreaterThan(1);
    expect(textPieces.join("")).toBe(text);

    const json = deltas(2).map((d) => d.partial_json as string);
    expect(json[0]).toBe("");
    expect(json.length).toBeGreaterThan(2);
    expect(JSON.parse(json.join(""))).toEqual({ city: "Paris", days: [1, 2] });
    // A tool without arguments: one empty partial_json, nothing else.
    expect(deltas(3)).toEqual([{ type: "input_json_delta", partial_json: "" }]);

    const messageDelta = events.at(-2)?.data;
    expect(messageDelta.delta.stop_reason).toBe("tool_use");
    // Cumulative usage: the same totals as the non-streamed reply.
    expect(messageDelta.usage).toEqual(whole.usage);
  });
});

describe("errors and faults", () => {
  test("the SDK retries a 429 with retry-after-ms, and the server counts every attempt", async () => {
    const rateLimited = {
      error: {
        status: 429,
        type: "rate_limit_error",
        message: "Number of request tokens has exceeded your per-minute rate limit",
        headers: { "retry-after-ms": "10" },
      },
    };
    const server = await start({
      script: [rateLimited, rateLimited, { content: [{ type: "text", text: "finally" }] }],
    });
    const reply = await clientFor(server, { maxRetries: 2 }).messages.create(PARAMS);

    expect(reply.content).toEqual([{ type: "text", text: "finally" }]);
    expect(server.requests().map((r) => r.headers["x-stainless-retry-count"])).toEqual([
      "0",
      "1",
      "2",
    ]);
  });

  test("the SDK retries a 529 and gives up with OverloadedError when retries run out", async () => {
    const overloaded = {
      error: {
        status: 529,
        type: "overloaded_error",
        message: "Overloaded",
        headers: { "retry-after-ms": "10" },
      },
    };
    const server = await start({
      script: [overloaded, { content: [{ type: "text", text: "ok" }] }],
    });
    const reply = await clientFor(server, { maxRetries: 1 }).messages.create(PARAMS);
    expect(reply.content).toEqual([{ type: "text", text: "ok" }]);
    expect(server.requests()).toHaveLength(2);

    server.script([overloaded, overloaded]);
    const error = await rejection(clientFor(server, { maxRetries: 1 }).messages.create(PARAMS));
    expect(error).toBeInstanceOf(OverloadedError);
    expect(error).toMatchObject({
      status: 529,
      type: "overloaded_error",
      apiMessage: "Overloaded",
    });
    expect(server.requests()).toHaveLength(4);
  });

  test("a scripted 4xx carries x-should-retry: false, so the SDK does not retry it", async () => {
    const server = await start({
      script: [{ error: { status: 400, type: "invalid_request_error", message: "messages: bad" } }],
    });
    const error = await rejection(clientFor(server, { maxRetries: 2 }).messages.create(PARAMS));

    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ status: 400, apiMessage: "messages: bad", requestID: "req_1" });
    expect((error as APIError).headers?.get("x-should-retry")).toBe("false");
    expect((error as APIError).error).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: "messages: bad" },
      request_id: "req_1",
    });
    expect(server.requests()).toHaveLength(1);
  });

  test("a summary step answers only a request with no tools that holds the instruction", async () => {
    const summary = "<compacted-history>the date test fails</compacted-history>";
    const server = await start({ script: [summaryStep(summary), summaryStep(summary)] });
    const client = clientFor(server, { maxRetries: 2 });
    const asked = `${SUMMARY_INSTRUCTION}\nKeep the file names.`;
    const tools = [{ name: "read_file", input_schema: { type: "object" as const } }];

    const refused = await rejection(
      client.messages.create({ ...PARAMS, tools, messages: [{ role: "user", content: "hi" }] }),
    );
    expect(refused).toBeInstanceOf(BadRequestError);
    expect((refused as APIError).error).toMatchObject({
      error: {
        message: `fake server: this step's request offers tools (1) where none are expected and does not hold ${JSON.stringify(SUMMARY_INSTRUCTION)}`,
      },
    });
    const reply = await client.messages.create({
      ...PARAMS,
      system: "You write summaries.",
      messages: [{ role: "user", content: asked }],
    });
    expect(reply.content).toEqual([{ type: "text", text: summary }]);
    // Unretried, and the refused request is marked as refused for the judgements.
    expect(server.requests().map((request) => request.verdict.accepted)).toEqual([false, true]);
    expect(() => parseSteps([{ ...summaryStep("x"), expect: { no_tools: "yes" } }])).toThrow(
      'step 1: expect: "no_tools" must be true or false',
    );
    expect(() => parseSteps([{ ...summaryStep("x"), expect: { tools: 0 } }])).toThrow(/tools/);
  });

  test("responses() keeps what went back to each request, an error's envelope too; reset forgets them", async () => {
    const server = await start({
      script: [
        { content: [{ type: "text", text: "first" }] },
        { error: { status: 400, type: "invalid_request_error", message: "messages: bad" } },
      ],
    });
    const client = clientFor(server, { maxRetries: 0 });
    const reply = await client.messages.create(PARAMS);
    await rejection(client.messages.create(PARAMS));
    await expect.poll(() => server.responses().length).toBe(2);
    const [ok, bad] = server.responses();
    expect(ok).toMatchObject({ index: 0, status: 200, contentType: "application/json" });
    expect(JSON.parse(ok?.body ?? "")).toEqual(JSON.parse(JSON.stringify(reply)));
    expect(bad).toMatchObject({ index: 1, status: 400 });
    expect(JSON.parse(bad?.body ?? "")).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: "messages: bad" },
      request_id: "req_2",
    });
    server.reset();
    expect(server.responses()).toEqual([]);
  });

  test("an empty script answers 500 naming the request, and the SDK does not retry it", async () => {
    const server = await start({ script: [{ content: [{ type: "text", text: "only one" }] }] });
    const client = clientFor(server, { maxRetries: 2 });
    await client.messages.create(PARAMS);
    const error = await rejection(client.messages.create(PARAMS));

    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({ status: 500, type: "api_error" });
    expect((error as APIError).apiMessage).toContain("request 2");
    expect((error as APIError).headers?.get("x-should-retry")).toBe("false");
    expect(server.requests()).toHaveLength(2);
  });

  test("drop closes the connection without a response: APIConnectionError, retried", async () => {
    const server = await start({ script: [{ fault: "drop" }] });
    const error = await rejection(clientFor(server).messages.create(PARAMS));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).not.toBeInstanceOf(APIConnectionTimeoutError);

    server.script([{ fault: "drop" }, { content: [{ type: "text", text: "second try" }] }]);
    const reply = await clientFor(server, { maxRetries: 1 }).messages.create(PARAMS);
    expect(reply.content).toEqual([{ type: "text", text: "second try" }]);
    expect(server.requests()).toHaveLength(3);
  });

  test("delay_ms holds the reply back, and past the client timeout gives APIConnectionTimeoutError", async () => {
    const server = await start({
      script: [
        { content: [{ type: "text", text: "slow" }], delay_ms: 150 },
        { content: [{ type: "text", text: "too slow" }], delay_ms: 1000 },
      ],
    });
    const began = performance.now();
    await clientFor(server).messages.create(PARAMS);
    expect(performance.now() - began).toBeGreaterThanOrEqual(140);

    const error = await rejection(clientFor(server, { timeout: 100 }).messages.create(PARAMS));
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
  });

  test("event_delay_ms sends a streamed reply an event at a time; a plain one is not held", async () => {
    const text = "one two three four five six";
    // A pause longer than any test: while the server sleeps in it, a reader has exactly what was
    // sent before it, however busy the machine (closing the server ends the pause).
    const held = { content: [{ type: "text" as const, text }], event_delay_ms: 600_000 };
    const server = await start({ script: [held, held, { ...held, event_delay_ms: 1 }] });

    const response = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...PARAMS, stream: true }),
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let received = "";
    while (!received.includes("\n\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      received += decoder.decode(value, { stream: true });
    }
    await reader.cancel();
    // The first event came alone: the rest waits behind the pause (sent all at once, the first
    // read would hold them all).
    expect(parseSse(received).map((event) => event.event)).toEqual(["message_start"]);

    // Not streamed, the same step answers at once: held for even one pause, the client's
    // timeout would end it first.
    const plain = await clientFor(server, { timeout: 20_000 }).messages.create(PARAMS);
    expect(plain.content).toEqual([{ type: "text", text }]);

    // With a short pause every event comes, in order, and makes the same message.
    const stream = clientFor(server).messages.stream(PARAMS);
    expect((await stream.finalMessage()).content).toEqual([{ type: "text", text }]);
    expect(() => server.script([{ ...held, event_delay_ms: -1 }])).toThrow(
      'step 1: "event_delay_ms" must be a number >= 0',
    );
  });

  test("stream-error: an error event after the 200 rejects the stream, unretried", async () => {
    const server = await start({ script: [{ fault: "stream-error" }, { fault: "stream-error" }] });
    const client = clientFor(server, { maxRetries: 2 });
    const error = await rejection(client.messages.stream(PARAMS).finalMessage());

    // Mid-stream, the SDK makes a plain APIError without a status, not an OverloadedError.
    expect(error).toBeInstanceOf(APIError);
    expect(error).not.toBeInstanceOf(OverloadedError);
    expect(error).toMatchObject({ status: undefined, type: "overloaded_error" });
    expect(server.requests()).toHaveLength(1);

    // Asked without streaming, the overload comes before the 200: an ordinary 529.
    const plain = await rejection(clientFor(server).messages.create(PARAMS));
    expect(plain).toBeInstanceOf(OverloadedError);
  });

  test("stream-cut: the stream ends before message_stop", async () => {
    const server = await start({ script: [{ fault: "stream-cut" }, { fault: "stream-cut" }] });
    const client = clientFor(server);
    const error = await rejection(client.messages.stream(PARAMS).finalMessage());
    expect(error).toBeInstanceOf(AnthropicError);
    expect((error as Error).message).toBe(
      "stream ended without producing a Message with role=assistant",
    );

    // The raw event stream ends without complaint: a client must notice the missing message_stop.
    const raw = await client.messages.create({ ...PARAMS, stream: true });
    const types: string[] = [];
    for await (const event of raw) types.push(event.type);
    expect(types[0]).toBe("message_start");
    expect(types).not.toContain("message_stop");
  });

  test("stream-cut without streaming: the body stops halfway and fetch's error comes through", async () => {
    const server = await start({ script: [{ fault: "stream-cut" }] });
    const error = await rejection(clientFor(server).messages.create(PARAMS));
    expect(error).not.toBeInstanceOf(AnthropicError);
    expect(error).toMatchObject({ name: "TypeError", message: "terminated" });
  });

  test("malformed: a broken JSON body surfaces as a SyntaxError, not an SDK error", async () => {
    const server = await start({ script: [{ fault: "malformed" }, { fault: "malformed" }] });
    const client = clientFor(server, { maxRetries: 2 });
    const error = await rejection(client.messages.create(PARAMS));
    expect(error).toBeInstanceOf(SyntaxError);
    expect(error).not.toBeInstanceOf(AnthropicError);

    const streamed = await rejection(client.messages.stream(PARAMS).finalMessage());
    expect(streamed).toBeInstanceOf(AnthropicError);
    expect((streamed as Error).message).toBe("request ended without sending any chunks");
    expect(server.requests()).toHaveLength(2);
  });

  test("wrong-content-type: messages.create resolves to the body as a string", async () => {
    const server = await start({
      script: [{ fault: "wrong-content-type" }, { fault: "wrong-content-type" }],
    });
    const client = clientFor(server);
    const reply: unknown = await client.messages.create(PARAMS);
    expect(typeof reply).toBe("string");
    expect(JSON.parse(reply as string)).toMatchObject({ type: "message", role: "assistant" });

    // The SDK reads a stream whatever its content type says.
    const streamed = await client.messages.stream(PARAMS).finalMessage();
    expect(streamed).toMatchObject({ type: "message", stop_reason: "end_turn" });
  });
});

describe("answers that are not the API, and raw steps", () => {
  // What a client gets as the raw response, so the test sees what went over the wire.
  async function answer(server: FakeServer, stream = false) {
    const response = await clientFor(server)
      .messages.create({ ...PARAMS, stream } as typeof PARAMS)
      .asResponse();
    return {
      status: response.status,
      type: response.headers.get("content-type"),
      body: await response.text(),
    };
  }

  test("html-page: a sign-in page with 200 text/html, streaming or not", async () => {
    const server = await start({ script: [{ fault: "html-page" }, { fault: "html-page" }] });
    for (const stream of [false, true]) {
      const { status, type, body } = await answer(server, stream);
      expect([status, type]).toEqual([200, "text/html; charset=utf-8"]);
      expect(body).toMatch(/^<!doctype html>\n[\s\S]*<title>Sign in<\/title>/);
    }
  });

  test("not-a-message and string-content: JSON, but not a message the loop can read", async () => {
    const server = await start({
      script: [{ fault: "not-a-message" }, { fault: "string-content" }],
    });
    const client = clientFor(server);
    expect(await client.messages.create(PARAMS)).toEqual({ ok: true });
    const message = await client.messages.create(PARAMS);
    expect(message).toMatchObject({ type: "message", role: "assistant", stop_reason: "end_turn" });
    expect(typeof message.content).toBe("string");
  });

  test("event-stream: the events of a reply, to a request that did not ask for a stream", async () => {
    const server = await start({ script: [{ fault: "event-stream" }] });
    const { status, type, body } = await answer(server);
    expect([status, type]).toEqual([200, "text/event-stream; charset=utf-8"]);
    expect(body).toMatch(/^event: message_start\ndata: /);
    expect(body).toContain("event: message_stop");
  });

  test("a raw step sends its status, headers and body as they are; content-length is computed", async () => {
    const server = await start({
      script: [
        {
          raw: {
            status: 418,
            headers: { "content-type": "text/x-tea", "content-length": "1" },
            body: "teapot",
          },
        },
        { raw: {} },
      ],
    });
    const response = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      body: JSON.stringify(PARAMS),
    });
    expect(response.status).toBe(418);
    expect(response.headers.get("content-type")).toBe("text/x-tea");
    expect(response.headers.get("content-length")).toBe("6");
    expect(response.headers.get("request-id")).toBeNull();
    expect(await response.text()).toBe("teapot");
    const empty = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      body: JSON.stringify(PARAMS),
    });
    expect([empty.status, await empty.text()]).toEqual([200, ""]);
  });

  test("a raw step is checked when scripted", async () => {
    const server = await start();
    expect(() => server.script([{ raw: { status: 700 } }])).toThrow(
      'step 1: raw: "status" must be an integer from 200 to 599',
    );
    expect(() => server.script([{ raw: { body: 5 } } as never])).toThrow(
      'step 1: raw: "body" must be a string',
    );
    expect(() => server.script([{ raw: { headers: { a: 1 } } } as never])).toThrow(
      'step 1: raw: "headers" must be an object of strings',
    );
    expect(() => server.script([{ raw: { stauts: 200 } } as never])).toThrow(
      'step 1: raw: unknown field "stauts"',
    );
  });
});

describe("authentication and routes", () => {
  test("a wrong Bearer token gets the real 401, a right one passes; credentials are not recorded", async () => {
    const server = await start({
      key: "sk-right",
      script: [{ content: [{ type: "text", text: "hi" }] }],
    });
    const error = await rejection(
      clientFor(server, { apiKey: "sk-wrong", maxRetries: 2 }).messages.create(PARAMS),
    );

    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as APIError).error).toEqual({
      type: "error",
      error: { type: "authentication_error", message: "Invalid bearer token" },
      request_id: "req_1",
    });
    const reply = await clientFor(server, {
      apiKey: undefined,
      authToken: "sk-right",
    }).messages.create(PARAMS);
    expect(reply.content).toEqual([{ type: "text", text: "hi" }]);

    const [rejected, accepted] = server.requests();
    expect(rejected?.verdict).toEqual({
      accepted: false,
      status: 401,
      message: "Invalid bearer token",
    });
    expect(accepted?.verdict).toEqual({ accepted: true });
    expect(accepted?.headers).not.toHaveProperty("authorization");
    expect(accepted?.headers["anthropic-version"]).toBeDefined();
  });

  test("x-api-key is accepted too, with the real texts for a wrong and a missing key", async () => {
    const server = await start({
      key: "sk-right",
      script: [{ content: [{ type: "text", text: "hi" }] }],
    });
    async function post(headers: Record<string, string>) {
      const response = await fetch(`${server.url}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(PARAMS),
      });
      return { status: response.status, body: await response.json() };
    }

    expect(await post({ "x-api-key": "sk-wrong" })).toMatchObject({
      status: 401,
      body: {
        type: "error",
        error: { type: "authentication_error", message: "invalid x-api-key" },
      },
    });
    expect(await post({})).toMatchObject({
      status: 401,
      body: { error: { type: "authentication_error", message: "x-api-key header is required" } },
    });
    expect(await post({ "x-api-key": "sk-right" })).toMatchObject({
      status: 200,
      body: { type: "message" },
    });
    expect(server.requests().map((r) => r.headers)).not.toContainEqual(
      expect.objectContaining({ "x-api-key": expect.anything() }),
    );
  });

  test("other paths get the real 404 and use no step; the query string is ignored", async () => {
    const server = await start({ script: [{ content: [{ type: "text", text: "hi" }] }] });
    const error = await rejection(
      clientFor(server, { baseURL: `${server.url}/anthropic` }).messages.create(PARAMS),
    );
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, type: "not_found_error", apiMessage: "Not Found" });

    const get = await fetch(`${server.url}/v1/messages`);
    expect(get.status).toBe(404);
    expect(get.headers.get("x-should-retry")).toBe("false");

    const beta = await fetch(`${server.url}/v1/messages?beta=true`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(PARAMS),
    });
    expect(await beta.json()).toMatchObject({ type: "message", content: [{ text: "hi" }] });
    expect(server.requests().map((r) => [r.method, r.path, r.verdict.accepted])).toEqual([
      ["POST", "/anthropic/v1/messages", false],
      ["GET", "/v1/messages", false],
      ["POST", "/v1/messages", true],
    ]);
  });

  test("a body that is not JSON gets a 400 and uses no step", async () => {
    const server = await start({ script: [{ content: [{ type: "text", text: "hi" }] }] });
    const response = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      body: "{not json",
    });

    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { type: "invalid_request_error" } });
    expect(server.requests()[0]).toMatchObject({
      body: null,
      verdict: { accepted: false, status: 400 },
    });
    const reply = await clientFor(server).messages.create(PARAMS);
    expect(reply.content).toEqual([{ type: "text", text: "hi" }]);
  });
});

describe("scripting", () => {
  test("the control API needs the server's token: without it, 403, and nothing read or changed", async () => {
    const server = await start({ script: [{ content: [{ type: "text", text: "kept" }] }] });
    const other = await start();
    await fetch(`${server.url}/v1/models`, { headers: { "x-note": "private" } });
    const wrong = other.controlUrl.replace(other.url, server.url);
    for (const [method, path] of [
      ["GET", `${server.url}/_fake/requests`],
      ["GET", `${server.url}/_fake/requests?pretty`],
      ["POST", `${server.url}/_fake/reset`],
      ["POST", `${wrong}/script`],
      ["GET", `${wrong}/requests`],
    ] as const) {
      const response = await fetch(path, { method, body: method === "POST" ? "[]" : undefined });
      expect(response.status).toBe(403);
      expect(await response.text()).not.toContain("private");
    }
    expect(server.requests().map((request) => request.headers["x-note"])).toEqual(["private"]);
    const reply = await clientFor(server).messages.create(PARAMS);
    expect(reply.content).toEqual([{ type: "text", text: "kept" }]);
  });

  test("the control API replaces the script, lists requests and resets, and is not recorded", async () => {
    const server = await start();
    const client = clientFor(server);
    async function control(method: string, path: string, body?: unknown) {
      const response = await fetch(`${server.controlUrl}/${path}`, {
        method,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    }
    const text = (t: string) => ({ content: [{ type: "text", text: t }] });

    expect(await control("POST", "script", [text("one"), text("two")])).toEqual({
      status: 200,
      body: { steps: 2 },
    });
    expect((await client.messages.create(PARAMS)).content).toEqual([{ type: "text", text: "one" }]);
    // Replacing, not appending: "two" is gone.
    await control("POST", "script", [text("three")]);
    expect((await client.messages.create(PARAMS)).content).toEqual([
      { type: "text", text: "three" },
    ]);

    const listed = (await control("GET", "requests")).body as RecordedRequest[];
    expect(listed).toHaveLength(2);
    expect(listed[0]).toMatchObject({
      index: 0,
      method: "POST",
      path: "/v1/messages",
      body: PARAMS,
      verdict: { accepted: true },
    });
    expect(listed[0]?.headers).not.toHaveProperty("authorization");

    const bad = await control("POST", "script", [text("fine"), { content: [{ type: "text" }] }]);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      error: { message: 'step 2: content[0]: "text" must be a string' },
    });
    expect((await control("GET", "nothing-here")).status).toBe(404);

    expect(await control("POST", "reset")).toEqual({ status: 200, body: { reset: true } });
    expect(server.requests()).toEqual([]);
    await control("POST", "script", [text("after reset")]);
    const reply = await client.messages.create(PARAMS);
    expect(reply.id).toBe("msg_1");
    expect(server.requests()).toHaveLength(1);
  });

  test("script() replaces the queue and refuses a malformed step at once", async () => {
    const server = await start({ script: [{ content: [{ type: "text", text: "old" }] }] });
    server.script([{ content: [{ type: "text", text: "new" }] }]);
    const client = clientFor(server);

    expect((await client.messages.create(PARAMS)).content).toEqual([{ type: "text", text: "new" }]);
    await expect(client.messages.create(PARAMS)).rejects.toBeInstanceOf(InternalServerError);
    expect(() =>
      server.script([{ content: [], stopReason: "end_turn" } as unknown as ReplyStep]),
    ).toThrow('step 1: unknown field "stopReason"');
    expect(() => server.script([{ fault: "explode" } as never])).toThrow(
      /step 1: "fault" must be one of/,
    );
  });

  test("a step may be a function of the recorded request", async () => {
    const server = await start({
      script: [
        (request) => ({
          content: [
            { type: "text", text: `request ${request.index}: ${request.body.messages[0].content}` },
          ],
        }),
        () => ({ content: "not an array" }) as never,
        () => {
          throw new Error("boom");
        },
      ],
    });
    const client = clientFor(server);
    const reply = await client.messages.create(PARAMS);
    expect(reply.content).toEqual([
      { type: "text", text: "request 0: What is the weather in Paris?" },
    ]);

    const invalid = await rejection(client.messages.create(PARAMS));
    expect(invalid).toBeInstanceOf(InternalServerError);
    expect((invalid as APIError).apiMessage).toContain('step 2: "content" must be an array');
    const thrown = await rejection(client.messages.create(PARAMS));
    expect((thrown as APIError).apiMessage).toContain("step 3 (a function) failed: boom");
  });

  test("validate: false lets a request that breaks the protocol rules through to the script", async () => {
    const server = await start({
      validate: false,
      script: [{ content: [{ type: "text", text: "answered anyway" }] }],
    });
    const reply = await clientFor(server).messages.create({ ...PARAMS, messages: [] });

    expect(reply.content).toEqual([{ type: "text", text: "answered anyway" }]);
    expect(server.requests()[0]?.verdict).toEqual({ accepted: true });
  });

  test("twenty servers in parallel do not mix their requests", async () => {
    const servers = await Promise.all(Array.from({ length: 20 }, () => start()));
    await Promise.all(
      servers.map(async (server, i) => {
        server.script(
          [0, 1, 2].map((n) => ({
            content: [{ type: "text" as const, text: `server ${i} reply ${n}` }],
          })),
        );
        // Sixty requests at once on a busy machine: this is about mixing, not speed.
        const client = clientFor(server, { timeout: 30_000 });
        for (let n = 0; n < 3; n++) {
          const reply = await client.messages.create({
            ...PARAMS,
            messages: [{ role: "user", content: `to server ${i}, request ${n}` }],
          });
          expect(reply.content).toEqual([{ type: "text", text: `server ${i} reply ${n}` }]);
        }
      }),
    );
    servers.forEach((server, i) => {
      expect(server.requests().map((r) => r.body.messages[0].content)).toEqual([
        `to server ${i}, request 0`,
        `to server ${i}, request 1`,
        `to server ${i}, request 2`,
      ]);
    });
  });

  test("the SDK's tool runner completes a two-tool conversation", async () => {
    const server = await start({
      script: [
        {
          content: [
            { type: "text", text: "I will check both." },
            { type: "tool_use", name: "get_weather", input: { city: "Paris" } },
            { type: "tool_use", name: "get_time", input: { zone: "Europe/Paris" } },
          ],
        },
        (request) => {
          const results = request.body.messages.at(-1).content;
          const text = results.map((r: { content: string }) => r.content).join(" / ");
          return { content: [{ type: "text", text: `Summary: ${text}` }] };
        },
      ],
    });
    const weather = betaTool({
      name: "get_weather",
      description: "The weather in a city",
      inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      run: ({ city }) => `sunny in ${city}`,
    });
    const time = betaTool({
      name: "get_time",
      description: "The time in a zone",
      inputSchema: { type: "object", properties: { zone: { type: "string" } }, required: ["zone"] },
      run: ({ zone }) => `noon in ${zone}`,
    });
    const final = await clientFor(server)
      .beta.messages.toolRunner({ ...PARAMS, tools: [weather, time], thread: false })
      .runUntilDone();

    expect(final.content).toEqual([
      { type: "text", text: "Summary: sunny in Paris / noon in Europe/Paris" },
    ]);
    const [first, second] = server.requests();
    expect(first?.body.tools.map((t: { name: string }) => t.name)).toEqual([
      "get_weather",
      "get_time",
    ]);
    expect(second?.body.messages).toHaveLength(3);
    expect(second?.body.messages[2]).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_1", content: "sunny in Paris" },
        { type: "tool_result", tool_use_id: "toolu_2", content: "noon in Europe/Paris" },
      ],
    });
  });
});

test("whenRequests resolves as the request arrives, before its answer, and not before the count", async () => {
  const server = await start({
    script: [
      { content: [{ type: "text", text: "one" }] },
      { content: [{ type: "text", text: "two" }] },
    ],
  });
  const client = clientFor(server);
  const order: string[] = [];
  let second = false;
  void server.whenRequests(2).then(() => {
    second = true;
  });
  await server.whenRequests(0);
  const arrived = server.whenRequests(1).then(() => order.push("arrived"));
  await client.messages.create(PARAMS).then(() => order.push("answered"));
  await arrived;
  expect(order).toEqual(["arrived", "answered"]);
  expect(second).toBe(false);
  await client.messages.create(PARAMS);
  expect(second).toBe(true);
});

test("whenRequests with answerAfter answers that request once it settles, or lets it go on close", async () => {
  const server = await start({ script: [{ content: [{ type: "text", text: "one" }] }] });
  const client = clientFor(server);
  const order: string[] = [];
  let release = () => {};
  const answerAfter = new Promise<void>((resolve) => {
    release = resolve;
  });
  const arrived = server.whenRequests(1, answerAfter).then(() => order.push("arrived"));
  const answered = client.messages.create(PARAMS).then(() => order.push("answered"));
  await arrived;
  // Long enough for an unheld answer to land first; a held one cannot, however long this takes.
  await new Promise((resolve) => setTimeout(resolve, 100));
  order.push("released");
  release();
  await answered;
  expect(order).toEqual(["arrived", "released", "answered"]);

  // A request held by a promise that never settles is let go when the server closes.
  const held = await start({ script: [{ content: [{ type: "text", text: "two" }] }] });
  void held.whenRequests(1, new Promise(() => {}));
  const dropped = clientFor(held)
    .messages.create(PARAMS)
    .then(
      () => "answered",
      () => "refused",
    );
  await held.whenRequests(1);
  await held.close();
  expect(await dropped).toBe("refused");
});

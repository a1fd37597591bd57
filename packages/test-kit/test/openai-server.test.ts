// The fake server's OpenAI endpoints through the official `openai` SDK: replies, streams, the SDK's
// stream helpers and tool runner, retries, faults, auth, and one script played to every API.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  AuthenticationError,
  BadRequestError,
  InternalServerError,
  NotFoundError,
  OpenAIError,
  RateLimitError,
} from "openai";
import { describe, expect, test } from "vitest";
import type { ReplyStep, StepResult } from "../src/server-steps.ts";
import {
  clientFor,
  openAIFor,
  openAIRejection,
  rejection,
  runnableReadFile,
  start,
} from "./support.ts";

const RESPONSES = { model: "gpt-4.1", input: "What is in a.txt and b.txt?" };
const CHAT = {
  model: "gpt-4.1",
  messages: [{ role: "user" as const, content: "What is in a.txt and b.txt?" }],
};
const RESPONSES_TOOLS = [
  {
    type: "function" as const,
    name: "read_file",
    description: "Read a file",
    parameters: { type: "object", properties: { path: { type: "string" } } },
    strict: false,
  },
];
const CHAT_TOOLS = [
  {
    type: "function" as const,
    function: {
      name: "read_file",
      description: "Read a file",
      parameters: { type: "object", properties: { path: { type: "string" } } },
    },
  },
];
const TWO_CALLS: ReplyStep = {
  content: [
    { type: "text", text: "Let me read both files." },
    { type: "tool_use", name: "read_file", input: { path: "a.txt" } },
    { type: "tool_use", name: "read_file", input: { path: "b.txt" } },
  ],
};
const ANSWER: ReplyStep = {
  content: [{ type: "text", text: "a.txt says alpha; b.txt says beta." }],
};

// The SDK's helpers add parsed fields to what they rebuild, and a Chat stream has no place for
// `annotations`; leave those out to compare the rest.
const REBUILT_ONLY = ["parsed", "parsed_arguments", "output_parsed", "annotations"];

function withoutParsed(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (key, field) => (REBUILT_ONLY.includes(key) ? undefined : field)),
  );
}

// biome-ignore lint/suspicious/noExplicitAny: a parsed body, read field by field.
async function json(response: Response): Promise<any> {
  return response.json();
}

async function rawStream(
  server: { url: string },
  path: string,
  body: object,
): Promise<{ contentType: string | null; text: string }> {
  const response = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { authorization: "Bearer sk-test", "content-type": "application/json" },
    body: JSON.stringify({ ...body, stream: true }),
  });
  return { contentType: response.headers.get("content-type"), text: await response.text() };
}

describe("Responses API", () => {
  test("create: a text reply is a full response object, with output_text and the request id", async () => {
    const server = await start({ script: [ANSWER] });
    const { data, response } = await openAIFor(server).responses.create(RESPONSES).withResponse();
    expect(response.headers.get("x-request-id")).toBe("req_1");
    expect((data as { _request_id?: string })._request_id).toBe("req_1");
    expect(data).toMatchObject({
      id: "resp_1",
      object: "response",
      status: "completed",
      model: "gpt-4.1",
      error: null,
      incomplete_details: null,
      output: [
        {
          id: "msg_1",
          type: "message",
          role: "assistant",
          status: "completed",
          content: [
            { type: "output_text", text: "a.txt says alpha; b.txt says beta.", annotations: [] },
          ],
        },
      ],
    });
    expect(data.output_text).toBe("a.txt says alpha; b.txt says beta.");
    expect(data.usage?.total_tokens).toBe(
      (data.usage?.input_tokens ?? 0) + (data.usage?.output_tokens ?? 0),
    );
    expect(server.requests()[0]).toMatchObject({ api: "responses", path: "/v1/responses" });
  });

  test("a two-call tool round, stateless: the full history goes back and is accepted", async () => {
    const server = await start({ script: [TWO_CALLS, ANSWER] });
    const client = openAIFor(server);
    const first = await client.responses.create({ ...RESPONSES, tools: RESPONSES_TOOLS });
    const calls = first.output.flatMap((item) => (item.type === "function_call" ? [item] : []));
    expect(calls).toEqual([
      expect.objectContaining({
        id: "fc_1",
        call_id: "call_1",
        name: "read_file",
        arguments: '{"path":"a.txt"}',
      }),
      expect.objectContaining({
        id: "fc_2",
        call_id: "call_2",
        name: "read_file",
        arguments: '{"path":"b.txt"}',
      }),
    ]);
    const second = await client.responses.create({
      model: RESPONSES.model,
      tools: RESPONSES_TOOLS,
      input: [
        { role: "user", content: RESPONSES.input },
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        ...calls.map((call) => ({
          type: "function_call_output" as const,
          call_id: call.call_id,
          output: call.call_id === "call_1" ? "alpha" : "beta",
        })),
      ],
    });
    expect(second.output_text).toBe("a.txt says alpha; b.txt says beta.");
    expect(server.requests().map((r) => r.verdict.accepted)).toEqual([true, true]);
  });

  test("a two-call tool round, stateful: previous_response_id and only the outputs", async () => {
    const server = await start({ script: [TWO_CALLS, ANSWER] });
    const client = openAIFor(server);
    const first = await client.responses.create({ ...RESPONSES, tools: RESPONSES_TOOLS });
    const second = await client.responses.create({
      model: RESPONSES.model,
      previous_response_id: first.id,
      input: ["call_1", "call_2"].map((call_id) => ({
        type: "function_call_output" as const,
        call_id,
        output: "x",
      })),
    });
    expect(second).toMatchObject({ status: "completed", previous_response_id: "resp_1" });
  });

  test("streams per reference §2.4: created first, one terminal event, consistent ids, no [DONE]", async () => {
    const server = await start({ script: [TWO_CALLS] });
    const { contentType, text } = await rawStream(server, "/v1/responses", {
      ...RESPONSES,
      tools: RESPONSES_TOOLS,
    });
    expect(contentType).toBe("text/event-stream; charset=utf-8");
    expect(text).not.toContain("[DONE]");
    const events = text
      .trim()
      .split("\n\n")
      .map((chunk) => {
        const [eventLine, dataLine, ...rest] = chunk.split("\n");
        expect(rest).toEqual([]);
        const data = JSON.parse(dataLine?.replace(/^data: /, "") ?? "");
        expect(eventLine).toBe(`event: ${data.type}`);
        return data;
      });
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events[0].type).toBe("response.created");
    expect(events[1].type).toBe("response.in_progress");
    const terminal = events.filter((event) =>
      ["response.completed", "response.incomplete", "response.failed"].includes(event.type),
    );
    expect(terminal).toHaveLength(1);
    expect(events.at(-1).type).toBe("response.completed");
    // Every event that names an item names the one at its output_index.
    const final = events.at(-1).response;
    for (const event of events.filter((e) => "item_id" in e)) {
      expect(event.item_id).toBe(final.output[event.output_index].id);
    }
    const args = events
      .filter((e) => e.type === "response.function_call_arguments.delta" && e.output_index === 1)
      .map((e) => e.delta)
      .join("");
    expect(args).toBe('{"path":"a.txt"}');
    expect(events.filter((e) => e.type === "response.output_item.added")).toHaveLength(3);
  });

  test("responses.stream() finishes cleanly and rebuilds what create returns", async () => {
    const steps = [TWO_CALLS, TWO_CALLS];
    const server = await start({ script: steps });
    const client = openAIFor(server);
    const created = await client.responses.create({ ...RESPONSES, tools: RESPONSES_TOOLS });
    const deltas: string[] = [];
    const stream = client.responses.stream({ ...RESPONSES, tools: RESPONSES_TOOLS });
    stream.on("response.output_text.delta", (event) => deltas.push(event.delta));
    const streamed = await stream.finalResponse();
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("Let me read both files.");
    // Ids come from counters, so the second reply's differ; the shape and content do not.
    const renumber = (value: unknown) =>
      JSON.stringify(withoutParsed(value)).replace(/(resp|msg|fc|call)_\d+/g, "$1_N");
    expect(renumber(streamed)).toBe(renumber(created));
    expect(server.requests()[1]?.headers["x-stainless-helper-method"]).toBe("stream");
  });

  test("max_tokens becomes status incomplete with max_output_tokens, in JSON and in the stream", async () => {
    const cut: ReplyStep = {
      content: [{ type: "text", text: "The answer is" }],
      stop_reason: "max_tokens",
    };
    const server = await start({ script: [cut, cut] });
    const client = openAIFor(server);
    const plain = await client.responses.create(RESPONSES);
    expect(plain).toMatchObject({
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
      output: [{ type: "message", status: "incomplete" }],
    });
    const events: string[] = [];
    const stream = client.responses.stream(RESPONSES);
    stream.on("event", (event) => events.push(event.type));
    const streamed = await stream.finalResponse();
    expect(streamed.status).toBe("incomplete");
    expect(events.at(-1)).toBe("response.incomplete");
  });

  test("a native step plays as written: truncated arguments, incomplete, ids filled in", async () => {
    const native: StepResult = {
      output: [{ type: "function_call", name: "read_file", arguments: '{"path":"a.t' }],
      status: "incomplete",
    };
    const server = await start({ script: [native] });
    const reply = await openAIFor(server).responses.create(RESPONSES);
    expect(reply).toMatchObject({
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
      output: [
        {
          type: "function_call",
          id: "fc_1",
          call_id: "call_1",
          arguments: '{"path":"a.t',
          status: "incomplete",
        },
      ],
    });
  });

  test("a failed native step: status failed with its error, and response.failed ends the stream", async () => {
    const failed: StepResult = { output: [], status: "failed" };
    const server = await start({ script: [failed, failed] });
    const client = openAIFor(server);
    const reply = await client.responses.create(RESPONSES);
    expect(reply).toMatchObject({ status: "failed", error: { code: "server_error" }, output: [] });
    const events: string[] = [];
    const stream = client.responses.stream(RESPONSES);
    stream.on("event", (event) => events.push(event.type));
    expect((await stream.finalResponse()).status).toBe("failed");
    expect(events).toEqual(["response.created", "response.in_progress", "response.failed"]);
  });

  test("a reasoning model gets a reasoning item before a neutral reply's output", async () => {
    const server = await start({ script: [TWO_CALLS] });
    const reply = await openAIFor(server).responses.create({ ...RESPONSES, model: "gpt-5" });
    expect(reply.output.map((item) => [item.type, item.id])).toEqual([
      ["reasoning", "rs_1"],
      ["message", "msg_1"],
      ["function_call", "fc_1"],
      ["function_call", "fc_2"],
    ]);
  });
});

describe("Chat Completions API", () => {
  test("create: text, and a two-call round whose arguments are JSON strings", async () => {
    const server = await start({ script: [TWO_CALLS, ANSWER] });
    const client = openAIFor(server);
    const { data: first, response } = await client.chat.completions
      .create({ ...CHAT, tools: CHAT_TOOLS })
      .withResponse();
    expect(response.headers.get("x-request-id")).toBe("req_1");
    expect(first).toMatchObject({
      id: "chatcmpl-1",
      object: "chat.completion",
      model: "gpt-4.1",
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          message: {
            role: "assistant",
            content: "Let me read both files.",
            refusal: null,
            tool_calls: [
              {
                id: "call_1",
                type: "function",
                function: { name: "read_file", arguments: '{"path":"a.txt"}' },
              },
              {
                id: "call_2",
                type: "function",
                function: { name: "read_file", arguments: '{"path":"b.txt"}' },
              },
            ],
          },
        },
      ],
    });
    const message = first.choices[0]?.message;
    const second = await client.chat.completions.create({
      ...CHAT,
      tools: CHAT_TOOLS,
      messages: [
        ...CHAT.messages,
        message as OpenAI.ChatCompletionMessageParam,
        { role: "tool", tool_call_id: "call_1", content: "alpha" },
        { role: "tool", tool_call_id: "call_2", content: "beta" },
      ],
    });
    expect(second.choices[0]).toMatchObject({
      finish_reason: "stop",
      message: { content: "a.txt says alpha; b.txt says beta." },
    });
    expect(second.choices[0]?.message.tool_calls).toBeUndefined();
    expect(server.requests().map((r) => [r.api, r.verdict.accepted])).toEqual([
      ["chat", true],
      ["chat", true],
    ]);
  });

  test("streams per reference §3.4: data lines only, role first, fragments by index, usage, [DONE]", async () => {
    const server = await start({ script: [TWO_CALLS] });
    const { contentType, text } = await rawStream(server, "/v1/chat/completions", {
      ...CHAT,
      tools: CHAT_TOOLS,
      stream_options: { include_usage: true },
    });
    expect(contentType).toBe("text/event-stream; charset=utf-8");
    expect(text).not.toContain("event:");
    const lines = text.trim().split("\n\n");
    expect(lines.at(-1)).toBe("data: [DONE]");
    const chunks = lines.slice(0, -1).map((line) => JSON.parse(line.replace(/^data: /, "")));
    expect(chunks.every((chunk) => chunk.object === "chat.completion.chunk")).toBe(true);
    expect(chunks[0].choices[0].delta).toMatchObject({ role: "assistant" });
    const usage = chunks.at(-1);
    expect(usage.choices).toEqual([]);
    expect(usage.usage.total_tokens).toBeGreaterThan(0);
    const withChoices = chunks.slice(0, -1);
    expect(withChoices.every((chunk) => chunk.usage === null)).toBe(true);
    expect(withChoices.at(-1).choices[0]).toMatchObject({ delta: {}, finish_reason: "tool_calls" });
    expect(withChoices.slice(0, -1).every((c) => c.choices[0].finish_reason === null)).toBe(true);
    const fragments = withChoices.flatMap((chunk) => chunk.choices[0].delta.tool_calls ?? []);
    const firsts = fragments.filter((fragment) => "id" in fragment);
    expect(firsts).toEqual([
      { index: 0, id: "call_1", type: "function", function: { name: "read_file", arguments: "" } },
      { index: 1, id: "call_2", type: "function", function: { name: "read_file", arguments: "" } },
    ]);
    const second = fragments
      .filter((f) => f.index === 1)
      .map((f) => f.function.arguments)
      .join("");
    expect(second).toBe('{"path":"b.txt"}');
  });

  test("chat.completions.stream() finishes cleanly and rebuilds what create returns", async () => {
    const server = await start({ script: [TWO_CALLS, TWO_CALLS] });
    const client = openAIFor(server);
    const created = await client.chat.completions.create({ ...CHAT, tools: CHAT_TOOLS });
    const streamed = await client.chat.completions
      .stream({ ...CHAT, tools: CHAT_TOOLS, stream_options: { include_usage: true } })
      .finalChatCompletion();
    const renumber = (value: object) =>
      withoutParsed({ ...value, id: "X" }) as { choices: unknown; usage: unknown };
    expect(renumber(streamed).choices).toEqual(
      withoutParsed(
        JSON.parse(
          JSON.stringify(created.choices)
            .replace(/call_1"/g, 'call_3"')
            .replace(/call_2"/g, 'call_4"'),
        ),
      ),
    );
    expect(streamed.usage).toEqual(created.usage);
    // A turn of calls alone keeps content null through the stream.
    server.script([{ content: TWO_CALLS.content.slice(1) }]);
    const callsOnly = await client.chat.completions.stream(CHAT).finalChatCompletion();
    expect(callsOnly.choices[0]?.message).toMatchObject({ content: null, refusal: null });
    expect(callsOnly.choices[0]?.message.tool_calls).toHaveLength(2);
  });

  test("max_tokens becomes finish_reason length", async () => {
    const server = await start({
      script: [{ content: [{ type: "text", text: "The answer is" }], stop_reason: "max_tokens" }],
    });
    const reply = await openAIFor(server).chat.completions.create(CHAT);
    expect(reply.choices[0]?.finish_reason).toBe("length");
  });

  test("a native step plays as written", async () => {
    const server = await start({
      script: [
        {
          message: {
            content: null,
            tool_calls: [{ function: { name: "read_file", arguments: "not json" } }],
          },
          finish_reason: "length",
        },
      ],
    });
    const reply = await openAIFor(server).chat.completions.create(CHAT);
    expect(reply.choices[0]).toMatchObject({
      finish_reason: "length",
      message: {
        content: null,
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "read_file", arguments: "not json" },
          },
        ],
      },
    });
  });

  test("runTools() completes a two-call round against the OpenAI flavour", async () => {
    const server = await start({ script: [TWO_CALLS, ANSWER] });
    const seen: string[] = [];
    const runner = openAIFor(server).chat.completions.runTools({
      ...CHAT,
      tools: [
        runnableReadFile((args) => {
          seen.push(args.path);
          return args.path === "a.txt" ? "alpha" : "beta";
        }),
      ],
    });
    expect(await runner.finalContent()).toBe("a.txt says alpha; b.txt says beta.");
    expect(seen.sort()).toEqual(["a.txt", "b.txt"]);
    const second = server.requests()[1];
    expect(second?.headers["x-stainless-helper-method"]).toBe("runTools");
    expect(second?.body.messages.slice(-2)).toEqual([
      { role: "tool", tool_call_id: "call_1", content: "alpha" },
      { role: "tool", tool_call_id: "call_2", content: "beta" },
    ]);
  });
});

const APIS = [
  {
    name: "responses",
    create: (client: OpenAI) => client.responses.create(RESPONSES),
    stream: (client: OpenAI) => client.responses.stream(RESPONSES).finalResponse(),
  },
  {
    name: "chat",
    create: (client: OpenAI) => client.chat.completions.create(CHAT),
    stream: (client: OpenAI) => client.chat.completions.stream(CHAT).finalChatCompletion(),
  },
] as const;

describe.each(APIS)("$name: errors and faults", (api) => {
  test("the SDK retries a 429 with retry-after-ms; the request log counts every attempt", async () => {
    const limited: StepResult = {
      error: {
        status: 429,
        type: "requests",
        code: "rate_limit_exceeded",
        message: "Rate limit reached for gpt-4.1. Please try again in 10ms.",
        headers: { "retry-after-ms": "10" },
      },
    };
    const server = await start({ script: [ANSWER, limited, limited, ANSWER] });
    const client = openAIFor(server, { maxRetries: 2 });
    await api.create(client);
    await api.create(client);
    expect(server.requests().map((r) => r.headers["x-stainless-retry-count"])).toEqual([
      "0",
      "0",
      "1",
      "2",
    ]);
    server.script([limited]);
    const error = await openAIRejection(api.create(openAIFor(server)));
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({
      status: 429,
      type: "requests",
      code: "rate_limit_exceeded",
      param: null,
    });
    // The wait the SDK takes before a retry: read from the answer, not timed (a busy machine
    // stretches any wait).
    expect(error.headers?.get("retry-after-ms")).toBe("10");
  });

  test("a 5xx is retried; x-should-retry: false stops that", async () => {
    const broken: StepResult = {
      error: {
        status: 503,
        type: "server_error",
        message: "The engine is overloaded.",
        headers: { "retry-after-ms": "5" },
      },
    };
    const server = await start({ script: [broken, ANSWER] });
    await api.create(openAIFor(server, { maxRetries: 1 }));
    expect(server.requests()).toHaveLength(2);
    server.reset();
    server.script([{ error: { ...broken.error, headers: { "x-should-retry": "false" } } }]);
    const error = await openAIRejection(api.create(openAIFor(server, { maxRetries: 2 })));
    expect(error).toBeInstanceOf(InternalServerError);
    expect(server.requests()).toHaveLength(1);
  });

  test("an empty script answers 500 in the OpenAI envelope, and the SDK does not retry it", async () => {
    const server = await start();
    const error = await openAIRejection(api.create(openAIFor(server, { maxRetries: 2 })));
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.error).toEqual({
      message: "fake server: the script is empty, no step is left for request 1 (0 steps used)",
      type: "server_error",
      param: null,
      code: null,
    });
    expect(error.requestID).toBe("req_1");
    expect(server.requests()).toHaveLength(1);
  });

  test("drop: APIConnectionError, retried", async () => {
    const server = await start({ script: [{ fault: "drop" }, ANSWER] });
    await api.create(openAIFor(server, { maxRetries: 1 }));
    expect(server.requests()).toHaveLength(2);
    server.script([{ fault: "drop" }]);
    expect(await rejection(api.stream(openAIFor(server)))).toBeInstanceOf(APIConnectionError);
  });

  test("delay_ms past the client's timeout: APIConnectionTimeoutError", async () => {
    const server = await start({ script: [{ ...ANSWER, delay_ms: 300 }] });
    const error = await rejection(api.create(openAIFor(server, { timeout: 50 })));
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
  });

  test("malformed: create throws a SyntaxError; the stream helper finds no events", async () => {
    const server = await start({ script: [{ fault: "malformed" }, { fault: "malformed" }] });
    expect(await rejection(api.create(openAIFor(server)))).toBeInstanceOf(SyntaxError);
    const error = await rejection(api.stream(openAIFor(server)));
    expect(error).toBeInstanceOf(OpenAIError);
    expect((error as Error).message).toMatch(/^request ended without sending any (events|chunks)$/);
  });

  test("wrong-content-type: the stream helper ignores it; create does not get an object", async () => {
    const server = await start({
      script: [{ fault: "wrong-content-type" }, { fault: "wrong-content-type" }],
    });
    const streamed = await api.stream(openAIFor(server));
    expect(JSON.stringify(streamed)).toContain(
      "This reply is broken on purpose by a scripted fault.",
    );
    const created = await rejection(
      Promise.resolve(api.create(openAIFor(server))).then((value) => {
        if (typeof value === "string") throw new TypeError("a string");
        return value;
      }),
    );
    expect(created).toBeInstanceOf(TypeError);
  });

  test("stream-error: 500 before the stream (retried); an error after the 200, unretried", async () => {
    const server = await start({ script: [{ fault: "stream-error" }, ANSWER] });
    await api.create(openAIFor(server, { maxRetries: 1 }));
    expect(server.requests()).toHaveLength(2);
    server.reset();
    server.script([{ fault: "stream-error" }]);
    const error = await rejection(api.stream(openAIFor(server, { maxRetries: 2 })));
    expect(error).toBeInstanceOf(APIError);
    expect(error).toMatchObject({
      status: undefined,
      message: "The server had an error while processing your request. Sorry about that!",
    });
    expect(server.requests()).toHaveLength(1);
  });

  test("answers that are not the API and raw steps go out as they are", async () => {
    const server = await start({
      script: [
        { fault: "html-page" },
        { fault: "not-a-message" },
        { raw: { status: 502, headers: { "content-type": "text/plain" }, body: "bad gateway" } },
      ],
    });
    const path = api.name === "responses" ? "/v1/responses" : "/v1/chat/completions";
    const body = JSON.stringify(api.name === "responses" ? RESPONSES : CHAT);
    const answers = [];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { authorization: "Bearer sk-test", "content-type": "application/json" },
        body,
      });
      answers.push([res.status, res.headers.get("content-type"), await res.text()]);
    }
    expect(answers[0]?.[1]).toBe("text/html; charset=utf-8");
    expect(answers[0]?.[2]).toContain("<title>Sign in</title>");
    expect(answers[1]).toEqual([200, "application/json", '{"ok":true}']);
    expect(answers[2]).toEqual([502, "text/plain", "bad gateway"]);
  });

  test("stream-cut: the body stops halfway without streaming; the stream ends early", async () => {
    const server = await start({ script: [{ fault: "stream-cut" }, { fault: "stream-cut" }] });
    const cut = await rejection(api.create(openAIFor(server)));
    expect(cut).toMatchObject({ name: "TypeError", message: "terminated" });
    const streamed = await rejection(
      Promise.resolve(api.stream(openAIFor(server))).then((value) => {
        // Reference §0 item 5: a cut Responses stream resolves, unfinished.
        if ("status" in value && value.status === "in_progress") throw new Error("unfinished");
        return value;
      }),
    );
    expect((streamed as Error).message).toMatch(
      /^(unfinished|missing finish_reason for choice 0)$/,
    );
  });

  test("a native step of the other protocol gets a 500 naming the mismatch", async () => {
    const other: StepResult =
      api.name === "responses" ? { message: { content: "hi" } } : { output: [] };
    const server = await start({ script: [other] });
    const error = await openAIRejection(api.create(openAIFor(server)));
    expect(error.status).toBe(500);
    expect(error.message).toMatch(
      /cannot answer the (Responses|Chat Completions) API; a neutral step/,
    );
  });
});

describe("auth, routes and the request log", () => {
  test("no Bearer token: 401 invalid_api_key; with a key set, a wrong one is named masked", async () => {
    const server = await start({ key: "sk-right-key-0123456789", script: [ANSWER] });
    const none = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify(CHAT),
    });
    expect(none.status).toBe(401);
    expect(none.headers.get("x-request-id")).toBe("req_1");
    expect((await json(none)).error).toMatchObject({
      type: "invalid_request_error",
      code: "invalid_api_key",
      param: null,
    });
    const wrong = await openAIRejection(
      openAIFor(server, { apiKey: "sk-wrong-key-abcdefghijwxyz" }).responses.create(RESPONSES),
    );
    expect(wrong).toBeInstanceOf(AuthenticationError);
    expect(wrong.error).toEqual({
      message:
        "Incorrect API key provided: sk-wrong***************wxyz. You can find your API key at https://platform.openai.com/account/api-keys.",
      type: "invalid_request_error",
      param: null,
      code: "invalid_api_key",
    });
    await openAIFor(server, { apiKey: "sk-right-key-0123456789" }).responses.create(RESPONSES);
    expect(server.requests().map((r) => r.verdict)).toEqual([
      expect.objectContaining({ accepted: false, status: 401 }),
      expect.objectContaining({ accepted: false, status: 401 }),
      { accepted: true },
    ]);
    expect(server.requests()[2]?.headers.authorization).toBeUndefined();
  });

  test("another method gets OpenAI's 404; a body that is not JSON a 400; neither uses a step", async () => {
    const server = await start({ script: [ANSWER] });
    const get = await fetch(`${server.url}/v1/responses`, {
      headers: { authorization: "Bearer k" },
    });
    expect(get.status).toBe(404);
    expect((await json(get)).error.message).toBe("Invalid URL (GET /v1/responses)");
    const bad = await fetch(`${server.url}/v1/responses`, {
      method: "POST",
      headers: { authorization: "Bearer k" },
      body: "{",
    });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error.message).toMatch(
      /^We could not parse the JSON body of your request/,
    );
    await openAIFor(server).responses.create(RESPONSES);
  });

  test("one script and one log across the three APIs; reset forgets stored responses", async () => {
    const server = await start({ script: [ANSWER, TWO_CALLS, ANSWER] });
    await clientFor(server).messages.create({
      model: "m",
      max_tokens: 50,
      messages: [{ role: "user", content: "hi" }],
    });
    const first = await openAIFor(server).responses.create(RESPONSES);
    await openAIFor(server).chat.completions.create(CHAT);
    expect(server.requests().map((r) => [r.api, r.requestId])).toEqual([
      ["messages", "req_1"],
      ["responses", "req_2"],
      ["chat", "req_3"],
    ]);
    const listed = await json(await fetch(`${server.controlUrl}/requests`));
    expect(listed.map((r: { api: string }) => r.api)).toEqual(["messages", "responses", "chat"]);
    await fetch(`${server.controlUrl}/reset`, { method: "POST" });
    server.script([ANSWER]);
    const error = await openAIRejection(
      openAIFor(server).responses.create({ ...RESPONSES, previous_response_id: first.id }),
    );
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.code).toBe("previous_response_not_found");
  });

  test("a Responses or Chat step scripted for the Messages API gets a 500", async () => {
    const server = await start({ script: [{ output: [] }] });
    const error = await rejection(
      clientFor(server).messages.create({
        model: "m",
        max_tokens: 5,
        messages: [{ role: "user", content: "hi" }],
      }),
    );
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect((error as Error).message).toContain("cannot answer the Messages API");
  });

  test("the deepseek flavour serves chat at / and /v1, and no Responses API", async () => {
    const server = await start({ flavour: "deepseek", script: [ANSWER, ANSWER] });
    const bare = new OpenAI({ baseURL: server.url, apiKey: "sk-ds", maxRetries: 0 });
    await bare.chat.completions.create({ ...CHAT, model: "deepseek-v4-flash" });
    await openAIFor(server).chat.completions.create({ ...CHAT, model: "deepseek-v4-flash" });
    const responses = await rejection(openAIFor(server).responses.create(RESPONSES));
    expect(responses).toBeInstanceOf(NotFoundError);
    expect(server.requests().map((r) => [r.api, r.path])).toEqual([
      ["chat", "/chat/completions"],
      ["chat", "/v1/chat/completions"],
      ["messages", "/v1/responses"],
    ]);
  });
});

describe("the neutral form", () => {
  // The same conversation, read back from each API's reply: text, calls and how the turn ended.
  type Turn = { text: string; calls: { name: string; input: unknown }[]; stop: string };

  test("one script played to all three APIs gives the same conversation", async () => {
    const script: ReplyStep[] = [
      TWO_CALLS,
      { content: [{ type: "text", text: "Half an ans" }], stop_reason: "max_tokens" },
      ANSWER,
    ];
    const stops: Record<string, string> = {
      end_turn: "end_turn",
      tool_use: "tool_use",
      max_tokens: "max_tokens",
      stop: "end_turn",
      tool_calls: "tool_use",
      length: "max_tokens",
      completed: "end_turn",
      incomplete: "max_tokens",
    };
    const server = await start();
    const messages: Turn[] = [];
    server.script(script);
    for (const _ of script) {
      const reply = await clientFor(server).messages.create({
        model: "m",
        max_tokens: 50,
        messages: [{ role: "user", content: "hi" }],
      });
      messages.push({
        text: reply.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join(""),
        calls: reply.content.flatMap((b) =>
          b.type === "tool_use" ? [{ name: b.name, input: b.input }] : [],
        ),
        stop: stops[reply.stop_reason ?? ""] ?? "",
      });
    }
    const responses: Turn[] = [];
    server.script(script);
    for (const _ of script) {
      const reply = await openAIFor(server).responses.create(RESPONSES);
      const calls = reply.output.flatMap((item) =>
        item.type === "function_call"
          ? [{ name: item.name, input: JSON.parse(item.arguments) }]
          : [],
      );
      responses.push({
        text: reply.output_text,
        calls,
        stop:
          reply.status === "completed" && calls.length > 0
            ? "tool_use"
            : (stops[reply.status ?? ""] ?? ""),
      });
    }
    const chat: Turn[] = [];
    server.script(script);
    for (const _ of script) {
      const choice = (await openAIFor(server).chat.completions.create(CHAT)).choices[0];
      chat.push({
        text: choice?.message.content ?? "",
        calls: (choice?.message.tool_calls ?? []).flatMap((call) =>
          call.type === "function"
            ? [{ name: call.function.name, input: JSON.parse(call.function.arguments) }]
            : [],
        ),
        stop: stops[choice?.finish_reason ?? ""] ?? "",
      });
    }
    expect(messages[0]).toEqual({
      text: "Let me read both files.",
      calls: [
        { name: "read_file", input: { path: "a.txt" } },
        { name: "read_file", input: { path: "b.txt" } },
      ],
      stop: "tool_use",
    });
    expect(messages.map((turn) => turn.stop)).toEqual(["tool_use", "max_tokens", "end_turn"]);
    expect(responses).toEqual(messages);
    expect(chat).toEqual(messages);
  });
});

describe("answers that are not the API, on the OpenAI endpoints too", () => {
  const post = (url: string, path: string, body: object) =>
    fetch(`${url}${path}`, {
      method: "POST",
      headers: { authorization: "Bearer sk-test", "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  test.each([
    ["/v1/responses", RESPONSES, "output"],
    ["/v1/chat/completions", CHAT, "choices"],
  ])("%s: a page, other JSON, a string where the list goes, a stream", async (path, body, list) => {
    const server = await start({
      script: [
        { fault: "html-page" },
        { fault: "not-a-message" },
        { fault: "string-content" },
        { fault: "event-stream" },
        { raw: { status: 502, headers: { "content-type": "text/plain" }, body: "Bad Gateway" } },
      ],
    });
    const page = await post(server.url, path, body);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await page.text()).toContain("Sign in");
    expect(await json(await post(server.url, path, body))).toEqual({ ok: true });
    expect(typeof (await json(await post(server.url, path, body)))[list]).toBe("string");
    const stream = await post(server.url, path, body);
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(await stream.text()).toMatch(/^(event|data): /);
    const raw = await post(server.url, path, body);
    expect([raw.status, await raw.text()]).toEqual([502, "Bad Gateway"]);
  });
});

// Every validation rule of the OpenAI endpoints (reference §8, rules 1-18) through the real SDK:
// the broken request gets the exact status, message, param and code, and the corrected one passes.
import { BadRequestError, NotFoundError } from "openai";
import { describe, expect, test } from "vitest";
import type { FakeServer, FakeServerOptions } from "../src/server.ts";
import type { ReplyStep } from "../src/server-steps.ts";
import { openAIFor, openAIRejection, runnableReadFile, start } from "./support.ts";

// biome-ignore lint/suspicious/noExplicitAny: the broken bodies are broken on purpose.
type Loose = any;

interface Expected {
  status?: number;
  message: string;
  param: string | null;
  code: string | null;
}

const TEXT: ReplyStep = { content: [{ type: "text", text: "Done." }] };
const TWO_CALLS: ReplyStep = {
  content: [
    { type: "tool_use", name: "read_file", input: { path: "a.txt" } },
    { type: "tool_use", name: "read_file", input: { path: "b.txt" } },
  ],
};

// The broken request gets exactly `expected` (and uses no step); the corrected one is answered.
async function rejectsThenAccepts(
  server: FakeServer,
  send: (body: Loose) => Promise<unknown>,
  bad: Loose,
  good: Loose,
  expected: Expected,
): Promise<void> {
  const before = server.requests().length;
  server.script([TEXT]);
  const error = await openAIRejection(send(bad));
  expect(error.status).toBe(expected.status ?? 400);
  expect(error.error).toEqual({
    message: expected.message,
    type: "invalid_request_error",
    param: expected.param,
    code: expected.code,
  });
  expect(error.message).toBe(`${expected.status ?? 400} ${expected.message}`);
  const record = server.requests()[before];
  expect(record?.verdict).toEqual({
    accepted: false,
    status: expected.status ?? 400,
    message: expected.message,
    ...(expected.param === null ? {} : { location: expected.param }),
  });
  await send(good);
  expect(server.requests()[before + 1]?.verdict).toEqual({ accepted: true });
}

async function setUp(options: FakeServerOptions = {}) {
  const server = await start(options);
  const client = openAIFor(server);
  return {
    server,
    client,
    chat: (body: Loose) => client.chat.completions.create(body),
    responses: (body: Loose) => client.responses.create(body),
  };
}

const user = (content: unknown) => ({ role: "user", content });
const call = (id: string, args: unknown = '{"path":"a.txt"}') => ({
  id,
  type: "function",
  function: { name: "read_file", arguments: args },
});
const asks = (...ids: string[]) => ({
  role: "assistant",
  content: null,
  tool_calls: ids.map((id) => call(id)),
});
const answer = (id: string) => ({ role: "tool", tool_call_id: id, content: "alpha" });
const chatBody = (messages: unknown[], extra: Loose = {}) => ({
  model: "gpt-4.1",
  messages,
  ...extra,
});

const C1 =
  "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ";
const C2 =
  "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";

describe("Chat Completions rules", () => {
  const cases: { name: string; bad: Loose; good: Loose; expected: Expected }[] = [
    {
      name: "C-1: a call without its tool message, then a user message",
      bad: chatBody([user("hi"), asks("call_A", "call_B"), answer("call_A"), user("and?")]),
      good: chatBody([user("hi"), asks("call_A", "call_B"), answer("call_A"), answer("call_B")]),
      expected: { message: `${C1}call_B`, param: "messages.[3].role", code: null },
    },
    {
      name: "C-1: the request ends on the assistant's calls (ids joined)",
      bad: chatBody([user("hi"), asks("call_A", "call_B")]),
      good: chatBody([user("hi"), asks("call_A", "call_B"), answer("call_B"), answer("call_A")]),
      expected: { message: `${C1}call_A, call_B`, param: "messages.[1].role", code: null },
    },
    {
      name: "C-2: a tool message with no calls before it",
      bad: chatBody([user("hi"), answer("call_A")]),
      good: chatBody([user("hi"), asks("call_A"), answer("call_A")]),
      expected: { message: C2, param: "messages.[1].role", code: null },
    },
    {
      name: "C-2: a tool message answering a call that was not made",
      bad: chatBody([user("hi"), asks("call_A"), answer("call_A"), answer("call_Z")]),
      good: chatBody([user("hi"), asks("call_A"), answer("call_A")]),
      expected: { message: C2, param: "messages.[3].role", code: null },
    },
    {
      name: "C-3: a tool message without tool_call_id",
      bad: chatBody([user("hi"), asks("call_A"), { role: "tool", content: "alpha" }]),
      good: chatBody([user("hi"), asks("call_A"), answer("call_A")]),
      expected: {
        message:
          "Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'.",
        param: "messages.[2].tool_call_id",
        code: null,
      },
    },
    {
      name: "C-4: arguments as an object",
      bad: chatBody([
        user("hi"),
        { role: "assistant", tool_calls: [call("call_A", { path: "a.txt" })] },
        answer("call_A"),
      ]),
      // Omitted content and arguments that are not JSON both pass, as at OpenAI.
      good: chatBody([
        user("hi"),
        { role: "assistant", tool_calls: [call("call_A", "{not json")] },
        answer("call_A"),
      ]),
      expected: {
        message:
          "Invalid type for 'messages[1].tool_calls[0].function.arguments': expected a string, but got an object instead.",
        param: "messages[1].tool_calls[0].function.arguments",
        code: "invalid_type",
      },
    },
    {
      name: "C-5: an unknown role",
      bad: chatBody([{ role: "yyy", content: "hi" }]),
      good: chatBody([{ role: "developer", content: "be brief" }, user("hi")]),
      expected: {
        message:
          "Invalid value: 'yyy'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.",
        param: "messages[0].role",
        code: "invalid_value",
      },
    },
    {
      name: "C-6: null content on a user message",
      bad: chatBody([user(null)]),
      good: chatBody([user([{ type: "text", text: "hi" }])]),
      expected: {
        message: "Invalid value for 'content': expected a string, got null.",
        param: "messages.[0].content",
        code: null,
      },
    },
    {
      name: "C-6: null content on an assistant message without calls",
      bad: chatBody([user("hi"), { role: "assistant", content: null }, user("again")]),
      good: chatBody([user("hi"), { role: "assistant", content: "hello" }, user("again")]),
      expected: {
        message: "Invalid value for 'content': expected a string, got null.",
        param: "messages.[1].content",
        code: null,
      },
    },
    {
      name: "C-7: no messages",
      bad: { model: "gpt-4.1" },
      good: chatBody([user("hi")]),
      expected: {
        message: "Missing required parameter: 'messages'.",
        param: "messages",
        code: "missing_required_parameter",
      },
    },
    {
      name: "C-7 (nested form, ours): a message without content",
      bad: chatBody([{ role: "user" }]),
      good: chatBody([user("hi")]),
      expected: {
        message: "Missing required parameter: 'messages[0].content'.",
        param: "messages[0].content",
        code: "missing_required_parameter",
      },
    },
    {
      name: "C-8: no model",
      bad: { messages: [user("hi")] },
      good: chatBody([user("hi")]),
      expected: { message: "you must provide a model parameter", param: null, code: null },
    },
    {
      name: "C-9: max_tokens to a reasoning model",
      bad: { ...chatBody([user("hi")]), model: "o3", max_tokens: 100 },
      good: { ...chatBody([user("hi")]), model: "o3", max_completion_tokens: 100 },
      expected: {
        message:
          "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        param: "max_tokens",
        code: "unsupported_parameter",
      },
    },
    {
      name: "C-10: parallel_tool_calls without tools",
      bad: chatBody([user("hi")], { parallel_tool_calls: false }),
      good: chatBody([user("hi")], {
        parallel_tool_calls: false,
        tools: [{ type: "function", function: { name: "read_file" } }],
      }),
      expected: {
        message:
          "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified.",
        param: "parallel_tool_calls",
        code: "invalid_value",
      },
    },
    {
      name: "C-11: a limit below its minimum",
      bad: chatBody([user("hi")], { max_tokens: -1 }),
      good: chatBody([user("hi")], { max_tokens: 1 }),
      expected: {
        message:
          "Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got -1 instead.",
        param: "max_tokens",
        code: "integer_below_min_value",
      },
    },
    {
      name: "empty messages (INFERRED text)",
      bad: chatBody([]),
      good: chatBody([user("hi")]),
      expected: {
        message:
          "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
        param: "messages",
        code: "empty_array",
      },
    },
    {
      name: "a Responses-shaped tool (ours)",
      bad: chatBody([user("hi")], {
        tools: [{ type: "function", name: "read_file", parameters: {} }],
      }),
      good: chatBody([user("hi")], {
        tools: [{ type: "function", function: { name: "read_file", parameters: {} } }],
      }),
      expected: {
        message: "Missing required parameter: 'tools[0].function'.",
        param: "tools[0].function",
        code: "missing_required_parameter",
      },
    },
  ];

  test.each(cases)("$name", async ({ bad, good, expected }) => {
    const { server, chat } = await setUp();
    await rejectsThenAccepts(server, chat, bad, good, expected);
  });
});

describe("Responses rules", () => {
  const fc = (callId: string, id?: string) => ({
    type: "function_call",
    ...(id === undefined ? {} : { id }),
    call_id: callId,
    name: "read_file",
    arguments: '{"path":"a.txt"}',
  });
  const out = (callId: string) => ({
    type: "function_call_output",
    call_id: callId,
    output: "alpha",
  });
  const body = (input: unknown, extra: Loose = {}) => ({ model: "gpt-4.1", input, ...extra });

  const cases: { name: string; bad: Loose; good: Loose; expected: Expected }[] = [
    {
      name: "R-1: an output whose call is not in the input",
      bad: body([user("hi"), out("call_uelfkqtHfJDC4Btqeoozq82e")]),
      good: body([
        user("hi"),
        fc("call_uelfkqtHfJDC4Btqeoozq82e"),
        out("call_uelfkqtHfJDC4Btqeoozq82e"),
      ]),
      expected: {
        message:
          "No tool call found for function call output with call_id call_uelfkqtHfJDC4Btqeoozq82e.",
        param: "input",
        code: null,
      },
    },
    {
      name: "R-1: an output before its call",
      bad: body([user("hi"), out("call_A"), fc("call_A")]),
      good: body([user("hi"), fc("call_A"), out("call_A")]),
      expected: {
        message: "No tool call found for function call output with call_id call_A.",
        param: "input",
        code: null,
      },
    },
    {
      name: "R-2: a call without its output, stateless",
      bad: body([user("hi"), fc("call_A"), fc("call_B"), out("call_A"), user("and?")]),
      good: body([user("hi"), fc("call_A"), fc("call_B"), out("call_B"), out("call_A")]),
      expected: {
        message: "No tool output found for function call call_B.",
        param: "input",
        code: null,
      },
    },
    {
      name: "R-6: an output without call_id",
      bad: body([user("hi"), fc("call_A"), { type: "function_call_output", output: "alpha" }]),
      good: body([user("hi"), fc("call_A"), out("call_A")]),
      expected: {
        message: "Missing required parameter: 'input[2].call_id'.",
        param: "input[2].call_id",
        code: "missing_required_parameter",
      },
    },
    {
      name: "R-6: an output without output",
      bad: body([user("hi"), fc("call_A"), { type: "function_call_output", call_id: "call_A" }]),
      good: body([user("hi"), fc("call_A"), out("call_A")]),
      expected: {
        message: "Missing required parameter: 'input[2].output'.",
        param: "input[2].output",
        code: "missing_required_parameter",
      },
    },
    {
      name: "R-6: a message whose content is null",
      bad: body([user("hi"), { role: "assistant", content: null }]),
      good: body([user("hi"), { role: "assistant", content: "" }, user("again")]),
      expected: {
        message:
          "Invalid type for 'input[1].content': expected one of an array of objects or string, but got null instead.",
        param: "input[1].content",
        code: "invalid_type",
      },
    },
    {
      name: "R-10: max_output_tokens below 16",
      bad: body("hi", { max_output_tokens: 10 }),
      good: body("hi", { max_output_tokens: 16 }),
      expected: {
        message:
          "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 10 instead.",
        param: "max_output_tokens",
        code: "integer_below_min_value",
      },
    },
    {
      name: "R-11: a reasoning item id with the wrong prefix",
      bad: body([
        user("hi"),
        { type: "reasoning", id: "item_df7e40c3f04fc8ade5c3800e", summary: [] },
        fc("call_A"),
        out("call_A"),
      ]),
      good: body([user("hi"), fc("call_A"), out("call_A")]),
      expected: {
        message:
          "Invalid 'input[1].id': 'item_df7e40c3f04fc8ade5c3800e'. Expected an ID that begins with 'rs'.",
        param: "input[1].id",
        code: "invalid_value",
      },
    },
    {
      name: "R-12: a Chat-style tool message",
      bad: body([
        user("hi"),
        fc("call_A"),
        { role: "tool", tool_call_id: "call_A", content: "alpha" },
      ]),
      good: body([user("hi"), fc("call_A"), out("call_A")]),
      expected: {
        message:
          "Invalid value: 'tool'. Supported values are: 'assistant', 'system', 'developer', and 'user'.",
        param: "input[2]",
        code: "invalid_value",
      },
    },
    {
      name: "no model (ours)",
      bad: { input: "hi" },
      good: body("hi"),
      expected: {
        message: "Missing required parameter: 'model'.",
        param: "model",
        code: "missing_required_parameter",
      },
    },
    {
      name: "a Chat-shaped tool (INFERRED text)",
      bad: body("hi", {
        tools: [{ type: "function", function: { name: "read_file", parameters: {} } }],
      }),
      good: body("hi", {
        tools: [{ type: "function", name: "read_file", parameters: {}, strict: false }],
      }),
      expected: {
        message: "Missing required parameter: 'tools[0].name'.",
        param: "tools[0].name",
        code: "missing_required_parameter",
      },
    },
    {
      name: "R-9: an unknown previous_response_id",
      bad: body("hi", { previous_response_id: "resp_0f09a275409xxx" }),
      good: body("hi"),
      expected: {
        message: "Previous response with id 'resp_0f09a275409xxx' not found.",
        param: "previous_response_id",
        code: "previous_response_not_found",
      },
    },
  ];

  test.each(cases)("$name", async ({ bad, good, expected }) => {
    const { server, responses } = await setUp();
    await rejectsThenAccepts(server, responses, bad, good, expected);
  });

  test("R-2 and R-8 with previous_response_id: every call answered, no item sent twice", async () => {
    const { server, client, responses } = await setUp({ script: [TWO_CALLS] });
    const first = await client.responses.create(body("read both"));
    expect(first.output.map((item) => item.id)).toEqual(["fc_1", "fc_2"]);
    await rejectsThenAccepts(
      server,
      responses,
      body([out("call_1")], { previous_response_id: first.id }),
      body([out("call_1"), out("call_2")], { previous_response_id: first.id }),
      { message: "No tool output found for function call call_2.", param: "input", code: null },
    );
    await rejectsThenAccepts(
      server,
      responses,
      body([fc("call_1", "fc_1"), fc("call_2", "fc_2"), out("call_1"), out("call_2")], {
        previous_response_id: first.id,
      }),
      body([out("call_1"), out("call_2")], { previous_response_id: first.id }),
      {
        message:
          "Duplicate item found with id fc_1. Remove duplicate items from your input and try again.",
        param: "input",
        code: null,
      },
    );
  });

  test("R-8 within one input, and R-9 for a response made with store: false", async () => {
    const { server, client, responses } = await setUp({ script: [TWO_CALLS] });
    const unstored = await client.responses.create(body("read both", { store: false }));
    await rejectsThenAccepts(
      server,
      responses,
      body([out("call_1"), out("call_2")], { previous_response_id: unstored.id }),
      body([user("hi"), fc("call_1"), fc("call_2"), out("call_1"), out("call_2")], {
        store: false,
      }),
      {
        message: `Previous response with id '${unstored.id}' not found.`,
        param: "previous_response_id",
        code: "previous_response_not_found",
      },
    );
    server.script([TWO_CALLS]);
    const stored = await client.responses.create(body("read both"));
    const calls = stored.output as Loose[];
    await rejectsThenAccepts(
      server,
      responses,
      body([user("hi"), calls[0], calls[0], calls[1], out("call_3"), out("call_4")]),
      body([user("hi"), calls[0], calls[1], out("call_3"), out("call_4")]),
      {
        message: `Duplicate item found with id ${calls[0].id}. Remove duplicate items from your input and try again.`,
        param: "input",
        code: null,
      },
    );
  });

  test("R-7: an item of a store: false response, replayed by id, is 404; without its id it passes", async () => {
    const { server, client, responses } = await setUp({ script: [TWO_CALLS] });
    const unstored = await client.responses.create(body("read both", { store: false }));
    const [a, b] = unstored.output as Loose[];
    const strip = ({ id: _id, ...item }: Loose) => item;
    await rejectsThenAccepts(
      server,
      responses,
      body([user("read both"), a, b, out("call_1"), out("call_2")], { store: false }),
      body([user("read both"), strip(a), strip(b), out("call_1"), out("call_2")], { store: false }),
      {
        status: 404,
        message:
          "Item with id 'fc_1' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.",
        param: "input",
        code: null,
      },
    );
    const error = await openAIRejection(
      responses(body([user("x"), { ...fc("call_9", "fc_never"), id: "fc_never" }, out("call_9")])),
    );
    expect(error).toBeInstanceOf(NotFoundError);
  });

  test("item_reference stands for a stored item: a round by reference passes; an unknown one is 404", async () => {
    const { server, client, responses } = await setUp({ script: [TWO_CALLS] });
    await client.responses.create(body("read both"));
    const ref = (id: string) => ({ type: "item_reference", id });
    await rejectsThenAccepts(
      server,
      responses,
      body([user("read both"), ref("fc_1"), ref("fc_9"), out("call_1")]),
      body([user("read both"), ref("fc_1"), ref("fc_2"), out("call_1"), out("call_2")]),
      {
        status: 404,
        message:
          "Item with id 'fc_9' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.",
        param: "input",
        code: null,
      },
    );
  });

  describe("reasoning models", () => {
    const gpt5 = (input: unknown, extra: Loose = {}) => ({ model: "gpt-5", input, ...extra });

    test("R-3: a reasoning item without the item it produced", async () => {
      const { server, client, responses } = await setUp({ script: [TWO_CALLS] });
      const first = await client.responses.create(gpt5("read both", { store: false }));
      const [rs, a, b] = first.output as Loose[];
      expect([rs.type, rs.id, typeof rs.encrypted_content]).toEqual([
        "reasoning",
        "rs_1",
        "string",
      ]);
      // Unstored, the reasoning item still passes: it carries its encrypted_content.
      await rejectsThenAccepts(
        server,
        responses,
        gpt5([user("read both"), rs, out("call_1")], { store: false }),
        gpt5(
          [
            user("read both"),
            rs,
            { ...a, id: undefined },
            { ...b, id: undefined },
            out("call_1"),
            out("call_2"),
          ],
          {
            store: false,
          },
        ),
        {
          message:
            "Item 'rs_1' of type 'reasoning' was provided without its required following item.",
          param: "input",
          code: null,
        },
      );
    });

    test("R-4: a function call replayed with its id but without its reasoning item", async () => {
      const { server, client, responses } = await setUp({ script: [TWO_CALLS] });
      const first = await client.responses.create(gpt5("read both"));
      const [rs, a, b] = first.output as Loose[];
      await rejectsThenAccepts(
        server,
        responses,
        gpt5([user("read both"), a, b, out("call_1"), out("call_2")]),
        gpt5([user("read both"), rs, a, b, out("call_1"), out("call_2")]),
        {
          message:
            "Item 'fc_1' of type 'function_call' was provided without its required 'reasoning' item: 'rs_1'.",
          param: "input",
          code: null,
        },
      );
      // Without the ids (the other accepted way), the reasoning item may go too.
      server.script([TEXT]);
      const strip = ({ id: _id, ...item }: Loose) => item;
      await client.responses.create(
        gpt5([user("read both"), strip(a), strip(b), out("call_1"), out("call_2")]),
      );
    });

    test("R-5: a message replayed with its id but without its reasoning item", async () => {
      const { server, client, responses } = await setUp({ script: [TEXT] });
      const first = await client.responses.create(gpt5("hello"));
      const [rs, message] = first.output as Loose[];
      expect(message.id).toBe("msg_1");
      await rejectsThenAccepts(
        server,
        responses,
        gpt5([user("hello"), message, user("again")]),
        gpt5([user("hello"), rs, message, user("again")]),
        {
          message:
            "Item 'msg_1' of type 'message' was provided without its required 'reasoning' item: 'rs_1'.",
          param: "input",
          code: null,
        },
      );
    });
  });
});

describe("DeepSeek's OpenAI-compatible flavour", () => {
  const REASONING = "The `reasoning_content` in the thinking mode must be passed back to the API.";
  const ds = (messages: unknown[], extra: Loose = {}) => ({
    model: "deepseek-v4-flash",
    messages,
    ...extra,
  });

  test("replies carry reasoning_content on tool turns, call_00_ ids and a UUID", async () => {
    const { client } = await setUp({ flavour: "deepseek", script: [TWO_CALLS, TWO_CALLS] });
    const reply = await client.chat.completions.create(ds([user("read both")]));
    expect(reply.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/);
    const message = reply.choices[0]?.message as Loose;
    expect(message.reasoning_content).toBe("To answer this I will call read_file.");
    expect(message.tool_calls.map((c: { id: string }) => c.id)).toEqual([
      "call_00_000000000000000000000001",
      "call_01_000000000000000000000002",
    ]);
    expect(message.tool_calls[0].id).toMatch(/^call_\d\d_[A-Za-z0-9]{24}$/);
    // The stream carries the thought as delta.reasoning_content, after a keep-alive comment.
    const streamed = await client.chat.completions
      .stream(ds([user("read both")]))
      .finalChatCompletion();
    expect(streamed.choices[0]?.message.tool_calls).toHaveLength(2);
  });

  test("rule 17: a tool turn replayed without reasoning_content; fine with it, or thinking off", async () => {
    const { server, chat } = await setUp({ flavour: "deepseek" });
    const calls = [call("call_00_000000000000000000000001")];
    const turn = { role: "assistant", content: null, tool_calls: calls };
    const history = (assistant: unknown) =>
      ds([user("read a"), assistant, answer("call_00_000000000000000000000001")]);
    await rejectsThenAccepts(
      server,
      chat,
      history(turn),
      history({ ...turn, reasoning_content: "" }),
      { message: REASONING, param: null, code: "invalid_request_error" },
    );
    server.script([TEXT]);
    await chat({ ...history(turn), thinking: { type: "disabled" } });
  });

  test("rule 18: DeepSeek's pairing texts", async () => {
    const { server, chat } = await setUp({ flavour: "deepseek" });
    const turn = { ...asks("call_A", "call_B"), reasoning_content: "thinking" };
    await rejectsThenAccepts(
      server,
      chat,
      ds([user("hi"), turn, answer("call_A")]),
      ds([user("hi"), turn, answer("call_A"), answer("call_B")]),
      {
        message:
          "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. (insufficient tool messages following tool_calls message)",
        param: null,
        code: "invalid_request_error",
      },
    );
    await rejectsThenAccepts(server, chat, ds([user("hi"), answer("call_A")]), ds([user("hi")]), {
      message:
        "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'",
      param: null,
      code: "invalid_request_error",
    });
  });

  test("runTools() fails against thinking mode: it drops reasoning_content (reference §0 item 8)", async () => {
    const { server, client } = await setUp({ flavour: "deepseek", script: [TWO_CALLS, TEXT] });
    const runner = client.chat.completions.runTools({
      ...ds([user("read both")]),
      tools: [runnableReadFile(() => "alpha")],
    } as Loose);
    const error = await openAIRejection(runner.finalContent());
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.error).toMatchObject({ message: REASONING });
    expect(server.requests().map((r) => r.verdict.accepted)).toEqual([true, false]);
  });
});

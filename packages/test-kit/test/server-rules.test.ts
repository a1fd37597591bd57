// The protocol rules of the fake server, through the real SDK: every rule the validator enforces
// gets a violating request (the service's exact 400) and its corrected twin (200); then the
// leniency list, requests in the shapes of recorded real traffic, and the DeepSeek flavour.
import type Anthropic from "@anthropic-ai/sdk";
import {
  AuthenticationError,
  BadRequestError,
  InternalServerError,
  NotFoundError,
} from "@anthropic-ai/sdk";
import { describe, expect, test } from "vitest";
import { text, thinking } from "../src/builders.ts";
import type { RecordedRequest } from "../src/server.ts";
import type { ReplyStep } from "../src/server-steps.ts";
import { signThinking, verifyThinking } from "../src/signature.ts";
import {
  apiRejection,
  assistant,
  type Body,
  clientFor,
  DEEPSEEK_THINKING,
  missingResults,
  readFileCall,
  request,
  start,
  toolResult,
  user,
} from "./support.ts";

const ANSWER: ReplyStep = { content: [{ type: "text", text: "The file says hello." }] };
const QUESTION = user("What is in notes.txt?");
const READ = readFileCall("toolu_1");
const ROUND = [QUESTION, assistant([text("I will read it."), READ]), user([toolResult("toolu_1")])];
const SCHEMA = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
const ENABLED = { thinking: { type: "enabled", budget_tokens: 1024 } };

function without(value: object, field: string): Body {
  const { [field]: _, ...rest } = value as Body;
  return rest;
}

function withTool(tool: Body): Body {
  return request([QUESTION], { tools: [tool] });
}

// messages.create spreads its params into an object, so a body that is not an object can only
// go through the SDK's generic post.
function send(client: Anthropic, body: unknown): Promise<Anthropic.Message> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return client.post("/v1/messages", { body });
  }
  return client.messages.create(body as unknown as Anthropic.MessageCreateParamsNonStreaming);
}

interface RuleCase {
  rule: string;
  /** Where the service's text points; it opens the text as `<location>: `. */
  location?: string;
  text: string;
  body: unknown;
  fixed: unknown;
}

const RULES: RuleCase[] = [
  // The body and its required fields.
  {
    rule: "the body must be an object",
    text: "Input should be a valid dictionary",
    body: [request([QUESTION])],
    fixed: request([QUESTION]),
  },
  {
    rule: "model is required",
    location: "model",
    text: "Field required",
    body: without(request([QUESTION]), "model"),
    fixed: request([QUESTION]),
  },
  {
    rule: "model must be a string",
    location: "model",
    text: "Input should be a valid string",
    body: request([QUESTION], { model: 4 }),
    fixed: request([QUESTION]),
  },
  {
    rule: "max_tokens is required",
    location: "max_tokens",
    text: "Field required",
    body: without(request([QUESTION]), "max_tokens"),
    fixed: request([QUESTION]),
  },
  {
    rule: "max_tokens must be an integer",
    location: "max_tokens",
    text: "Input should be a valid integer",
    body: request([QUESTION], { max_tokens: "2048" }),
    fixed: request([QUESTION]),
  },
  {
    rule: "max_tokens must be at least 1",
    location: "max_tokens",
    text: "Input should be greater than or equal to 1",
    body: request([QUESTION], { max_tokens: 0 }),
    fixed: request([QUESTION], { max_tokens: 1 }),
  },
  {
    rule: "messages is required",
    location: "messages",
    text: "Field required",
    body: without(request([QUESTION]), "messages"),
    fixed: request([QUESTION]),
  },
  {
    rule: "messages must be a list",
    location: "messages",
    text: "Input should be a valid list",
    body: request("What is in notes.txt?"),
    fixed: request([QUESTION]),
  },
  {
    rule: "messages must not be empty",
    location: "messages",
    text: "at least one message is required",
    body: request([]),
    fixed: request([QUESTION]),
  },
  // The shape of messages and blocks.
  {
    rule: "a message must be an object",
    location: "messages.0",
    text: "Input should be a valid dictionary",
    body: request(["What is in notes.txt?"]),
    fixed: request([QUESTION]),
  },
  {
    rule: "a message needs a role",
    location: "messages.0.role",
    text: "Field required",
    body: request([{ content: "What is in notes.txt?" }]),
    fixed: request([QUESTION]),
  },
  {
    rule: "the role is user or assistant",
    location: "messages.2.role",
    text: "Input should be 'user' or 'assistant'",
    body: request([QUESTION, assistant("Which file?"), { role: "tool", content: "Be brief." }]),
    fixed: request([QUESTION, assistant("Which file?"), user("Be brief.")]),
  },
  {
    rule: "a message needs content",
    location: "messages.0.content",
    text: "Field required",
    body: request([{ role: "user" }]),
    fixed: request([QUESTION]),
  },
  {
    rule: "content is a string or a list",
    location: "messages.0.content",
    text: "Input should be a valid list",
    body: request([user(42)]),
    fixed: request([user("42")]),
  },
  {
    rule: "a block must be an object",
    location: "messages.0.content.0",
    text: "Input should be a valid dictionary",
    body: request([user(["What is in notes.txt?"])]),
    fixed: request([user([text("What is in notes.txt?")])]),
  },
  {
    rule: "a block needs a type",
    location: "messages.0.content.0.type",
    text: "Field required",
    body: request([user([{ text: "What is in notes.txt?" }])]),
    fixed: request([user([text("What is in notes.txt?")])]),
  },
  {
    rule: "a text block needs its text",
    location: "messages.0.content.0.text.text",
    text: "Field required",
    body: request([user([{ type: "text" }])]),
    fixed: request([user([text("What is in notes.txt?")])]),
  },
  {
    rule: "a tool_use needs an id",
    location: "messages.1.content.1.tool_use.id",
    text: "Field required",
    body: request([ROUND[0], assistant([text("I will read it."), without(READ, "id")]), ROUND[2]]),
    fixed: request(ROUND),
  },
  {
    rule: "a tool_use id matches the pattern (reference §3 rule 6)",
    location: "messages.1.content.1.tool_use.id",
    text: "String should match pattern '^[a-zA-Z0-9_-]+$'",
    body: request([
      QUESTION,
      assistant([text("I will read it."), { ...READ, id: "" }]),
      user([toolResult("")]),
    ]),
    fixed: request(ROUND),
  },
  {
    rule: "a tool_use needs a name",
    location: "messages.1.content.1.tool_use.name",
    text: "Field required",
    body: request([
      ROUND[0],
      assistant([text("I will read it."), without(READ, "name")]),
      ROUND[2],
    ]),
    fixed: request(ROUND),
  },
  {
    rule: "a tool_use needs its input",
    location: "messages.1.content.1.tool_use.input",
    text: "Field required",
    body: request([
      ROUND[0],
      assistant([text("I will read it."), without(READ, "input")]),
      ROUND[2],
    ]),
    fixed: request(ROUND),
  },
  {
    rule: "a tool_result needs a tool_use_id",
    location: "messages.2.content.0.tool_result.tool_use_id",
    text: "Field required",
    body: request([ROUND[0], ROUND[1], user([{ type: "tool_result", content: "hello" }])]),
    fixed: request(ROUND),
  },
  {
    rule: "a tool_result's tool_use_id matches the pattern",
    location: "messages.2.content.0.tool_result.tool_use_id",
    text: "String should match pattern '^[a-zA-Z0-9_-]+$'",
    body: request([ROUND[0], ROUND[1], user([toolResult("toolu.1")])]),
    fixed: request(ROUND),
  },
  {
    rule: "a tool_result's content is a string or a list",
    location: "messages.2.content.0.tool_result.content",
    text: "Input should be a valid list",
    body: request([ROUND[0], ROUND[1], user([toolResult("toolu_1", 42)])]),
    fixed: request([ROUND[0], ROUND[1], user([toolResult("toolu_1", "42")])]),
  },
  {
    rule: "a thinking block needs its text",
    location: "messages.1.content.0.thinking.thinking",
    text: "Field required",
    body: request([
      QUESTION,
      assistant([{ type: "thinking", signature: "c2ln" }, text("It says hello.")]),
      user("Thanks."),
    ]),
    fixed: request([
      QUESTION,
      assistant([thinking("Read it."), text("It says hello.")]),
      user("Thanks."),
    ]),
  },
  {
    rule: "a thinking block needs its signature",
    location: "messages.1.content.0.thinking.signature",
    text: "Field required",
    body: request([
      QUESTION,
      assistant([{ type: "thinking", thinking: "Read it." }, text("It says hello.")]),
      user("Thanks."),
    ]),
    fixed: request([
      QUESTION,
      assistant([thinking("Read it."), text("It says hello.")]),
      user("Thanks."),
    ]),
  },
  {
    rule: "a redacted_thinking block needs its data",
    location: "messages.1.content.0.redacted_thinking.data",
    text: "Field required",
    body: request([
      QUESTION,
      assistant([{ type: "redacted_thinking" }, text("It says hello.")]),
      user("Thanks."),
    ]),
    fixed: request([
      QUESTION,
      assistant([{ type: "redacted_thinking", data: "EmwKAhgB" }, text("It says hello.")]),
      user("Thanks."),
    ]),
  },
  // Tool definitions.
  {
    rule: "tools is a list",
    location: "tools",
    text: "Input should be a valid list",
    body: request([QUESTION], { tools: "read_file" }),
    fixed: withTool({ name: "read_file", input_schema: SCHEMA }),
  },
  {
    rule: "a tool is an object",
    location: "tools.0",
    text: "Input should be a valid dictionary",
    body: request([QUESTION], { tools: ["read_file"] }),
    fixed: withTool({ name: "read_file", input_schema: SCHEMA }),
  },
  {
    rule: "a tool needs a name",
    location: "tools.0.custom.name",
    text: "Field required",
    body: withTool({ input_schema: SCHEMA }),
    fixed: withTool({ name: "read_file", input_schema: SCHEMA }),
  },
  {
    rule: "a tool name matches the pattern",
    location: "tools.0.custom.name",
    text: "String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
    body: withTool({ name: "files.read", input_schema: SCHEMA }),
    fixed: withTool({ name: "files_read", input_schema: SCHEMA }),
  },
  {
    rule: "a tool needs an input_schema",
    location: "tools.0.custom.input_schema",
    text: "Field required",
    body: withTool({ name: "read_file" }),
    fixed: withTool({ name: "read_file", input_schema: SCHEMA }),
  },
  {
    rule: "an input_schema is an object",
    location: "tools.0.custom.input_schema",
    text: "Input should be a valid dictionary",
    body: withTool({ name: "read_file", input_schema: "object" }),
    fixed: withTool({ name: "read_file", input_schema: SCHEMA }),
  },
  {
    rule: "an input_schema needs a type",
    location: "tools.0.custom.input_schema.type",
    text: "Field required",
    body: withTool({ name: "read_file", input_schema: without(SCHEMA, "type") }),
    fixed: withTool({ name: "read_file", input_schema: SCHEMA }),
  },
  {
    rule: "an input_schema's type is object",
    location: "tools.0.custom.input_schema.type",
    text: "Input should be 'object'",
    body: withTool({ name: "read_file", input_schema: { ...SCHEMA, type: "array" } }),
    fixed: withTool({ name: "read_file", input_schema: SCHEMA }),
  },
  // The conversation rules, after consecutive same-role messages are merged.
  {
    rule: "only a final assistant message may be empty (rule 9)",
    location: "messages.1",
    text: "all messages must have non-empty content except for the optional final assistant message",
    body: request([QUESTION, assistant([]), user("Hello?")]),
    fixed: request([QUESTION, assistant("Which folder?"), user("Hello?")]),
  },
  {
    rule: "a text block is not empty (rule 7)",
    location: "messages",
    text: "text content blocks must be non-empty",
    body: request([user([text("What is in notes.txt?"), text("")])]),
    fixed: request([user([text("What is in notes.txt?")])]),
  },
  {
    rule: "text is not only whitespace (rule 8)",
    location: "messages",
    text: "text content blocks must contain non-whitespace text",
    body: request([user([text(" \n")])]),
    fixed: request([user([text(" \n"), text("What is in notes.txt?")])]),
  },
  {
    rule: "a prefill does not end in whitespace (rule 10)",
    location: "messages",
    text: "final assistant content cannot end with trailing whitespace",
    body: request([QUESTION, assistant("The file says ")]),
    fixed: request([QUESTION, assistant("The file says")]),
  },
  {
    rule: "tool_use ids are unique (rule 5)",
    location: "messages.3.content.0",
    text: "`tool_use` ids must be unique",
    body: request([...ROUND, assistant([READ]), user([toolResult("toolu_1")])]),
    fixed: request([
      ...ROUND,
      assistant([{ ...READ, id: "toolu_2" }]),
      user([toolResult("toolu_2")]),
    ]),
  },
  {
    rule: "every tool_use has its tool_result in the next message (rule 2)",
    location: "messages.1",
    text: missingResults("toolu_1, toolu_2"),
    body: request([
      QUESTION,
      assistant([READ, { ...READ, id: "toolu_2", input: { path: "todo.txt" } }]),
      user("Never mind."),
    ]),
    fixed: request([
      QUESTION,
      assistant([READ, { ...READ, id: "toolu_2", input: { path: "todo.txt" } }]),
      user([toolResult("toolu_1"), toolResult("toolu_2"), text("Never mind.")]),
    ]),
  },
  {
    rule: "tool_result blocks come first (rule 3, the rule-2 text)",
    location: "messages.1",
    text: missingResults("toolu_1"),
    body: request([ROUND[0], ROUND[1], user([text("Here it is:"), toolResult("toolu_1")])]),
    fixed: request([ROUND[0], ROUND[1], user([toolResult("toolu_1"), text("Here it is.")])]),
  },
  {
    rule: "a tool_result answers a tool_use of the previous message (rule 4)",
    location: "messages.2.content.1",
    text: "unexpected `tool_use_id` found in `tool_result` blocks: toolu_9. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
    body: request([ROUND[0], ROUND[1], user([toolResult("toolu_1"), toolResult("toolu_9")])]),
    fixed: request(ROUND),
  },
  {
    rule: "locations name the request as sent, though same-role messages are merged (rule 12)",
    location: "messages.3.content.0",
    text: "unexpected `tool_use_id` found in `tool_result` blocks: toolu_9. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
    body: request([...ROUND, user([toolResult("toolu_9")])]),
    fixed: request([...ROUND, user("And todo.txt?")]),
  },
  {
    rule: "with thinking on, the final assistant turn starts with thinking (rule 13)",
    location: "messages.1.content.0.type",
    text: "Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking",
    body: request([QUESTION, assistant([READ]), user([toolResult("toolu_1")])], ENABLED),
    fixed: request(
      [QUESTION, assistant([thinking("I should read the file."), READ]), ROUND[2]],
      ENABLED,
    ),
  },
  {
    rule: "thinking in the latest assistant message is unmodified (rule 14)",
    location: "messages.1.content.0",
    text: "`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.",
    body: request(
      [
        QUESTION,
        assistant([{ ...thinking("I should read the file."), thinking: "I will read it." }, READ]),
        ROUND[2],
      ],
      ENABLED,
    ),
    fixed: request(
      [QUESTION, assistant([thinking("I should read the file."), READ]), ROUND[2]],
      ENABLED,
    ),
  },
  {
    rule: "thinking in an earlier message has a valid signature (rule 15)",
    location: "messages.1.content.0",
    text: "Invalid `signature` in `thinking` block",
    body: request(
      [
        QUESTION,
        assistant([{ ...thinking("Which file?"), signature: "Eq0=" }, text("Which folder?")]),
        user("The current one."),
        assistant([thinking("I should read the file."), READ]),
        user([toolResult("toolu_1")]),
      ],
      ENABLED,
    ),
    fixed: request(
      [
        QUESTION,
        assistant([thinking("Which file?"), text("Which folder?")]),
        user("The current one."),
        assistant([thinking("I should read the file."), READ]),
        user([toolResult("toolu_1")]),
      ],
      ENABLED,
    ),
  },
  {
    rule: "with thinking off, a final assistant message holds no thinking (rule 16)",
    location: "messages.1.content.0",
    text: "When thinking is disabled, an `assistant` message in the final position cannot contain `thinking`. To use thinking blocks, enable `thinking` in your request.",
    body: request([QUESTION, assistant([thinking("Read it."), text("The file says")])]),
    fixed: request([QUESTION, assistant([text("The file says")])]),
  },
];

describe("every rule: the exact 400 for the violation, 200 once corrected", () => {
  test.each(RULES)("$rule", async ({ location, text: problem, body, fixed }) => {
    const server = await start({ script: [ANSWER] });
    const client = clientFor(server);
    const message = location === undefined ? problem : `${location}: ${problem}`;

    const error = await apiRejection(send(client, body));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ type: "invalid_request_error", apiMessage: message });
    expect(error.error).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message },
      request_id: "req_1",
    });
    expect(error.headers?.get("x-should-retry")).toBe("false");
    expect(server.requests()[0]?.verdict).toEqual({
      accepted: false,
      status: 400,
      message,
      ...(location === undefined ? {} : { location }),
    });

    // The rejected request used no step: the corrected one gets the first.
    const reply = await send(client, fixed);
    expect(reply.content).toEqual(ANSWER.content);
    expect(server.requests()[1]?.verdict).toEqual({ accepted: true });
  });

  test("GET /_fake/requests shows each request's verdict", async () => {
    const server = await start({ script: [ANSWER] });
    const client = clientFor(server);
    await apiRejection(send(client, withTool({ name: "files.read", input_schema: SCHEMA })));
    await send(client, request(ROUND));

    const listed = (await (
      await fetch(`${server.controlUrl}/requests`)
    ).json()) as RecordedRequest[];
    expect(listed.map((r) => r.verdict)).toEqual([
      {
        accepted: false,
        status: 400,
        message: "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
        location: "tools.0.custom.name",
      },
      { accepted: true },
    ]);
  });
});

describe("what the real service accepts passes", () => {
  const systems = [
    ["a string", "You answer in one sentence."],
    [
      "blocks",
      [
        {
          type: "text",
          text: "You answer in one sentence.",
          cache_control: { type: "ephemeral", ttl: "1h" },
        },
      ],
    ],
  ];
  test.each(systems)("every optional field, with system as %s", async (_, system) => {
    const server = await start({ script: [ANSWER] });
    const body = request(
      [
        user([
          { type: "text", text: "What is in notes.txt?", cache_control: { type: "ephemeral" } },
        ]),
        assistant([
          thinking("I should read the file."),
          { type: "text", text: "I will read it.", citations: null },
          { ...READ, caller: { type: "direct" } },
        ]),
        user([
          {
            ...toolResult("toolu_1", [{ type: "text", text: "hello", citations: null }]),
            is_error: false,
            cache_control: { type: "ephemeral" },
          },
        ]),
      ],
      {
        system,
        metadata: { user_id: "learner-1" },
        stop_sequences: ["\n\nDone."],
        tool_choice: { type: "auto", disable_parallel_tool_use: false },
        ...ENABLED,
        output_config: { effort: "medium" },
        service_tier: "auto",
        container: "container_1",
        tools: [
          {
            type: "custom",
            name: "read_file",
            description: "Read a text file.",
            strict: true,
            cache_control: { type: "ephemeral" },
            input_schema: {
              $schema: "https://json-schema.org/draft/2020-12/schema",
              ...SCHEMA,
              additionalProperties: false,
            },
          },
        ],
      },
    );
    const reply = await send(clientFor(server), body);

    expect(reply.content).toEqual(ANSWER.content);
    expect(server.requests()[0]?.verdict).toEqual({ accepted: true });
  });
});

// Hand-written requests in the shapes of the public fixtures the reference lists in §8.
describe("requests in the shapes of recorded real traffic pass", () => {
  test("a tool runner's parallel tool_use turn, with $schema in the tool schema", async () => {
    const server = await start({ script: [ANSWER] });
    const weather = {
      name: "get_weather",
      description: "Get the current weather in a given location",
      input_schema: {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object" as const,
        properties: {
          location: { type: "string", description: "The city and state, e.g. San Francisco, CA" },
          units: { type: "string", enum: ["c", "f"] },
        },
        required: ["location", "units"],
        additionalProperties: false,
      },
    };
    const reply = await clientFor(server).beta.messages.create({
      model: "claude-opus-4-8",
      max_tokens: 1024,
      tools: [weather],
      messages: [
        { role: "user", content: "What is the weather in SF and in New York?" },
        {
          role: "assistant",
          content: [
            { type: "text", text: "I'll check the weather in both cities." },
            {
              type: "tool_use",
              id: "toolu_01Fq7eXbR2vKk3mJ9sTzWq4N",
              name: "get_weather",
              input: { location: "San Francisco, CA", units: "f" },
            },
            {
              type: "tool_use",
              id: "toolu_01Hn4cPw8LgYd6aVx2QeRb7M",
              name: "get_weather",
              input: { location: "New York, NY", units: "f" },
            },
          ],
        },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "toolu_01Fq7eXbR2vKk3mJ9sTzWq4N",
              content: "San Francisco, CA: 68°F, foggy",
            },
            {
              type: "tool_result",
              tool_use_id: "toolu_01Hn4cPw8LgYd6aVx2QeRb7M",
              content: "New York, NY: 75°F, sunny",
            },
          ],
        },
      ],
    });

    expect(reply.content).toEqual(ANSWER.content);
  });

  test("thinking with signatures then tool_use, replayed over two tool rounds", async () => {
    const server = await start({
      script: [
        {
          content: [
            { type: "thinking", thinking: "The user wants a sum; the calculator can do it." },
            { type: "tool_use", name: "calculator", input: { expression: "19 * 23" } },
          ],
        },
        {
          content: [
            { type: "thinking", thinking: "437. Now I should double it, as asked." },
            { type: "text", text: "Now I will double it." },
            { type: "tool_use", name: "calculator", input: { expression: "437 * 2" } },
          ],
        },
        { content: [{ type: "text", text: "19 × 23 = 437, and doubled that is 874." }] },
      ],
    });
    const client = clientFor(server);
    const params = {
      model: "claude-sonnet-5",
      max_tokens: 4096,
      thinking: { type: "enabled" as const, budget_tokens: 1024 },
      tools: [
        {
          name: "calculator",
          description: "Evaluate an arithmetic expression.",
          input_schema: {
            type: "object" as const,
            properties: { expression: { type: "string" } },
            required: ["expression"],
          },
        },
      ],
    };
    const question = { role: "user" as const, content: "What is 19 × 23, doubled?" };
    const first = await client.messages.create({ ...params, messages: [question] });
    const second = await client.messages.create({
      ...params,
      messages: [
        question,
        { role: "assistant", content: first.content },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "437" }],
        },
      ],
    });
    const final = await client.messages.create({
      ...params,
      messages: [
        question,
        { role: "assistant", content: first.content },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "437" }],
        },
        { role: "assistant", content: second.content },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "toolu_2", content: "874" }],
        },
      ],
    });

    expect(first.content[0]).toMatchObject({ type: "thinking", signature: expect.any(String) });
    expect(final.content).toEqual([
      { type: "text", text: "19 × 23 = 437, and doubled that is 874." },
    ]);
    expect(server.requests().map((r) => r.verdict.accepted)).toEqual([true, true, true]);
  });

  test("a multi-turn sequential tool conversation, answered with nested cache usage", async () => {
    const usage = {
      input_tokens: 1423,
      output_tokens: 61,
      cache_creation_input_tokens: 1200,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 1200, ephemeral_1h_input_tokens: 0 },
      server_tool_use: null,
      service_tier: "standard",
    };
    const server = await start({ script: [{ ...ANSWER, usage }] });
    const reply = await clientFor(server).messages.create({
      model: "claude-haiku-4-5",
      max_tokens: 1024,
      tools: [
        {
          name: "get_weather",
          description: "Get the weather for a city.",
          input_schema: { type: "object", properties: { city: { type: "string" } } },
        },
        {
          name: "get_time",
          description: "Get the local time in a city.",
          input_schema: { type: "object", properties: { city: { type: "string" } } },
        },
      ],
      messages: [
        { role: "user", content: "What is the weather in Paris, and what time is it there?" },
        {
          role: "assistant",
          content: [
            {
              type: "tool_use",
              id: "toolu_01Kq3Wd9sVbX2fRm7hTcYp5L",
              name: "get_weather",
              input: { city: "Paris" },
            },
          ],
        },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "toolu_01Kq3Wd9sVbX2fRm7hTcYp5L",
              content: "Paris: 18°C, light rain",
            },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "text", text: "It is raining lightly in Paris. Now the time." },
            {
              type: "tool_use",
              id: "toolu_01Pz8Nc4rTgV6yLm2bWdXe9H",
              name: "get_time",
              input: { city: "Paris" },
            },
          ],
        },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "toolu_01Pz8Nc4rTgV6yLm2bWdXe9H",
              content: "14:05",
            },
          ],
        },
      ],
    });

    expect(reply.content).toEqual(ANSWER.content);
    expect(reply.usage).toEqual(usage);
  });
});

describe("deepseek flavour", () => {
  const PARAMS = {
    model: "deepseek-v4-flash",
    max_tokens: 1024,
    messages: [user("Echo a, then b.")],
  };
  const TWO_CALLS: ReplyStep = {
    content: [
      { type: "tool_use", name: "echo", input: { text: "a" } },
      { type: "tool_use", name: "echo", input: { text: "b" } },
    ],
  };

  // The tool turn the server hands out, and the results a client sends back for it.
  async function toolTurn() {
    const server = await start({ flavour: "deepseek", script: [TWO_CALLS, ANSWER] });
    const client = clientFor(server);
    const turn = await client.messages.create(PARAMS);
    const results: Anthropic.ToolResultBlockParam[] = [
      { type: "tool_result", tool_use_id: "call_1", content: "a" },
      { type: "tool_result", tool_use_id: "call_2", content: "b" },
    ];
    return { server, client, turn, results };
  }

  test("answers a tool-use step with a signed thinking block first and call_ ids", async () => {
    const { turn } = await toolTurn();
    const [thought, ...calls] = turn.content;

    expect(thought).toEqual({
      type: "thinking",
      thinking: "To answer this I will call echo.",
      signature: signThinking("To answer this I will call echo."),
    });
    expect(
      thought?.type === "thinking" && verifyThinking(thought.thinking, thought.signature),
    ).toBe(true);
    expect(calls).toEqual([
      { type: "tool_use", id: "call_1", name: "echo", input: { text: "a" } },
      { type: "tool_use", id: "call_2", name: "echo", input: { text: "b" } },
    ]);
    expect(turn.stop_reason).toBe("tool_use");
  });

  test("streams the same thinking block, and keeps a step's own thinking", async () => {
    const own: ReplyStep = {
      content: [{ type: "thinking", thinking: "Mine." }, ...TWO_CALLS.content],
    };
    const server = await start({ flavour: "deepseek", script: [TWO_CALLS, own, ANSWER] });
    const client = clientFor(server);
    const streamed = await client.messages.stream(PARAMS).finalMessage();
    const kept = await client.messages.create(PARAMS);
    const plain = await client.messages.create(PARAMS);

    expect(streamed.content.map((block) => block.type)).toEqual([
      "thinking",
      "tool_use",
      "tool_use",
    ]);
    expect(streamed.content[0]).toMatchObject({ thinking: "To answer this I will call echo." });
    expect(kept.content.filter((block) => block.type === "thinking")).toEqual([
      { type: "thinking", thinking: "Mine.", signature: signThinking("Mine.") },
    ]);
    // A reply without tool calls needs no thinking: none is added.
    expect(plain.content).toEqual(ANSWER.content);
  });

  test("adds no thinking when the request turns thinking off", async () => {
    const server = await start({ flavour: "deepseek", script: [TWO_CALLS] });
    const turn = await clientFor(server).messages.create({
      ...PARAMS,
      thinking: { type: "disabled" },
    });

    expect(turn.content.map((block) => block.type)).toEqual(["tool_use", "tool_use"]);
  });

  test("echoing the turn verbatim is accepted", async () => {
    const { server, client, turn, results } = await toolTurn();
    const reply = await client.messages.create({
      ...PARAMS,
      messages: [...PARAMS.messages, assistant(turn.content), user(results)],
    });

    expect(reply.content).toEqual(ANSWER.content);
    expect(server.requests().map((r) => r.verdict)).toEqual([
      { accepted: true },
      { accepted: true },
    ]);
  });

  const broken = [
    {
      change: "dropping the thinking block",
      edit: (content: Anthropic.ContentBlock[]) => content.filter((b) => b.type !== "thinking"),
    },
    {
      change: "editing the thinking block",
      edit: (content: Anthropic.ContentBlock[]) =>
        content.map((b) => (b.type === "thinking" ? { ...b, thinking: "I will echo." } : b)),
    },
  ];
  test.each(broken)("$change gets DeepSeek's exact 400, in its envelope", async ({ edit }) => {
    const { server, client, turn, results } = await toolTurn();
    const error = await apiRejection(
      client.messages.create({
        ...PARAMS,
        messages: [...PARAMS.messages, assistant(edit(turn.content)), user(results)],
      }),
    );

    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.error).toEqual({
      error: {
        message: DEEPSEEK_THINKING,
        type: "invalid_request_error",
        param: null,
        code: "invalid_request_error",
      },
    });
    expect(error).toMatchObject({ type: "invalid_request_error", apiMessage: DEEPSEEK_THINKING });
    expect(error.requestID ?? null).toBeNull();
    expect(server.requests()[1]?.verdict).toEqual({
      accepted: false,
      status: 400,
      message: DEEPSEEK_THINKING,
    });
  });

  test("splitting the results of one turn over two user messages is rejected", async () => {
    const { client, turn, results } = await toolTurn();
    const error = await apiRejection(
      client.messages.create({
        ...PARAMS,
        messages: [
          ...PARAMS.messages,
          assistant(turn.content),
          user(results.slice(0, 1)),
          user(results.slice(1)),
        ],
      }),
    );

    const message = `messages.1: ${missingResults("call_2")}`;
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.error).toEqual({
      error: { message, type: "invalid_request_error", param: null, code: "invalid_request_error" },
    });
  });

  const otherErrors = [
    {
      error: "a wrong key: 401",
      type: "authentication_error",
      message: "Invalid bearer token",
      errorClass: AuthenticationError,
      call: (client: Anthropic) => client.messages.create(PARAMS),
    },
    {
      error: "an unknown path: 404",
      type: "not_found_error",
      message: "Not Found",
      errorClass: NotFoundError,
      call: (client: Anthropic) => client.get("/v1/complete"),
    },
    {
      error: "an empty script: 500",
      type: "api_error",
      message: "fake server: the script is empty, no step is left for request 1 (0 steps used)",
      errorClass: InternalServerError,
      call: (client: Anthropic) => client.messages.create(PARAMS),
    },
  ];
  test.each(otherErrors)("$error, in DeepSeek's envelope", async (row) => {
    const server = await start({ flavour: "deepseek", key: "sk-right" });
    const apiKey = row.errorClass === AuthenticationError ? "sk-wrong" : "sk-right";
    const error = await apiRejection(row.call(clientFor(server, { apiKey })));

    expect(error).toBeInstanceOf(row.errorClass);
    expect(error.error).toEqual({
      error: { message: row.message, type: row.type, param: null, code: row.type },
    });
    expect(error.requestID ?? null).toBeNull();
    expect(error.headers?.get("x-should-retry")).toBe("false");
  });
});

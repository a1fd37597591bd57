// Unit tests of the protocol validator: each rule with a violating body (exact text and location)
// and the corrected body, plus the leniency list, recorded-traffic shapes and the DeepSeek flavour.
import { describe, expect, test } from "vitest";
import { text, thinking } from "../src/builders.ts";
import { type ValidateOptions, validateRequest } from "../src/validator.ts";
import {
  assistant,
  DEEPSEEK_THINKING,
  missingResults,
  readFileCall,
  request,
  toolResult,
  user,
} from "./support.ts";

function expectViolation(
  body: unknown,
  location: string | undefined,
  message: string,
  options?: ValidateOptions,
) {
  const expected =
    location === undefined ? { status: 400, message } : { status: 400, location, message };
  expect(validateRequest(body, options)).toStrictEqual(expected);
}

function unexpectedResult(location: string, id: string) {
  return `${location}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
}

function thinkingExpected(location: string, found: string) {
  return `${location}: Expected \`thinking\` or \`redacted_thinking\`, but found \`${found}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`;
}

const DEEPSEEK = { flavour: "deepseek" } as const;

describe("required fields", () => {
  test.each(["model", "max_tokens", "messages"])("rejects a request without %s", (field) => {
    const body: Record<string, unknown> = request([user("hi")]);
    const corrected = { ...body };
    delete body[field];
    expectViolation(body, field, `${field}: Field required`);
    expect(validateRequest(corrected)).toBeNull();
  });

  test("rejects a body that is not an object", () => {
    expectViolation([request([user("hi")])], undefined, "Input should be a valid dictionary");
    expect(validateRequest(request([user("hi")]))).toBeNull();
  });

  test("rejects a model that is not a string", () => {
    expectViolation(
      request([user("hi")], { model: 3 }),
      "model",
      "model: Input should be a valid string",
    );
  });

  test("rejects max_tokens that is not a positive integer", () => {
    expectViolation(
      request([user("hi")], { max_tokens: "1024" }),
      "max_tokens",
      "max_tokens: Input should be a valid integer",
    );
    expectViolation(
      request([user("hi")], { max_tokens: 1.5 }),
      "max_tokens",
      "max_tokens: Input should be a valid integer",
    );
    expectViolation(
      request([user("hi")], { max_tokens: 0 }),
      "max_tokens",
      "max_tokens: Input should be greater than or equal to 1",
    );
    expect(validateRequest(request([user("hi")], { max_tokens: 1 }))).toBeNull();
  });

  test("rejects messages that are not a non-empty list", () => {
    expectViolation(
      request([], { messages: { role: "user", content: "hi" } }),
      "messages",
      "messages: Input should be a valid list",
    );
    expectViolation(request([]), "messages", "messages: at least one message is required");
  });
});

describe("message shape", () => {
  test.each(["system", "tool", "developer"])("rejects the role %s", (role) => {
    expectViolation(
      request([user("hi"), assistant("hello"), { role, content: "be brief" }]),
      "messages.2.role",
      "messages.2.role: Input should be 'user' or 'assistant'",
    );
    expect(validateRequest(request([user("hi"), assistant("hello"), user("be brief")]))).toBeNull();
  });

  test("rejects a message without a role or content", () => {
    expectViolation(
      request([{ content: "hi" }]),
      "messages.0.role",
      "messages.0.role: Field required",
    );
    expectViolation(
      request([{ role: "user" }]),
      "messages.0.content",
      "messages.0.content: Field required",
    );
    expectViolation(
      request([user({ type: "text", text: "hi" })]),
      "messages.0.content",
      "messages.0.content: Input should be a valid list",
    );
    expectViolation(
      request(["hi"]),
      "messages.0",
      "messages.0: Input should be a valid dictionary",
    );
  });

  test("rejects a block without a type or with a malformed field", () => {
    expectViolation(
      request([user([{ text: "hi" }])]),
      "messages.0.content.0.type",
      "messages.0.content.0.type: Field required",
    );
    expectViolation(
      request([user([{ type: "text" }])]),
      "messages.0.content.0.text.text",
      "messages.0.content.0.text.text: Field required",
    );
    expectViolation(
      request([user("hi"), assistant([{ type: "tool_use", id: "toolu_1", name: "read_file" }])]),
      "messages.1.content.0.tool_use.input",
      "messages.1.content.0.tool_use.input: Field required",
    );
  });

  test("rejects a tool_use id outside the pattern (rule 6)", () => {
    const body = request([user("read it"), assistant([text("Reading."), readFileCall("")])]);
    expectViolation(
      body,
      "messages.1.content.1.tool_use.id",
      "messages.1.content.1.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
    );
    const corrected = request([
      user("read it"),
      assistant([text("Reading."), readFileCall("call_0_a1-b2")]),
      user([toolResult("call_0_a1-b2")]),
    ]);
    expect(validateRequest(corrected)).toBeNull();
  });

  test("rejects a tool_result tool_use_id outside the pattern", () => {
    expectViolation(
      request([
        user("read it"),
        assistant([readFileCall("toolu_1")]),
        user([toolResult("toolu_1"), toolResult("fc.1")]),
      ]),
      "messages.2.content.1.tool_result.tool_use_id",
      "messages.2.content.1.tool_result.tool_use_id: String should match pattern '^[a-zA-Z0-9_-]+$'",
    );
  });

  test("rejects a thinking block without its signature", () => {
    const { signature: _, ...unsigned } = thinking("Let me look.");
    expectViolation(
      request([user("read it"), assistant([unsigned, text("Done.")]), user("thanks")]),
      "messages.1.content.0.thinking.signature",
      "messages.1.content.0.thinking.signature: Field required",
    );
    expect(
      validateRequest(
        request([
          user("read it"),
          assistant([thinking("Let me look."), text("Done.")]),
          user("thanks"),
        ]),
      ),
    ).toBeNull();
  });
});

describe("tool definitions", () => {
  function withTool(tool: Record<string, unknown>) {
    return request([user("hi")], { tools: [tool] });
  }

  test("rejects a tool name outside the pattern, 1 to 128 characters", () => {
    const schema = { type: "object", properties: {} };
    const pattern = "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'";
    expectViolation(
      withTool({ name: "files.read", input_schema: schema }),
      "tools.0.custom.name",
      pattern,
    );
    expectViolation(
      withTool({ name: "a".repeat(129), input_schema: schema }),
      "tools.0.custom.name",
      pattern,
    );
    expectViolation(withTool({ name: "", input_schema: schema }), "tools.0.custom.name", pattern);
    expectViolation(
      withTool({ input_schema: schema }),
      "tools.0.custom.name",
      "tools.0.custom.name: Field required",
    );
    expect(validateRequest(withTool({ name: "read_file-2", input_schema: schema }))).toBeNull();
    expect(validateRequest(withTool({ name: "a".repeat(128), input_schema: schema }))).toBeNull();
  });

  test("rejects a tool without an object input_schema", () => {
    expectViolation(
      withTool({ name: "read_file" }),
      "tools.0.custom.input_schema",
      "tools.0.custom.input_schema: Field required",
    );
    expectViolation(
      withTool({ name: "read_file", input_schema: "object" }),
      "tools.0.custom.input_schema",
      "tools.0.custom.input_schema: Input should be a valid dictionary",
    );
    expectViolation(
      withTool({ name: "read_file", input_schema: { properties: {} } }),
      "tools.0.custom.input_schema.type",
      "tools.0.custom.input_schema.type: Field required",
    );
    expectViolation(
      withTool({ name: "read_file", input_schema: { type: "array" } }),
      "tools.0.custom.input_schema.type",
      "tools.0.custom.input_schema.type: Input should be 'object'",
    );
    expect(
      validateRequest(withTool({ name: "read_file", input_schema: { type: "object" } })),
    ).toBeNull();
  });

  test("checks a tool with type custom like one without a type", () => {
    expectViolation(
      withTool({ type: "custom", name: "read_file" }),
      "tools.0.custom.input_schema",
      "tools.0.custom.input_schema: Field required",
    );
  });

  test("passes a server tool through: it has no input_schema and a name of its own", () => {
    expect(
      validateRequest(withTool({ type: "web_search_20250305", name: "web_search", max_uses: 3 })),
    ).toBeNull();
  });

  test("names the failing tool by its index", () => {
    expectViolation(
      request([user("hi")], {
        tools: [
          { name: "read_file", input_schema: { type: "object" } },
          { name: "bash", input_schema: { type: "string" } },
        ],
      }),
      "tools.1.custom.input_schema.type",
      "tools.1.custom.input_schema.type: Input should be 'object'",
    );
  });

  test("rejects tools that are not a list of objects", () => {
    expectViolation(
      request([user("hi")], { tools: { name: "read_file" } }),
      "tools",
      "tools: Input should be a valid list",
    );
    expectViolation(
      request([user("hi")], { tools: ["read_file"] }),
      "tools.0",
      "tools.0: Input should be a valid dictionary",
    );
  });
});

describe("content", () => {
  test("rejects empty content anywhere but the final assistant message (rule 9)", () => {
    expectViolation(
      request([user("hi"), assistant([]), user("again")]),
      "messages.1",
      "messages.1: all messages must have non-empty content except for the optional final assistant message",
    );
    expectViolation(
      request([user("")]),
      "messages.0",
      "messages.0: all messages must have non-empty content except for the optional final assistant message",
    );
    expect(validateRequest(request([user("hi"), assistant("hello"), user("again")]))).toBeNull();
    expect(validateRequest(request([user("hi"), assistant([])]))).toBeNull();
  });

  test("rejects an empty text block (rule 7)", () => {
    expectViolation(
      request([user([text("hi"), text("")])]),
      "messages",
      "messages: text content blocks must be non-empty",
    );
    expect(validateRequest(request([user([text("hi"), text("there")])]))).toBeNull();
  });

  test("rejects whitespace-only text unless real text sits beside it (rule 8)", () => {
    expectViolation(
      request([user([text(" \n")])]),
      "messages",
      "messages: text content blocks must contain non-whitespace text",
    );
    expectViolation(
      request([user("hi"), assistant("  "), user("again")]),
      "messages",
      "messages: text content blocks must contain non-whitespace text",
    );
    expect(validateRequest(request([user([text(" \n"), text("hi")])]))).toBeNull();
  });

  test("rejects a prefill that ends in whitespace (rule 10)", () => {
    expectViolation(
      request([user("Name a colour."), assistant("The colour is ")]),
      "messages",
      "messages: final assistant content cannot end with trailing whitespace",
    );
    expect(
      validateRequest(request([user("Name a colour."), assistant("The colour is")])),
    ).toBeNull();
  });
});

describe("tool pairing", () => {
  test("rejects tool_use without tool_result in the next message (rule 2)", () => {
    const body = request([
      user("read both"),
      assistant([readFileCall("toolu_A"), readFileCall("toolu_B", "b.txt")]),
      user("what did you find?"),
    ]);
    expectViolation(
      body,
      "messages.1",
      "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_A, toolu_B. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
    );
    const corrected = request([
      user("read both"),
      assistant([readFileCall("toolu_A"), readFileCall("toolu_B", "b.txt")]),
      user([toolResult("toolu_B"), toolResult("toolu_A", [text("a")])]),
    ]);
    expect(validateRequest(corrected)).toBeNull();
  });

  test("names only the ids that have no result", () => {
    expectViolation(
      request([
        user("read both"),
        assistant([readFileCall("toolu_A"), readFileCall("toolu_B")]),
        user([toolResult("toolu_A")]),
      ]),
      "messages.1",
      missingResults("toolu_B", "messages.1"),
    );
  });

  test("rejects a request that ends on a tool_use", () => {
    expectViolation(
      request([user("read it"), assistant([text("Reading."), readFileCall("toolu_1")])]),
      "messages.1",
      missingResults("toolu_1", "messages.1"),
    );
  });

  test("rejects text before the tool_result blocks with the rule-2 text (rule 3)", () => {
    expectViolation(
      request([
        user("read it"),
        assistant([readFileCall("toolu_1")]),
        user([text("Here you go:"), toolResult("toolu_1")]),
      ]),
      "messages.1",
      missingResults("toolu_1", "messages.1"),
    );
    expect(
      validateRequest(
        request([
          user("read it"),
          assistant([readFileCall("toolu_1")]),
          user([toolResult("toolu_1"), text("Here you go.")]),
        ]),
      ),
    ).toBeNull();
  });

  test("rejects a tool_result for an id the previous message did not use (rule 4)", () => {
    expectViolation(
      request([
        user("read it"),
        assistant([readFileCall("toolu_1")]),
        user([toolResult("toolu_1"), toolResult("toolu_9")]),
      ]),
      "messages.2.content.1",
      unexpectedResult("messages.2.content.1", "toolu_9"),
    );
    expectViolation(
      request([user([toolResult("toolu_1"), text("go on")])]),
      "messages.0.content.0",
      unexpectedResult("messages.0.content.0", "toolu_1"),
    );
  });

  test("rejects duplicate tool_use ids across the request (rule 5)", () => {
    const body = request([
      user("read twice"),
      assistant([readFileCall("toolu_1")]),
      user([toolResult("toolu_1")]),
      assistant([text("Again."), readFileCall("toolu_1")]),
      user([toolResult("toolu_1")]),
    ]);
    expectViolation(
      body,
      "messages.3.content.1",
      "messages.3.content.1: `tool_use` ids must be unique",
    );
    const corrected = request([
      user("read twice"),
      assistant([readFileCall("toolu_1")]),
      user([toolResult("toolu_1")]),
      assistant([text("Again."), readFileCall("toolu_2")]),
      user([toolResult("toolu_2")]),
    ]);
    expect(validateRequest(corrected)).toBeNull();
  });
});

describe("merging consecutive same-role messages", () => {
  test("names the assistant message by its index as sent", () => {
    expectViolation(
      request([
        user("hi"),
        user("read it"),
        assistant([readFileCall("toolu_1")]),
        user([text("ok")]),
      ]),
      "messages.2",
      missingResults("toolu_1", "messages.2"),
    );
  });

  test("names a block by its message and position as sent", () => {
    expectViolation(
      request([
        user("hi"),
        user("read it"),
        assistant([text("Reading.")]),
        assistant([readFileCall("toolu_1")]),
        user([toolResult("toolu_1")]),
        user([toolResult("toolu_7")]),
      ]),
      "messages.5.content.0",
      unexpectedResult("messages.5.content.0", "toolu_7"),
    );
  });

  test("names the message that holds the unanswered tool_use in a merged turn", () => {
    expectViolation(
      request([
        user("read both"),
        assistant([readFileCall("toolu_A")]),
        assistant([readFileCall("toolu_B")]),
        user([toolResult("toolu_A")]),
      ]),
      "messages.2",
      missingResults("toolu_B", "messages.2"),
    );
  });

  test("accepts results split over consecutive user messages", () => {
    const body = request([
      user("read both"),
      assistant([readFileCall("toolu_A"), readFileCall("toolu_B")]),
      user([toolResult("toolu_A")]),
      user([toolResult("toolu_B")]),
    ]);
    expect(validateRequest(body)).toBeNull();
  });

  test("a text message before the results merges into a turn that starts with text (rule 12)", () => {
    expectViolation(
      request([
        user("read it"),
        assistant([readFileCall("toolu_1")]),
        user("here:"),
        user([toolResult("toolu_1")]),
      ]),
      "messages.1",
      missingResults("toolu_1", "messages.1"),
    );
  });

  test("accepts an assistant message first (rule 11)", () => {
    expect(validateRequest(request([assistant("How can I help?"), user("hi")]))).toBeNull();
  });
});

describe("thinking", () => {
  const enabled = { thinking: { type: "enabled", budget_tokens: 1024 } };

  test("rejects a final tool turn that does not start with thinking (rule 13)", () => {
    const body = request(
      [user("read it"), assistant([readFileCall("toolu_1")]), user([toolResult("toolu_1")])],
      enabled,
    );
    expectViolation(
      body,
      "messages.1.content.0.type",
      thinkingExpected("messages.1.content.0.type", "tool_use"),
    );
    const corrected = request(
      [
        user("read it"),
        assistant([thinking("Read it."), readFileCall("toolu_1")]),
        user([toolResult("toolu_1")]),
      ],
      enabled,
    );
    expect(validateRequest(corrected)).toBeNull();
  });

  test("applies rule 13 to adaptive thinking and names the block found", () => {
    expectViolation(
      request(
        [
          user("read it"),
          assistant([text("Reading."), readFileCall("toolu_1")]),
          user([toolResult("toolu_1")]),
        ],
        { thinking: { type: "adaptive" } },
      ),
      "messages.1.content.0.type",
      thinkingExpected("messages.1.content.0.type", "text"),
    );
  });

  test("asks for thinking only mid tool loop and only when thinking is on", () => {
    const stripped = [
      user("read it"),
      assistant([readFileCall("toolu_1")]),
      user([toolResult("toolu_1")]),
      assistant("It says hello."),
      user("thanks, now summarise"),
    ];
    expect(validateRequest(request(stripped, enabled))).toBeNull();
    const midLoop = [
      user("read it"),
      assistant([readFileCall("toolu_1")]),
      user([toolResult("toolu_1")]),
    ];
    expect(validateRequest(request(midLoop))).toBeNull();
    expect(validateRequest(request(midLoop, { thinking: { type: "disabled" } }))).toBeNull();
  });

  test("rejects a modified thinking block in the latest assistant message (rule 14)", () => {
    const edited = { ...thinking("Read notes.txt."), thinking: "Read notes.txt" };
    expectViolation(
      request(
        [
          user("read it"),
          assistant([edited, readFileCall("toolu_1")]),
          user([toolResult("toolu_1")]),
        ],
        enabled,
      ),
      "messages.1.content.0",
      "messages.1.content.0: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.",
    );
  });

  test("rejects an invalid signature in an earlier assistant message (rule 15)", () => {
    const forged = { type: "thinking", thinking: "Read it.", signature: "Eq0Bforged" };
    const body = request(
      [
        user("read it"),
        assistant([forged, readFileCall("toolu_1")]),
        user([toolResult("toolu_1")]),
        assistant([thinking("Now the answer."), text("It says hello.")]),
        user("thanks"),
      ],
      enabled,
    );
    expectViolation(
      body,
      "messages.1.content.0",
      "messages.1.content.0: Invalid `signature` in `thinking` block",
    );
  });

  test("rejects thinking in a final assistant message when thinking is off (rule 16)", () => {
    const body = request([
      user("Name a colour."),
      assistant([thinking("Pick one."), text("Blue")]),
    ]);
    expectViolation(
      body,
      "messages.1.content.0",
      "messages.1.content.0: When thinking is disabled, an `assistant` message in the final position cannot contain `thinking`. To use thinking blocks, enable `thinking` in your request.",
    );
    expect(validateRequest({ ...body, ...enabled })).toBeNull();
  });

  test("accepts redacted_thinking in place of thinking", () => {
    const body = request(
      [
        user("read it"),
        assistant([
          { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix" },
          readFileCall("toolu_1"),
        ]),
        user([toolResult("toolu_1")]),
      ],
      enabled,
    );
    expect(validateRequest(body)).toBeNull();
  });
});

describe("first violation wins", () => {
  test("a missing field comes before anything in the messages", () => {
    const { max_tokens: _, ...body } = request([{ role: "system", content: "" }]);
    expectViolation(body, "max_tokens", "max_tokens: Field required");
  });

  test("shape errors come before the conversation rules", () => {
    expectViolation(
      request([user(""), assistant([readFileCall("toolu_1")]), { role: "tool", content: "x" }]),
      "messages.2.role",
      "messages.2.role: Input should be 'user' or 'assistant'",
    );
  });

  test("content rules come before tool pairing", () => {
    expectViolation(
      request([
        user("read it"),
        assistant([readFileCall("toolu_1")]),
        user("go"),
        assistant([]),
        user("?"),
      ]),
      "messages.3",
      "messages.3: all messages must have non-empty content except for the optional final assistant message",
    );
  });

  test("the earlier of two pairing violations is reported", () => {
    expectViolation(
      request([
        user("read it"),
        assistant([readFileCall("toolu_1")]),
        user("skip that"),
        assistant([readFileCall("toolu_2")]),
        user([toolResult("toolu_9")]),
      ]),
      "messages.1",
      missingResults("toolu_1", "messages.1"),
    );
  });
});

test("accepts every field the real service accepts", () => {
  const cache = { type: "ephemeral" };
  const body = {
    model: "claude-sonnet-4-5",
    max_tokens: 4096,
    system: [{ type: "text", text: "You are a coding agent.", cache_control: cache }],
    metadata: { user_id: "learner-1" },
    stop_sequences: ["</done>"],
    stream: true,
    tool_choice: { type: "auto", disable_parallel_tool_use: false },
    thinking: { type: "enabled", budget_tokens: 2048 },
    output_config: { effort: "high" },
    service_tier: "auto",
    container: "container_1",
    tools: [
      {
        type: "custom",
        name: "read_file",
        description: "Read a file.",
        strict: true,
        cache_control: cache,
        input_schema: {
          $schema: "http://json-schema.org/draft-07/schema#",
          type: "object",
          properties: { path: { type: "string" } },
          required: ["path"],
          additionalProperties: false,
        },
      },
    ],
    messages: [
      { role: "user", content: [{ type: "text", text: "Read notes.txt", cache_control: cache }] },
      {
        role: "assistant",
        content: [
          thinking("The user wants notes.txt."),
          { type: "text", text: "Reading it.", citations: null },
          { ...readFileCall("toolu_01"), caller: { type: "direct" }, cache_control: cache },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_01",
            content: [{ type: "text", text: "hello" }],
            is_error: false,
            cache_control: cache,
          },
        ],
      },
    ],
  };
  expect(validateRequest(body)).toBeNull();
});

test("accepts a system prompt given as a string and a tool_result without content", () => {
  const body = request(
    [
      user("touch it"),
      assistant([readFileCall("toolu_1")]),
      user([{ type: "tool_result", tool_use_id: "toolu_1" }]),
    ],
    { system: "Be brief." },
  );
  expect(validateRequest(body)).toBeNull();
});

describe("shapes of recorded real traffic", () => {
  test("a tool runner history with parallel tool_use and $schema in the schema passes", () => {
    const schema = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { location: { type: "string" }, units: { type: "string", enum: ["c", "f"] } },
      required: ["location"],
      additionalProperties: false,
    };
    const body = request(
      [
        user("What is the weather in Paris and in Tokyo?"),
        assistant([
          text("I'll check both cities."),
          {
            type: "tool_use",
            id: "toolu_01Ab3",
            name: "get_weather",
            input: { location: "Paris" },
            caller: { type: "direct" },
          },
          {
            type: "tool_use",
            id: "toolu_01Cd4",
            name: "get_weather",
            input: { location: "Tokyo", units: "c" },
            caller: { type: "direct" },
          },
        ]),
        user([
          { type: "tool_result", tool_use_id: "toolu_01Ab3", content: "Paris: 18°C, cloudy" },
          { type: "tool_result", tool_use_id: "toolu_01Cd4", content: "Tokyo: 24°C, clear" },
        ]),
        assistant([text("Paris is 18°C and cloudy; Tokyo is 24°C and clear.")]),
        user("And in Oslo?"),
      ],
      { tools: [{ name: "get_weather", description: "Current weather.", input_schema: schema }] },
    );
    expect(validateRequest(body)).toBeNull();
  });

  test("thinking with signatures then tool_use, replayed over two rounds, passes", () => {
    const tools = [
      {
        name: "calculator",
        description: "Evaluate an expression.",
        input_schema: { type: "object", properties: { expression: { type: "string" } } },
      },
    ];
    const body = request(
      [
        user("What is 12 * 34, then plus 5?"),
        assistant([
          thinking("Multiply first, then add."),
          text("Let me compute."),
          { type: "tool_use", id: "toolu_01X", name: "calculator", input: { expression: "12*34" } },
        ]),
        user([{ type: "tool_result", tool_use_id: "toolu_01X", content: "408" }]),
        assistant([
          thinking("408 plus 5."),
          { type: "tool_use", id: "toolu_01Y", name: "calculator", input: { expression: "408+5" } },
        ]),
        user([{ type: "tool_result", tool_use_id: "toolu_01Y", content: "413" }]),
      ],
      { tools, thinking: { type: "enabled", budget_tokens: 1024 }, max_tokens: 2048 },
    );
    expect(validateRequest(body)).toBeNull();
  });
});

describe("deepseek flavour", () => {
  function toolRound(first: unknown[]) {
    return request([user("read it"), assistant(first), user([toolResult("call_0_1")])], {
      model: "deepseek-v4-flash",
    });
  }

  test("accepts a tool round echoed with its thinking", () => {
    expect(
      validateRequest(toolRound([thinking("Read it."), readFileCall("call_0_1")]), DEEPSEEK),
    ).toBeNull();
  });

  test("rejects a tool round whose thinking was dropped", () => {
    expectViolation(toolRound([readFileCall("call_0_1")]), undefined, DEEPSEEK_THINKING, DEEPSEEK);
  });

  test("rejects a tool round whose thinking was edited", () => {
    const edited = { ...thinking("Read it."), thinking: "Read it!" };
    expectViolation(
      toolRound([edited, readFileCall("call_0_1")]),
      undefined,
      DEEPSEEK_THINKING,
      DEEPSEEK,
    );
    const unsigned = { type: "thinking", thinking: "Read it." };
    expectViolation(
      toolRound([unsigned, readFileCall("call_0_1")]),
      undefined,
      DEEPSEEK_THINKING,
      DEEPSEEK,
    );
  });

  test("requires the thinking of every earlier tool round, not only the latest", () => {
    const body = request([
      user("read it"),
      assistant([readFileCall("call_0_1")]),
      user([toolResult("call_0_1")]),
      assistant([thinking("Summarise."), text("It says hello.")]),
      user("thanks"),
    ]);
    expectViolation(body, undefined, DEEPSEEK_THINKING, DEEPSEEK);
    expect(validateRequest(body)).toBeNull();
  });

  test("does not need the thinking of a turn without tool calls", () => {
    const body = request([user("hi"), assistant("Hello!"), user("read it")]);
    expect(validateRequest(body, DEEPSEEK)).toBeNull();
  });

  test("does not need thinking when the request turns it off", () => {
    expect(
      validateRequest(
        { ...toolRound([readFileCall("call_0_1")]), thinking: { type: "disabled" } },
        DEEPSEEK,
      ),
    ).toBeNull();
  });

  test("rejects the results of one turn split over two user messages", () => {
    const body = request([
      user("read both"),
      assistant([thinking("Two files."), readFileCall("call_0_1"), readFileCall("call_0_2")]),
      user([toolResult("call_0_1")]),
      user([toolResult("call_0_2")]),
    ]);
    expectViolation(body, "messages.1", missingResults("call_0_2", "messages.1"), DEEPSEEK);
    expect(validateRequest(body)).toBeNull();
  });

  test("accepts a history that echoes everything", () => {
    const body = request(
      [
        user("read both, then count"),
        assistant([thinking("Two files."), readFileCall("call_0_1"), readFileCall("call_0_2")]),
        user([toolResult("call_0_1"), toolResult("call_0_2")]),
        assistant([thinking("Now count."), text("Counting."), readFileCall("call_1_1")]),
        user([toolResult("call_1_1", "42")]),
        assistant("There are 42 lines."),
        user("thanks"),
      ],
      { model: "deepseek-v4-flash", output_config: { effort: "high" } },
    );
    expect(validateRequest(body, DEEPSEEK)).toBeNull();
  });

  test("still applies the Anthropic rules", () => {
    const { max_tokens: _, ...body } = toolRound([thinking("Read it."), readFileCall("call_0_1")]);
    expectViolation(body, "max_tokens", "max_tokens: Field required", DEEPSEEK);
  });
});

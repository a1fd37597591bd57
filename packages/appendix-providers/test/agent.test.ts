import { reply, ScriptedProvider, text, thinking, toolUse } from "@agent-code/test-kit";
import { expect, test } from "vitest";
import { runAgent } from "../src/agent.ts";
import type { ConversationItem, ModelProvider, ToolResult } from "../src/model.ts";
import { MockProvider } from "../src/providers/mock.ts";
import { defaultTools } from "../src/tools.ts";

test("one echo round with the mock model: trace and final answer", async () => {
  const result = await runAgent("echo hi using the echo tool", new MockProvider(), defaultTools());
  expect(result.trace).toEqual([
    'tool_call: echo {"text":"hi"}',
    "observation: hi",
    "final: echo tool returned: hi",
  ]);
  expect(result.final).toBe("echo tool returned: hi");
});

test("the loop appends the provider's assistant items, then the items of its toolResults", async () => {
  const provider = new ScriptedProvider([
    reply([toolUse("echo", { text: "hi" }, "toolu_1")]),
    reply([text("done")]),
  ]);
  const result = await runAgent("echo hi", provider, defaultTools());
  provider.assertDone();
  expect(provider.requests[1]?.messages).toEqual([
    { role: "user", content: "echo hi" },
    { role: "assistant", content: [toolUse("echo", { text: "hi" }, "toolu_1")] },
    {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "hi", is_error: false }],
    },
  ]);
  expect(result.conversation.at(-1)).toEqual({ role: "assistant", content: [text("done")] });
});

// A provider with a made-up protocol: if the loop read ids, roles or blocks, this would break it.
class PlainProvider implements ModelProvider {
  readonly seen: ConversationItem[][] = [];
  readonly handed: ToolResult[][] = [];
  #turns = 0;

  async complete(conversation: ConversationItem[]) {
    this.seen.push(structuredClone(conversation));
    this.#turns++;
    if (this.#turns === 1) {
      return {
        text: null,
        toolCalls: [
          { id: "a", name: "echo", arguments: { text: "one" } },
          { id: "b", name: "echo", arguments: { text: "two" } },
        ],
        stopReason: "tool_use",
        assistantItems: [{ said: "calls a and b" }, { said: "second item" }],
      };
    }
    return {
      text: "done",
      toolCalls: [],
      stopReason: "end_turn",
      assistantItems: [{ said: "done" }],
    };
  }

  toolResults(results: ToolResult[]): ConversationItem[] {
    this.handed.push(results);
    return results.map((result) => ({ answer: result.content, to: result.toolCallId }));
  }
}

test("the loop keeps whatever items a provider gives, in order, and never looks inside", async () => {
  const provider = new PlainProvider();
  const result = await runAgent("two echoes", provider, defaultTools());
  expect(result.trace).toEqual([
    'tool_call: echo {"text":"one"}',
    "observation: one",
    'tool_call: echo {"text":"two"}',
    "observation: two",
    "final: done",
  ]);
  // Every result of the turn reaches the provider at once, in the order of the calls.
  expect(provider.handed).toEqual([
    [
      { toolCallId: "a", content: "one", isError: false },
      { toolCallId: "b", content: "two", isError: false },
    ],
  ]);
  expect(provider.seen[1]).toEqual([
    { role: "user", content: "two echoes" },
    { said: "calls a and b" },
    { said: "second item" },
    { answer: "one", to: "a" },
    { answer: "two", to: "b" },
  ]);
  expect(result.conversation.at(-1)).toEqual({ said: "done" });
});

test("arguments the provider could not read are the model's mistake: an error result", async () => {
  const provider = new ScriptedProvider([
    {
      ...reply([toolUse("echo", {}, "call_1")]),
      toolCalls: [
        {
          id: "call_1",
          name: "echo",
          arguments: {},
          argumentsError: 'not valid JSON: {"text": "h',
        },
      ],
    },
    reply([text("Sorry, let me retry.")]),
  ]);
  const result = await runAgent("echo h", provider, defaultTools());
  provider.assertDone();
  expect(result.trace).toEqual([
    "tool_call: echo {}",
    'observation: bad arguments for echo: not valid JSON: {"text": "h',
    "final: Sorry, let me retry.",
  ]);
  expect(provider.requests[1]?.messages.at(-1)).toMatchObject({
    content: [{ tool_use_id: "call_1", is_error: true }],
  });
});

test("sends every tool_result of a turn in one user message, then asks the model once", async () => {
  const provider = new ScriptedProvider([
    reply([toolUse("echo", { text: "a" }, "toolu_a"), toolUse("system_date", {}, "toolu_b")]),
    reply([text("both")]),
  ]);
  await runAgent("two tools", provider, defaultTools());
  provider.assertDone();
  const messages = provider.requests[1]?.messages ?? [];
  expect(messages).toHaveLength(3);
  expect(messages[2]).toMatchObject({
    role: "user",
    content: [
      { type: "tool_result", tool_use_id: "toolu_a", content: "a", is_error: false },
      { type: "tool_result", tool_use_id: "toolu_b", is_error: false },
    ],
  });
});

test("thinking blocks go back unchanged, signatures included", async () => {
  const blocks = [thinking("The user wants the date."), toolUse("system_date", {}, "toolu_1")];
  const provider = new ScriptedProvider([reply(blocks), reply([text("Today.")])]);
  await runAgent("date?", provider, defaultTools());
  expect(provider.requests[1]?.messages[1]).toEqual({ role: "assistant", content: blocks });
});

test("an unknown tool is an is_error result the model reads; the run goes on", async () => {
  const provider = new ScriptedProvider([
    reply([toolUse("read_file", { path: "x" }, "toolu_1")]),
    reply([text("I cannot read files.")]),
  ]);
  const result = await runAgent("read x", provider, defaultTools());
  expect(result.trace).toEqual([
    'tool_call: read_file {"path":"x"}',
    "observation: unknown tool: read_file (available: echo, system_date)",
    "final: I cannot read files.",
  ]);
  expect(provider.requests[1]?.messages[2]).toEqual({
    role: "user",
    content: [
      {
        type: "tool_result",
        tool_use_id: "toolu_1",
        content: "unknown tool: read_file (available: echo, system_date)",
        is_error: true,
      },
    ],
  });
});

test("the tools go to the model with their schemas", async () => {
  const provider = new ScriptedProvider([reply([text("no tools needed")])]);
  const result = await runAgent("hello", provider, defaultTools());
  expect(result.trace).toEqual(["final: no tools needed"]);
  expect(provider.requests[0]?.tools.map((tool) => tool.name)).toEqual(["echo", "system_date"]);
});

test("the loop runs model -> tools -> model until a response has no tool calls", async () => {
  const provider = new ScriptedProvider([
    reply([toolUse("system_date", {}, "toolu_1")]),
    (request) => {
      const results = request.messages.at(-1) as { content: { content: string }[] };
      return reply([toolUse("echo", { text: results.content[0]?.content }, "toolu_2")]);
    },
    reply([text("done")]),
  ]);
  const result = await runAgent("chain", provider, defaultTools());
  provider.assertDone();
  expect(result.trace.map((line) => line.split(" ")[0])).toEqual([
    "tool_call:",
    "observation:",
    "tool_call:",
    "observation:",
    "final:",
  ]);
  expect(result.trace[1]?.slice("observation: ".length)).toBe(
    result.trace[3]?.slice("observation: ".length),
  );
  expect(
    provider.requests[2]?.messages.map((message) => (message as { role: string }).role),
  ).toEqual(["user", "assistant", "user", "assistant", "user"]);
});

test("maxSteps caps the model calls and says so in the final line", async () => {
  const provider = new ScriptedProvider([
    reply([toolUse("echo", { text: "1" })]),
    reply([toolUse("echo", { text: "2" })]),
  ]);
  const result = await runAgent("forever", provider, defaultTools(), { maxSteps: 2 });
  provider.assertDone();
  expect(result.final).toBe("reached max_steps=2");
  expect(result.trace.at(-1)).toBe("final: reached max_steps=2");
});

test.each([
  "max_tokens",
  "refusal",
  "content_filter",
  "pause_turn",
  "model_context_window_exceeded",
  "something_new",
])("stop_reason %s ends the run and runs none of the response's tools", async (stopReason) => {
  const provider = new ScriptedProvider([
    reply([text("I will echo"), toolUse("echo", {}, "toolu_cut")], { stopReason }),
  ]);
  const result = await runAgent("echo", provider, defaultTools());
  provider.assertDone();
  expect(result.trace).toEqual([`final: stopped: stop_reason=${stopReason}`]);
});

test("a tool that throws is a bug: the run fails with the tool's own error and stack", async () => {
  const tools = defaultTools();
  tools.register({
    name: "explode",
    description: "A test-only tool with a bug.",
    run: function explodingTool() {
      throw new TypeError("cannot read properties of undefined");
    },
  });
  const provider = new ScriptedProvider([
    reply([toolUse("explode", {}, "toolu_1")]),
    reply([text("never")]),
  ]);
  const error = await runAgent("boom", provider, tools).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TypeError);
  expect((error as Error).stack).toContain("explodingTool");
  expect(provider.requests).toHaveLength(1);
});

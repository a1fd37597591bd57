import { reply, ScriptedProvider, text, toolUse } from "@agent-code/test-kit";
import { expect, test } from "vitest";
import { runAgent } from "../src/agent.ts";
import { MockProvider } from "../src/model.ts";
import { defaultTools } from "../src/tools.ts";

test("one echo round with the mock model: trace and final answer", async () => {
  const result = await runAgent("echo hi using the echo tool", new MockProvider(), defaultTools());
  expect(result).toEqual({
    final: "echo tool returned: hi",
    trace: ['tool_call: echo {"text":"hi"}', "observation: hi", "final: echo tool returned: hi"],
  });
});

test("the tool result goes back as Day 1's role: tool message", async () => {
  const provider = new ScriptedProvider([
    reply([toolUse("echo", { text: "hi" }, "call_1")]),
    reply([text("done")]),
  ]);
  await runAgent("echo hi", provider, defaultTools());
  provider.assertDone();
  expect(provider.requests.map((request) => request.messages)).toEqual([
    [{ role: "user", content: "echo hi" }],
    [
      { role: "user", content: "echo hi" },
      {
        role: "assistant",
        content: null,
        toolCalls: [{ id: "call_1", name: "echo", arguments: { text: "hi" } }],
      },
      { role: "tool", toolCallId: "call_1", content: "hi" },
    ],
  ]);
});

test("a reply without tool calls is the final answer, and the model is asked once", async () => {
  const provider = new ScriptedProvider([reply([text("no tools needed")])]);
  const result = await runAgent("hello", provider, defaultTools());
  provider.assertDone();
  expect(result.trace).toEqual(["final: no tools needed"]);
});

test("every call of the response runs before the model is asked again", async () => {
  const provider = new ScriptedProvider([
    reply([toolUse("echo", { text: "a" }, "call_a"), toolUse("nope", {}, "call_b")]),
    reply([text("both ran")]),
  ]);
  const result = await runAgent("two calls", provider, defaultTools());
  provider.assertDone();
  expect(result.trace).toEqual([
    'tool_call: echo {"text":"a"}',
    "observation: a",
    "tool_call: nope {}",
    "observation: unknown tool: nope (available: echo)",
    "final: both ran",
  ]);
  expect(provider.requests[1]?.messages.slice(2)).toEqual([
    { role: "tool", toolCallId: "call_a", content: "a" },
    { role: "tool", toolCallId: "call_b", content: "unknown tool: nope (available: echo)" },
  ]);
});

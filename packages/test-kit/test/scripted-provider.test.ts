import { expect, test } from "vitest";
import { reply, text, thinking, toolUse } from "../src/builders.ts";
import { ScriptedProvider } from "../src/scripted-provider.ts";
import { verifyThinking } from "../src/signature.ts";

test("answers from its script in order and records each request", async () => {
  const provider = new ScriptedProvider([
    reply([toolUse("echo", { text: "a" }, "toolu_a")]),
    reply([text("done")]),
  ]);
  const first = await provider.complete(
    [{ role: "user", content: "hi" }],
    [{ name: "echo", description: "Repeat", parameters: { type: "object" } }],
  );
  const second = await provider.complete([{ role: "user", content: "again" }]);
  expect(first.toolCalls).toEqual([{ id: "toolu_a", name: "echo", arguments: { text: "a" } }]);
  expect(first.stopReason).toBe("tool_use");
  expect(second).toMatchObject({ text: "done", toolCalls: [], stopReason: "end_turn" });
  expect(provider.requests).toEqual([
    {
      messages: [{ role: "user", content: "hi" }],
      tools: [{ name: "echo", description: "Repeat", parameters: { type: "object" } }],
    },
    { messages: [{ role: "user", content: "again" }], tools: [] },
  ]);
  provider.assertDone();
});

test("throws, naming the call, when asked past the end of its script", async () => {
  const provider = new ScriptedProvider([reply([text("only one")])]);
  await provider.complete([]);
  await expect(provider.complete([])).rejects.toThrow(
    "ScriptedProvider: call 2 has no scripted step (the script held 1)",
  );
});

test("assertDone fails while steps are left", async () => {
  const provider = new ScriptedProvider([reply([text("a")]), reply([text("b")])]);
  await provider.complete([]);
  expect(() => provider.assertDone()).toThrow("1 scripted step(s) were never used after 1 call(s)");
});

test("recorded messages are copies: later mutation by the loop does not change them", async () => {
  const provider = new ScriptedProvider([reply([text("ok")])]);
  const messages: { role: string; content: unknown }[] = [{ role: "user", content: "hi" }];
  await provider.complete(messages);
  messages.push({ role: "assistant", content: "changed" });
  (messages[0] as { content: unknown }).content = "rewritten";
  expect(provider.requests[0]?.messages).toEqual([{ role: "user", content: "hi" }]);
});

test("a step may be a function of the request, or an error to throw", async () => {
  const provider = new ScriptedProvider([
    (request) => reply([text(`saw ${request.messages.length} message(s)`)]),
    { throws: new Error("boom") },
  ]);
  expect((await provider.complete([{ role: "user", content: "x" }])).text).toBe("saw 1 message(s)");
  await expect(provider.complete([])).rejects.toThrow("boom");
});

test("reply derives the stop reason and keeps the blocks as assistant content", () => {
  const blocks = [thinking("let me see"), text("calling"), toolUse("echo", {}, "toolu_x")];
  const response = reply(blocks);
  expect(response.stopReason).toBe("tool_use");
  expect(response.text).toBe("calling");
  expect(response.assistantContent).toEqual(blocks);
  expect(reply([text("hi")], { stopReason: "max_tokens" }).stopReason).toBe("max_tokens");
  expect(
    verifyThinking("let me see", blocks[0] && "signature" in blocks[0] ? blocks[0].signature : ""),
  ).toBe(true);
});

test("a turn also carries its assistant items, and results go back as one user message", async () => {
  const blocks = [text("calling"), toolUse("echo", { text: "a" }, "toolu_a")];
  const provider = new ScriptedProvider([reply(blocks)]);
  const turn = await provider.complete([{ role: "user", content: "hi" }]);
  expect(turn.assistantItems).toEqual([{ role: "assistant", content: blocks }]);
  expect(provider.toolResults([{ toolCallId: "toolu_a", content: "a", isError: true }])).toEqual([
    {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_a", content: "a", is_error: true }],
    },
  ]);
});

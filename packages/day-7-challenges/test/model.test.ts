import { describe, expect, test } from "vitest";
import { AnthropicProvider, createProvider, echoText, MockProvider } from "../src/model.ts";

describe("MockProvider", () => {
  test("asks for the echo tool on a user turn", async () => {
    const response = await new MockProvider().complete([
      { role: "user", content: "echo hi using the echo tool" },
    ]);
    expect(response).toEqual({
      text: null,
      toolCalls: [{ id: "call_echo_1", name: "echo", arguments: { text: "hi" } }],
      stopReason: "tool_use",
      assistantContent: [
        { type: "tool_use", id: "call_echo_1", name: "echo", input: { text: "hi" } },
      ],
    });
  });

  test("answers with the text of the tool_result block in the last user message", async () => {
    const response = await new MockProvider().complete([
      { role: "user", content: "echo hi" },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "call_echo_1", name: "echo", input: {} }],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "call_echo_1", content: "hi" }],
      },
    ]);
    expect(response).toEqual({
      text: "echo tool returned: hi",
      toolCalls: [],
      stopReason: "end_turn",
      assistantContent: [{ type: "text", text: "echo tool returned: hi" }],
    });
  });

  test("reads a tool_result whose content is text blocks", async () => {
    const response = await new MockProvider().complete([
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "call_echo_1",
            content: [{ type: "text", text: "hey" }],
          },
        ],
      },
    ]);
    expect(response.text).toBe("echo tool returned: hey");
  });
});

describe("echoText", () => {
  test.each([
    ["echo hi using the echo tool", "hi"],
    ["hello", "hello"],
    ["ECHO Hi There With The Echo Tool", "Hi There"],
    ["echo good morning!", "good morning"],
    ["say this with the echo tool", "say this"],
    ["echo   spaced out   ", "spaced out"],
    ["what?!", "what"],
    ["echo", "echo"],
    ["echo using the echo tool", "echo using the echo tool"],
    ["...", "..."],
    ["echoing is fun", "echoing is fun"],
  ])("%j -> %j", (prompt, expected) => {
    expect(echoText(prompt)).toBe(expected);
  });
});

describe("createProvider", () => {
  test("builds the mock, or AnthropicProvider with the model and base URL", () => {
    expect(createProvider("mock", "any")).toBeInstanceOf(MockProvider);
    process.env.ANTHROPIC_AUTH_TOKEN ??= "sk-test";
    const provider = createProvider("anthropic", "some-model", "http://127.0.0.1:9");
    expect(provider).toBeInstanceOf(AnthropicProvider);
    expect(provider).toMatchObject({ model: "some-model", baseURL: "http://127.0.0.1:9" });
  });

  test("an unknown name is an error that lists the valid ones", () => {
    expect(() => createProvider("openai", "m")).toThrow(
      "unknown provider: openai (expected one of: anthropic, mock)",
    );
  });
});

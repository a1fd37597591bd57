import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { ApiError, createProvider, defaultModel, resolveProviderName } from "../src/model.ts";
import { OpenAIChatProvider } from "../src/providers/chat.ts";
import { AnthropicProvider } from "../src/providers/messages.ts";
import { echoText, MockProvider } from "../src/providers/mock.ts";
import { OpenAIResponsesProvider } from "../src/providers/responses.ts";

const VARIABLES = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "DEEPSEEK_API_KEY",
  "OPENAI_API_KEY",
  "OPENAI_CHAT_API_KEY",
  "ANTHROPIC_BASE_URL",
  "OPENAI_BASE_URL",
  "OPENAI_CHAT_BASE_URL",
  "OPENAI_CHAT_MODEL",
];
const saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));

beforeEach(() => {
  for (const name of VARIABLES) delete process.env[name];
});

afterEach(() => {
  for (const name of VARIABLES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

describe("MockProvider", () => {
  test("asks for the echo tool on a user turn", async () => {
    const response = await new MockProvider().complete([
      { role: "user", content: "echo hi using the echo tool" },
    ]);
    expect(response).toEqual({
      text: null,
      toolCalls: [{ id: "call_echo_1", name: "echo", arguments: { text: "hi" } }],
      stopReason: "tool_use",
      assistantItems: [
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "call_echo_1", name: "echo", input: { text: "hi" } }],
        },
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
      assistantItems: [
        { role: "assistant", content: [{ type: "text", text: "echo tool returned: hi" }] },
      ],
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

describe("--provider auto", () => {
  test.each([
    [{}, "mock"],
    [{ OPENAI_CHAT_API_KEY: "k" }, "openai-chat"],
    [{ OPENAI_API_KEY: "k", OPENAI_CHAT_API_KEY: "k" }, "openai"],
    [{ DEEPSEEK_API_KEY: "k", OPENAI_API_KEY: "k" }, "deepseek"],
    [{ ANTHROPIC_AUTH_TOKEN: "k", OPENAI_API_KEY: "k" }, "deepseek"],
    [{ ANTHROPIC_API_KEY: "k", ANTHROPIC_AUTH_TOKEN: "k", OPENAI_API_KEY: "k" }, "anthropic"],
    [{ ANTHROPIC_API_KEY: "" }, "mock"],
  ])("with %j chooses %s", (env, expected) => {
    Object.assign(process.env, env);
    expect(resolveProviderName("auto")).toBe(expected);
  });

  test("offline is the mock; a named provider stays itself whatever keys are set", () => {
    process.env.OPENAI_API_KEY = "k";
    expect(resolveProviderName("offline")).toBe("mock");
    expect(resolveProviderName("deepseek")).toBe("deepseek");
  });
});

describe("createProvider", () => {
  test("builds each provider with the model and base URL", () => {
    Object.assign(process.env, {
      ANTHROPIC_API_KEY: "k",
      ANTHROPIC_AUTH_TOKEN: "k",
      OPENAI_API_KEY: "k",
      OPENAI_CHAT_API_KEY: "k",
      OPENAI_CHAT_BASE_URL: "http://127.0.0.1:9/v1",
    });
    expect(createProvider("mock", "any")).toBeInstanceOf(MockProvider);
    const cases = [
      ["anthropic", AnthropicProvider],
      ["deepseek", AnthropicProvider],
      ["openai", OpenAIResponsesProvider],
      ["openai-chat", OpenAIChatProvider],
    ] as const;
    for (const [name, kind] of cases) {
      const provider = createProvider(name, "some-model", "http://127.0.0.1:8");
      expect(provider).toBeInstanceOf(kind);
      expect(provider).toMatchObject({ model: "some-model", baseURL: "http://127.0.0.1:8" });
    }
  });

  test.each([
    ["anthropic", "https://api.anthropic.com", "claude-sonnet-5-5"],
    ["deepseek", "https://api.deepseek.com/anthropic", "deepseek-v4-flash"],
    ["openai", "https://api.openai.com/v1", "gpt-4.1"],
  ])("%s defaults to %s and %s", (name, baseURL, model) => {
    Object.assign(process.env, {
      ANTHROPIC_API_KEY: "k",
      DEEPSEEK_API_KEY: "k",
      OPENAI_API_KEY: "k",
    });
    expect(defaultModel(name)).toBe(model);
    expect(createProvider(name, defaultModel(name))).toMatchObject({ baseURL, model });
  });

  test("each base URL variable is read by its own providers", () => {
    Object.assign(process.env, {
      DEEPSEEK_API_KEY: "k",
      OPENAI_API_KEY: "k",
      ANTHROPIC_BASE_URL: "http://anthropic.test",
      OPENAI_BASE_URL: "http://openai.test/v1",
    });
    expect(createProvider("deepseek", "m")).toMatchObject({ baseURL: "http://anthropic.test" });
    expect(createProvider("openai", "m")).toMatchObject({ baseURL: "http://openai.test/v1" });
  });

  test("openai-chat takes its model from OPENAI_CHAT_MODEL; the mock is just mock", () => {
    expect(defaultModel("openai-chat")).toBe("gpt-4.1");
    process.env.OPENAI_CHAT_MODEL = "gateway-model";
    expect(defaultModel("openai-chat")).toBe("gateway-model");
    expect(defaultModel("mock")).toBe("mock");
  });

  test.each([
    ["anthropic", "set ANTHROPIC_API_KEY, e.g. export ANTHROPIC_API_KEY='sk-...'"],
    ["deepseek", "set ANTHROPIC_AUTH_TOKEN, e.g. export ANTHROPIC_AUTH_TOKEN='sk-...'"],
    ["openai", "set OPENAI_API_KEY, e.g. export OPENAI_API_KEY='sk-...'"],
    ["openai-chat", "set OPENAI_CHAT_API_KEY, e.g. export OPENAI_CHAT_API_KEY='sk-...'"],
  ])("no key for %s: an ApiError naming its variable", (name, message) => {
    // Another provider's key does not count.
    process.env.OPENAI_API_KEY = name === "openai" ? "" : "k";
    expect(() => createProvider(name, "m")).toThrow(new ApiError(message));
  });

  test("deepseek takes DEEPSEEK_API_KEY when ANTHROPIC_AUTH_TOKEN is not set", () => {
    process.env.DEEPSEEK_API_KEY = "k";
    expect(createProvider("deepseek", "m")).toBeInstanceOf(AnthropicProvider);
  });

  test("openai-chat needs a base URL, and says which variable to set", () => {
    process.env.OPENAI_CHAT_API_KEY = "k";
    expect(() => createProvider("openai-chat", "m")).toThrow(
      "set OPENAI_CHAT_BASE_URL to the gateway's base URL (e.g. https://example.com/v1), or pass --base-url",
    );
  });

  test("an unknown name is an error that lists the valid ones", () => {
    expect(() => createProvider("gemini", "m")).toThrow(
      "unknown provider: gemini (expected one of: auto, anthropic, deepseek, openai, openai-chat, mock, offline)",
    );
  });
});

// The OpenAI validators as plain functions, with no server behind them: what passes, the options,
// and the rules that need the server's memory staying quiet without it.
import { describe, expect, test } from "vitest";
import {
  isReasoningModel,
  type ResponsesMemory,
  validateChatRequest,
  validateResponsesRequest,
} from "../src/index.ts";

const user = (content: unknown) => ({ role: "user", content });
const fc = (callId: string, extra: object = {}) => ({
  type: "function_call",
  call_id: callId,
  name: "get_capital",
  arguments: '{"country":"PotatoLand"}',
  ...extra,
});
const output = (callId: string) => ({ type: "function_call_output", call_id: callId, output: "x" });

describe("validateChatRequest", () => {
  test("accepts real turn-2 bodies: content null or omitted next to tool_calls", () => {
    const calls = [{ id: "call_1", type: "function", function: { name: "f", arguments: "{}" } }];
    for (const assistant of [
      { role: "assistant", content: null, tool_calls: calls },
      { role: "assistant", tool_calls: calls },
    ]) {
      const body = {
        model: "gpt-4.1-mini",
        messages: [
          { role: "system", content: "be brief" },
          user("hi"),
          assistant,
          { role: "tool", tool_call_id: "call_1", content: [{ type: "text", text: "x" }] },
        ],
      };
      expect(validateChatRequest(body)).toBeNull();
    }
  });

  test("names the type it got, in the service's words", () => {
    const body = (args: unknown) => ({
      model: "m",
      messages: [
        user("hi"),
        {
          role: "assistant",
          tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: args } }],
        },
        { role: "tool", tool_call_id: "c", content: "x" },
      ],
    });
    const words = [[], 3, 1.5, true, null].map(
      (value) => validateChatRequest(body(value))?.message.match(/but got (.*) instead/)?.[1],
    );
    expect(words).toEqual(["an array", "an integer", "a decimal", "a boolean", "null"]);
  });

  test("C-9 follows the model name, and the option overrides it", () => {
    const body = (model: string) => ({ model, messages: [user("hi")], max_tokens: 10 });
    expect(validateChatRequest(body("o3-mini"))?.param).toBe("max_tokens");
    expect(validateChatRequest(body("gpt-4.1"))).toBeNull();
    expect(validateChatRequest(body("gpt-4.1"), { reasoning: true })?.code).toBe(
      "unsupported_parameter",
    );
    expect(validateChatRequest(body("gpt-5"), { reasoning: false })).toBeNull();
    expect(validateChatRequest(body("o3"), { flavour: "deepseek" })).toBeNull();
  });

  test("the DeepSeek flavour: an empty reasoning_content passes, thinking off needs none", () => {
    const turn = (extra: object) => ({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_00_a", type: "function", function: { name: "f", arguments: "{}" } }],
      ...extra,
    });
    const body = (assistant: object, extra: object = {}) => ({
      model: "deepseek-v4-flash",
      messages: [user("hi"), assistant, { role: "tool", tool_call_id: "call_00_a", content: "x" }],
      ...extra,
    });
    const deepseek = { flavour: "deepseek" } as const;
    expect(validateChatRequest(body(turn({ reasoning_content: "" })), deepseek)).toBeNull();
    expect(validateChatRequest(body(turn({})), deepseek)?.code).toBe("invalid_request_error");
    expect(
      validateChatRequest(body(turn({}), { thinking: { type: "disabled" } }), deepseek),
    ).toBeNull();
    // OpenAI itself ignores the field.
    expect(validateChatRequest(body(turn({})))).toBeNull();
  });
});

describe("validateResponsesRequest", () => {
  test("accepts the real stateless turn 2: a replayed call without its id", () => {
    const body = {
      model: "gpt-4o",
      input: [
        user("What is the capital of PotatoLand?"),
        { role: "assistant", content: "" },
        fc("call_61"),
        output("call_61"),
      ],
    };
    expect(validateResponsesRequest(body)).toBeNull();
    expect(
      validateResponsesRequest({ model: "gpt-4o", input: "hi", instructions: "x" }),
    ).toBeNull();
  });

  test("without memory, the rules that need the server stay quiet", () => {
    const body = {
      model: "gpt-5",
      previous_response_id: "resp_unknown",
      input: [user("hi"), fc("call_1", { id: "fc_never" }), output("call_1")],
    };
    expect(validateResponsesRequest(body)).toBeNull();
    const memory: ResponsesMemory = { responses: new Map(), items: new Map() };
    expect(validateResponsesRequest(body, { memory })?.code).toBe("previous_response_not_found");
    const { previous_response_id: _, ...stateless } = body;
    expect(validateResponsesRequest(stateless, { memory })?.status).toBe(404);
  });

  test("the reasoning rules follow the model name, and the option overrides it", () => {
    const body = (model: string) => ({
      model,
      input: [user("hi"), { type: "reasoning", id: "rs_1", summary: [] }],
    });
    expect(isReasoningModel("gpt-5-mini")).toBe(true);
    expect(isReasoningModel("o4-mini")).toBe(true);
    expect(isReasoningModel("gpt-4.1")).toBe(false);
    expect(isReasoningModel("omni")).toBe(false);
    expect(validateResponsesRequest(body("gpt-5"))?.message).toBe(
      "Item 'rs_1' of type 'reasoning' was provided without its required following item.",
    );
    expect(validateResponsesRequest(body("gpt-5"), { reasoning: false })).toBeNull();
    expect(validateResponsesRequest(body("gpt-4.1"))).toBeNull();
  });
});

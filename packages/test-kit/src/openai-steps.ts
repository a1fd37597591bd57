// Protocol-native steps for the OpenAI endpoints: a Responses step (`output` items) for tests of
// `/v1/responses` alone, a Chat step (`message`) for `/v1/chat/completions` alone. A neutral step
// (`content` blocks) plays on every endpoint instead; `openai-replies.ts` translates it.
import { checkOnly, isObject, optionalString, requireString } from "./json-checks.ts";

export type ResponsesOutputItem =
  | {
      type: "message";
      id?: string;
      role?: "assistant";
      status?: string;
      content: Array<
        | { type: "output_text"; text: string; annotations?: unknown[] }
        | { type: "refusal"; refusal: string }
      >;
    }
  | {
      type: "function_call";
      id?: string;
      call_id?: string;
      name: string;
      /** A JSON string, sent as written: a step may script arguments that are not JSON. */
      arguments: string;
      status?: string;
    }
  | {
      type: "reasoning";
      id?: string;
      summary?: Array<{ type: "summary_text"; text: string }>;
      encrypted_content?: string;
    };

export interface ResponsesStep {
  output: ResponsesOutputItem[];
  /** `completed` when absent. */
  status?: "completed" | "incomplete" | "failed";
  /** Defaults to `{reason: "max_output_tokens"}` for an `incomplete` status. */
  incomplete_details?: { reason: string } | null;
  usage?: Record<string, unknown>;
  delay_ms?: number;
}

export interface ChatToolCallStep {
  id?: string;
  type?: "function";
  function: { name: string; arguments: string };
}

export interface ChatStep {
  message: {
    role?: "assistant";
    content?: string | null;
    tool_calls?: ChatToolCallStep[];
    refusal?: string | null;
    /** DeepSeek's chain of thought. */
    reasoning_content?: string;
  };
  /** `tool_calls` when the message has some, else `stop`, when absent. */
  finish_reason?: string;
  usage?: Record<string, unknown>;
  delay_ms?: number;
}

export type NativeStep = ResponsesStep | ChatStep;

const RESPONSES_STATUSES = ["completed", "incomplete", "failed"];

/** Checks a step holding `output` (Responses) or `message` (Chat); `delay_ms` is checked already. */
export function parseNativeStep(value: Record<string, unknown>, where: string): NativeStep {
  if (value.usage !== undefined && !isObject(value.usage)) {
    throw new Error(`${where}: "usage" must be an object`);
  }
  if ("output" in value) {
    checkOnly(value, ["output", "status", "incomplete_details", "usage", "delay_ms"], where);
    if (!Array.isArray(value.output)) throw new Error(`${where}: "output" must be an array`);
    value.output.forEach((item, i) => {
      checkOutputItem(item, `${where}: output[${i}]`);
    });
    if (value.status !== undefined && !RESPONSES_STATUSES.includes(value.status as string)) {
      throw new Error(`${where}: "status" must be one of ${RESPONSES_STATUSES.join(", ")}`);
    }
    const details = value.incomplete_details;
    if (details !== undefined && details !== null) {
      if (!isObject(details)) throw new Error(`${where}: "incomplete_details" must be an object`);
      requireString(details, "reason", `${where}: incomplete_details`);
    }
    return value as unknown as ResponsesStep;
  }
  checkOnly(value, ["message", "finish_reason", "usage", "delay_ms"], where);
  checkChatMessage(value.message, `${where}: message`);
  optionalString(value, "finish_reason", where);
  return value as unknown as ChatStep;
}

function checkOutputItem(item: unknown, where: string): void {
  if (!isObject(item)) throw new Error(`${where} must be an object`);
  optionalString(item, "id", where);
  optionalString(item, "status", where);
  switch (item.type) {
    case "message":
      checkOnly(item, ["type", "id", "role", "status", "content"], where);
      if (item.role !== undefined && item.role !== "assistant") {
        throw new Error(`${where}: "role" must be "assistant"`);
      }
      if (!Array.isArray(item.content)) throw new Error(`${where}: "content" must be an array`);
      item.content.forEach((part, i) => {
        checkMessagePart(part, `${where}: content[${i}]`);
      });
      break;
    case "function_call":
      checkOnly(item, ["type", "id", "call_id", "name", "arguments", "status"], where);
      requireString(item, "name", where);
      optionalString(item, "call_id", where);
      requireString(item, "arguments", where);
      break;
    case "reasoning":
      checkOnly(item, ["type", "id", "summary", "encrypted_content", "status"], where);
      optionalString(item, "encrypted_content", where);
      if (item.summary !== undefined) {
        if (!Array.isArray(item.summary)) throw new Error(`${where}: "summary" must be an array`);
        item.summary.forEach((part, i) => {
          const at = `${where}: summary[${i}]`;
          if (!isObject(part) || part.type !== "summary_text") {
            throw new Error(`${at} must be {"type": "summary_text", "text": …}`);
          }
          requireString(part, "text", at);
          checkOnly(part, ["type", "text"], at);
        });
      }
      break;
    default:
      throw new Error(`${where}: "type" must be one of message, function_call, reasoning`);
  }
}

function checkMessagePart(part: unknown, where: string): void {
  if (!isObject(part)) throw new Error(`${where} must be an object`);
  if (part.type === "output_text") {
    requireString(part, "text", where);
    if (part.annotations !== undefined && !Array.isArray(part.annotations)) {
      throw new Error(`${where}: "annotations" must be an array`);
    }
    checkOnly(part, ["type", "text", "annotations"], where);
  } else if (part.type === "refusal") {
    requireString(part, "refusal", where);
    checkOnly(part, ["type", "refusal"], where);
  } else {
    throw new Error(`${where}: "type" must be one of output_text, refusal`);
  }
}

function checkChatMessage(message: unknown, where: string): void {
  if (!isObject(message)) throw new Error(`${where} must be an object`);
  checkOnly(message, ["role", "content", "tool_calls", "refusal", "reasoning_content"], where);
  if (message.role !== undefined && message.role !== "assistant") {
    throw new Error(`${where}: "role" must be "assistant"`);
  }
  for (const key of ["content", "refusal"]) {
    if (message[key] !== null) optionalString(message, key, where);
  }
  optionalString(message, "reasoning_content", where);
  if (message.tool_calls === undefined) return;
  if (!Array.isArray(message.tool_calls))
    throw new Error(`${where}: "tool_calls" must be an array`);
  message.tool_calls.forEach((call, i) => {
    const at = `${where}: tool_calls[${i}]`;
    if (!isObject(call)) throw new Error(`${at} must be an object`);
    checkOnly(call, ["id", "type", "function"], at);
    optionalString(call, "id", at);
    if (call.type !== undefined && call.type !== "function") {
      throw new Error(`${at}: "type" must be "function"`);
    }
    const fn = call.function;
    if (!isObject(fn)) throw new Error(`${at}: "function" must be an object`);
    checkOnly(fn, ["name", "arguments"], `${at}: function`);
    requireString(fn, "name", `${at}: function`);
    requireString(fn, "arguments", `${at}: function`);
  });
}

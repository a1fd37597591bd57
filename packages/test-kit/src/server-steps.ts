// Steps: what the fake server answers, one per request. One JSON format serves script files, the
// control API and in-process use, so every entry point checks steps with the same function here.
import { checkOnly, isObject, optionalString, requireString } from "./json-checks.ts";
import { type NativeStep, parseNativeStep } from "./openai-steps.ts";
import { checkExtraBlock, type ExtraBlock, extraFiller, isCore } from "./server-blocks.ts";
import { NOT_THE_API_FAULTS } from "./server-raw.ts";
import { signThinking } from "./signature.ts";

export type { ExtraBlock } from "./server-blocks.ts";

export type ReplyBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id?: string; name: string; input?: Record<string, unknown> }
  | { type: "thinking"; thinking: string; signature?: string }
  | { type: "redacted_thinking"; data: string };

export interface ReplyStep {
  content: (ReplyBlock | ExtraBlock)[];
  stop_reason?: string;
  stop_sequence?: string | null;
  usage?: Record<string, unknown>;
  delay_ms?: number;
  /** Streamed replies only: a pause before each event after the first, to watch a client read. */
  event_delay_ms?: number;
  /** What the request must be for this reply; otherwise the server refuses it with a 400. */
  expect?: StepExpectation;
}

/** A step's conditions on the request it answers (the Day 6 challenge's summary request). */
export interface StepExpectation {
  /** No tools offered: `tools` absent or empty. */
  no_tools?: boolean;
  /** A text the request must hold somewhere (in `system` or a message): an instruction. */
  contains?: string;
}

/** The instruction a model-written summary request holds (docs/day-6-challenges.md). */
export const SUMMARY_INSTRUCTION =
  "Summarize the conversation above so that the work can go on from the summary alone.";

/**
 * The reply to a request for a summary: `text`, but only if the request offers no tools and holds
 * the instruction. Any other request is refused with a 400 naming what it lacked, so a project
 * that sends the summary request with its tools, or that never sends one, fails loudly.
 */
export function summaryStep(text: string, instruction: string = SUMMARY_INSTRUCTION): ReplyStep {
  return {
    content: [{ type: "text", text }],
    expect: { no_tools: true, contains: instruction },
  };
}

/** Why a request does not meet its step's `expect`, or null when it does (or nothing is asked). */
export function unmetExpectation(step: ReplyStep, requestBody: unknown): string | null {
  const expect = step.expect;
  if (!expect) return null;
  const body = isObject(requestBody) ? requestBody : {};
  const lacks: string[] = [];
  if (expect.no_tools && Array.isArray(body.tools) && body.tools.length > 0) {
    lacks.push(`offers tools (${body.tools.length}) where none are expected`);
  }
  if (expect.contains !== undefined) {
    const needle = JSON.stringify(expect.contains).slice(1, -1);
    if (!JSON.stringify(body).includes(needle)) {
      lacks.push(`does not hold ${JSON.stringify(expect.contains)}`);
    }
  }
  return lacks.length === 0 ? null : `fake server: this step's request ${lacks.join(" and ")}`;
}

export interface ErrorStep {
  error: {
    status: number;
    type: string;
    message: string;
    headers?: Record<string, string>;
    /** The OpenAI envelope's `code` and `param` (the OpenAI endpoints only; null when absent). */
    code?: string | null;
    param?: string | null;
  };
  delay_ms?: number;
}

/** Every fault a step may name. */
export const FAULTS = [
  "drop",
  "malformed",
  "wrong-content-type",
  "stream-error",
  "stream-cut",
  ...NOT_THE_API_FAULTS,
] as const;

export type FaultName = (typeof FAULTS)[number];

export interface FaultStep {
  fault: FaultName;
  delay_ms?: number;
}

/** Any status, headers and body, sent as they are (only content-length is added). */
export interface RawStep {
  raw: { status?: number; headers?: Record<string, string>; body?: string };
  delay_ms?: number;
}

/** `NativeStep`s (Responses `output`, Chat `message`) answer only their own OpenAI endpoint. */
export type StepResult = ReplyStep | ErrorStep | FaultStep | RawStep | NativeStep;

/** A reply as the Messages API sends it: what `messages.create` resolves to. */
export interface ReplyMessage {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: (ReplyBlock | ExtraBlock)[];
  stop_reason: string;
  stop_sequence: string | null;
  stop_details: null;
  usage: Record<string, unknown>;
}

/** Where filled-in ids come from: per-server counters, so output is deterministic. */
export interface IdSource {
  messageId(): string;
  toolUseId(): string;
}

/** Checks a JSON value as a list of steps; the error names the step and field at fault. */
export function parseSteps(value: unknown): StepResult[] {
  if (!Array.isArray(value)) throw new Error("steps must be a JSON array");
  return value.map((step, i) => parseStep(step, `step ${i + 1}`));
}

export function parseStep(value: unknown, where: string): StepResult {
  if (!isObject(value)) throw new Error(`${where}: a step must be an object`);
  for (const key of ["delay_ms", "event_delay_ms"]) {
    const delay = value[key];
    if (delay !== undefined && !(typeof delay === "number" && delay >= 0)) {
      throw new Error(`${where}: "${key}" must be a number >= 0`);
    }
  }
  const kinds = ["content", "error", "fault", "raw", "output", "message"].filter(
    (key) => key in value,
  );
  if (kinds.length !== 1) {
    throw new Error(
      `${where}: a step needs exactly one of "content", "error", "fault", "raw", "output" or "message"`,
    );
  }
  if ("raw" in value) {
    checkRaw(value.raw, `${where}: raw`);
    checkOnly(value, ["raw", "delay_ms"], where);
    return value as unknown as RawStep;
  }
  if ("output" in value || "message" in value) return parseNativeStep(value, where);
  if ("fault" in value) {
    if (typeof value.fault !== "string" || !(FAULTS as readonly string[]).includes(value.fault)) {
      throw new Error(`${where}: "fault" must be one of ${FAULTS.join(", ")}`);
    }
    checkOnly(value, ["fault", "delay_ms"], where);
    return value as unknown as FaultStep;
  }
  if ("error" in value) {
    checkError(value.error, `${where}: error`);
    checkOnly(value, ["error", "delay_ms"], where);
    return value as unknown as ErrorStep;
  }
  checkOnly(
    value,
    ["content", "stop_reason", "stop_sequence", "usage", "delay_ms", "event_delay_ms", "expect"],
    where,
  );
  if (!Array.isArray(value.content)) throw new Error(`${where}: "content" must be an array`);
  value.content.forEach((block, i) => {
    checkBlock(block, `${where}: content[${i}]`);
  });
  if (value.stop_reason !== undefined && typeof value.stop_reason !== "string") {
    throw new Error(`${where}: "stop_reason" must be a string`);
  }
  const { stop_sequence } = value;
  if (stop_sequence !== undefined && stop_sequence !== null && typeof stop_sequence !== "string") {
    throw new Error(`${where}: "stop_sequence" must be a string or null`);
  }
  if (value.usage !== undefined && !isObject(value.usage)) {
    throw new Error(`${where}: "usage" must be an object`);
  }
  if (value.expect !== undefined) checkExpectation(value.expect, `${where}: expect`);
  return value as unknown as ReplyStep;
}

/** The full message for a reply step: ids and signatures filled in, stop reason derived. */
export function buildMessage(step: ReplyStep, requestBody: unknown, ids: IdSource): ReplyMessage {
  const id = ids.messageId();
  const fillExtra = extraFiller(id);
  const content = step.content.map((block) =>
    isCore(block) ? fillBlock(block, ids) : fillExtra(block),
  );
  const stopReason =
    step.stop_reason ??
    (content.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn");
  const body = isObject(requestBody) ? requestBody : {};
  const model = typeof body.model === "string" ? body.model : "";
  return {
    id,
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: stopReason,
    stop_sequence: step.stop_sequence ?? null,
    stop_details: null,
    usage: {
      // Only what the model reads counts, so `stream: true` does not change the figure.
      input_tokens: estimateTokens([body.system, body.tools, body.messages]),
      output_tokens: estimateTokens(content),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      service_tier: "standard",
      ...step.usage,
    },
  };
}

/**
 * DeepSeek thinks before it calls tools (thinking mode is on unless a request turns it off), so a
 * tool-use step without thinking gets a short one first; the server signs it, and a client must
 * send it back (reference §6).
 */
export function thinkingFirst(step: ReplyStep): ReplyStep {
  const names = step.content.flatMap((block) =>
    isCore(block) && block.type === "tool_use" ? [block.name] : [],
  );
  if (names.length === 0 || step.content.some((block) => block.type === "thinking")) return step;
  const thought = `To answer this I will call ${[...new Set(names)].join(", ")}.`;
  return { ...step, content: [{ type: "thinking", thinking: thought }, ...step.content] };
}

function fillBlock(block: ReplyBlock, ids: IdSource): ReplyBlock {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "tool_use":
      return {
        type: "tool_use",
        id: block.id ?? ids.toolUseId(),
        name: block.name,
        input: block.input ?? {},
      };
    case "thinking":
      return {
        type: "thinking",
        thinking: block.thinking,
        signature: block.signature ?? signThinking(block.thinking),
      };
    case "redacted_thinking":
      return { type: "redacted_thinking", data: block.data };
  }
}

// Deterministic stand-in for token counts: about four characters a token, as for English text.
export function estimateTokens(value: unknown): number {
  return Math.max(1, Math.ceil((JSON.stringify(value) ?? "").length / 4));
}

function checkError(value: unknown, where: string): void {
  if (!isObject(value)) throw new Error(`${where} must be an object`);
  const { status, type, message, headers, code, param } = value;
  if (!(Number.isInteger(status) && Number(status) >= 400 && Number(status) <= 599)) {
    throw new Error(`${where}: "status" must be an integer from 400 to 599`);
  }
  if (typeof type !== "string") throw new Error(`${where}: "type" must be a string`);
  if (typeof message !== "string") throw new Error(`${where}: "message" must be a string`);
  checkHeaders(headers, where);
  for (const [key, field] of Object.entries({ code, param })) {
    if (field !== undefined && field !== null && typeof field !== "string") {
      throw new Error(`${where}: "${key}" must be a string or null`);
    }
  }
  checkOnly(value, ["status", "type", "message", "headers", "code", "param"], where);
}

function checkExpectation(value: unknown, where: string): void {
  if (!isObject(value)) throw new Error(`${where} must be an object`);
  if (value.no_tools !== undefined && typeof value.no_tools !== "boolean") {
    throw new Error(`${where}: "no_tools" must be true or false`);
  }
  if (value.contains !== undefined && typeof value.contains !== "string") {
    throw new Error(`${where}: "contains" must be a string`);
  }
  checkOnly(value, ["no_tools", "contains"], where);
}

function checkHeaders(headers: unknown, where: string): void {
  if (headers === undefined) return;
  if (!isObject(headers) || Object.values(headers).some((v) => typeof v !== "string")) {
    throw new Error(`${where}: "headers" must be an object of strings`);
  }
}

function checkRaw(value: unknown, where: string): void {
  if (!isObject(value)) throw new Error(`${where} must be an object`);
  const { status, headers, body } = value;
  if (
    status !== undefined &&
    !(Number.isInteger(status) && Number(status) >= 200 && Number(status) <= 599)
  ) {
    throw new Error(`${where}: "status" must be an integer from 200 to 599`);
  }
  checkHeaders(headers, where);
  if (body !== undefined && typeof body !== "string")
    throw new Error(`${where}: "body" must be a string`);
  checkOnly(value, ["status", "headers", "body"], where);
}

function checkBlock(block: unknown, where: string): void {
  if (!isObject(block)) throw new Error(`${where} must be an object`);
  switch (block.type) {
    case "text":
      requireString(block, "text", where);
      checkOnly(block, ["type", "text"], where);
      break;
    case "tool_use":
      requireString(block, "name", where);
      optionalString(block, "id", where);
      if (block.input !== undefined && !isObject(block.input)) {
        throw new Error(`${where}: "input" must be an object`);
      }
      checkOnly(block, ["type", "id", "name", "input"], where);
      break;
    case "thinking":
      requireString(block, "thinking", where);
      optionalString(block, "signature", where);
      checkOnly(block, ["type", "thinking", "signature"], where);
      break;
    case "redacted_thinking":
      requireString(block, "data", where);
      checkOnly(block, ["type", "data"], where);
      break;
    default:
      // Server tool blocks and types newer than this kit go out as given, ids filled in.
      requireString(block, "type", where);
      checkExtraBlock(block, where);
  }
}

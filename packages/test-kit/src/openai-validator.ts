// The OpenAI protocol validators: check one Responses or Chat Completions request body the way the
// real services do (reference §5, §7, §8) and return the first violation, or null. Each violation
// is what the service's error envelope holds; the README lists every rule and its source.
import { isObject } from "./json-checks.ts";
import type { OutputItem } from "./openai-replies.ts";
import { deepSeekThinks } from "./validator.ts";

export interface OpenAIViolation {
  /** 404 only for a replayed item the server does not hold. */
  status: 400 | 404;
  type: "invalid_request_error";
  message: string;
  param: string | null;
  code: string | null;
}

/** What the server remembers of the responses it gave, for `previous_response_id` and replays. */
export interface ResponsesMemory {
  /** Responses a request may continue: those not created with `store: false`. */
  responses: Map<string, { previous: string | null; output: OutputItem[] }>;
  /** Every output item the server handed out, stored or not, by id. */
  items: Map<string, StoredItem>;
}

export interface StoredItem {
  type: string;
  /** False for the items of a `store: false` response: a replay cannot name them. */
  stored: boolean;
  /** A function call's `call_id`, for an `item_reference` to it. */
  call_id?: string;
  /** The reasoning item the server put before it in the same response. */
  reasoning?: string;
  /** A reasoning item's `encrypted_content`: with it a client may replay the item unstored. */
  encrypted_content?: string;
}

export interface ResponsesValidateOptions {
  /** Reasoning-model rules; by default, whether `isReasoningModel(body.model)`. */
  reasoning?: boolean;
  /** Without it the rules that need the server's memory (R-4, R-5, R-7, R-8's history, R-9) are skipped. */
  memory?: ResponsesMemory;
}

export interface ChatValidateOptions {
  /** `deepseek`: DeepSeek's OpenAI-compatible endpoint (reference §7, rules 17 and 18). */
  flavour?: "openai" | "deepseek";
  /** Reasoning-model rules (C-9); by default, whether `isReasoningModel(body.model)`. */
  reasoning?: boolean;
}

/** OpenAI's reasoning models, the o-series and gpt-5 family, by name. */
export function isReasoningModel(model: unknown): boolean {
  return typeof model === "string" && /^(o\d|gpt-5)/.test(model);
}

const CHAT_ROLES = ["system", "assistant", "user", "function", "tool", "developer"];
const INPUT_ROLES = ["assistant", "system", "developer", "user"];
const ID_PREFIXES: Record<string, string> = {
  reasoning: "rs",
  function_call: "fc",
  message: "msg",
};
const DEEPSEEK_REASONING =
  "The `reasoning_content` in the thinking mode must be passed back to the API.";

function fail(message: string, param: string | null, code: string | null): OpenAIViolation {
  return { status: 400, type: "invalid_request_error", message, param, code };
}

function missing(param: string): OpenAIViolation {
  return fail(`Missing required parameter: '${param}'.`, param, "missing_required_parameter");
}

function wrongType(param: string, expected: string, value: unknown): OpenAIViolation {
  return fail(
    `Invalid type for '${param}': expected ${expected}, but got ${typeName(value)} instead.`,
    param,
    "invalid_type",
  );
}

function belowMinimum(param: string, minimum: number, value: number): OpenAIViolation {
  return fail(
    `Invalid '${param}': integer below minimum value. Expected a value >= ${minimum}, but got ${value} instead.`,
    param,
    "integer_below_min_value",
  );
}

function emptyArray(param: string): OpenAIViolation {
  return fail(
    `Invalid '${param}': empty array. Expected an array with minimum length 1, but got an empty array instead.`,
    param,
    "empty_array",
  );
}

// The service's words for a JSON value's type, as in "but got an object instead".
function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number") return Number.isInteger(value) ? "an integer" : "a decimal";
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}

// Both APIs check their function tools in their own shape; other tool types (hosted tools,
// `custom`) are the service's own and pass.
function checkFunctionTools(
  tools: unknown[],
  check: (tool: Record<string, unknown>, at: string) => OpenAIViolation | null,
): OpenAIViolation | null {
  for (const [i, tool] of tools.entries()) {
    const at = `tools[${i}]`;
    if (!isObject(tool)) return wrongType(at, "an object", tool);
    if (tool.type === undefined) return missing(`${at}.type`);
    if (tool.type !== "function") continue;
    const problem = check(tool, at);
    if (problem) return problem;
  }
  return null;
}

function checkLimit(body: Record<string, unknown>, key: string, minimum: number) {
  const value = body[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== "number" || !Number.isInteger(value)) {
    return wrongType(key, "an integer", value);
  }
  return value < minimum ? belowMinimum(key, minimum, value) : null;
}

// ---------------------------------------------------------------- Chat Completions

export function validateChatRequest(
  body: unknown,
  options: ChatValidateOptions = {},
): OpenAIViolation | null {
  if (!isObject(body)) return wrongType("body", "an object", body);
  const deepseek = options.flavour === "deepseek";
  if (body.model === undefined) return fail("you must provide a model parameter", null, null);
  if (typeof body.model !== "string") return wrongType("model", "a string", body.model);
  if (body.messages === undefined) return missing("messages");
  if (!Array.isArray(body.messages)) return wrongType("messages", "an array", body.messages);
  if (body.messages.length === 0) return emptyArray("messages");
  const reasoning = options.reasoning ?? (!deepseek && isReasoningModel(body.model));
  if (reasoning && body.max_tokens !== undefined) {
    return fail(
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      "max_tokens",
      "unsupported_parameter",
    );
  }
  const messages = body.messages as unknown[];
  return (
    checkLimit(body, "max_tokens", 1) ??
    checkLimit(body, "max_completion_tokens", 1) ??
    checkChatTools(body) ??
    checkChatMessages(messages) ??
    checkChatPairing(messages, deepseek) ??
    (deepseek ? checkReasoningContent(messages, body) : null)
  );
}

function checkChatTools(body: Record<string, unknown>): OpenAIViolation | null {
  const { tools } = body;
  if (tools !== undefined) {
    if (!Array.isArray(tools)) return wrongType("tools", "an array", tools);
    if (tools.length === 0) return emptyArray("tools");
    const problem = checkFunctionTools(tools, (tool, at) => {
      // A Responses-shaped tool ({type, name, parameters}) has no `function`.
      if (tool.function === undefined) return missing(`${at}.function`);
      if (!isObject(tool.function)) return wrongType(`${at}.function`, "an object", tool.function);
      if (tool.function.name === undefined) return missing(`${at}.function.name`);
      if (typeof tool.function.name !== "string") {
        return wrongType(`${at}.function.name`, "a string", tool.function.name);
      }
      return null;
    });
    if (problem) return problem;
  }
  if (body.parallel_tool_calls !== undefined && tools === undefined) {
    return fail(
      "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified.",
      "parallel_tool_calls",
      "invalid_value",
    );
  }
  return null;
}

function checkChatMessages(messages: unknown[]): OpenAIViolation | null {
  for (const [i, message] of messages.entries()) {
    const at = `messages[${i}]`;
    if (!isObject(message)) return wrongType(at, "an object", message);
    const { role, content } = message;
    if (role === undefined) return missing(`${at}.role`);
    if (typeof role !== "string" || !CHAT_ROLES.includes(role)) {
      return fail(
        `Invalid value: '${String(role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
        `${at}.role`,
        "invalid_value",
      );
    }
    if (role === "tool" && message.tool_call_id === undefined) {
      return fail(
        "Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'.",
        `messages.[${i}].tool_call_id`,
        null,
      );
    }
    if (role === "tool" && typeof message.tool_call_id !== "string") {
      return wrongType(`${at}.tool_call_id`, "a string", message.tool_call_id);
    }
    const calls = role === "assistant" ? message.tool_calls : undefined;
    if (calls !== undefined && calls !== null) {
      const problem = checkToolCalls(calls, at);
      if (problem) return problem;
    }
    const hasCalls = Array.isArray(calls) && calls.length > 0;
    if (content === null && !hasCalls) {
      return fail(
        "Invalid value for 'content': expected a string, got null.",
        `messages.[${i}].content`,
        null,
      );
    }
    if (content === undefined && !hasCalls) return missing(`${at}.content`);
    if (content !== undefined && content !== null && typeof content !== "string") {
      if (!Array.isArray(content)) {
        return wrongType(`${at}.content`, "one of a string or array of objects", content);
      }
    }
  }
  return null;
}

function checkToolCalls(calls: unknown, at: string): OpenAIViolation | null {
  if (!Array.isArray(calls)) return wrongType(`${at}.tool_calls`, "an array", calls);
  for (const [j, call] of (calls as unknown[]).entries()) {
    const where = `${at}.tool_calls[${j}]`;
    if (!isObject(call)) return wrongType(where, "an object", call);
    if (call.id === undefined) return missing(`${where}.id`);
    if (typeof call.id !== "string") return wrongType(`${where}.id`, "a string", call.id);
    if (call.type === undefined) return missing(`${where}.type`);
    if (call.function === undefined) return missing(`${where}.function`);
    const fn = call.function;
    if (!isObject(fn)) return wrongType(`${where}.function`, "an object", fn);
    if (fn.name === undefined) return missing(`${where}.function.name`);
    if (fn.arguments === undefined) return missing(`${where}.function.arguments`);
    if (typeof fn.arguments !== "string") {
      // Any string passes, JSON or not, as at OpenAI (reference §5.1).
      return wrongType(`${where}.function.arguments`, "a string", fn.arguments);
    }
  }
  return null;
}

function callIds(message: Record<string, unknown>): string[] {
  const calls =
    message.role === "assistant" && Array.isArray(message.tool_calls) ? message.tool_calls : [];
  return calls.map((call: { id: string }) => call.id);
}

// C-1 and C-2: the tool messages right after an assistant turn answer every one of its calls, and
// a tool message answers a call of the assistant turn right before its group (reference §5.1).
function checkChatPairing(messages: unknown[], deepseek: boolean): OpenAIViolation | null {
  const list = messages as Record<string, unknown>[];
  let offered = new Set<string>();
  for (const [i, message] of list.entries()) {
    if (message.role === "tool") {
      if (offered.has(message.tool_call_id as string)) continue;
      if (deepseek) {
        return fail(
          "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'",
          null,
          "invalid_request_error",
        );
      }
      return fail(
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        `messages.[${i}].role`,
        null,
      );
    }
    const ids = callIds(message);
    offered = new Set(ids);
    if (ids.length === 0) continue;
    const answered = new Set<string>();
    let next = i + 1;
    for (; next < list.length; next++) {
      const reply = list[next];
      if (reply?.role !== "tool" || !offered.has(reply.tool_call_id as string)) break;
      answered.add(reply.tool_call_id as string);
    }
    const unanswered = ids.filter((id) => !answered.has(id));
    if (unanswered.length === 0) continue;
    if (deepseek) {
      return fail(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. (insufficient tool messages following tool_calls message)",
        null,
        "invalid_request_error",
      );
    }
    // The message that broke the group; the assistant turn itself when the request ends there.
    const place = next < list.length ? next : i;
    return fail(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${unanswered.join(", ")}`,
      `messages.[${place}].role`,
      null,
    );
  }
  return null;
}

// Rule 17: in thinking mode every assistant turn that called tools carries its reasoning back.
function checkReasoningContent(
  messages: unknown[],
  body: Record<string, unknown>,
): OpenAIViolation | null {
  if (!deepSeekThinks(body)) return null;
  for (const message of messages as Record<string, unknown>[]) {
    if (callIds(message).length === 0 || typeof message.reasoning_content === "string") continue;
    return fail(DEEPSEEK_REASONING, null, "invalid_request_error");
  }
  return null;
}

// ---------------------------------------------------------------- Responses

interface InputItem {
  index: number;
  type: string;
  id?: string;
  role?: string;
  call_id?: string;
  encrypted_content?: unknown;
}

export function validateResponsesRequest(
  body: unknown,
  options: ResponsesValidateOptions = {},
): OpenAIViolation | null {
  if (!isObject(body)) return wrongType("body", "an object", body);
  if (body.model === undefined) return missing("model");
  if (typeof body.model !== "string") return wrongType("model", "a string", body.model);
  const limit = checkLimit(body, "max_output_tokens", 16);
  if (limit) return limit;
  const tools = checkResponsesTools(body.tools);
  if (tools) return tools;
  const input = readInput(body.input);
  if (!Array.isArray(input)) return input;
  const { memory } = options;
  const previousId = body.previous_response_id;
  let history: { output: OutputItem[] }[] = [];
  if (previousId !== undefined && previousId !== null) {
    if (typeof previousId !== "string") {
      return wrongType("previous_response_id", "a string", previousId);
    }
    if (memory) {
      const chain = historyOf(previousId, memory);
      if (chain === null) {
        return fail(
          `Previous response with id '${previousId}' not found.`,
          "previous_response_id",
          "previous_response_not_found",
        );
      }
      history = chain;
    }
  }
  const reasoning = options.reasoning ?? isReasoningModel(body.model);
  const unknown = memory ? resolveReferences(input, memory) : null;
  return (
    unknown ??
    checkDuplicates(input, history) ??
    (memory ? checkReplayedIds(input, memory) : null) ??
    (reasoning ? checkReasoningPairs(input, history, memory) : null) ??
    checkCallPairs(input, history)
  );
}

function checkResponsesTools(tools: unknown): OpenAIViolation | null {
  if (tools === undefined) return null;
  if (!Array.isArray(tools)) return wrongType("tools", "an array", tools);
  return checkFunctionTools(tools, (tool, at) => {
    // A Chat-shaped tool ({type, function: {name}}) has no top-level `name` (reference §5.2).
    if (tool.name === undefined) return missing(`${at}.name`);
    if (typeof tool.name !== "string") return wrongType(`${at}.name`, "a string", tool.name);
    return null;
  });
}

function readInput(input: unknown): InputItem[] | OpenAIViolation {
  if (input === undefined || typeof input === "string") return [];
  if (!Array.isArray(input)) {
    return wrongType("input", "one of a string or array of objects", input);
  }
  const items: InputItem[] = [];
  for (const [index, raw] of (input as unknown[]).entries()) {
    const at = `input[${index}]`;
    if (!isObject(raw)) return wrongType(at, "an object", raw);
    const type = raw.type ?? (raw.role === undefined ? undefined : "message");
    if (type === undefined) return missing(`${at}.type`);
    if (typeof type !== "string") return wrongType(`${at}.type`, "a string", type);
    const problem = checkInputItem(raw, type, at);
    if (problem) return problem;
    const item: InputItem = { index, type };
    if (typeof raw.id === "string") item.id = raw.id;
    if (typeof raw.role === "string") item.role = raw.role;
    if (typeof raw.call_id === "string") item.call_id = raw.call_id;
    if (raw.encrypted_content !== undefined) item.encrypted_content = raw.encrypted_content;
    items.push(item);
  }
  return items;
}

function checkInputItem(
  raw: Record<string, unknown>,
  type: string,
  at: string,
): OpenAIViolation | null {
  switch (type) {
    case "message": {
      if (raw.role === undefined) return missing(`${at}.role`);
      if (typeof raw.role !== "string" || !INPUT_ROLES.includes(raw.role)) {
        return fail(
          `Invalid value: '${String(raw.role)}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`,
          at,
          "invalid_value",
        );
      }
      if (raw.content === undefined) return missing(`${at}.content`);
      if (typeof raw.content !== "string" && !Array.isArray(raw.content)) {
        return wrongType(`${at}.content`, "one of an array of objects or string", raw.content);
      }
      break;
    }
    case "function_call":
      for (const key of ["call_id", "name", "arguments"]) {
        if (raw[key] === undefined) return missing(`${at}.${key}`);
        if (typeof raw[key] !== "string") return wrongType(`${at}.${key}`, "a string", raw[key]);
      }
      break;
    case "function_call_output":
      if (raw.call_id === undefined) return missing(`${at}.call_id`);
      if (typeof raw.call_id !== "string")
        return wrongType(`${at}.call_id`, "a string", raw.call_id);
      if (raw.output === undefined) return missing(`${at}.output`);
      if (typeof raw.output !== "string" && !Array.isArray(raw.output)) {
        return wrongType(`${at}.output`, "one of a string or array of objects", raw.output);
      }
      break;
    case "reasoning":
      if (raw.summary === undefined) return missing(`${at}.summary`);
      if (!Array.isArray(raw.summary)) return wrongType(`${at}.summary`, "an array", raw.summary);
      break;
  }
  const prefix = ID_PREFIXES[type];
  if (prefix !== undefined && raw.id !== undefined && raw.id !== null) {
    if (typeof raw.id !== "string") return wrongType(`${at}.id`, "a string", raw.id);
    if (!raw.id.startsWith(prefix)) {
      return fail(
        `Invalid '${at}.id': '${raw.id}'. Expected an ID that begins with '${prefix}'.`,
        `${at}.id`,
        "invalid_value",
      );
    }
  }
  return null;
}

// The responses a `previous_response_id` continues, newest first, or null when it is unknown.
function historyOf(id: string, memory: ResponsesMemory): { output: OutputItem[] }[] | null {
  const chain: { output: OutputItem[] }[] = [];
  let next: string | null = id;
  while (next !== null) {
    const response = memory.responses.get(next);
    if (response === undefined) return chain.length === 0 ? null : chain;
    chain.push(response);
    next = response.previous;
  }
  return chain;
}

function checkDuplicates(
  input: InputItem[],
  history: { output: OutputItem[] }[],
): OpenAIViolation | null {
  const seen = new Set(history.flatMap((response) => response.output.map((item) => item.id)));
  for (const item of input) {
    if (item.id === undefined) continue;
    if (seen.has(item.id)) {
      return fail(
        `Duplicate item found with id ${item.id}. Remove duplicate items from your input and try again.`,
        "input",
        null,
      );
    }
    seen.add(item.id);
  }
  return null;
}

// An `item_reference` (what some clients send for a stored item, e.g. the Vercel AI SDK) stands
// for the item it names, which must be stored.
function resolveReferences(input: InputItem[], memory: ResponsesMemory): OpenAIViolation | null {
  for (const item of input) {
    if (item.type !== "item_reference" || item.id === undefined) continue;
    const known = memory.items.get(item.id);
    if (!known?.stored) return notFound(item.id);
    item.type = known.type;
    if (known.call_id !== undefined) item.call_id = known.call_id;
  }
  return null;
}

function notFound(id: string): OpenAIViolation {
  return {
    status: 404,
    type: "invalid_request_error",
    message: `Item with id '${id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
    param: "input",
    code: null,
  };
}

// an item named by id must be one the server holds; a reasoning item it handed out unstored
// may come back with its `encrypted_content` instead.
function checkReplayedIds(input: InputItem[], memory: ResponsesMemory): OpenAIViolation | null {
  for (const item of input) {
    if (item.id === undefined || ID_PREFIXES[item.type] === undefined) continue;
    const known = memory.items.get(item.id);
    if (known?.stored) continue;
    const carried = item.encrypted_content;
    if (known && item.type === "reasoning" && carried === known.encrypted_content) continue;
    return notFound(item.id);
  }
  return null;
}

// a reasoning item is followed by what it produced: an item the server produced
// after a reasoning item, replayed with its id, comes after that reasoning item.
function checkReasoningPairs(
  input: InputItem[],
  history: { output: OutputItem[] }[],
  memory: ResponsesMemory | undefined,
): OpenAIViolation | null {
  const present = new Set(history.flatMap((response) => response.output.map((item) => item.id)));
  for (const [position, item] of input.entries()) {
    if (item.type === "reasoning") {
      const next = input[position + 1];
      const produced =
        next?.type === "function_call" || (next?.type === "message" && next.role === "assistant");
      if (!produced) {
        return fail(
          `Item '${item.id ?? ""}' of type 'reasoning' was provided without its required following item.`,
          "input",
          null,
        );
      }
    } else if (item.id !== undefined && memory) {
      const reasoning = memory.items.get(item.id)?.reasoning;
      if (reasoning !== undefined && !present.has(reasoning)) {
        return fail(
          `Item '${item.id}' of type '${item.type}' was provided without its required 'reasoning' item: '${reasoning}'.`,
          "input",
          null,
        );
      }
    }
    if (item.id !== undefined) present.add(item.id);
  }
  return null;
}

// an output answers a call made earlier (in this input or the previous response); R-2: every
// call gets its output, the previous response's calls included.
function checkCallPairs(
  input: InputItem[],
  history: { output: OutputItem[] }[],
): OpenAIViolation | null {
  const previous = (history[0]?.output ?? []).flatMap((item) =>
    item.type === "function_call" ? [item.call_id] : [],
  );
  const made = new Set(
    history.flatMap((response) =>
      response.output.flatMap((item) => (item.type === "function_call" ? [item.call_id] : [])),
    ),
  );
  const answered = new Set<string>();
  const calls: string[] = [...previous];
  for (const item of input) {
    if (item.type === "function_call" && item.call_id !== undefined) {
      made.add(item.call_id);
      calls.push(item.call_id);
    }
    if (item.type !== "function_call_output" || item.call_id === undefined) continue;
    if (!made.has(item.call_id)) {
      return fail(
        `No tool call found for function call output with call_id ${item.call_id}.`,
        "input",
        null,
      );
    }
    answered.add(item.call_id);
  }
  const open = calls.find((id) => !answered.has(id));
  if (open === undefined) return null;
  return fail(`No tool output found for function call ${open}.`, "input", null);
}

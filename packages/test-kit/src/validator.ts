// The protocol validator: checks one Messages API request body the way the real service does
// (reference §3; DeepSeek §6) and returns the first violation, or null. The README lists each rule.
import { ANTHROPIC_MODELS, outputLimits } from "./models.ts";
import { CURRENT_VERSION, extraInput } from "./request-fields.ts";
import { verifyThinking } from "./signature.ts";

export interface Violation {
  status: 400;
  location?: string;
  message: string;
  /** `error.details` of the response, when the service sends one. */
  details?: Record<string, unknown>;
}

export interface ValidateOptions {
  flavour?: "anthropic" | "deepseek";
  /** `count_tokens` takes the same body without `max_tokens`; `messages` by default. */
  endpoint?: "messages" | "count_tokens";
  /** The request's `anthropic-version` header; absent counts as 2023-06-01. */
  version?: string;
  /** The names in the request's `anthropic-beta` header. */
  betas?: readonly string[];
  /** Output limits by model id; the server's model table by default. */
  maxTokens?: Readonly<Record<string, number>>;
}

type Role = "user" | "assistant";

// A content block that passed the shape checks, with where it sat in the request as sent.
type Block = { message: number; at: string } & (
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string }
  | { type: "tool_result"; toolUseId: string }
  | { type: "thinking"; thinking: string; signature: unknown }
  | { type: "redacted_thinking" }
  // Any other type: image, document, server tool blocks… `id` and `toolUseId` pair the server
  // tool calls with their results.
  | { type: "other"; wireType: string; id?: string; toolUseId?: string }
);

interface Message {
  index: number;
  role: Role;
  blocks: Block[];
}

// Consecutive same-role messages merged into one turn; each block keeps its original location.
interface Turn {
  role: Role;
  blocks: Block[];
}

const ID_PATTERN = /^[a-zA-Z0-9_-]+$/;
// The service's current pattern, as public clients quote it (the docs still say {1,64}).
const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,128}$/;
const THINKING_DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking";
const DEEPSEEK_THINKING =
  "The `content[].thinking` in the thinking mode must be passed back to the API.";
const MID_CONVERSATION_SYSTEM = "mid-conversation-system-2026-04-07";
const SERVER_CALLS = ["server_tool_use", "mcp_tool_use"];
const DEFAULT_LIMITS = outputLimits(ANTHROPIC_MODELS);

export function validateRequest(body: unknown, options: ValidateOptions = {}): Violation | null {
  const deepseek = options.flavour === "deepseek";
  const counting = options.endpoint === "count_tokens";
  const version = options.version ?? "2023-06-01";
  const betas = options.betas ?? [];
  if (!isRecord(body)) return violation(undefined, "Input should be a valid dictionary");
  const missing = checkRequiredFields(body, counting);
  if (missing) return missing;
  // `system` messages mid-conversation: API 2026-10-21, or its beta before that; not DeepSeek.
  const systemRole =
    !deepseek && (version >= CURRENT_VERSION || betas.includes(MID_CONVERSATION_SYSTEM));
  const messages = readMessages(body.messages, deepseek, systemRole);
  if (!Array.isArray(messages)) return messages;
  // DeepSeek ignores fields it does not know (§6); the service refuses them, at any depth.
  const extra = deepseek
    ? null
    : extraInput(body, { endpoint: counting ? "count_tokens" : "messages", version, betas });
  if (extra) return violation(extra, "Extra inputs are not permitted");
  // This server keeps no message threads. It says so the way the service does for a request
  // it cannot thread, which makes the SDK's tool runner resend the whole conversation unthreaded.
  if (!deepseek && body.thread !== undefined && body.thread !== null) {
    return {
      ...violation(
        undefined,
        "This request cannot use a message thread; send it without `thread`.",
      ),
      details: { error_code: "thread_unsupported_request", unsupported: [] },
    };
  }
  // The service merges consecutive same-role messages before its conversation rules (§1.1);
  // each block keeps the location it had as sent, which is what the texts name.
  const turns = mergeTurns(messages, { keepUsersApart: false });
  return (
    checkThinkingConfig(body, {
      deepseek,
      counting,
      limits: options.maxTokens ?? DEFAULT_LIMITS,
    }) ??
    checkTools(body.tools) ??
    checkEmptyContent(messages) ??
    checkTextBlocks(turns) ??
    checkPrefillWhitespace(turns) ??
    checkUniqueToolUseIds(turns) ??
    checkServerToolPairing(turns) ??
    // DeepSeek wants every result of a turn in the one user message right after it (§6).
    checkToolPairing(mergeTurns(messages, { keepUsersApart: deepseek })) ??
    (deepseek ? checkDeepSeekThinking(turns, body) : checkThinking(turns, body.thinking))
  );
}

/** Whether DeepSeek thinks on this request: unless it says `thinking: {type: "disabled"}` (§6). */
export function deepSeekThinks(body: unknown): boolean {
  return !(isRecord(body) && isRecord(body.thinking) && body.thinking.type === "disabled");
}

function violation(location: string | undefined, text: string): Violation {
  if (location === undefined) return { status: 400, message: text };
  return { status: 400, location, message: `${location}: ${text}` };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function checkRequiredFields(body: Record<string, unknown>, counting: boolean): Violation | null {
  if (typeof body.model !== "string") return wrongType(body.model, "model", "string");
  if (counting) {
    return body.messages === undefined ? violation("messages", "Field required") : null;
  }
  if (typeof body.max_tokens !== "number" || !Number.isInteger(body.max_tokens)) {
    return wrongType(body.max_tokens, "max_tokens", "integer");
  }
  if (body.max_tokens < 1) {
    return violation("max_tokens", "Input should be greater than or equal to 1");
  }
  if (body.messages === undefined) return violation("messages", "Field required");
  return null;
}

// Pydantic's wording, which the service's own field errors use (reference §3 rules 1 and 6).
function wrongType(value: unknown, location: string, expected: string): Violation {
  if (value === undefined) return violation(location, "Field required");
  return violation(location, `Input should be a valid ${expected}`);
}

function mismatch(location: string, pattern: RegExp): Violation {
  return violation(location, `String should match pattern '${pattern.source}'`);
}

// `system` messages are checked here and then left out: they hold instructions, not turns, so
// the conversation rules (merging, pairing, prefill) see only user and assistant messages.
function readMessages(
  value: unknown,
  deepseek: boolean,
  systemRole: boolean,
): Message[] | Violation {
  if (!Array.isArray(value)) return wrongType(value, "messages", "list");
  if (value.length === 0) return violation("messages", "at least one message is required");
  const messages: Message[] = [];
  for (const [index, raw] of (value as unknown[]).entries()) {
    const at = `messages.${index}`;
    if (!isRecord(raw)) return wrongType(raw, at, "dictionary");
    const { role, content } = raw;
    if (role === undefined) return violation(`${at}.role`, "Field required");
    if (role === "system" && systemRole) {
      const problem = checkSystemContent(content, at);
      if (problem) return problem;
      continue;
    }
    if (role !== "user" && role !== "assistant") {
      return violation(`${at}.role`, "Input should be 'user' or 'assistant'");
    }
    if (typeof content === "string") {
      const blocks: Block[] =
        content === ""
          ? []
          : [{ type: "text", text: content, message: index, at: `${at}.content.0` }];
      messages.push({ index, role, blocks });
      continue;
    }
    if (!Array.isArray(content)) return wrongType(content, `${at}.content`, "list");
    const blocks: Block[] = [];
    for (const [position, rawBlock] of (content as unknown[]).entries()) {
      const block = readBlock(rawBlock, index, `${at}.content.${position}`, deepseek);
      if ("status" in block) return block;
      blocks.push(block);
    }
    messages.push({ index, role, blocks });
  }
  return messages;
}

// Like the top-level `system`: a string or a list of text blocks.
function checkSystemContent(content: unknown, at: string): Violation | null {
  if (typeof content === "string") return null;
  if (!Array.isArray(content)) return wrongType(content, `${at}.content`, "list");
  for (const [position, block] of (content as unknown[]).entries()) {
    const where = `${at}.content.${position}`;
    if (!isRecord(block)) return wrongType(block, where, "dictionary");
    if (block.type !== "text") return violation(`${where}.type`, "Input should be 'text'");
    if (typeof block.text !== "string") return wrongType(block.text, `${where}.text`, "string");
  }
  return null;
}

// Field locations carry the block type as pydantic's union tag does, as in the real
// `messages.1.content.1.tool_use.id: String should match pattern …` (reference §3 rule 6).
function readBlock(
  raw: unknown,
  message: number,
  at: string,
  deepseek: boolean,
): Block | Violation {
  if (!isRecord(raw)) return wrongType(raw, at, "dictionary");
  const type = raw.type;
  if (typeof type !== "string") return wrongType(type, `${at}.type`, "string");
  switch (type) {
    case "text":
      if (typeof raw.text !== "string") return wrongType(raw.text, `${at}.text.text`, "string");
      return { type, text: raw.text, message, at };
    case "tool_use":
      if (typeof raw.id !== "string") return wrongType(raw.id, `${at}.tool_use.id`, "string");
      if (!ID_PATTERN.test(raw.id)) return mismatch(`${at}.tool_use.id`, ID_PATTERN);
      if (typeof raw.name !== "string") return wrongType(raw.name, `${at}.tool_use.name`, "string");
      if (!isRecord(raw.input)) return wrongType(raw.input, `${at}.tool_use.input`, "dictionary");
      return { type, id: raw.id, message, at };
    case "tool_result": {
      const id = raw.tool_use_id;
      if (typeof id !== "string") return wrongType(id, `${at}.tool_result.tool_use_id`, "string");
      if (!ID_PATTERN.test(id)) return mismatch(`${at}.tool_result.tool_use_id`, ID_PATTERN);
      const content = raw.content;
      if (content !== undefined && typeof content !== "string" && !Array.isArray(content)) {
        return wrongType(content, `${at}.tool_result.content`, "list");
      }
      return { type, toolUseId: id, message, at };
    }
    case "thinking":
      if (typeof raw.thinking !== "string") {
        return wrongType(raw.thinking, `${at}.thinking.thinking`, "string");
      }
      // DeepSeek's blocks may come without a signature (§6); its own rule decides about them.
      if (typeof raw.signature !== "string" && !(deepseek && raw.signature === undefined)) {
        return wrongType(raw.signature, `${at}.thinking.signature`, "string");
      }
      return { type, thinking: raw.thinking, signature: raw.signature, message, at };
    case "redacted_thinking":
      if (typeof raw.data !== "string") {
        return wrongType(raw.data, `${at}.redacted_thinking.data`, "string");
      }
      return { type, message, at };
    default:
      // image, document, server tool blocks…: the service knows them, we pass them through.
      return {
        type: "other",
        wireType: type,
        message,
        at,
        ...(typeof raw.id === "string" ? { id: raw.id } : {}),
        ...(typeof raw.tool_use_id === "string" ? { toolUseId: raw.tool_use_id } : {}),
      };
  }
}

function mergeTurns(messages: Message[], options: { keepUsersApart: boolean }): Turn[] {
  const turns: Turn[] = [];
  for (const message of messages) {
    const last = turns.at(-1);
    const apart = options.keepUsersApart && message.role === "user";
    if (last?.role === message.role && !apart) last.blocks.push(...message.blocks);
    else turns.push({ role: message.role, blocks: [...message.blocks] });
  }
  return turns;
}

// Rules 17 and 18 and the model's output limit (rule 1's second text). DeepSeek ignores the
// budget (§6) and documents no limit, so it gets none of them.
function checkThinkingConfig(
  body: Record<string, unknown>,
  context: { deepseek: boolean; counting: boolean; limits: Readonly<Record<string, number>> },
): Violation | null {
  if (context.deepseek) return null;
  const { thinking, tool_choice: toolChoice } = body;
  const manual = isRecord(thinking) && thinking.type === "enabled";
  const budget = manual ? thinking.budget_tokens : undefined;
  if (manual) {
    if (budget === undefined) return violation("thinking.enabled.budget_tokens", "Field required");
    if (typeof budget !== "number" || !Number.isInteger(budget)) {
      return violation("thinking.enabled.budget_tokens", "Input should be a valid integer");
    }
    if (budget < 1024) {
      return violation(
        "thinking.enabled.budget_tokens",
        "Input should be greater than or equal to 1024",
      );
    }
  }
  if (context.counting) return null;
  const maxTokens = body.max_tokens as number;
  const model = body.model as string;
  const limit = Object.hasOwn(context.limits, model) ? context.limits[model] : undefined;
  if (limit !== undefined && maxTokens > limit) {
    return violation(
      "max_tokens",
      `${maxTokens} > ${limit}, which is the maximum allowed number of output tokens for ${model}`,
    );
  }
  if (typeof budget === "number" && maxTokens <= budget) {
    return violation(
      undefined,
      `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. Please consult our documentation at ${THINKING_DOCS}#max-tokens-and-context-window-size`,
    );
  }
  // Adaptive thinking may be forced to use a tool; manual thinking may not (rule 18).
  if (manual && isRecord(toolChoice) && (toolChoice.type === "any" || toolChoice.type === "tool")) {
    return violation(undefined, "Thinking may not be enabled when tool_choice forces tool use.");
  }
  return null;
}

function checkTools(value: unknown): Violation | null {
  if (value === undefined) return null;
  if (!Array.isArray(value)) return wrongType(value, "tools", "list");
  for (const [index, tool] of (value as unknown[]).entries()) {
    if (!isRecord(tool)) return wrongType(tool, `tools.${index}`, "dictionary");
    // Server tools (`web_search_20250305`, `bash_20250124`…) are the service's own; like block
    // types we do not model, they pass through.
    if (tool.type !== undefined && tool.type !== "custom") continue;
    // pydantic names the union member, `custom` also when `type` is absent, as quoted texts show.
    const at = `tools.${index}.custom`;
    if (typeof tool.name !== "string") return wrongType(tool.name, `${at}.name`, "string");
    if (!TOOL_NAME_PATTERN.test(tool.name)) return mismatch(`${at}.name`, TOOL_NAME_PATTERN);
    const schema = tool.input_schema;
    if (!isRecord(schema)) return wrongType(schema, `${at}.input_schema`, "dictionary");
    if (schema.type === undefined) return violation(`${at}.input_schema.type`, "Field required");
    if (schema.type !== "object") {
      return violation(`${at}.input_schema.type`, "Input should be 'object'");
    }
  }
  return null;
}

// Judged per message as sent, like its text says ("all messages").
function checkEmptyContent(messages: Message[]): Violation | null {
  for (const message of messages) {
    const final = message === messages.at(-1);
    if (message.blocks.length > 0 || (final && message.role === "assistant")) continue;
    return violation(
      `messages.${message.index}`,
      "all messages must have non-empty content except for the optional final assistant message",
    );
  }
  return null;
}

function checkTextBlocks(turns: Turn[]): Violation | null {
  for (const turn of turns) {
    const texts = turn.blocks.flatMap((block) => (block.type === "text" ? [block.text] : []));
    if (texts.includes("")) return violation("messages", "text content blocks must be non-empty");
    // A whitespace block next to real text is accepted; alone it is not (§3 rule 8).
    if (texts.length > 0 && texts.every((text) => text.trim() === "")) {
      return violation("messages", "text content blocks must contain non-whitespace text");
    }
  }
  return null;
}

function checkPrefillWhitespace(turns: Turn[]): Violation | null {
  const last = turns.at(-1);
  const block = last?.blocks.at(-1);
  if (last?.role !== "assistant" || block?.type !== "text") return null;
  if (block.text === block.text.trimEnd()) return null;
  return violation("messages", "final assistant content cannot end with trailing whitespace");
}

function checkUniqueToolUseIds(turns: Turn[]): Violation | null {
  const seen = new Set<string>();
  for (const block of turns.flatMap((turn) => turn.blocks)) {
    if (block.type !== "tool_use") continue;
    if (seen.has(block.id)) return violation(block.at, "`tool_use` ids must be unique");
    seen.add(block.id);
  }
  return null;
}

function checkToolPairing(turns: Turn[]): Violation | null {
  for (const [position, turn] of turns.entries()) {
    if (turn.role === "user") {
      const previous = turns[position - 1];
      const offered = new Set(previous?.role === "assistant" ? toolUseIds(previous) : []);
      for (const block of turn.blocks) {
        if (block.type !== "tool_result" || offered.has(block.toolUseId)) continue;
        return violation(
          block.at,
          `unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${block.toolUseId}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        );
      }
      continue;
    }
    // The service reads only the leading tool_result blocks: a text before them hides them all.
    const answered = new Set<string>();
    for (const block of turns[position + 1]?.blocks ?? []) {
      if (block.type !== "tool_result") break;
      answered.add(block.toolUseId);
    }
    const unanswered = turn.blocks.flatMap((block) =>
      block.type === "tool_use" && !answered.has(block.id) ? [block] : [],
    );
    const first = unanswered[0];
    if (first === undefined) continue;
    const ids = unanswered.map((block) => block.id).join(", ");
    return violation(
      `messages.${first.message}`,
      `\`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${ids}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
    );
  }
  return null;
}

// Server tools run inside one response: the call (`server_tool_use`, `mcp_tool_use`) and its
// result block travel in the same assistant turn, the result after the call. Only the final
// assistant turn may end on a call still running (a `pause_turn` sent back to be continued).
function checkServerToolPairing(turns: Turn[]): Violation | null {
  for (const [position, turn] of turns.entries()) {
    if (turn.role !== "assistant") continue;
    const open = new Map<string, Block>();
    for (const block of turn.blocks) {
      if (block.type !== "other") continue;
      if (SERVER_CALLS.includes(block.wireType) && block.id !== undefined) {
        open.set(block.id, block);
        continue;
      }
      if (!isServerResult(block.wireType) || block.toolUseId === undefined) continue;
      if (open.delete(block.toolUseId)) continue;
      return violation(
        block.at,
        `unexpected \`tool_use_id\` found in \`${block.wireType}\` blocks: ${block.toolUseId}. Each \`${block.wireType}\` block must have a corresponding \`server_tool_use\` block before it.`,
      );
    }
    const [first] = open.values();
    if (first === undefined || position === turns.length - 1) continue;
    const ids = [...open.keys()].join(", ");
    return violation(
      `messages.${first.message}`,
      `server tool use ids were found without their result blocks after them: ${ids}. Each \`server_tool_use\` or \`mcp_tool_use\` block must be followed by its result block (such as \`web_search_tool_result\`) in the same message.`,
    );
  }
  return null;
}

function isServerResult(type: string): boolean {
  return type !== "tool_result" && type.endsWith("_tool_result");
}

function toolUseIds(turn: Turn): string[] {
  return turn.blocks.flatMap((block) => (block.type === "tool_use" ? [block.id] : []));
}

function checkThinking(turns: Turn[], thinking: unknown): Violation | null {
  const enabled =
    isRecord(thinking) && (thinking.type === "enabled" || thinking.type === "adaptive");
  const last = turns.at(-1);
  const latest = turns.findLast((turn) => turn.role === "assistant");
  // Mid tool loop (the request ends in results), the turn that asked for them must open with
  // the thinking that led to them (§3 rule 13); once the user speaks, earlier turns may drop it.
  const first = latest?.blocks[0];
  const midLoop = last?.role === "user" && last.blocks[0]?.type === "tool_result";
  const opensWithThinking = first?.type === "thinking" || first?.type === "redacted_thinking";
  if (enabled && midLoop && first && !opensWithThinking) {
    const found = first.type === "other" ? first.wireType : first.type;
    return violation(
      `${first.at}.type`,
      `Expected \`thinking\` or \`redacted_thinking\`, but found \`${found}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at ${THINKING_DOCS}`,
    );
  }
  // We mint every signature as an HMAC of the text, so any edit to either shows (§3 rule 15).
  for (const turn of turns) {
    for (const block of turn.blocks) {
      if (block.type !== "thinking" || verifyThinking(block.thinking, block.signature)) continue;
      if (turn !== latest) return violation(block.at, "Invalid `signature` in `thinking` block");
      return violation(
        block.at,
        "`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.",
      );
    }
  }
  if (enabled || last?.role !== "assistant") return null;
  const thought = last.blocks.find(
    (block) => block.type === "thinking" || block.type === "redacted_thinking",
  );
  if (thought === undefined) return null;
  return violation(
    thought.at,
    "When thinking is disabled, an `assistant` message in the final position cannot contain `thinking`. To use thinking blocks, enable `thinking` in your request.",
  );
}

// Replaces rules 13-16: DeepSeek answers those cases with its own text and ignores the thinking
// of turns that made no tool call (§6).
function checkDeepSeekThinking(turns: Turn[], body: Record<string, unknown>): Violation | null {
  if (!deepSeekThinks(body)) return null;
  for (const turn of turns) {
    if (turn.role !== "assistant" || toolUseIds(turn).length === 0) continue;
    const thoughts = turn.blocks.flatMap((block) => (block.type === "thinking" ? [block] : []));
    const intact = thoughts.every((block) => verifyThinking(block.thinking, block.signature));
    if (thoughts.length === 0 || !intact) return violation(undefined, DEEPSEEK_THINKING);
  }
  return null;
}

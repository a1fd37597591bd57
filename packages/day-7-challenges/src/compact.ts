// Compaction: when the conversation nears the model's window, its older rounds become one summary
// message and only the newest rounds are sent on. A cut falls only between rounds, so every
// tool_use keeps the tool_result that answers it, and the summary quotes the task being worked on.
import type Anthropic from "@anthropic-ai/sdk";
import type { Message } from "./model.ts";

// The threshold when AGENT_CODE_COMPACT_AT is not set, in tokens; 0 turns compaction off.
export const DEFAULT_COMPACT_AT = 100_000;
const SUMMARY_OPEN = "<compacted-history>";
const LISTED = 20;
const SHORT = 120;
const PREVIOUS = 2000;

// A bad AGENT_CODE_COMPACT_AT: exit code 1 before anything is sent.
export class CompactError extends Error {
  override name = "CompactError";
}

export function compactAtFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.AGENT_CODE_COMPACT_AT;
  if (raw === undefined || raw === "") return DEFAULT_COMPACT_AT;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value)) {
    throw new CompactError(
      `AGENT_CODE_COMPACT_AT must be a whole number, got ${JSON.stringify(raw)}`,
    );
  }
  return value;
}

// About a quarter of the JSON's length: the figure the test-kit's fake server reports, and near
// enough to a real tokenizer to decide when to cut. A message's estimate is worked out once.
const estimates = new WeakMap<object, number>();
export function estimateTokens(value: unknown): number {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const known = estimates.get(value);
    if (known !== undefined) return known;
    const tokens = Math.ceil((JSON.stringify(value) ?? "").length / 4);
    estimates.set(value, tokens);
    return tokens;
  }
  if (Array.isArray(value))
    return value.reduce((sum: number, item) => sum + estimateTokens(item), 0);
  return Math.ceil((JSON.stringify(value) ?? "").length / 4);
}

// Whether the next request would pass the threshold: what the last reply said its request cost,
// plus an estimate of what joined the conversation since. Without a reply's usage, the estimate.
export function shouldCompact({
  lastUsage,
  addedSince,
  threshold,
}: {
  lastUsage: number | undefined;
  addedSince: number;
  threshold: number;
}): boolean {
  return threshold > 0 && (lastUsage ?? 0) + addedSince >= threshold;
}

export interface Compacted {
  // What is sent from now on: the summary, then the kept messages (shortened where they had to be).
  messages: Message[];
  summary: string;
  // The index in the given messages of the first one kept.
  from: number;
  // The tool_use ids whose results were cut to the marker.
  shortened: string[];
  tokens: { before: number; after: number };
}

// The cut: the newest rounds that fit a quarter of the threshold (or `keep` tokens: 0 for the
// person's /compact), and always the last whole round. Null when there is nothing before the last
// round to summarize, or the summary saves nothing.
export function compact(
  messages: Message[],
  { threshold, keep }: { threshold: number; keep?: number },
): Compacted | null {
  const before = estimateTokens(messages);
  const cuts = cutPoints(messages);
  const lastRound = cuts.findLast((index) => messages[index]?.role === "assistant");
  if (lastRound === undefined) return null;
  const budget = Math.floor(threshold / 4);
  const tail = keep ?? budget;
  // Sizes from the end: the tail from each cut point to the last message.
  const sizes = suffixSizes(messages);
  let from = lastRound;
  for (const cut of cuts.toReversed()) {
    if (cut >= lastRound) continue;
    if ((sizes[cut] ?? 0) > tail) break;
    from = cut;
  }
  const first = isSummary(messages[0]) ? 1 : 0;
  if (from <= first) {
    // Only the last round is left after a summary: a round past the threshold alone still has its
    // results shortened, under the summary it already has; any other is left as it is.
    if (first === 0 || (sizes[first] ?? 0) <= threshold) return null;
    from = first;
  }
  let kept = messages.slice(from);
  let shortened: string[] = [];
  if ((sizes[from] ?? 0) > threshold) ({ kept, shortened } = shorten(kept, budget));
  const summary =
    from === first ? String(messages[0]?.content) : summarize(messages.slice(0, from), kept);
  const out: Message[] = [{ role: "user", content: summary }, ...kept];
  // A summary longer than what it replaces saves nothing.
  const after = estimateTokens(out);
  if (after >= before) return null;
  return {
    messages: out,
    summary,
    from,
    shortened,
    tokens: { before, after: estimateTokens(out) },
  };
}

// The marker a shortened result carries instead of its text.
export function shortenedMarker(characters: number): string {
  return `[result shortened by compaction: ${characters} characters not shown]`;
}

// Cuts the results with these ids to the marker, ids kept: how a compact record is replayed.
export function shortenResults(messages: Message[], ids: string[]): Message[] {
  if (ids.length === 0) return messages;
  const wanted = new Set(ids);
  return messages.map((message) => {
    if (typeof message.content === "string") return message;
    if (!message.content.some((b) => b.type === "tool_result" && wanted.has(b.tool_use_id))) {
      return message;
    }
    const content = message.content.map((block) =>
      block.type === "tool_result" && wanted.has(block.tool_use_id)
        ? { ...block, content: shortenedMarker(resultText(block).length) }
        : block,
    );
    return { ...message, content } as Message;
  });
}

// The oldest kept results first, until the tail fits the budget (the last may still not).
function shorten(kept: Message[], budget: number): { kept: Message[]; shortened: string[] } {
  const shortened: string[] = [];
  let out = kept;
  for (const message of kept) {
    if (typeof message.content === "string") continue;
    for (const block of message.content) {
      if (estimateTokens(out) <= budget) return { kept: out, shortened };
      if (block.type !== "tool_result" || resultText(block).length < SHORT * 4) continue;
      shortened.push(block.tool_use_id);
      out = shortenResults(kept, shortened);
    }
  }
  return { kept: out, shortened };
}

// Where a cut may fall: before an assistant turn, or before a prompt (a user message that answers
// no call). Never between a turn and its results.
function cutPoints(messages: Message[]): number[] {
  const cuts: number[] = [];
  for (const [index, message] of messages.entries()) {
    if (message.role === "assistant" || isPrompt(message)) cuts.push(index);
  }
  return cuts;
}

function suffixSizes(messages: Message[]): number[] {
  const sizes = new Array<number>(messages.length + 1).fill(0);
  for (let index = messages.length - 1; index >= 0; index--) {
    sizes[index] = (sizes[index + 1] ?? 0) + estimateTokens(messages[index]);
  }
  return sizes;
}

function isPrompt(message: Message): boolean {
  return (
    message.role === "user" &&
    (typeof message.content === "string" ||
      !message.content.some((block) => block.type === "tool_result"))
  );
}

export function isSummary(message: Message | undefined): boolean {
  return (
    message?.role === "user" &&
    typeof message.content === "string" &&
    message.content.startsWith(SUMMARY_OPEN)
  );
}

// What the dropped messages did, worked out from them alone (no model call): the task being worked
// on quoted whole, the earlier prompts, the tools, files and commands, and the last summary.
export function summarize(dropped: Message[], kept: Message[] = []): string {
  const previous = isSummary(dropped[0]) ? String(dropped[0]?.content) : undefined;
  const messages = previous === undefined ? dropped : dropped.slice(1);
  const prompts: { text: string; rounds: number }[] = [];
  const tools = new Set<string>();
  const read: string[] = [];
  const edited: string[] = [];
  const commands: string[] = [];
  const results = new Map<string, Anthropic.ToolResultBlockParam>();
  for (const message of messages) {
    if (typeof message.content === "string") continue;
    for (const block of message.content) {
      if (block.type === "tool_result") results.set(block.tool_use_id, block);
    }
  }
  for (const message of messages) {
    if (isPrompt(message)) {
      prompts.push({ text: promptText(message), rounds: 0 });
      continue;
    }
    if (message.role !== "assistant" || typeof message.content === "string") continue;
    const last = prompts.at(-1);
    if (last !== undefined) last.rounds += 1;
    for (const block of message.content) {
      if (block.type !== "tool_use") continue;
      tools.add(block.name);
      const input = (block.input ?? {}) as Record<string, unknown>;
      const result = results.get(block.id);
      const ok = result !== undefined && result.is_error !== true;
      if (block.name === "read_file" && ok && typeof input.path === "string") {
        read.push(input.path);
      }
      if (
        (block.name === "file_edit" || block.name === "file_write") &&
        ok &&
        typeof input.file_path === "string"
      ) {
        edited.push(input.file_path);
      }
      if (block.name === "bash" && typeof input.command === "string") {
        commands.push(`${cap(input.command)} (${commandOutcome(result)})`);
      }
    }
  }
  // The task being worked on: the newest prompt, kept or dropped; else the last summary's.
  const keptPrompt = kept.findLast(isPrompt);
  const current =
    keptPrompt !== undefined
      ? promptText(keptPrompt)
      : prompts.length > 0
        ? (prompts.pop()?.text ?? "")
        : (previous?.match(/<current-task>([\s\S]*?)<\/current-task>/)?.[1] ?? "");
  const lines = [SUMMARY_OPEN, `  <current-task>${current}</current-task>`];
  const earlier = prompts
    .slice(-LISTED)
    .map(({ text, rounds }) => `- ${cap(text)} (${rounds} ${rounds === 1 ? "round" : "rounds"})`);
  if (earlier.length > 0)
    lines.push(`  <earlier-prompts>${earlier.join("\n    ")}</earlier-prompts>`);
  lines.push(`  <message-count>${messages.length}</message-count>`);
  const field = (name: string, items: string[]) => {
    if (items.length > 0) lines.push(`  <${name}>${items.join(", ")}</${name}>`);
  };
  field("tools-used", [...tools].sort());
  field("files-read", unique(read).slice(-LISTED));
  field("files-edited", unique(edited).slice(-LISTED));
  field("commands-run", commands.slice(-LISTED));
  if (previous !== undefined) {
    const inner = previous.slice(SUMMARY_OPEN.length).replace(/<\/compacted-history>\s*$/, "");
    lines.push(`  <previous-summary>${inner.trim().slice(0, PREVIOUS)}</previous-summary>`);
  }
  lines.push("</compacted-history>");
  return lines.join("\n");
}

function promptText(message: Message): string {
  if (typeof message.content === "string") return message.content;
  return message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
}

function resultText(block: Anthropic.ToolResultBlockParam): string {
  const { content } = block;
  if (content === undefined) return "";
  return typeof content === "string" ? content : JSON.stringify(content);
}

// bash reports a non-zero exit code on its result's first line.
function commandOutcome(result: Anthropic.ToolResultBlockParam | undefined): string {
  if (result === undefined) return "no result";
  const code = resultText(result).match(/^exit code (\d+)/)?.[1];
  if (code !== undefined) return `exit code ${code}`;
  return result.is_error === true ? "not run" : "exit code 0";
}

function cap(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= SHORT ? line : `${line.slice(0, SHORT - 1)}…`;
}

function unique(items: string[]): string[] {
  return [...new Set(items.toReversed())].toReversed();
}

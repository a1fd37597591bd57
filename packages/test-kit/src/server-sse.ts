// A reply as the Messages API streams it (server-sent events). Clients must rebuild the exact
// message from the deltas, so text and JSON are cut at varying, deterministic points.
import type { ReplyBlock, ReplyMessage } from "./server-steps.ts";

/** The SSE events of a full streamed reply, each as `event: <type>\ndata: <json>\n\n`. */
export function streamEvents(message: ReplyMessage): string[] {
  const { content, stop_reason, stop_sequence, stop_details, usage } = message;
  const events = [
    sseEvent("message_start", {
      type: "message_start",
      message: {
        ...message,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        stop_details: null,
        usage: { ...usage, output_tokens: 1 },
      },
    }),
  ];
  content.forEach((block, index) => {
    events.push(
      sseEvent("content_block_start", {
        type: "content_block_start",
        index,
        content_block: startOf(block),
      }),
    );
    // The real service sends its first ping right after the first block opens.
    if (index === 0) events.push(sseEvent("ping", { type: "ping" }));
    for (const delta of deltasOf(block, seedOf(message.id, index))) {
      events.push(sseEvent("content_block_delta", { type: "content_block_delta", index, delta }));
    }
    events.push(sseEvent("content_block_stop", { type: "content_block_stop", index }));
  });
  if (content.length === 0) events.push(sseEvent("ping", { type: "ping" }));
  events.push(
    // Usage in message_delta is cumulative: the totals so far, not an increment.
    sseEvent("message_delta", {
      type: "message_delta",
      delta: { stop_reason, stop_sequence, stop_details },
      usage,
    }),
    sseEvent("message_stop", { type: "message_stop" }),
  );
  return events;
}

/** The error event the service sends when it fails after the 200 has gone out. */
export function overloadedEvent(): string {
  return sseEvent("error", {
    type: "error",
    error: { type: "overloaded_error", message: "Overloaded" },
  });
}

export function sseEvent(type: string, data: unknown): string {
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

function startOf(block: ReplyBlock): ReplyBlock {
  switch (block.type) {
    case "text":
      return { ...block, text: "" };
    case "tool_use":
      return { ...block, input: {} };
    case "thinking":
      return { ...block, thinking: "", signature: "" };
    case "redacted_thinking":
      return block;
  }
}

function deltasOf(block: ReplyBlock, seed: number): object[] {
  switch (block.type) {
    case "text":
      return pieces(block.text, seed).map((text) => ({ type: "text_delta", text }));
    case "tool_use": {
      const input = block.input ?? {};
      // A tool without arguments gets one empty partial_json; the SDK turns that into `{}`.
      if (Object.keys(input).length === 0) return [{ type: "input_json_delta", partial_json: "" }];
      const json = JSON.stringify(input);
      return ["", ...pieces(json, seed)].map((partial_json) => ({
        type: "input_json_delta",
        partial_json,
      }));
    }
    case "thinking":
      return [
        ...pieces(block.thinking, seed).map((thinking) => ({ type: "thinking_delta", thinking })),
        { type: "signature_delta", signature: block.signature ?? "" },
      ];
    case "redacted_thinking":
      return [];
  }
}

// Pieces of 1 to 12 characters from a xorshift sequence; whole code points, so no piece holds
// half of a surrogate pair.
export function pieces(text: string, seed: number): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  let state = seed;
  for (let at = 0; at < chars.length; ) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    const size = 1 + ((state >>> 0) % 12);
    out.push(chars.slice(at, at + size).join(""));
    at += size;
  }
  return out;
}

export function seedOf(messageId: string, index: number): number {
  let hash = 2166136261;
  for (const char of `${messageId}:${index}`) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619);
  return hash || 1;
}

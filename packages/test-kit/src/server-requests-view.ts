// `GET /_fake/<token>/requests?pretty`: the recorded requests as text a class can read off a
// projector: each request's verdict, then its conversation one message a line, blocks named by
// type. Two user messages in a row, a tool_result far from its tool_use: the shape of a bug shows
// at once.
import type { RecordedRequest } from "./server.ts";

export function requestsView(records: RecordedRequest[]): string {
  if (records.length === 0) return "no requests yet\n";
  return records.map(requestView).join("\n");
}

function requestView(record: RecordedRequest): string {
  const verdict = record.verdict.accepted
    ? "accepted"
    : `rejected ${record.verdict.status}: ${record.verdict.message}`;
  const lines = [`request ${record.index + 1}: ${record.method} ${record.path} (${verdict})`];
  const body = record.body as { messages?: unknown; input?: unknown } | null;
  const items = Array.isArray(body?.messages)
    ? body.messages
    : Array.isArray(body?.input)
      ? body.input
      : undefined;
  if (items === undefined) {
    lines.push(`  ${short(JSON.stringify(body))}`);
  } else {
    items.forEach((item, index) => {
      lines.push(`  [${index}] ${messageLine(item)}`);
    });
  }
  return `${lines.join("\n")}\n`;
}

// One message: its role, then each block in a few words.
function messageLine(message: unknown): string {
  const { role, type, content } = (message ?? {}) as {
    role?: string;
    type?: string;
    content?: unknown;
  };
  const who = role ?? type ?? "?";
  if (typeof content === "string") return `${who}: ${short(JSON.stringify(content))}`;
  if (!Array.isArray(content)) return `${who}: ${short(JSON.stringify(message))}`;
  return `${who}: ${content.map(blockText).join(", ")}`;
}

function blockText(block: unknown): string {
  const b = (block ?? {}) as Record<string, unknown>;
  switch (b.type) {
    case "text":
      return `text ${short(JSON.stringify(b.text))}`;
    case "tool_use":
      return `tool_use ${String(b.name)} ${short(JSON.stringify(b.input))} (${String(b.id)})`;
    case "tool_result":
      return `tool_result for ${String(b.tool_use_id)} ${short(JSON.stringify(b.content))}`;
    case "thinking":
      return "thinking (signed)";
    default:
      return String(b.type ?? short(JSON.stringify(block)));
  }
}

function short(text: string | undefined, max = 60): string {
  if (text === undefined) return "";
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

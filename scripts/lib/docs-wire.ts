// The wire of a replay (issue #46): every request the stage sent the fake server in the run a
// replay shows, and what came back, kept beside the replay as JSON for the site's wire view. A
// streamed reply is kept as the events that were sent and as the message they add up to, which is
// what a client must rebuild. What differs from run to run is normalised as in the replay text;
// no header is kept, so no key can appear.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type {
  RecordedRequest,
  RecordedResponse,
  Wire,
  WireEvent,
  WireExchange,
  WireResponse,
} from "@agent-code/test-kit";
import { stageDir } from "./command.ts";
import { sourceFiles } from "./stage-diff.ts";

export type Api = RecordedRequest["api"];

// Requests that ask a model for a turn; a model list or a token count is not a step of the loop.
const TURN_PATH = /\/(?:messages|responses|chat\/completions)$/;

// The wire of one run, or undefined when it sent no model request (a mock run, /help). `normalise`
// is the replay text's, applied to the JSON text.
export function wireOf(
  id: string,
  replay: string,
  requests: RecordedRequest[],
  responses: RecordedResponse[],
  normalise: (text: string) => string,
  window?: [number, number],
): Wire | undefined {
  const [stage = "", scenario = ""] = id.split("/");
  const exchanges: WireExchange[] = [];
  for (const request of requests) {
    if (request.method !== "POST" || !TURN_PATH.test(request.path)) continue;
    const response = responses.find((sent) => sent.index === request.index);
    if (response === undefined)
      throw new Error(`replay ${id}: request ${request.index + 1} got no response`);
    exchanges.push({
      api: request.api,
      request: { method: request.method, path: request.path, body: request.body },
      response: responseOf(request.api, response),
    });
  }
  if (exchanges.length === 0) return undefined;
  const [first, last] = window ?? [1, exchanges.length];
  if (first < 1 || last < first || last > exchanges.length) {
    throw new Error(
      `replay ${id}: keeps requests ${first} to ${last}, but the run sent ${exchanges.length}`,
    );
  }
  const whole = first === 1 && last === exchanges.length;
  const wire: Wire = {
    version: 1,
    stage,
    scenario,
    replay,
    sources: sourcesHash(stage),
    exchanges: exchanges.slice(first - 1, last),
    ...(whole ? {} : { kept: { first, of: exchanges.length } }),
  };
  return JSON.parse(normalise(JSON.stringify(wire))) as Wire;
}

// The stored form: two-space JSON and a final newline, as Biome formats JSON.
export function wireText(wire: Wire): string {
  return `${JSON.stringify(wire, null, 2)}\n`;
}

// docs/replays/day-2-v3-two-step-chain.wire.json for "day-2-v3/two-step-chain".
export function wireFile(id: string): string {
  return `docs/replays/${id.replace("/", "-")}.wire.json`;
}

// sha256 over the stage's src/ files, each as its path, a NUL, its text and a NUL, in path order.
export function sourcesHash(stage: string): string {
  const src = join(stageDir(stage), "src");
  const hash = createHash("sha256");
  for (const path of sourceFiles(src).sort()) {
    hash.update(`${path}\0`);
    hash.update(readFileSync(join(src, path)));
    hash.update("\0");
  }
  return `sha256:${hash.digest("hex")}`;
}

function responseOf(api: Api, response: RecordedResponse): WireResponse {
  const { status, contentType, body } = response;
  if (!contentType.includes("text/event-stream")) return { status, body: parsed(body) };
  const events = parseEvents(body);
  return { status, events, message: addUp(api, events) };
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

// Server-sent events: blocks split by a blank line, each with an `event:` line or not, and its
// `data:` lines joined. `[DONE]` and anything else that is not JSON stays a string.
export function parseEvents(text: string): WireEvent[] {
  const events: WireEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const lines = block.split(/\r?\n/).filter((line) => line !== "" && !line.startsWith(":"));
    if (lines.length === 0) continue;
    const field = (name: string) =>
      lines
        .filter((line) => line.startsWith(`${name}:`))
        .map((line) => line.slice(name.length + 1).replace(/^ /, ""));
    const [event] = field("event");
    events.push({ event: event ?? null, data: parsed(field("data").join("\n")) });
  }
  return events;
}

// biome-ignore lint/suspicious/noExplicitAny: event data is whatever the server streamed.
type Json = any;

// The message a stream adds up to, in the shape the same API returns unstreamed.
export function addUp(api: Api, events: WireEvent[]): unknown {
  const data = events.map((event) => event.data as Json);
  if (api === "responses") {
    const last = data.findLast((item) =>
      /^response\.(completed|incomplete|failed)$/.test(item?.type),
    );
    return last?.response ?? null;
  }
  if (api === "chat") return addUpChat(data);
  return addUpMessage(data);
}

// Anthropic's stream: message_start's message, each block from its start and its deltas, then
// message_delta's stop reason and usage.
function addUpMessage(data: Json[]): unknown {
  let message: Json = null;
  const json: string[] = [];
  for (const item of data) {
    if (item?.type === "message_start") message = { ...item.message, content: [] };
    else if (item?.type === "content_block_start" && message !== null) {
      message.content[item.index] = { ...item.content_block };
      json[item.index] = "";
    } else if (item?.type === "content_block_delta" && message !== null) {
      const block = message.content[item.index];
      const { delta } = item;
      if (delta.type === "text_delta") block.text += delta.text;
      else if (delta.type === "thinking_delta") block.thinking += delta.thinking;
      else if (delta.type === "signature_delta") block.signature = delta.signature;
      else if (delta.type === "input_json_delta") json[item.index] += delta.partial_json;
    } else if (item?.type === "content_block_stop" && message !== null) {
      const block = message.content[item.index];
      if (block.type === "tool_use") {
        const text = json[item.index] ?? "";
        block.input = text === "" ? {} : JSON.parse(text);
      }
    } else if (item?.type === "message_delta" && message !== null) {
      Object.assign(message, item.delta);
      message.usage = { ...message.usage, ...item.usage };
    }
  }
  return message;
}

// Chat Completions' chunks: the first chunk's fields, each choice's content and tool calls (by
// index, their arguments in fragments) joined, and its finish reason.
function addUpChat(data: Json[]): unknown {
  const chunks = data.filter((item) => item?.object === "chat.completion.chunk");
  const first = chunks[0];
  if (first === undefined) return null;
  const choices: Json[] = [];
  let usage: Json;
  for (const chunk of chunks) {
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices ?? []) {
      choices[choice.index] ??= {
        index: choice.index,
        message: { role: "assistant", content: null },
        finish_reason: null,
      };
      const into = choices[choice.index];
      const { delta = {} } = choice;
      if (typeof delta.content === "string")
        into.message.content = (into.message.content ?? "") + delta.content;
      for (const call of delta.tool_calls ?? []) {
        into.message.tool_calls ??= [];
        into.message.tool_calls[call.index] ??= {
          id: call.id,
          type: "function",
          function: { name: "", arguments: "" },
        };
        const to = into.message.tool_calls[call.index];
        if (call.id) to.id = call.id;
        if (call.function?.name) to.function.name += call.function.name;
        if (call.function?.arguments) to.function.arguments += call.function.arguments;
      }
      if (choice.finish_reason) into.finish_reason = choice.finish_reason;
    }
  }
  return {
    id: first.id,
    object: "chat.completion",
    created: first.created,
    model: first.model,
    choices,
    ...(usage === undefined ? {} : { usage }),
  };
}

// A part of a stored run, for a `<!-- wire: <stage>/<scenario> <n> <path> -->` block: request n's
// body (`request.messages.2`) or its response (`response.content`: the body, or a stream's
// message), by a dotted path of keys and list positions. JSON as the pages write it.
export function wireExcerpt(wire: Wire, number: number, path: string): unknown {
  const first = wire.kept?.first ?? 1;
  const exchange = wire.exchanges[number - first];
  if (exchange === undefined) {
    const kept = wire.kept;
    throw new Error(
      kept === undefined
        ? `the run sent ${wire.exchanges.length} request(s), not ${number}`
        : `the stored wire keeps requests ${first} to ${first + wire.exchanges.length - 1} of ${kept.of}, not ${number}`,
    );
  }
  const [side, ...keys] = path.split(".");
  const { response } = exchange;
  let value: unknown =
    side === "request"
      ? exchange.request.body
      : side === "response"
        ? "message" in response
          ? response.message
          : response.body
        : undefined;
  if (value === undefined) throw new Error(`a path starts with request or response, not ${side}`);
  for (const [at, key] of keys.entries()) {
    const next = (value as Record<string, unknown> | null)?.[key];
    if (typeof value !== "object" || value === null || next === undefined) {
      throw new Error(`request ${number} has no ${[side, ...keys.slice(0, at + 1)].join(".")}`);
    }
    value = next;
  }
  return value;
}

// JSON as a person lays it out: a list or an object on one line when it fits in `width` columns
// from `column`, where it starts, with `tail` characters after it (a comma), else one item a line,
// two spaces deeper than `indent`.
export function layoutJson(
  value: unknown,
  width = 100,
  indent = 0,
  column = indent,
  tail = 0,
): string {
  const flat = flatJson(value);
  if (column + flat.length + tail <= width || typeof value !== "object" || value === null) {
    return flat;
  }
  const inner = " ".repeat(indent + 2);
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((item) => ["", item])
    : Object.entries(value).map(([key, item]) => [`${JSON.stringify(key)}: `, item]);
  if (entries.length === 0) return flat;
  const items = entries.map(([key, item], index) => {
    const head = inner + key;
    const comma = index < entries.length - 1 ? 1 : 0;
    return head + layoutJson(item, width, indent + 2, head.length, comma);
  });
  const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  return `${open}\n${items.join(",\n")}\n${" ".repeat(indent)}${close}`;
}

// One line, with a space inside braces and after each colon and comma.
function flatJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(flatJson).join(", ")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).map(
      ([key, item]) => `${JSON.stringify(key)}: ${flatJson(item)}`,
    );
    return entries.length === 0 ? "{}" : `{ ${entries.join(", ")} }`;
  }
  return JSON.stringify(value);
}

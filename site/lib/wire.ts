// The stored wire of a replay (docs/replays/<stage>-<scenario>.wire.json: every request the agent
// sent and every response it got in that run) read into one view for the site, whichever API the
// run spoke: Anthropic Messages, OpenAI Responses or OpenAI Chat Completions.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Wire, WireExchange } from "@agent-code/test-kit";

export type WireApi = WireExchange["api"];

// One text, tool call or tool result, the same whatever the API. `role` is what the wire says: the
// role of the message holding it (a Messages API tool result is in a `user` message, Chat's in a
// `tool` one), or for a Responses item with no role, its type (`function_call_output`). `message`
// is the place of that message in the request, so the items of one message show together.
export interface WireItem {
  role: string;
  message?: number;
  kind: "text" | "tool_call" | "tool_result";
  text?: string;
  name?: string;
  id?: string;
  input?: unknown;
  isError?: boolean;
}

// One request and its response, as the site shows it.
export interface WireStep {
  api: WireApi;
  status: number;
  // What the agent sent, and from which item on it is new since the previous request.
  sent: WireItem[];
  newFrom: number;
  answer: WireItem[];
  stop: string | undefined;
  streamed: boolean;
  events: number;
  request: WireExchange["request"];
  response: WireExchange["response"];
}

const VERSION = 1;

// The wire file beside a replay, relative to the repository.
export function wireFile(stage: string, scenario: string): string {
  return `docs/replays/${stage}-${scenario}.wire.json`;
}

// The stored wire of `stage/scenario`, or undefined when that replay has none.
export function readWire(docsDir: string, stage: string, scenario: string): Wire | undefined {
  const path = join(docsDir, "replays", `${stage}-${scenario}.wire.json`);
  if (!existsSync(path)) return undefined;
  const wire = JSON.parse(readFileSync(path, "utf8")) as Wire;
  checkVersion(wire, path);
  return wire;
}

export function wireSteps(wire: Wire): WireStep[] {
  checkVersion(wire, wireFile(wire.stage, wire.scenario));
  // A wire that keeps part of a run starts after requests it does not have: its first request's
  // messages are not marked new, since what came before them is not known here.
  let previous: unknown[] | undefined = wire.kept === undefined ? [] : undefined;
  return wire.exchanges.map((exchange) => {
    const messages = requestMessages(exchange);
    // A message is new unless the previous request already sent it at the same place.
    let same = previous === undefined ? messages.length : 0;
    while (
      previous !== undefined &&
      same < messages.length &&
      same < previous.length &&
      JSON.stringify(messages[same]) === JSON.stringify(previous[same])
    ) {
      same++;
    }
    previous = messages;
    const perMessage = messages.map((message, index) =>
      messageItems(exchange.api, message).map((item) => ({ ...item, message: index })),
    );
    const { response } = exchange;
    const streamed = "events" in response;
    const body = streamed ? response.message : response.body;
    return {
      api: exchange.api,
      status: response.status,
      sent: perMessage.flat(),
      newFrom: perMessage.slice(0, same).flat().length,
      answer: answerItems(exchange.api, body),
      stop: stopReason(exchange.api, body),
      streamed,
      events: streamed ? response.events.length : 0,
      request: exchange.request,
      response,
    };
  });
}

function checkVersion(wire: { version?: unknown }, file: string): void {
  if (wire.version !== VERSION) {
    throw new Error(
      `${file}: wire version ${JSON.stringify(wire.version)} is unknown; the site reads version ${VERSION}`,
    );
  }
}

type Json = Record<string, unknown>;

// The request's conversation, the system prompt first as a message of its own.
function requestMessages({ api, request }: WireExchange): unknown[] {
  const body = asObject(request.body);
  if (api === "messages") {
    const system = body.system === undefined ? [] : [{ role: "system", content: body.system }];
    return [...system, ...asArray(body.messages)];
  }
  if (api === "responses") {
    const system =
      typeof body.instructions === "string" ? [{ role: "system", content: body.instructions }] : [];
    return [...system, ...asArray(body.input)];
  }
  return asArray(body.messages);
}

function messageItems(api: WireApi, message: unknown): WireItem[] {
  const m = asObject(message);
  const role = typeof m.role === "string" ? m.role : String(m.type ?? "user");
  if (api === "responses" && m.type === "function_call") {
    return [call(role, String(m.call_id), String(m.name), parseArguments(m.arguments))];
  }
  if (api === "responses" && m.type === "function_call_output") {
    return [result(role, String(m.call_id), textOf(m.output), false)];
  }
  if (api === "chat" && m.role === "tool") {
    return [result(role, String(m.tool_call_id), textOf(m.content), false)];
  }
  const items = contentItems(role, m.content);
  for (const toolCall of asArray(m.tool_calls)) {
    const { id, function: fn } = asObject(toolCall);
    const { name, arguments: args } = asObject(fn);
    items.push(call(role, String(id), String(name), parseArguments(args)));
  }
  return items;
}

// A message's content: a string, or blocks of text, tool calls and tool results.
function contentItems(role: string, content: unknown): WireItem[] {
  if (content === null || content === undefined) return [];
  if (!Array.isArray(content)) return [{ role, kind: "text", text: textOf(content) }];
  return content.map((value): WireItem => {
    const block = asObject(value);
    if (block.type === "tool_use") {
      return call(role, String(block.id), String(block.name), block.input);
    }
    if (block.type === "function_call") {
      const input = parseArguments(block.arguments);
      return call(role, String(block.call_id), String(block.name), input);
    }
    if (block.type === "tool_result") {
      const text = textOf(block.content);
      return result(role, String(block.tool_use_id), text, block.is_error === true);
    }
    return { role, kind: "text", text: textOf(block) };
  });
}

function answerItems(api: WireApi, body: unknown): WireItem[] {
  if (typeof body === "string")
    return [{ role: "assistant", kind: "text", text: body, isError: true }];
  const b = asObject(body);
  if (b.type === "error" || (b.error !== undefined && b.error !== null)) {
    const { type, message } = asObject(b.error);
    const text = [type, message].filter((part) => part !== undefined).join(": ");
    return [{ role: "assistant", kind: "text", text, isError: true }];
  }
  if (api === "messages") return contentItems("assistant", b.content);
  if (api === "responses") {
    return asArray(b.output).flatMap((output) => {
      const item = asObject(output);
      if (item.type === "message") return contentItems("assistant", item.content);
      return contentItems("assistant", [item]);
    });
  }
  const choice = asObject(asArray(b.choices)[0]);
  return messageItems(api, { ...asObject(choice.message), role: "assistant" });
}

function stopReason(api: WireApi, body: unknown): string | undefined {
  const b = asObject(body);
  const reason =
    api === "messages"
      ? b.stop_reason
      : api === "responses"
        ? b.status
        : asObject(asArray(b.choices)[0]).finish_reason;
  return typeof reason === "string" ? reason : undefined;
}

function call(role: string, id: string, name: string, input: unknown): WireItem {
  return { role, kind: "tool_call", id, name, input };
}

function result(role: string, id: string, text: string, isError: boolean): WireItem {
  return { role, kind: "tool_result", id, text, isError };
}

// The words of a string, of text blocks, or of any other block as its JSON.
function textOf(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(textOf).join("\n");
  const block = asObject(value);
  if (typeof block.text === "string") return block.text;
  return value === undefined ? "" : JSON.stringify(value);
}

// Tool arguments travel as a JSON string in the OpenAI APIs; shown as the object they encode.
function parseArguments(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function asObject(value: unknown): Json {
  return typeof value === "object" && value !== null ? (value as Json) : {};
}

// Small predicates the stage contracts share. Each returns a Judgement: a check plus the message a
// learner sees when it fails and the docs section that explains it.
import { constants } from "node:os";
import type { Judgement, Observed } from "./contract.ts";
import type { RecordedRequest } from "./server.ts";
import { parseTrace, type TraceEntry } from "./trace.ts";

export function judge(
  docs: string,
  message: string,
  check: (observed: Observed) => boolean,
): Judgement {
  return { docs, message, check };
}

export function toolCalls(observed: Observed): Extract<TraceEntry, { kind: "tool_call" }>[] {
  return observed.trace.filter((entry) => entry.kind === "tool_call");
}

// A REPL prints one trace per line of input, so its tool calls are read line by line from stdout
// (the parsed trace would fold everything after the first `final:` into that final text).
export function replToolArguments(observed: Observed): unknown[] {
  return observed.stdoutLines
    .filter((line) => line.startsWith("tool_call: "))
    .flatMap((line) => parseTrace(line))
    .map((entry) => (entry.kind === "tool_call" ? entry.arguments : undefined));
}

export function observations(observed: Observed): string[] {
  return observed.trace.flatMap((entry) => (entry.kind === "observation" ? [entry.text] : []));
}

export function finalText(observed: Observed): string | undefined {
  const last = observed.trace.at(-1);
  return last?.kind === "final" ? last.text : undefined;
}

// Deep equality of parsed JSON values, so {"text":"hi"} and {'text': 'hi'} compare equal.
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  return (
    keysA.length === keysB.length &&
    keysA.every((key) =>
      sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
    )
  );
}

function stderrLines(observed: Observed): string[] {
  return observed.stderr.split("\n").filter((line) => line.trim() !== "");
}

// One `error: …` line and nothing else: no stack trace for a user's mistake.
export function oneErrorLine(docs: string): Judgement {
  return judge(
    docs,
    "stderr should hold exactly one line starting with `error: ` (no stack trace)",
    (observed) => {
      const lines = stderrLines(observed);
      return lines.length === 1 && lines[0]?.startsWith("error: ") === true;
    },
  );
}

// A code over 128 is also met by a death from signal code - 128, as a shell reports it (Python's
// KeyboardInterrupt ends the program by SIGINT: `$?` is 130). pnpm check's sandbox cannot tell the
// two apart, so neither does the judgement.
// Exit 1 is also what Node (and Python) give an uncaught error: a run that wants it is marked, so
// a crash is not taken for what it asks.
export function exitCode(docs: string, code: number, why: string): Judgement {
  const signal = Object.entries(constants.signals).find(([, n]) => n === code - 128)?.[0];
  return {
    ...judge(
      docs,
      `exit code should be ${code} (${why})`,
      (observed) =>
        observed.exitCode === code || (signal !== undefined && observed.signal === signal),
    ),
    ...(code === 1 ? { expectsFailure: true } : {}),
  };
}

export function nonZeroExit(docs: string, why: string): Judgement {
  return {
    ...judge(
      docs,
      `exit code should be non-zero (${why})`,
      (observed) => observed.exitCode !== null && observed.exitCode !== 0,
    ),
    expectsFailure: true,
  };
}

// The text of a wire message whatever its form: a string, or text blocks.
export function messageText(message: unknown): string {
  return contentText((message as { content?: unknown })?.content);
}

// The text of message or tool_result content: a string, or text blocks.
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((block) => block?.type === "text")
    .map((block) => String(block.text))
    .join("\n");
}

// No run of the scenario printed `secret`, on stdout or stderr.
export function mentionsNoSecret(observed: Observed, secret: string): boolean {
  return observed.runs.every((run) => !run.stdout.includes(secret) && !run.stderr.includes(secret));
}

// A judgement that no request's body holds `text` in any of its strings (its keys too), however
// the JSON escaped it: a secret from outside the working directory, a key, a NUL byte.
export function noRequestCarries(docs: string, text: string, what: string): Judgement {
  return judge(docs, `no request may carry ${what}`, (observed) =>
    observed.requests.every((request) => !carries(request.body, text)),
  );
}

// Whether a request body holds `text` in any of its strings or keys.
export function carries(body: unknown, text: string): boolean {
  return stringsOf(body).some((s) => s.includes(text));
}

function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).flatMap(([key, inner]) => [key, ...stringsOf(inner)]);
  }
  return [];
}

// The content of the tool_result blocks in a wire message, or [] when it holds none.
export function toolResults(
  message: unknown,
): { tool_use_id?: string; is_error?: boolean; content?: unknown }[] {
  const content = (message as { content?: unknown })?.content;
  return Array.isArray(content) ? content.filter((block) => block?.type === "tool_result") : [];
}

// A project that ignores ANTHROPIC_BASE_URL talks to some other host (or none): the fake server
// then sees nothing at all, which is worth saying in so many words.
export function reachedServer(docs: string): Judgement {
  return judge(
    docs,
    "no request reached the test server: read the base URL from ANTHROPIC_BASE_URL",
    (observed) => observed.requests.length > 0,
  );
}

// A tool result as a request carried it, in any protocol. `isError` is undefined where the
// protocol has no such field (OpenAI's: the text says what went wrong).
export interface SentResult {
  id: string | undefined;
  text: string;
  isError: boolean | undefined;
}

// Which protocol a recorded request spoke.
export function protocolOf(request: RecordedRequest | undefined): RecordedRequest["api"] {
  return request?.api ?? "messages";
}

// What a request sent as the conversation: Messages and Chat `messages`, Responses `input`.
export function conversationOf(request: RecordedRequest | undefined): unknown[] {
  const body = request?.body;
  const items = protocolOf(request) === "responses" ? body?.input : body?.messages;
  return Array.isArray(items) ? items : [];
}

// The results a request hands back after the model's last turn: the tool_result blocks of the
// Messages API's last user message, the Responses input's trailing function_call_output items,
// or Chat's trailing role "tool" messages.
export function sentResults(request: RecordedRequest | undefined): SentResult[] {
  const items = conversationOf(request);
  const protocol = protocolOf(request);
  if (protocol === "messages") {
    return toolResults(items.at(-1)).map((result) => ({
      id: result.tool_use_id,
      text: contentText(result.content),
      isError: result.is_error,
    }));
  }
  const isResult =
    protocol === "responses"
      ? (item: unknown) => (item as { type?: unknown })?.type === "function_call_output"
      : (item: unknown) => (item as { role?: unknown })?.role === "tool";
  const trailing: unknown[] = [];
  for (const item of [...items].reverse()) {
    if (!isResult(item)) break;
    trailing.unshift(item);
  }
  return trailing.map((item) => {
    const result = item as {
      call_id?: string;
      tool_call_id?: string;
      output?: unknown;
      content?: unknown;
    };
    return {
      id: result.call_id ?? result.tool_call_id,
      text: contentText(protocol === "responses" ? result.output : result.content),
      isError: undefined,
    };
  });
}

// The names of the tools a request offered, in either shape (Chat nests them under `function`).
export function offeredTools(request: RecordedRequest | undefined): string[] {
  const tools = request?.body?.tools;
  if (!Array.isArray(tools)) return [];
  return tools.map((tool) => String(tool?.function?.name ?? tool?.name));
}

// What the command sent back for a call of `tool` (the `nth`, from 0, of its calls), in any
// protocol: the call is found by name in the conversation, its result by the call's id. Undefined
// when the model never called it or no request carried its result.
export function resultOf(observed: Observed, tool: string, nth = 0): SentResult | undefined {
  for (const request of observed.requests) {
    const items = conversationOf(request);
    const protocol = protocolOf(request);
    const ids = items.flatMap((item) => callIds(item, protocol, tool));
    const id = ids[nth];
    if (id === undefined) continue;
    for (const item of items) {
      const found = resultWithId(item, protocol, id);
      if (found) return found;
    }
  }
  return undefined;
}

// The ids of an item's calls of `tool`.
function callIds(item: unknown, protocol: RecordedRequest["api"], tool: string): string[] {
  // biome-ignore lint/suspicious/noExplicitAny: a conversation item is whatever the client sent.
  const it = item as any;
  if (protocol === "responses") {
    return it?.type === "function_call" && it.name === tool ? [String(it.call_id)] : [];
  }
  if (it?.role !== "assistant") return [];
  const chat = protocol === "chat";
  const list: unknown = chat ? it.tool_calls : it.content;
  if (!Array.isArray(list)) return [];
  return list
    .filter((call) =>
      chat ? call?.function?.name === tool : call?.type === "tool_use" && call.name === tool,
    )
    .map((call) => String(call.id));
}

function resultWithId(
  item: unknown,
  protocol: RecordedRequest["api"],
  id: string,
): SentResult | undefined {
  // biome-ignore lint/suspicious/noExplicitAny: a conversation item is whatever the client sent.
  const it = item as any;
  if (protocol === "responses") {
    if (it?.type !== "function_call_output" || it.call_id !== id) return undefined;
    return { id, text: contentText(it.output), isError: undefined };
  }
  if (protocol === "chat") {
    if (it?.role !== "tool" || it.tool_call_id !== id) return undefined;
    return { id, text: contentText(it.content), isError: undefined };
  }
  const result = toolResults(it).find((block) => block.tool_use_id === id);
  return result && { id, text: contentText(result.content), isError: result.is_error };
}

// A file's text as the run left it (`path` relative to `context.dir`, with `/`, so work-folder
// files start `work/`); undefined when it is missing, a link, or bytes given as a hash.
export function fileText(observed: Observed, path: string): string | undefined {
  const state = observed.files[path];
  return typeof state === "string" ? state : undefined;
}

// Whether the run left anything at `path` (relative to `context.dir`, with `/`: `work/late.txt`):
// a file, bytes or a link.
export function fileExists(observed: Observed, path: string): boolean {
  return observed.files[path] !== undefined;
}

// No process the run started was still working in the scenario's folder once the run was over
// (Linux only: elsewhere the runner cannot tell, and this holds).
export function noStrayProcesses(docs: string): Judgement {
  return judge(
    docs,
    "no process the run started should still be running once the run is over",
    (observed) => observed.strayProcesses.length === 0,
  );
}

// Where a line of stdout is: the index in `stdoutLines` of the first line at or after `from` that
// starts with `start` (or matches it, a RegExp); -1 when none does. With it a judgement can place
// a prompt (`Apply this change to a.txt? [y/N] `) between a `tool_call:` and its `observation:`.
export function lineIndex(observed: Observed, start: string | RegExp, from = 0): number {
  const matches = (line: string) =>
    typeof start === "string" ? line.startsWith(start) : start.test(line);
  const index = observed.stdoutLines.slice(from).findIndex(matches);
  return index === -1 ? -1 : index + from;
}

// True when stdout has a line for each of `starts`, in that order (each after the one before).
export function linesInOrder(observed: Observed, ...starts: (string | RegExp)[]): boolean {
  let from = 0;
  for (const start of starts) {
    const index = lineIndex(observed, start, from);
    if (index === -1) return false;
    from = index + 1;
  }
  return true;
}

// The newest session log a run left: of the `*.jsonl` files under the home folder or the work
// folder's `.agent/`, the one whose name sorts last (session ids begin with their UTC time), with
// its text. Where the log lives is the project's choice; a core scenario finds it either way.
export function newestLog(observed: Observed): { path: string; text: string } | undefined {
  const logs = Object.entries(observed.files)
    .filter(([path]) => /^(home|work\/\.agent)\/(.*\/)?[^/]+\.jsonl$/.test(path))
    .filter((entry): entry is [string, string] => typeof entry[1] === "string")
    .sort(([a], [b]) => byLogName(a, b));
  const newest = logs.at(-1);
  return newest === undefined ? undefined : { path: newest[0], text: newest[1] };
}

// The order newestLog reads logs in: by file name (ids begin with their UTC time), then by path,
// so a scenario that looks between runs finds the same file.
export function byLogName(a: string, b: string): number {
  const [nameA, nameB] = [a.slice(a.lastIndexOf("/") + 1), b.slice(b.lastIndexOf("/") + 1)];
  return nameA < nameB ? -1 : nameA > nameB ? 1 : a < b ? -1 : a > b ? 1 : 0;
}

// Whether two requests carried the same body, byte for byte as JSON: a session resumed from its
// log must send what the same conversation sends without a break.
export function sameBody(a: RecordedRequest | undefined, b: RecordedRequest | undefined): boolean {
  return a !== undefined && b !== undefined && JSON.stringify(a.body) === JSON.stringify(b.body);
}

// `agent-code sessions`: the logs of this project read, checked, mended, exported and removed,
// without a model. None of these commands sends a request or prints the run's header; every text
// a log holds is shown as the trace shows it (`printable`), since a log can hold what a hostile
// file put in a tool result.
import {
  closeSync,
  constants as fs,
  fstatSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
} from "node:fs";
import { basename, dirname } from "node:path";
import { createInterface } from "node:readline";
import { printable, shownArguments, view } from "./agent.ts";
import type { Message } from "./model.ts";
import {
  findSession,
  readLog,
  readSessionFile,
  SESSION_ID,
  SessionError,
  SessionLog,
  sessionFiles,
  verify,
} from "./session.ts";

export const SESSIONS_USAGE =
  "usage: agent-code sessions [list | show <id> | check [<id> | --all] | repair <id> | export <id> [--format md|json] | rm <id> [--yes]] [-C <dir>]";

// How much of each log's end `sessions list` reads: enough for the last prompt of most sessions.
export const LIST_TAIL_BYTES = 64 * 1024;

// A mistake in how the command was called: exit code 2, the error line and the usage.
export class SessionsUsageError extends Error {
  override name = "SessionsUsageError";
}

export interface SessionsIo {
  home: string;
  // The folder the sessions belong to, as -C names it; the caller resolves and checks it.
  resolveCwd: (dir: string | undefined) => string;
  out: (line: string) => void;
  err: (line: string) => void;
  // One answer, for `rm`'s question; undefined when input ended without one.
  ask: (question: string) => Promise<string | undefined>;
}

interface Parsed {
  command: string;
  ids: string[];
  cwd?: string;
  all: boolean;
  yes: boolean;
  format?: string;
  help?: boolean;
}

const COMMANDS = ["list", "show", "check", "repair", "export", "rm"];

// The words after `sessions`: a subcommand (list when none), its ids and its flags.
export function parseSessionsArgs(args: string[]): Parsed {
  const parsed: Parsed = { command: "list", ids: [], all: false, yes: false };
  const words: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? "";
    const value = (name: string) => {
      const next = args[index + 1];
      if (next === undefined) throw new SessionsUsageError(`${name} needs a value`);
      index += 1;
      return next;
    };
    if (arg === "-C" || arg === "--cwd") parsed.cwd = value(arg);
    else if (arg.startsWith("--cwd=")) parsed.cwd = arg.slice("--cwd=".length);
    else if (arg === "--format") parsed.format = value(arg);
    else if (arg.startsWith("--format=")) parsed.format = arg.slice("--format=".length);
    else if (arg === "--all") parsed.all = true;
    else if (arg === "--yes" || arg === "-y") parsed.yes = true;
    else if (arg === "--help" || arg === "-h") parsed.help = true;
    else if (arg === "--") {
      words.push(...args.slice(index + 1));
      break;
    } else if (arg.startsWith("-") && arg !== "-") {
      throw new SessionsUsageError(`unknown option for sessions: ${printable(arg)}`);
    } else words.push(arg);
  }
  // Asked for the usage: nothing else on the line matters.
  if (parsed.help === true) return parsed;
  const [command, ...ids] = words;
  if (command !== undefined) {
    if (!COMMANDS.includes(command)) {
      throw new SessionsUsageError(`unknown sessions command: ${printable(command)}`);
    }
    parsed.command = command;
  }
  parsed.ids = ids;
  const wanted = { list: 0, show: 1, check: parsed.all ? 0 : -1, repair: 1, export: 1, rm: 1 }[
    parsed.command
  ];
  if (wanted === -1 ? ids.length > 1 : ids.length !== wanted) {
    const what = wanted === 1 ? "one session id" : "no session id";
    throw new SessionsUsageError(
      parsed.command === "check" && parsed.all
        ? "sessions check takes an id or --all, not both"
        : `sessions ${parsed.command} takes ${wanted === -1 ? "at most one session id" : what}`,
    );
  }
  for (const id of ids) {
    if (!SESSION_ID.test(id) && !/^[0-9a-f]{6}$/.test(id)) {
      throw new SessionsUsageError(
        `sessions ${parsed.command}: ${printable(JSON.stringify(id))} is not a session id (they look like 20261201-181502-3f9a1c)`,
      );
    }
  }
  const only = (flag: string, set: boolean, commands: string[]) => {
    if (set && !commands.includes(parsed.command)) {
      throw new SessionsUsageError(`sessions ${parsed.command} takes no ${flag}`);
    }
  };
  only("--all", parsed.all, ["check"]);
  only("--yes", parsed.yes, ["rm"]);
  only("--format", parsed.format !== undefined, ["export"]);
  if (parsed.format !== undefined && parsed.format !== "md" && parsed.format !== "json") {
    throw new SessionsUsageError(`unknown --format: ${printable(parsed.format)} (valid: md, json)`);
  }
  return parsed;
}

// Runs one `sessions` command; its exit code (0, or 1 when a check found a problem).
export async function sessionsCommand(args: string[], io: SessionsIo): Promise<number> {
  const parsed = parseSessionsArgs(args);
  if (parsed.help === true) {
    io.out(SESSIONS_USAGE);
    return 0;
  }
  const where = { home: io.home, cwd: io.resolveCwd(parsed.cwd) };
  const id = parsed.ids[0];
  switch (parsed.command) {
    case "show":
      return show(where, id ?? "", io);
    case "check":
      return check(where, parsed, io);
    case "repair":
      return repair(where, id ?? "", io);
    case "export":
      return exportLog(where, id ?? "", parsed.format === "json" ? "json" : "md", io);
    case "rm":
      return remove(where, id ?? "", parsed.yes, io);
    default:
      return list(where, io);
  }
}

type Where = { home: string; cwd: string };

// One line a session, the one written to last first:
// `20261201-181502-3f9a1c  2026-12-01 18:15  14 messages  "fix the failing date test"`.
function list(where: Where, io: SessionsIo): number {
  const files = sessionFiles(where);
  if (files.length === 0) {
    io.out(`no sessions in ${printable(where.cwd)}`);
    return 0;
  }
  for (const file of files) io.out(listLine(file.id, file.path));
  return 0;
}

export interface Glance {
  // When it was written to last.
  time: Date;
  // The last record's seq, less the compact records of the tail read.
  messages: number;
  // The newest prompt in the tail, as typed.
  prompt: string | undefined;
  // The header does not parse as this session's.
  damaged: boolean;
}

// A session seen from its first line and its last LIST_TAIL_BYTES: the whole file is never read,
// so a list of a thousand long sessions reads a thousand small pieces.
export function glance(path: string, id: string, tailBytes = LIST_TAIL_BYTES): Glance {
  const fd = openSync(path, fs.O_RDONLY | (fs.O_NOFOLLOW ?? 0));
  try {
    const info = fstatSync(fd);
    const read = (at: number, length: number) => {
      const buffer = Buffer.alloc(length);
      const got = readSync(fd, buffer, 0, length, at);
      return buffer.subarray(0, got);
    };
    const head = read(0, Math.min(info.size, 4096));
    const end = head.indexOf(10);
    const header = parse(head.subarray(0, end === -1 ? head.length : end));
    const damaged = header?.type !== "session" || header.id !== id;
    const start = Math.max(0, info.size - tailBytes);
    const lines = read(start, info.size - start)
      .toString("utf8")
      .split("\n");
    // A tail that begins mid-file begins mid-line: that part is not a record.
    if (start > 0) lines.shift();
    let last: number | undefined;
    let compacts = 0;
    let prompt: string | undefined;
    for (let index = lines.length - 1; index >= 0; index--) {
      const record = parse(Buffer.from(lines[index] ?? ""));
      if (record === undefined) continue;
      if (last === undefined && typeof record.seq === "number") last = record.seq;
      if (record.type === "compact") compacts += 1;
      const message = record.message as Message | undefined;
      if (
        prompt === undefined &&
        record.type === "message" &&
        message?.role === "user" &&
        typeof message.content === "string"
      ) {
        prompt = message.content;
      }
    }
    return {
      time: info.mtime,
      messages: Math.max(0, (last ?? 0) - compacts),
      prompt,
      damaged,
    };
  } finally {
    closeSync(fd);
  }
}

function listLine(id: string, path: string): string {
  let seen: Glance;
  try {
    seen = glance(path, id);
  } catch {
    return `${id}  unreadable (agent-code sessions check ${id})`;
  }
  const time = seen.time.toISOString().slice(0, 16).replace("T", " ");
  if (seen.damaged) return `${id}  ${time}  damaged (agent-code sessions check ${id})`;
  const count = `${seen.messages} ${seen.messages === 1 ? "message" : "messages"}`;
  return `${id}  ${time}  ${count}  ${quoted(seen.prompt)}`;
}

// A prompt on one line, sanitised, cut at 60 characters.
function quoted(prompt: string | undefined): string {
  if (prompt === undefined) return "(no prompt in its last 64 KiB)";
  const line = printable(prompt.replace(/\s+/g, " ").trim());
  const chars = [...line];
  return `"${chars.length > 60 ? `${chars.slice(0, 59).join("")}…` : line}"`;
}

function parse(line: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line.toString("utf8"));
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

// A log read whole, as a resume reads it: a damaged one is refused, pointing to `check`.
function readWhole(where: Where, wanted: string, io: SessionsIo) {
  const { id, folder } = findSession(where, wanted);
  const bytes = readSessionFile(`${folder}/${id}.jsonl`);
  try {
    const contents = readLog(bytes, id);
    for (const note of contents.notes) io.err(note);
    return contents;
  } catch (error) {
    if (!(error instanceof SessionError)) throw error;
    const what = error.message.replace(/; it was not resumed$/, "");
    throw new SessionError(`${what}; agent-code sessions check ${id} lists what is wrong`);
  }
}

// The trace a run printed, read back from the log: each prompt, each call and what it returned,
// each answer, and where the conversation was compacted.
function show(where: Where, wanted: string, io: SessionsIo): number {
  const contents = readWhole(where, wanted, io);
  for (const line of traceOf(contents.records)) io.out(line);
  return 0;
}

export function traceOf(records: Record<string, unknown>[]): string[] {
  const lines: string[] = [];
  // The conversation as the run held it, to count a compaction's messages as its line did.
  let conversation: { seq: number; message: Message }[] = [];
  for (const record of records) {
    if (record.type === "compact") {
      const at = conversation.findIndex((entry) => entry.seq === record.from);
      const summary: Message = { role: "user", content: String(record.summary) };
      const before = view(conversation.map((entry) => entry.message)).length;
      conversation = [{ seq: record.seq as number, message: summary }, ...conversation.slice(at)];
      const after = view(conversation.map((entry) => entry.message)).length;
      const tokens = record.tokens as { before?: unknown; after?: unknown } | undefined;
      lines.push(
        `compacted: ${before} messages (about ${Number(tokens?.before)} tokens) into ${after} (about ${Number(tokens?.after)} tokens)`,
      );
      continue;
    }
    if (record.type !== "message") continue;
    const message = record.message as Message;
    conversation.push({ seq: record.seq as number, message });
    lines.push(...messageTrace(message, record.stop));
  }
  return lines;
}

// A content block as the log holds it: the API's, read without trusting its fields.
type Block = { type: string; [key: string]: unknown };

function messageTrace(message: Message, stop: unknown): string[] {
  if (typeof message.content === "string") return [`prompt: ${printable(message.content)}`];
  const blocks = message.content as unknown as Block[];
  if (message.role === "user") {
    return blocks.flatMap((block) => {
      if (block.type === "tool_result") return [`observation: ${printable(resultText(block))}`];
      if (block.type === "text") return [`prompt: ${printable(String(block.text))}`];
      return [];
    });
  }
  const calls = blocks.filter((block) => block.type === "tool_use");
  if ((stop === "tool_use" || stop === undefined) && calls.length > 0) {
    return calls.map(
      (call) => `tool_call: ${printable(String(call.name))} ${shownArguments(call.input)}`,
    );
  }
  if (typeof stop === "string" && !["end_turn", "stop_sequence", "tool_use"].includes(stop)) {
    return [`final: stopped: stop_reason=${printable(stop)}`];
  }
  const text = blocks.flatMap((block) => (block.type === "text" ? [String(block.text)] : []));
  return [`final: ${printable(text.join(""))}`];
}

function resultText(block: Block): string {
  const { content } = block;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: { type?: unknown; text?: unknown }) =>
      part?.type === "text" ? String(part.text) : `[${String(part?.type)}]`,
    )
    .join("\n");
}

// `<id>: ok (14 messages, 23 records)`, or each problem on a line of its own; exit 1 on any.
function check(where: Where, parsed: Parsed, io: SessionsIo): number {
  let targets: { id: string; path: string }[];
  if (parsed.all) {
    targets = sessionFiles(where);
    if (targets.length === 0) {
      io.out(`no sessions in ${printable(where.cwd)}`);
      return 0;
    }
  } else {
    const wanted = parsed.ids[0] ?? sessionFiles(where)[0]?.id;
    if (wanted === undefined) throw new SessionError(`no session in ${where.cwd}`);
    const { id, folder } = findSession(where, wanted);
    targets = [{ id, path: `${folder}/${id}.jsonl` }];
  }
  let bad = 0;
  for (const { id, path } of targets) {
    const verdict = verify(readSessionFile(path), id);
    if (verdict.problems.length === 0) {
      const messages = `${verdict.messages} ${verdict.messages === 1 ? "message" : "messages"}`;
      io.out(`${id}: ok (${messages}, ${verdict.records} records)`);
      continue;
    }
    bad += 1;
    const shown = verdict.problems.slice(0, 20);
    for (const problem of shown) io.out(`${id}: ${printable(problem)}`);
    if (verdict.problems.length > shown.length) {
      io.out(`${id}: and ${verdict.problems.length - shown.length} more`);
    }
    io.out(`${id}: agent-code sessions repair ${id} writes a mended log and keeps this one`);
  }
  return bad === 0 ? 0 : 1;
}

// Mends a log; prints what changed and where the old one is.
function repair(where: Where, wanted: string, io: SessionsIo): number {
  const repaired = SessionLog.repair(where, wanted);
  if (repaired.changes.length === 0) {
    io.out(`${repaired.id}: nothing to repair`);
    return 0;
  }
  for (const change of repaired.changes) io.out(`${repaired.id}: ${printable(change)}`);
  io.out(
    `${repaired.id}: repaired (${repaired.records} records); the old log is ${repaired.backup}`,
  );
  return 0;
}

// The whole conversation, every message the log holds (a compaction's summary marked where it
// was made): a Markdown transcript, or JSON for a program.
function exportLog(where: Where, wanted: string, format: "md" | "json", io: SessionsIo): number {
  const contents = readWhole(where, wanted, io);
  const { header } = contents;
  const { created } = header;
  if (format === "json") {
    const body = {
      id: header.id,
      cwd: header.cwd,
      created,
      ...(header.parent === undefined ? {} : { parent: header.parent }),
      records: contents.records.map(({ prev: _prev, ...record }) => record),
    };
    // JSON escapes C0 already; C1 and bidi controls too, so a terminal shows the file as it is.
    io.out(shownArguments(body));
    return 0;
  }
  const lines = [`# Session ${header.id}`, "", `- cwd: ${printable(header.cwd)}`];
  lines.push(`- created: ${printable(String(created))}`);
  if (header.parent !== undefined) {
    lines.push(`- forked from: ${header.parent.id} (at record ${header.parent.seq})`);
  }
  for (const record of contents.records) {
    if (record.type === "compact") {
      lines.push(
        "",
        "*Compacted here: the conversation went on from a summary and the newest rounds.*",
      );
      continue;
    }
    if (record.type !== "message") continue;
    lines.push("", ...markdownOf(record.message as Message));
  }
  for (const line of lines) io.out(line);
  return 0;
}

function markdownOf(message: Message): string[] {
  if (typeof message.content === "string") {
    return [message.role === "user" ? "## Prompt" : "## Assistant", "", printable(message.content)];
  }
  const blocks = message.content as unknown as Block[];
  const out = [
    blocks.some((b) => b.type === "tool_result")
      ? "## Tool results"
      : message.role === "user"
        ? "## Prompt"
        : "## Assistant",
  ];
  for (const block of blocks) {
    if (block.type === "text") out.push("", printable(String(block.text)));
    else if (block.type === "tool_use") {
      out.push(
        "",
        `Tool call \`${printable(String(block.name))}\`:`,
        ...fenced(shownArguments(block.input)),
      );
    } else if (block.type === "tool_result") {
      const error = block.is_error === true ? " (an error)" : "";
      out.push(
        "",
        `Result of \`${printable(String(block.tool_use_id))}\`${error}:`,
        ...fenced(printable(resultText(block))),
      );
    }
  }
  return out;
}

// A fence longer than any run of backticks inside, so no text can close it early.
function fenced(text: string): string[] {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = "`".repeat(longest + 1);
  return [`${fence}text`, text, fence];
}

// Deletes a log and its repair leftovers, after a yes (or --yes). A session open in a live run
// is refused: its lock is taken first.
async function remove(where: Where, wanted: string, yes: boolean, io: SessionsIo): Promise<number> {
  const { id, folder } = findSession(where, wanted);
  if (!yes) {
    const answer = await io.ask(`Delete session ${id} (${basename(dirname(folder))})? [y/N] `);
    if (!/^y(es)?$/i.test(answer?.trim() ?? "")) {
      io.out(`kept ${id}`);
      return 0;
    }
  }
  SessionLog.withLock(where, id, (path) => {
    // The repairs' copies hold the same conversation: they go with it.
    for (const name of readdirSync(folder)) {
      if (name.startsWith(`${id}.jsonl.bak-`) || name === `${id}.jsonl.new`) {
        rmSync(`${folder}/${name}`, { force: true });
      }
    }
    rmSync(path, { force: true });
  });
  io.out(`removed ${id}`);
  return 0;
}

// One line from stdin, for `rm`'s question.
export function askStdin(question: string): Promise<string | undefined> {
  process.stdout.write(question);
  const rl = createInterface({ input: process.stdin, terminal: false });
  return new Promise((resolve) => {
    let answered = false;
    rl.once("line", (line) => {
      answered = true;
      // Piped answers are not echoed: the result goes on a line of its own.
      if (process.stdin.isTTY !== true) process.stdout.write("\n");
      rl.close();
      resolve(line);
    });
    rl.once("close", () => {
      if (answered) return;
      process.stdout.write("\n");
      resolve(undefined);
    });
  });
}

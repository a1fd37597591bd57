// Tools the model may ask for, and the registry that runs them by name.
import { execFile } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import {
  MessageChannel,
  type MessagePort,
  receiveMessageOnPort,
  Worker,
} from "node:worker_threads";
import picomatch from "picomatch";
import {
  fsError,
  openInside,
  type ReadState,
  readdirInside,
  readOpened,
  resolveInside,
  SKIP_DIRS,
  shown,
  sniffText,
  truncate,
} from "./fs-safety.ts";
import { MAX_PATTERN_CHARS, Matcher, timeLimitOf } from "./matcher.ts";
import type { ToolCall, ToolResult } from "./model.ts";
import { type WalkEntry, walk } from "./walk.ts";

// What a tool may know about the run that called it: the directory it works in (never
// process.cwd()), what was read so far, and a signal that says the run was stopped.
export interface ToolContext {
  cwd: string;
  readState: ReadState;
  signal: AbortSignal;
}

export type ToolFunction = (
  args: Record<string, unknown>,
  ctx: ToolContext,
) => string | Promise<string>;

// A tool's refusal (a path outside the working directory, a missing file): the model reads the
// message as an is_error result and the run goes on. Any other throw is a bug in agent-code.
export class ToolError extends Error {
  override name = "ToolError";
}

// JSON Schema of a tool's arguments, sent to the model as the tool's input_schema. (A type alias,
// not an interface, so it fits the SDK's open-ended InputSchema.)
export type JsonSchema = {
  type: "object";
  properties?: Record<string, unknown>;
  required?: string[];
  additionalProperties?: boolean;
};

export interface Tool {
  name: string;
  description: string;
  run: ToolFunction;
  // Without one, the tool takes no arguments.
  parameters?: JsonSchema;
}

export function echo(args: Record<string, unknown>): string {
  return String(args.text ?? "");
}

// The model has no clock: this is how it learns the date. The zone is named as the platform names
// it (UTC, GMT+8, CET).
export function systemDate(): string {
  const now = new Date();
  const pad = (value: number) => String(value).padStart(2, "0");
  const zone = new Intl.DateTimeFormat("en-US", { timeZoneName: "short" })
    .formatToParts(now)
    .find((part) => part.type === "timeZoneName")?.value;
  const date = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
  const time = `${pad(now.getHours())}:${pad(now.getMinutes())}:${pad(now.getSeconds())}`;
  return `${date} ${time} ${zone ?? "UTC"}`;
}

// read_file's limits: a window of lines within a character cap, so a huge file never reaches the
// model whole; the marker says where to read on.
const MAX_READ_BYTES = 10 * 1024 * 1024;
const DEFAULT_LINES = 2000;
const MAX_READ_CHARS = 8000;
// How big a window the model may ask for with max_chars: the bounds are the tool's, not the
// model's, so no request can bring a whole huge file into the conversation.
const MIN_MAX_CHARS = 500;
const MAX_MAX_CHARS = 20_000;

export async function readTextFile(
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<string> {
  const input = String(args.path);
  const offset = positive(args.offset, "offset") ?? 1;
  const limit = positive(args.limit, "limit") ?? DEFAULT_LINES;
  const maxChars = maxCharsOf(args.max_chars);
  const numbered = args.line_numbers === true;
  const file = resolveInside(ctx.cwd, input);
  const name = shown(ctx.cwd, file);
  // Opened, then checked: what is read is what was checked (fs-safety.ts).
  const { handle, info } = await openInside(ctx.cwd, file, name);
  let bytes: Buffer | undefined;
  try {
    if (!info.isFile()) throw new ToolError(`not a file: ${name}`);
    if (info.size > MAX_READ_BYTES) {
      throw new ToolError(`file too large: ${info.size} bytes (limit ${MAX_READ_BYTES}); use grep`);
    }
    bytes = await readOpened(handle, MAX_READ_BYTES).catch((error) =>
      Promise.reject(fsError(error, name)),
    );
  } finally {
    await handle.close();
  }
  if (bytes === undefined)
    throw new ToolError(`file too large: over ${MAX_READ_BYTES} bytes; use grep`);
  if (!sniffText(bytes)) throw new ToolError(`binary file: ${name}`);
  ctx.readState.record(file, bytes);
  // Invalid UTF-8 becomes U+FFFD; a BOM is dropped.
  const lines = new TextDecoder().decode(bytes).split("\n");
  if (lines.at(-1) === "") lines.pop();
  if (lines.length === 0) return "(empty file)";
  if (offset > lines.length) {
    throw new ToolError(`offset ${offset} is past the end of ${name} (${lines.length} lines)`);
  }
  return lineWindow(lines, offset, limit, maxChars, numbered);
}

// max_chars, when given: a whole number from 500 to 20,000. Outside the bounds is the model's
// mistake, told as such, rather than quietly clamped: it learns the bounds once.
function maxCharsOf(value: unknown): number {
  if (value === undefined) return MAX_READ_CHARS;
  if (
    !Number.isInteger(value) ||
    (value as number) < MIN_MAX_CHARS ||
    (value as number) > MAX_MAX_CHARS
  ) {
    throw new ToolError(
      `max_chars must be an integer from ${MIN_MAX_CHARS} to ${MAX_MAX_CHARS}, got ${JSON.stringify(value)}`,
    );
  }
  return value as number;
}

// Lines offset..offset+limit-1, fewer when the character cap is reached first, and a marker
// whenever the window is not the whole file. Numbered, each line starts with its number and `→`,
// and the numbers count against the cap: they are what the model reads too.
function lineWindow(
  lines: string[],
  offset: number,
  limit: number,
  maxChars: number,
  numbered: boolean,
): string {
  const shownLines: string[] = [];
  let chars = 0;
  let cutLine = false;
  for (let index = offset - 1; index < lines.length && shownLines.length < limit; index++) {
    const line = `${numbered ? `${String(index + 1).padStart(6)}→` : ""}${lines[index] ?? ""}`;
    const cost = line.length + (shownLines.length > 0 ? 1 : 0);
    if (chars + cost > maxChars) {
      // One line longer than the cap on its own: show its start rather than nothing.
      if (shownLines.length === 0) {
        shownLines.push(truncate(line, maxChars));
        cutLine = true;
      }
      break;
    }
    shownLines.push(line);
    chars += cost;
  }
  const last = offset + shownLines.length - 1;
  if (!cutLine && offset === 1 && last === lines.length) return shownLines.join("\n");
  const cut = cutLine ? `, line ${last} cut at ${maxChars} chars` : "";
  const more = last < lines.length ? `; read on with offset ${last + 1}` : "";
  return `${shownLines.join("\n")}\n[showing lines ${offset}-${last} of ${lines.length}${cut}${more}]`;
}

// An optional whole number of at least 1: the schema says integer, this says the rest.
function positive(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || (value as number) < 1) {
    throw new ToolError(`${name} must be an integer of at least 1, got ${JSON.stringify(value)}`);
  }
  return value as number;
}

const HEX_BYTES = 256;

// The first 256 bytes of any file, 16 a line as `xxd` shows them: offset, hex, and the bytes that
// are printable ASCII. It shares read_file's boundary and size cap, not its binary sniff: binaries
// are what it is for. Nothing is recorded in readState: 256 bytes are not the file.
export async function hexPreview(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  const file = resolveInside(ctx.cwd, String(args.path));
  const name = shown(ctx.cwd, file);
  // Opened, then checked, as read_file does.
  const { handle, info } = await openInside(ctx.cwd, file, name);
  let bytes: Buffer;
  try {
    if (!info.isFile()) throw new ToolError(`not a file: ${name}`);
    if (info.size > MAX_READ_BYTES) {
      throw new ToolError(`file too large: ${info.size} bytes (limit ${MAX_READ_BYTES}); use grep`);
    }
    bytes = Buffer.alloc(Math.min(HEX_BYTES, info.size));
    const { bytesRead } = await handle.read(bytes, 0, bytes.length, 0);
    bytes = bytes.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  if (bytes.length === 0) return "(empty file)";
  const lines: string[] = [];
  for (let at = 0; at < bytes.length; at += 16) {
    const row = bytes.subarray(at, at + 16);
    const hex = [...row].map((byte) => byte.toString(16).padStart(2, "0"));
    const left = hex.slice(0, 8).join(" ");
    const right = hex.slice(8).join(" ");
    const text = [...row]
      .map((byte) => (byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : "."))
      .join("");
    lines.push(`${at.toString(16).padStart(8, "0")}  ${`${left}  ${right}`.padEnd(48)}  |${text}|`);
  }
  if (info.size > bytes.length) lines.push(`[first ${bytes.length} of ${info.size} bytes]`);
  return lines.join("\n");
}

const MAX_LIST_ENTRIES = 500;

// One level of a folder: folders first, then files, each group in byte order; `/` after a folder,
// `@` after a symlink. Skipped folders are not listed but named at the end, so the model knows.
export async function listFiles(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  const dir = resolveInside(ctx.cwd, args.path === undefined ? "." : String(args.path));
  const name = shown(ctx.cwd, dir);
  const entries = await readdirInside(ctx.cwd, dir, name);
  const skipped: string[] = [];
  const dirs: string[] = [];
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.isDirectory() && SKIP_DIRS.has(entry.name)) skipped.push(`${entry.name}/`);
    else if (entry.isDirectory()) dirs.push(`${entry.name}/`);
    else if (entry.isSymbolicLink()) files.push(`${entry.name}@`);
    else files.push(entry.name);
  }
  const listed = [...dirs.sort(byteOrder), ...files.sort(byteOrder)];
  const lines = listed.slice(0, MAX_LIST_ENTRIES);
  if (listed.length > MAX_LIST_ENTRIES) lines.push(`[${listed.length - MAX_LIST_ENTRIES} more]`);
  if (skipped.length > 0) lines.push(`(skipped: ${skipped.sort(byteOrder).join(", ")})`);
  return lines.length === 0 ? "(empty)" : lines.join("\n");
}

// The same order on every OS and locale: by the names' UTF-8 bytes.
export function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

// Where a search starts: a folder inside the working directory ("." by default), through the same
// boundary as every other path. Returns the root's and the start's real paths and the start's name.
async function searchStart(
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<{ root: string; start: string; name: string; isFile: boolean }> {
  const start = resolveInside(ctx.cwd, args.path === undefined ? "." : String(args.path));
  const root = resolveInside(ctx.cwd, ".");
  const name = shown(ctx.cwd, start);
  const info = await stat(start).catch((error) => Promise.reject(fsError(error, name)));
  return { root, start, name, isFile: info.isFile() };
}

const MAX_GLOB_MATCHES = 200;

// A glob as the model means it: dot files match, and a pattern without a slash matches a name at
// any depth (picomatch's basename option, given only then: with it, `src/a*.ts` matches nothing).
// picomatch makes the expression here; the worker runs it (matcher.ts), and a pattern that
// backtracks for ever is stopped there.
async function globMatcher(pattern: string, ctx: ToolContext): Promise<Matcher> {
  if (pattern.length > MAX_PATTERN_CHARS) {
    throw new ToolError(
      `glob pattern too long: ${pattern.length} chars (limit ${MAX_PATTERN_CHARS})`,
    );
  }
  const basename = !pattern.includes("/");
  let regex: RegExp;
  try {
    regex = picomatch.makeRe(pattern, { dot: true, basename });
  } catch (error) {
    throw new ToolError(`invalid glob: ${(error as Error).message}`);
  }
  return Matcher.start({
    source: regex.source,
    flags: regex.flags,
    what: "glob",
    basename,
    exact: pattern,
    signal: ctx.signal,
  });
}

// The entries whose path below the start (`rel`) the glob matches, in their order.
async function globbed(entries: WalkEntry[], pattern: string, ctx: ToolContext) {
  const hits = await globbedRels(
    entries.map((entry) => entry.rel),
    pattern,
    ctx,
  );
  return entries.filter((_, index) => hits.has(index));
}

// The indexes of the paths (below the start) that the glob matches.
async function globbedRels(rels: string[], pattern: string, ctx: ToolContext) {
  const matcher = await globMatcher(pattern, ctx);
  try {
    return new Set(await matcher.paths(rels));
  } finally {
    await matcher.close();
  }
}

// Files whose path below `path` matches the pattern. A pattern without a slash matches a file's
// name at any depth, as `*.ts`; dot files match too. Listed in byte order, relative to the
// working directory, so read_file takes them as they are.
export async function globFiles(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  const { root, start, name, isFile } = await searchStart(args, ctx);
  if (isFile) throw new ToolError(`not a directory: ${name}`);
  const notes: string[] = [];
  const files = (await walk(root, start, { notes })).filter(
    (entry) => entry.kind !== "dir" && entry.kind !== "skipped",
  );
  const found = (await globbed(files, String(args.pattern), ctx))
    .map((entry) => entry.path)
    .sort(byteOrder);
  if (found.length === 0) return withNotes("(no matches)", notes);
  if (found.length <= MAX_GLOB_MATCHES) return withNotes(found.join("\n"), notes);
  const cut = `[${MAX_GLOB_MATCHES} of ${found.length} matches; narrow the pattern]`;
  return withNotes(`${found.slice(0, MAX_GLOB_MATCHES).join("\n")}\n${cut}`, notes);
}

// An answer and, after it, the ignore files the walk skipped, so the model knows why a file it
// expected to be ignored was not.
function withNotes(answer: string, notes: string[]): string {
  return notes.length === 0 ? answer : `${answer}\n${notes.map((note) => `(${note})`).join("\n")}`;
}

// grep's limits: files it reads, lines it returns, characters of one line and of them all.
const MAX_GREP_FILE_BYTES = 1024 * 1024;
const MAX_GREP_LINES = 200;
const MAX_GREP_CHARS = 8000;
const MAX_GREP_LINE_CHARS = 500;

// The file a search may read: a real file inside the working directory (a symlink only when it
// leads to one), text, at most 1 MiB, opened and then checked like read_file's. Undefined for
// anything else: grep skips it in silence.
async function searchableText(entry: WalkEntry, ctx: ToolContext): Promise<string | undefined> {
  let file = entry.absolute;
  try {
    if (entry.kind === "link") file = resolveInside(ctx.cwd, entry.absolute);
    const { handle, info } = await openInside(ctx.cwd, file, entry.path);
    try {
      if (!info.isFile() || info.size > MAX_GREP_FILE_BYTES) return undefined;
      const bytes = await readOpened(handle, MAX_GREP_FILE_BYTES);
      if (bytes === undefined || !sniffText(bytes)) return undefined;
      return new TextDecoder().decode(bytes);
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

// How long the pattern may take on one file, unless AGENT_CODE_MATCH_TIMEOUT_MS says, as it does for
// glob's matches. A backtracking pattern such as (a+)+$ can take longer than the universe on one
// line of 40 a's, so the matching runs in a worker that can be stopped.
const GREP_FILE_MS = 2000;

// The worker's code. It is a string, because a bundle is one file and a worker needs code of its
// own; it only matches: the main thread still decides which files may be read. For each file's
// text it gets, it posts each matching line as it finds it, then "done".
const GREP_WORKER = `
const { workerData } = require("node:worker_threads");
const { port, pattern, flags } = workerData;
const regex = new RegExp(pattern, flags);
port.on("message", (text) => {
  const lines = text.split("\\n");
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index].replace(/\\r$/, "");
    if (regex.test(line)) port.postMessage({ line: index + 1, text: line });
  }
  port.postMessage("done");
});
port.postMessage("ready");
`;

// A matching line the worker found: its number (from 1) and its text.
interface LineMatch {
  line: number;
  text: string;
}

// One worker for one search: `search(text)` gives the matching lines of one file, and whether the
// worker finished it within `limitMs`. When it did not, the lines it posted before the limit
// are taken off the port as they are, and the worker is stopped.
class GrepWorker {
  #worker: Worker;
  #port: MessagePort;
  #ready: Promise<void>;
  #limitMs: number;

  constructor(regex: RegExp, limitMs: number) {
    this.#limitMs = limitMs;
    const { port1, port2 } = new MessageChannel();
    this.#port = port1;
    this.#worker = new Worker(GREP_WORKER, {
      eval: true,
      workerData: { port: port2, pattern: regex.source, flags: regex.flags },
      transferList: [port2],
    });
    // A worker that fails to start is a bug: the search fails with it rather than waiting for ever.
    this.#ready = new Promise((resolve, reject) => {
      port1.once("message", () => resolve());
      this.#worker.once("error", reject);
    });
    this.#ready.catch(() => {});
  }

  async search(
    text: string,
    signal: AbortSignal,
  ): Promise<{ matches: LineMatch[]; finished: boolean }> {
    await this.#ready;
    const matches: LineMatch[] = [];
    return new Promise((resolve) => {
      const settle = (finished: boolean) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", stop);
        this.#port.off("message", onMessage);
        if (!finished) {
          for (
            let left = receiveMessageOnPort(this.#port);
            left;
            left = receiveMessageOnPort(this.#port)
          ) {
            if (left.message !== "done") matches.push(left.message as LineMatch);
          }
        }
        resolve({ matches, finished });
      };
      const onMessage = (message: LineMatch | "done") => {
        if (message === "done") settle(true);
        else matches.push(message);
      };
      const stop = () => settle(false);
      const timer = setTimeout(stop, this.#limitMs);
      // A stop that came while the worker was starting has fired already: no listener hears it.
      if (signal.aborted) {
        stop();
        return;
      }
      signal.addEventListener("abort", stop);
      this.#port.on("message", onMessage);
      this.#port.postMessage(text);
    });
  }

  async close(): Promise<void> {
    this.#port.close();
    await this.#worker.terminate();
  }
}

// The first `name` on PATH that this process may run (`name.exe` and the like on Windows).
function onPath(name: string): string | undefined {
  const suffixes = process.platform === "win32" ? (process.env.PATHEXT ?? ".EXE").split(";") : [""];
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (dir === "") continue;
    for (const suffix of suffixes) {
      const file = path.join(dir, `${name}${suffix}`);
      try {
        accessSync(file, constants.X_OK);
        if (statSync(file).isFile()) return file;
      } catch {}
    }
  }
  return undefined;
}

// What ripgrep needs to be told to see what the walker sees: no config file of the user's, dot files
// too, .gitignore without a git repository but not git's global or .git/info/exclude rules, the
// skip list, files up to 1 MiB, `$` before a \r\n, and the walker's byte order (one thread).
// .ignore files it reads by itself. Its JSON output keeps paths with colons in one piece.
function ripgrepArgs(pattern: string, ignoreCase: boolean, startRel: string): string[] {
  return [
    "--json",
    "--no-config",
    "--hidden",
    "--no-require-git",
    "--no-ignore-global",
    "--no-ignore-exclude",
    ...[...SKIP_DIRS].flatMap((dir) => ["--glob", `!${dir}/`]),
    "--max-filesize",
    "1M",
    "--crlf",
    "--sort",
    "path",
    ...(ignoreCase ? ["--ignore-case"] : []),
    "--regexp",
    pattern,
    // Always a path: without one, rg would search its stdin.
    "--",
    startRel === "" ? "." : startRel,
  ];
}

// A matching line as either search reports it: the path relative to the working directory (with
// `/`), the line's number and its text.
interface FileMatch {
  path: string;
  line: number;
  text: string;
}

// grep by ripgrep, when `rg` is on PATH: its matches, or undefined when the walker should answer
// instead (no rg, or rg refused, as it refuses lookaround and backreferences, which its regex
// dialect does not have). It runs in the working directory, so its paths are the walker's.
async function ripgrep(
  root: string,
  startRel: string,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<FileMatch[] | undefined> {
  const rg = onPath("rg");
  if (rg === undefined) return undefined;
  const argv = ripgrepArgs(String(args.pattern), args.ignore_case === true, startRel);
  const { code, stdout } = await new Promise<{ code: unknown; stdout: string }>((resolve) => {
    execFile(
      rg,
      argv,
      { cwd: root, maxBuffer: 256 * 1024 * 1024, signal: ctx.signal },
      (error, out) => resolve({ code: error === null ? 0 : error.code, stdout: String(out) }),
    );
  });
  // 0: matches, 1: none; anything else (2 for a pattern it does not take) is the walker's turn.
  if (code !== 0 && code !== 1) return undefined;
  const found: FileMatch[] = [];
  for (const json of stdout.split("\n")) {
    if (!json.startsWith('{"type":"match"')) continue;
    const { data } = JSON.parse(json) as {
      data: { path: RgText; lines: RgText; line_number: number };
    };
    const text = rgText(data.lines).replace(/\r?\n$/, "");
    // `./a.ts` or, on Windows, `.\b\c.ts`: the walker's `a.ts` and `b/c.ts`.
    const file = rgText(data.path)
      .replace(/^\.[\\/]/, "")
      .split(path.sep)
      .join("/");
    found.push({ path: file, line: data.line_number, text });
  }
  return found;
}

// ripgrep's JSON gives text as `text`, or as base64 `bytes` when it is not valid UTF-8.
type RgText = { text: string } | { bytes: string };

function rgText(value: RgText): string {
  return "text" in value
    ? value.text
    : new TextDecoder().decode(Buffer.from(value.bytes, "base64"));
}

// Lines that match a JavaScript regular expression, as `src/a.ts:12:text`, in the walk's order.
// The flags are `i` or none, never `g`: a global RegExp's test() remembers where it stopped.
export async function grepFiles(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  const pattern = String(args.pattern);
  if (pattern.length > MAX_PATTERN_CHARS) {
    throw new ToolError(
      `regex pattern too long: ${pattern.length} chars (limit ${MAX_PATTERN_CHARS})`,
    );
  }
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, args.ignore_case === true ? "i" : "");
  } catch (error) {
    throw new ToolError(`invalid regex: ${(error as Error).message}`);
  }
  const limitMs = timeLimitOf(process.env, GREP_FILE_MS);
  const glob = args.glob === undefined ? undefined : String(args.glob);
  const { root, start, name, isFile } = await searchStart(args, ctx);
  const notes: string[] = [];
  const lines: string[] = [];
  let chars = 0;
  let total = 0;
  // Every matching line counts; it is shown while the caps allow and none before it was left out.
  const add = ({ path: file, line, text }: FileMatch) => {
    total++;
    const cut =
      text.length > MAX_GREP_LINE_CHARS ? `${truncate(text, MAX_GREP_LINE_CHARS)}…` : text;
    const shownLine = `${file}:${line}:${cut}`;
    const cost = shownLine.length + (lines.length > 0 ? 1 : 0);
    if (
      lines.length < MAX_GREP_LINES &&
      chars + cost <= MAX_GREP_CHARS &&
      lines.length === total - 1
    ) {
      lines.push(shownLine);
      chars += cost;
    }
  };
  // ripgrep searches folders; one file is the walker's, as rg would search even a binary named.
  const startRel = name === "." ? "" : name;
  const fromRg = isFile ? undefined : await ripgrep(root, startRel, args, ctx);
  if (fromRg !== undefined) {
    const rels = fromRg.map((match) =>
      startRel === "" ? match.path : match.path.slice(startRel.length + 1),
    );
    const kept = glob === undefined ? undefined : await globbedRels(rels, glob, ctx);
    fromRg.forEach((match, index) => {
      if (kept === undefined || kept.has(index)) add(match);
    });
  }
  let stoppedAt: string | undefined;
  if (fromRg === undefined) {
    let entries: WalkEntry[] = isFile
      ? [
          {
            path: name,
            rel: name.split("/").at(-1) ?? name,
            absolute: start,
            kind: "file",
            depth: 0,
          },
        ]
      : await walk(root, start, { notes });
    entries = entries.filter((entry) => entry.kind === "file" || entry.kind === "link");
    if (glob !== undefined) entries = await globbed(entries, glob, ctx);
    const worker = new GrepWorker(regex, limitMs);
    try {
      for (const entry of entries) {
        if (ctx.signal.aborted) {
          stoppedAt = entry.path;
          break;
        }
        const text = await searchableText(entry, ctx);
        if (text === undefined) continue;
        const { matches, finished } = await worker.search(text, ctx.signal);
        for (const match of matches) add({ path: entry.path, ...match });
        if (!finished) {
          stoppedAt = entry.path;
          break;
        }
      }
    } finally {
      await worker.close();
    }
  }
  // Stopped by the time limit or by the run's signal: a refusal that keeps what was found, so a
  // stopped search never reads as an empty one.
  if (stoppedAt !== undefined) {
    const found = lines.length === 0 ? "" : `${lines.join("\n")}\n`;
    throw new ToolError(
      ctx.signal.aborted
        ? `${found}[search stopped at ${stoppedAt}, after ${total} matching lines: the run was stopped]`
        : `${found}[search stopped: pattern took longer than ${limitMs / 1000} s on ${stoppedAt}, after ${total} matching lines; simplify the pattern or narrow the path]`,
    );
  }
  if (total === 0) return withNotes("(no matches)", notes);
  if (lines.length === total) return withNotes(lines.join("\n"), notes);
  return withNotes(
    `${lines.join("\n")}\n[${lines.length} of ${total} matching lines shown; narrow the pattern, path or glob]`,
    notes,
  );
}

const MAX_TREE_ENTRIES = 200;

// The folders and files below `path`, max_depth levels deep (3 by default, 1 to 10): two spaces a
// level, folders first with `/`, each group in byte order; skipped folders shown, not opened.
export async function projectTree(
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<string> {
  const depth = args.max_depth === undefined ? 3 : args.max_depth;
  if (!Number.isInteger(depth) || (depth as number) < 1 || (depth as number) > 10) {
    throw new ToolError(`max_depth must be an integer from 1 to 10, got ${JSON.stringify(depth)}`);
  }
  const { root, start, name, isFile } = await searchStart(args, ctx);
  if (isFile) throw new ToolError(`not a directory: ${name}`);
  const children = new Map<string, WalkEntry[]>();
  const notes: string[] = [];
  for (const entry of await walk(root, start, { maxDepth: depth as number, notes })) {
    const parent = entry.rel.includes("/") ? entry.rel.slice(0, entry.rel.lastIndexOf("/")) : "";
    children.set(parent, [...(children.get(parent) ?? []), entry]);
  }
  const lines: string[] = [];
  const render = (parent: string, indent: string): void => {
    const entries = children.get(parent) ?? [];
    const isFolder = (entry: WalkEntry) => entry.kind === "dir" || entry.kind === "skipped";
    const ordered = [...entries.filter(isFolder), ...entries.filter((entry) => !isFolder(entry))];
    for (const entry of ordered) {
      const base = entry.rel.slice(entry.rel.lastIndexOf("/") + 1);
      if (entry.kind === "skipped") lines.push(`${indent}${base}/ (skipped)`);
      else if (entry.kind === "dir") lines.push(`${indent}${base}/`);
      else if (entry.kind === "link") lines.push(`${indent}${base}@`);
      else lines.push(`${indent}${base}`);
      if (entry.kind === "dir") render(entry.rel, `${indent}  `);
    }
  };
  render("", "");
  if (lines.length === 0) return withNotes("(empty)", notes);
  if (lines.length <= MAX_TREE_ENTRIES) return withNotes(lines.join("\n"), notes);
  const cut = `[tree cut at ${MAX_TREE_ENTRIES} entries; lower max_depth or give a path]`;
  return withNotes(`${lines.slice(0, MAX_TREE_ENTRIES).join("\n")}\n${cut}`, notes);
}

export class ToolRegistry {
  #tools = new Map<string, Tool>();

  register(tool: Tool): void {
    this.#tools.set(tool.name, tool);
  }

  list(): Tool[] {
    return [...this.#tools.values()];
  }

  async run(call: ToolCall, ctx: ToolContext): Promise<ToolResult> {
    const tool = this.#tools.get(call.name);
    if (!tool) {
      // The model named a tool we do not have: tell it which ones exist instead of failing.
      const available = [...this.#tools.keys()].join(", ");
      return {
        toolCallId: call.id,
        content: `unknown tool: ${call.name} (available: ${available})`,
        isError: true,
      };
    }
    // Input that is not a JSON object is the model's mistake too: it reads why and retries.
    if (!isObject(call.arguments)) {
      return {
        toolCallId: call.id,
        content: `bad arguments for ${call.name}: input must be an object`,
        isError: true,
      };
    }
    // So are arguments that break the schema.
    const problem = argumentProblem(call.arguments, tool.parameters);
    if (problem !== undefined) {
      return {
        toolCallId: call.id,
        content: `bad arguments for ${call.name}: ${problem}`,
        isError: true,
      };
    }
    // A refusal goes back to the model; any other throw is a bug in agent-code and fails the run.
    try {
      return { toolCallId: call.id, content: await tool.run(call.arguments, ctx), isError: false };
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      return { toolCallId: call.id, content: error.message, isError: true };
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// Checks what a flat tool schema says: required properties, JSON types, and no unknown
// properties when additionalProperties is false. The first problem found, or undefined.
function argumentProblem(
  args: Record<string, unknown>,
  schema: JsonSchema | undefined,
): string | undefined {
  if (schema === undefined) return undefined;
  for (const name of schema.required ?? []) {
    if (!(name in args)) return `missing required property "${name}"`;
  }
  for (const [name, value] of Object.entries(args)) {
    const property = schema.properties?.[name] as { type?: unknown } | undefined;
    if (property === undefined) {
      if (schema.additionalProperties === false) return `unexpected property "${name}"`;
      continue;
    }
    if (typeof property.type === "string" && jsonType(value) !== property.type) {
      if (property.type === "number" && jsonType(value) === "integer") continue;
      return `property "${name}" should be ${property.type}, got ${jsonType(value)}`;
    }
  }
  return undefined;
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (Number.isInteger(value)) return "integer";
  return typeof value;
}

export function defaultTools(): ToolRegistry {
  const tools = new ToolRegistry();
  tools.register({
    name: "echo",
    description: "Repeat the given text back.",
    run: echo,
    parameters: {
      type: "object",
      properties: { text: { type: "string", description: "The text to repeat." } },
      required: ["text"],
      additionalProperties: false,
    },
  });
  tools.register({
    name: "system_date",
    description: "Return the current local date, time and time zone of this machine.",
    run: systemDate,
  });
  tools.register({
    name: "read_file",
    description:
      "Read a text file inside the working directory. Shows up to 2000 lines within 8000 characters; a marker at the end says how to read on with offset. Ask for a bigger window (max_chars, up to 20000) only when you need a long stretch at once, such as a whole function. line_numbers prefixes each line with its number and →, which is not part of the file: leave it out when you quote a line.",
    run: readTextFile,
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", description: "The file, relative to the working directory." },
        offset: { type: "integer", minimum: 1, description: "The first line to show (from 1)." },
        limit: { type: "integer", minimum: 1, description: "How many lines to show at most." },
        max_chars: {
          type: "integer",
          minimum: MIN_MAX_CHARS,
          maximum: MAX_MAX_CHARS,
          description: "The window's character cap (500 to 20000, default 8000).",
        },
        line_numbers: {
          type: "boolean",
          description: "Start each line with its number and → (default false).",
        },
      },
      required: ["path"],
      additionalProperties: false,
    },
  });
  tools.register({
    name: "hex_preview",
    description:
      "Show the first 256 bytes of a file inside the working directory in hex, 16 a line with the printable characters beside them: for binary files that read_file refuses.",
    run: hexPreview,
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", description: "The file, relative to the working directory." },
      },
      required: ["path"],
      additionalProperties: false,
    },
  });
  tools.register({
    name: "list_files",
    description:
      "List one folder inside the working directory: folders first (ending in /), then files. Tool and cache folders such as .git and node_modules are skipped and named at the end.",
    run: listFiles,
    parameters: {
      type: "object",
      properties: {
        path: {
          type: "string",
          description: 'The folder, relative to the working directory (default ".").',
        },
      },
      additionalProperties: false,
    },
  });
  tools.register({
    name: "glob",
    description:
      "Find files inside the working directory whose path matches a glob pattern (** matches any number of folders); a pattern without a slash, such as *.ts, matches file names at any depth. Ignored (.gitignore, .ignore) and tool folders are left out. At most 200 paths.",
    run: globFiles,
    parameters: {
      type: "object",
      properties: {
        pattern: { type: "string", description: "The glob pattern, such as *.ts." },
        path: {
          type: "string",
          description: 'The folder to search, relative to the working directory (default ".").',
        },
      },
      required: ["pattern"],
      additionalProperties: false,
    },
  });
  tools.register({
    name: "grep",
    description:
      "Search text files inside the working directory for lines matching a JavaScript regular expression (not PCRE or POSIX). Answers path:line:text. Binaries, files over 1 MiB, ignored (.gitignore, .ignore) and tool folders are skipped. At most 200 lines.",
    run: grepFiles,
    parameters: {
      type: "object",
      properties: {
        pattern: { type: "string", description: "A JavaScript regular expression." },
        path: {
          type: "string",
          description:
            'The folder or file to search, relative to the working directory (default ".").',
        },
        glob: {
          type: "string",
          description: "Search only files matching this glob, such as *.ts.",
        },
        ignore_case: { type: "boolean", description: "Match without regard to case." },
      },
      required: ["pattern"],
      additionalProperties: false,
    },
  });
  tools.register({
    name: "project_tree",
    description:
      "Show the folders and files inside the working directory as a tree, folders first. Ignored (.gitignore, .ignore) folders are left out; tool folders such as node_modules are shown as (skipped). At most 200 entries.",
    run: projectTree,
    parameters: {
      type: "object",
      properties: {
        max_depth: {
          type: "integer",
          minimum: 1,
          maximum: 10,
          description: "How many levels to show (1 to 10, default 3).",
        },
        path: {
          type: "string",
          description: 'The folder to show, relative to the working directory (default ".").',
        },
      },
      additionalProperties: false,
    },
  });
  return tools;
}

// The session log: a conversation kept as one append-only JSONL file under the home folder, so a
// later run can go on with it (`-c`, `--resume`). Each line is a record with `seq` and `prev`, the
// hash of the line before it, so an edited, missing or half-written line is found, never skipped.
import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { homedir, hostname } from "node:os";
import { basename, join } from "node:path";
import { shortenResults } from "./compact.ts";
import type { LoopRecord } from "./loops.ts";
import type { Message } from "./model.ts";

export const SESSION_ID = /^\d{8}-\d{6}-[0-9a-f]{6}$/;
const SHORT_ID = /^[0-9a-f]{6}$/;
const FORMAT = 1;
const WRITER = "agent-code day-7-challenges";

// Why a call got a synthetic result instead of its own.
export type RepairReason = "interrupted" | "max_tokens" | "tool_bug" | "stop_reason";

export interface RecordMeta {
  stop?: string;
  usage?: { input_tokens: number; output_tokens: number };
  repair?: RepairReason;
}

// A session that cannot be opened, read or written as asked: exit code 1, no request sent.
export class SessionError extends Error {
  override name = "SessionError";
}

// The folder name of a working folder: its name, readable, then a hash of its real path, so
// `/a-b` and `/a/b` never share one, and a moved project is a new key (its old id still resumes).
export function projectKey(cwd: string): string {
  const real = realpathSync(cwd);
  const name =
    basename(real)
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 40) || "project";
  return `${name}-${createHash("sha256").update(real).digest("hex").slice(0, 12)}`;
}

export function sessionsFolder(home: string, cwd: string): string {
  return join(home, "projects", projectKey(cwd), "sessions");
}

// 20261201-181502-3f9a1c: the UTC time it began (so names sort by time), then 6 random hex digits.
export function newSessionId(now = new Date(), bytes = randomBytes(3)): string {
  const time = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${time}-${Buffer.from(bytes).toString("hex").slice(0, 6)}`;
}

// A record's `prev`: the first 16 hex digits of the sha256 of the line before, without its `\n`.
export function chainHash(line: string | Uint8Array): string {
  return createHash("sha256").update(line).digest("hex").slice(0, 16);
}

// The ids of the last assistant turn's calls that no later message answers.
export function unansweredCalls(messages: Message[]): string[] {
  const last = messages.findLastIndex((message) => message.role === "assistant");
  const turn = messages[last];
  if (turn === undefined || typeof turn.content === "string") return [];
  const answered = new Set(
    messages
      .slice(last + 1)
      .flatMap((message) => (typeof message.content === "string" ? [] : message.content))
      .flatMap((block) => (block.type === "tool_result" ? [block.tool_use_id] : [])),
  );
  return turn.content
    .flatMap((block) => (block.type === "tool_use" ? [block.id] : []))
    .filter((id) => !answered.has(id));
}

// The results the API needs for calls that never finished: said plainly, so the model checks
// before it repeats a command that may have half run.
export function repairMessage(ids: string[], reason: RepairReason): Message {
  const content = `not run: agent-code stopped before this call finished (${reason}); check what it did before you repeat it`;
  return {
    role: "user",
    content: ids.map((id) => ({ type: "tool_result", tool_use_id: id, content, is_error: true })),
  };
}

interface Header {
  id: string;
  cwd: string;
  created: string;
  // The session this one was forked from, and the `seq` of its last record then (day-6-v5).
  parent?: { id: string; seq: number };
}

export interface LogContents {
  header: Header;
  // Every record after the header, as read: messages and the types a later stage adds.
  records: Record<string, unknown>[];
  // The view a run goes on from: the messages, or after a compact record its summary and the
  // messages it kept.
  messages: Message[];
  // The `seq` of the record each message came from (the summary's: its compact record's).
  seqs: number[];
  notes: string[];
  // The byte length of the good lines; shorter than the file when a torn last line was dropped.
  length: number;
  // The last record's `seq` and the hash of its line: what the next record continues.
  seq: number;
  lastHash: string;
  // The last line is whole but lost its `\n`: the next record starts with one.
  needsNewline: boolean;
}

// Reads a log, checking every line: the header first, `seq` counting up, `prev` matching. A
// last line without `\n` that does not parse is a write the process did not finish: dropped,
// with a note. Any other bad line refuses the whole log, naming the line.
export function readLog(bytes: Buffer, id: string): LogContents {
  const records: Record<string, unknown>[] = [];
  let messages: Message[] = [];
  let seqs: number[] = [];
  const notes: string[] = [];
  let header: Header | undefined;
  let start = 0;
  let previous: Buffer | undefined;
  let needsNewline = false;
  let lines = 0;
  for (let number = 1; start < bytes.length; number++) {
    const newline = bytes.indexOf(10, start);
    const end = newline === -1 ? bytes.length : newline;
    const line = bytes.subarray(start, end);
    const record = parseRecord(line);
    if (record === undefined && newline === -1 && number > 1) {
      notes.push(`note: session ${id}: dropped an unfinished last line (${line.length} bytes)`);
      break;
    }
    const damaged = (what: string) =>
      new SessionError(
        `session ${id}: line ${number} ${what} (edited or damaged); it was not resumed`,
      );
    if (record === undefined) throw damaged("is not a record");
    const prev = previous === undefined ? null : chainHash(previous);
    if (record.seq !== number - 1 || record.prev !== prev) {
      throw number === 1
        ? damaged("is not a session header")
        : damaged(`does not follow line ${number - 1}`);
    }
    if (number === 1) {
      if (typeof record.v === "number" && record.v > FORMAT) {
        throw new SessionError(
          `session ${id} was written by a newer agent-code (format ${record.v})`,
        );
      }
      if (record.type !== "session" || record.v !== FORMAT || record.id !== id) {
        throw damaged("is not this session's header");
      }
      header = {
        id,
        cwd: String(record.cwd),
        created: String(record.created),
        ...parentOf(record),
      };
    } else if (record.type === "message") {
      if (!isMessage(record.message)) throw damaged("is not a message");
      messages.push(record.message);
      seqs.push(record.seq);
      records.push(record);
    } else if (record.type === "compact") {
      // The view from here on: the summary, then the messages from `from` on, as run 1 sent them.
      const at = seqs.indexOf(record.from as number);
      const shortened = record.shortened ?? [];
      if (
        at === -1 ||
        typeof record.summary !== "string" ||
        !Array.isArray(shortened) ||
        !shortened.every((id) => typeof id === "string")
      ) {
        throw damaged("is not a compact record");
      }
      messages = [
        { role: "user", content: record.summary },
        ...shortenResults(messages.slice(at), shortened),
      ];
      seqs = [record.seq, ...seqs.slice(at)];
      records.push(record);
    } else {
      // A record of a type this version does not know (a later day's): in the chain, not the view.
      records.push(record);
    }
    previous = line;
    lines = number;
    needsNewline = newline === -1;
    start = end + 1;
  }
  if (header === undefined || previous === undefined) {
    throw new SessionError(
      `session ${id}: line 1 is not a session header (edited or damaged); it was not resumed`,
    );
  }
  return {
    header,
    records,
    messages,
    seqs,
    notes,
    length: Math.min(start, bytes.length),
    seq: lines - 1,
    lastHash: chainHash(previous),
    needsNewline,
  };
}

function parseRecord(line: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line.toString("utf8"));
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function isMessage(value: unknown): value is Message {
  const message = value as { role?: unknown; content?: unknown } | null;
  if (typeof message !== "object" || message === null) return false;
  if (message.role !== "user" && message.role !== "assistant") return false;
  if (typeof message.content === "string") return true;
  return (
    Array.isArray(message.content) &&
    message.content.every(
      (block) => typeof block === "object" && block !== null && typeof block.type === "string",
    )
  );
}

interface LogOptions {
  home: string;
  cwd: string;
}

interface Lock {
  pid: number;
  host: string;
  started: string;
}

// One session, open for writing: this process holds its lock until close().
export class SessionLog {
  readonly id: string;
  readonly path: string;
  readonly resumed: boolean;
  // Set on a fork: the session it began from, named in its header.
  parent: { id: string; seq: number } | undefined;
  // What opening it found and did (a torn line dropped, a lock taken over, calls repaired).
  readonly notes: string[] = [];
  #cwd: string;
  #fd: number | undefined;
  #lock: string;
  #locked = false;
  #messages: Message[] = [];
  #seqs: number[] = [];
  #seq = 0;
  #lastHash = "";
  #needsNewline = false;
  #created = new Date();
  // A fork's first records: the parent's view, written with the header.
  #pending: { message: Message; meta: RecordMeta }[] = [];
  // The `loop` records a resumed log held (loops.ts reads them back as paused loops).
  #loopRecords: Record<string, unknown>[] = [];

  private constructor(id: string, folder: string, cwd: string, resumed: boolean) {
    this.id = id;
    this.path = join(folder, `${id}.jsonl`);
    this.#lock = join(folder, `${id}.lock`);
    this.#cwd = cwd;
    this.resumed = resumed;
  }

  // A new session. Its folders are made now (and checked); its file at the first message, so a
  // REPL left at once leaves no empty session for `-c` to find.
  static create({ home, cwd }: LogOptions): SessionLog {
    const folder = realFolders(home, ["projects", projectKey(cwd), "sessions"], true);
    if (folder === undefined)
      throw new SessionError(`could not make the sessions folder in ${home}`);
    for (;;) {
      const created = new Date();
      const log = new SessionLog(newSessionId(created), folder, realpathSync(cwd), false);
      log.#created = created;
      if (log.#takeLock(false)) return log;
    }
  }

  // The session `id` (whole, or its last 6 hex digits when they name one session of this
  // project). A whole id is also looked for in every other project's folder: a moved project.
  static open({ home, cwd }: LogOptions, id: string): SessionLog {
    const found = findSession({ home, cwd }, id);
    const log = new SessionLog(found.id, found.folder, realpathSync(cwd), true);
    log.#takeLock(true);
    try {
      log.#load();
    } catch (error) {
      log.close();
      throw error;
    }
    return log;
  }

  // The project's session written to last (`-c`): one readdir and a stat of each log.
  static latest(options: LogOptions): SessionLog {
    return SessionLog.open(options, latestId(options));
  }

  // A new session that begins where `id` (or, undefined, the project's latest) is now: its header
  // names the parent and the parent's last `seq`, and its first records are the parent's view (a
  // compacted one as it is sent), written with the header. The parent's file is read, not changed.
  static fork(options: LogOptions, id: string | undefined): SessionLog {
    const found = findSession(options, id ?? latestId(options));
    const contents = readLog(readSessionFile(join(found.folder, `${found.id}.jsonl`)), found.id);
    const log = SessionLog.create(options);
    log.parent = { id: found.id, seq: contents.seq };
    log.notes.push(...contents.notes);
    const metas = new Map(contents.records.map((record) => [record.seq, record]));
    contents.messages.forEach((message, index) => {
      const record = metas.get(contents.seqs[index]);
      const meta: RecordMeta = {};
      if (record?.type === "message") {
        if (typeof record.stop === "string") meta.stop = record.stop;
        if (record.usage !== undefined) meta.usage = record.usage as RecordMeta["usage"];
        if (typeof record.repair === "string") meta.repair = record.repair as RepairReason;
      }
      log.#pending.push({ message, meta });
    });
    const open = unansweredCalls(contents.messages);
    if (open.length > 0) {
      log.#pending.push({
        message: repairMessage(open, "interrupted"),
        meta: { repair: "interrupted" },
      });
    }
    log.#messages = log.#pending.map(({ message }) => message);
    return log;
  }

  // Runs `work` on the log `id` while holding its lock: what a live run must not see done.
  static withLock<T>(options: LogOptions, id: string, work: (path: string) => T): T {
    const found = findSession(options, id);
    const log = new SessionLog(found.id, found.folder, realpathSync(options.cwd), true);
    log.#takeLock(true);
    try {
      return work(log.path);
    } finally {
      log.close();
    }
  }

  // Mends the log `id` (whole, or the 6 hex digits): `rewrite`'s fresh chain goes to
  // `<id>.jsonl.new`, the old file stays as `<id>.jsonl.bak-<stamp>`, and the new one is renamed
  // in. The session's lock is held throughout, so a run writing it is never repaired under it.
  static repair(options: LogOptions, id: string, now = new Date()): Repaired {
    const found = findSession(options, id);
    const log = new SessionLog(found.id, found.folder, realpathSync(options.cwd), true);
    log.#takeLock(true);
    try {
      const rewritten = rewrite(readSessionFile(log.path), log.id);
      if (rewritten.changes.length === 0) return { id: log.id, ...rewritten };
      const fresh = `${log.path}.new`;
      rmSync(fresh, { force: true });
      const fd = openSync(fresh, "wx", 0o600);
      try {
        writeSync(fd, rewritten.text);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
      let backup = `${log.path}.bak-${stamp}`;
      for (let n = 2; exists(backup); n++) backup = `${log.path}.bak-${stamp}-${n}`;
      // A second name for the old file, then the new one over the first: at every moment
      // `<id>.jsonl` is one whole log, the old or the new.
      linkSync(log.path, backup);
      renameSync(fresh, log.path);
      return { id: log.id, ...rewritten, backup: basename(backup) };
    } finally {
      log.close();
    }
  }

  messages(): Message[] {
    return [...this.#messages];
  }

  loopRecords(): Record<string, unknown>[] {
    return [...this.#loopRecords];
  }

  // A loop record (loops.ts): a loop added, cancelled or fired, in the chain with the messages.
  loop(record: LoopRecord): void {
    if (this.#fd === undefined) this.#start();
    this.#record({ type: "loop", ...record, time: new Date().toISOString() });
  }

  // A message record, written when the message exists.
  append(message: Message, meta: RecordMeta = {}): void {
    if (this.#fd === undefined) this.#start();
    this.#record({ type: "message", time: new Date().toISOString(), message, ...meta });
    this.#messages.push(message);
    this.#seqs.push(this.#seq);
  }

  // A compact record: the conversation goes on from `summary` and the last `kept` messages (their
  // results with these ids shortened). Every message stays in the file; a resume rebuilds the view.
  compact({
    summary,
    kept,
    shortened = [],
    tokens,
  }: {
    summary: string;
    kept: number;
    shortened?: string[];
    tokens: { before: number; after: number };
  }): void {
    const at = this.#messages.length - kept;
    const from = this.#seqs[at];
    if (from === undefined || at < 1) return;
    if (this.#fd === undefined) this.#start();
    this.#record({
      type: "compact",
      time: new Date().toISOString(),
      from,
      summary,
      tokens,
      ...(shortened.length === 0 ? {} : { shortened }),
    });
    this.#messages = [
      { role: "user", content: summary },
      ...shortenResults(this.#messages.slice(at), shortened),
    ];
    this.#seqs = [this.#seq, ...this.#seqs.slice(at)];
  }

  // Answers the last turn's unanswered calls with a synthetic result, written at once so the
  // repair is made one time; how many it answered.
  repairUnanswered(reason: RepairReason): number {
    const ids = unansweredCalls(this.#messages);
    if (ids.length > 0) this.append(repairMessage(ids, reason), { repair: reason });
    return ids.length;
  }

  // At the end of each run: the records reach the disk (one fsync a run, not one a line).
  finish(): void {
    if (this.#fd !== undefined) fsyncSync(this.#fd);
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
    // Gone already (someone removed it by hand) is as good as removed.
    if (this.#locked) rmSync(this.#lock, { force: true });
    this.#locked = false;
  }

  #start(): void {
    this.#fd = openLog(this.path, true);
    const header = JSON.stringify({
      seq: 0,
      type: "session",
      v: FORMAT,
      id: this.id,
      cwd: this.#cwd,
      created: this.#created.toISOString(),
      by: WRITER,
      ...(this.parent === undefined ? {} : { parent: this.parent }),
      prev: null,
    });
    this.#write(`${header}\n`);
    this.#lastHash = chainHash(header);
    // A fork's view, at the seqs after the header; #messages holds it already.
    for (const { message, meta } of this.#pending) {
      this.#record({ type: "message", time: new Date().toISOString(), message, ...meta });
      this.#seqs.push(this.#seq);
    }
    this.#pending = [];
  }

  // One record, one write: the line and its `\n` together, so a crash tears at most this line.
  #record(body: Record<string, unknown>): void {
    this.#seq += 1;
    const line = JSON.stringify({ seq: this.#seq, ...body, prev: this.#lastHash });
    this.#write(`${this.#needsNewline ? "\n" : ""}${line}\n`);
    this.#needsNewline = false;
    this.#lastHash = chainHash(line);
  }

  #load(): void {
    this.#fd = openLog(this.path, false);
    const contents = readLog(readFileSync(this.#fd), this.id);
    // A torn last line goes before anything is appended: a record glued to it would be lost too.
    ftruncateSync(this.#fd, contents.length);
    this.notes.push(...contents.notes);
    if (contents.header.cwd !== this.#cwd) {
      this.notes.push(
        `note: session ${this.id} began in ${contents.header.cwd}; it goes on in ${this.#cwd}`,
      );
    }
    this.#messages = contents.messages;
    this.#seqs = contents.seqs;
    this.#loopRecords = contents.records.filter((record) => record.type === "loop");
    this.#seq = contents.seq;
    this.#lastHash = contents.lastHash;
    this.#needsNewline = contents.needsNewline;
    const repaired = this.repairUnanswered("interrupted");
    if (repaired > 0) {
      const calls = repaired === 1 ? "1 call" : `${repaired} calls`;
      const it = repaired === 1 ? "it" : "them";
      this.notes.push(
        `note: session ${this.id}: ${calls} had no result; recorded ${it} as interrupted`,
      );
    }
  }

  #write(text: string): void {
    const bytes = Buffer.from(text);
    try {
      for (let at = 0; at < bytes.length; ) {
        at += writeSync(this.#fd ?? -1, bytes, at);
      }
    } catch (error) {
      throw new SessionError(
        `session ${this.id}: could not write its log (${(error as NodeJS.ErrnoException).code})`,
      );
    }
  }

  // `<id>.lock`, made with `wx` so two processes cannot both make it. A lock whose process has
  // ended on this machine is taken over; a live one refuses. False: the id is taken (a new one).
  #takeLock(resuming: boolean): boolean {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(this.#lock, "wx", 0o600);
        const lock: Lock = {
          pid: process.pid,
          host: hostname(),
          started: new Date().toISOString(),
        };
        writeSync(fd, `${JSON.stringify(lock)}\n`);
        closeSync(fd);
        this.#locked = true;
        return true;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "EEXIST") throw new SessionError(`session ${this.id}: no lock (${code})`);
      }
      if (!resuming) return false;
      const holder = readLock(this.#lock);
      if (holder === undefined) {
        throw new SessionError(
          `session ${this.id} is locked by ${shown(this.#lock)}, which names no process; delete it if no agent-code uses the session`,
        );
      }
      if (holder.host !== hostname() || alive(holder.pid)) {
        throw new SessionError(
          `session ${this.id} is open in another agent-code (pid ${holder.pid}, since ${holder.started.slice(11, 19)}); wait for it to end, or start a new session`,
        );
      }
      unlinkSync(this.#lock);
      this.notes.push(
        `note: session ${this.id}: took over the lock of agent-code pid ${holder.pid}, which has ended`,
      );
    }
    throw new SessionError(`session ${this.id}: another agent-code took its lock just now`);
  }
}

// `home` joined with `parts`, each a real folder of this user's, 0700. Made part by part when
// `create` (mkdir never follows a link in its last part), then looked at with lstat: a symlink
// anywhere is refused, so nothing is written where it points. Undefined: a part is missing.
// `what` is what the folders keep, for the refusal (memory.ts keeps notes the same way).
export function realFolders(
  home: string,
  parts: string[],
  create: boolean,
  what = "sessions",
): string | undefined {
  const make = (folder: string, name: string, recursive: boolean) => {
    try {
      mkdirSync(folder, { recursive, mode: 0o700 });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "EEXIST") throw new SessionError(`${name} cannot be made (${code})`);
    }
  };
  if (create) make(home, shown(home), true);
  let at: string;
  try {
    at = realpathSync(home);
  } catch {
    return undefined;
  }
  for (const [index, part] of parts.entries()) {
    at = join(at, part);
    const name = shown(join(home, ...parts.slice(0, index + 1)));
    if (create) make(at, name, false);
    const info = lstatSync(at, { throwIfNoEntry: false });
    if (info === undefined) return undefined;
    if (info.isSymbolicLink()) {
      throw new SessionError(`${name} is a symlink; agent-code keeps ${what} only in real folders`);
    }
    if (!info.isDirectory()) throw new SessionError(`${name} is not a folder`);
    if (process.getuid !== undefined && info.uid !== process.getuid()) {
      throw new SessionError(
        `${name} belongs to another user; agent-code keeps ${what} only in yours`,
      );
    }
    if ((info.mode & 0o077) !== 0) chmodSync(at, 0o700);
  }
  return at;
}

// The log itself: never through a symlink (O_NOFOLLOW), a regular file of this user's, 0600.
function openLog(path: string, create: boolean): number {
  const flags = create
    ? constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL
    : constants.O_RDWR | constants.O_APPEND;
  let fd: number;
  try {
    fd = openSync(path, flags | (constants.O_NOFOLLOW ?? 0), 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw new SessionError(`${shown(path)} is a symlink; not opened`);
    throw error;
  }
  const info = fstatSync(fd);
  if (!info.isFile() || (process.getuid !== undefined && info.uid !== process.getuid())) {
    closeSync(fd);
    throw new SessionError(`${shown(path)} is not a regular file of yours; not opened`);
  }
  if ((info.mode & 0o077) !== 0) fchmodSync(fd, 0o600);
  return fd;
}

function sessionNames(folder: string | undefined): string[] {
  if (folder === undefined) return [];
  return readdirSync(folder).filter(
    (name) => name.endsWith(".jsonl") && SESSION_ID.test(name.slice(0, -".jsonl".length)),
  );
}

// The folder of another project that holds session `id`, if one does.
function elsewhere(home: string, id: string): string | undefined {
  const projects = realFolders(home, ["projects"], false);
  if (projects === undefined || !SESSION_ID.test(id)) return undefined;
  for (const key of readdirSync(projects).sort()) {
    const folder = realFolders(home, ["projects", key, "sessions"], false);
    if (folder !== undefined && exists(join(folder, `${id}.jsonl`))) return folder;
  }
  return undefined;
}

function exists(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
}

function readLock(path: string): Lock | undefined {
  try {
    const lock = JSON.parse(readFileSync(path, "utf8")) as Partial<Lock>;
    if (
      typeof lock.pid === "number" &&
      typeof lock.host === "string" &&
      typeof lock.started === "string"
    ) {
      return lock as Lock;
    }
  } catch {}
  return undefined;
}

// Whether a process of this machine is still running: signal 0 checks without sending anything.
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

// A path as the person knows it: their home folder as `~`.
function shown(path: string): string {
  const home = homedir();
  return path === home || path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

function parentOf(record: Record<string, unknown>): { parent?: { id: string; seq: number } } {
  const parent = record.parent as { id?: unknown; seq?: unknown } | undefined;
  if (typeof parent?.id !== "string" || typeof parent.seq !== "number") return {};
  return { parent: { id: parent.id, seq: parent.seq } };
}

// Where session `id` lives: this project's folder, or (a whole id) any other project's. The 6 hex
// digits name a session of this project when exactly one ends with them.
export function findSession({ home, cwd }: LogOptions, id: string): { id: string; folder: string } {
  let folder = realFolders(home, ["projects", projectKey(cwd), "sessions"], false);
  if (SHORT_ID.test(id)) {
    const names = sessionNames(folder).filter((name) => name.endsWith(`-${id}.jsonl`));
    if (names.length > 1) {
      throw new SessionError(
        `--resume: ${id} names ${names.length} sessions here; give the whole id`,
      );
    }
    id = names[0]?.slice(0, -".jsonl".length) ?? id;
  }
  if (folder === undefined || !exists(join(folder, `${id}.jsonl`))) {
    folder = elsewhere(home, id);
  }
  if (folder === undefined || !SESSION_ID.test(id)) throw new SessionError(`no session ${id}`);
  return { id, folder };
}

// The project's session written to last (`-c`): one readdir and a stat of each log, no reads.
export function latestId(options: LogOptions): string {
  const newest = sessionFiles(options)[0];
  if (newest === undefined) throw new SessionError(`no session to continue in ${options.cwd}`);
  return newest.id;
}

// This project's logs, the one written to last first (the later id on a tie): readdir and stat.
export function sessionFiles(options: LogOptions): { id: string; path: string; mtimeMs: number }[] {
  const folder = realFolders(
    options.home,
    ["projects", projectKey(options.cwd), "sessions"],
    false,
  );
  return sessionNames(folder)
    .map((name) => {
      const path = join(folder ?? "", name);
      return { id: name.slice(0, -".jsonl".length), path, mtimeMs: lstatSync(path).mtimeMs };
    })
    .sort((a, b) => b.mtimeMs - a.mtimeMs || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

// A log's bytes for a reader that writes nothing: never through a symlink, a regular file of
// this user's, its mode left as it is.
export function readSessionFile(path: string): Buffer {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw new SessionError(`${shown(path)} is a symlink; not opened`);
    throw new SessionError(`${shown(path)} cannot be read (${code})`);
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || (process.getuid !== undefined && info.uid !== process.getuid())) {
      throw new SessionError(`${shown(path)} is not a regular file of yours; not opened`);
    }
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

interface Line {
  // From 1, as an editor counts.
  number: number;
  bytes: Buffer;
  record: Record<string, unknown> | undefined;
  // The last line, with no `\n` after it.
  unfinished: boolean;
}

function splitLines(bytes: Buffer): Line[] {
  const lines: Line[] = [];
  for (let start = 0, number = 1; start < bytes.length; number++) {
    const newline = bytes.indexOf(10, start);
    const end = newline === -1 ? bytes.length : newline;
    const line = bytes.subarray(start, end);
    lines.push({ number, bytes: line, record: parseRecord(line), unfinished: newline === -1 });
    start = end + 1;
  }
  return lines;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

// What `sessions check` finds in a log.
export interface Verdict {
  // One line each, in file order: "line 3 does not follow line 2 (edited or damaged)".
  problems: string[];
  messages: number;
  records: number;
}

// Every line of a log checked as readLog checks it, but the whole file through: each bad line
// named, not only the first. A log passes when a run would resume it as it is: nothing refused,
// and nothing for the reader to mend (a torn last line, a call without its result).
export function verify(bytes: Buffer, id: string): Verdict {
  const problems: string[] = [];
  const lines = splitLines(bytes);
  const messages: { number: number; message: Message }[] = [];
  const seqs = new Set<number>();
  let previous: Buffer | undefined;
  if (lines.length === 0) problems.push("line 1 is not a session header (the file is empty)");
  for (const { number, bytes: line, record, unfinished } of lines) {
    const bad = (what: string) => problems.push(`line ${number} ${what} (edited or damaged)`);
    const prev = previous === undefined ? null : chainHash(previous);
    previous = line;
    if (record === undefined) {
      if (unfinished && number > 1) {
        problems.push(`line ${number} is an unfinished write (${plural(line.length, "byte")})`);
      } else bad("is not a record");
      continue;
    }
    if (number === 1) {
      if (typeof record.v === "number" && record.v > FORMAT) {
        problems.push(`line 1 was written by a newer agent-code (format ${record.v})`);
      } else if (record.seq !== 0 || record.prev !== null) {
        bad("is not a session header");
      } else if (record.type !== "session" || record.v !== FORMAT || record.id !== id) {
        bad("is not this session's header");
      }
      continue;
    }
    if (record.seq !== number - 1 || record.prev !== prev)
      bad(`does not follow line ${number - 1}`);
    if (record.type === "message") {
      if (!isMessage(record.message)) bad("is not a message");
      else {
        messages.push({ number, message: record.message });
        seqs.add(record.seq as number);
      }
    } else if (
      record.type === "compact" &&
      !(seqs.has(record.from as number) && compactFields(record))
    ) {
      bad("is not a compact record");
    }
  }
  const { calls, results } = unpaired(messages);
  for (const { number, ids } of calls) {
    problems.push(
      `line ${number} asks for ${plural(ids.length, "call")} with no result (${ids.join(", ")})`,
    );
  }
  for (const { number, ids } of results) {
    problems.push(
      `line ${number} answers ${plural(ids.length, "call")} no turn asked for (${ids.join(", ")})`,
    );
  }
  return { problems, messages: messages.length, records: lines.length };
}

// A compact record's own fields; whether its `from` names a message is the caller's to check.
function compactFields(record: Record<string, unknown>): boolean {
  const shortened = record.shortened ?? [];
  return (
    typeof record.summary === "string" &&
    Array.isArray(shortened) &&
    shortened.every((id) => typeof id === "string")
  );
}

function blocksOf(message: Message): { type: string; id?: string; tool_use_id?: string }[] {
  return typeof message.content === "string"
    ? []
    : (message.content as { type: string; id?: string; tool_use_id?: string }[]);
}

// The API's pairing rule over a whole log: each turn's calls answered before the next turn, each
// result answering a call of the turn before it. What breaks it, by line.
function unpaired(messages: { number: number; message: Message }[]): {
  calls: { number: number; ids: string[] }[];
  results: { number: number; ids: string[] }[];
} {
  const calls: { number: number; ids: string[] }[] = [];
  const results: { number: number; ids: string[] }[] = [];
  let turn: { number: number; asked: string[]; answered: Set<string> } | undefined;
  const close = () => {
    const open = turn?.asked.filter((id) => !turn?.answered.has(id)) ?? [];
    if (turn !== undefined && open.length > 0) calls.push({ number: turn.number, ids: open });
  };
  for (const { number, message } of messages) {
    const blocks = blocksOf(message);
    if (message.role === "assistant") {
      close();
      const asked = blocks.flatMap((block) =>
        block.type === "tool_use" ? [String(block.id)] : [],
      );
      turn = { number, asked, answered: new Set() };
      continue;
    }
    const stray: string[] = [];
    for (const block of blocks) {
      if (block.type !== "tool_result") continue;
      const id = String(block.tool_use_id);
      if (turn?.asked.includes(id) === true) turn.answered.add(id);
      else stray.push(id);
    }
    if (stray.length > 0) results.push({ number, ids: stray });
  }
  close();
  return { calls, results };
}

// What `sessions repair` made of a log.
export interface Rewritten {
  // The new file, whole: a header, then a fresh chain.
  text: string;
  // What changed, one line each; none when the log was whole already.
  changes: string[];
  records: number;
}

export interface Repaired extends Rewritten {
  id: string;
  // The old file's new name, beside the log; none when nothing changed.
  backup?: string;
}

// A log mended: lines that do not parse (a torn last one too) and records that are not what their
// type says are dropped; a result answering no call is taken out of its message; calls left with
// no result are answered as interrupted; every other record is kept as it is, its `seq` and
// `prev` written anew where the chain broke. The header must be this session's own.
export function rewrite(bytes: Buffer, id: string, now = new Date()): Rewritten {
  const lines = splitLines(bytes);
  const header = lines[0]?.record;
  if (
    header === undefined ||
    header.type !== "session" ||
    header.v !== FORMAT ||
    header.id !== id
  ) {
    throw new SessionError(
      `session ${id}: line 1 is not this session's header; repair keeps a log's own header and cannot make one`,
    );
  }
  const changes: string[] = [];
  // The records to keep, each with its line as read (none: written by this repair, or changed).
  interface Entry {
    number?: number;
    record: Record<string, unknown>;
    line?: Buffer;
    // A compact record's first kept message.
    target?: Entry;
  }
  const kept: Entry[] = [];
  const bySeq = new Map<unknown, Entry>();
  for (const { number, bytes: line, record, unfinished } of lines.slice(1)) {
    if (record === undefined) {
      changes.push(
        unfinished
          ? `dropped line ${number}: an unfinished write (${plural(line.length, "byte")})`
          : `dropped line ${number}: not a record`,
      );
      continue;
    }
    if (record.type === "message" && !isMessage(record.message)) {
      changes.push(`dropped line ${number}: not a message`);
      continue;
    }
    const entry: Entry = { number, record, line };
    if (record.type === "compact") {
      entry.target = bySeq.get(record.from);
      if (entry.target === undefined || !compactFields(record)) {
        changes.push(`dropped line ${number}: a compact record whose first message is gone`);
        continue;
      }
    }
    if (record.type === "message") bySeq.set(record.seq, entry);
    kept.push(entry);
  }
  // The pairing rule: stray results out, unanswered calls answered right after their turn.
  const repaired: Entry[] = [];
  let turn: { number?: number; asked: string[]; answered: Set<string>; at: number } | undefined;
  const close = () => {
    const open = turn?.asked.filter((call) => !turn?.answered.has(call)) ?? [];
    if (turn === undefined || open.length === 0) return;
    const answer = repairMessage(open, "interrupted");
    repaired.splice(turn.at + 1, 0, {
      record: { type: "message", time: now.toISOString(), message: answer, repair: "interrupted" },
    });
    changes.push(
      `answered ${plural(open.length, "call")} of line ${turn.number} (recorded as interrupted)`,
    );
  };
  for (const entry of kept) {
    const { record } = entry;
    if (record.type !== "message") {
      if (entry.target === undefined || repaired.includes(entry.target)) repaired.push(entry);
      else
        changes.push(`dropped line ${entry.number}: a compact record whose first message is gone`);
      continue;
    }
    const message = record.message as Message;
    const blocks = blocksOf(message);
    if (message.role === "assistant") {
      close();
      const asked = blocks.flatMap((block) =>
        block.type === "tool_use" ? [String(block.id)] : [],
      );
      turn = { number: entry.number, asked, answered: new Set(), at: repaired.length };
      repaired.push(entry);
      continue;
    }
    const stray = blocks.filter(
      (block) =>
        block.type === "tool_result" && turn?.asked.includes(String(block.tool_use_id)) !== true,
    );
    for (const block of blocks) {
      if (block.type === "tool_result" && !stray.includes(block)) {
        turn?.answered.add(String(block.tool_use_id));
      }
    }
    if (stray.length > 0) {
      const ids = stray.map((block) => String(block.tool_use_id)).join(", ");
      const rest = blocks.filter((block) => !stray.includes(block));
      if (rest.length === 0) {
        changes.push(`dropped line ${entry.number}: its results answer no call (${ids})`);
        continue;
      }
      changes.push(`line ${entry.number}: took out results that answer no call (${ids})`);
      entry.record = { ...record, message: { ...message, content: rest } };
      entry.line = undefined;
    }
    repaired.push(entry);
  }
  close();
  // The fresh chain: a record keeps its line as read when its seq, prev and `from` still hold.
  const seqOf = new Map(repaired.map((entry, index) => [entry, index + 1]));
  const out: string[] = [lines[0]?.bytes.toString("utf8") ?? ""];
  let previous = lines[0]?.bytes ?? Buffer.alloc(0);
  let renewedFrom: number | undefined;
  repaired.forEach((entry, index) => {
    const seq = index + 1;
    const prev = chainHash(previous);
    const from = entry.target === undefined ? undefined : seqOf.get(entry.target);
    const { seq: _seq, prev: _prev, ...body } = entry.record;
    const record = from === undefined ? body : { ...body, from };
    const same =
      entry.line !== undefined &&
      entry.record.seq === seq &&
      entry.record.prev === prev &&
      (from === undefined || entry.record.from === from);
    const line =
      same && entry.line !== undefined
        ? entry.line
        : Buffer.from(JSON.stringify({ seq, ...record, prev }));
    if (!same && entry.number !== undefined && renewedFrom === undefined)
      renewedFrom = entry.number;
    out.push(line.toString("utf8"));
    previous = line;
  });
  if (renewedFrom !== undefined) {
    changes.push(`chained again from line ${renewedFrom} on (its seq and prev written anew)`);
  }
  if (changes.length === 0 && lines.at(-1)?.unfinished === true) {
    changes.push(`ended line ${lines.length} with its newline`);
  }
  return { text: `${out.join("\n")}\n`, changes, records: out.length };
}

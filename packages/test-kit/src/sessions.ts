// Day 6's session log as the contract plants it (../shared/design/day-6.md, "the session log"):
// where a project's sessions live under the home folder, a valid log of N messages with its hash
// chain, and a lock file held by a given process. Scenarios write these into a run's home with
// `homeFiles`, then damage or hold them, to see what a project does with a log it did not write.
import { createHash } from "node:crypto";
import { existsSync, realpathSync } from "node:fs";
import { basename } from "node:path";

// A session id: the UTC time it began, then six hex digits.
export const SESSION_ID = /^\d{8}-\d{6}-[0-9a-f]{6}$/;

// The folder of a working folder's sessions and memory under the home folder: its name, then a
// hash of its real path, so two folders of one name never share a key. The name is lower-cased,
// each run of characters outside [a-z0-9._-] becomes one `-`, and it is cut at 40 characters.
export function projectKey(cwd: string): string {
  // A folder that is not there yet (the budget's probe of a scenario) has no other real path.
  const real = existsSync(cwd) ? realpathSync(cwd) : cwd;
  const name =
    basename(real)
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 40) || "project";
  return `${name}-${createHash("sha256").update(real).digest("hex").slice(0, 12)}`;
}

// Where a session's log is, relative to the home folder (for `homeFiles`).
export function sessionPath(cwd: string, id: string): string {
  return `projects/${projectKey(cwd)}/sessions/${id}.jsonl`;
}

// The `prev` of the record after `line`: the first 16 hex digits of the sha256 of its bytes,
// without its newline.
export function chainHash(line: string): string {
  return createHash("sha256").update(line, "utf8").digest("hex").slice(0, 16);
}

export interface SessionLogSpec {
  id: string;
  // The working folder the session belongs to (the header's `cwd`, a real path).
  cwd: string;
  // The conversation, in order: `{ role, content }` as the Messages API takes them.
  messages: { role: "user" | "assistant"; content: unknown }[];
  // When it began; each record is a millisecond later than the one before.
  created?: Date;
}

// A valid version-1 log: the header, then a record per message, each line one compact JSON object
// ending in a newline, `seq` counting from 0 and `prev` chaining each line to the one before.
export function makeSessionLog(spec: SessionLogSpec): string {
  if (!SESSION_ID.test(spec.id)) throw new Error(`not a session id: ${spec.id}`);
  const start = (spec.created ?? new Date("2026-12-01T18:15:02.123Z")).getTime();
  const at = (seq: number) => new Date(start + seq).toISOString();
  const lines: string[] = [];
  const add = (record: Record<string, unknown>) => {
    const prev = lines.length === 0 ? null : chainHash(lines[lines.length - 1] ?? "");
    lines.push(JSON.stringify({ ...record, prev }));
  };
  add({
    seq: 0,
    type: "session",
    v: 1,
    id: spec.id,
    cwd: spec.cwd,
    created: at(0),
    by: "agent-code test-kit",
  });
  spec.messages.forEach((message, index) => {
    add({ seq: index + 1, type: "message", time: at(index + 1), message });
  });
  return lines.map((line) => `${line}\n`).join("");
}

// A session's lock, as a running agent-code holds it: `<id>.lock` beside the log, naming the
// process. The runner's own pid is alive for the whole run; a pid that has exited is a stale lock.
export function plantLock(pid: number, host: string, started = new Date()): string {
  return `${JSON.stringify({ pid, host, started: started.toISOString() })}\n`;
}

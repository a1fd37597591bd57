// A scenario's folder: written before the run from the scenario's `files`, read back as data after
// it. Judgements see only that data (`observed.files`, `observed.outsideChanged`), never the live
// folder, which is removed once the run ends: a run shared by several scenarios (decision 0030)
// is judged on what it left, however late the judging comes.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

/** What a scenario may write at a path: text, bytes, a symbolic link, text with a set mtime, a FIFO. */
export type FileEntry =
  | string
  | Uint8Array
  | { symlink: string }
  | { text: string | Uint8Array; mtime: Date | number }
  // A named pipe nobody writes to (POSIX only: made with mkfifo): a read of it waits forever.
  | { fifo: true };

/**
 * A file as the run left it: its text (UTF-8, at most 1 MiB, no NUL byte), else the hash and size
 * of its bytes; a symbolic link as its target, never followed.
 */
export type FileState = string | { sha256: string; size: number } | { symlink: string };

/** Files above this size, or with a NUL byte, are given as a hash. */
export const MAX_TEXT_BYTES = 1024 * 1024;
/** Folders never read back: a project's dependencies would swamp the data and the time. */
const SKIPPED = new Set(["node_modules"]);

/**
 * Writes `files` below `root`. Paths are relative to it, with `/`; a path that leaves `root` is a
 * mistake in the scenario and throws. A symlink's target is written as given (relative to the
 * link's folder, as `ln -s` takes it, or absolute). Number mtimes are milliseconds since 1970.
 */
export function writeFiles(root: string, files: Record<string, FileEntry>): void {
  for (const [path, entry] of Object.entries(files)) {
    const target = resolve(root, path);
    const rel = relative(root, target);
    if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || resolve(root, rel) !== target) {
      throw new Error(`scenario file ${JSON.stringify(path)} is not below the scenario's folder`);
    }
    mkdirSync(dirname(target), { recursive: true });
    if (typeof entry === "string" || entry instanceof Uint8Array) {
      writeFileSync(target, entry);
    } else if ("symlink" in entry) {
      symlinkSync(entry.symlink, target);
    } else if ("fifo" in entry) {
      execFileSync("mkfifo", [target]);
    } else {
      writeFileSync(target, entry.text);
      const when = new Date(entry.mtime);
      utimesSync(target, when, when);
    }
  }
}

/**
 * Every file below `root` (links not followed, `node_modules` left out), by its path relative to
 * `root` with `/`, in byte order of the paths. Given `modes`, it also records there the permission
 * bits (`mode & 0o7777`) of every file and folder it reads, by the same paths.
 */
export function readFolder(
  root: string,
  modes?: Record<string, number>,
): Record<string, FileState> {
  const found: [string, FileState][] = [];
  const visit = (folder: string): void => {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(folder, name);
      let stats: ReturnType<typeof lstatSync>;
      try {
        stats = lstatSync(path);
      } catch {
        continue;
      }
      const key = relative(root, path).split(sep).join("/");
      if (modes !== undefined && !stats.isSymbolicLink()) modes[key] = Number(stats.mode) & 0o7777;
      if (stats.isSymbolicLink()) found.push([key, { symlink: readlinkSync(path) }]);
      else if (stats.isDirectory()) {
        if (!SKIPPED.has(name)) visit(path);
      } else if (stats.isFile()) found.push([key, fileState(path)]);
    }
  };
  visit(root);
  found.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(found);
}

function fileState(path: string): FileState {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return { sha256: "", size: -1 };
  }
  if (bytes.length <= MAX_TEXT_BYTES && !bytes.includes(0)) {
    const text = bytes.toString("utf8");
    // Bytes that are not UTF-8 would not survive as text: they are given as a hash.
    if (Buffer.from(text, "utf8").equals(bytes)) return text;
  }
  return { sha256: createHash("sha256").update(bytes).digest("hex"), size: bytes.length };
}

/**
 * The paths whose state differs between two readings: changed, added or removed, in byte order.
 */
export function changedPaths(
  before: Record<string, FileState>,
  after: Record<string, FileState>,
): string[] {
  const paths = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...paths]
    .filter((path) => JSON.stringify(before[path]) !== JSON.stringify(after[path]))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The part of a reading outside every folder of `inside` (paths relative to its root, with `/`). */
export function outsideOf(
  files: Record<string, FileState>,
  ...inside: string[]
): Record<string, FileState> {
  return Object.fromEntries(
    Object.entries(files).filter(
      ([path]) => !inside.some((folder) => path === folder || path.startsWith(`${folder}/`)),
    ),
  );
}

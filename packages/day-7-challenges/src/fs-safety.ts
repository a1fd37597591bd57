// The one file that decides which paths a tool may touch and how much of a file the model sees.
// Every tool that takes a path asks resolveInside first; nothing else in agent-code judges paths.
import { createHash } from "node:crypto";
import { constants, type Dirent, realpathSync, type Stats } from "node:fs";
import { type FileHandle, open, readdir, readlink, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "./tools/index.ts";

// Folders no tool looks inside: tools, caches and build output, never the project's own text.
export const SKIP_DIRS = new Set([
  ".git",
  "node_modules",
  "dist",
  "build",
  "coverage",
  ".venv",
  "venv",
  "__pycache__",
  ".mypy_cache",
  ".pytest_cache",
  ".ruff_cache",
  ".next",
  ".turbo",
  ".cache",
  ".agent",
]);

// How a path module spells paths: node:path for this machine, path.win32 or path.posix in tests.
type PathModule = typeof path.posix;

// A path the model gave, checked against the working directory by its spelling alone: refused when
// empty, when it holds a NUL byte, or when it leaves `root` by `..`, as an absolute path elsewhere
// or on another drive. Absolute paths inside are fine. Returns the absolute path.
export function insideByName(root: string, input: string, paths: PathModule = path): string {
  if (input === "") throw new ToolError("path must not be empty");
  if (input.includes("\0")) throw new ToolError("path contains a NUL byte");
  // `C:x` on Windows means "x in drive C's current folder", which is not ours to know.
  if (paths === path.win32 && /^[a-zA-Z]:(?![\\/])/.test(input)) {
    throw new ToolError(`path escapes the working directory: ${input}`);
  }
  const absolute = paths.resolve(root, input);
  if (escapes(root, absolute, paths)) {
    throw new ToolError(`path escapes the working directory: ${input}`);
  }
  return absolute;
}

// True when `target` is not `root` or below it. win32's relative() already ignores case, and
// gives an absolute path for another drive or a UNC share.
export function escapes(root: string, target: string, paths: PathModule = path): boolean {
  const rel = paths.relative(root, target);
  return rel === ".." || rel.startsWith(`..${paths.sep}`) || paths.isAbsolute(rel);
}

// resolveInside: insideByName, then the same check on the real path, so a symlinked file or
// folder (or a /proc/self link) that points out is refused too. Returns the real path.
export function resolveInside(cwd: string, input: string): string {
  const root = realpathSync.native(cwd);
  // The cwd as given and its real path both count: on macOS /tmp is /private/tmp.
  let absolute: string;
  try {
    absolute = insideByName(cwd, input);
  } catch (error) {
    if (!(error instanceof ToolError) || input === "" || input.includes("\0")) throw error;
    absolute = insideByName(root, input);
  }
  const real = realOfNearest(absolute, input);
  if (escapes(root, real)) {
    throw new ToolError(`path escapes the working directory through a symlink: ${input}`);
  }
  return real;
}

// The real path of `target`, or, when it does not exist yet, of its nearest existing ancestor with
// the missing rest appended. An error names the path as the model gave it (`name`), never the
// machine's absolute path.
function realOfNearest(target: string, name: string): string {
  const missing: string[] = [];
  let at = target;
  for (;;) {
    try {
      return path.join(realpathSync.native(at), ...missing);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const parent = path.dirname(at);
      if ((code !== "ENOENT" && code !== "ENOTDIR") || parent === at) throw fsError(error, name);
      missing.unshift(path.basename(at));
      at = parent;
    }
  }
}

// Check, then use: a path checked by name can be swapped for a symlink before it is opened (a
// process in the folder can do it in a loop). So the check is made again on what was opened: the
// open never follows a symlink in the last part (O_NOFOLLOW) and never waits for a writer (a FIFO,
// O_NONBLOCK), and the opened file must be the one the path names now, by device and inode, with
// that path's real path still inside. A swap anywhere along the path fails one of the two.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

// `absolute` (a real path resolveInside returned) opened for reading, and what it is. The caller
// closes the handle. `name` is how errors name it.
export async function openInside(
  cwd: string,
  absolute: string,
  name: string,
): Promise<{ handle: FileHandle; info: Stats }> {
  const handle = await open(absolute, OPEN_FLAGS).catch((error: NodeJS.ErrnoException) =>
    Promise.reject(
      error.code === "ELOOP"
        ? new ToolError(`symlink not followed: ${name}`)
        : fsError(error, name),
    ),
  );
  try {
    await checkOpened(cwd, absolute, handle, name);
    return { handle, info: await handle.stat() };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

// Refuses unless the opened file is inside the working directory. On Linux the kernel says where
// the handle's file is (/proc/self/fd/N), and that is exact. Elsewhere the path is resolved again
// and must lead inside to the same device and inode: a swap that is undone between those two
// lookups can still get through there (SECURITY.md), and so can a hard link anywhere.
async function checkOpened(cwd: string, absolute: string, handle: FileHandle, name: string) {
  const changed = () => new ToolError(`changed while being opened: ${name}`);
  const root = realpathSync.native(cwd);
  const where = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
  if (where !== undefined) {
    if (escapes(root, where.replace(/ \(deleted\)$/, ""))) throw changed();
    return;
  }
  const info = await handle.stat();
  const real = await realpath(absolute).catch(() => Promise.reject(changed()));
  if (escapes(root, real)) throw changed();
  const now = await stat(real).catch(() => Promise.reject(changed()));
  if (now.dev !== info.dev || now.ino !== info.ino) throw changed();
}

// What an opened file holds, read from the handle, up to `max` bytes; undefined when it holds more.
// The size fstat gave is a hint only: a file can grow while it is read.
export async function readOpened(handle: FileHandle, max: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    const chunk = Buffer.alloc(Math.min(64 * 1024, max + 1 - size));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) return Buffer.concat(chunks, size);
    chunks.push(chunk.subarray(0, bytesRead));
    size += bytesRead;
    if (size > max) return undefined;
  }
}

// The entries of a folder inside the working directory, read from the folder that was checked.
// On Linux they are read through the open handle (/proc/self/fd/N names exactly that folder); where
// there is no /proc, the folder is checked again after the read.
export async function readdirInside(
  cwd: string,
  absolute: string,
  name: string,
): Promise<Dirent[]> {
  const handle = await open(absolute, OPEN_FLAGS | (constants.O_DIRECTORY ?? 0)).catch(
    (error: NodeJS.ErrnoException) => Promise.reject(fsError(error, name)),
  );
  try {
    await checkOpened(cwd, absolute, handle, name);
    const viaHandle = `/proc/self/fd/${handle.fd}`;
    const entries = await readdir(viaHandle, { withFileTypes: true }).catch(() => undefined);
    if (entries !== undefined) return entries;
    const byName = await readdir(absolute, { withFileTypes: true }).catch((error) =>
      Promise.reject(fsError(error, name)),
    );
    await checkOpened(cwd, absolute, handle, name);
    return byName;
  } finally {
    await handle.close();
  }
}

// A path as the model sees it: relative to the working directory, with `/` on every OS.
export function shown(cwd: string, absolute: string): string {
  const root = realpathSync.native(cwd);
  const rel = path.relative(root, absolute);
  return rel === "" ? "." : rel.split(path.sep).join("/");
}

// The file system's refusals a model can cause and read are ToolErrors; anything else is a bug.
export function fsError(error: unknown, name: string): unknown {
  const code = (error as NodeJS.ErrnoException)?.code;
  const texts: Record<string, string> = {
    ENOENT: "no such file or directory",
    EISDIR: "not a file",
    ENOTDIR: "not a directory",
    EACCES: "permission denied",
    EPERM: "permission denied",
    ELOOP: "too many levels of symlinks",
    ENAMETOOLONG: "path too long",
    EEXIST: "already exists",
    ENOSPC: "no space left on the device",
    EDQUOT: "disk quota exceeded",
    EFBIG: "file too large for the file system",
    EROFS: "read-only file system",
    EBUSY: "busy",
    ETXTBSY: "busy",
    EMLINK: "too many links",
  };
  const text = code === undefined ? undefined : texts[code];
  return text === undefined ? error : new ToolError(`${text}: ${name}`);
}

// Text or not: a NUL byte in the first 8 KiB means binary, as git decides.
export function sniffText(bytes: Uint8Array): boolean {
  return !bytes.subarray(0, 8192).includes(0);
}

// At most `max` characters (UTF-16 units, what .length counts), never half of a surrogate pair.
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
  return text.slice(0, end);
}

// What read_file saw of each file in one run: its hash and size. Day 4's edits will check them, so
// a file can only be changed as it was read.
export class ReadState {
  #files = new Map<string, { sha256: string; size: number }>();

  record(absolute: string, bytes: Uint8Array): void {
    this.#files.set(absolute, { sha256: sha256Of(bytes), size: bytes.length });
  }

  get(absolute: string): { sha256: string; size: number } | undefined {
    return this.#files.get(absolute);
  }
}

export function sha256Of(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

// An existing file may be changed only as it was read in this run: read, and the same bytes now.
// The bytes decide, not the clock: a `touch` changes the mtime and nothing else, and a rewrite in
// the same second keeps the mtime on a coarse file system. A file that is not there yet (`bytes`
// undefined) needs no read.
export function checkFresh(
  readState: ReadState,
  absolute: string,
  bytes: Uint8Array | undefined,
  name: string,
): void {
  if (bytes === undefined) return;
  const seen = readState.get(absolute);
  if (seen === undefined) {
    throw new ToolError(`file has not been read yet: ${name} (read it with read_file first)`);
  }
  if (seen.sha256 !== sha256Of(bytes)) {
    throw new ToolError(`file changed since it was read: ${name} (read it again first)`);
  }
}

// One exact replacement of `oldText` by `newText` in `text` (every one with `all`), or a refusal that
// says what to fix. A replacement must be unique unless all are wanted: two matches mean the model
// does not know which one it is changing. The new text goes in as it is: a `$&` in it is not
// String.replace's pattern.
export function applyEdit(
  text: string,
  oldText: string,
  newText: string,
  all: boolean,
  name: string,
): { text: string; count: number } {
  if (oldText === "") throw new ToolError("old_string must not be empty");
  if (oldText === newText) throw new ToolError("old_string and new_string are the same");
  const parts = text.split(oldText);
  const count = parts.length - 1;
  if (count === 0) throw new ToolError(`old_string not found in ${name}`);
  if (count > 1 && !all) {
    throw new ToolError(
      `old_string found ${count} times in ${name}; add context or set replace_all`,
    );
  }
  return { text: parts.join(newText), count };
}

// One walk for every search: glob, grep and project_tree all see the same files, in the same
// order, with the same folders pruned. Skipped folders are named (project_tree shows them);
// ignored ones are not seen at all.
import { type Dirent, realpathSync } from "node:fs";
import path from "node:path";
import ignore, { type Ignore } from "ignore";
import { openInside, readdirInside, readOpened, SKIP_DIRS } from "./fs-safety.ts";
import { ToolError } from "./tools/index.ts";
import { byteOrder } from "./tools/list-files.ts";

// One thing the walk met. `path` is relative to the root and `rel` to the start, both with `/`;
// `depth` is 1 for the start's own entries. A symlink is never followed: it is a `link`.
export interface WalkEntry {
  path: string;
  rel: string;
  absolute: string;
  kind: "dir" | "file" | "link" | "skipped";
  depth: number;
}

export interface WalkOptions {
  // Entries deeper than this are not listed, and their folders not read.
  maxDepth?: number;
  // Where the walk says which ignore files it did not read, and why; the tools show these notes.
  notes?: string[];
  // What a deny rule hides (a root-relative path): never seen, like an ignored file.
  hidden?: ((path: string) => boolean) | undefined;
}

// An ignore file is rules a person wrote: a few KiB. A bigger one, or one that is not a regular
// file (a symlink out, a FIFO that never ends, /dev/zero), is skipped, not read.
const MAX_IGNORE_FILE_BYTES = 1024 * 1024;

// A .gitignore's rules and the folder (relative to the root, "" for the root) they apply below.
interface IgnoreFile {
  base: string;
  rules: Ignore;
}

// The .gitignore in `dir`, if there is one, read through the same boundary as every file a tool
// reads. `rel` names the folder relative to the root; a skipped file is noted.
async function gitignoreOf(
  root: string,
  dir: string,
  base: string,
  notes: string[],
): Promise<IgnoreFile | undefined> {
  const text = await ignoreFileText(root, path.join(dir, ".gitignore"), base, notes);
  return text === undefined ? undefined : { base, rules: ignore().add(text) };
}

// The text of one ignore file, or undefined when there is none or it is skipped (with a note).
async function ignoreFileText(
  root: string,
  file: string,
  base: string,
  notes: string[],
): Promise<string | undefined> {
  const name = base === "" ? path.basename(file) : `${base}/${path.basename(file)}`;
  const skip = (why: string) => {
    notes.push(`skipped ${name}: ${why}`);
    return undefined;
  };
  let opened: Awaited<ReturnType<typeof openInside>>;
  try {
    opened = await openInside(root, file, name);
  } catch (error) {
    // None there is the usual case, and is not worth a note.
    if (!(error instanceof ToolError)) return skip(String((error as NodeJS.ErrnoException).code));
    if (error.message === `no such file or directory: ${name}`) return undefined;
    return skip(error.message.slice(0, -`: ${name}`.length));
  }
  const { handle, info } = opened;
  try {
    if (!info.isFile()) return skip("not a regular file");
    if (info.size > MAX_IGNORE_FILE_BYTES) return skip(`over ${MAX_IGNORE_FILE_BYTES} bytes`);
    const bytes = await readOpened(handle, MAX_IGNORE_FILE_BYTES).catch(() => undefined);
    if (bytes === undefined) return skip(`over ${MAX_IGNORE_FILE_BYTES} bytes`);
    return new TextDecoder().decode(bytes);
  } finally {
    await handle.close();
  }
}

// Whether the rules stacked so far ignore `rel` (relative to the root): the deepest .gitignore
// that has an opinion decides, as git does, so a nested `!keep.ts` can take back a parent's rule.
function isIgnored(stack: IgnoreFile[], rel: string, dir: boolean): boolean {
  for (let index = stack.length - 1; index >= 0; index--) {
    const { base, rules } = stack[index] as IgnoreFile;
    const below = base === "" ? rel : rel.slice(base.length + 1);
    const result = rules.test(dir ? `${below}/` : below);
    if (result.ignored) return true;
    if (result.unignored) return false;
  }
  return false;
}

// What a deny rule hides, by its name and, for a symlink, by where it leads: `config.txt -> .env`
// is `.env` to grep, which reads through the link.
function isHidden(
  hidden: WalkOptions["hidden"],
  root: string,
  rel: string,
  dirent: Dirent,
): boolean {
  if (hidden === undefined) return false;
  if (hidden(rel)) return true;
  if (!dirent.isSymbolicLink()) return false;
  try {
    const real = realpathSync.native(path.join(root, rel));
    return hidden(path.relative(root, real).split(path.sep).join("/"));
  } catch {
    return false; // a dangling link leads nowhere to read
  }
}

// Everything below `start` (an absolute path inside `root`, both real paths), depth first, each
// folder's entries in byte order. The .gitignore files from the root down to `start` count too.
export async function walk(
  root: string,
  start: string,
  options: WalkOptions = {},
): Promise<WalkEntry[]> {
  const maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
  const notes = options.notes ?? [];
  const startRel = path.relative(root, start).split(path.sep).join("/");
  const above: IgnoreFile[] = [];
  const parts = startRel === "" ? [] : startRel.split("/");
  for (let index = 0; index <= parts.length; index++) {
    const base = parts.slice(0, index).join("/");
    const found = await gitignoreOf(root, path.join(root, ...parts.slice(0, index)), base, notes);
    if (found !== undefined) above.push(found);
  }
  const entries: WalkEntry[] = [];
  const visit = async (dir: string, depth: number, stack: IgnoreFile[]): Promise<void> => {
    // Read from the folder that was checked: a folder swapped for a symlink out is not listed.
    const found = await readdirInside(root, dir, dir).catch(() => []);
    found.sort((a, b) => byteOrder(a.name, b.name));
    for (const dirent of found) {
      const absolute = path.join(dir, dirent.name);
      const rel = path.relative(root, absolute).split(path.sep).join("/");
      const fromStart = path.relative(start, absolute).split(path.sep).join("/");
      const isDir = dirent.isDirectory();
      if (isIgnored(stack, rel, isDir) || isHidden(options.hidden, root, rel, dirent)) continue;
      const entry = { path: rel, rel: fromStart, absolute, depth };
      if (isDir && SKIP_DIRS.has(dirent.name)) {
        entries.push({ ...entry, kind: "skipped" });
      } else if (isDir) {
        entries.push({ ...entry, kind: "dir" });
        if (depth < maxDepth) {
          const nested = await gitignoreOf(root, absolute, rel, notes);
          await visit(absolute, depth + 1, nested === undefined ? stack : [...stack, nested]);
        }
      } else if (dirent.isSymbolicLink()) {
        entries.push({ ...entry, kind: "link" });
      } else if (dirent.isFile()) {
        entries.push({ ...entry, kind: "file" });
      }
    }
  };
  await visit(start, 1, above);
  return entries;
}

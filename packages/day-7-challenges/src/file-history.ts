// Copies of what a file held before agent-code changed it. An undo needs the old bytes, and they
// must be taken before the write: afterwards they are gone. The copies live in the project, under
// `.agent/history/<path>/<UTC time>`, where git does not see them and no tool may change them.
import { lstat, mkdir, readdir, realpath, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "./tools/index.ts";

export const HISTORY = ".agent/history";
const GITIGNORE = ".agent/.gitignore";
const KEEP = 20;

// True for what agent-code keeps in `.agent`: the history folder, anything in it, and the
// `.gitignore` that hides it from git (`rel` with `/`, as `shown` gives it). Case is ignored: on
// macOS and Windows `.Agent/History` is the same folder.
export function agentOwned(rel: string): boolean {
  const lower = rel.toLowerCase();
  return lower === HISTORY || lower.startsWith(`${HISTORY}/`) || lower === GITIGNORE;
}

// 2026-12-01T18:20:19.123Z as 20261201T182019.123Z: a name that sorts by time.
export function stamp(date: Date): string {
  return date.toISOString().replace(/[-:]/g, "");
}

// Keeps the newest `keep` copies in a file's history folder (a real path); names sort by time.
// Only regular files count and go: a symlink planted there is not followed, a folder not emptied.
export async function prune(folder: string, keep = KEEP): Promise<string[]> {
  // A folder swapped for a symlink since it was checked would have files deleted where it leads.
  if ((await realpath(folder)) !== folder) throw new ToolError("history folder changed");
  const files: string[] = [];
  for (const name of (await readdir(folder)).sort()) {
    if ((await lstat(path.join(folder, name))).isFile()) files.push(name);
  }
  const old = files.slice(0, Math.max(0, files.length - keep));
  for (const name of old) await unlink(path.join(folder, name));
  return old;
}

// Writes `bytes`, what `rel` holds now, to `.agent/history/<rel>/<stamp>` (`-1`, `-2` on a clash)
// and returns that path. The first backup also writes `.agent/.gitignore`, so git ignores it all.
export async function backup(
  cwd: string,
  rel: string,
  bytes: Uint8Array,
  now = new Date(),
): Promise<string> {
  const root = await realpath(cwd);
  const folder = await agentFolder(root, "history", ...rel.split("/"));
  for (let clash = 0; ; clash++) {
    const file = path.join(folder, clash === 0 ? stamp(now) : `${stamp(now)}-${clash}`);
    try {
      await writeFile(file, bytes, { flag: "wx" });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") continue;
      throw error;
    }
    await prune(folder);
    return file;
  }
}

// `root` joined with `parts`, each made when missing and each a real folder. A symlink anywhere is
// refused, even one that stays inside: `.agent/history/a.txt -> ../../src` would have the backup
// written, and old copies pruned, in `src`. So each part is made on its own (mkdir never follows
// a link in its last part) and then looked at with lstat, which does not follow one either.
async function realFolders(root: string, parts: string[]): Promise<string> {
  let at = root;
  for (const [index, part] of parts.entries()) {
    at = path.join(at, part);
    await mkdir(at).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    });
    const info = await lstat(at);
    const name = parts.slice(0, index + 1).join("/");
    if (info.isSymbolicLink()) throw new ToolError(`symlink not followed: ${name}`);
    if (!info.isDirectory()) throw new ToolError(`not a directory: ${name}`);
  }
  return at;
}

// A folder below `.agent` (`history/a.txt`, `bg`), each part a real folder, and the
// `.gitignore` that hides all of `.agent` from git, written the first time.
export async function agentFolder(root: string, ...parts: string[]): Promise<string> {
  const folder = await realFolders(root, [".agent", ...parts]);
  await writeFile(path.join(root, GITIGNORE), "*\n", { flag: "wx" }).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    },
  );
  return folder;
}

// backup, or a refusal that stops the write: a change that cannot be undone is not made.
export async function backupOrRefuse(cwd: string, rel: string, bytes: Uint8Array): Promise<void> {
  try {
    await backup(cwd, rel, bytes);
  } catch (error) {
    const reason =
      error instanceof ToolError
        ? error.message
        : ((error as NodeJS.ErrnoException).code ?? String(error));
    throw new ToolError(`could not back up ${rel}: ${reason}; nothing was written`);
  }
}

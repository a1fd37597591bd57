// Copies of what a file held before agent-code changed it. An undo needs the old bytes, and they
// must be taken before the write: afterwards they are gone. The copies live in the project, under
// `.agent/history/<path>/<UTC time>`, where git does not see them and no tool may change them.
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { resolveInside } from "./fs-safety.ts";
import { ToolError } from "./tools.ts";

export const HISTORY = ".agent/history";
const KEEP = 20;

// True for the history folder and anything in it (`rel` with `/`, as `shown` gives it). Case is
// ignored: on macOS and Windows `.Agent/History` is the same folder.
export function inHistory(rel: string): boolean {
  const lower = rel.toLowerCase();
  return lower === HISTORY || lower.startsWith(`${HISTORY}/`);
}

// 2026-12-01T18:20:19.123Z as 20261201T182019.123Z: a name that sorts by time.
export function stamp(date: Date): string {
  return date.toISOString().replace(/[-:]/g, "");
}

// Keeps the newest `keep` copies in a file's history folder; names sort by time.
export async function prune(folder: string, keep = KEEP): Promise<string[]> {
  const names = (await readdir(folder)).sort();
  const old = names.slice(0, Math.max(0, names.length - keep));
  for (const name of old) await rm(path.join(folder, name), { force: true });
  return old;
}

// Writes `bytes`, what `rel` holds now, to `.agent/history/<rel>/<stamp>` (`-1`, `-2` on a clash)
// and returns that path. The first backup also writes `.agent/.gitignore`, so git ignores it all.
// The folder is checked like any path a model gives: a `.agent` symlink that leads out is refused.
export async function backup(
  cwd: string,
  rel: string,
  bytes: Uint8Array,
  now = new Date(),
): Promise<string> {
  const folder = resolveInside(cwd, `${HISTORY}/${rel}`);
  await mkdir(folder, { recursive: true });
  await writeFile(resolveInside(cwd, ".agent/.gitignore"), "*\n", { flag: "wx" }).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    },
  );
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

// The tool that changes files. It checks first (the boundary, a read of the file as it is now),
// shows the change, asks, and only after a yes writes, atomically. A failed check asks nothing.
import { chmod, mkdir, readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { renderDiff } from "./diff-ui.ts";
import { checkFresh, fsError, resolveInside, shown } from "./fs-safety.ts";
import { type ToolContext, ToolError } from "./tools.ts";

// The bytes a file holds now, or undefined when it does not exist yet. A folder is refused.
async function currentBytes(file: string, name: string): Promise<Buffer | undefined> {
  const info = await stat(file).catch((error: NodeJS.ErrnoException) =>
    error.code === "ENOENT" ? undefined : Promise.reject(fsError(error, name)),
  );
  if (info === undefined) return undefined;
  if (!info.isFile()) throw new ToolError(`not a file: ${name}`);
  return readFile(file).catch((error) => Promise.reject(fsError(error, name)));
}

function sameBytes(a: Buffer | undefined, b: Buffer | undefined): boolean {
  return a === undefined || b === undefined ? a === b : a.equals(b);
}

// Text as the diff shows it: invalid UTF-8 as U+FFFD, a BOM kept, so losing one shows.
function decoded(bytes: Buffer | undefined): string | undefined {
  return bytes === undefined
    ? undefined
    : new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
}

// Written whole or not at all: the bytes go to a temporary file beside the target, which a rename
// then puts in its place in one step, so no reader (and no crash) ever sees half a file. The old
// file's mode is kept (a script stays executable); missing folders are made.
export async function writeAtomic(file: string, bytes: Uint8Array, name: string): Promise<void> {
  const folder = path.dirname(file);
  const mode = (await stat(file).catch(() => undefined))?.mode;
  await mkdir(folder, { recursive: true }).catch((error: NodeJS.ErrnoException) =>
    Promise.reject(
      error.code === "EEXIST" ? new ToolError(`not a directory: ${name}`) : fsError(error, name),
    ),
  );
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    // `wx` never opens what is already there, a symlink planted under the temporary name included.
    await unlink(temporary).catch(() => undefined);
    await writeFile(temporary, bytes, { flag: "wx" });
    if (mode !== undefined) await chmod(temporary, mode & 0o7777);
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw fsError(error, name);
  }
}

// Check, show, ask, write. The checks run again after the answer: the person may take a minute,
// and the file may change meanwhile.
async function changeFile(
  ctx: ToolContext,
  input: string,
  file: string,
  before: Buffer | undefined,
  after: string,
): Promise<void> {
  const name = shown(ctx.cwd, file);
  ctx.ui.print(`Diff for ${name}:`);
  for (const line of renderDiff(name, decoded(before), after, ctx.ui.colour)) ctx.ui.print(line);
  if (!(await ctx.ui.confirm(`Apply this change to ${name}?`))) {
    throw new ToolError(`the user rejected this change; ${name} was not changed`);
  }
  if (
    resolveInside(ctx.cwd, input) !== file ||
    !sameBytes(before, await currentBytes(file, name))
  ) {
    throw new ToolError(`file changed since it was read: ${name} (read it again first)`);
  }
  const bytes = Buffer.from(after);
  await writeAtomic(file, bytes, name);
  // What is on disk now is what this run knows: a second change needs no second read.
  ctx.readState.record(file, bytes);
}

// file_write: the whole new content of a file. A new file needs no read; an existing one must
// have been read in this run and be unchanged since.
export async function fileWrite(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  const input = String(args.file_path);
  const content = String(args.content);
  const file = resolveInside(ctx.cwd, input);
  const name = shown(ctx.cwd, file);
  const before = await currentBytes(file, name);
  checkFresh(ctx.readState, file, before, name);
  if (before?.equals(Buffer.from(content))) {
    return `${name} already has this content; nothing written`;
  }
  await changeFile(ctx, input, file, before, content);
  return `Wrote ${content.length} chars to ${name}`;
}

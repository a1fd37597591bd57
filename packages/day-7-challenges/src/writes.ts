// The tools that change files. Each checks first (the boundary, a read of the file as it is now),
// shows the change, asks, and only after a yes writes, atomically. A failed check asks nothing.
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { mkdir, open, readFile, realpath, rename, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { forTerminal, renderDiff } from "./diff-ui.ts";
import { agentOwned, backupOrRefuse } from "./file-history.ts";
import { applyEdit, checkFresh, fsError, resolveInside, shown } from "./fs-safety.ts";
import { REDACTED_MARK } from "./redact.ts";
import { type ToolContext, ToolError } from "./tools/index.ts";

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
// file's mode is kept (a script stays executable); missing folders are made. Every refusal of the
// file system is a one-line ToolError naming the path, and leaves no temporary file behind.
export async function writeAtomic(file: string, bytes: Uint8Array, name: string): Promise<void> {
  const folder = path.dirname(file);
  const mode = (await stat(file).catch(() => undefined))?.mode;
  await mkdir(folder, { recursive: true }).catch((error: NodeJS.ErrnoException) =>
    Promise.reject(
      error.code === "EEXIST" ? new ToolError(`not a directory: ${name}`) : writeError(error, name),
    ),
  );
  const pinned = await pinFolder(folder, name);
  // A name no one can guess, opened with `wx`: nothing planted in the folder is ever opened or
  // removed. The target's name is cut so that a long one still leaves room for the rest.
  const random = randomBytes(6).toString("hex");
  const temporary = path.join(pinned.at, `.${path.basename(file).slice(0, 64)}.${random}.tmp`);
  let created = false;
  try {
    // Private until it has the old file's mode; a new file gets the usual one (the umask's).
    const handle = await open(temporary, "wx", mode === undefined ? 0o666 : 0o600);
    created = true;
    try {
      await handle.writeFile(bytes);
      if (mode !== undefined) await handle.chmod(mode & 0o7777);
    } finally {
      await handle.close();
    }
    // The folder may have been swapped for a symlink meanwhile: it must still be the one checked.
    if ((await realpath(pinned.at).catch(() => undefined)) !== folder) {
      throw new ToolError(`folder changed while writing: ${name}`);
    }
    await rename(temporary, path.join(pinned.at, path.basename(file)));
  } catch (error) {
    if (created) await unlink(temporary).catch(() => undefined);
    throw writeError(error, name);
  } finally {
    await pinned.close();
  }
}

const FOLDER_FLAGS =
  constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);

// The folder to write in. On Linux it is held open and used through /proc/self/fd/N, which names
// the folder that was opened whatever its name leads to later, so the temporary file and the rename
// cannot be sent elsewhere by a swap. Elsewhere (no /proc) it is used by its name, and the check of
// its real path before the rename is what stops a swap.
async function pinFolder(
  folder: string,
  name: string,
): Promise<{ at: string; close(): Promise<void> }> {
  const byName = { at: folder, close: async () => {} };
  if (process.platform !== "linux") return byName;
  const handle = await open(folder, FOLDER_FLAGS).catch((error: NodeJS.ErrnoException) =>
    Promise.reject(
      error.code === "ELOOP"
        ? new ToolError(`folder changed while writing: ${name}`)
        : writeError(error, name),
    ),
  );
  const at = `/proc/self/fd/${handle.fd}`;
  const real = await realpath(at).catch(() => undefined);
  if (real === folder) return { at, close: () => handle.close() };
  await handle.close();
  // Without /proc mounted, by name it is; with it, the folder opened is not the one checked.
  if (real === undefined && (await stat("/proc/self/fd").catch(() => undefined)) === undefined) {
    return byName;
  }
  throw new ToolError(`folder changed while writing: ${name}`);
}

// A write's failure as the model reads it: the file system's known refusals in words (fsError),
// any other one by its code, so a full disk or a read-only mount is never a stack trace.
function writeError(error: unknown, name: string): unknown {
  const mapped = fsError(error, name);
  const { code, errno } = (error ?? {}) as NodeJS.ErrnoException;
  return mapped instanceof ToolError || typeof errno !== "number"
    ? mapped
    : new ToolError(`could not write ${name}: ${code}`);
}

// Check, show, ask, write. The checks run again after the answer: the person may take a minute,
// and the file may change meanwhile. `change` makes the new text from the file's bytes; it runs
// again after the answer, on the file as it is then, so what is written is made from what is there.
async function changeFile(
  ctx: ToolContext,
  input: string,
  file: string,
  before: Buffer | undefined,
  change: (bytes: Buffer | undefined) => string,
): Promise<void> {
  const name = shown(ctx.cwd, file);
  ctx.ui.print(`Diff for ${forTerminal(name)}:`);
  for (const line of renderDiff(name, decoded(before), change(before), ctx.ui.colour)) {
    ctx.ui.print(line);
  }
  if (!(await ctx.ui.confirm(`Apply this change to ${forTerminal(name)}?`))) {
    throw new ToolError(`the user rejected this change; ${name} was not changed`);
  }
  const now = await currentBytes(file, name);
  if (resolveInside(ctx.cwd, input) !== file || !sameBytes(before, now)) {
    throw new ToolError(`file changed since it was read: ${name} (read it again first)`);
  }
  const bytes = Buffer.from(change(now));
  // The old bytes first: what cannot be undone is not written.
  if (now !== undefined) await backupOrRefuse(ctx.cwd, name, now);
  await writeAtomic(file, bytes, name);
  // What is on disk now is what this run knows: a second change needs no second read.
  ctx.readState.record(file, bytes);
}

// A path that ends in `/` (or `\` on Windows), `.` or `..` names a folder: written as a file,
// `newdir/` would become a file called `newdir`.
function checkFilePath(input: string): void {
  const last = input.split(process.platform === "win32" ? /[\\/]/ : "/").at(-1);
  if (last === "" || last === "." || last === "..") {
    throw new ToolError(`not a file path: ${input} (it must end in a file name)`);
  }
}

// A result showed the model `[redacted:NAME]` where a secret was: written back, it would replace
// the secret in the file with the marker.
function refuseRedacted(text: string): void {
  if (text.includes(REDACTED_MARK)) {
    throw new ToolError(
      `refusing to write ${REDACTED_MARK}…]: it stands for a secret agent-code kept from you; nothing written`,
    );
  }
}

// file_write: the whole new content of a file. A new file needs no read; an existing one must
// have been read in this run and be unchanged since.
export async function fileWrite(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  const input = String(args.file_path);
  const content = String(args.content);
  const file = resolveInside(ctx.cwd, input);
  checkFilePath(input);
  refuseRedacted(content);
  const name = shown(ctx.cwd, file);
  if (agentOwned(name)) throw new ToolError("refusing to change agent-code's backups");
  const before = await currentBytes(file, name);
  checkFresh(ctx.readState, file, before, name);
  if (before?.equals(Buffer.from(content))) {
    return `${name} already has this content; nothing written`;
  }
  await changeFile(ctx, input, file, before, () => content);
  return `Wrote ${content.length} chars to ${name}`;
}

const BOM = "\ufeff";

// A file's text for an edit: UTF-8 or refused (a replacement would turn each bad byte into U+FFFD
// for good), with its BOM and its line ends noted so the edit can put them back.
function editableText(bytes: Buffer, name: string): { text: string; bom: boolean; crlf: boolean } {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new ToolError(`not UTF-8 text: ${name} (file_edit changes text only)`);
  }
  const bom = text.startsWith(BOM);
  if (bom) text = text.slice(BOM.length);
  // CRLF when every line ends so: a mixed file is matched as it is.
  const lineEnds = text.split("\n").length - 1;
  const crlf = lineEnds > 0 && text.split("\r\n").length - 1 === lineEnds;
  return { text, bom, crlf };
}

// The edited text of `bytes` and how many replacements made it. In a CRLF file the model's `\n`
// means the file's `\r\n`: the match is made on LF text and CRLF is written back (unless
// old_string spells out its `\r`s).
function edited(
  bytes: Buffer,
  args: Record<string, unknown>,
  name: string,
): { text: string; count: number } {
  const oldText = String(args.old_string);
  const newText = String(args.new_string);
  const all = args.replace_all === true;
  const { text, bom, crlf } = editableText(bytes, name);
  let result: { text: string; count: number };
  if (crlf && !oldText.includes("\r")) {
    const lf = applyEdit(
      text.replaceAll("\r\n", "\n"),
      oldText,
      newText.replaceAll("\r\n", "\n"),
      all,
      name,
    );
    result = { text: lf.text.replaceAll("\n", "\r\n"), count: lf.count };
  } else {
    result = applyEdit(text, oldText, newText, all, name);
  }
  return bom ? { text: `${BOM}${result.text}`, count: result.count } : result;
}

// file_edit: replace text the model has just read. The file must exist, have been read in this run
// and be unchanged since; old_string must be found exactly once (or replace_all set).
export async function fileEdit(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  const input = String(args.file_path);
  const file = resolveInside(ctx.cwd, input);
  checkFilePath(input);
  refuseRedacted(String(args.new_string));
  const name = shown(ctx.cwd, file);
  if (agentOwned(name)) throw new ToolError("refusing to change agent-code's backups");
  const before = await currentBytes(file, name);
  if (before === undefined) throw new ToolError(`no such file or directory: ${name}`);
  checkFresh(ctx.readState, file, before, name);
  // A dry run first: a refusal (not found, found twice) asks nothing.
  const { count } = edited(before, args, name);
  await changeFile(ctx, input, file, before, (bytes) => edited(bytes ?? before, args, name).text);
  return `Edited ${name}: ${count} ${count === 1 ? "replacement" : "replacements"}`;
}

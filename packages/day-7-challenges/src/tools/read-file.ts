// read_file: a window of a text file inside the working directory, opened and then checked.
import {
  fsError,
  openInside,
  readOpened,
  resolveInside,
  shown,
  sniffText,
  truncate,
} from "../fs-safety.ts";
import { type Tool, type ToolContext, ToolError } from "./index.ts";

// read_file's limits: a window of lines within a character cap, so a huge file never reaches the
// model whole; the marker says where to read on.
const MAX_READ_BYTES = 10 * 1024 * 1024;
const DEFAULT_LINES = 2000;
const MAX_READ_CHARS = 8000;

export async function readTextFile(
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<string> {
  const input = String(args.path);
  const offset = positive(args.offset, "offset") ?? 1;
  const limit = positive(args.limit, "limit") ?? DEFAULT_LINES;
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
  return lineWindow(lines, offset, limit);
}

// Lines offset..offset+limit-1, fewer when the character cap is reached first, and a marker
// whenever the window is not the whole file.
function lineWindow(lines: string[], offset: number, limit: number): string {
  const shownLines: string[] = [];
  let chars = 0;
  let cutLine = false;
  for (let index = offset - 1; index < lines.length && shownLines.length < limit; index++) {
    const line = lines[index] ?? "";
    const cost = line.length + (shownLines.length > 0 ? 1 : 0);
    if (chars + cost > MAX_READ_CHARS) {
      // One line longer than the cap on its own: show its start rather than nothing.
      if (shownLines.length === 0) {
        shownLines.push(truncate(line, MAX_READ_CHARS));
        cutLine = true;
      }
      break;
    }
    shownLines.push(line);
    chars += cost;
  }
  const last = offset + shownLines.length - 1;
  if (!cutLine && offset === 1 && last === lines.length) return shownLines.join("\n");
  const cut = cutLine ? `, line ${last} cut at ${MAX_READ_CHARS} chars` : "";
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

export const readFileTool: Tool = {
  name: "read_file",
  description:
    "Read a text file inside the working directory. Shows up to 2000 lines within 8000 characters; a marker at the end says how to read on with offset.",
  run: readTextFile,
  readOnly: true,
  parameters: {
    type: "object",
    properties: {
      path: { type: "string", description: "The file, relative to the working directory." },
      offset: { type: "integer", minimum: 1, description: "The first line to show (from 1)." },
      limit: { type: "integer", minimum: 1, description: "How many lines to show at most." },
    },
    required: ["path"],
    additionalProperties: false,
  },
};

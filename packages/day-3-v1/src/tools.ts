// Tools the model may ask for, and the registry that runs them by name.
import {
  fsError,
  openInside,
  type ReadState,
  readdirInside,
  readOpened,
  resolveInside,
  SKIP_DIRS,
  shown,
  sniffText,
  truncate,
} from "./fs-safety.ts";
import type { ToolCall, ToolResult } from "./model.ts";

// What a tool may know about the run that called it: the directory it works in (never
// process.cwd()), what was read so far, and a signal that says the run was stopped.
export interface ToolContext {
  cwd: string;
  readState: ReadState;
  signal: AbortSignal;
}

export type ToolFunction = (
  args: Record<string, unknown>,
  ctx: ToolContext,
) => string | Promise<string>;

// A tool's refusal (a path outside the working directory, a missing file): the model reads the
// message as an is_error result and the run goes on. Any other throw is a bug in agent-code.
export class ToolError extends Error {
  override name = "ToolError";
}

// JSON Schema of a tool's arguments, sent to the model as the tool's input_schema. (A type alias,
// not an interface, so it fits the SDK's open-ended InputSchema.)
export type JsonSchema = {
  type: "object";
  properties?: Record<string, unknown>;
  required?: string[];
  additionalProperties?: boolean;
};

export interface Tool {
  name: string;
  description: string;
  run: ToolFunction;
  // Without one, the tool takes no arguments.
  parameters?: JsonSchema;
}

export function echo(args: Record<string, unknown>): string {
  return String(args.text ?? "");
}

// The model has no clock: this is how it learns the date. The zone is named as the platform names
// it (UTC, GMT+8, CET).
export function systemDate(): string {
  const now = new Date();
  const pad = (value: number) => String(value).padStart(2, "0");
  const zone = new Intl.DateTimeFormat("en-US", { timeZoneName: "short" })
    .formatToParts(now)
    .find((part) => part.type === "timeZoneName")?.value;
  const date = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
  const time = `${pad(now.getHours())}:${pad(now.getMinutes())}:${pad(now.getSeconds())}`;
  return `${date} ${time} ${zone ?? "UTC"}`;
}

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

const MAX_LIST_ENTRIES = 500;

// One level of a folder: folders first, then files, each group in byte order; `/` after a folder,
// `@` after a symlink. Skipped folders are not listed but named at the end, so the model knows.
export async function listFiles(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  const dir = resolveInside(ctx.cwd, args.path === undefined ? "." : String(args.path));
  const name = shown(ctx.cwd, dir);
  const entries = await readdirInside(ctx.cwd, dir, name);
  const skipped: string[] = [];
  const dirs: string[] = [];
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.isDirectory() && SKIP_DIRS.has(entry.name)) skipped.push(`${entry.name}/`);
    else if (entry.isDirectory()) dirs.push(`${entry.name}/`);
    else if (entry.isSymbolicLink()) files.push(`${entry.name}@`);
    else files.push(entry.name);
  }
  const listed = [...dirs.sort(byteOrder), ...files.sort(byteOrder)];
  const lines = listed.slice(0, MAX_LIST_ENTRIES);
  if (listed.length > MAX_LIST_ENTRIES) lines.push(`[${listed.length - MAX_LIST_ENTRIES} more]`);
  if (skipped.length > 0) lines.push(`(skipped: ${skipped.sort(byteOrder).join(", ")})`);
  return lines.length === 0 ? "(empty)" : lines.join("\n");
}

// The same order on every OS and locale: by the names' UTF-8 bytes.
export function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

export class ToolRegistry {
  #tools = new Map<string, Tool>();

  register(tool: Tool): void {
    this.#tools.set(tool.name, tool);
  }

  list(): Tool[] {
    return [...this.#tools.values()];
  }

  async run(call: ToolCall, ctx: ToolContext): Promise<ToolResult> {
    const tool = this.#tools.get(call.name);
    if (!tool) {
      // The model named a tool we do not have: tell it which ones exist instead of failing.
      const available = [...this.#tools.keys()].join(", ");
      return {
        toolCallId: call.id,
        content: `unknown tool: ${call.name} (available: ${available})`,
        isError: true,
      };
    }
    // Input that is not a JSON object is the model's mistake too: it reads why and retries.
    if (!isObject(call.arguments)) {
      return {
        toolCallId: call.id,
        content: `bad arguments for ${call.name}: input must be an object`,
        isError: true,
      };
    }
    // So are arguments that break the schema.
    const problem = argumentProblem(call.arguments, tool.parameters);
    if (problem !== undefined) {
      return {
        toolCallId: call.id,
        content: `bad arguments for ${call.name}: ${problem}`,
        isError: true,
      };
    }
    // A refusal goes back to the model; any other throw is a bug in agent-code and fails the run.
    try {
      return { toolCallId: call.id, content: await tool.run(call.arguments, ctx), isError: false };
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      return { toolCallId: call.id, content: error.message, isError: true };
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// Checks what a flat tool schema says: required properties, JSON types, and no unknown
// properties when additionalProperties is false. The first problem found, or undefined.
function argumentProblem(
  args: Record<string, unknown>,
  schema: JsonSchema | undefined,
): string | undefined {
  if (schema === undefined) return undefined;
  for (const name of schema.required ?? []) {
    if (!(name in args)) return `missing required property "${name}"`;
  }
  for (const [name, value] of Object.entries(args)) {
    const property = schema.properties?.[name] as { type?: unknown } | undefined;
    if (property === undefined) {
      if (schema.additionalProperties === false) return `unexpected property "${name}"`;
      continue;
    }
    if (typeof property.type === "string" && jsonType(value) !== property.type) {
      if (property.type === "number" && jsonType(value) === "integer") continue;
      return `property "${name}" should be ${property.type}, got ${jsonType(value)}`;
    }
  }
  return undefined;
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (Number.isInteger(value)) return "integer";
  return typeof value;
}

export function defaultTools(): ToolRegistry {
  const tools = new ToolRegistry();
  tools.register({
    name: "echo",
    description: "Repeat the given text back.",
    run: echo,
    parameters: {
      type: "object",
      properties: { text: { type: "string", description: "The text to repeat." } },
      required: ["text"],
      additionalProperties: false,
    },
  });
  tools.register({
    name: "system_date",
    description: "Return the current local date, time and time zone of this machine.",
    run: systemDate,
  });
  tools.register({
    name: "read_file",
    description:
      "Read a text file inside the working directory. Shows up to 2000 lines within 8000 characters; a marker at the end says how to read on with offset.",
    run: readTextFile,
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
  });
  tools.register({
    name: "list_files",
    description:
      "List one folder inside the working directory: folders first (ending in /), then files. Tool and cache folders such as .git and node_modules are skipped and named at the end.",
    run: listFiles,
    parameters: {
      type: "object",
      properties: {
        path: {
          type: "string",
          description: 'The folder, relative to the working directory (default ".").',
        },
      },
      additionalProperties: false,
    },
  });
  return tools;
}

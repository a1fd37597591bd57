// glob: files whose path matches a pattern; also where every search tool starts, and the notes
// it adds about skipped ignore files.
import { stat } from "node:fs/promises";
import picomatch from "picomatch";
import { fsError, resolveInside, shown } from "../fs-safety.ts";
import { MAX_PATTERN_CHARS, Matcher } from "../matcher.ts";
import { type WalkEntry, walk } from "../walk.ts";
import { type Tool, type ToolContext, ToolError } from "./index.ts";
import { byteOrder } from "./list-files.ts";

// Where a search starts: a folder inside the working directory ("." by default), through the same
// boundary as every other path. Returns the root's and the start's real paths and the start's name.
export async function searchStart(
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<{ root: string; start: string; name: string; isFile: boolean }> {
  const start = resolveInside(ctx.cwd, args.path === undefined ? "." : String(args.path));
  const root = resolveInside(ctx.cwd, ".");
  const name = shown(ctx.cwd, start);
  const info = await stat(start).catch((error) => Promise.reject(fsError(error, name)));
  return { root, start, name, isFile: info.isFile() };
}

const MAX_GLOB_MATCHES = 200;

// A glob as the model means it: dot files match, and a pattern without a slash matches a name at
// any depth (picomatch's basename option, given only then: with it, `src/a*.ts` matches nothing).
// picomatch makes the expression here; the worker runs it (matcher.ts), and a pattern that
// backtracks for ever is stopped there.
async function globMatcher(pattern: string, ctx: ToolContext): Promise<Matcher> {
  if (pattern.length > MAX_PATTERN_CHARS) {
    throw new ToolError(
      `glob pattern too long: ${pattern.length} chars (limit ${MAX_PATTERN_CHARS})`,
    );
  }
  const basename = !pattern.includes("/");
  let regex: RegExp;
  try {
    regex = picomatch.makeRe(pattern, { dot: true, basename });
  } catch (error) {
    throw new ToolError(`invalid glob: ${(error as Error).message}`);
  }
  return Matcher.start({
    source: regex.source,
    flags: regex.flags,
    what: "glob",
    basename,
    exact: pattern,
    signal: ctx.signal,
  });
}

// The entries whose path below the start (`rel`) the glob matches, in their order.
export async function globbed(entries: WalkEntry[], pattern: string, ctx: ToolContext) {
  const matcher = await globMatcher(pattern, ctx);
  try {
    const hits = await matcher.paths(entries.map((entry) => entry.rel));
    return hits.map((index) => entries[index] as WalkEntry);
  } finally {
    await matcher.close();
  }
}

// Files whose path below `path` matches the pattern. A pattern without a slash matches a file's
// name at any depth, as `*.ts`; dot files match too. Listed in byte order, relative to the
// working directory, so read_file takes them as they are.
export async function globFiles(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  const { root, start, name, isFile } = await searchStart(args, ctx);
  if (isFile) throw new ToolError(`not a directory: ${name}`);
  const notes: string[] = [];
  const files = (await walk(root, start, { notes, hidden: ctx.hidden })).filter(
    (entry) => entry.kind !== "dir" && entry.kind !== "skipped",
  );
  const found = (await globbed(files, String(args.pattern), ctx))
    .map((entry) => entry.path)
    .sort(byteOrder);
  if (found.length === 0) return withNotes("(no matches)", notes);
  if (found.length <= MAX_GLOB_MATCHES) return withNotes(found.join("\n"), notes);
  const cut = `[${MAX_GLOB_MATCHES} of ${found.length} matches; narrow the pattern]`;
  return withNotes(`${found.slice(0, MAX_GLOB_MATCHES).join("\n")}\n${cut}`, notes);
}

// An answer and, after it, the ignore files the walk skipped, so the model knows why a file it
// expected to be ignored was not.
export function withNotes(answer: string, notes: string[]): string {
  return notes.length === 0 ? answer : `${answer}\n${notes.map((note) => `(${note})`).join("\n")}`;
}

export const globTool: Tool = {
  name: "glob",
  description:
    "Find files inside the working directory whose path matches a glob pattern (** matches any number of folders); a pattern without a slash, such as *.ts, matches file names at any depth. Ignored (.gitignore) and tool folders are left out. At most 200 paths.",
  run: globFiles,
  readOnly: true,
  parameters: {
    type: "object",
    properties: {
      pattern: { type: "string", description: "The glob pattern, such as *.ts." },
      path: {
        type: "string",
        description: 'The folder to search, relative to the working directory (default ".").',
      },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
};

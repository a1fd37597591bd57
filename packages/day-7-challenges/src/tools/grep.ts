// grep: lines of text files that match a regular expression, which runs where it can be stopped.
import { openInside, readOpened, resolveInside, sniffText, truncate } from "../fs-safety.ts";
import { Matcher } from "../matcher.ts";
import { type WalkEntry, walk } from "../walk.ts";
import { globbed, searchStart, withNotes } from "./glob.ts";
import { type Tool, type ToolContext, ToolError } from "./index.ts";

// grep's limits: files it reads, lines it returns, characters of one line and of them all.
const MAX_GREP_FILE_BYTES = 1024 * 1024;
const MAX_GREP_LINES = 200;
const MAX_GREP_CHARS = 8000;
const MAX_GREP_LINE_CHARS = 500;

// The file a search may read: a real file inside the working directory (a symlink only when it
// leads to one), text, at most 1 MiB, opened and then checked like read_file's. Undefined for
// anything else: grep skips it in silence.
async function searchableText(entry: WalkEntry, ctx: ToolContext): Promise<string | undefined> {
  let file = entry.absolute;
  try {
    if (entry.kind === "link") file = resolveInside(ctx.cwd, entry.absolute);
    const { handle, info } = await openInside(ctx.cwd, file, entry.path);
    try {
      if (!info.isFile() || info.size > MAX_GREP_FILE_BYTES) return undefined;
      const bytes = await readOpened(handle, MAX_GREP_FILE_BYTES);
      if (bytes === undefined || !sniffText(bytes)) return undefined;
      return new TextDecoder().decode(bytes);
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

// Lines that match a JavaScript regular expression, as `src/a.ts:12:text`, in the walk's order.
// The flags are `i` or none, never `g`: a global RegExp's test() remembers where it stopped. The
// expression runs on a worker with a time limit (matcher.ts): a pattern can be slow, never stuck.
export async function grepFiles(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  const matcher = await Matcher.start({
    source: String(args.pattern),
    flags: args.ignore_case === true ? "i" : "",
    what: "regex",
    signal: ctx.signal,
  });
  try {
    return await grepWith(matcher, args, ctx);
  } finally {
    await matcher.close();
  }
}

async function grepWith(
  matcher: Matcher,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<string> {
  const { root, start, name, isFile } = await searchStart(args, ctx);
  const notes: string[] = [];
  let entries: WalkEntry[] = isFile
    ? [{ path: name, rel: name.split("/").at(-1) ?? name, absolute: start, kind: "file", depth: 0 }]
    : await walk(root, start, { notes, hidden: ctx.hidden });
  entries = entries.filter((entry) => entry.kind === "file" || entry.kind === "link");
  if (args.glob !== undefined) entries = await globbed(entries, String(args.glob), ctx);
  const lines: string[] = [];
  let chars = 0;
  let total = 0;
  for (const entry of entries) {
    // Stopped between files (or before the first): a stopped search never reads as an empty one.
    if (ctx.signal.aborted) throw new ToolError("regex was stopped");
    const text = await searchableText(entry, ctx);
    if (text === undefined) continue;
    const fileLines = text.split("\n");
    for (const number of await matcher.lines(text)) {
      const line = (fileLines[number - 1] ?? "").replace(/\r$/, "");
      total++;
      const cut =
        line.length > MAX_GREP_LINE_CHARS ? `${truncate(line, MAX_GREP_LINE_CHARS)}…` : line;
      const shownLine = `${entry.path}:${number}:${cut}`;
      const cost = shownLine.length + (lines.length > 0 ? 1 : 0);
      if (
        lines.length < MAX_GREP_LINES &&
        chars + cost <= MAX_GREP_CHARS &&
        lines.length === total - 1
      ) {
        lines.push(shownLine);
        chars += cost;
      }
    }
  }
  if (total === 0) return withNotes("(no matches)", notes);
  if (lines.length === total) return withNotes(lines.join("\n"), notes);
  return withNotes(
    `${lines.join("\n")}\n[${lines.length} of ${total} matching lines shown; narrow the pattern, path or glob]`,
    notes,
  );
}

export const grepTool: Tool = {
  name: "grep",
  description:
    "Search text files inside the working directory for lines matching a JavaScript regular expression (not PCRE or POSIX). Answers path:line:text. Binaries, files over 1 MiB, ignored (.gitignore) and tool folders are skipped. At most 200 lines.",
  run: grepFiles,
  readOnly: true,
  parameters: {
    type: "object",
    properties: {
      pattern: { type: "string", description: "A JavaScript regular expression." },
      path: {
        type: "string",
        description:
          'The folder or file to search, relative to the working directory (default ".").',
      },
      glob: {
        type: "string",
        description: "Search only files matching this glob, such as *.ts.",
      },
      ignore_case: { type: "boolean", description: "Match without regard to case." },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
};

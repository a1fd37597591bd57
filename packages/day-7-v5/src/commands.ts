// Commands as Markdown files: the person's (`$AGENT_CODE_HOME/commands/<name>.md`) and the
// project's (`.agent/commands/<name>.md`), read once at start into the registry the built-ins are
// in. A file is text: its body becomes the prompt with `$ARGUMENTS` and `$1`…`$9` filled in, and
// nothing else in it is run or read. The rules are decision 0080's; what it left open, 0086's.
import { closeSync, lstatSync, readdirSync, realpathSync } from "node:fs";
import path from "node:path";
import { printable } from "./agent.ts";
import { escapes, fsError, openInsideSync, readOpenedSync } from "./fs-safety.ts";
import { shownHome } from "./rules.ts";
import { splitWords } from "./shell-words.ts";
import { type SlashCommand, SlashError } from "./slash.ts";
import { ToolError } from "./tools/index.ts";

export const COMMAND_NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;
export const MAX_COMMAND_BYTES = 64 * 1024;
export const MAX_COMMANDS = 100;
// The most of a description /help shows.
const DESCRIPTION_CHARS = 120;

// Whose file a command is: /help marks it so.
export type CommandSource = "yours" | "project";

export interface CommandFile {
  name: string;
  source: CommandSource;
  // The file as the notes and /help name it: `.agent/commands/review.md`.
  shown: string;
  description?: string;
  argumentHint?: string;
  body: string;
}

export interface LoadedCommands {
  commands: SlashCommand[];
  // One line each for what was skipped, for stderr.
  notes: string[];
}

interface Folder {
  source: CommandSource;
  // The folder the files must really be in, and the commands folder below it.
  root: string;
  folder: string;
  shown: string;
}

// Both folders, in the order that decides a name: built-ins (`taken`), then the person's, then the
// project's. A project's file whose name is taken is not loaded, with a note: a repository cannot
// shadow /help or the person's own /review.
export function loadCommands(options: {
  home: string;
  cwd: string;
  taken: Iterable<string>;
}): LoadedCommands {
  const owners = new Map<string, CommandSource | "built-in">();
  for (const name of options.taken) owners.set(name, "built-in");
  const notes: string[] = [];
  const commands: SlashCommand[] = [];
  const folders: Folder[] = [
    {
      source: "yours",
      root: options.home,
      folder: "commands",
      shown: `${shownHome(options.home)}/commands`,
    },
    { source: "project", root: options.cwd, folder: ".agent/commands", shown: ".agent/commands" },
  ];
  for (const folder of folders) {
    for (const file of readFolder(folder, notes)) {
      const owner = owners.get(file.name);
      if (owner !== undefined) {
        const whose = owner === "built-in" ? "a built-in command" : "your own command";
        notes.push(`note: ${file.shown} is not loaded: /${file.name} is ${whose}`);
        continue;
      }
      owners.set(file.name, file.source);
      commands.push(fileCommand(file));
    }
  }
  return { commands, notes };
}

// The `.md` files of one folder, at most MAX_COMMANDS of them (the first by name); each one that
// cannot be a command is a note. A missing folder is no commands and no note.
function readFolder(folder: Folder, notes: string[]): CommandFile[] {
  let root: string;
  let real: string;
  try {
    root = realpathSync.native(folder.root);
    real = realpathSync.native(path.join(root, folder.folder));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") notes.push(skipped(reason(error, folder.shown)));
    return [];
  }
  // Day 3's boundary: a commands folder that is a symlink out of its home or project is not read.
  if (escapes(root, real)) {
    notes.push(`note: ${folder.shown} leads outside its folder; not read`);
    return [];
  }
  let names: string[];
  try {
    names = readdirSync(real).filter((name) => name.endsWith(".md"));
  } catch (error) {
    notes.push(skipped(reason(error, folder.shown)));
    return [];
  }
  names.sort();
  if (names.length > MAX_COMMANDS) {
    notes.push(
      `note: ${folder.shown} holds ${names.length} .md files; the first ${MAX_COMMANDS} by name are read, ${names.length - MAX_COMMANDS} skipped`,
    );
  }
  const files: CommandFile[] = [];
  for (const name of names.slice(0, MAX_COMMANDS)) {
    const read = readCommandFile(root, real, name, folder);
    if (typeof read === "string") notes.push(read);
    else files.push(read);
  }
  return files;
}

function skipped(why: string): string {
  return `note: ${why}; skipped`;
}

function reason(error: unknown, shown: string): string {
  const known = error instanceof ToolError ? error : fsError(error, shown);
  if (known instanceof ToolError) return known.message;
  const code = (error as NodeJS.ErrnoException).code;
  return `${shown} cannot be read (${code ?? String(error)})`;
}

// One file, or the note that says why it is not a command. lstat first: a symlink is never
// followed, whatever it points at; the open (O_NOFOLLOW, checked inside `root`) says it again.
// Read synchronously: a hundred files through the thread pool cost 40 ms of CPU, this 3 ms.
function readCommandFile(
  root: string,
  folderReal: string,
  fileName: string,
  folder: Folder,
): CommandFile | string {
  const shown = printable(`${folder.shown}/${fileName}`);
  const name = fileName.slice(0, -".md".length);
  if (!COMMAND_NAME.test(name)) {
    return skipped(
      `${shown}: not a command name (a-z, 0-9 and -, at most 32, not starting with -)`,
    );
  }
  const absolute = path.join(folderReal, fileName);
  let info: ReturnType<typeof lstatSync>;
  try {
    info = lstatSync(absolute);
  } catch (error) {
    return skipped(reason(error, shown));
  }
  if (!info.isFile()) return skipped(`${shown} is not a regular file`);
  const tooBig = skipped(`${shown} is over 64 KiB`);
  if (info.size > MAX_COMMAND_BYTES) return tooBig;
  let opened: ReturnType<typeof openInsideSync>;
  try {
    opened = openInsideSync(root, absolute, shown);
  } catch (error) {
    return skipped(reason(error, shown));
  }
  let text: string;
  try {
    if (!opened.info.isFile()) return skipped(`${shown} is not a regular file`);
    const bytes = readOpenedSync(opened.fd, MAX_COMMAND_BYTES);
    if (bytes === undefined) return tooBig;
    text = bytes.toString("utf8");
  } finally {
    closeSync(opened.fd);
  }
  const { fields, body } = readFrontmatter(text);
  if (body === "") return skipped(`${shown} has no prompt`);
  const description = fields.description;
  const argumentHint = fields["argument-hint"];
  return {
    name,
    source: folder.source,
    shown,
    body,
    ...(description === undefined || description === "" ? {} : { description }),
    ...(argumentHint === undefined || argumentHint === "" ? {} : { argumentHint }),
  };
}

// A small frontmatter reader: when the first line is `---` and a later line is `---`, the lines
// between are `key: value` (a value may be in quotes; any other line there is ignored) and the
// body is what follows. Without both lines the whole file is body. No YAML beyond that.
export function readFrontmatter(text: string): { fields: Record<string, string>; body: string } {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  const end = lines.findIndex((line, i) => i > 0 && line.trimEnd() === "---");
  if (lines[0]?.trimEnd() !== "---" || end < 0)
    return { fields: {}, body: lines.join("\n").trim() };
  const fields: Record<string, string> = {};
  for (const line of lines.slice(1, end)) {
    const match = /^([A-Za-z][\w-]*)[ \t]*:[ \t]*(.*)$/.exec(line);
    if (match === null) continue;
    const value = (match[2] ?? "").trim();
    const quoted = /^(["'])(.*)\1$/.exec(value);
    fields[match[1] ?? ""] = quoted === null ? value : (quoted[2] ?? "");
  }
  return {
    fields,
    body: lines
      .slice(end + 1)
      .join("\n")
      .trim(),
  };
}

// The prompt a command sends: `$ARGUMENTS` is the rest of the line as typed, `$1`…`$9` its words as
// Day 5's reader splits them (a missing one is empty). One pass: what an argument holds is never
// expanded again, and nothing else in the body is (no `` !`cmd` ``, no `@file`).
export function expandCommand(body: string, rest: string): string {
  const { words } = splitWords(rest);
  return body.replace(/\$(ARGUMENTS|[1-9])/g, (_, which: string) =>
    which === "ARGUMENTS" ? rest : (words[Number(which) - 1] ?? ""),
  );
}

function describe(file: CommandFile): string {
  const description = printable(file.description ?? `send ${file.shown} as the prompt`);
  const short =
    description.length > DESCRIPTION_CHARS
      ? `${description.slice(0, DESCRIPTION_CHARS - 1)}…`
      : description;
  const hint =
    file.argumentHint === undefined ? "" : ` (/${file.name} ${printable(file.argumentHint)})`;
  return `${short}${hint}`;
}

// A file's command: it takes the rest of the line as typed, and answers with the prompt to send.
export function fileCommand(file: CommandFile): SlashCommand {
  return {
    name: file.name,
    description: describe(file),
    source: file.source,
    freeText: true,
    run([rest = ""]) {
      const prompt = expandCommand(file.body, rest.trim());
      if (prompt.trim() === "") throw new SlashError("sends an empty prompt");
      return { prompt };
    },
  };
}

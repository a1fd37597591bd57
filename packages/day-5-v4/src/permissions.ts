// One gate for every tool call: it decides, before the tool runs, whether the call runs, asks the
// person first, or is refused. Guards that no mode lifts come first; then the mode decides.
import { realpathSync } from "node:fs";
import { relative, resolve, sep } from "node:path";
import { resolveInside } from "./fs-safety.ts";
import {
  commandName,
  type ParsedCommand,
  type Pipeline,
  parseCommand,
  SHELLS,
  type SimpleCommand,
  withoutWrappers,
} from "./shell-words.ts";
import { unrunnable } from "./tools/bash.ts";
import type { Tool } from "./tools/index.ts";

export const PERMISSION_MODES = ["default", "acceptEdits", "plan", "bypassPermissions"] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

export type Decision =
  | { behavior: "allow" }
  // `needs`: lines for the question, each saying what needs the person's yes, and why.
  | { behavior: "ask"; needs?: string[] }
  | { behavior: "deny"; reason: string };

export interface PermissionRequest {
  // The tool the model named, when there is one (an unknown name is the registry's to answer).
  tool: Tool | undefined;
  args: unknown;
  mode: PermissionMode;
  // The working folder, where the paths a call names are read from.
  cwd: string;
}

// Tools that change files, which acceptEdits lets through without a question.
const EDIT_TOOLS = new Set(["file_write", "file_edit"]);

// Folders no mode writes in without a question, by their names in lower case: git runs what
// `.git` holds (a hook, a `core.fsmonitor` in its config) the next time the person uses it, and
// `.agent` is agent-code's own. A folder of the name anywhere counts: a nested repository runs its
// hooks too, and macOS and Windows find `.GIT` as `.git`.
const PROTECTED = new Map([
  [".git", "git runs what it holds"],
  [".agent", "agent-code's own folder"],
]);

// The arguments up to `--`: after it, `-rf` is a file name. GNU tools take options after
// operands too (`rm x -rf`), so every argument before `--` counts.
function options(args: string[]): string[] {
  const end = args.indexOf("--");
  return end < 0 ? args : args.slice(0, end);
}

// `-rf`, `-r`, `-vfr`: one dash, then letters.
function isShort(arg: string, letter: RegExp): boolean {
  return /^-[^-]/.test(arg) && letter.test(arg.slice(1));
}

// getopt accepts any unambiguous prefix: `--rec`, `--force`, `--f`.
function isLong(arg: string, option: string, shortest: number): boolean {
  const name = arg.startsWith("--") ? (arg.slice(2).split("=")[0] ?? "") : "";
  return name.length >= shortest && option.startsWith(name);
}

// Git's global options that take the next word as their value: `git -C . push` is a push.
const GIT_OPTIONS_WITH_VALUE = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace"]);

function gitDenied(args: string[]): string | undefined {
  let i = 0;
  while (i < args.length && (args[i] ?? "").startsWith("-")) {
    i += GIT_OPTIONS_WITH_VALUE.has(args[i] ?? "") ? 2 : 1;
  }
  if (args[i] === "push") return "git push publishes commits";
  if (args[i] === "reset" && options(args.slice(i + 1)).some((arg) => isLong(arg, "hard", 2))) {
    return "git reset --hard discards changes";
  }
  return undefined;
}

// Names compare in lower case: macOS and Windows find `RM` as `rm`.
function deniedWords(words: string[]): string | undefined {
  const name = commandName(words).toLowerCase();
  const args = options(words.slice(1));
  if (name === "rm") {
    const recursive = args.some((arg) => isShort(arg, /[rR]/) || isLong(arg, "recursive", 1));
    const force = args.some((arg) => isShort(arg, /f/) || isLong(arg, "force", 1));
    return recursive && force ? "rm -rf deletes without asking" : undefined;
  }
  if (name === "sudo" || name === "su" || name === "doas") return `${name} runs as another user`;
  if (name === "chmod" || name === "chown" || name === "chgrp") {
    const recursive = args.some((arg) => isShort(arg, /R/) || isLong(arg, "recursive", 3));
    return recursive ? `${name} -R changes every file below` : undefined;
  }
  if (name === "git") return gitDenied(words.slice(1));
  return undefined;
}

function blocked(what: string, text: string): string {
  return `blocked: ${what} (in "${text}"); agent-code never runs this; ask the user to run it if it is needed`;
}

// What a command runs, behind its wrappers, in lower case; worked out once per command.
function namesOf(command: SimpleCommand, known: Map<SimpleCommand, string[]>): string[] {
  let names = known.get(command);
  if (names === undefined) {
    names = withoutWrappers(command.words).map((words) => commandName(words).toLowerCase());
    known.set(command, names);
  }
  return names;
}

// A shell in a stage after one that holds curl or wget runs what was downloaded.
function downloadsIntoShell(pipeline: Pipeline, known: Map<SimpleCommand, string[]>): boolean {
  let downloaded = false;
  for (const stage of pipeline.stages) {
    const names = stage.flatMap((command) => namesOf(command, known));
    if (downloaded && names.some((name) => SHELLS.has(name))) return true;
    if (names.includes("curl") || names.includes("wget")) downloaded = true;
  }
  return false;
}

// Every word of a command the reader could not read through, for the guards (and rules) to judge
// as a possible command name with the words after it as its arguments: the text split at blanks
// and shell punctuation, once with quotes and backslashes as breaks and once without them (`r''m`),
// and the reader's unquoted words (`$'\x72m'`). `${x:-` goes first, so its word stands alone.
function looseWords(command: string, parsed: ParsedCommand): string[][] {
  const words = parsed.commands.map((simple) => simple.words.join(" ")).join("\n");
  return [command, command.replace(/['"\\]/g, ""), words].map((text) =>
    text
      .replace(/\$\{[#!]?\w*:?[-=+?#%/^,@]*/g, " ")
      .split(/[\s;&|()<>`$'"{}=,\\]+/)
      .filter((word) => word !== ""),
  );
}

// The guards over loose words, in one pass from the end: a guarded name with what makes it so
// anywhere after it (`rm` with a recursive and a force option, `git` with `push`), and the words
// from the name to the last of those. Looser than deniedWords on purpose.
function looselyDenied(words: string[]): [string, string] | undefined {
  const at = { recursive: -1, force: -1, tree: -1, push: -1, hard: -1, reset: -1, shell: -1 };
  const found = (i: number, what: string, ...to: number[]): [string, string] => [
    what,
    words.slice(i, Math.max(i, ...to) + 1).join(" "),
  ];
  for (let i = words.length - 1; i >= 0; i--) {
    const word = words[i] ?? "";
    const name = commandName([word]).toLowerCase();
    if (name === "rm" && at.recursive > i && at.force > i) {
      return found(i, "rm -rf deletes without asking", at.recursive, at.force);
    }
    if (/^(?:sudo|su|doas)$/.test(name)) return found(i, `${name} runs as another user`);
    if (/^ch(?:mod|own|grp)$/.test(name) && at.tree > i) {
      return found(i, `${name} -R changes every file below`, at.tree);
    }
    if (name === "git" && at.push > i) return found(i, "git push publishes commits", at.push);
    if (name === "git" && at.reset > i) {
      return found(i, "git reset --hard discards changes", at.reset, at.hard);
    }
    if (/^(?:curl|wget)$/.test(name) && at.shell > i) {
      return found(i, "curl | sh runs what it downloads", at.shell);
    }
    if (isShort(word, /[rR]/) || isLong(word, "recursive", 1)) at.recursive = i;
    if (isShort(word, /f/) || isLong(word, "force", 1)) at.force = i;
    if (isShort(word, /R/) || isLong(word, "recursive", 3)) at.tree = i;
    if (isLong(word, "hard", 2)) at.hard = i;
    if (word === "reset" && at.hard > i) at.reset = i;
    if (word === "push") at.push = i;
    if (SHELLS.has(name)) at.shell = i;
  }
  return undefined;
}

// The guards: what agent-code refuses in every mode, bypassPermissions too. They read the parsed
// command, so quoting, wrappers, `sh -c`, `&&`, `;`, `|` or `$(…)` do not hide a command from them.
// A seatbelt, not a sandbox: `python -c`, `find -exec` or a script file still run what they like.
export function guard(command: string): string | undefined {
  const parsed = parseCommand(command);
  for (const simple of parsed.commands) {
    for (const words of withoutWrappers(simple.words)) {
      const what = deniedWords(words);
      if (what !== undefined) return blocked(what, simple.text);
    }
  }
  const names = new Map<SimpleCommand, string[]>(); // a command is in every pipeline around it
  for (const pipeline of parsed.pipelines) {
    if (downloadsIntoShell(pipeline, names)) {
      return blocked("curl | sh runs what it downloads", pipeline.text);
    }
  }
  // What the reader could not read may run any word of it: each word is judged as a command.
  // Some lines are refused that would not have run a guarded command; the person can run those.
  if (parsed.unchecked.length === 0) return undefined;
  for (const words of looseWords(command, parsed)) {
    const found = looselyDenied(words);
    if (found !== undefined) return blocked(...found);
  }
  return undefined;
}

function commandOf(args: unknown): string | undefined {
  if (typeof args !== "object" || args === null) return undefined;
  const command = (args as Record<string, unknown>).command;
  return typeof command === "string" ? command : undefined;
}

// The question's line for a file tool's write into a protected folder, by the path it was given
// or by where that really leads (`src/g -> ../.git`), naming the path that is protected; else
// undefined.
function protectedWrite(args: unknown, cwd: string): string | undefined {
  const input =
    typeof args === "object" && args !== null ? (args as Record<string, unknown>).file_path : "";
  if (typeof input !== "string" || input === "") return undefined;
  const paths = [relative(cwd, resolve(cwd, input))];
  try {
    paths.push(relative(realpathSync.native(cwd), resolveInside(cwd, input)));
  } catch {
    // Outside the folder, or not there to follow: the tool refuses it before it asks anything.
  }
  for (const path of paths) {
    const parts = path.split(sep);
    const why = parts.map((part) => PROTECTED.get(part.toLowerCase())).find(Boolean);
    if (why !== undefined) return `  needs approval: ${parts.join("/")} (a protected path: ${why})`;
  }
  return undefined;
}

export function decide({ tool, args, mode, cwd }: PermissionRequest): Decision {
  if (tool === undefined) return { behavior: "ask" };
  // 1. Guards hold in every mode, bypassPermissions included.
  const command = tool.name === "bash" ? commandOf(args) : undefined;
  // A command no shell is given (a NUL, over 64 KiB) is refused before anything reads it, so the
  // reader's and the rules' work stays bounded.
  const blocked = command === undefined ? undefined : (unrunnable(command) ?? guard(command));
  if (blocked !== undefined) return { behavior: "deny", reason: blocked };
  // 2. Plan mode looks and asks; it changes nothing.
  if (mode === "plan") {
    if (tool.readOnly === true || tool.name === "ask_user_question") return { behavior: "allow" };
    return {
      behavior: "deny",
      reason: `plan mode: ${tool.name} is not allowed; only read-only tools run in plan mode`,
    };
  }
  // 3. What only reads runs.
  if (tool.readOnly === true) return { behavior: "allow" };
  // 4. A write into a protected folder is asked about in every mode that writes, bypass included.
  const guarded = EDIT_TOOLS.has(tool.name) ? protectedWrite(args, cwd) : undefined;
  if (guarded !== undefined) return { behavior: "ask", needs: [guarded] };
  // 5. The modes that trust more. A command the parser could not read through (eval, a variable
  // as the command name) may hide what a guard would stop: it is asked about even in bypass.
  if (mode === "bypassPermissions") {
    const readable = command === undefined || parseCommand(command).unchecked.length === 0;
    return readable ? { behavior: "allow" } : { behavior: "ask" };
  }
  if (mode === "acceptEdits" && EDIT_TOOLS.has(tool.name)) return { behavior: "allow" };
  // 6. Everything else asks: commands, file changes, the web.
  return { behavior: "ask" };
}

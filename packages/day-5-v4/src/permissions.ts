// One gate for every tool call: it decides, before the tool runs, whether the call runs, asks the
// person first, or is refused. Guards that no mode lifts come first; then the mode decides.
import {
  commandName,
  type Pipeline,
  parseCommand,
  SHELLS,
  type SimpleCommand,
  withoutWrappers,
} from "./shell-words.ts";
import type { Tool } from "./tools/index.ts";

export const PERMISSION_MODES = ["default", "acceptEdits", "plan", "bypassPermissions"] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

export type Decision =
  | { behavior: "allow" }
  | { behavior: "ask" }
  | { behavior: "deny"; reason: string };

export interface PermissionRequest {
  // The tool the model named, when there is one (an unknown name is the registry's to answer).
  tool: Tool | undefined;
  args: unknown;
  mode: PermissionMode;
}

// Tools that change files, which acceptEdits lets through without a question.
const EDIT_TOOLS = new Set(["file_write", "file_edit"]);

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
  return undefined;
}

function commandOf(args: unknown): string | undefined {
  if (typeof args !== "object" || args === null) return undefined;
  const command = (args as Record<string, unknown>).command;
  return typeof command === "string" ? command : undefined;
}

export function decide({ tool, args, mode }: PermissionRequest): Decision {
  if (tool === undefined) return { behavior: "ask" };
  // 1. Guards hold in every mode, bypassPermissions included.
  const command = tool.name === "bash" ? commandOf(args) : undefined;
  const blocked = command === undefined ? undefined : guard(command);
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
  // 4. The modes that trust more. A command the parser could not read through (eval, a variable
  // as the command name) may hide what a guard would stop: it is asked about even in bypass.
  if (mode === "bypassPermissions") {
    const readable = command === undefined || parseCommand(command).unchecked.length === 0;
    return readable ? { behavior: "allow" } : { behavior: "ask" };
  }
  if (mode === "acceptEdits" && EDIT_TOOLS.has(tool.name)) return { behavior: "allow" };
  // 5. Everything else asks: commands, file changes, the web.
  return { behavior: "ask" };
}

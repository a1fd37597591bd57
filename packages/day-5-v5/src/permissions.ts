// One gate for every tool call: it decides, before the tool runs, whether the call runs, asks the
// person first, or is refused. Guards that no mode lifts come first, then the person's rules
// (settings.ts), then the mode.
import { lstatSync, realpathSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { escapes, resolveInside } from "./fs-safety.ts";
import type { Rule, Rules } from "./settings.ts";
import {
  commandName,
  type ParsedCommand,
  type Pipeline,
  parseCommand,
  type Redirect,
  SHELLS,
  type SimpleCommand,
  withoutWrappers,
} from "./shell-words.ts";
import type { Tool } from "./tools/index.ts";

export const PERMISSION_MODES = ["default", "acceptEdits", "plan", "bypassPermissions"] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

export type Decision =
  | { behavior: "allow" }
  // `needs`: lines for the question, each a part of the command that needs the person's yes.
  | { behavior: "ask"; needs?: string[] }
  | { behavior: "deny"; reason: string };

export interface PermissionRequest {
  // The tool the model named, when there is one (an unknown name is the registry's to answer).
  tool: Tool | undefined;
  args: unknown;
  mode: PermissionMode;
  // The working folder, where paths in the call and in the command are read from.
  cwd: string;
  rules?: Rules;
}

export const NO_RULES: Rules = { allow: [], ask: [], deny: [] };

// Claude Code's tool names, and which of our tools each covers.
export const RULE_TOOLS: Record<string, string[]> = {
  Bash: ["bash"],
  Read: ["read_file", "list_files", "glob", "grep", "project_tree"],
  Edit: ["file_write", "file_edit"],
  WebFetch: ["web_fetch"],
  WebSearch: ["web_search"],
};

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

// What a rule is checked against in one call: the command's parts, the paths, the host.
interface Call {
  tool: Tool;
  args: Record<string, unknown>;
  cwd: string;
  parsed: ParsedCommand | undefined; // bash only
}

// Whether `rule` names this tool at all: `Read` covers the five tools that read files.
function covers(rule: Rule, tool: string): boolean {
  return (RULE_TOOLS[rule.tool] ?? [rule.tool]).includes(tool);
}

// A path written as is: no `~`, variable, substitution or glob the shell would change.
function literal(path: string): boolean {
  return path !== "" && !/^~|[$`*?[\]{]/.test(path);
}

// The words of a Bash rule at the start of `words`: all of them, or exactly them. For a deny or an
// ask (`loose`), a word the shell will still change (`$X`, `$(…)`, a glob) may be any word:
// `git $(echo push)` is `git push` to a deny rule.
function startsWith(rule: Rule, words: string[], loose = false): boolean {
  const want = rule.words ?? [];
  const open = loose && words.some((word) => !literal(word));
  if (!rule.prefix && !open && rule.words !== undefined && words.length !== want.length)
    return false;
  return want.every((word, i) => words[i] === word || (open && !literal(words[i] ?? "")));
}

function hostOf(url: unknown): string | undefined {
  try {
    return new URL(String(url)).hostname.toLowerCase().replace(/\.$/, "");
  } catch {
    return undefined;
  }
}

// The real path of the nearest part that exists, with the rest of the name after it.
export function realOf(path: string): string {
  for (let at = path, rest: string[] = []; ; rest.unshift(basename(at)), at = dirname(at)) {
    try {
      return join(realpathSync.native(at), ...rest);
    } catch {
      if (dirname(at) === at) return path;
    }
  }
}

function relativeInside(root: string, path: string): string | undefined {
  if (escapes(root, path)) return undefined;
  return relative(root, path).split(sep).join("/");
}

// The path a file tool was given, relative to the folder with `/`, and where it really leads (a
// symlink named `notes` may be `.env`; a new file in `link/` is made in the folder `link` leads
// to). A path outside the folder matches no rule: the tools refuse it anyway.
function pathsOf(call: Call): string[] {
  const given = resolve(call.cwd, String(call.args.path ?? call.args.file_path ?? "."));
  const paths = [relativeInside(call.cwd, given), relativeInside(realOf(call.cwd), realOf(given))];
  return paths.filter((path): path is string => path !== undefined);
}

// The part of the call that a deny or ask rule matches, named for the message (the command's
// part, the path, the host), or undefined. A command matches by its program's basename, also
// behind wrappers and inside `sh -c`: `/bin/rm`, `env rm` and `sh -c 'rm x'` are all `rm`.
function matchedBy(rule: Rule, call: Call): string | undefined {
  if (!covers(rule, call.tool.name)) return undefined;
  if (call.parsed !== undefined) {
    if (rule.words === undefined) return String(call.args.command);
    const [name = "", ...rest] = rule.words;
    for (const command of call.parsed.commands) {
      for (const words of withoutWrappers(command.words)) {
        const found = commandName(words).toLowerCase() === name.toLowerCase();
        if (found && startsWith({ ...rule, words: rest }, words.slice(1), true))
          return command.text;
      }
    }
    return undefined;
  }
  if (rule.matches === undefined) return "";
  if (call.tool.name === "web_fetch") {
    const host = hostOf(call.args.url);
    return host !== undefined && rule.matches(host) ? host : undefined;
  }
  return pathsOf(call).some((path) => rule.matches?.(path) === true)
    ? String(call.args.path ?? call.args.file_path ?? ".")
    : undefined;
}

const MOVES = new Set(["cd", "pushd"]);

// `cd`, also behind a wrapper (`command cd ..`): it moves the shell the next part runs in.
function moves(command: SimpleCommand): boolean {
  return withoutWrappers(command.words).some((words) => MOVES.has(commandName(words)));
}

// `>`, `>>`, `&>`, `>|`, `2>`, `<>` or `>&` to a file; `2>&1` copies a descriptor and writes
// nothing new, and /dev/null keeps nothing.
function writesFile({ op, target }: Redirect): boolean {
  if (!op.includes(">") || target === "/dev/null") return false;
  return !(/>&$/.test(op) && /^(?:\d+|-)$/.test(target));
}

// Where a literal path really leads, when that is inside the folder, through the symlinks that
// exist (fs-safety's check, as the file tools make it); undefined otherwise.
function realInside(path: string, cwd: string): string | undefined {
  if (!literal(path)) return undefined;
  try {
    return resolveInside(cwd, path);
  } catch {
    return undefined;
  }
}

// Why a write needs a yes: a file outside the folder, a dot-file or dot-folder (`.git/hooks`,
// `.agent` and `.bashrc` run later or hold settings), or a path through a symlink, which may
// lead anywhere.
function writeProblem(redirect: Redirect, cwd: string): string | undefined {
  if (!writesFile(redirect)) return undefined;
  if (realInside(redirect.target, cwd) === undefined) return "writes outside the folder";
  const parts = relative(cwd, resolve(cwd, redirect.target)).split(sep);
  if (parts.some((part) => part.startsWith("."))) return "writes to a dot-file";
  // A symlink on the way, or as the file itself, even one whose target is not there yet.
  for (let i = 1; i <= parts.length; i++) {
    const link = lstatSync(join(cwd, ...parts.slice(0, i)), { throwIfNoEntry: false });
    if (link === undefined) break;
    if (link.isSymbolicLink()) return "writes through a symlink";
  }
  return undefined;
}

// Why one part of a command cannot run without a question, or undefined when the allow rules
// cover it: its program and first words match a rule exactly (`./echo` is not `echo`), nothing
// is set before it (`PATH=. npm test` runs ./npm), it writes only inside the folder, and a `cd`
// stays inside. One `cd` inside the folder needs no rule of its own; a second one, or a write
// after one, is asked about: its path would be read from a folder we did not check.
function heldBack(
  command: SimpleCommand,
  allow: Rule[],
  cwd: string,
  cds: number,
): string | undefined {
  if (command.assignments.length > 0) return "sets a variable";
  for (const redirect of command.redirects) {
    const problem = writeProblem(redirect, cwd);
    if (problem !== undefined) return problem;
    if (cds > 0 && writesFile(redirect)) return "writes after a cd";
  }
  const [name = "", ...args] = command.words;
  if (moves(command)) {
    if (!MOVES.has(name)) return "a cd not written as cd";
    if (cds > 1) return "more than one cd";
    // `cd -`, `cd -P` and `cd --` go to $OLDPWD or $HOME: an argument with a dash is no folder.
    const [to = "-"] = args;
    return args.length === 1 && !to.startsWith("-") && realInside(to, cwd) !== undefined
      ? undefined
      : "leaves the folder";
  }
  const allowed = allow.some(
    (rule) =>
      covers(rule, "bash") &&
      (rule.words === undefined ||
        (rule.words[0] === name && startsWith({ ...rule, words: rule.words.slice(1) }, args))),
  );
  return allowed ? undefined : "";
}

// The parts of a command the allow rules do not cover, each with why when there is more to say
// than "no rule allows it"; what the reader could not read counts as one more.
function partsToApprove(parsed: ParsedCommand, allow: Rule[], cwd: string): [string, string][] {
  const count = parsed.commands.filter(moves).length;
  const parts: [string, string][] = parsed.commands.flatMap((command) => {
    const why = heldBack(command, allow, cwd, count);
    return why === undefined ? [] : [[command.text, why] as [string, string]];
  });
  if (parsed.unchecked.length > 0) parts.push(["the whole command", parsed.unchecked.join(", ")]);
  return parts;
}

function needsLines(parts: [string, string][]): string[] {
  return parts.map(([text, why]) => `  needs approval: ${text}${why === "" ? "" : ` (${why})`}`);
}

export function decide({ tool, args, mode, cwd, rules = NO_RULES }: PermissionRequest): Decision {
  if (tool === undefined) return { behavior: "ask" };
  // 1. Guards hold in every mode, bypassPermissions included.
  const command = tool.name === "bash" ? commandOf(args) : undefined;
  const blocked = command === undefined ? undefined : guard(command);
  if (blocked !== undefined) return { behavior: "deny", reason: blocked };
  const call: Call = {
    tool,
    args: typeof args === "object" && args !== null ? (args as Record<string, unknown>) : {},
    cwd,
    parsed: command === undefined ? undefined : parseCommand(command),
  };
  // 2. A deny rule on any part refuses the whole call, in every mode.
  for (const rule of rules.deny) {
    const part = matchedBy(rule, call);
    if (part !== undefined) {
      const what = part === "" ? "" : `: ${part}`;
      return {
        behavior: "deny",
        reason: `denied by the rule ${rule.text} in ${rule.source}${what}`,
      };
    }
  }
  // 3. Plan mode looks and asks; it changes nothing. What it lets run still meets the ask rules.
  const looks = tool.readOnly === true || tool.name === "ask_user_question";
  if (mode === "plan" && !looks) {
    return {
      behavior: "deny",
      reason: `plan mode: ${tool.name} is not allowed; only read-only tools run in plan mode`,
    };
  }
  // 4. An ask rule asks, whatever the allow rules and the mode say.
  for (const rule of rules.ask) {
    const part = matchedBy(rule, call);
    if (part !== undefined) {
      const where = `(an ask rule: ${rule.text} in ${rule.source})`;
      return {
        behavior: "ask",
        ...(call.parsed === undefined ? {} : { needs: [`  needs approval: ${part} ${where}`] }),
      };
    }
  }
  // 5. Allow rules: a command only when a rule allows what it runs, every part is allowed and
  // nothing is left unread (a lone `cd`, or an empty command, is not something a rule allowed).
  const parts = call.parsed === undefined ? [] : partsToApprove(call.parsed, rules.allow, cwd);
  const runs = call.parsed?.commands.some((part) => !moves(part)) === true;
  if (
    call.parsed !== undefined
      ? runs && parts.length === 0
      : rules.allow.some((rule) => matchedBy(rule, call) !== undefined)
  ) {
    return { behavior: "allow" };
  }
  // 6. What only reads runs, and in plan mode so does a question to the person.
  if (tool.readOnly === true || (mode === "plan" && looks)) return { behavior: "allow" };
  // 7. The modes that trust more. A command the parser could not read through (eval, a variable
  // as the command name) may hide what a guard would stop: it is asked about even in bypass.
  if (mode === "bypassPermissions") {
    if (call.parsed === undefined || call.parsed.unchecked.length === 0)
      return { behavior: "allow" };
  } else if (mode === "acceptEdits" && EDIT_TOOLS.has(tool.name)) return { behavior: "allow" };
  // 8. Everything else asks: commands, file changes, the web. For a command of several parts, or
  // a part held back for more than a missing rule, the question says which part needs the yes.
  const say = (call.parsed?.commands.length ?? 0) > 1 || parts.some(([, why]) => why !== "");
  return { behavior: "ask", ...(say ? { needs: needsLines(parts) } : {}) };
}

// The rules deny the tool outright (a bare `Bash`, `Read`, `WebSearch`): the model is not offered it.
export function deniedOutright(tool: string, rules: Rules): boolean {
  return rules.deny.some(
    (rule) => covers(rule, tool) && rule.words === undefined && rule.matches === undefined,
  );
}

// What a `Read(…)` deny hides from the tools that walk the folder: a cwd-relative path with `/`.
export function hiddenBy(rules: Rules): ((path: string) => boolean) | undefined {
  const hiding = rules.deny.filter((rule) => rule.tool === "Read" && rule.matches !== undefined);
  if (hiding.length === 0) return undefined;
  return (path) => hiding.some((rule) => rule.matches?.(path) === true);
}

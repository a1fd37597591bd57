// One gate for every tool call: it decides, before the tool runs, whether the call runs, asks the
// person first, or is refused. Guards that no mode lifts come first, then the person's rules
// (settings.ts), then the mode.
import { lstatSync, realpathSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { escapes, resolveInside } from "./fs-safety.ts";
import type { Rule, RuleList, Rules } from "./settings.ts";
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
  rules?: Rules;
  // The folder of the user's settings file (settings.ts's agentHome): no mode writes it unasked.
  home?: string;
}

export const NO_RULES: Rules = { allow: [], ask: [], deny: [] };

// Claude Code's tool names, and which of our tools each covers.
export const RULE_TOOLS: Record<string, string[]> = {
  Bash: ["bash"],
  Read: ["read_file", "list_files", "glob", "grep", "project_tree", "git_status", "git_diff"],
  Edit: ["file_write", "file_edit"],
  WebFetch: ["web_fetch"],
  WebSearch: ["web_search"],
};

// The Read tools that take no path and show the whole tree: a Read deny with a pattern leaves its
// paths out of what they show (hiddenBy), and a Read ask asks before they run.
const WHOLE_TREE = new Set(["git_status", "git_diff"]);

// Tools that change files: a write into a protected folder is asked about in every mode.
const EDIT_TOOLS = new Set(["file_write", "file_edit"]);

// What acceptEdits lets through without a question: the file tools, and a note for later
// sessions (memory_write), which the person accepted along with the edits.
const ACCEPTED_EDITS = new Set([...EDIT_TOOLS, "memory_write"]);

// Folders no mode writes in without a question, by their names in lower case: git runs what
// `.git` holds (a hook, a `core.fsmonitor` in its config) the next time the person uses it, and
// `.agent` is agent-code's own. A folder of the name anywhere counts: a nested repository runs its
// hooks too, and macOS and Windows find `.GIT` as `.git`.
const PROTECTED = new Map([
  [".git", "git runs what it holds"],
  [".agent", "agent-code's own folder"],
  [".agent-code", "the user's settings"], // ~/.agent-code, from the home folder or above it
]);

// `.agent/settings*.json` and `.agent/hooks/`: where a project's hooks are written and what they
// run. `.agent` is protected already; the question says why these matter more.
function hookPlace(parts: string[]): string | undefined {
  const at = parts.findIndex((part) => part.toLowerCase() === ".agent");
  const next = (parts[at + 1] ?? "").toLowerCase();
  if (at < 0) return undefined;
  if (next === "hooks") return "the project's hooks run what it holds";
  if (/^settings.*\.json$/.test(next)) return "the project's settings and hooks";
  return undefined;
}

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

// agent-code itself, by name or by its bundle's path, also run by node: `node dist/agent-code.mjs`.
const AGENT_CODE = /^agent-code(?:\.[cm]?js)?$/i;
const RUNTIMES = new Set(["node", "nodejs", "bun", "deno", "tsx", "npx", "pnpm", "pnpx"]);

// `agent-code hooks approve`: only the person approves hooks; the model must not approve the
// ones it wrote, with `yes |` in front or not.
function approvesHooks(words: string[]): boolean {
  const name = commandName(words).toLowerCase();
  const at = AGENT_CODE.test(name)
    ? 0
    : RUNTIMES.has(name)
      ? words.findIndex((word) => AGENT_CODE.test(commandName([word])))
      : -1;
  if (at < 0) return false;
  const hooks = words.indexOf("hooks", at + 1);
  return hooks > 0 && words.indexOf("approve", hooks + 1) > 0;
}

// Names compare in lower case: macOS and Windows find `RM` as `rm`.
function deniedWords(words: string[]): string | undefined {
  if (approvesHooks(words)) return "only the user approves hooks";
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
    if (AGENT_CODE.test(name) && approvesHooks(words.slice(i))) {
      return found(i, "only the user approves hooks", words.indexOf("approve", i));
    }
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
function protectedWrite(args: unknown, cwd: string, home: string | undefined): string | undefined {
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
    const why =
      hookPlace(parts) ?? parts.map((part) => PROTECTED.get(part.toLowerCase())).find(Boolean);
    if (why !== undefined) return `  needs approval: ${parts.join("/")} (a protected path: ${why})`;
  }
  // The user's settings file, wherever AGENT_CODE_HOME puts it: inside this folder, say.
  if (home === undefined) return undefined;
  const settings = realOf(join(home, "settings.json"));
  if (realOf(resolve(cwd, input)).toLowerCase() !== settings.toLowerCase()) return undefined;
  return `  needs approval: ${input} (a protected path: the user's settings)`;
}

// What a rule is checked against in one call: the command's parts, the paths, the host.
interface Call {
  tool: Tool;
  args: Record<string, unknown>;
  cwd: string;
  parsed: ParsedCommand | undefined; // bash only
}

// Whether `rule` names this tool at all: `Read` covers the seven tools that read files. A rule
// named `constructor` is no key of RULE_TOOLS, whatever its prototype holds.
function covers(rule: Rule, tool: string): boolean {
  const tools = Object.hasOwn(RULE_TOOLS, rule.tool) ? RULE_TOOLS[rule.tool] : undefined;
  return (tools ?? [rule.tool]).includes(tool);
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
// to). A path outside the folder is undefined and matches no rule: the tools refuse it anyway.
function pathsOf(call: Call): [string | undefined, string | undefined] {
  const given = resolve(call.cwd, String(call.args.path ?? call.args.file_path ?? "."));
  return [relativeInside(call.cwd, given), relativeInside(realOf(call.cwd), realOf(given))];
}

// The part of the call that a rule of `list` matches, named for the message (the command's
// part, the path, the host), or undefined. A command matches by its program's basename, also
// behind wrappers and inside `sh -c`: `/bin/rm`, `env rm` and `sh -c 'rm x'` are all `rm`.
function matchedBy(rule: Rule, call: Call, list: RuleList): string | undefined {
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
    // What the reader could not read may run any word of it: the rule's name as any word, and
    // its other words after it, in order. Some lines are refused that would not have run it.
    if (call.parsed.unchecked.length === 0) return undefined;
    for (const words of looseWords(String(call.args.command), call.parsed)) {
      const at = words.findIndex(
        (word) => commandName([word]).toLowerCase() === name.toLowerCase(),
      );
      let end = at;
      for (const word of rest) end = end < 0 ? end : words.indexOf(word, end + 1);
      if (at >= 0 && end >= 0) return words.slice(at, end + 1).join(" ");
    }
    return undefined;
  }
  if (rule.matches === undefined) return "";
  if (call.tool.name === "web_fetch") {
    const host = hostOf(call.args.url);
    return host !== undefined && rule.matches(host) ? host : undefined;
  }
  if (WHOLE_TREE.has(call.tool.name)) return list === "ask" ? "" : undefined;
  // An allow rule must match the path as given and where it leads; a deny or an ask matches
  // either, or a folder either is in (`Read(secrets)` covers `secrets/key.pem`).
  const matches = (path: string | undefined) => path !== undefined && rule.matches?.(path) === true;
  const folders = (path: string) =>
    path.split("/").map((_, n, parts) => parts.slice(0, n + 1).join("/"));
  const [given, real] = pathsOf(call);
  const found =
    list === "allow"
      ? matches(given) && matches(real)
      : [given, real].some((path) => path !== undefined && folders(path).some(matches));
  return found ? String(call.args.path ?? call.args.file_path ?? ".") : undefined;
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

export function decide({
  tool,
  args,
  mode,
  cwd,
  rules = NO_RULES,
  home,
}: PermissionRequest): Decision {
  if (tool === undefined) return { behavior: "ask" };
  // 1. Guards hold in every mode, bypassPermissions included.
  const command = tool.name === "bash" ? commandOf(args) : undefined;
  // A command no shell is given (a NUL, over 64 KiB) is refused before anything reads it, so the
  // reader's and the rules' work stays bounded.
  const blocked = command === undefined ? undefined : (unrunnable(command) ?? guard(command));
  if (blocked !== undefined) return { behavior: "deny", reason: blocked };
  const call: Call = {
    tool,
    args: typeof args === "object" && args !== null ? (args as Record<string, unknown>) : {},
    cwd,
    parsed: command === undefined ? undefined : parseCommand(command),
  };
  // 2. A deny rule on any part refuses the whole call, in every mode.
  for (const rule of rules.deny) {
    const part = matchedBy(rule, call, "deny");
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
  // 4. A write into a protected folder is asked about in every mode that writes, bypass included.
  const guarded = EDIT_TOOLS.has(tool.name) ? protectedWrite(args, cwd, home) : undefined;
  if (guarded !== undefined) return { behavior: "ask", needs: [guarded] };
  // 5. An ask rule asks, whatever the allow rules and the mode say.
  for (const rule of rules.ask) {
    const part = matchedBy(rule, call, "ask");
    if (part !== undefined) {
      const where = `(an ask rule: ${rule.text} in ${rule.source})`;
      return {
        behavior: "ask",
        ...(call.parsed === undefined ? {} : { needs: [`  needs approval: ${part} ${where}`] }),
      };
    }
  }
  // 6. Allow rules: a command only when a rule allows what it runs, every part is allowed and
  // nothing is left unread (a lone `cd`, or an empty command, is not something a rule allowed).
  const parts = call.parsed === undefined ? [] : partsToApprove(call.parsed, rules.allow, cwd);
  const runs = call.parsed?.commands.some((part) => !moves(part)) === true;
  if (
    call.parsed !== undefined
      ? runs && parts.length === 0
      : rules.allow.some((rule) => matchedBy(rule, call, "allow") !== undefined)
  ) {
    return { behavior: "allow" };
  }
  // 7. What only reads runs, and in plan mode so does a question to the person.
  if (tool.readOnly === true || (mode === "plan" && looks)) return { behavior: "allow" };
  // 8. The modes that trust more. A command the parser could not read through (eval, a variable
  // as the command name) may hide what a guard would stop: it is asked about even in bypass.
  if (mode === "bypassPermissions") {
    if (call.parsed === undefined || call.parsed.unchecked.length === 0)
      return { behavior: "allow" };
  } else if (mode === "acceptEdits" && ACCEPTED_EDITS.has(tool.name)) return { behavior: "allow" };
  // 9. Everything else asks: commands, file changes, the web. For a command of several parts, or
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

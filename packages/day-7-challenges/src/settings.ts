// Rules a person writes: the user's settings file, the project's, and --allow/--deny. Reads and
// checks them; permissions.ts applies them. A mistake in a rule stops agent-code before it starts:
// a typo in a deny list must never pass silently.
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve, sep } from "node:path";
import picomatch from "picomatch";
import { escapes } from "./fs-safety.ts";
import { chooseHooks, type HookSet, type LoadedHook, parseHooks } from "./hooks.ts";
import { PERMISSION_MODES, type PermissionMode, RULE_TOOLS, realOf } from "./permissions.ts";
import { parseCommand } from "./shell-words.ts";

export type RuleList = "allow" | "ask" | "deny";

export interface Rule {
  text: string; // as written: `Bash(npm test:*)`
  source: string; // where it was written: `--deny`, `.agent/settings.json` …
  tool: string; // `Bash`, `Read`, `Edit`, `WebFetch`, `WebSearch` or one of our tool names
  // Bash: the words a command starts with (none: every command); more may follow with `prefix`.
  words?: string[];
  prefix?: boolean;
  // Read and Edit: whether a cwd-relative path matches. WebFetch: whether a host does.
  matches?: (value: string) => boolean;
}

export type Rules = Record<RuleList, Rule[]>;

// A settings file or flag that cannot be used: exit code 2, with the file and why.
export class SettingsError extends Error {}

// `npm test` exact, `npm test:*` or `npm test *` the words and any after them. The words are read
// as the shell would, so quotes work; anything but one plain command is refused.
function bashWords(
  inside: string,
  invalid: (why: string) => Error,
): Pick<Rule, "words" | "prefix"> {
  const body = inside.trim();
  const prefix = /(?::\*|\s\*)$/.test(body);
  const command = prefix ? body.replace(/:?\s*\*$/, "").trimEnd() : body;
  if (body.endsWith("*") && !prefix)
    return fail('"*" follows a space or ":" (a rule matches whole words)');
  if (command.includes("*")) return fail('"*" may only end a Bash rule');
  const parsed = parseCommand(command);
  const [only, ...more] = parsed.commands;
  if (only === undefined) return fail("no command in the brackets");
  if (
    more.length > 0 ||
    only.redirects.length > 0 ||
    only.assignments.length > 0 ||
    parsed.unchecked.length > 0 ||
    only.text !== command
  ) {
    return fail("a Bash rule is one plain command");
  }
  return { words: only.words, prefix };

  function fail(why: string): never {
    throw invalid(why);
  }
}

// One rule, as Claude Code writes them: `Tool` or `Tool(specifier)`.
export function parseRule(text: string, source: string, toolNames: string[]): Rule {
  const invalid = (why: string) =>
    new SettingsError(`${source}: invalid rule ${JSON.stringify(text)}: ${why}`);
  if (text.trim() === "") throw invalid("empty rule");
  const match = /^([A-Za-z_]\w*)(?:\((.*)\))?$/s.exec(text.trim());
  if (match === null)
    throw invalid(
      text.includes("(") ? 'write it Tool(…), with one ")" at the end' : "not a tool name",
    );
  const [, tool = "", inside] = match;
  // Own keys only: `constructor` or `__proto__` is in every object, and names no tool.
  if (!Object.hasOwn(RULE_TOOLS, tool) && !toolNames.includes(tool)) {
    throw invalid(
      `unknown tool "${tool}" (valid: ${[...Object.keys(RULE_TOOLS), ...toolNames].join(", ")})`,
    );
  }
  const rule: Rule = { text: text.trim(), source, tool };
  if (inside === undefined || (tool === "Bash" && inside.trim() === "*")) return rule;
  if (tool === "Bash") return { ...rule, ...bashWords(inside, invalid) };
  if (tool === "Read" || tool === "Edit") {
    if (inside.trim() === "") throw invalid(`${tool} rules take a path pattern`);
    // The pattern is matched on the main thread, against every path a tool names or a walk meets,
    // where nothing can stop it: it may not be one that backtracks. picomatch makes each `*` a
    // lazy `[^/]*?` and each `{a,b}` or `(a|b)` a choice, and n of them can be tried in about L^n
    // ways on a path of L characters (13 stars never end on a 60-letter name). With at most two
    // stars, one of which may be `**`, and no group, the slowest shape measured took 0.13 ms on a
    // 255-character name or a 4,095-character path, and 40 ms for all 2,048 folders of such a path.
    const stars = inside.match(/\*+/g) ?? [];
    if (stars.length > 2 || stars.filter((run) => run.length > 1).length > 1 || /[{(]/.test(inside))
      throw invalid(
        'a path pattern holds at most two "*", one of which may be "**", and no {…} or (…)',
      );
    const matcher = picomatch(inside.trim().replace(/^\.\//, ""), { dot: true });
    return { ...rule, matches: (path) => matcher(path) };
  }
  if (tool === "WebFetch") {
    const host = /^domain:(\*\.)?([a-z0-9.-]+|\[[0-9a-f:.]+\])$/i.exec(inside.trim());
    if (host === null) throw invalid("WebFetch rules take domain:<host> or domain:*.<host>");
    const name = (host[2] ?? "").toLowerCase();
    return {
      ...rule,
      matches:
        host[1] === undefined ? (value) => value === name : (value) => value.endsWith(`.${name}`),
    };
  }
  throw invalid(`${tool} rules have nothing in brackets`);
}

export const PROJECT_FILE = ".agent/settings.json";
const TOP_KEYS = ["permissions", "trustedDirs", "hooks"];
const PERMISSION_KEYS = ["defaultMode", "allow", "ask", "deny"];

export interface LoadOptions {
  cwd: string;
  home: string; // the folder of the user's file: AGENT_CODE_HOME, else ~/.agent-code
  allow: string[];
  deny: string[];
  toolNames: string[]; // the tools a bare name may name
}

interface FileSettings {
  rules: Rules;
  mode: PermissionMode | undefined;
  trustedDirs: string[];
  hooks: HookSet;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function trustedDirs(value: unknown, fail: (why: string) => Error): string[] {
  const dirs = Array.isArray(value) ? value : [undefined];
  return dirs.map((dir) => {
    if (typeof dir === "string" && dir.startsWith("~/")) return join(homedir(), dir.slice(2));
    if (typeof dir === "string" && isAbsolute(dir)) return dir;
    throw fail("trustedDirs must be a list of absolute paths");
  });
}

// A path as a person reads it: the home folder as `~`.
function shownPath(path: string): string {
  const home = homedir();
  return path.startsWith(home + sep) ? `~${path.slice(home.length)}` : path;
}

// One file, checked key by key. None there is no rules.
function readSettings(
  file: string,
  name: string,
  isUser: boolean,
  options: LoadOptions,
): FileSettings {
  const settings: FileSettings = {
    rules: { allow: [], ask: [], deny: [] },
    mode: undefined,
    trustedDirs: [],
    hooks: {},
  };
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return settings;
    throw new SettingsError(`${name}: cannot read it: ${(error as NodeJS.ErrnoException).code}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SettingsError(`${name}: not valid JSON: ${(error as Error).message}`);
  }
  if (!isObject(json)) throw new SettingsError(`${name}: the settings must be a JSON object`);
  const fail = (why: string) => new SettingsError(`${name}: ${why}`);
  for (const key of Object.keys(json)) {
    if (key === "$schema") continue;
    if (!TOP_KEYS.includes(key)) throw fail(`unknown key "${key}" (valid: ${TOP_KEYS.join(", ")})`);
  }
  if (json.trustedDirs !== undefined) {
    if (!isUser)
      throw fail(
        `trustedDirs belongs in ${shownPath(join(options.home, "settings.json"))}; a project cannot trust itself`,
      );
    settings.trustedDirs = trustedDirs(json.trustedDirs, fail);
  }
  if (json.hooks !== undefined) settings.hooks = parseHooks(json.hooks, fail);
  const permissions = json.permissions ?? {};
  if (!isObject(permissions)) throw fail("permissions must be a JSON object");
  for (const key of Object.keys(permissions)) {
    if (!PERMISSION_KEYS.includes(key)) {
      throw fail(`unknown key "permissions.${key}" (valid: ${PERMISSION_KEYS.join(", ")})`);
    }
  }
  for (const list of ["allow", "ask", "deny"] as const) {
    const rules = permissions[list] ?? [];
    if (!Array.isArray(rules) || !rules.every((rule) => typeof rule === "string")) {
      throw fail(`permissions.${list} must be a list of strings`);
    }
    settings.rules[list] = rules.map((rule: string) => parseRule(rule, name, options.toolNames));
  }
  const mode = permissions.defaultMode;
  if (mode !== undefined) {
    if (!(PERMISSION_MODES as readonly unknown[]).includes(mode)) {
      throw fail(
        `permissions.defaultMode must be one of ${PERMISSION_MODES.join(", ")}, got ${JSON.stringify(mode)}`,
      );
    }
    settings.mode = mode as PermissionMode;
  }
  return settings;
}

export interface Settings {
  rules: Rules;
  mode: PermissionMode | undefined; // from a file; the flag still wins
  notes: string[]; // what was ignored, and why: printed on stderr
  hooks: LoadedHook[]; // the hooks that run (hooks.ts): the user's, and the project's if approved
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

// The user's file, then the project's, then the flags: every deny and ask counts; the project's
// allow rules and mode count only in a folder the user's file trusts.
export function loadSettings(options: LoadOptions): Settings {
  const userName = shownPath(join(options.home, "settings.json"));
  const user = readSettings(join(options.home, "settings.json"), userName, true, options);
  const project = readSettings(join(options.cwd, PROJECT_FILE), PROJECT_FILE, false, options);
  const flags = (list: string[], source: string) =>
    list.map((rule) => parseRule(rule, source, options.toolNames));
  const notes: string[] = [];
  let projectMode = project.mode;
  const trusted = user.trustedDirs.some((dir) => !escapes(realOf(dir), realOf(options.cwd)));
  if (!trusted && (project.rules.allow.length > 0 || projectMode !== undefined)) {
    const what = [
      ...(project.rules.allow.length === 0
        ? []
        : [count(project.rules.allow.length, "allow rule")]),
      ...(projectMode === undefined ? [] : ["defaultMode"]),
    ].join(" and ");
    notes.push(
      `note: ${PROJECT_FILE}: ${what} ignored: this directory is not in trustedDirs (${userName})`,
    );
    project.rules.allow = [];
    projectMode = undefined;
  }
  if (projectMode === "bypassPermissions") {
    notes.push(
      `note: ${PROJECT_FILE}: defaultMode bypassPermissions ignored: only --permission-mode or ${userName} can set it`,
    );
    projectMode = undefined;
  }
  const rules: Rules = {
    allow: [...user.rules.allow, ...project.rules.allow, ...flags(options.allow, "--allow")],
    ask: [...user.rules.ask, ...project.rules.ask],
    deny: [...user.rules.deny, ...project.rules.deny, ...flags(options.deny, "--deny")],
  };
  const chosen = chooseHooks({
    user: user.hooks,
    userSource: userName,
    project: project.hooks,
    projectSource: PROJECT_FILE,
    trusted,
    cwd: options.cwd,
    home: options.home,
  });
  notes.push(...chosen.notes);
  return { rules, mode: projectMode ?? user.mode, notes, hooks: chosen.hooks };
}

// The project's hooks as its settings file writes them, for `agent-code hooks`.
export function projectHooks(options: LoadOptions): HookSet {
  return readSettings(join(options.cwd, PROJECT_FILE), PROJECT_FILE, false, options).hooks;
}

export function agentHome(env: NodeJS.ProcessEnv): string {
  const home = env.AGENT_CODE_HOME;
  return home !== undefined && home !== "" ? resolve(home) : join(homedir(), ".agent-code");
}

// The settings files and flags (settings.ts): the exact words of every mistake, which rules count,
// and when a project's own allow rules and mode are trusted. Each test makes its own home folder
// (HOME points at it, so `~` in messages and in trustedDirs is that folder, never the real one).
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, onTestFinished, test, vi } from "vitest";
import {
  agentHome,
  type LoadOptions,
  loadSettings,
  parseRule,
  type Settings,
  SettingsError,
} from "../src/settings.ts";
import { defaultTools } from "../src/tools/index.ts";

const TOOL_NAMES = defaultTools()
  .list()
  .map((tool) => tool.name);

const USER = "~/.agent-code/settings.json";
const PROJECT = ".agent/settings.json";
const NOT_TRUSTED = `this directory is not in trustedDirs (${USER})`;

// A home folder with the user's settings folder in it and a project at ~/code/app, both empty.
function world(project = "code/app") {
  const home = realpathSync(mkdtempSync(join(tmpdir(), "agent-code-settings-")));
  onTestFinished(() => rmSync(home, { recursive: true, force: true }));
  vi.stubEnv("HOME", home);
  vi.stubEnv("USERPROFILE", home);
  onTestFinished(() => {
    vi.unstubAllEnvs();
  });
  const cwd = join(home, project);
  mkdirSync(join(cwd, ".agent"), { recursive: true });
  mkdirSync(join(home, ".agent-code"));
  // A string is written as it is (to test bad JSON); anything else as JSON.
  const write = (file: string, content: unknown) =>
    writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return {
    home,
    cwd,
    user: (content: unknown) => write(join(home, ".agent-code", "settings.json"), content),
    project: (content: unknown, dir = cwd) => write(join(dir, PROJECT), content),
    load: (options: Partial<LoadOptions> = {}): Settings =>
      loadSettings({
        cwd,
        home: join(home, ".agent-code"),
        allow: [],
        deny: [],
        toolNames: TOOL_NAMES,
        ...options,
      }),
  };
}

// What the rules came to, as `Rule@source` per list: enough to see which file each came from.
function summary({ rules }: Settings) {
  const named = (list: typeof rules.allow) => list.map((rule) => `${rule.text}@${rule.source}`);
  return { allow: named(rules.allow), ask: named(rules.ask), deny: named(rules.deny) };
}

// The message of the SettingsError `run` throws; the CLI prints it after `error: ` and exits 2.
function errorOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    return (error as Error).message;
  }
  throw new Error("expected a SettingsError; nothing was thrown");
}

function jsonMessage(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${text} is valid JSON`);
}

describe("a settings file that cannot be used stops agent-code, naming the file and why", () => {
  test.each(['{ "permissions": ', "{ permissions: {} }", ""])(
    "project file %j: not valid JSON, with JSON.parse's words",
    (text) => {
      const w = world();
      w.project(text);
      expect(errorOf(() => w.load())).toBe(`${PROJECT}: not valid JSON: ${jsonMessage(text)}`);
    },
  );

  test.each([[[]], ["deny"], [null], [3]])("project file %j: not an object", (content) => {
    const w = world();
    w.project(JSON.stringify(content));
    expect(errorOf(() => w.load())).toBe(`${PROJECT}: the settings must be a JSON object`);
  });

  test.each([
    [{ permisions: {} }, 'unknown key "permisions" (valid: permissions, trustedDirs, hooks)'],
    [
      { permissions: { alow: [] } },
      'unknown key "permissions.alow" (valid: defaultMode, allow, ask, deny)',
    ],
    [{ permissions: [] }, "permissions must be a JSON object"],
    [{ permissions: { allow: "Bash" } }, "permissions.allow must be a list of strings"],
    [{ permissions: { ask: [1] } }, "permissions.ask must be a list of strings"],
    [{ permissions: { deny: [null] } }, "permissions.deny must be a list of strings"],
    [{ permissions: { deny: {} } }, "permissions.deny must be a list of strings"],
    [
      { permissions: { defaultMode: "x" } },
      'permissions.defaultMode must be one of default, acceptEdits, plan, bypassPermissions, got "x"',
    ],
    [
      { permissions: { defaultMode: "Plan" } },
      'permissions.defaultMode must be one of default, acceptEdits, plan, bypassPermissions, got "Plan"',
    ],
    [
      { permissions: { defaultMode: 2 } },
      "permissions.defaultMode must be one of default, acceptEdits, plan, bypassPermissions, got 2",
    ],
    [{ trustedDirs: ["/"] }, `trustedDirs belongs in ${USER}; a project cannot trust itself`],
    [
      { permissions: { allow: ["Bash(npm * x)"] } },
      'invalid rule "Bash(npm * x)": "*" may only end a Bash rule',
    ],
  ])("project file %j", (content, why) => {
    const w = world();
    w.project(content);
    expect(errorOf(() => w.load())).toBe(`${PROJECT}: ${why}`);
  });

  test.each([
    [{ trustedDirs: "/code/app" }, "trustedDirs must be a list of absolute paths"],
    [{ trustedDirs: ["code/app"] }, "trustedDirs must be a list of absolute paths"],
    [{ trustedDirs: ["~"] }, "trustedDirs must be a list of absolute paths"],
    [{ trustedDirs: [1] }, "trustedDirs must be a list of absolute paths"],
    [
      { permissions: { deny: ["Read()"] } },
      'invalid rule "Read()": Read rules take a path pattern',
    ],
    [{ colour: true }, 'unknown key "colour" (valid: permissions, trustedDirs, hooks)'],
  ])("user file %j: the message names it with ~", (content, why) => {
    const w = world();
    w.user(content);
    expect(errorOf(() => w.load())).toBe(`${USER}: ${why}`);
  });

  test("a user file in AGENT_CODE_HOME outside the home folder is named by its whole path", () => {
    const w = world();
    const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), "agent-code-home-")));
    onTestFinished(() => rmSync(elsewhere, { recursive: true, force: true }));
    writeFileSync(join(elsewhere, "settings.json"), "[]");
    expect(errorOf(() => w.load({ home: elsewhere }))).toBe(
      `${join(elsewhere, "settings.json")}: the settings must be a JSON object`,
    );
  });

  test("a bad rule in a flag names the flag", () => {
    const w = world();
    expect(errorOf(() => w.load({ deny: ["Read(.env)", "Bsh"] }))).toBe(
      `--deny: invalid rule "Bsh": unknown tool "Bsh" (valid: Bash, Read, Edit, WebFetch, WebSearch, ${TOOL_NAMES.join(", ")})`,
    );
    expect(errorOf(() => w.load({ allow: ["Bash(a && b)"] }))).toBe(
      '--allow: invalid rule "Bash(a && b)": a Bash rule is one plain command',
    );
  });
});

describe("parseRule refuses a rule it cannot read", () => {
  test.each([
    ["Bash(npm * x)", '"*" may only end a Bash rule'],
    ["Bash(*npm)", '"*" may only end a Bash rule'],
    ["Bash(npm test*)", '"*" follows a space or ":" (a rule matches whole words)'],
    [
      "Bsh",
      `unknown tool "Bsh" (valid: Bash, Read, Edit, WebFetch, WebSearch, ${TOOL_NAMES.join(", ")})`,
    ],
    ["bash(ls)", "bash rules have nothing in brackets"],
    ["Bash(a && b)", "a Bash rule is one plain command"],
    ["Bash(a; b)", "a Bash rule is one plain command"],
    ["Bash(a | b)", "a Bash rule is one plain command"],
    ["Bash(a > f)", "a Bash rule is one plain command"],
    ["Bash(echo $(id))", "a Bash rule is one plain command"],
    ["Bash(X=1 npm test)", "a Bash rule is one plain command"],
    ["Bash()", "no command in the brackets"],
    ["WebFetch(example.com)", "WebFetch rules take domain:<host> or domain:*.<host>"],
    ["WebFetch(domain:)", "WebFetch rules take domain:<host> or domain:*.<host>"],
    ["WebFetch(domain:a.com/x)", "WebFetch rules take domain:<host> or domain:*.<host>"],
    ["Read()", "Read rules take a path pattern"],
    ["Edit( )", "Edit rules take a path pattern"],
    ["WebSearch(cats)", "WebSearch rules have nothing in brackets"],
    ["git_status(x)", "git_status rules have nothing in brackets"],
    ["", "empty rule"],
    ["  ", "empty rule"],
    ["Bash(npm test", 'write it Tool(…), with one ")" at the end'],
    ["Bash npm test", "not a tool name"],
  ])("%j: %s", (text, why) => {
    expect(errorOf(() => parseRule(text, "--deny", TOOL_NAMES))).toBe(
      `--deny: invalid rule ${JSON.stringify(text)}: ${why}`,
    );
  });

  test.each(["constructor", "toString", "__proto__", "hasOwnProperty"])(
    "a project deny rule %j names no tool: one error line, not a crash",
    (name) => {
      const w = world();
      w.project({ permissions: { deny: [name] } });
      const valid = `Bash, Read, Edit, WebFetch, WebSearch, ${TOOL_NAMES.join(", ")}`;
      expect(errorOf(() => w.load())).toBe(
        `${PROJECT}: invalid rule "${name}": unknown tool "${name}" (valid: ${valid})`,
      );
    },
  );

  // Matched by picomatch's regular expression, each refused pattern can backtrack for as long as
  // it likes on one long name: a deny rule in a project's file would hang the tools that read.
  test("a path pattern that could backtrack is refused; two stars, one a globstar, are taken", () => {
    const why = 'a path pattern holds at most two "*", one of which may be "**", and no {…} or (…)';
    for (const text of [
      "Read(*a*a*a*a*a*a*a*a*a*a*a*a*b)",
      "Read(*a*a*b)",
      "Read(**/a/**/b)",
      "Edit(src/*.{ts,js})",
      "Read(a+(a|aa)b)",
      "Read(@(a|b)*)",
    ]) {
      expect(errorOf(() => parseRule(text, PROJECT, TOOL_NAMES))).toBe(
        `${PROJECT}: invalid rule ${JSON.stringify(text)}: ${why}`,
      );
    }
    for (const text of ["Read(src/**)", "Edit(**/*.ts)", "Read(**/.env*)", "Read(?a[bc]*)"]) {
      expect(parseRule(text, PROJECT, TOOL_NAMES).matches).toBeTypeOf("function");
    }
  });

  test("the words of a Bash rule are read as the shell reads them", () => {
    const words = (text: string) => {
      const { words, prefix } = parseRule(text, "--allow", TOOL_NAMES);
      return { words, prefix };
    };
    expect(words("Bash(npm test:*)")).toEqual({ words: ["npm", "test"], prefix: true });
    expect(words("Bash(npm test *)")).toEqual({ words: ["npm", "test"], prefix: true });
    expect(words("Bash(npm test)")).toEqual({ words: ["npm", "test"], prefix: false });
    expect(words('Bash(git commit -m "a b")')).toEqual({
      words: ["git", "commit", "-m", "a b"],
      prefix: false,
    });
    expect(words("Bash(*)")).toEqual({ words: undefined, prefix: undefined });
    expect(words("Bash")).toEqual({ words: undefined, prefix: undefined });
  });

  test("a Read pattern matches cwd-relative paths, dot files included", () => {
    const matches = (text: string, path: string) =>
      parseRule(text, "--deny", TOOL_NAMES).matches?.(path);
    expect(matches("Read(.env)", ".env")).toBe(true);
    expect(matches("Read(./.env)", ".env")).toBe(true);
    expect(matches("Read(.env)", "app/.env")).toBe(false);
    expect(matches("Read(**/.env)", "app/.env")).toBe(true);
    expect(matches("Read(**/.env)", ".env")).toBe(true);
    expect(matches("Read(secrets/**)", "secrets")).toBe(true);
    expect(matches("Read(secrets/**)", "secrets/.a/b")).toBe(true);
    expect(matches("Read(secrets/**)", "secrets2/a")).toBe(false);
    expect(parseRule("Read", "--deny", TOOL_NAMES).matches).toBeUndefined();
  });
});

describe("which rules count", () => {
  test("no file at all is no rules, no mode and no note", () => {
    const w = world();
    rmSync(join(w.cwd, ".agent"), { recursive: true });
    expect(w.load()).toEqual({
      rules: { allow: [], ask: [], deny: [] },
      mode: undefined,
      notes: [],
      hooks: [],
    });
  });

  test("the flags' rules are named by their flag, after the files' rules", () => {
    const w = world();
    w.user({ permissions: { allow: ["Bash(ls)"], deny: ["WebSearch"] } });
    const settings = w.load({ allow: ["Bash(npm test:*)"], deny: ["Read(.env)", "Bash"] });
    expect(summary(settings)).toEqual({
      allow: [`Bash(ls)@${USER}`, "Bash(npm test:*)@--allow"],
      ask: [],
      deny: [`WebSearch@${USER}`, "Read(.env)@--deny", "Bash@--deny"],
    });
    expect(settings.notes).toEqual([]);
  });

  test("an untrusted project's deny and ask rules count; its allow rules do not", () => {
    const w = world();
    w.project({
      permissions: {
        allow: ["Bash(npm test:*)"],
        ask: ["Bash(git commit:*)"],
        deny: ["Read(.env)"],
      },
    });
    expect(summary(w.load())).toEqual({
      allow: [],
      ask: [`Bash(git commit:*)@${PROJECT}`],
      deny: [`Read(.env)@${PROJECT}`],
    });
  });

  test("$schema is accepted at the top of either file", () => {
    const w = world();
    w.user({ $schema: "https://example.com/s.json", permissions: { deny: ["WebSearch"] } });
    w.project({ $schema: "./s.json", permissions: { ask: ["Bash(git push:*)"] } });
    expect(summary(w.load())).toEqual({
      allow: [],
      ask: [`Bash(git push:*)@${PROJECT}`],
      deny: [`WebSearch@${USER}`],
    });
  });

  test("AGENT_CODE_HOME names the user's folder; without it, ~/.agent-code", () => {
    const w = world();
    expect(agentHome({ AGENT_CODE_HOME: "/etc/agent" })).toBe("/etc/agent");
    expect(agentHome({ AGENT_CODE_HOME: "" })).toBe(join(w.home, ".agent-code"));
    expect(agentHome({})).toBe(join(w.home, ".agent-code"));
  });
});

describe("trust: a project's allow rules and mode count only in a folder the user trusts", () => {
  const PROJECT_RULES = {
    permissions: {
      defaultMode: "acceptEdits",
      allow: ["Bash(npm test:*)", "Edit(src/**)"],
      deny: ["Read(.env)"],
    },
  };

  test.each([
    [
      PROJECT_RULES.permissions,
      `note: ${PROJECT}: 2 allow rules and defaultMode ignored: ${NOT_TRUSTED}`,
    ],
    [{ allow: ["Bash(npm test:*)"] }, `note: ${PROJECT}: 1 allow rule ignored: ${NOT_TRUSTED}`],
    [
      { allow: ["Bash(npm test:*)"], defaultMode: "plan" },
      `note: ${PROJECT}: 1 allow rule and defaultMode ignored: ${NOT_TRUSTED}`,
    ],
    [{ defaultMode: "plan" }, `note: ${PROJECT}: defaultMode ignored: ${NOT_TRUSTED}`],
    [{ defaultMode: "bypassPermissions" }, `note: ${PROJECT}: defaultMode ignored: ${NOT_TRUSTED}`],
  ])("untrusted %j: %s", (permissions, note) => {
    const w = world();
    w.project({ permissions });
    const settings = w.load();
    expect(settings.notes).toEqual([note]);
    expect(settings.rules.allow).toEqual([]);
    expect(settings.mode).toBeUndefined();
  });

  test("a project with only deny and ask rules gets no note", () => {
    const w = world();
    w.project({ permissions: { deny: ["Read(.env)"], ask: ["WebSearch"] } });
    expect(w.load().notes).toEqual([]);
  });

  // Each: the trustedDirs entry (`{home}` for the home folder) and the project folder below home.
  test.each([
    ["the folder itself", "{home}/code/app", "code/app"],
    ["a folder above it", "{home}/code", "code/app"],
    ["an entry with a trailing slash", "{home}/code/app/", "code/app"],
    ["an entry with ~/", "~/code/app", "code/app"],
    ["an entry through a symlink", "{home}/link-to-code/app", "code/app"],
  ])("trusted by %s", (_, entry, project) => {
    const w = world(project);
    symlinkSync(join(w.home, "code"), join(w.home, "link-to-code"));
    w.user({ trustedDirs: [entry.replace("{home}", w.home)] });
    w.project(PROJECT_RULES);
    const settings = w.load();
    expect(settings.notes).toEqual([]);
    expect(summary(settings).allow).toEqual([
      `Bash(npm test:*)@${PROJECT}`,
      `Edit(src/**)@${PROJECT}`,
    ]);
    expect(settings.mode).toBe("acceptEdits");
  });

  test("a cwd reached through a symlink is trusted by its real path", () => {
    const w = world();
    symlinkSync(join(w.home, "code"), join(w.home, "link-to-code"));
    w.user({ trustedDirs: [join(w.home, "code", "app")] });
    w.project(PROJECT_RULES);
    const settings = w.load({ cwd: join(w.home, "link-to-code", "app") });
    expect(settings.notes).toEqual([]);
    expect(settings.mode).toBe("acceptEdits");
  });

  test.each([
    ["a sibling that shares the prefix", "{home}/code/app", "code/app2"],
    ["a folder below the project", "{home}/code/app/sub", "code/app"],
    ["another folder", "{home}/elsewhere", "code/app"],
  ])("not trusted by %s", (_, entry, project) => {
    const w = world(project);
    w.user({ trustedDirs: [entry.replace("{home}", w.home)] });
    w.project(PROJECT_RULES);
    const settings = w.load();
    expect(settings.notes).toEqual([
      `note: ${PROJECT}: 2 allow rules and defaultMode ignored: ${NOT_TRUSTED}`,
    ]);
    expect(settings.mode).toBeUndefined();
  });

  test("a trusted project cannot set bypassPermissions: the user's mode stands, with a note", () => {
    const w = world();
    w.user({ trustedDirs: [w.cwd], permissions: { defaultMode: "plan" } });
    w.project({ permissions: { defaultMode: "bypassPermissions", allow: ["Bash(ls)"] } });
    const settings = w.load();
    expect(settings.notes).toEqual([
      `note: ${PROJECT}: defaultMode bypassPermissions ignored: only --permission-mode or ${USER} can set it`,
    ]);
    expect(settings.mode).toBe("plan");
    expect(summary(settings).allow).toEqual([`Bash(ls)@${PROJECT}`]);
  });

  test("the user's file may set bypassPermissions", () => {
    const w = world();
    w.user({ permissions: { defaultMode: "bypassPermissions" } });
    expect(w.load()).toMatchObject({ mode: "bypassPermissions", notes: [] });
  });

  // The flag beats both; cli.ts applies it over what loadSettings returns.
  test.each([
    ["neither", undefined, undefined, false, undefined],
    ["the user's only", "plan", undefined, false, "plan"],
    ["an untrusted project's over the user's", "plan", "acceptEdits", false, "plan"],
    ["a trusted project's over the user's", "plan", "acceptEdits", true, "acceptEdits"],
    ["a trusted project's alone", undefined, "default", true, "default"],
  ])("mode: %s", (_, userMode, projectMode, trusted, wanted) => {
    const w = world();
    w.user({
      ...(trusted ? { trustedDirs: [w.cwd] } : {}),
      permissions: userMode === undefined ? {} : { defaultMode: userMode },
    });
    w.project({ permissions: projectMode === undefined ? {} : { defaultMode: projectMode } });
    expect(w.load().mode).toBe(wanted);
  });
});

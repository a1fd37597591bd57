import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { decide, PERMISSION_MODES, type PermissionMode } from "../src/permissions.ts";
import { defaultTools } from "../src/tools/index.ts";

const tools = defaultTools();
// Where the paths a call names are read from; these calls name none.
const CWD = process.cwd();

function decision(name: string, mode: PermissionMode, args: Record<string, unknown> = {}) {
  return decide({ tool: tools.get(name), args, mode, cwd: CWD }).behavior;
}

const READ_ONLY = [
  "echo",
  "system_date",
  "read_file",
  "list_files",
  "glob",
  "grep",
  "project_tree",
  "git_status",
  "git_diff",
  "bash_output",
  "kill_shell",
  "memory_recall",
  "cron_list",
  "cron_cancel",
];

test("the tools marked read-only are exactly those that change nothing", () => {
  const marked = tools
    .list()
    .filter((tool) => tool.readOnly === true)
    .map((tool) => tool.name);
  expect(marked).toEqual(READ_ONLY);
});

test.each(PERMISSION_MODES)("in %s mode a read-only tool runs without a question", (mode) => {
  for (const name of READ_ONLY) expect(decision(name, mode)).toBe("allow");
});

test.each([
  ["file_write", "ask", "allow", "deny", "allow"],
  ["file_edit", "ask", "allow", "deny", "allow"],
  ["bash", "ask", "ask", "deny", "allow"],
  ["web_fetch", "ask", "ask", "deny", "allow"],
  ["web_search", "ask", "ask", "deny", "allow"],
  ["memory_write", "ask", "allow", "deny", "allow"],
])("%s: default %s, acceptEdits %s, plan %s, bypassPermissions %s", (name, ...wanted) => {
  const args = name === "bash" ? { command: "echo hi" } : {};
  expect(PERMISSION_MODES.map((mode) => decision(name, mode, args))).toEqual(wanted);
});

test("plan mode says which tool it refused and why", () => {
  expect(decide({ tool: tools.get("file_write"), args: {}, mode: "plan", cwd: CWD })).toEqual({
    behavior: "deny",
    reason: "plan mode: file_write is not allowed; only read-only tools run in plan mode",
  });
});

test("plan mode refuses memory_write with the same words", () => {
  expect(decide({ tool: tools.get("memory_write"), args: {}, mode: "plan", cwd: CWD })).toEqual({
    behavior: "deny",
    reason: "plan mode: memory_write is not allowed; only read-only tools run in plan mode",
  });
});

test.each(PERMISSION_MODES)("in %s mode a guarded command is refused", (mode) => {
  expect(
    decide({ tool: tools.get("bash"), args: { command: "rm -rf build" }, mode, cwd: CWD }),
  ).toEqual({
    behavior: "deny",
    reason:
      'blocked: rm -rf deletes without asking (in "rm -rf build"); agent-code never runs this; ask the user to run it if it is needed',
  });
});

test("an unknown tool is left to the registry, which names the tools there are", () => {
  expect(decide({ tool: undefined, args: {}, mode: "bypassPermissions", cwd: CWD })).toEqual({
    behavior: "ask",
  });
});

test.each(['eval "$CMD"', "$CMD -rf keep", "echo 'unbalanced"])(
  "bypassPermissions still asks about %s, which the parser cannot read through",
  (command) => {
    expect(decision("bash", "bypassPermissions", { command })).toBe("ask");
  },
);

test.each(PERMISSION_MODES)(
  "in %s mode a command over 64 KiB is refused before it is read",
  (mode) => {
    // Read, it would meet a guard first: the size is what refuses it.
    const command = `rm -rf x; echo ${"x".repeat(204_800 - 15)}`;
    expect(decide({ tool: tools.get("bash"), args: { command }, mode, cwd: CWD })).toEqual({
      behavior: "deny",
      reason: "the command is 204800 bytes long; agent-code runs commands of at most 65536 bytes",
    });
  },
);

test("the 64 KiB limit counts bytes, not characters", () => {
  const command = `: ${"é".repeat(32_767)}`; // 2 + 65,534 bytes
  expect(decision("bash", "bypassPermissions", { command })).toBe("allow");
  expect(
    decide({
      tool: tools.get("bash"),
      args: { command: `${command}!` },
      mode: "default",
      cwd: CWD,
    }),
  ).toEqual({
    behavior: "deny",
    reason: "the command is 65537 bytes long; agent-code runs commands of at most 65536 bytes",
  });
});

// A project with a repository and agent-code's folder, and a folder of its own that is a symlink
// into .git: a path that names neither can still lead there.
const project = realpathSync(mkdtempSync(join(tmpdir(), "agent-code-protected-")));
afterAll(() => rmSync(project, { recursive: true, force: true }));
mkdirSync(join(project, ".git/hooks"), { recursive: true });
mkdirSync(join(project, ".agent"));
mkdirSync(join(project, "src"));
const LINKS = process.platform !== "win32";
if (LINKS) symlinkSync(join(project, ".git"), join(project, "src/g"));

function write(file_path: string, mode: PermissionMode) {
  return decide({ tool: tools.get("file_write"), args: { file_path }, mode, cwd: project });
}

const GIT = "git runs what it holds";
const AGENT = "agent-code's own folder";
const SETTINGS = "the project's settings and hooks";

test.each([
  [".git/config", ".git/config", GIT],
  [".git/hooks/pre-commit", ".git/hooks/pre-commit", GIT],
  ["./src/../.git/hooks/post-checkout", ".git/hooks/post-checkout", GIT],
  [".agent/settings.json", ".agent/settings.json", SETTINGS],
  [".agent/hooks/guard.mjs", ".agent/hooks/guard.mjs", "the project's hooks run what it holds"],
  [".agent/notes.txt", ".agent/notes.txt", AGENT],
  ["vendor/lib/.Git/config", "vendor/lib/.Git/config", GIT],
])(
  "a write to %s is asked about in every mode, bypassPermissions too, and refused in plan",
  (path, shown, why) => {
    for (const mode of ["default", "acceptEdits", "bypassPermissions"] as const) {
      expect(write(path, mode)).toEqual({
        behavior: "ask",
        needs: [`  needs approval: ${shown} (a protected path: ${why})`],
      });
    }
    expect(write(path, "plan").behavior).toBe("deny");
  },
);

test.skipIf(!LINKS)(
  "a write through a symlink into .git is asked about, naming where it leads",
  () => {
    for (const mode of ["acceptEdits", "bypassPermissions"] as const) {
      expect(write("src/g/config", mode)).toEqual({
        behavior: "ask",
        needs: [`  needs approval: .git/config (a protected path: ${GIT})`],
      });
    }
  },
);

test("only .git and .agent themselves are protected, not names that start like them", () => {
  for (const path of ["src/a.ts", ".gitignore", ".github/workflows/ci.yml", ".agents/x"]) {
    expect(write(path, "acceptEdits")).toEqual({ behavior: "allow" });
  }
  expect(write(".git", "acceptEdits").behavior).toBe("ask");
});

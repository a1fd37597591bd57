import { expect, test } from "vitest";
import { decide, PERMISSION_MODES, type PermissionMode } from "../src/permissions.ts";
import { defaultTools } from "../src/tools/index.ts";

const tools = defaultTools();
// Where paths in a command are read from; these calls name none.
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

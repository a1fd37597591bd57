// agent-code.check.json: how a project says it starts, --cmd still winning, a TypeScript project
// that was never installed refused instead of graded, a Python project run with python3 -m where
// uv is missing (when its file allows it), and python3 started as itself rather than as a shim.
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "@agent-code/test-kit";
import { afterAll, expect, test } from "vitest";
import { checkSettings } from "../check.ts";
import {
  commandStart,
  directInterpreter,
  missingProgram,
  readProjectFile,
} from "../lib/check-project.ts";
import { UsageError } from "../lib/command.ts";
import { PYTHON } from "./python-project.ts";

const SCRIPT = fileURLToPath(new URL("../check.ts", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "check-project-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let count = 0;
function project(files: Record<string, string>): string {
  const dir = join(root, `p${count++}`);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  mkdirSync(dir, { recursive: true });
  return dir;
}

function usageError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  throw new Error("no usage error");
}

test("the file's two shapes, and each way it can be wrong, in one line", () => {
  expect(readProjectFile(project({}))).toBeUndefined();
  const file = (text: string) => project({ "agent-code.check.json": text });
  expect(readProjectFile(file('{"language": "typescript"}'))).toEqual({ language: "typescript" });
  expect(readProjectFile(file('{"command": ["uv", "run", "agent-code"]}'))).toEqual({
    command: ["uv", "run", "agent-code"],
  });
  const shape = 'give {"command": ["<program>", "<argument>", ...]} or {"language": "typescript"}';
  const wrong = (text: string) => {
    const dir = file(text);
    return usageError(() => readProjectFile(dir)).replace(`agent-code.check.json in ${dir}: `, "");
  };
  expect(wrong("{")).toMatch(/^not JSON \(/);
  expect(wrong("[]")).toBe(shape);
  expect(wrong('{"command": ["x"], "language": "typescript"}')).toBe(shape);
  expect(wrong('{"cmd": "x"}')).toBe(shape);
  expect(wrong('{"language": "python"}')).toBe('unknown language "python"');
  expect(wrong('{"command": "uv run agent-code"}')).toBe(
    "command must be a non-empty list of words (strings)",
  );
  expect(wrong('{"command": []}')).toBe("command must be a non-empty list of words (strings)");
  // The module python3 -m runs where uv is missing: beside a command only.
  expect(
    readProjectFile(
      file('{"command": ["uv", "run", "agent-code"], "python": {"module": "agent_code"}}'),
    ),
  ).toEqual({ command: ["uv", "run", "agent-code"], python: { module: "agent_code" } });
  const python = 'python must be {"module": "<the package python3 -m runs>"}';
  expect(wrong('{"command": ["uv"], "python": {"module": "agent-code"}}')).toBe(python);
  expect(wrong('{"command": ["uv"], "python": {"module": "a", "path": "src"}}')).toBe(python);
  expect(wrong('{"command": ["uv"], "python": "agent_code"}')).toBe(python);
  expect(wrong('{"language": "typescript", "python": {"module": "a"}}')).toBe(shape);
});

test("a project that starts with uv, where uv is missing: python3 -m when the file allows it, else both ways on", () => {
  const start = { command: ["uv", "run", "agent-code"], python: { module: "agent_code" } };
  const withSrc = project({ "src/agent_code/__main__.py": "" });
  const bare = project({ "agent_code.py": "" });
  const noUv = { PATH: root };
  expect(commandStart(withSrc, start, noUv)).toEqual({
    command: ["python3", "-m", "agent_code"],
    env: { PYTHONPATH: `${join(withSrc, "src")}${delimiter}${withSrc}` },
    note: `note: uv is not on PATH: running python3 -m agent_code in ${withSrc} instead, as its agent-code.check.json allows`,
  });
  expect(commandStart(bare, start, noUv).env).toEqual({ PYTHONPATH: bare });
  // With uv on PATH the command runs as written; without a module, it is what it was.
  const bin = project({ uv: "" });
  chmodSync(join(bin, "uv"), 0o755);
  expect(commandStart(bare, start, { PATH: bin })).toEqual({ command: start.command });
  expect(commandStart(bare, { command: start.command }, noUv)).toEqual({ command: start.command });
  expect(missingProgram(bare, start.command, noUv)).toBe(
    `not checked: uv is not installed (the project starts with \`uv run agent-code\`): install it (https://docs.astral.sh/uv/getting-started/installation/), then run uv sync in ${bare}; or add "python": {"module": "<its package>"} to its agent-code.check.json to run it with python3 -m`,
  );
  expect(missingProgram(bare, ["python3", "agent_code.py"], noUv)).toBe(
    "not checked: python3 is not on PATH (the project starts with `python3 agent_code.py`)",
  );
  expect(missingProgram(bare, ["./agent-code"], noUv)).toBeUndefined();
  expect(missingProgram(bare, start.command, { PATH: bin })).toBeUndefined();
});

// pyenv's python3 is a shell script that finds the interpreter each time: a start costs twice.
test.skipIf(!isAbsolute(PYTHON ?? ""))(
  "python3 found as a script (a version manager's shim) runs as the interpreter it finds",
  () => {
    const shims = project({ python3: `#!/bin/sh\nexec ${PYTHON} "$@"\n` });
    chmodSync(join(shims, "python3"), 0o755);
    const where = project({});
    const env = { PATH: `${shims}${delimiter}${process.env.PATH ?? ""}` };
    const direct = directInterpreter(["python3", "agent_code.py"], where, env);
    expect(direct.slice(1)).toEqual(["agent_code.py"]);
    expect(realpathSync(direct[0] ?? "")).toBe(realpathSync(PYTHON ?? ""));
    // A real interpreter first on PATH, or any other program, is left as it is.
    const real = { PATH: `${dirname(PYTHON ?? "")}${delimiter}${shims}` };
    expect(directInterpreter(["python3", "x.py"], where, real)).toEqual(["python3", "x.py"]);
    expect(directInterpreter(["uv", "run", "agent-code"], where, env)).toEqual([
      "uv",
      "run",
      "agent-code",
    ]);
  },
);

test("without --cmd the file's command runs; --cmd wins over it", () => {
  const dir = project({ "agent-code.check.json": '{"command": ["python3", "agent_code.py"]}' });
  expect(checkSettings(["day-1"], dir).settings.command).toEqual(["python3", "agent_code.py"]);
  expect(checkSettings(["day-1", "--cmd", "uv run agent-code"], dir).settings.command).toEqual([
    "uv",
    "run",
    "agent-code",
  ]);
});

test("a TypeScript project with packages but no node_modules is refused: exit 2, install first", async () => {
  const dir = project({
    "agent-code.check.json": '{"language": "typescript"}',
    "package.json": JSON.stringify({ dependencies: { cac: "7.1.0" } }),
    "src/cli.ts": 'console.log("model: mock");\n',
  });
  const run = await runCli(["node", "--import", "tsx", SCRIPT], ["day-1", "--project", dir]);
  expect(run.exitCode).toBe(2);
  expect(run.stderr).toBe(`error: run pnpm install in ${dir} first\n`);
  expect(run.stdout).toBe("");
  // The same without the file: a TypeScript project is the default.
  rmSync(join(dir, "agent-code.check.json"));
  expect(usageError(() => checkSettings(["day-1"], dir))).toBe(`run pnpm install in ${dir} first`);
  // A project that declares no packages has nothing to install.
  writeFileSync(join(dir, "package.json"), "{}");
  expect(checkSettings(["day-1"], dir).settings.command[1]).toBe("--enable-source-maps");
}, 30_000);

// agent-code.check.json: how a project says it starts, --cmd still winning, and a TypeScript
// project that was never installed refused instead of graded.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "@agent-code/test-kit";
import { afterAll, expect, test } from "vitest";
import { checkSettings } from "../check.ts";
import { readProjectFile } from "../lib/check-project.ts";
import { UsageError } from "../lib/command.ts";

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
});

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

// Issue #57: a project that reaches nothing says why, first. Sources that import a file that is not
// there do not build (esbuild's line, nothing run, as for a syntax error); a program whose every run
// fails before it prints a line does not start (the line of its stderr that says why, right after
// the project and command lines, in the JSON, JUnit and the step summary).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type CliRun, runCli } from "@agent-code/test-kit";
import { parse, type TestSuites } from "junit2json";
import { afterAll, expect, test } from "vitest";
import { causeLine, startFailure } from "../lib/check-run.ts";
import { ROOT } from "../lib/command.ts";
import { schemaErrors } from "./json-schema.ts";

const SCRIPT = fileURLToPath(new URL("../check.ts", import.meta.url));
const SCHEMA = JSON.parse(readFileSync(join(ROOT, "scripts", "lib", "check-schema.json"), "utf8"));
const dir = mkdtempSync(join(tmpdir(), "check-reached-nothing-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function project(name: string, files: Record<string, string>): string {
  const at = join(dir, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(at, path, ".."), { recursive: true });
    writeFileSync(join(at, path), text);
  }
  return at;
}

function check(args: string[], env: Record<string, string | undefined> = {}) {
  return runCli(["node", "--import", "tsx", SCRIPT], args, {
    env: { INIT_CWD: ROOT, GITHUB_STEP_SUMMARY: undefined, ...env },
    timeoutMs: 120_000,
  });
}

test("an import of a file that is not there: does not build, esbuild's line, nothing run", async () => {
  const at = project("unbundled", {
    "src/cli.ts": 'import { systemDate } from "./system-date.ts";\nconsole.log(systemDate());\n',
  });
  const cause = 'src/cli.ts:1:28: Could not resolve "./system-date.ts"';
  const text = await check(["day-1", "--project", at]);
  expect(text.exitCode).toBe(1);
  expect(text.stderr).toBe("");
  expect(text.stdout).toBe(
    [
      `project: ${at}`,
      "",
      "FAIL  src/cli.ts does not build, so no scenario ran",
      `      ${cause}`,
      "",
      "highest stage passed: none",
      "",
    ].join("\n"),
  );
  const json = JSON.parse((await check(["day-1", "--project", at, "--json"])).stdout);
  expect(schemaErrors(json, SCHEMA)).toEqual([]);
  expect(json).toMatchObject({ stages: [], highestStagePassed: null, buildError: cause });
}, 60_000);

test("a program that throws before it prints: does not start, the error's line first everywhere", async () => {
  const at = project("crasher", {
    "src/cli.ts": 'throw new Error("settings.json is missing: copy settings.example.json");\n',
  });
  const cause = "Error: settings.json is missing: copy settings.example.json";
  const summary = join(dir, "summary.md");
  const text = await check(["day-1", "--project", at, "--seed", "7"], {
    GITHUB_STEP_SUMMARY: summary,
  });
  expect(text.exitCode).toBe(1);
  // Right after the project, command and seed lines, before any scenario.
  expect(text.stdoutLines.slice(3, 7)).toEqual([
    "",
    `does not start: ${cause}`,
    "      every run ended with a failure before the program printed a line",
    "",
  ]);
  expect(text.stdoutLines[7]).toMatch(/^day-1: /);
  expect(text.stdoutLines.at(-1)).toBe("highest stage passed: none");
  expect(readFileSync(summary, "utf8")).toContain(`**does not start**: ${cause}`);

  const json = JSON.parse((await check(["day-1", "--project", at, "--json"])).stdout);
  expect(schemaErrors(json, SCHEMA)).toEqual([]);
  expect(json.startError).toBe(cause);
  expect(json.highestStagePassed).toBeNull();
  expect(json.stages[0].scenarios.length).toBeGreaterThan(0);

  const junit = await check(["day-1", "--project", at, "--reporter", "junit"]);
  const xml = (await parse(junit.stdout)) as TestSuites;
  expect(xml.errors).toBe(1);
  const [first] = xml.testsuite ?? [];
  expect(first?.name).toBe("check");
  expect(first?.testcase?.[0]?.name).toBe("the program starts");
  expect(first?.testcase?.[0]?.error?.[0]?.message).toBe(`does not start: ${cause}`);
}, 120_000);

// What Node, Python and a shell print when a program dies at once.
test("the cause is the error's own line, not a location, a quoted source line or a frame", () => {
  const node = [
    "file:///p/node_modules/.cache/agent-code-check/agent-code.mjs:12",
    'const settings = JSON.parse(readFileSync("agent-code.settings.json", "utf8"));',
    "                            ^",
    "",
    "Error: ENOENT: no such file or directory, open 'agent-code.settings.json'",
    "    at Object.openSync (node:fs:573:18)",
    "    at file:///p/src/cli.ts:12:29",
    "",
    "Node.js v26.12.1",
  ].join("\n");
  expect(causeLine(node)).toBe(
    "Error: ENOENT: no such file or directory, open 'agent-code.settings.json'",
  );
  const python = [
    "Traceback (most recent call last):",
    '  File "/p/agent_code.py", line 3, in <module>',
    "    import requests",
    "ModuleNotFoundError: No module named 'requests'",
  ].join("\n");
  expect(causeLine(python)).toBe("ModuleNotFoundError: No module named 'requests'");
  const missing =
    "python3: can't open file '/p/agent_codee.py': [Errno 2] No such file or directory";
  expect(causeLine(missing)).toBe(missing);
  expect(causeLine("")).toBe("it printed nothing on stderr either");
});

test("one run that printed a line, exited 0 or ran until stopped is a program that starts", () => {
  const run = (over: Partial<CliRun>): CliRun => ({
    command: ["x"],
    stdout: "",
    stdoutLines: [],
    stderr: "Error: boom\n    at main (/p/src/cli.ts:1:7)\n",
    exitCode: 1,
    signal: null,
    durationMs: 1,
    timedOut: false,
    trace: [],
    ...over,
  });
  expect(startFailure([run({}), run({})])).toBe("Error: boom");
  expect(startFailure([run({}), run({ stdout: "cwd: /p\n" })])).toBeUndefined();
  expect(startFailure([run({}), run({ exitCode: 0 })])).toBeUndefined();
  expect(startFailure([run({}), run({ exitCode: null, timedOut: true })])).toBeUndefined();
  expect(startFailure([])).toBeUndefined();
});

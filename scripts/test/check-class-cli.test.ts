// pnpm check:class as an instructor runs it, on cheap classes (Day 1 only): --help, projects
// graded two at once and tabled by name, a missing `uv` named in its project's row, grades kept
// unless --force, and --cmd run in each project's folder.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "@agent-code/test-kit";
import { parse, type TestSuites } from "junit2json";
import { afterAll, describe, expect, test } from "vitest";
import type { ClassReport } from "../lib/check-class.ts";
import type { CheckReport } from "../lib/check-run.ts";
import { pythonProject, typescriptProject } from "./class-fixtures.ts";
import { HAS_PYTHON, PYTHON } from "./python-project.ts";

const SCRIPT = fileURLToPath(new URL("../check-class.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "check-class-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A Day 1 class on a busy machine: tens of seconds.
const CLASS_MS = 240_000;
// Only node's own folder: no `uv` on this PATH, whatever the machine has.
const NO_UV = dirname(process.execPath);

function checkClass(args: string[], env: Record<string, string | undefined> = {}) {
  return runCli(["node", "--import", "tsx", SCRIPT], args, {
    env: { INIT_CWD: dir, GITHUB_STEP_SUMMARY: undefined, ...env },
    timeoutMs: CLASS_MS,
  });
}

test("--help prints the usage and exits 0", async () => {
  const run = await checkClass(["--help"]);
  expect(run.exitCode).toBe(0);
  expect(run.stdoutLines[0]).toMatch(/^usage: pnpm check:class <dir-of-projects> /);
  expect(run.stdout).toContain("--jobs <n>");
  expect(run.stdout).toContain("points.csv");
});

test(
  "two at once: each ends as it ends, the table is by name, a missing uv is one row's error",
  async () => {
    const projects = join(dir, "day-1");
    typescriptProject(join(projects, "ada"), { stage: "day-1", installed: true });
    mkdirSync(join(projects, "uma"), { recursive: true });
    writeFileSync(
      join(projects, "uma", "agent-code.check.json"),
      '{ "command": ["uv", "run", "agent-code"] }\n',
    );
    mkdirSync(join(projects, "zed"), { recursive: true });
    writeFileSync(join(projects, "zed", "agent-code.check.json"), "{ not json\n");
    const summary = join(dir, "summary.md");
    const args = ["day-1", "--stage", "day-1", "--out", "day-1-grades", "--jobs", "2"];
    const run = await checkClass(args, { PATH: NO_UV, GITHUB_STEP_SUMMARY: summary });
    const out = join(dir, "day-1-grades");
    const uv = `not checked: uv is not installed (the project starts with \`uv run agent-code\`): install it (https://docs.astral.sh/uv/getting-started/installation/), then run uv sync in ${join(projects, "uma")}; or add "python": {"module": "<its package>"} to its agent-code.check.json to run it with python3 -m`;
    expect(run.exitCode).toBe(1);
    expect(run.stdoutLines).toEqual([
      "ada: highest stage passed: day-1",
      `uma: ${uv}`,
      expect.stringMatching(/^zed: not checked: agent-code\.check\.json in .*zed: not JSON/),
      `class report: ${join(out, "class.md")} and class.json`,
    ]);
    // ada started first and finished last: uma never started a check, zed's stopped at once.
    const ends = run.stderr
      .split("\n")
      .filter((line) => line.startsWith("[") && !line.endsWith(": checking"))
      .map((line) => line.split(":")[0]);
    expect(ends).toEqual(["[2/3] uma", "[3/3] zed", "[1/3] ada"]);
    const report: ClassReport = JSON.parse(readFileSync(join(out, "class.json"), "utf8"));
    expect(report.learners.map((row) => row.learner)).toEqual(["ada", "uma", "zed"]);
    expect(report.learners[1]?.error).toBe(uv);
    const table = readFileSync(join(out, "class.md"), "utf8");
    expect(table).toMatch(
      /\| ada \| day-1 \| 1\/1 \| none \|\n\| uma \| not checked \| -\/1 \| uv is not /,
    );
    // The summary holds the class table once, not a table per project.
    expect(readFileSync(summary, "utf8")).toBe(table);
    expect(readFileSync(join(out, "reports", "ada.md"), "utf8")).toContain(
      "Nothing: every core scenario above your highest stage passed.",
    );
    // uma's page says why on its first line, and both ways on: install uv, or run without it;
    // as text, its backticks and angle brackets escaped.
    expect(readFileSync(join(out, "reports", "uma.md"), "utf8").split("\n")[0]).toBe(
      `# agent-code check, uma: not checked (no points): ${uv.replace("not checked: ", "").replace(/[`<>]/g, "\\$&")}`,
    );

    // Grades already there stay: one line, exit 2, nothing checked.
    const again = await checkClass(args, { PATH: NO_UV });
    expect(again.exitCode).toBe(2);
    expect(again.stdout).toBe("");
    expect(again.stderr).toBe(
      `error: ${out} already holds grades (class.json, class.md, class.xml, points.csv, reports): pass --force to replace them\n`,
    );

    // --force replaces them; under --reporter junit stdout is class.xml, the file beside the table.
    const junit = await checkClass([...args, "--force", "--reporter", "junit"], { PATH: NO_UV });
    expect(junit.exitCode).toBe(1);
    expect(junit.stdout).toBe(readFileSync(join(out, "class.xml"), "utf8"));
    const xml = (await parse(junit.stdout)) as TestSuites;
    expect(xml.testsuite?.map((suite) => [suite.name, suite.tests, suite.errors])).toEqual([
      ["ada", 1, 0],
      ["uma", 1, 1],
      ["zed", 1, 1],
    ]);
    expect(xml).toMatchObject({ tests: 3, failures: 0, errors: 2 });
  },
  CLASS_MS,
);

test("a usage error under --reporter junit: exit 2, the error line, and XML with it as a failed case", async () => {
  mkdirSync(join(dir, "usage"));
  const run = await checkClass(["usage", "--stage", "day-9", "--reporter", "junit"]);
  expect(run.exitCode).toBe(2);
  expect(run.stderr).toMatch(/^error: unknown stage: day-9 /);
  const xml = (await parse(run.stdout)) as TestSuites;
  expect(xml).toMatchObject({ tests: 1, failures: 1 });
  const [only] = xml.testsuite?.[0]?.testcase ?? [];
  expect(only?.name).toBe("the class was graded");
  expect(only?.failure?.[0]?.message).toMatch(/^unknown stage: day-9 /);
  const props = xml.testsuite?.[0]?.properties ?? [];
  expect(props.find((one) => one.name === "project")?.value).toBe(join(dir, "usage"));
}, 30_000);

describe.skipIf(!HAS_PYTHON)("--cmd, and Python without uv (needs python3)", () => {
  test.skipIf(!isAbsolute(PYTHON ?? ""))(
    "a project that starts with uv runs with python3 -m where uv is missing, as its file allows",
    async () => {
      const projects = join(dir, "no-uv");
      pythonProject(join(projects, "chen"));
      writeFileSync(
        join(projects, "chen", "agent-code.check.json"),
        '{ "command": ["uv", "run", "agent-code"], "python": { "module": "agent_code" } }\n',
      );
      const run = await checkClass(
        ["no-uv", "--stages", "day-2-v1,day-2-v2", "--out", "no-uv-grades"],
        // Node and Python, and no uv.
        { PATH: `${NO_UV}${delimiter}${dirname(PYTHON ?? "")}` },
      );
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stdoutLines[0]).toBe("chen: highest stage passed: day-2-v2");
      const report: CheckReport = JSON.parse(
        readFileSync(join(dir, "no-uv-grades", "reports", "chen.json"), "utf8"),
      );
      expect(report.command).toEqual(["python3", "-m", "agent_code"]);
    },
    CLASS_MS,
  );

  test(
    "--cmd starts every project, in its own folder",
    async () => {
      const projects = join(dir, "python");
      pythonProject(join(projects, "chen"));
      // No project file: without --cmd it would be taken for a TypeScript project.
      rmSync(join(projects, "chen", "agent-code.check.json"));
      const run = await checkClass([
        "python",
        "--stage",
        "day-1",
        "--out",
        "python-grades",
        "--cmd",
        `${PYTHON} agent_code.py`,
      ]);
      // Checked with the command given, which found agent_code.py in chen's folder: the program
      // itself answered (a Day 2 program, it asks a real API where Day 1 has a mock, and fails).
      expect(run.exitCode).toBe(0);
      const report: CheckReport = JSON.parse(
        readFileSync(join(dir, "python-grades", "reports", "chen.json"), "utf8"),
      );
      expect(report.command).toEqual([PYTHON, "agent_code.py"]);
      const echo = report.stages[0]?.scenarios.find(
        (scenario) => scenario.id === "echo-round-trip",
      );
      expect(echo?.stderrTail?.join("\n")).toContain("error: could not reach");
    },
    CLASS_MS,
  );
});

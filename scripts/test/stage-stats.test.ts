import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { devNull } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "@agent-code/test-kit";
import { describe, expect, test } from "vitest";
import { baseOf, ROOT, STAGES, stageDir } from "../lib/command.ts";
import { diffStages } from "../lib/stage-diff.ts";
import { countCodeLines, type StageStats, stageStats } from "../lib/stage-stats.ts";

const SCRIPT = fileURLToPath(new URL("../stage-stats.ts", import.meta.url));

describe("countCodeLines", () => {
  test.each([
    ["blank lines", "a();\n\n   \n\tb();\n", 2],
    ["// lines, indented or not", "// why\n  // more\nx(); // trailing comment\n", 1],
    ["/* */ blocks, one line or many", "/* a */\n/**\n * doc\n */\nf();\n", 1],
    [
      "code before a block or after its end",
      "x(); /* start\nmiddle\nend */ y();\n/* a */ z();\n",
      3,
    ],
    ["comment markers inside strings", "const a = \"/*\";\nb();\nconst c = '//';\n", 3],
    ["a template literal over several lines", "const t = `\n/* not a comment\n`;\nd();\n", 4],
    ["an escaped quote", 'const q = "\\"/*";\ne();\n', 2],
    ["CRLF line endings", "a();\r\n// c\r\n\r\nb();\r\n", 2],
    [
      "quotes inside a regular expression open no string",
      "const r = /[`'\"]/;\n// c\nf();\n/* d */\n",
      2,
    ],
  ])("%s", (_name, source, expected) => {
    expect(countCodeLines(source)).toBe(expected);
  });
});

// Counted another way: blank out /* */ blocks (keeping their line breaks), cut // comments, and
// count the lines with anything left. Good enough for the stages, which hold no "/*" in strings.
function independentCount(source: string): number {
  return source
    .replace(/\/\*[\s\S]*?\*\//g, (block) => block.replace(/[^\n]/g, ""))
    .split("\n")
    .filter((line) => line.replace(/\/\/.*$/, "").trim() !== "").length;
}

function numstat(from: string, to: string): { added: number; removed: number } {
  const run = spawnSync(
    "git",
    [
      "diff",
      "--no-index",
      "--histogram",
      "--numstat",
      `packages/${from}/src`,
      `packages/${to}/src`,
    ],
    {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: devNull },
    },
  );
  const rows = run.stdout.trim().split("\n").filter(Boolean);
  const sum = (column: number) =>
    rows.reduce((total, row) => total + Number(row.split("\t")[column]), 0);
  return { added: sum(0), removed: sum(1) };
}

// The lines stage-diff shows moved into new files and out of deleted ones, from its output.
async function movedLines(from: string, to: string): Promise<{ in: number; out: number }> {
  const moved = { in: 0, out: 0 };
  for (const line of (await diffStages(from, to)).split("\n")) {
    const run = /^… (\d+) lines moved (from|to) /.exec(line);
    if (run !== null) moved[run[2] === "from" ? "in" : "out"] += Number(run[1]);
  }
  return moved;
}

test("every stage in course order: files, lines of code and the change against its base", async () => {
  // git's counts, less the lines stage-diff shows moved: those are no change.
  const changes = async (base: string, stage: string) => {
    const { added, removed } = numstat(base, stage);
    const moved = await movedLines(base, stage);
    return { added: added - moved.in, removed: removed - moved.out };
  };
  const expected: StageStats[] = [];
  for (const stage of STAGES) {
    const src = join(stageDir(stage), "src");
    const files = readdirSync(src, { recursive: true, withFileTypes: true }).filter((entry) =>
      entry.isFile(),
    );
    const base = baseOf(stage);
    expected.push({
      stage,
      files: files.length,
      lines: files.reduce(
        (sum, entry) =>
          sum + independentCount(readFileSync(join(entry.parentPath, entry.name), "utf8")),
        0,
      ),
      ...(base === undefined ? { added: 0, removed: 0 } : await changes(base, stage)),
    });
  }
  expect(stageStats()).toEqual(expected);
  // git diff --numstat of every stage against its base: 35 pairs, and more with each stage.
}, 120_000);

describe("the command line", () => {
  const run = (args: string[]) => runCli(["node", "--import", "tsx", SCRIPT], args);

  // Each run diffs every stage against its base (35 pairs, more with each stage): under a stress
  // run the two took over 30 s, so the table is checked against the JSON rather than against a
  // third count in this process, and the bound is a hang guard.
  test("a table with one row per stage that says what is not counted; --json the same data", async () => {
    const [table, json] = await Promise.all([run([]), run(["--json"])]);
    expect(json.exitCode).toBe(0);
    const stats = JSON.parse(json.stdout) as StageStats[];
    expect(stats.map((row) => row.stage)).toEqual(STAGES);
    expect(table.exitCode).toBe(0);
    expect(table.stdoutLines[0]?.split(/\s+/)).toEqual([
      "stage",
      "files",
      "lines",
      "added",
      "removed",
    ]);
    for (const [index, row] of stats.entries()) {
      const cells = [row.stage, row.files, row.lines, row.added, row.removed].map(String);
      expect(table.stdoutLines[index + 1]?.trim().split(/\s+/)).toEqual(cells);
    }
    expect(table.stdout).toContain("blank lines and comment-only lines are not counted");
  }, 120_000);

  test("an unknown option is a usage error: one error line, exit 2", async () => {
    const result = await run(["--csv"]);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr.trimEnd().split("\n")).toEqual([
      expect.stringMatching(/^error: Unknown option '--csv'.*usage: pnpm stage-stats \[--json\]/),
    ]);
  }, 30_000);
});

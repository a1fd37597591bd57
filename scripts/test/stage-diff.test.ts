import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { devNull, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { stripVTControlCharacters } from "node:util";
import { runCli } from "@agent-code/test-kit";
import { describe, expect, onTestFinished, test } from "vitest";
import { baseOf, paint, ROOT, STAGES, stageDir } from "../lib/command.ts";
import { extractCode, pieces } from "../lib/docs-code.ts";
import { compareStages, diffStageAndProject, diffStages, sourceFiles } from "../lib/stage-diff.ts";
import { diffRebased } from "../lib/stage-rebase.ts";

const SCRIPT = fileURLToPath(new URL("../stage-diff.ts", import.meta.url));
// Each stage with the stage it builds on: the pairs a lesson's diff compares.
const PAIRS = STAGES.flatMap((stage) => {
  const base = baseOf(stage);
  return base === undefined ? [] : [[base, stage] as const];
});

// git itself, on the real folders, with none of the user's settings: what stage-diff must match.
function git(args: string[]): string {
  const options = ["--no-color", "--histogram", "--find-renames=50%"];
  const run = spawnSync("git", ["diff", "--no-index", ...options, ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: devNull },
  });
  if (run.status !== 1) throw new Error(`git diff: ${run.status} ${run.stderr}`);
  return run.stdout;
}

// A learner project holding a copy of a stage's src/ in `srcDir`.
function projectFrom(stage: string, srcDir = "src"): string {
  const dir = mkdtempSync(join(tmpdir(), "stage-diff-project-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(join(stageDir(stage), "src"), join(dir, srcDir), { recursive: true });
  return dir;
}

function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, "utf8");
  if (!text.includes(from)) throw new Error(`${file} has no ${from}`);
  writeFileSync(file, text.replace(from, to));
}

// A line that stands for a run of moved lines: `… 79 lines moved from src/tools.ts (…) …`.
const MOVED = /^… (\d+) lines moved (from|to) (\S+)(?: \(([^)]*)\))? …$/;

// stage-diff's lines with each moved run's line replaced by the lines of git's it stands for, which
// must all be added (moved from) or all removed (moved to); the line itself stays where they are
// not, so the comparison fails there.
function withMovedLines(ours: string[], theirs: string[]): string[] {
  const result: string[] = [];
  for (const line of ours) {
    const run = MOVED.exec(line);
    const lines = theirs.slice(result.length, result.length + Number(run?.[1]));
    const sign = run?.[2] === "from" ? "+" : "-";
    if (run === null || lines.some((text) => !text.startsWith(sign))) result.push(line);
    else result.push(...lines);
  }
  return result;
}

// The lines a file's part of the output shows as moved.
function movedIn(part: string): number {
  return part.split("\n").reduce((sum, line) => sum + Number(MOVED.exec(line)?.[1] ?? 0), 0);
}

describe.each(PAIRS)("%s -> %s", (from, to) => {
  test("the hunks are git's histogram diff of src/, with paths relative to the stage, a moved run one line", async () => {
    // git names a new file by its new path on both sides, and a deleted one by its old path.
    const relative = git([`packages/${from}/src`, `packages/${to}/src`])
      .replaceAll(`a/packages/${from}/`, "a/")
      .replaceAll(`b/packages/${to}/`, "b/")
      .replaceAll(`a/packages/${to}/`, "a/")
      .replaceAll(`b/packages/${from}/`, "b/")
      .replaceAll(`rename from packages/${from}/`, "rename from ")
      .replaceAll(`rename to packages/${to}/`, "rename to ")
      .split("\n")
      .filter((line) => !/^(index |new file mode|deleted file mode)/.test(line));
    const output = await diffStages(from, to);
    const body = output.split("\n").slice(output.split("\n").indexOf("") + 1);
    expect(withMovedLines(body, relative)).toEqual(relative);
  });

  test("the stat header counts what git counts", async () => {
    // -z, as no-index writes it: each file's counts, then its path on each side (/dev/null for a
    // side it is missing from). Two different paths in src/ are a rename: "old => new".
    const fields = git(["--numstat", "-z", `packages/${from}/src`, `packages/${to}/src`]).split(
      "\0",
    );
    const relative = (path = "") => path.replace(/.*\/src\//, "src/");
    const numstat: string[][] = [];
    for (let at = 0; at + 2 < fields.length; at += 3) {
      const [added = "", removed = ""] = (fields[at] ?? "").split("\t");
      const [old, next] = [fields[at + 1], fields[at + 2]].map(relative);
      const name =
        old === "/dev/null" || old === next
          ? next
          : next === "/dev/null"
            ? old
            : `${old} => ${next}`;
      numstat.push([added, removed, name ?? ""]);
    }
    const output = await diffStages(from, to);
    const header = output.split("\n\n")[0]?.split("\n") ?? [];
    expect(header[0]).toBe(`${from} (a/) -> ${to} (b/): src/`);
    // Lines shown moved are counted apart: git's counts less them, and each once where it arrives
    // in the totals. Only a new or a deleted file has any, and its header names one path twice.
    const rows = numstat.map(([added = "", removed = "", path = ""]) => {
      const part = output
        .split(/\n(?=diff --git )/)
        .find((text) => text.startsWith(`diff --git a/${path} b/${path}\n`));
      const moved = part === undefined ? 0 : movedIn(part);
      const arrives = removed === "0";
      return {
        path,
        added: Number(added) - (arrives ? moved : 0),
        removed: Number(removed) - (arrives ? 0 : moved),
        moved: arrives ? moved : 0,
      };
    });
    for (const { path, added, removed } of rows) {
      expect(header).toContainEqual(
        expect.stringMatching(
          new RegExp(`^ ${path} +\\| +${added + removed}( \\+{0,50}-{0,50})?$`),
        ),
      );
    }
    const sum = (column: "added" | "removed" | "moved") =>
      rows.reduce((total, row) => total + row[column], 0);
    // As git writes it: singular for one, and a column that is zero left out.
    const part = (n: number, word: string, sign: string) =>
      n === 0 ? [] : [`${n} ${word}${n === 1 ? "" : "s"}${sign}`];
    const files = `${rows.length} file${rows.length === 1 ? "" : "s"} changed`;
    const parts = [
      files,
      ...part(sum("added"), "insertion", "(+)"),
      ...part(sum("removed"), "deletion", "(-)"),
      ...part(sum("moved"), "line", " moved"),
    ];
    expect(header.at(-1)).toBe(` ${parts.join(", ")}`);
  });

  test("--by-declaration shows a subset of the diff: only declarations that changed", async () => {
    const plain = await diffStages(from, to);
    const output = await diffStages(from, to, { byDeclaration: true });
    expect(output.split("\n")[0]).toBe(`${from} (a/) -> ${to} (b/): src/, by declaration`);
    const plainParts = fileParts(plain);
    const parts = fileParts(output);
    for (const [header, part] of parts) {
      expect(plainParts.keys()).toContain(header);
      // A file new or deleted is shown whole, as the plain diff shows it.
      if (part.includes("\n--- /dev/null\n") || part.includes("\n+++ /dev/null\n")) {
        expect(part).toBe(plainParts.get(header));
      }
    }
    // The declarations the docs' parser finds in each file on both sides: the ones whose code
    // (with the comment lines directly above) differs, or that one side lacks, are the ones shown.
    for (const file of sourceFiles(join(stageDir(from), "src"))) {
      const next = join(stageDir(to), "src", file);
      if (!file.endsWith(".ts") || !existsSync(next)) continue;
      const before = declarations(readFileSync(join(stageDir(from), "src", file), "utf8"), file);
      const after = declarations(readFileSync(next, "utf8"), file);
      const changed = [...new Set([...before.keys(), ...after.keys()])].filter(
        (name) => before.get(name) !== after.get(name),
      );
      const part = parts.get(`diff --git a/src/${file} b/src/${file}`) ?? "";
      expect(new Set(declarationsShown(part))).toEqual(new Set(changed));
    }
  }, 30_000);
});

// A file's top-level declarations as the docs cut them (with the comment lines directly above),
// by name, without trailing whitespace: what --by-declaration compares, found another way.
function declarations(text: string, file: string): Map<string, string> {
  const spans = new Map<string, { from: number; to: number }>();
  for (const piece of pieces(text, file)) {
    if (piece.statement.type === "ExpressionStatement") continue;
    // Overloads are one declaration, from the first signature to the body.
    const name = piece.names.join(", ");
    spans.set(name, { from: spans.get(name)?.from ?? piece.from, to: piece.to });
  }
  return new Map([...spans].map(([name, { from, to }]) => [name, tidy(text.slice(from, to))]));
}

// Each file's part of a diff by its `diff --git` line.
function fileParts(diff: string): Map<string, string> {
  const parts = diff.split(/\n(?=diff --git )/).slice(1);
  return new Map(parts.map((part) => [part.split("\n")[0] ?? "", part]));
}

// The names of the declarations a file's part shows by declaration (`@@ function walk @@`).
function declarationsShown(part: string): string[] {
  const kinds = "function|class|const|let|var|type|interface|enum";
  const header = new RegExp(`^@@ (?:${kinds}) (\\S+)(?: \\(only in [ab]/\\))? @@$`);
  return part.split("\n").flatMap((line) => header.exec(line)?.[1] ?? []);
}

// Text without trailing whitespace on its lines: what --by-declaration compares.
function tidy(text: string): string {
  return text
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n");
}

test("--tests adds test/, and the output never names a temporary or absolute path", async () => {
  const [from = "", to = ""] = PAIRS.at(-1) ?? [];
  const output = await diffStages(from, to, { tests: true });
  expect(output.split("\n")[0]).toBe(`${from} (a/) -> ${to} (b/): src/ and test/`);
  expect(output).toMatch(/^diff --git a\/test\/\S+\.test\.ts b\/test\//m);
  expect(output).not.toContain(ROOT);
  expect(output).not.toContain(tmpdir());
  expect(output).not.toMatch(/^index /m);
});

test("colour only when asked for: green additions, red removals", async () => {
  const plain = await diffStages("day-1", "day-2-v1");
  const coloured = await diffStages("day-1", "day-2-v1", { colour: true });
  expect(stripVTControlCharacters(plain)).toBe(plain);
  const lines = plain.split("\n");
  const added = lines.find((line) => /^\+(?!\+\+ )/.test(line)) ?? "";
  const removed = lines.find((line) => /^-(?!-- )/.test(line)) ?? "";
  expect(coloured).toContain(`\n${paint(true, "green", added)}\n`);
  expect(coloured).toContain(`\n${paint(true, "red", removed)}\n`);
  expect(stripVTControlCharacters(coloured)).toBe(plain);
});

test("a project equal to the stage but for line endings and generated files has no differences", async () => {
  const dir = projectFrom("day-1");
  const cli = join(dir, "src", "cli.ts");
  writeFileSync(cli, readFileSync(cli, "utf8").replaceAll("\n", "\r\n"));
  for (const junk of ["node_modules/cac", "dist", "__pycache__"]) {
    mkdirSync(join(dir, "src", junk), { recursive: true });
    writeFileSync(join(dir, "src", junk, "x.js"), "generated\n");
  }
  for (const file of [".env", "pnpm-lock.yaml", "cli.pyc"]) {
    writeFileSync(join(dir, "src", file), "ANTHROPIC_AUTH_TOKEN=sk-secret\n");
  }
  expect(await diffStageAndProject("day-1", dir)).toBe(
    "day-1 (a/) -> your project (b/): src/\nno differences\n",
  );
});

test("a line that differs only by the package name is not shown; the lines shown are the files' own", async () => {
  const dir = projectFrom("day-1");
  const cli = join(dir, "src", "cli.ts");
  // The stage says cac("agent-code"), the project's own name; the project says the stage's name.
  edit(cli, 'cac("agent-code")', 'cac("@agent-code/day-1")');
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "agent-code" }));
  expect(await diffStageAndProject("day-1", dir)).toContain("no differences");

  edit(cli, "cli.help();", "cli.help(); // mine");
  const output = await diffStageAndProject("day-1", dir);
  expect(output).toContain("\n-  cli.help();\n+  cli.help(); // mine\n");
  expect(output).not.toContain("<package-name>");
  expect(output).not.toMatch(/^[-+].*cac\(/m);
});

test("--src names the project's source folder; files pair up by their path inside it", async () => {
  const dir = projectFrom("day-1", "lib");
  edit(join(dir, "lib", "agent.ts"), "const trace: string[] = [];", "const trace: string[] = []; ");
  writeFileSync(join(dir, "lib", "notes.md"), "mine\n");
  const output = await diffStageAndProject("day-1", dir, { src: "lib" });
  expect(output.split("\n").slice(0, 4)).toEqual([
    "day-1 (a/) -> your project (b/): src/",
    " src/agent.ts => lib/agent.ts | 2 +-",
    " lib/notes.md                 | 1 +",
    " 2 files changed, 2 insertions(+), 1 deletion(-)",
  ]);
  expect(output).toContain("diff --git a/src/agent.ts b/lib/agent.ts\n--- a/src/agent.ts\n");
  expect(output).toContain("--- /dev/null\n+++ b/lib/notes.md\n@@ -0,0 +1 @@\n+mine\n");
});

// The lines of a diff that add or remove, without the ---/+++ lines.
function changes(diff: string): string[] {
  return diff.split("\n").filter((line) => /^[-+](?!-- |\+\+ )/.test(line));
}

// One file's part of the output: from its `diff --git` line to the next file's.
function filePart(diff: string, header: string): string {
  const parts = diff.split(/\n(?=diff --git )/);
  const part = parts.find((text) => text.startsWith(`${header}\n`));
  if (part === undefined) throw new Error(`no ${header} in:\n${diff}`);
  return part;
}

test("a file moved and edited shows as git's rename, with only the edited lines", async () => {
  const dir = projectFrom("day-1");
  const text = readFileSync(join(dir, "src", "agent.ts"), "utf8");
  mkdirSync(join(dir, "src", "core"));
  writeFileSync(
    join(dir, "src", "core", "agent.ts"),
    text.replace("const trace: string[] = [];", "const trace: string[] = []; // in order"),
  );
  rmSync(join(dir, "src", "agent.ts"));
  const output = await diffStageAndProject("day-1", dir);
  expect(output.split("\n").slice(0, 3)).toEqual([
    "day-1 (a/) -> your project (b/): src/",
    " src/agent.ts => src/core/agent.ts | 2 +-",
    " 1 file changed, 1 insertion(+), 1 deletion(-)",
  ]);
  const part = filePart(output, "diff --git a/src/agent.ts b/src/core/agent.ts");
  expect(part.split("\n").slice(0, 7)).toEqual([
    "diff --git a/src/agent.ts b/src/core/agent.ts",
    expect.stringMatching(/^similarity index (9\d)%$/),
    "rename from src/agent.ts",
    "rename to src/core/agent.ts",
    "--- a/src/agent.ts",
    "+++ b/src/core/agent.ts",
    expect.stringMatching(/^@@ -\d+,7 \+\d+,7 @@ /),
  ]);
  expect(changes(output)).toEqual([
    "-  const trace: string[] = [];",
    "+  const trace: string[] = []; // in order",
  ]);
});

test("a file moved unchanged shows the rename header alone and counts no line", async () => {
  const dir = projectFrom("day-1");
  mkdirSync(join(dir, "src", "core"));
  cpSync(join(dir, "src", "model.ts"), join(dir, "src", "core", "model.ts"));
  rmSync(join(dir, "src", "model.ts"));
  expect(await diffStageAndProject("day-1", dir)).toBe(
    [
      "day-1 (a/) -> your project (b/): src/",
      " src/model.ts => src/core/model.ts | 0",
      " 1 file changed",
      "",
      "diff --git a/src/model.ts b/src/core/model.ts",
      "similarity index 100%",
      "rename from src/model.ts",
      "rename to src/core/model.ts",
      "",
    ].join("\n"),
  );
});

test("a file split in two is renamed to its larger piece; the smaller one is a new file", async () => {
  const dir = projectFrom("day-1");
  const lines = readFileSync(join(dir, "src", "cli.ts"), "utf8").split("\n");
  // Seven tenths stay together: over git's 50% for a rename. The last element is the "" after
  // the final newline, so the tail keeps that newline.
  const at = Math.round(lines.length * 0.7);
  const head = lines.slice(0, at);
  const tail = lines.slice(at);
  mkdirSync(join(dir, "src", "cli"));
  writeFileSync(join(dir, "src", "cli", "main.ts"), `${head.join("\n")}\n`);
  writeFileSync(join(dir, "src", "cli", "help.ts"), tail.join("\n"));
  rmSync(join(dir, "src", "cli.ts"));
  const output = await diffStageAndProject("day-1", dir);
  const moved = tail.length - 1;
  const stat = output.split("\n");
  expect(stat).toContainEqual(` src/cli.ts => src/cli/main.ts | ${moved} ${"-".repeat(moved)}`);
  expect(stat).toContainEqual(
    expect.stringMatching(new RegExp(`^ src/cli/help\\.ts +\\| ${moved} \\+{${moved}}$`)),
  );
  const renamed = filePart(output, "diff --git a/src/cli.ts b/src/cli/main.ts");
  expect(renamed).toMatch(/\nrename from src\/cli\.ts\nrename to src\/cli\/main\.ts\n/);
  expect(changes(renamed)).toEqual(tail.slice(0, -1).map((line) => `-${line}`));
  const added = filePart(output, "diff --git a/src/cli/help.ts b/src/cli/help.ts");
  expect(added).toContain("\n--- /dev/null\n+++ b/src/cli/help.ts\n");
  expect(changes(added)).toEqual(tail.slice(0, -1).map((line) => `+${line}`));
});

test("a deleted file and a new one with little in common stay a deletion and an addition", async () => {
  const dir = projectFrom("day-1");
  const text = readFileSync(join(dir, "src", "tools.ts"), "utf8");
  const lines = text.split("\n");
  // A third of the file: under git's 50%.
  writeFileSync(
    join(dir, "src", "registry.ts"),
    `${lines.slice(0, lines.length / 3).join("\n")}\n`,
  );
  rmSync(join(dir, "src", "tools.ts"));
  const output = await diffStageAndProject("day-1", dir);
  expect(output).not.toContain("rename");
  expect(output).toContain("diff --git a/src/registry.ts b/src/registry.ts\n--- /dev/null\n");
  expect(output).toContain(
    "diff --git a/src/tools.ts b/src/tools.ts\n--- a/src/tools.ts\n+++ /dev/null\n",
  );
});

test("files come in git's order: a folder before the file whose name it begins", async () => {
  const dir = projectFrom("day-1");
  mkdirSync(join(dir, "src", "tools"));
  writeFileSync(join(dir, "src", "tools", "extra.ts"), "export const extra = 1;\n");
  writeFileSync(join(dir, "src", "tools.ts"), "// emptied\n");
  const output = await diffStageAndProject("day-1", dir);
  expect(output.split("\n").filter((line) => line.startsWith("diff --git "))).toEqual([
    "diff --git a/src/tools/extra.ts b/src/tools/extra.ts",
    "diff --git a/src/tools.ts b/src/tools.ts",
  ]);
});

// day-1's tools.ts split as day-5-v1 splits day-4-v3's, each piece with a new top: tools/index.ts
// takes the types and the list, tools/echo.ts echo, tools/registry.ts the registry with two lines
// edited; tools.ts goes. No piece holds half of it, so git finds no rename.
function splitTools(dir: string): void {
  const lines = readFileSync(join(dir, "src", "tools.ts"), "utf8").split("\n");
  // 1-based line numbers of day-1's tools.ts, the end included.
  const take = (first: number, last: number) => lines.slice(first - 1, last);
  const write = (name: string, text: string[]) =>
    writeFileSync(join(dir, "src", "tools", name), text.join("\n"));
  mkdirSync(join(dir, "src", "tools"));
  write("index.ts", [
    "// The tool types and the list of tools.",
    'import { echo } from "./echo.ts";',
    'import { ToolRegistry } from "./registry.ts";',
    ...take(3, 10),
    "",
    ...take(38, 43),
  ]);
  write("echo.ts", ["// echo: repeats its text.", ...take(11, 14), ""]);
  write("registry.ts", [
    "// The registry, which runs a call by its tool's name.",
    'import type { ToolCall, ToolResult } from "../model.ts";',
    'import type { Tool } from "./index.ts";',
    ...take(15, 25),
    "      // An unknown name goes back to the model, with the names there are.",
    ...take(27, 33),
    "    return { toolCallId: call.id, content: tool.run(call.arguments ?? {}), isError: false };",
    ...take(35, 36),
    "",
  ]);
  rmSync(join(dir, "src", "tools.ts"));
}

test("a file split in pieces shows each moved run as one line on both sides, counted apart", async () => {
  const dir = projectFrom("day-1");
  splitTools(dir);
  const output = await diffStageAndProject("day-1", dir);
  expect(output).toBe(
    [
      "day-1 (a/) -> your project (b/): src/",
      " src/tools/echo.ts     | 1 +",
      " src/tools/index.ts    | 3 +++",
      " src/tools/registry.ts | 7 +++++++",
      " src/tools.ts          | 6 ------",
      " 4 files changed, 11 insertions(+), 6 deletions(-), 36 lines moved",
      "",
      "diff --git a/src/tools/echo.ts b/src/tools/echo.ts",
      "--- /dev/null",
      "+++ b/src/tools/echo.ts",
      "@@ -0,0 +1,5 @@",
      "+// echo: repeats its text.",
      "… 4 lines moved from src/tools.ts (echo) …",
      "diff --git a/src/tools/index.ts b/src/tools/index.ts",
      "--- /dev/null",
      "+++ b/src/tools/index.ts",
      "@@ -0,0 +1,17 @@",
      "+// The tool types and the list of tools.",
      '+import { echo } from "./echo.ts";',
      '+import { ToolRegistry } from "./registry.ts";',
      "… 14 lines moved from src/tools.ts (ToolFunction, Tool, defaultTools) …",
      "diff --git a/src/tools/registry.ts b/src/tools/registry.ts",
      "--- /dev/null",
      "+++ b/src/tools/registry.ts",
      "@@ -0,0 +1,25 @@",
      "+// The registry, which runs a call by its tool's name.",
      '+import type { ToolCall, ToolResult } from "../model.ts";',
      '+import type { Tool } from "./index.ts";',
      "… 11 lines moved from src/tools.ts (ToolRegistry) …",
      "+      // An unknown name goes back to the model, with the names there are.",
      "… 7 lines moved from src/tools.ts …",
      "+    return { toolCallId: call.id, content: tool.run(call.arguments ?? {}), isError: false };",
      "+  }",
      "+}",
      "diff --git a/src/tools.ts b/src/tools.ts",
      "--- a/src/tools.ts",
      "+++ /dev/null",
      "@@ -1,42 +0,0 @@",
      "-// Tools the model may ask for, and the registry that runs them by name.",
      '-import type { ToolCall, ToolResult } from "./model.ts";',
      "… 8 lines moved to src/tools/index.ts (ToolFunction, Tool) …",
      "… 4 lines moved to src/tools/echo.ts (echo) …",
      "… 11 lines moved to src/tools/registry.ts (ToolRegistry) …",
      "-      // The model named a tool we do not have: tell it which ones exist instead of failing.",
      "… 7 lines moved to src/tools/registry.ts …",
      "-    return { toolCallId: call.id, content: tool.run(call.arguments), isError: false };",
      "-  }",
      "-}",
      "… 6 lines moved to src/tools/index.ts (defaultTools) …",
      "",
    ].join("\n"),
  );
  // In colour, a moved run's line is neither an addition nor a removal.
  const coloured = await diffStageAndProject("day-1", dir, { colour: true });
  expect(coloured).toContain(
    `\n${paint(true, "cyan", "… 4 lines moved from src/tools.ts (echo) …")}\n`,
  );
  expect(stripVTControlCharacters(coloured)).toBe(output);
});

test("no move: lines from a file that stays, from import lines, or a run of under 3 lines or 20 letters and digits", async () => {
  const dir = projectFrom("day-1");
  const agent = readFileSync(join(dir, "src", "agent.ts"), "utf8").split("\n");
  const tools = readFileSync(join(dir, "src", "tools.ts"), "utf8").split("\n");
  // 1-based line numbers, the end included.
  const take = (lines: string[], first: number, last: number) => lines.slice(first - 1, last);
  const loop = [
    // A comment line, then two import lines: three lines, but imports never move.
    ...take(agent, 2, 4),
    // Three lines with 11 letters: `  trace: string[];`, `}`, ``.
    ...take(agent, 8, 10),
    // Two lines.
    ...take(agent, 35, 36),
    // echo, from tools.ts, which stays.
    ...take(tools, 12, 14),
    "",
  ];
  writeFileSync(join(dir, "src", "loop.ts"), loop.join("\n"));
  rmSync(join(dir, "src", "agent.ts"));
  const output = await diffStageAndProject("day-1", dir);
  expect(output).not.toContain("moved");
  expect(changes(filePart(output, "diff --git a/src/loop.ts b/src/loop.ts"))).toEqual(
    loop.slice(0, -1).map((line) => `+${line}`),
  );
});

test("day-4-v3 -> day-5-v1 shows the split of tools.ts as moves: each tool's file shows its new lines", async () => {
  const output = await diffStages("day-4-v3", "day-5-v1");
  const readFile = filePart(output, "diff --git a/src/tools/read-file.ts b/src/tools/read-file.ts");
  // Its top, its imports and its Tool object: read_file's code itself came from tools.ts.
  expect(changes(readFile).length).toBeLessThanOrEqual(30);
  expect(readFile).toMatch(
    /\n… \d+ lines moved from src\/tools\.ts \([^)]*readTextFile, lineWindow, positive\) …\n/,
  );
  expect(readFile).not.toContain("\n+export async function readTextFile(");
  const old = filePart(output, "diff --git a/src/tools.ts b/src/tools.ts");
  expect(old).toMatch(
    /\n… \d+ lines moved to src\/tools\/read-file\.ts \([^)]*readTextFile, lineWindow, positive\) …\n/,
  );
  // What is left of the 711 lines: the imports, the first lines of what gained `export`, and the
  // old list of tools, whose objects each tool's file now holds one level less indented.
  expect(changes(old).length).toBeLessThan(250);
  // Every moved run comes from tools.ts, and its lines add up on both sides.
  const runs = output.split("\n").flatMap((line) => {
    const run = MOVED.exec(line);
    return run === null ? [] : [{ count: Number(run[1]), way: run[2], file: run[3] }];
  });
  const moved = (way: string) =>
    runs.filter((run) => run.way === way).reduce((sum, run) => sum + run.count, 0);
  expect(new Set(runs.filter((run) => run.way === "from").map((run) => run.file))).toEqual(
    new Set(["src/tools.ts"]),
  );
  expect(moved("from")).toBe(moved("to"));
  expect(moved("from")).toBeGreaterThan(400);
  expect(output.split("\n\n")[0]?.split("\n").at(-1)).toMatch(
    new RegExp(
      `^ \\d+ files changed, \\d+ insertions\\(\\+\\), \\d+ deletions\\(-\\), ${moved("from")} lines moved$`,
    ),
  );
});

test("no stage pair before Day 5 shows a moved run: their diffs are git's, byte for byte", () => {
  const moving = PAIRS.filter(
    ([from, to]) =>
      !to.startsWith("day-5") &&
      compareStages(from, to, { tests: true }).some((file) => file.moved > 0),
  );
  expect(moving).toEqual([]);
});

// Rewrites a file's top-level declarations: `change` gets the text of each (with the comment
// lines directly above it, as the docs cut them) and gives back the texts to write, in the order to
// write them, after the file's top (its comment and imports). There must be nothing but blank
// lines between two declarations of the file, so that no line is lost.
function rewrite(file: string, change: (texts: string[]) => string[]): void {
  const text = readFileSync(file, "utf8");
  const found = pieces(text, file);
  const texts = found.map((piece, index) => {
    const between = text.slice(piece.to, found[index + 1]?.from ?? text.length);
    if (between.trim() !== "") throw new Error(`${file} has ${between} between declarations`);
    return text.slice(piece.from, piece.to);
  });
  writeFileSync(file, `${text.slice(0, found[0]?.from ?? 0)}${change(texts).join("\n\n")}\n`);
}

const SEARCH = "diff --git a/src/search.ts b/src/search.ts";

// day-3-v4 as a learner who typed search.ts's declarations in the opposite order to the stage's.
function reversedSearch(): { dir: string; search: string } {
  const dir = projectFrom("day-3-v4");
  const search = join(dir, "src", "search.ts");
  rewrite(search, (texts) => [...texts].reverse());
  return { dir, search };
}

describe("--by-declaration", () => {
  const stageSearch = join(stageDir("day-3-v4"), "src", "search.ts");

  test("declarations and imports in another order are no difference", async () => {
    const { dir } = reversedSearch();
    // walk.ts with its four import lines the other way round.
    const walk = join(dir, "src", "walk.ts");
    const lines = readFileSync(walk, "utf8").split("\n");
    const imports = lines.filter((line) => line.startsWith("import "));
    expect(imports).toHaveLength(4);
    writeFileSync(walk, [...lines.slice(0, 3), ...imports.reverse(), ...lines.slice(7)].join("\n"));
    // Line by line, most of search.ts differs, and walk.ts's imports do.
    const plain = await diffStageAndProject("day-3-v4", dir);
    expect(changes(filePart(plain, SEARCH)).length).toBeGreaterThan(200);
    expect(changes(filePart(plain, "diff --git a/src/walk.ts b/src/walk.ts"))).not.toEqual([]);
    expect(await diffStageAndProject("day-3-v4", dir, { byDeclaration: true })).toBe(
      "day-3-v4 (a/) -> your project (b/): src/, by declaration\nno differences\n",
    );
  });

  test("one changed line shows in its declaration alone, at the files' lines", async () => {
    const { dir, search } = reversedSearch();
    const old = '  if (value === undefined || value === "") return DEFAULT_TIMEOUT_MS;';
    edit(search, old, "  if (!value) return DEFAULT_TIMEOUT_MS;");
    const output = await diffStageAndProject("day-3-v4", dir, { byDeclaration: true });
    // timeoutOf's first line, on each side: the hunk starts there (2 lines above the change).
    const first = "function timeoutOf(env: Env): number {";
    const stageLines = readFileSync(stageSearch, "utf8").split("\n");
    const at = stageLines.indexOf(first) + 1;
    const mine = readFileSync(search, "utf8").split("\n").indexOf(first) + 1;
    expect(at).not.toBe(mine);
    expect(output).toBe(
      [
        "day-3-v4 (a/) -> your project (b/): src/, by declaration",
        " src/search.ts | 2 +- (1 declaration)",
        " 1 file changed, 1 declaration changed, 1 insertion(+), 1 deletion(-)",
        "",
        SEARCH,
        "--- a/src/search.ts",
        "+++ b/src/search.ts",
        "@@ function timeoutOf @@",
        `@@ -${at},6 +${mine},6 @@`,
        ` ${first}`,
        "   const value = env.AGENT_CODE_SEARCH_TIMEOUT_MS;",
        `-${old}`,
        "+  if (!value) return DEFAULT_TIMEOUT_MS;",
        ...stageLines.slice(at + 2, at + 5).map((line) => ` ${line}`),
        "",
      ].join("\n"),
    );
    // In colour, a declaration's header line stands out from a hunk's.
    const coloured = await diffStageAndProject("day-3-v4", dir, {
      byDeclaration: true,
      colour: true,
    });
    expect(coloured).toContain(`\n${paint(true, "cyan", "@@ function timeoutOf @@")}\n`);
    expect(stripVTControlCharacters(coloured)).toBe(output);
  });

  test("only in the stage: removed; only in the project: added, after the stage's", async () => {
    const { dir, search } = reversedSearch();
    const hidden = extractCode(readFileSync(stageSearch, "utf8"), "search.ts", "hidden");
    const extra = ["// Mine: not in the stage.", "function extra(): number {", "  return 1;", "}"];
    // The learner's file has extra first and no hidden.
    rewrite(search, (texts) => [extra.join("\n"), ...texts.filter((text) => text !== hidden)]);
    expect(readFileSync(search, "utf8")).not.toContain("function hidden(");
    const output = await diffStageAndProject("day-3-v4", dir, { byDeclaration: true });
    const part = filePart(output, SEARCH);
    expect(part.split("\n").filter((line) => /^@@ [^-]/.test(line))).toEqual([
      "@@ function hidden (only in a/) @@",
      "@@ function extra (only in b/) @@",
    ]);
    expect(changes(part)).toEqual([
      ...hidden.split("\n").map((line) => `-${line}`),
      ...extra.map((line) => `+${line}`),
    ]);
    expect(output.split("\n")[1]).toBe(" src/search.ts | 8 ++++---- (2 declarations)");
    expect(output.split("\n")[2]).toBe(
      " 1 file changed, 2 declarations changed, 4 insertions(+), 4 deletions(-)",
    );
  });

  test("a file that does not parse is compared line by line, with a line saying so", async () => {
    const { dir, search } = reversedSearch();
    edit(search, "function timeoutOf(env: Env): number {", "function timeoutOf(env: Env: number {");
    const plain = await diffStageAndProject("day-3-v4", dir);
    const output = await diffStageAndProject("day-3-v4", dir, { byDeclaration: true });
    const lines = output.split("\n");
    const note = lines.indexOf(SEARCH) + 1;
    expect(lines[note]).toMatch(
      /^… b\/src\/search\.ts does not parse: .+; compared line by line …$/,
    );
    // Everything else is the plain diff: its title says by declaration.
    const [title, ...rest] = plain.split("\n");
    expect(lines.toSpliced(note, 1)).toEqual([`${title}, by declaration`, ...rest]);
  });
});

describe("the command line", () => {
  const run = (args: string[]) =>
    runCli(["node", "--import", "tsx", SCRIPT], args, { env: { INIT_CWD: ROOT } });

  test("prints the diff without colour when stdout is not a terminal", async () => {
    const result = await run(["day-1", "day-2-v1"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(await diffStages("day-1", "day-2-v1"));
  }, 30_000);

  test("--by-declaration compares by declaration", async () => {
    const result = await run(["day-3-v3", "day-3-v4", "--by-declaration"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(await diffStages("day-3-v3", "day-3-v4", { byDeclaration: true }));
    expect(result.stdout.split("\n")[0]).toBe(
      "day-3-v3 (a/) -> day-3-v4 (b/): src/, by declaration",
    );
  }, 30_000);

  test("--carried shows a challenge's answers on the stage a learner arrives from", async () => {
    const result = await run(["day-3-v4", "day-3-challenges", "--carried"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(await diffRebased("day-3-v4", "day-3-challenges"));
    expect(result.stdout.split("\n")[0]).toBe(
      "day-3-v4 (a/) -> day-3-challenges on day-3-v4 (b/): src/",
    );
  }, 30_000);

  test("one stage alone is diffed against the stage it builds on", async () => {
    const [base = "", stage = ""] = PAIRS.at(-1) ?? [];
    const result = await run([stage]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout.split("\n")[0]).toBe(`${base} (a/) -> ${stage} (b/): src/`);
    expect(result.stdout).toBe(await diffStages(base, stage));
  }, 30_000);

  test.each([
    [["day-1"], "error: day-1 builds on no other stage: give two stages"],
    [["day-9"], "error: unknown stage: day-9 (stages: "],
    [["day-1", "day-9"], "error: unknown stage: day-9 (stages: "],
    [["day-1", "--project", "no/such/dir"], `error: not a directory: ${join(ROOT, "no/such/dir")}`],
    [["day-1", "day-2-v1", "--src", "lib"], "error: --src goes with --project"],
    [["day-3-challenges", "--carried"], "error: --carried takes two stages"],
    [
      ["day-5-v5", "day-5-challenges", "--carried"],
      "error: day-5-challenges's changes to agent.ts, cli.ts, tools/bash.ts, tools/index.ts do not merge onto day-5-v5",
    ],
  ])(
    "%j is a usage error: one error line, exit 2",
    async (args, message) => {
      const result = await run(args);
      expect(result.exitCode).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr.trimEnd().split("\n")).toEqual([expect.stringContaining(message)]);
      expect(result.stderr.startsWith(message)).toBe(true);
    },
    30_000,
  );
});

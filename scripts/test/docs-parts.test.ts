import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import { expect, onTestFinished, test } from "vitest";
import { ROOT, stageDir } from "../lib/command.ts";
import { extractCode, parseFile, pieces } from "../lib/docs-code.ts";
import {
  applyBlock,
  applyPatch,
  changedLines,
  type FilePatch,
  type Files,
  type Lesson,
  lessonsOf,
  placeBlock,
  replayLesson,
  STARTER,
  stageFiles,
  stagePatch,
  usedNames,
} from "../lib/docs-lessons.ts";
import { type Block, fenceConflict, scanPage } from "../lib/docs-pages.ts";
import { normalise, shortenRun } from "../lib/docs-replays.ts";
import { generateDocs } from "../lib/docs-tree.ts";
import { compareStages } from "../lib/stage-diff.ts";

const SOURCE = [
  "// The file's own comment, kept apart by a blank line.",
  "",
  "// Says hi.",
  "/** Twice. */",
  "export function greet(name: string): string;",
  "export function greet(name: unknown): string {",
  "  return String(name);",
  "} // the end",
  "",
  "export class Greeter {",
  "  // Who is greeted.",
  "  readonly name = 'you';",
  "",
  "  async greet(): Promise<string> {",
  "    return this.name;",
  "  }",
  "}",
  "",
  "interface Shape {",
  "  // The only member.",
  "  area(): number;",
  "}",
  "",
  "const LIMIT = 3,",
  "  OTHER = 4;",
  "",
].join("\n");

test("a declaration comes with export, the comment lines right above it and a trailing comment", () => {
  expect(extractCode(SOURCE, "x.ts", "greet")).toBe(
    [
      "// Says hi.",
      "/** Twice. */",
      "export function greet(name: string): string;",
      "export function greet(name: unknown): string {",
      "  return String(name);",
      "} // the end",
    ].join("\n"),
  );
  expect(extractCode(SOURCE, "x.ts", "OTHER")).toBe("const LIMIT = 3,\n  OTHER = 4;");
});

test("a class or interface member loses its indentation", () => {
  expect(extractCode(SOURCE, "x.ts", "Greeter.greet")).toBe(
    "async greet(): Promise<string> {\n  return this.name;\n}",
  );
  expect(extractCode(SOURCE, "x.ts", "Greeter.name")).toBe(
    "// Who is greeted.\nreadonly name = 'you';",
  );
  expect(extractCode(SOURCE, "x.ts", "Shape.area")).toBe("// The only member.\narea(): number;");
});

test("no name is the whole file; a missing name or member is an error", () => {
  expect(extractCode(SOURCE, "x.ts")).toBe(SOURCE.replace(/\n$/, ""));
  expect(() => extractCode(SOURCE, "x.ts", "greeet")).toThrow(
    "x.ts has no top-level declaration greeet",
  );
  expect(() => extractCode(SOURCE, "x.ts", "Greeter.wave")).toThrow(
    "Greeter in x.ts has no member wave",
  );
  // Found by the parser: text that only looks like a declaration is not one.
  expect(() => extractCode("const s = `function fake() {}`;\n", "x.ts", "fake")).toThrow(
    "no top-level declaration fake",
  );
  expect(() => extractCode("function (\n", "x.ts", "f")).toThrow("x.ts does not parse");
});

test("replays normalise the clock, the port and the project directory", () => {
  const text = [
    "cwd: /home/me/repo/packages/day-2-v3",
    "observation: 2025-01-02 03:04:05 GMT+5:30",
    'tool_call: echo {"text":"2025-01-02 03:04:05 UTC"}',
    "error: could not reach http://127.0.0.1:41234/v1/messages",
  ].join("\n");
  expect(normalise(text, ["/home/me/repo/packages/day-2-v3"])).toBe(
    [
      "cwd: /your/project",
      "observation: 2026-05-20 14:32:00 UTC",
      'tool_call: echo {"text":"2026-05-20 14:32:00 UTC"}',
      "error: could not reach http://127.0.0.1:PORT/v1/messages",
    ].join("\n"),
  );
});

test("replays normalise a Day 6 session: its id, its home folder and its project's hash", () => {
  const scenario = "/tmp/agent-code-scenario-Ab12Cd";
  const text = [
    "session: 20261206-170455-0c9e1f (resumed, 2 messages)",
    `error: ${scenario}/home/projects/work-0123456789ab/sessions is a symlink; agent-code keeps sessions only in real folders`,
    `cwd: ${scenario}/work`,
    "the id 20261206-170455-0c9e1fz is not one",
  ].join("\n");
  expect(normalise(text, [])).toBe(
    [
      "session: 20261201-181502-3f9a1c (resumed, 2 messages)",
      "error: ~/.agent-code/projects/work-1a2b3c4d5e6f/sessions is a symlink; agent-code keeps sessions only in real folders",
      "cwd: /your/project",
      "the id 20261206-170455-0c9e1fz is not one",
    ].join("\n"),
  );
});

test("a long replay is shortened: long lines cut at 100 columns, a repeated round counted", () => {
  const call = 'tool_call: read_file {"path":"notes.txt"}';
  const seen = `observation: ${"x".repeat(120)}`;
  const cut = `${seen.slice(0, 99)}…`;
  const run = [
    "$ agent-code 'Read notes.txt'",
    ...[1, 2, 3].flatMap(() => [call, seen]),
    "compacted: 41 messages (about 9000 tokens) into 9 (about 1500 tokens)",
    call,
    seen,
    call,
    seen,
    'tool_call: read_file {"path":"other.txt"}',
    "observation: short",
    "final: Tuesday.",
  ].join("\n");
  expect(shortenRun(run).split("\n")).toEqual([
    "$ agent-code 'Read notes.txt'",
    call,
    cut,
    "[… the same round 2 more times]",
    "compacted: 41 messages (about 9000 tokens) into 9 (about 1500 tokens)",
    // A line between rounds ends the count: the round after it is shown again.
    call,
    cut,
    "[… the same round 1 more time]",
    'tool_call: read_file {"path":"other.txt"}',
    "observation: short",
    "final: Tuesday.",
  ]);
  // A short run with no repeats is unchanged.
  expect(shortenRun("$ agent-code hi\nfinal: hello")).toBe("$ agent-code hi\nfinal: hello");
});

test("a marker needs a fenced block on the next line, and a figure its closing on its line", () => {
  const page = scanPage(
    "docs/x.md",
    [
      "<!-- code: day-1/src/agent.ts#runAgent -->",
      "",
      "```ts",
      "```",
      "Lines: <!-- stat: day-1.lines -->194",
      "<!-- replay: day-1/echo-round-trip -->",
      "```text",
    ].join("\n"),
  );
  expect(page.problems).toEqual([
    {
      file: "docs/x.md",
      line: 1,
      message:
        "<!-- code: day-1/src/agent.ts#runAgent --> must be followed by a fenced block on the next line",
    },
    {
      file: "docs/x.md",
      line: 5,
      message: "a <!-- stat: … --> figure needs its closing <!-- /stat --> on the same line",
    },
    {
      file: "docs/x.md",
      line: 6,
      message: "the block after <!-- replay: day-1/echo-round-trip --> never ends",
    },
  ]);
});

test("a code marker's placement line sits between it and its fence; the block is still its code", () => {
  const page = scanPage(
    "docs/x.md",
    [
      "<!-- code: day-1/src/tools.ts#echo -->",
      "In `src/tools.ts`, after `Tool`:",
      "",
      "```ts",
      "const echo = 1;",
      "```",
      "<!-- code: day-1/src/tools.ts#Tool -->",
      "In `src/tools.ts`, after `ToolFunction`:",
      "```ts",
      "```",
      "<!-- replay: day-1/echo-round-trip -->",
      "Not a placement line.",
      "```text",
      "```",
    ].join("\n"),
  );
  expect(
    page.blocks.map(({ placement, from, to, content }) => ({ placement, from, to, content })),
  ).toEqual([
    { placement: "In `src/tools.ts`, after `Tool`:", from: 4, to: 5, content: "const echo = 1;" },
    { placement: "In `src/tools.ts`, after `ToolFunction`:", from: 9, to: 9, content: "" },
  ]);
  // Only a code block has one.
  expect(page.problems.map((problem) => problem.message)).toEqual([
    "<!-- replay: day-1/echo-round-trip --> must be followed by a fenced block on the next line",
  ]);
});

// A code block as a page holds it, before docs:generate fills it.
function codeBlock(arg: string): Block {
  const [block] = scanPage("docs/x.md", `<!-- code: ${arg} -->\n\`\`\`ts\n\`\`\``).blocks;
  if (block === undefined) throw new Error(`no block in ${arg}`);
  return block;
}

test("a placement line says where the replay puts a code block's code, in the files as they were", () => {
  const files = stageFiles("day-2-v3");
  const place = (arg: string) => placeBlock(files, codeBlock(arg)).placement;
  // A file that does not exist yet; then, in it, a declaration below the imports and one after
  // the declaration nearest before it in the stage that the file has.
  expect(place("day-3-v1/src/fs-safety.ts#imports")).toBe("New file `src/fs-safety.ts`:");
  expect(place("day-3-v1/src/fs-safety.ts#SKIP_DIRS")).toBe(
    "In `src/fs-safety.ts`, below the imports:",
  );
  expect(place("day-3-v1/src/fs-safety.ts#escapes")).toBe(
    "In `src/fs-safety.ts`, after `SKIP_DIRS`:",
  );
  // The imports of a file that has some, and a declaration it has.
  expect(place("day-3-v1/src/tools.ts#imports")).toBe(
    "In `src/tools.ts`, replace the imports at the top:",
  );
  expect(place("day-3-v1/src/tools.ts#ToolFunction")).toBe(
    "In `src/tools.ts`, replace `ToolFunction`:",
  );
  // A class's member: one it has, and one that goes after another.
  const day2 = stageFiles("day-2-v1");
  const member = (arg: string) => placeBlock(day2, codeBlock(arg)).placement;
  expect(member("day-2-v2/src/tools.ts#ToolRegistry.run")).toBe(
    "In `src/tools.ts`, in `ToolRegistry`, replace `run`:",
  );
  expect(member("day-2-v2/src/tools.ts#ToolRegistry.list")).toBe(
    "In `src/tools.ts`, in `ToolRegistry`, after `register`:",
  );
  // The starter's files: a top that is only a comment, its placeholder line, a whole file.
  const starter = stageFiles(STARTER);
  const first = (arg: string) => placeBlock(starter, codeBlock(arg)).placement;
  expect(first("day-1/src/model.ts#imports")).toBe(
    "In `src/model.ts`, replace the comment at the top:",
  );
  expect(first("day-1/src/cli.ts#process.exitCode")).toBe(
    "In `src/cli.ts`, replace `console.error(…)`:",
  );
  expect(first("day-1/src/agent.ts")).toBe("The whole of `src/agent.ts`:");
});

test("content that would close its fence is refused", () => {
  const [block] = scanPage("docs/x.md", "<!-- code: day-1/README.md -->\n```md\n```").blocks;
  if (block === undefined) throw new Error("no block found");
  expect(fenceConflict(block, "# Day 1\n\n```sh\npnpm start\n```")).toBe(
    "its line 5 would close the backtick fence; use a longer fence",
  );
  expect(fenceConflict({ ...block, fence: "````" }, "```sh\npnpm start\n```")).toBeUndefined();
});

test("Day 2's replays show the provider: header line only from the section that adds it on", () => {
  const page = readFileSync(join(ROOT, "docs", "day-2.md"), "utf8");
  const touches = page.indexOf("\n## Finishing touches\n");
  expect(touches).toBeGreaterThan(0);
  const replays = [...page.matchAll(/<!-- replay: [^>]+ -->\n```text\n([\s\S]*?)```/g)];
  const before = replays.filter((match) => (match.index ?? 0) < touches);
  const after = replays.filter((match) => (match.index ?? 0) > touches);
  expect(before.length).toBeGreaterThan(3);
  expect(before.filter((match) => /^provider: /m.test(match[1] ?? ""))).toEqual([]);
  expect(after.some((match) => /^provider: mock {2}model: /m.test(match[1] ?? ""))).toBe(true);
});

// tools.ts moved to tools/index.ts with one line changed, and a new tools/echo.ts: the parts of a
// diff as stage-diff prints them, with the rename git finds.
const BEFORE: Files = new Map([
  ["tools.ts", "export type Tool = {};\nconst a = 1;\nconst b = 2;\n"],
]);
const PATCH: FilePatch[] = [
  { from: undefined, to: "src/tools/echo.ts", hunks: ["@@ -0,0 +1 @@", "+export const echo = 1;"] },
  {
    from: "src/tools.ts",
    to: "src/tools/index.ts",
    hunks: [
      "@@ -1,3 +1,3 @@",
      " export type Tool = {};",
      " const a = 1;",
      "-const b = 2;",
      "+const b = 3;",
    ],
  },
];

test("a diff applies as git apply applies it: a new file made, a renamed file moved and edited", () => {
  const files = new Map(BEFORE);
  expect(applyPatch(files, PATCH)).toBeUndefined();
  expect(Object.fromEntries(files)).toEqual({
    "tools/echo.ts": "export const echo = 1;\n",
    "tools/index.ts": "export type Tool = {};\nconst a = 1;\nconst b = 3;\n",
  });
});

test("a hunk finds its lines where earlier lines moved them, but not lines a code block changed", () => {
  const hunk = ["@@ -3,3 +3,3 @@", " b", "-c", "+C", " d"];
  const part = (hunks: string[]): FilePatch[] => [{ from: "src/x.ts", to: "src/x.ts", hunks }];
  // Two lines more above it: found two lines further down.
  const moved: Files = new Map([["x.ts", "new\nnew\na\nb\nc\nd\ne\n"]]);
  expect(applyPatch(moved, part(hunk))).toBeUndefined();
  expect(moved.get("x.ts")).toBe("new\nnew\na\nb\nC\nd\ne\n");
  // Its change typed already (a code block showed it): the removed line is not there, so the
  // hunk fails, and the file is as it was. Nothing is skipped for being there already.
  const typed: Files = new Map([["x.ts", "a\nb\nC\nd\ne\n"]]);
  expect(applyPatch(typed, part(hunk))).toEqual({
    message:
      "does not apply: hunk 1 of src/x.ts (@@ -3,3 +3,3 @@) does not match your file: its context and removed lines are not there as the page built it",
    hunk: { path: "src/x.ts", index: 1, header: "@@ -3,3 +3,3 @@" },
  });
  expect(typed.get("x.ts")).toBe("a\nb\nC\nd\ne\n");
  // A hunk with no context after its change matches only at the file's end.
  const end = ["@@ -4,2 +4,3 @@", " d", " e", "+f"];
  expect(applyPatch(new Map([["x.ts", "a\nb\nc\nd\ne\n"]]), part(end))).toBeUndefined();
  expect(applyPatch(new Map([["x.ts", "a\nb\nc\nd\ne\nmore\n"]]), part(end))).toMatchObject({
    hunk: { index: 1 },
  });
});

test("a diff that makes a file the page made already, or changes one it has not, fails whole", () => {
  const files: Files = new Map([["tools/echo.ts", "export const echo = 1;\n"], ...BEFORE]);
  expect(applyPatch(files, PATCH)?.message).toBe(
    "makes src/tools/echo.ts, which the page has made already",
  );
  expect(applyPatch(new Map(), PATCH.slice(1))?.message).toBe(
    "changes src/tools.ts, which the page has not made",
  );
  expect([...files.keys()]).toEqual(["tools/echo.ts", "tools.ts"]);
});

const AFTER: Files = new Map([
  ["tools/index.ts", "export type Tool = {};\nconst a = 1;\nconst b = 3;\n"],
  ["tools/echo.ts", "export const echo = 1;\n"],
]);
const RENAMES = new Map([["tools.ts", "tools/index.ts"]]);

test("a moved file counts by the lines its move changes, as stage-stats counts it", () => {
  // One line out and one in for the move, and the new file's line and final newline.
  expect(changedLines(BEFORE, AFTER, RENAMES)).toBe(4);
  // Path by path, the move is all of tools.ts out and all of tools/index.ts in.
  expect(changedLines(BEFORE, AFTER)).toBe(10);
});

// A move block as a page holds it, before docs:generate fills its line.
function moveBlock(arg: string): Block {
  const [block] = scanPage("docs/x.md", `<!-- move: ${arg} -->\n<!-- /move -->\n`).blocks;
  if (block === undefined) throw new Error(`no block in ${arg}`);
  return block;
}

const SPLIT_STAGE = "day-5-v1";
const readStage = (stage: string, path: string) =>
  readFileSync(join(stageDir(stage), "src", path), "utf8");

test("a move marker runs to its closing line, like a checkpoint's", () => {
  const page = scanPage(
    "docs/x.md",
    ["<!-- move: day-5-v1 src/tools.ts#echo src/tools/echo.ts -->", "", "Text."].join("\n"),
  );
  expect(page.blocks).toEqual([]);
  expect(page.problems).toEqual([
    {
      file: "docs/x.md",
      line: 1,
      message:
        "<!-- move: day-5-v1 src/tools.ts#echo src/tools/echo.ts --> needs a <!-- /move --> line after its box",
    },
  ]);
});

test("a move block takes declarations out of their file and puts them where the stage has them, in a new file", () => {
  const files = stageFiles("day-4-v3");
  // Named in any order: they go in the stage's, with the comment lines above each.
  const block = moveBlock(
    "day-5-v1 src/tools.ts#positive,readTextFile,lineWindow,MAX_READ_BYTES src/tools/read-file.ts",
  );
  expect(applyBlock(files, block)).toBeUndefined();
  const stage = readStage(SPLIT_STAGE, "tools/read-file.ts");
  expect(files.get("tools/read-file.ts")).toBe(
    `${["MAX_READ_BYTES", "readTextFile", "lineWindow", "positive"]
      .map((name) => extractCode(stage, "read-file.ts", name))
      .join("\n\n")}\n`,
  );
  const left = files.get("tools.ts") ?? "";
  expect(left).not.toContain("function lineWindow(");
  expect(left).toContain("\nexport function echo(");
  // The new file's top, which a code block shows after the move, goes above what was moved: the
  // comment lines it starts with are MAX_READ_BYTES's, not the file's.
  const top: Block = { ...block, kind: "code", arg: "day-5-v1/src/tools/read-file.ts#imports" };
  const moved = files.get("tools/read-file.ts");
  expect(applyBlock(files, top)).toBeUndefined();
  expect(files.get("tools/read-file.ts")).toBe(
    `${extractCode(stage, "read-file.ts", "imports")}\n\n${moved}`,
  );
});

test("a move block fails, changing nothing, on a name its file or the stage's file lacks", () => {
  const files = stageFiles("day-4-v3");
  const before = new Map(files);
  expect(
    applyBlock(
      files,
      moveBlock("day-5-v1 src/tools.ts#readTextFile,readFile src/tools/read-file.ts"),
    ),
  ).toBe("src/tools.ts has no readFile to move");
  expect(applyBlock(files, moveBlock("day-5-v1 src/tools.ts#echo src/tools/read-file.ts"))).toBe(
    "day-5-v1's src/tools/read-file.ts has no echo",
  );
  expect(applyBlock(files, moveBlock("day-5-v1 src/tool.ts#echo src/tools/echo.ts"))).toBe(
    "there is no src/tool.ts to move from",
  );
  expect(files).toEqual(before);
});

test("#* moves the rest of a file and deletes it, once nothing else is left in it", () => {
  const files = stageFiles("day-4-v3");
  const rest = moveBlock("day-5-v1 src/tools.ts#* src/tools/index.ts");
  const before = new Map(files);
  expect(applyBlock(files, rest)).toMatch(
    /^src\/tools\.ts still holds echo, systemDate, .*, which day-5-v1's src\/tools\/index\.ts does not: move or delete them before the rest$/,
  );
  expect(files).toEqual(before);
  // What index.ts has of tools.ts, and tools.ts's top: what the page leaves for the rest.
  const old = files.get("tools.ts") ?? "";
  const stage = readStage(SPLIT_STAGE, "tools/index.ts");
  const kept = pieces(stage, "index.ts").flatMap((piece) => piece.names);
  const own = pieces(old, "tools.ts").filter((piece) => piece.names.some((n) => kept.includes(n)));
  files.set(
    "tools.ts",
    [
      extractCode(old, "tools.ts", "imports"),
      ...own.map((piece) => old.slice(piece.from, piece.to)),
    ]
      .join("\n\n")
      .concat("\n"),
  );
  expect(applyBlock(files, rest)).toBeUndefined();
  expect(files.has("tools.ts")).toBe(false);
  const index = files.get("tools/index.ts") ?? "";
  expect(pieces(index, "index.ts").map((piece) => piece.name)).toEqual(
    own.map((piece) => piece.name),
  );
  // ToolRegistry as tools.ts had it, which index.ts has unchanged.
  expect(extractCode(index, "index.ts", "ToolRegistry")).toBe(
    extractCode(stage, "index.ts", "ToolRegistry"),
  );
});

test("a move block is filled with one line that says what goes where, never the code", async () => {
  const root = mkdtempSync(join(tmpdir(), "docs-move-"));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  const markers = [
    "day-5-v1 src/tools.ts#readTextFile,lineWindow,positive src/tools/read-file.ts",
    "day-5-v1 src/tools.ts#searchStart,MAX_GLOB_MATCHES,globMatcher,globbed src/tools/glob.ts",
    "day-5-v1 src/tools.ts#* src/tools/index.ts",
    "day-5-v1 src/tools.ts#readFile src/tools/read-file.ts",
    "day-4-v3 src/tools.ts#* src/tools/index.ts",
    "day-5-v1 src/tools.ts src/tools/read-file.ts",
  ];
  const page = markers.flatMap((arg) => [`<!-- move: ${arg} -->`, "<!-- /move -->", ""]);
  mkdirSync(join(root, "docs"));
  writeFileSync(join(root, "docs/fixture.md"), page.join("\n"));
  const sources = {
    diffs: new Map(),
    replays: new Map(),
    wires: new Map(),
    stats: [],
    problems: [],
  };
  const report = await generateDocs(root, sources);
  const lines = readFileSync(join(root, "docs/fixture.md"), "utf8").split("\n");
  const filled = (index: number) => lines[lines.indexOf(`<!-- move: ${markers[index]} -->`) + 1];
  // day-4-v3's lines, counted from the base: the lesson moves what its base has.
  expect(filled(0)).toBe(
    "> **Move** `readTextFile`, `lineWindow` and `positive` from `src/tools.ts` to `src/tools/read-file.ts` (70 lines, unchanged).",
  );
  expect(filled(1)).toBe(
    "> **Move** `searchStart`, `MAX_GLOB_MATCHES`, `globMatcher` and `globbed` from `src/tools.ts` to `src/tools/glob.ts` (49 lines; `searchStart` and `globbed` change after the move).",
  );
  expect(filled(2)).toMatch(
    /^> \*\*Move\*\* the rest of `src\/tools\.ts` \(`ToolContext`, .*`ToolRegistry`, .* and `defaultTools`\) to `src\/tools\/index\.ts` \(\d+ lines; `defaultTools` changes after the move\)\. Then delete `src\/tools\.ts`\.$/,
  );
  const problems = report.problems
    .filter((problem) => problem.file === "docs/fixture.md")
    .map((problem) => `${problem.line}: ${problem.message}`);
  expect(problems).toEqual([
    `10: <!-- move: ${markers[3]} -->: packages/day-4-v3/src/tools.ts has no top-level declaration readFile`,
    `13: <!-- move: ${markers[4]} -->: day-4-v3 still has src/tools.ts: name what moves`,
    `16: <!-- move: ${markers[5]} -->: should be <stage> src/<path>#<Name>[,<Name>…] src/<other path>, or #* for the rest of the file, for a stage that has a base`,
  ]);
});

// A page for day-5-v1 as a learner would type it: each tool's file gets its top, a move of what
// tools.ts had as it is and code blocks for the rest; tools/index.ts takes what is left; then the
// new files whole, the list of tools, and a diff for each file that stays.
function splitPage(): string {
  const block = (marker: string, lang = "ts") => [marker, `\`\`\`${lang}`, "```", ""];
  const move = (arg: string) => [`<!-- move: day-5-v1 ${arg} -->`, "<!-- /move -->", ""];
  const old = stageFiles("day-4-v3");
  const stage = stageFiles(SPLIT_STAGE);
  const tools = old.get("tools.ts") ?? "";
  const oldPieces = new Map(
    pieces(tools, "tools.ts").map((piece) => [piece.name, tools.slice(piece.from, piece.to)]),
  );
  // The pieces of a stage file that are not in tools.ts as they are there.
  const shown = (path: string, text: string) =>
    pieces(text, path)
      .filter((piece) => oldPieces.get(piece.name) !== text.slice(piece.from, piece.to))
      .flatMap((piece) => block(`<!-- code: day-5-v1/src/${path}#${piece.name} -->`));
  const lines: string[] = [];
  const whole: string[] = [];
  const diffs: string[] = [];
  for (const [path, text] of stage) {
    if (old.has(path)) {
      if (old.get(path) !== text) diffs.push(path);
      continue;
    }
    const moved = pieces(text, path)
      .filter((piece) => oldPieces.has(piece.name))
      .map((piece) => piece.name);
    if (path === "tools/index.ts") continue;
    if (moved.length === 0) {
      whole.push(path);
      continue;
    }
    lines.push(...block(`<!-- code: day-5-v1/src/${path}#imports -->`));
    lines.push(...move(`src/tools.ts#${moved.join(",")} src/${path}`));
    lines.push(...shown(path, text));
  }
  lines.push(...move("src/tools.ts#* src/tools/index.ts"));
  // Each after the files it imports.
  const imports = (path: string) =>
    parseFile(stage.get(path) ?? "", path).program.body.flatMap((statement) =>
      statement.type === "ImportDeclaration" && statement.source.value.startsWith(".")
        ? [posix.join(posix.dirname(path), statement.source.value)]
        : [],
    );
  const placed: string[] = [];
  while (placed.length < whole.length) {
    const next = whole.find(
      (path) =>
        !placed.includes(path) &&
        imports(path).every((used) => !whole.includes(used) || placed.includes(used)),
    );
    if (next === undefined) throw new Error("the new files import each other in a circle");
    placed.push(next);
  }
  for (const path of placed) lines.push(...block(`<!-- code: day-5-v1/src/${path} -->`));
  lines.push(...block("<!-- code: day-5-v1/src/tools/index.ts#imports -->"));
  lines.push(...shown("tools/index.ts", stage.get("tools/index.ts") ?? ""));
  for (const path of diffs) {
    lines.push(...block(`<!-- diff: day-4-v3..day-5-v1 src/${path} -->`, "diff"));
  }
  return lines.join("\n");
}

function splitLesson(page: string): Lesson {
  const [lesson] = lessonsOf([
    { file: "docs/day-5.md", blocks: scanPage("docs/day-5.md", page).blocks },
  ]);
  if (lesson?.stage !== SPLIT_STAGE) throw new Error("the page holds no day-5-v1 lesson");
  return lesson;
}

test("a page that moves what is unchanged and shows the rest replays day-5-v1, every changed line shown", () => {
  const replayed = replayLesson(splitLesson(splitPage()));
  expect(replayed.problems).toEqual([]);
  expect(Object.fromEntries(replayed.files)).toEqual(Object.fromEntries(stageFiles(SPLIT_STAGE)));
  // The lines stage-diff shows moved are no change: out of tools.ts and into a tool's file, each
  // is counted neither time, as stage-stats counts them.
  const moved = compareStages("day-4-v3", SPLIT_STAGE).reduce((sum, file) => sum + file.moved, 0);
  expect(moved).toBeGreaterThan(800);
  const { changed, shown } = replayed.coverage;
  expect(changed).toBe(changedLines(stageFiles("day-4-v3"), stageFiles(SPLIT_STAGE)) - moved);
  expect(shown).toBe(changed);
});

test("a page that leaves out one move fails at the rest and shows fewer lines than changed", () => {
  const page = splitPage().replace(
    /<!-- move: \S+ src\/tools\.ts#\S+ src\/tools\/read-file\.ts -->\n/,
    "",
  );
  const replayed = replayLesson(splitLesson(page));
  expect(replayed.problems.map((problem) => problem.message)).toContainEqual(
    expect.stringMatching(
      /^<!-- move: day-5-v1 src\/tools\.ts#\* src\/tools\/index\.ts --> src\/tools\.ts still holds MAX_READ_BYTES, DEFAULT_LINES, MAX_READ_CHARS, readTextFile, lineWindow, positive, /,
    ),
  );
  expect(replayed.coverage.shown).toBeLessThan(replayed.coverage.changed);
});

// Issue #58: a lesson replayed as a learner types it. Each page below is a few real blocks of
// day-5-v4's lesson, put together so that one thing is wrong.
const DIFF_STAGES = { from: "day-5-v3", to: "day-5-v4" };

// A diff block as the page prints it, from stage-diff's parts.
function diffBlock(path: string): string[] {
  const parts = stagePatch(DIFF_STAGES.from, DIFF_STAGES.to, `src/${path}`);
  return [
    `<!-- diff: ${DIFF_STAGES.from}..${DIFF_STAGES.to} src/${path} -->`,
    "```diff",
    `diff --git a/src/${path} b/src/${path}`,
    `--- a/src/${path}`,
    `+++ b/src/${path}`,
    ...parts.flatMap((part) => part.hunks),
    "```",
    "",
  ];
}

function codeMarker(arg: string): string[] {
  return [`<!-- code: ${DIFF_STAGES.to}/src/${arg} -->`, "```ts", "```", ""];
}

function replayPage(lines: string[]): { text: string; problems: string[] } {
  const text = lines.join("\n");
  const [lesson] = lessonsOf([{ file: "docs/x.md", blocks: scanPage("docs/x.md", text).blocks }]);
  if (lesson === undefined) throw new Error("the page holds no lesson");
  return {
    text,
    problems: replayLesson(lesson).problems.map((problem) => `${problem.line}: ${problem.message}`),
  };
}

test("a diff whose lines a code block above changed fails, naming its page line and hunk", () => {
  const page = [...codeMarker("tools/index.ts#ToolContext"), ...diffBlock("tools/index.ts")];
  const { text, problems } = replayPage(page);
  const header = "@@ -27,6 +30,8 @@ export interface ToolContext {";
  const line = text.split("\n").indexOf(header) + 1;
  expect(line).toBeGreaterThan(0);
  expect(problems).toContain(
    `${line}: <!-- diff: day-5-v3..day-5-v4 src/tools/index.ts --> does not apply: hunk 3 of src/tools/index.ts (${header}) does not match your file: its context and removed lines are not there as the page built it`,
  );
  // The diff alone applies: its hunks are the file's change from the base.
  const alone = replayPage(diffBlock("tools/index.ts")).problems;
  expect(alone.filter((problem) => problem.includes("does not apply"))).toEqual([]);
});

test("a name used before the page imports it fails where the learner next compiles", () => {
  const checkpoint = ["<!-- check: day-5-v4 bg-output -->", "<!-- /check -->", ""];
  const { problems } = replayPage([...codeMarker("tools/index.ts#ToolContext"), ...checkpoint]);
  expect(problems).toContain(
    "1: <!-- code: day-5-v4/src/tools/index.ts#ToolContext --> uses BackgroundTasks in src/tools/index.ts, which the page does not declare or import there by the checkpoint on docs/x.md:5",
  );
  // With the file's imports typed before the checkpoint, the name is imported there.
  const imported = replayPage([
    ...codeMarker("tools/index.ts#ToolContext"),
    ...codeMarker("tools/index.ts#imports"),
    ...checkpoint,
  ]).problems;
  expect(
    imported.filter((problem) => problem.includes("uses BackgroundTasks in src/tools/index.ts")),
  ).toEqual([]);
  expect(imported.length).toBeGreaterThan(0);
});

test("the parameters of a signature are no use of a top-level name of the same spelling", () => {
  // day-6-v2's model.ts: an interface method's `options` is not permissions.ts's `options`.
  const source = [
    "interface Provider { complete(messages: Message[], options?: Options): void }",
    "type Callback = (value: string) => void;",
    "interface Maker { new (size: number): Provider; (count: number): void }",
    "type Make = new (width: number) => Provider;",
    "declare function run(step: number): void;",
    "abstract class Base { abstract go(depth: number): void }",
  ].join("\n");
  const used = usedNames(source, "model.ts");
  for (const name of ["messages", "options", "value", "size", "count", "width", "step", "depth"]) {
    expect(used.has(name), name).toBe(false);
  }
  expect(used.has("Options")).toBe(true);
});

test("a diff that declares again what a code block above declared fails as a repeated declaration", () => {
  const { problems } = replayPage([...codeMarker("shell.ts#cutMiddle"), ...diffBlock("shell.ts")]);
  expect(problems).toContain(
    "5: <!-- diff: day-5-v3..day-5-v4 src/shell.ts --> declares cutMiddle a second time in src/shell.ts, which has it already: a learner gets a duplicate declaration; the page must replace it, not add it again",
  );
  // The same code block alone replaces nothing and adds cutMiddle once.
  const once = replayPage(codeMarker("shell.ts#cutMiddle")).problems;
  expect(once.filter((problem) => problem.includes("a second time"))).toEqual([]);
});

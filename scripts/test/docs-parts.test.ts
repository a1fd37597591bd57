import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { ROOT } from "../lib/command.ts";
import { extractCode } from "../lib/docs-code.ts";
import { applyChanges, changedLines, type Files } from "../lib/docs-lessons.ts";
import { fenceConflict, scanPage } from "../lib/docs-pages.ts";
import { normalise } from "../lib/docs-replays.ts";

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

// tools.ts moved to tools/index.ts with one line changed, and a new tools/echo.ts: a stage pair as
// stage-diff shows it, with the rename git finds.
const BEFORE: Files = new Map([
  ["tools.ts", "export type Tool = {};\nconst a = 1;\nconst b = 2;\n"],
]);
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

test.each(["src/tools.ts", "src/tools/index.ts"])(
  "a diff block naming %s moves the file and makes its edit",
  (only) => {
    const files = new Map(BEFORE);
    expect(applyChanges(files, BEFORE, AFTER, RENAMES, only)).toBeUndefined();
    expect(Object.fromEntries(files)).toEqual({ "tools/index.ts": AFTER.get("tools/index.ts") });
  },
);

test("a whole stage diff moves the file and adds the new one; a code block's lines stay", () => {
  const files = new Map(BEFORE);
  files.set(
    "tools.ts",
    "// Shown by a code block.\nexport type Tool = {};\nconst a = 1;\nconst b = 2;\n",
  );
  expect(applyChanges(files, BEFORE, AFTER, RENAMES)).toBeUndefined();
  expect(Object.fromEntries(files)).toEqual({
    "tools/echo.ts": "export const echo = 1;\n",
    "tools/index.ts":
      "// Shown by a code block.\nexport type Tool = {};\nconst a = 1;\nconst b = 3;\n",
  });
});

test("a move whose edit does not apply keeps the file where it was", () => {
  const files: Files = new Map([["tools.ts", "something else\n"]]);
  expect(applyChanges(files, BEFORE, AFTER, RENAMES, "src/tools.ts")).toMatch(
    /^its change to src\/tools\/index\.ts near line \d+ does not apply/,
  );
  expect([...files.keys()]).toEqual(["tools.ts"]);
});

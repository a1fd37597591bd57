// Day 3, v2: one walker for glob, grep and project_tree (taught in docs/day-3-search.md). The
// folder of day-3-v1's scenarios, with a few files to search: a root .gitignore that ignores gen/,
// a binary that holds the needle, a package in node_modules. Core scenarios are what the Python
// course's search tools also do (found, not found, the run goes on); exact texts, caps and nested
// .gitignore files are conformance.
import type { Contract, Scenario } from "../src/contract.ts";
import {
  exitCode,
  judge,
  noRequestCarries,
  observations,
  offeredTools,
} from "../src/judgements.ts";
import type { FileEntry } from "../src/scenario-folder.ts";
import type { Step } from "../src/server.ts";
import { drawName, drawNumber, drawWord, FIXED_SEED, type Seeded } from "../src/vary.ts";
import { day3v1, fileScenario, fileTwin, oneCall, theResult, wentOn } from "./day-3-v1.ts";
import { namesEveryToolOffered, scenarioOf } from "./shared.ts";

const SEARCH = "docs/day-3-search.md#v2-one-walk-for-every-search";
const IGNORED = "docs/day-3-search.md#what-the-walk-leaves-out";
const REGEX = "docs/day-3-search.md#which-regular-expressions";
const CAPS = "docs/day-3-search.md#caps-and-markers";

// The files every v2 scenario adds to day-3-v1's folder.
const SEARCH_FILES: Record<string, FileEntry> = {
  "work/.gitignore": "gen/\n",
  "work/a.ts": "const one = 1;\nconst needle = 'a';\n",
  "work/b/c.ts": "// c\n\n\n\nexport const needle = 'c';\n",
  "work/gen/y.ts": "const needle = 'generated';\n",
  "work/node_modules/x.ts": "const needle = 'package';\n",
  // "needle" then NUL bytes: a binary that a plain text search would match.
  "work/logo.bin": new Uint8Array([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0, 0, 0, 1]),
};

// What grep-basic looks for: `needle` in SEARCH_FILES on the pages; at another seed a drawn word
// on drawn lines of two files with drawn names, beside SEARCH_FILES (which never hold it).
function seededNeedle(context: Seeded): {
  word: string;
  files: Record<string, string>;
  hits: string[];
} {
  const word = drawWord(context, "day-3-v2/needle", "needle");
  const first = `${drawName(context, "day-3-v2/first", "a")}.ts`;
  const second = `b/${drawName(context, "day-3-v2/second", "c")}.ts`;
  const lines = [
    drawNumber(context, "day-3-v2/first-line", 2, [1, 6]),
    drawNumber(context, "day-3-v2/second-line", 5, [1, 6]),
  ] as const;
  const hits = [`${first}:${lines[0]}:`, `${second}:${lines[1]}:`];
  if (context.seed === FIXED_SEED) return { word, files: {}, hits };
  // The word on its line, other lines that do not hold it.
  const text = (line: number) =>
    Array.from({ length: 6 }, (_, n) =>
      n + 1 === line ? `export const ${word} = ${n};` : `// line ${n + 1}`,
    ).join("\n");
  return {
    word,
    files: { [`work/${first}`]: `${text(lines[0])}\n`, [`work/${second}`]: `${text(lines[1])}\n` },
    hits,
  };
}

interface SearchScenario {
  id: string;
  title: string;
  level: Scenario["level"];
  prompt: string;
  steps: Step[];
  files?: Record<string, FileEntry>;
  judgements: Scenario["judgements"];
}

export function searchScenario(spec: SearchScenario): Scenario {
  return fileScenario({ ...spec, files: { ...SEARCH_FILES, ...spec.files } });
}

// The lines of the result the model got, markers and `./` aside, so `./a.ts` is `a.ts`.
export function resultLines(o: Parameters<typeof theResult>[0]): string[] {
  return (theResult(o)?.text ?? "")
    .split("\n")
    .map((line) => line.trim().replace(/^\.\//, ""))
    .filter((line) => line !== "" && !line.startsWith("[") && !line.startsWith("("));
}

function sameSet(actual: string[], expected: string[]): boolean {
  return actual.length === expected.length && expected.every((name) => actual.includes(name));
}

const GLOB_TS = oneCall("glob", { pattern: "**/*.ts" });
const GREP_NEEDLE = oneCall("grep", { pattern: "needle" });
const GREP_BAD = oneCall("grep", { pattern: "(" });
const TREE_ONE = oneCall("project_tree", { max_depth: 1 });

// The model was offered the tool at all: without it, a refusal would be "unknown tool".
function offered(tool: string): Scenario["judgements"][number] {
  return judge(SEARCH, `the first request should offer the \`${tool}\` tool`, (o) =>
    offeredTools(o.requests[0]).includes(tool),
  );
}

const hasMatch = (lines: string[], prefix: string) => lines.some((line) => line.startsWith(prefix));

// Many small files, for the caps.
function many(count: number, name: (n: number) => string): Record<string, string> {
  return Object.fromEntries(Array.from({ length: count }, (_, n) => [name(n), "x\n"]));
}

// The core scenario grep-invalid-regex-text judges again, on the same run.
const grepInvalidRegex = searchScenario({
  id: "grep-invalid-regex",
  title: "grep with a pattern that does not compile: the model reads why, and the run goes on",
  level: "core",
  prompt: "Search for (",
  steps: GREP_BAD,
  judgements: [offered("grep"), ...wentOn(REGEX)],
});

export const day3v2: Contract = {
  stage: "day-3-v2",
  title: "Day 3 v2: one walker for glob, grep, project_tree",
  base: "day-3-v1",
  scenarios: [
    searchScenario({
      id: "glob-ts",
      title: "glob **/*.ts finds the project's files, not node_modules or an ignored folder",
      level: "core",
      prompt: "Which TypeScript files are there?",
      steps: GLOB_TS,
      judgements: [
        exitCode(SEARCH, 0, "a finished run exits 0"),
        judge(
          SEARCH,
          "expected exactly `a.ts` and `b/c.ts` (not gen/y.ts, not node_modules)",
          (o) => sameSet(resultLines(o), ["a.ts", "b/c.ts"]),
        ),
      ],
    }),
    fileScenario({
      id: "grep-basic",
      title: "grep finds each line a word is on (on the pages: needle, a.ts line 2, b/c.ts line 5)",
      level: "core",
      prompt: (context) => `Where is ${seededNeedle(context).word} defined?`,
      steps: oneCall("grep", (prompt) => ({ pattern: prompt.split(" ")[2] })),
      files: (context) => ({ ...SEARCH_FILES, ...seededNeedle(context).files }),
      judgements: [
        exitCode(SEARCH, 0, "a finished run exits 0"),
        judge(
          SEARCH,
          "expected a line starting `<file>:<line>:` for each place the word is",
          (o) => {
            const lines = resultLines(o);
            return seededNeedle(o.context).hits.every((hit) => hasMatch(lines, hit));
          },
        ),
      ],
    }),
    searchScenario({
      id: "grep-ignore-case",
      title: "grep NEEDLE with ignore_case finds the lowercase lines",
      level: "core",
      prompt: "Where is NEEDLE, in any case?",
      steps: oneCall("grep", { pattern: "NEEDLE", ignore_case: true }),
      judgements: [
        judge(REGEX, "expected lines starting `a.ts:2:` and `b/c.ts:5:`", (o) => {
          const lines = resultLines(o);
          return hasMatch(lines, "a.ts:2:") && hasMatch(lines, "b/c.ts:5:");
        }),
      ],
    }),
    grepInvalidRegex,
    searchScenario({
      id: "grep-skips-binary-and-ignored",
      title: "grep never matches in a binary, an ignored folder or node_modules",
      level: "core",
      prompt: "Where is needle defined?",
      steps: GREP_NEEDLE,
      judgements: [
        judge(
          IGNORED,
          "a.ts:2 should be found, and no line from logo.bin, gen/ or node_modules/",
          (o) => {
            const lines = resultLines(o);
            return (
              hasMatch(lines, "a.ts:2:") &&
              !lines.some((line) => /^(logo\.bin|gen\/|node_modules\/)/.test(line))
            );
          },
        ),
        noRequestCarries(IGNORED, "\u0000", "a NUL byte of the binary file"),
        noRequestCarries(IGNORED, "generated", "the ignored gen/y.ts"),
        noRequestCarries(IGNORED, "'package'", "node_modules/x.ts"),
      ],
    }),
    searchScenario({
      id: "tree-depth",
      title: "project_tree with max_depth 1 shows the top level and no grandchildren",
      level: "core",
      prompt: "Show me the project's top level",
      steps: TREE_ONE,
      judgements: [
        judge(SEARCH, "expected `b/`, `sub/` and `a.ts`, and no `c.ts` or `b.txt`", (o) => {
          const lines = resultLines(o);
          return (
            ["b/", "sub/", "a.ts"].every((name) => lines.includes(name)) &&
            !lines.some((line) => line.endsWith("c.ts") || line.endsWith("b.txt"))
          );
        }),
      ],
    }),
    searchScenario({
      id: "search-escape",
      title: "grep with path .. is refused: no line from outside reaches the model",
      level: "core",
      prompt: "Search the parent folder for outside-secret",
      steps: oneCall("grep", { pattern: "outside-secret", path: ".." }),
      judgements: [offered("grep"), ...wentOn(SEARCH)],
    }),
    searchScenario({
      id: "glob-basename",
      title: "a glob without a slash matches names at any depth",
      level: "conformance",
      prompt: "Which .ts files are there?",
      steps: oneCall("glob", { pattern: "*.ts" }),
      judgements: [
        judge(SEARCH, "expected `a.ts` and `b/c.ts`: `*.ts` matches at any depth", (o) =>
          sameSet(resultLines(o), ["a.ts", "b/c.ts"]),
        ),
      ],
    }),
    searchScenario({
      id: "glob-nested-gitignore",
      title: "a nested .gitignore counts, and its `!` takes back a parent's rule",
      level: "conformance",
      prompt: "Which TypeScript files are there?",
      steps: GLOB_TS,
      files: {
        "work/lib/.gitignore": "*.gen.ts\n",
        "work/lib/x.gen.ts": "generated\n",
        "work/lib/keep.ts": "kept\n",
        "work/gen2/.gitignore": "!y.ts\n",
        "work/.gitignore": "gen/\ngen2/*.ts\n",
        "work/gen2/y.ts": "taken back\n",
        "work/gen2/z.ts": "ignored\n",
      },
      judgements: [
        judge(
          IGNORED,
          "expected `a.ts`, `b/c.ts`, `gen2/y.ts` and `lib/keep.ts`, nothing else",
          (o) => sameSet(resultLines(o), ["a.ts", "b/c.ts", "gen2/y.ts", "lib/keep.ts"]),
        ),
      ],
    }),
    searchScenario({
      id: "glob-cap",
      title: "glob stops at 200 paths and says how many matched",
      level: "conformance",
      prompt: "Which JavaScript files are there?",
      steps: oneCall("glob", { pattern: "many/*.js" }),
      files: many(250, (n) => `work/many/f${String(n).padStart(3, "0")}.js`),
      judgements: [
        judge(CAPS, "expected 200 paths, then `[200 of 250 matches; narrow the pattern]`", (o) => {
          const lines = (theResult(o)?.text ?? "").split("\n");
          return (
            lines.length === 201 &&
            lines[0] === "many/f000.js" &&
            lines[199] === "many/f199.js" &&
            lines[200] === "[200 of 250 matches; narrow the pattern]"
          );
        }),
      ],
    }),
    searchScenario({
      id: "glob-none-text",
      title: "a glob that matches nothing says `(no matches)`",
      level: "conformance",
      prompt: "Which Rust files are there?",
      steps: oneCall("glob", { pattern: "**/*.rs" }),
      judgements: [
        judge(SEARCH, "expected `(no matches)`", (o) => theResult(o)?.text === "(no matches)"),
      ],
    }),
    fileTwin(grepInvalidRegex, {
      id: "grep-invalid-regex-text",
      title: "the text for a pattern that does not compile, with is_error: true",
      judgements: [
        judge(
          REGEX,
          "expected `observation: invalid regex: Invalid regular expression: /(/: …`, with is_error: true",
          (o) =>
            (observations(o)[0] ?? "").startsWith(
              "invalid regex: Invalid regular expression: /(/",
            ) && theResult(o)?.isError === true,
        ),
      ],
    }),
    searchScenario({
      id: "grep-long-line",
      title: "a matching line longer than 500 characters is cut and marked with …",
      level: "conformance",
      prompt: "Search for the long line",
      steps: oneCall("grep", { pattern: "^longline" }),
      files: { "work/long.txt": `longline${"z".repeat(700)}\n` },
      judgements: [
        judge(
          CAPS,
          "expected `long.txt:1:` then the line's first 500 characters and `…`",
          (o) => theResult(o)?.text === `long.txt:1:longline${"z".repeat(492)}…`,
        ),
      ],
    }),
    {
      ...searchScenario({
        id: "ctrl-c-during-grep",
        title: "Ctrl-C while grep runs a pattern that backtracks for ever ends the run at once",
        level: "conformance",
        prompt: "Search for the slow pattern",
        steps: [...oneCall("grep", { pattern: "^(.*.*)*z$", path: "slow.txt" })],
        files: { "work/slow.txt": `${"a".repeat(5000)}\n` },
        judgements: [
          exitCode(REGEX, 130, "Ctrl-C during a tool is Ctrl-C: exit code 130"),
          judge(
            REGEX,
            "the run should end at the Ctrl-C, not ask the model again: a match the main thread runs cannot be interrupted (run it on a worker)",
            (o) => o.requests.length === 1,
          ),
        ],
      }),
      // 300 ms after the model's answer arrives: grep is running by then on any machine that is
      // not very busy; if it is not, the Ctrl-C comes first and the scenario still holds. Sooner
      // rather than later: the Day 3 challenge stops a pattern after 2 s on one file, and a
      // Ctrl-C after that would find the run asking the model again.
      interrupt: { afterRequests: 1, afterMs: 300 },
      env: { AGENT_CODE_MATCH_TIMEOUT_MS: "600000" },
    },
    searchScenario({
      id: "tree-text",
      title: "project_tree: two spaces a level, folders first, skipped folders shown",
      level: "conformance",
      prompt: "Show me the project",
      steps: oneCall("project_tree", { max_depth: 2 }),
      judgements: [
        judge(
          CAPS,
          "expected the tree, folders first, `node_modules/ (skipped)`, gen/ left out",
          (o) =>
            theResult(o)?.text ===
            [
              ".git/ (skipped)",
              "b/",
              "  c.ts",
              "node_modules/ (skipped)",
              "sub/",
              "  b.txt",
              ".gitignore",
              "a.ts",
              "a.txt",
              "logo.bin",
              "notes.txt",
              "ten.txt",
            ].join("\n"),
        ),
      ],
    }),
    searchScenario({
      id: "tree-cap",
      title: "project_tree stops at 200 entries and says how to see less",
      level: "conformance",
      prompt: "Show me the project",
      steps: oneCall("project_tree", { path: "many" }),
      files: many(250, (n) => `work/many/f${String(n).padStart(3, "0")}.txt`),
      judgements: [
        judge(
          CAPS,
          "expected 200 entries, then `[tree cut at 200 entries; lower max_depth or give a path]`",
          (o) => {
            const lines = (theResult(o)?.text ?? "").split("\n");
            return (
              lines.length === 201 &&
              lines[200] === "[tree cut at 200 entries; lower max_depth or give a path]"
            );
          },
        ),
      ],
    }),
    // Judged on Day 2's unknown-tool run, which this stage keeps: the tools offered are this stage's.
    fileTwin(scenarioOf(day3v1, "unknown-tool"), {
      id: "unknown-tool-text",
      title: "the unknown-tool text names the tools there are, the search tools too",
      judgements: [
        // The list is the stage's own (its first request's tools), so a later stage passes too.
        namesEveryToolOffered(SEARCH, "grep"),
      ],
    }),
    // Day 3 v1's scenarios, but the unknown-tool text, which names this stage's longer list.
    ...day3v1.scenarios.filter((scenario) => scenario.id !== "unknown-tool-text"),
  ],
};

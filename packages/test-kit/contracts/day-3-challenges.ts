// Day 3 challenges: the answers to docs/day-3-challenges.md#challenges on top of day-3-v2. Core scenarios are
// what any answer does (a bigger window that is still bounded, a hex preview behind the same
// boundary, .ignore files obeyed, a runaway pattern that does not hang the run); exact texts and
// the order of the ignore files are conformance. Every day-3-v2 scenario is kept, but the
// unknown-tool text, which names this stage's longer list.
import type { Contract } from "../src/contract.ts";
import { exitCode, judge, noRequestCarries, observations } from "../src/judgements.ts";
import { fileTwin, oneCall, theResult, wentOn } from "./day-3-v1.ts";
import { day3v2, resultLines, searchScenario } from "./day-3-v2.ts";
import { namesEveryToolOffered, scenarioOf } from "./shared.ts";

const WINDOW = "docs/day-3-challenges.md#answer-1-a-bigger-window";
const NUMBERS = "docs/day-3-challenges.md#answer-2-line-numbers";
const HEX = "docs/day-3-challenges.md#answer-3-a-hex-preview";
const WORKER = "docs/day-3-challenges.md#answer-5-a-time-limit-for-grep";
const IGNORE = "docs/day-3-challenges.md#answer-6-ignore-files";
const TOOLS = "docs/day-3-challenges.md#challenges";

// 300 lines of 99 characters and a newline: 80 lines fill read_file's default 8000 characters.
const WIDE = Array.from(
  { length: 300 },
  (_, n) => `${String(n + 1).padStart(3, "0")}${"w".repeat(96)}\n`,
).join("");
// A PNG's first bytes, NUL bytes among them.
const PNG = new Uint8Array([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1,
]);

// (a+)+$ backtracks for ever on 40 a's and a `!`: a.txt matches at once, b.txt once before its
// second line never ends, c.txt comes after it. The lookahead makes it a pattern ripgrep refuses,
// so a project that asks rg (challenge 4) still runs it in JavaScript.
const RUNAWAY = oneCall("grep", { pattern: "^(?=a)(a+)+$", path: "slow" });
const SLOW_FILES = {
  "work/slow/a.txt": "aaa\n",
  "work/slow/b.txt": `aa\n${"a".repeat(40)}!\n`,
  "work/slow/c.txt": "aaaa\n",
};

// The marker at the end of a read_file window, as numbers: the last line shown and the total.
function windowEnd(text: string): { last: number; total: number } | undefined {
  const match = /\[showing lines 1-(\d+) of (\d+)[;\]]/.exec(text.split("\n").at(-1) ?? "");
  return match === null ? undefined : { last: Number(match[1]), total: Number(match[2]) };
}

// The core scenarios that conformance twins below judge again, on the same run.
const readMaxCharsBound = searchScenario({
  id: "read-max-chars-bound",
  title: "read_file with max_chars far above the bound never gets the whole file",
  level: "core",
  prompt: "Read all of wide.txt at once.",
  steps: oneCall("read_file", { path: "wide.txt", max_chars: 1_000_000 }),
  files: { "work/wide.txt": WIDE },
  judgements: [
    ...wentOn(WINDOW),
    noRequestCarries(WINDOW, `300${"w".repeat(96)}`, "the file's last line"),
  ],
});

const readLineNumbers = searchScenario({
  id: "read-line-numbers",
  title: "read_file with line_numbers starts each line with its number",
  level: "core",
  prompt: "Read ten.txt with line numbers, from line 9.",
  steps: oneCall("read_file", { path: "ten.txt", offset: 9, line_numbers: true }),
  judgements: [
    exitCode(NUMBERS, 0, "a finished run exits 0"),
    judge(NUMBERS, "expected lines 9 and 10, each after its number", (o) => {
      const lines = (theResult(o)?.text ?? "").split("\n");
      return /^\s*9\D+line 9$/.test(lines[0] ?? "") && /^\s*10\D+line 10$/.test(lines[1] ?? "");
    }),
  ],
});

const hexPreview = searchScenario({
  id: "hex-preview",
  title: "hex_preview shows a binary's first bytes in hex",
  level: "core",
  prompt: "What kind of file is logo.png? Look at its first bytes.",
  steps: oneCall("hex_preview", { path: "logo.png" }),
  files: { "work/logo.png": PNG },
  judgements: [
    exitCode(HEX, 0, "a finished run exits 0"),
    judge(HEX, "the result should hold the PNG signature in hex: `89 50 4e 47`", (o) =>
      /89 50 4e 47 0d 0a 1a 0a/i.test(theResult(o)?.text ?? ""),
    ),
    noRequestCarries(HEX, "\u0000", "a NUL byte of the file"),
  ],
});

const grepRunaway = searchScenario({
  id: "grep-runaway",
  title: "a grep pattern that never ends is stopped: the run goes on with the lines found before",
  level: "core",
  prompt: "Which lines are only a's?",
  steps: RUNAWAY,
  files: SLOW_FILES,
  judgements: [
    ...wentOn(WORKER),
    judge(
      WORKER,
      "expected `slow/a.txt:1:aaa` and `slow/b.txt:1:aa`, found before the limit",
      (o) => {
        const lines = resultLines(o);
        return lines.includes("slow/a.txt:1:aaa") && lines.includes("slow/b.txt:1:aa");
      },
    ),
    judge(
      WORKER,
      "nothing from slow/c.txt: the search stopped at b.txt",
      (o) => !(theResult(o)?.text ?? "").includes("c.txt"),
    ),
  ],
});

export const day3challenges: Contract = {
  stage: "day-3-challenges",
  title: "Day 3 challenges: max_chars, line numbers, hex_preview, ripgrep, a grep worker, .ignore",
  base: "day-3-v2",
  scenarios: [
    searchScenario({
      id: "read-max-chars",
      title: "read_file with max_chars 20000 shows more than the default window, still not all",
      level: "core",
      prompt: "Read wide.txt, a big window at once.",
      steps: oneCall("read_file", { path: "wide.txt", max_chars: 20_000 }),
      files: { "work/wide.txt": WIDE },
      judgements: [
        exitCode(WINDOW, 0, "a finished run exits 0"),
        judge(WINDOW, "the result should start at line 001", (o) =>
          (theResult(o)?.text ?? "").startsWith("001www"),
        ),
        judge(
          WINDOW,
          "expected more than 8000 characters' worth of lines (over 80) and a marker before line 300",
          (o) => {
            const end = windowEnd(theResult(o)?.text ?? "");
            return end !== undefined && end.last > 80 && end.last < 300 && end.total === 300;
          },
        ),
      ],
    }),
    readMaxCharsBound,
    // Judged on read-max-chars-bound's run, whose max_chars of 1000000 it refuses: read-max-chars
    // asks for 20000, which no refusal answers.
    fileTwin(readMaxCharsBound, {
      id: "read-max-chars-text",
      title: "the window with max_chars 20000 and the refusal above the bound",
      judgements: [
        judge(
          WINDOW,
          "expected `observation: max_chars must be an integer from 500 to 20000, got 1000000`, with is_error: true",
          (o) =>
            observations(o)[0] === "max_chars must be an integer from 500 to 20000, got 1000000" &&
            theResult(o)?.isError === true,
        ),
      ],
    }),
    readLineNumbers,
    fileTwin(readLineNumbers, {
      id: "read-line-numbers-text",
      title: "line numbers as `     9→text`, six wide, and the window's marker",
      judgements: [
        judge(
          NUMBERS,
          "expected `     9→line 9`, `    10→line 10`, then the marker",
          (o) => theResult(o)?.text === "     9→line 9\n    10→line 10\n[showing lines 9-10 of 10]",
        ),
      ],
    }),
    hexPreview,
    searchScenario({
      id: "hex-preview-escape",
      title: "hex_preview of ../secret.txt is refused: the same boundary as read_file",
      level: "core",
      prompt: "Show the parent folder's secret.txt in hex.",
      steps: oneCall("hex_preview", { path: "../secret.txt" }),
      judgements: [
        ...wentOn(HEX),
        // The secret's first bytes in hex: "outs".
        noRequestCarries(HEX, "6f 75 74 73", "the outside file's bytes in hex"),
      ],
    }),
    fileTwin(hexPreview, {
      id: "hex-preview-text",
      title: "hex_preview's lines as xxd shows them, and its refusal text",
      judgements: [
        judge(
          HEX,
          "expected two lines: offset, 16 bytes in hex in two groups, then |text|",
          (o) =>
            theResult(o)?.text ===
            [
              "00000000  89 50 4e 47 0d 0a 1a 0a  00 00 00 0d 49 48 44 52  |.PNG........IHDR|",
              "00000010  00 00 00 01                                       |....|",
            ].join("\n"),
        ),
      ],
    }),
    grepRunaway,
    fileTwin(grepRunaway, {
      id: "grep-runaway-text",
      title: "the stopped search is a refusal with its marker",
      judgements: [
        judge(
          WORKER,
          "expected the two lines, then `[search stopped: pattern took longer than 2 s on slow/b.txt, after 2 matching lines; …]`, with is_error: true",
          (o) =>
            theResult(o)?.text ===
              [
                "slow/a.txt:1:aaa",
                "slow/b.txt:1:aa",
                "[search stopped: pattern took longer than 2 s on slow/b.txt, after 2 matching lines; simplify the pattern or narrow the path]",
              ].join("\n") && theResult(o)?.isError === true,
        ),
      ],
    }),
    searchScenario({
      id: "ignore-file",
      title: "grep leaves out what a .ignore file names, as it does for .gitignore",
      level: "core",
      prompt: "Where is needle defined?",
      steps: oneCall("grep", { pattern: "needle" }),
      files: { "work/.ignore": "b/\n" },
      judgements: [
        exitCode(IGNORE, 0, "a finished run exits 0"),
        judge(IGNORE, "expected `a.ts:2:` and nothing from b/, which .ignore names", (o) => {
          const lines = resultLines(o);
          return (
            lines.some((line) => line.startsWith("a.ts:2:")) &&
            !lines.some((line) => line.startsWith("b/"))
          );
        }),
        noRequestCarries(IGNORE, "needle = 'c'", "b/c.ts, which .ignore names"),
      ],
    }),
    searchScenario({
      id: "ignore-file-order",
      title: "a .ignore wins over the .gitignore beside it, both ways",
      level: "conformance",
      prompt: "Which TypeScript files are there?",
      steps: oneCall("glob", { pattern: "**/*.ts" }),
      files: {
        "work/lib/.gitignore": "*.gen.ts\n!fixture.ts\n",
        "work/lib/.ignore": "!x.gen.ts\nfixture.ts\n",
        "work/lib/x.gen.ts": "generated, but searched\n",
        "work/lib/fixture.ts": "in git, not searched\n",
        "work/lib/keep.ts": "kept\n",
      },
      judgements: [
        judge(
          IGNORE,
          "expected `a.ts`, `b/c.ts`, `lib/keep.ts` and `lib/x.gen.ts`, not `lib/fixture.ts`",
          (o) => {
            const lines = resultLines(o);
            return (
              lines.length === 4 &&
              ["a.ts", "b/c.ts", "lib/keep.ts", "lib/x.gen.ts"].every((name) =>
                lines.includes(name),
              )
            );
          },
        ),
      ],
    }),
    // Judged on Day 2's unknown-tool run, which this stage keeps: the tools offered are this stage's.
    fileTwin(scenarioOf(day3v2, "unknown-tool"), {
      id: "unknown-tool-text",
      title: "the unknown-tool text names the tools there are, hex_preview too",
      judgements: [
        // The list is the stage's own (its first request's tools), so a later stage passes too.
        namesEveryToolOffered(TOOLS, "hex_preview"),
      ],
    }),
    // Day 3 v2's scenarios, but the unknown-tool text, which names this stage's longer list.
    ...day3v2.scenarios.filter((scenario) => scenario.id !== "unknown-tool-text"),
  ],
};

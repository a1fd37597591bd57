// The rule for a page's time (decision 0068) on small pages written here: what it counts, how it
// reads a `**Time:**` line, and what docs:check says of a page that states too little or too much,
// of one that states nothing, and of a course map that no longer adds up.
import { expect, test } from "vitest";
import { learnerPageProblems } from "../lib/docs-rules.ts";
import {
  courseMapProblems,
  formatMinutes,
  measurePage,
  ruleMinutes,
  statedTime,
} from "../lib/docs-times.ts";
import { formatProblem } from "../lib/docs-tree.ts";

const FENCE = "```";

function words(count: number): string {
  const lines: string[] = [];
  for (let at = 0; at < count; at += 10) {
    lines.push(Array.from({ length: Math.min(10, count - at) }, () => "word").join(" "));
  }
  return lines.join("\n");
}

function codeLines(count: number): string[] {
  return Array.from({ length: count }, (_, n) => `const line${n} = ${n};`);
}

// Words of its own besides the filler, counted by hand in the comments; `time` is the text after
// `**Time:** `, counted by `tally`.
function page(time: string | undefined, filler: number, code: number, items: number): string {
  return [
    "# Day 9: a page", // 4 words ("#" is none)
    "",
    ...(time === undefined ? [] : [`**Time:** ${time}`, ""]), // not counted below: see `tally`
    words(filler),
    "",
    "<!-- code: day-1/src/cli.ts#UsageError -->", // a comment: none
    "In `src/cli.ts`, at the end:", // 5 words
    "",
    `${FENCE}ts`,
    ...codeLines(code - 2),
    "",
    FENCE,
    "",
    "<!-- diff: day-1..day-2-v1 src/agent.ts -->",
    `${FENCE}diff`,
    "diff --git a/src/agent.ts b/src/agent.ts",
    "--- a/src/agent.ts",
    "+++ b/src/agent.ts",
    "@@ -1,2 +1,3 @@",
    " const kept = 1;",
    "-const gone = 2;",
    "+const added = 2;",
    "+const more = 3;",
    FENCE,
    "",
    "An [output](day-1.md#v1-an-echo-cli) the learner only reads:", // 6 words
    "",
    `${FENCE}text`,
    "Agent Code and more words that are output, not prose",
    FENCE,
    "",
    "<!-- check: day-1 echo-round-trip -->",
    "> [!TIP]",
    "> **Checkpoint.** Stop here: these words are the box's, not prose.",
    "<!-- /check -->",
    "",
    "### Checkpoint v9", // 2 words
    "",
    ...Array.from({ length: items }, (_, n) => `- item ${n}`), // 2 words each
    "  a continued item is no new one", // words, no item: 7
    "",
    "## Questions", // 1 word
    "",
    "- not a checkpoint", // 3 words
    "",
  ].join("\n");
}

function tally(time: string | undefined): number {
  return time === undefined ? 0 : time.split(" ").length + 1;
}

test("the rule counts prose, the lines a learner types and the checks, and adds up their times", () => {
  const time = "about 1 hour for this page.";
  const text = page(time, 1000, 30, 3);
  const measure = measurePage("docs/day-9.md", text);
  expect(measure).toEqual({
    words: 1000 + 4 + 5 + 6 + 2 + 3 * 2 + 7 + 1 + 3 + tally(time),
    // The code block's 28 lines (its blank line is none) and the diff's two added lines.
    codeLines: 30,
    checks: 1,
    manualChecks: 3,
  });
  // 1,041 words at 100 a minute, 30 lines at 10 s, a check box at 10 min, 3 items at 2 min.
  expect(ruleMinutes(measure)).toBeCloseTo(10.41 + 5 + 10 + 6, 5);
});

test("a stated time is read as the pages write it, and a time with parts by its total", () => {
  const read = (time: string) => statedTime(`# A page\n\n**Time:** ${time}\n\nMore.`);
  expect(read("about 2 hours 30, after Day 2.")).toEqual({ line: 3, minutes: 150 });
  expect(read("about 35 minutes for this page.")).toEqual({ line: 3, minutes: 35 });
  expect(read("about 1 hour.")).toEqual({ line: 3, minutes: 60 });
  expect(read("about 2 hours 45: 1 hour 30 for v3, 1 hour 15 for v4.")?.minutes).toBe(165);
  expect(read("1 hour 30 for v3, 1 hour 15 for v4.")?.minutes).toBe(165);
  // A part on the paragraph's next line still counts.
  expect(read("about 2 hours: 1 hour 30 for v3,\nand 30 minutes for v4.")?.minutes).toBe(120);
  expect(read("about 2 hours: 1 hour 30 for v3, 1 hour 15 for v4.")?.error).toBe(
    "gives about 2 hours in all but its parts add up to 2 hours 45",
  );
  expect(read("a while.")?.error).toMatch(/^says no time/);
  expect(statedTime("# A page\n\nNo time here.")).toBeUndefined();
  expect([35, 60, 75, 120, 165].map(formatMinutes)).toEqual([
    "35 minutes",
    "1 hour",
    "1 hour 15",
    "2 hours",
    "2 hours 45",
  ]);
});

test("docs:check fails a lesson page stated more than a quarter away from the rule, and passes one within", () => {
  // 2,000 filler words, 38 of its own and 8 of "about 1 hour 5 for this page." (20.46 min), 60
  // lines (10), a check box (10) and five items (10): about 50.5 minutes, a quarter 12.6.
  const check = (time: string) =>
    learnerPageProblems("docs/day-9.md", page(time, 2000, 60, 5)).map(formatProblem);
  expect(check("about 1 hour for this page.")).toEqual([]);
  expect(check("about 40 minutes for this page.")).toEqual([]);
  expect(check("about 50 minutes: 20 minutes for v1, 30 minutes for v2.")).toEqual([]);
  expect(check("about 1 hour 5 for this page.")).toEqual([
    "docs/day-9.md:3: states about 1 hour 5, the rule gives about 50 minutes (2,046 words, 60 lines of code, 1 check box, 5 checkpoint items): more than a quarter apart; state between 40 minutes and 1 hour (decision 0068)",
  ]);
  expect(check("about 35 minutes for this page.")).toEqual([
    expect.stringMatching(/^docs\/day-9\.md:3: states about 35 minutes, the rule gives about 50/),
  ]);
  expect(check("about 1 hour: 30 minutes for v1, 15 minutes for v2.")).toEqual([
    "docs/day-9.md:3: the `**Time:**` line gives about 1 hour in all but its parts add up to 45 minutes",
  ]);
});

test("a lesson page without a time line fails; a page that is no lesson needs none", () => {
  const text = page(undefined, 200, 10, 1);
  expect(learnerPageProblems("docs/day-9-challenges.md", text).map(formatProblem)).toEqual([
    "docs/day-9-challenges.md: no `**Time:**` line: say near the top how long the page takes",
  ]);
  expect(learnerPageProblems("docs/appendix-more.md", text)).toHaveLength(1);
  expect(learnerPageProblems("docs/protocol.md", text)).toEqual([]);
  expect(learnerPageProblems("docs/decisions/0099-anything.md", text)).toEqual([]);
});

test("the course map's steps add up to the pages they link to, a second part with its first", () => {
  const map = (first: string, second: string) =>
    [
      "| day   | step                          | time   |",
      "| ----- | ----------------------------- | ------ |",
      `| Day 9 | [v1: one](day-9.md#v1-one)     | ${first} |`,
      `| Day 9 | [v2: two](day-9.md#v2-two)     | ${second} |`,
      "| Day 9 | [v3: three](day-9-more.md#v3) | 1 h    |",
    ].join("\n");
  const pages = (first: string, second: string) => [
    { file: "docs/README.md", text: map(first, second) },
    { file: "docs/day-9.md", text: "**Time:** about 1 hour 15." },
    // No row of its own: the rest of day-9.md's steps.
    { file: "docs/day-9-approve.md", text: "**Time:** about 30 minutes." },
    { file: "docs/day-9-more.md", text: "**Time:** about 1 hour." },
  ];
  expect(courseMapProblems(pages("1 h   ", "45 min"))).toEqual([]);
  expect(courseMapProblems(pages("45 min", "45 min")).map(formatProblem)).toEqual([
    "docs/README.md:3: the course map's steps on day-9.md and day-9-approve.md add up to 1 hour 30, the pages state 1 hour 45",
  ]);
});

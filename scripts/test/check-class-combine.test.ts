// check:class combine on reports a learner's own code could have written (in a matrix job, their
// program runs where their report is made): every text of theirs stays text in class.md, their
// page and the step summary; a report whose stages or scenarios are not the course's is not graded,
// and none of its values is shown; `unsandboxed` goes from their reports into every file of the
// class; and the lines printed on the terminal carry none of their escape sequences.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { findContract, runCli } from "@agent-code/test-kit";
import { parse, type TestSuites } from "junit2json";
import { afterAll, expect, test } from "vitest";
import { type ClassReport, combineClass } from "../lib/check-class.ts";
import type { CheckReport, StageReport } from "../lib/check-run.ts";

const SCRIPT = fileURLToPath(new URL("../check-class.ts", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "check-class-combine-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const SEED = 7;
const STAGES_GRADED = ["day-1", "day-2-v1"];

// A report as `pnpm check --stages day-1,day-2-v1 --json` writes it, every scenario of each
// contract passed but those named in `failing`.
function checkReport(failing: string[] = [], extra: Partial<CheckReport> = {}): CheckReport {
  const stages: StageReport[] = STAGES_GRADED.map((stage) => {
    const scenarios = (findContract(stage)?.scenarios ?? []).map((scenario) => {
      const failed = failing.includes(`${stage}/${scenario.id}`);
      return {
        id: scenario.id,
        aliases: [],
        title: scenario.title,
        level: scenario.level,
        verdict: failed ? ("fail" as const) : ("pass" as const),
        timedOut: false,
        failures: failed ? [{ message: "it missed", docs: null }] : [],
        serverText: null,
        stderrTail: null,
      };
    });
    const count = (level: "core" | "conformance") => {
      const of = scenarios.filter((scenario) => scenario.level === level);
      return {
        passed: of.filter((scenario) => scenario.verdict === "pass").length,
        total: of.length,
      };
    };
    const passed = scenarios.every((one) => one.level !== "core" || one.verdict === "pass");
    return {
      stage,
      title: stage,
      passed,
      reached: passed,
      mainLine: true,
      counts: { core: count("core"), conformance: count("conformance") },
      scenarios,
      durationMs: 10,
    };
  });
  const reached = stages.filter((stage) => stage.reached).map((stage) => stage.stage);
  return {
    version: 5,
    course: { commit: null, version: "0.0.0" },
    checkedAt: "2026-01-01T00:00:00.000Z",
    project: "/p",
    projectCommit: null,
    seed: SEED,
    command: ["node"],
    strict: false,
    complete: true,
    stages,
    highestStagePassed: reached.at(-1) ?? null,
    optionalPassed: [],
    nextToFix: null,
    ...extra,
  };
}

function reportsFolder(name: string, reports: Record<string, unknown>): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const [learner, report] of Object.entries(reports)) {
    writeFileSync(join(dir, `${learner}.json`), `${JSON.stringify(report, null, 2)}\n`);
  }
  return dir;
}

function read(out: string, ...path: string[]): string {
  return readFileSync(join(out, ...path), "utf8");
}

// How many times `char` stands unescaped in `line` (not after an odd run of backslashes), outside
// code spans.
function unescaped(line: string, char: string): number {
  line = line.replace(/(?<!\\)`[^`]*`/g, "");
  let count = 0;
  for (let at = line.indexOf(char); at >= 0; at = line.indexOf(char, at + 1)) {
    let slashes = 0;
    while (line[at - 1 - slashes] === "\\") slashes++;
    if (slashes % 2 === 0) count++;
  }
  return count;
}

// The control characters in `text` but tab and line feed: what a terminal would act on.
function controls(text: string): string[] {
  return [...text].filter((char) => {
    const code = char.codePointAt(0) ?? 0;
    return (code < 0x20 && char !== "\t" && char !== "\n") || (code >= 0x7f && code < 0xa0);
  });
}

// Markdown made of forged text: a row, a cell, a link, an image, HTML, a code span, a heading and
// a terminal's escape sequence.
const FORGED =
  "<img src=x> [a link](https://evil.example) `code` boom | forged cell\n" +
  "| mallory | day-5-v5 | 16/16 | none |\n# Forged heading\n" +
  "![img](https://evil.example/i.png) <script>alert(1)</script> \\| \u001b[2J";
// Its start, escaped: what a cell of the table has room for.
const ESCAPED = "\\<img src=x\\> \\[a link\\](https://evil.example) \\`code\\` boom \\|";

test("a learner's texts stay text in class.md, their page and the step summary", () => {
  const dir = reportsFolder("forged", {
    ada: checkReport(),
    // mal's program "does not start", with a line of stderr made to forge the table.
    mal: checkReport(["day-1/echo-round-trip"], {
      highestStagePassed: null,
      startError: FORGED,
      projectCommit: "0123456789abcdef0123456789abcdef01234567",
    }),
    // ned's check chose a next thing to fix whose title and message are the forgery.
    ned: checkReport(["day-2-v1/one-line-answer"], {
      highestStagePassed: "day-1",
      nextToFix: {
        stage: "day-2-v1",
        id: "one-line-answer",
        title: FORGED,
        message: FORGED,
        docs: "docs/day-2.md#v1",
      },
    }),
  });
  const out = join(root, "forged-grades");
  let summary = "";
  const report = combineClass(
    { dir, out },
    {
      written: (markdown) => {
        summary = markdown;
      },
    },
  );
  expect(report.learners.map((row) => [row.learner, row.error])).toEqual([
    ["ada", null],
    ["mal", null],
    ["ned", null],
  ]);
  expect(report.learners[1]?.startError).toBe(FORGED);
  const table = read(out, "class.md");
  // The step summary is the table.
  expect(summary).toBe(table);
  // A row a learner, each of four cells; the forged row, heading and markup are text in a cell.
  const rows = table.split("\n").filter((line) => line.startsWith("|"));
  expect(rows.map((line) => line.split(" | ")[0])).toEqual([
    "| learner",
    "| ---",
    "| ada",
    "| mal",
    "| ned",
  ]);
  for (const line of rows) expect(unescaped(line, "|")).toBe(5);
  for (const text of [table, read(out, "reports", "mal.md"), read(out, "reports", "ned.md")]) {
    expect(text).toContain(ESCAPED);
    expect(text).not.toMatch(/(?<!\\)<(img|script)/);
    expect(controls(text)).toEqual([]);
    expect(text).not.toMatch(/^# Forged/m);
    expect(text).not.toMatch(/^\| mallory/m);
    for (const line of text.split("\n")) {
      expect(unescaped(line, "[")).toBe(0);
      expect(unescaped(line, "<")).toBe(0);
    }
  }
  for (const page of [read(out, "reports", "mal.md"), read(out, "reports", "ned.md")]) {
    expect(page).toContain("!\\[img\\](https://evil.example/i.png) \\<script\\>");
    expect(page).toContain("\\\\\\| \uFFFD\\[2J");
  }
  expect(table).toContain(`| mal | does not start | 0/2 | ${ESCAPED}`);
  expect(table).toContain("| ned | day-1 | 1/2 | `day-2-v1/one-line-answer` |");
  // mal's page: the cause on the first line, the forged rows in it as text.
  const mal = read(out, "reports", "mal.md").split("\n");
  expect(mal[0]).toBe(
    `# agent-code check, mal: does not start (0 of 2 points): ${ESCAPED} forged cell \\| mallory \\| day-5-v5 \\| 16/16 \\| none \\| # Forged heading !\\[img\\](https://evil.example/i.png) \\<script\\>alert(1)\\</script\\> \\\\\\| \uFFFD\\[2J`,
  );
  expect(mal.filter((line) => line.startsWith("#")).map((line) => line.split(" ")[0])).toEqual([
    "#",
    "##",
    "##",
  ]);
  // ned's: the quoted message keeps its lines, none of which starts a heading or a table row.
  const ned = read(out, "reports", "ned.md");
  expect(ned).toContain(`> ${ESCAPED} forged cell\n> \\| mallory \\| day-5-v5`);
  expect(ned).toContain("> \\# Forged heading\n");
  expect(ned).toContain("Read: `docs/day-2.md#v1` in the course.");
});

test("a report naming a stage or scenario the course does not have is not graded, and none of its values is shown", () => {
  const good = checkReport(["day-2-v1/one-line-answer"], { highestStagePassed: "day-1" });
  const nextToFix = {
    stage: "day-2-v1",
    id: "one-line-answer",
    title: "t",
    message: "m",
    docs: null,
  };
  const forged = "day-5-v5](https://evil.example)";
  const withStage = (stage: string) => {
    const report = checkReport();
    const [first] = report.stages;
    if (first !== undefined) first.stage = stage;
    return report;
  };
  const withScenario = (id: string) => {
    const report = checkReport();
    const scenario = report.stages[0]?.scenarios[0];
    if (scenario !== undefined) scenario.id = id;
    return report;
  };
  const withCounts = () => {
    const report = checkReport() as unknown as { stages: { counts: unknown }[] };
    const [first] = report.stages;
    if (first !== undefined) first.counts = { core: { passed: "<b>all</b>", total: 1 } };
    return report;
  };
  const dir = reportsFolder("unknown", {
    ada: good,
    bea: checkReport([], { highestStagePassed: forged }),
    cal: checkReport(["day-2-v1/one-line-answer"], {
      highestStagePassed: "day-1",
      nextToFix: { ...nextToFix, stage: forged },
    }),
    dov: checkReport(["day-2-v1/one-line-answer"], {
      highestStagePassed: "day-1",
      nextToFix: { ...nextToFix, id: forged },
    }),
    eli: withStage(forged),
    fox: withScenario(forged),
    gil: withCounts(),
    hal: checkReport([], { checkedAt: forged }),
    ivy: checkReport([], { seed: forged as unknown as number }),
  });
  const out = join(root, "unknown-grades");
  const report = combineClass({ dir, out });
  const not = (why: string) =>
    `not checked: ${why.slice(0, 3)}.json is not a report this course's check wrote: ${why.slice(4)}`;
  expect(report.learners.map((row) => row.error)).toEqual([
    null,
    not("bea highestStagePassed is not a main-line stage it checked"),
    not("cal nextToFix.stage is not a stage of the course"),
    not("dov nextToFix.id is not a scenario of day-2-v1"),
    not("eli stages[0].stage is not a stage of the course"),
    not("fox stages[0].scenarios[0].id is not a scenario of day-1"),
    not("gil stages[0].counts are not counts"),
    not("hal checkedAt is not a time"),
    not("ivy seed is not a whole number"),
  ]);
  // The class is graded on the one report that could be the course's.
  expect(report.stages).toEqual(STAGES_GRADED);
  expect(report.seed).toBe(SEED);
  expect(report.learners.slice(1).every((row) => row.points.awarded === null)).toBe(true);
  for (const file of ["class.md", "class.json", "class.xml", "points.csv"]) {
    expect(read(out, file)).not.toContain("evil.example");
    expect(read(out, file)).not.toContain("<b>");
  }
  for (const row of report.learners) {
    expect(read(out, "reports", `${row.learner}.md`)).not.toContain("evil.example");
  }
});

test("unsandboxed in learners' reports reaches class.json, class.md, class.xml and their pages, naming whose", async () => {
  const why =
    "learner code runs without a sandbox (it needs Linux): it can read and write whatever this user can";
  const dir = reportsFolder("unsandboxed", {
    ada: checkReport([], { unsandboxed: why }),
    ben: checkReport(),
    cy: checkReport([], { unsandboxed: why, seed: SEED + 1 }),
  });
  const out = join(root, "unsandboxed-grades");
  const report = combineClass({ dir, out });
  const json: ClassReport = JSON.parse(read(out, "class.json"));
  expect(json.unsandboxed).toBe(why);
  expect(json.learners.map((row) => [row.learner, row.unsandboxed])).toEqual([
    ["ada", why],
    ["ben", undefined],
    // Not graded (another seed), but its code ran, and without the sandbox.
    ["cy", why],
  ]);
  expect(report.unsandboxed).toBe(why);
  // Under the heading, before anything else: whose code, and why.
  const table = read(out, "class.md").split("\n");
  expect(table.slice(2, 4).join(" ")).toBe(
    `**Learner code ran without the sandbox for ada, cy**: ${why}`,
  );
  for (const line of table) expect(line.length).toBeLessThanOrEqual(100);
  const xml = (await parse(read(out, "class.xml"))) as TestSuites;
  const property = (learner: string) =>
    xml.testsuite
      ?.find((suite) => suite.name === learner)
      ?.properties?.find((one) => one.name === "unsandboxed")?.value;
  expect([property("ada"), property("ben"), property("cy")]).toEqual([why, undefined, why]);
  const line = `**Learner code ran without the sandbox** on the grader's machine: ${why}`;
  expect(read(out, "reports", "ada.md").split("\n")[4]).toBe(line);
  expect(read(out, "reports", "cy.md")).toContain(line);
  expect(read(out, "reports", "ben.md")).not.toContain("without the sandbox");
});

test("combine's lines on the terminal carry no escape sequence of a learner's", async () => {
  const stderr = "Error: \u001b]0;pwned\u0007\u001b[2J\u001b[31mred\r\u009b1A\u007f and\ta tab";
  const dir = reportsFolder("terminal", {
    ada: checkReport(),
    mal: checkReport(["day-1/echo-round-trip"], { highestStagePassed: null, startError: stderr }),
  });
  writeFileSync(join(dir, "e\u001b[7mve.json"), "not json\n");
  const run = await runCli(
    ["node", "--import", "tsx", SCRIPT],
    ["combine", dir, "--out", join(root, "terminal-grades")],
    { env: { INIT_CWD: root, GITHUB_STEP_SUMMARY: undefined }, timeoutMs: 60_000 },
  );
  expect(run.exitCode, run.stderr).toBe(1);
  // Every control character but the tab is U+FFFD: no title, clear, colour, return or cursor move.
  expect(controls(run.stdout)).toEqual([]);
  expect(run.stdoutLines).toEqual([
    "ada: highest stage passed: day-2-v1",
    "e\uFFFD[7mve: not checked: e\uFFFD[7mve.json is not a check's report (its check did not finish)",
    "mal: does not start: Error: \uFFFD]0;pwned\uFFFD\uFFFD[2J\uFFFD[31mred\uFFFD\uFFFD1A\uFFFD and\ta tab",
    `class report: ${join(root, "terminal-grades", "class.md")} and class.json`,
  ]);
}, 60_000);

// --reporter junit, read back with a JUnit reader (junit2json), and the GitHub Actions step
// summary: one test case per scenario, core misses as failures, notes, outgrown misses and an
// optional stage's misses as skipped.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { findContract, runCli } from "@agent-code/test-kit";
import { parse, type TestSuites } from "junit2json";
import { afterAll, expect, test } from "vitest";
import { checkSettings } from "../check.ts";
import { BUILD_CASE, failureSummary, junitXml, stepSummary } from "../lib/check-junit.ts";
import type { CheckReport, ScenarioReport } from "../lib/check-run.ts";
import { ROOT, stageDir } from "../lib/command.ts";

const SCRIPT = fileURLToPath(new URL("../check.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "check-junit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("day-2-v3's CLI against day-1: a case per scenario, outgrown misses and notes skip; a summary table", async () => {
  const summary = join(dir, "summary.md");
  const run = await junit("day-1", "day-2-v3", summary);
  // Day 1's echo round is what day-2-v1 dropped, and this CLI does what day-2-v1 asks: day-1 is
  // reached (decision 0070), and its misses are outgrown, not failures.
  expect(run.exitCode).toBe(0);
  const xml = (await parse(run.stdout)) as TestSuites;
  const [suite] = xml.testsuite ?? [];
  const scenarios = findContract("day-1")?.scenarios ?? [];
  expect(suite?.name).toBe("day-1");
  expect(suite?.testcase?.map((testCase) => testCase.name)).toEqual(
    scenarios.map((scenario) => `${scenario.title} [${scenario.id}]`),
  );
  expect(suite?.tests).toBe(scenarios.length);
  const echo = caseOf(suite, "echo-round-trip");
  expect(echo?.classname).toBe("day-1.core");
  expect(echo?.failure).toBeUndefined();
  expect(echo?.skipped?.[0]?.message).toBe(
    "outgrown (a later stage changed it, and the project does what that stage asks): exit code should be 0 (a finished run exits 0)",
  );
  expect(echo?.["system-out"]?.[0]).toContain("stderr (last lines):");
  // Conformance misses are skipped too, never failures; passes have neither.
  const skipped = (suite?.testcase ?? []).filter((testCase) => testCase.skipped !== undefined);
  expect(skipped.filter((one) => one.classname === "day-1.conformance").length).toBeGreaterThan(0);
  expect(suite?.failures).toBe(0);
  expect(suite?.skipped).toBe(skipped.length);
  const table = readFileSync(summary, "utf8").split("\n");
  expect(table).toContain("highest stage passed: **day-1**");
  const core = scenarios.filter((scenario) => scenario.level === "core").length;
  expect(table.find((line) => line.startsWith("| day-1 |"))).toMatch(
    new RegExp(`^\\| day-1 \\| yes \\| 0/${core} \\| \\d+/\\d+ \\| none \\|$`),
  );
}, 60_000);

test("day-1's CLI against day-2-v1: core misses fail, notes skip; a summary table", async () => {
  const summary = join(dir, "summary-v1.md");
  const run = await junit("day-2-v1", "day-1", summary);
  expect(run.exitCode).toBe(1);
  const xml = (await parse(run.stdout)) as TestSuites;
  const [suite] = xml.testsuite ?? [];
  // Day 1's CLI talks to no model: the one-line answer fails, a core failure.
  const answer = caseOf(suite, "one-line-answer");
  expect(answer?.classname).toBe("day-2-v1.core");
  expect(answer?.failure?.[0]?.message).toBe(
    "no request reached the test server: read the base URL from ANTHROPIC_BASE_URL",
  );
  const skipped = (suite?.testcase ?? []).filter((testCase) => testCase.skipped !== undefined);
  expect(skipped.length).toBeGreaterThan(0);
  for (const testCase of skipped) {
    expect(testCase.classname).toBe("day-2-v1.conformance");
    expect(testCase.failure).toBeUndefined();
  }
  const failed = (suite?.testcase ?? []).filter((testCase) => testCase.failure !== undefined);
  expect(suite?.failures).toBe(failed.length);
  expect(suite?.skipped).toBe(skipped.length);
  expect(failed.every((testCase) => testCase.classname === "day-2-v1.core")).toBe(true);
  const properties = Object.fromEntries(
    (suite?.properties ?? []).map((property) => [property.name, property.value]),
  );
  expect(properties).toMatchObject({ project: ROOT, passed: "false", complete: "true" });
  const table = readFileSync(summary, "utf8").split("\n");
  expect(table).toContain("highest stage passed: **none**");
  const core = (findContract("day-2-v1")?.scenarios ?? []).filter(
    (scenario) => scenario.level === "core",
  ).length;
  expect(table.find((line) => line.startsWith("| day-2-v1 |"))).toMatch(
    new RegExp(`^\\| day-2-v1 \\| no \\| \\d+/${core} \\| \\d+/\\d+ \\| .*\`one-line-answer\``),
  );
}, 60_000);

// `pnpm check <stage> --reporter junit` on a stage's bundle, with a step summary.
function junit(stage: string, bundle: string, summary: string) {
  return runCli(
    ["node", "--import", "tsx", SCRIPT],
    [
      stage,
      "--cmd",
      `node ${join(stageDir(bundle), "dist", "agent-code.mjs")}`,
      "--reporter",
      "junit",
    ],
    {
      env: { INIT_CWD: ROOT, GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: summary },
      timeoutMs: 60_000,
    },
  );
}

function caseOf(suite: NonNullable<TestSuites["testsuite"]>[number] | undefined, id: string) {
  return (suite?.testcase ?? []).find((testCase) => testCase.name?.endsWith(`[${id}]`));
}

test("markup and control characters in a program's output still make valid XML", async () => {
  const report: CheckReport = {
    version: 5,
    course: { commit: null, version: "0.1.0" },
    checkedAt: "2026-12-01T15:00:00.000Z",
    project: "/p <&>",
    command: ["node", 'say "hi"'],
    strict: false,
    complete: true,
    highestStagePassed: null,
    stages: [
      {
        stage: "day-1",
        title: "Day 1",
        passed: false,
        counts: { core: { passed: 0, total: 1 }, conformance: { passed: 0, total: 1 } },
        scenarios: [
          {
            id: "a",
            aliases: [],
            title: 'a <b> & "c"',
            level: "core",
            verdict: "fail",
            timedOut: false,
            failures: [{ message: "expected </x> & more", docs: null }],
            serverText: null,
            stderrTail: ["bell \u0007 and escape \u001b[31m red ]]>\u009b2J\u007f"],
          },
          {
            id: "b",
            aliases: [],
            title: "b",
            level: "conformance",
            verdict: "note",
            timedOut: false,
            failures: [{ message: "a note", docs: "docs/day-1.md#faq" }],
            serverText: null,
            stderrTail: null,
          },
        ],
      },
    ],
  };
  const xml = (await parse(junitXml(report))) as TestSuites;
  const [first, second] = xml.testsuite?.[0]?.testcase ?? [];
  expect(first?.name).toBe('a <b> & "c" [a]');
  expect(first?.failure?.[0]?.message).toBe("expected </x> & more");
  expect(first?.failure?.[0]?.inner).toContain("bell  and escape [31m red ]]>2J");
  expect(second?.skipped?.[0]?.message).toBe("note (conformance, counts with --strict): a note");
  expect(second?.["system-out"]?.[0]).toContain("read: docs/day-1.md#faq");
  expect(xml.tests).toBe(2);
  expect(xml.failures).toBe(1);
});

test("--reporter takes text, json or junit, and --json only with json", () => {
  const error = (argv: string[]) => {
    try {
      checkSettings(argv, ROOT);
    } catch (caught) {
      return (caught as Error).message;
    }
    return "";
  };
  expect(error(["day-1", "--cmd", "x", "--reporter", "tap"])).toBe(
    "--reporter is text, json or junit: tap",
  );
  expect(error(["day-1", "--cmd", "x", "--json", "--reporter", "junit"])).toBe(
    "--json does not go with --reporter junit",
  );
  expect(checkSettings(["day-1", "--cmd", "x", "--reporter", "junit"], ROOT).reporter).toBe(
    "junit",
  );
  expect(checkSettings(["day-1", "--cmd", "x", "--json"], ROOT).reporter).toBe("json");
});

// Issue #57: a perfect learner's JUnit showed failures from the optional stages. Only a deciding
// miss that counts against the headline fails; an outgrown one and an optional stage's are skipped,
// each with the reason.
test("outgrown misses and an optional stage's misses are skipped with the reason, never failures", async () => {
  const miss = (id: string, outgrown = false): ScenarioReport => ({
    id,
    aliases: [],
    title: id,
    level: "core",
    verdict: "fail",
    timedOut: false,
    failures: [{ message: `${id} missed`, docs: null }],
    serverText: null,
    stderrTail: null,
    outgrown,
  });
  const stage = (name: string, mainLine: boolean, scenarios: ScenarioReport[]) => ({
    stage: name,
    title: name,
    passed: false,
    reached: scenarios.every((one) => one.outgrown === true),
    mainLine,
    counts: { core: { passed: 0, total: scenarios.length }, conformance: { passed: 0, total: 0 } },
    scenarios,
  });
  const report: CheckReport = {
    version: 5,
    course: { commit: null, version: "0.1.0" },
    checkedAt: "2026-12-01T15:00:00.000Z",
    project: "/p",
    command: ["x"],
    strict: false,
    complete: true,
    highestStagePassed: "day-1",
    stages: [
      stage("day-1", true, [miss("echo-round-trip", true)]),
      stage("day-2-challenges", false, [miss("streams")]),
      stage("day-2-v1", true, [miss("one-line-answer")]),
    ],
  };
  const xml = (await parse(junitXml(report))) as TestSuites;
  expect(xml).toMatchObject({ tests: 3, failures: 1, skipped: 2, errors: 0 });
  const cases = (xml.testsuite ?? []).map((suite) => {
    const [one] = suite.testcase ?? [];
    return [suite.name, one?.failure?.[0]?.message ?? null, one?.skipped?.[0]?.message ?? null];
  });
  expect(cases).toEqual([
    [
      "day-1",
      null,
      "outgrown (a later stage changed it, and the project does what that stage asks): echo-round-trip missed",
    ],
    ["day-2-challenges", null, "optional stage, apart from the headline: streams missed"],
    ["day-2-v1", "one-line-answer missed", null],
  ]);
  expect(xml.testsuite?.map((suite) => [suite.failures, suite.skipped])).toEqual([
    [0, 1],
    [0, 1],
    [1, 0],
  ]);
});

test("the step summary shows a program's stderr and the messages as text; no sandbox is said", async () => {
  // A line of stderr made to forge the summary: a row, a link, HTML, a code span, a terminal code.
  const forged =
    "<img src=x> [a link](https://evil.example) `code` | cell\n| forged | row |\u001b[2J";
  const escaped =
    "\\<img src=x\\> \\[a link\\](https://evil.example) \\`code\\` \\| cell \\| forged \\| row \\|\uFFFD\\[2J";
  const why = "learner code runs without a sandbox (it needs Linux): it can read and write";
  const report: CheckReport = {
    version: 5,
    course: { commit: null, version: "0.1.0" },
    checkedAt: "2026-12-01T15:00:00.000Z",
    project: "/p",
    command: ["node"],
    strict: false,
    complete: true,
    highestStagePassed: null,
    startError: forged,
    unsandboxed: why,
    nextToFix: {
      stage: "day-1",
      id: "echo-round-trip",
      title: "the <b>echo</b>",
      message: forged,
      docs: "docs/day-1.md#the-repl-and-the-working-directory",
    },
    stages: [
      {
        stage: "day-1",
        title: "Day 1",
        passed: false,
        counts: { core: { passed: 0, total: 1 }, conformance: { passed: 0, total: 0 } },
        scenarios: [
          {
            id: "echo-round-trip",
            aliases: [],
            title: "echo",
            level: "core",
            verdict: "fail",
            timedOut: false,
            failures: [{ message: forged, docs: null }],
            serverText: null,
            stderrTail: null,
          },
        ],
      },
    ],
  };
  const summary = stepSummary(report).split("\n");
  expect(summary).toContain(`**does not start**: ${escaped}`);
  expect(summary).toContain(`**Learner code ran without the sandbox**: ${why}`);
  expect(summary).toContain(
    `next to fix (day-1): the \\<b\\>echo\\</b\\> \`echo-round-trip\`: ${escaped} (read \`docs/day-1.md#the-repl-and-the-working-directory\`)`,
  );
  // One table row for the one stage, of five cells; no forged row or markup of its own.
  expect(summary.filter((line) => line.startsWith("|"))).toEqual([
    "| stage | passed | core | conformance | failing core scenarios |",
    "| --- | --- | --- | --- | --- |",
    "| day-1 | no | 0/1 | 0/0 | `echo-round-trip` |",
  ]);
  expect(summary.join("\n")).not.toMatch(/(?<!\\)<img/);
  expect(summary.join("\n")).not.toContain(String.fromCharCode(0x1b));
  // Sources that do not build: esbuild's line quotes the learner's code, and is text too.
  const failed = failureSummary({
    course: report.course,
    checkedAt: report.checkedAt,
    project: "/p",
    projectCommit: null,
    stages: ["day-1"],
    seed: null,
    name: BUILD_CASE,
    message: forged,
  });
  expect(failed).toContain(`**does not build**: ${escaped}\n`);
  // The JUnit file says it too, on each stage's suite.
  const xml = (await parse(junitXml(report))) as TestSuites;
  const suite = xml.testsuite?.find((one) => one.name === "day-1");
  expect(suite?.properties?.find((one) => one.name === "unsandboxed")?.value).toBe(why);
});

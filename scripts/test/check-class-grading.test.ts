// gradeClass with each project's check scripted (no process started): projects graded several at
// once and tabled by name whatever order they finish in, the headline and points, the failing
// core scenarios above the headline only, the feedback page, files written when it stops, no
// points for a project not checked, optional stages skipped in JUnit, and brief reports.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { parse, type TestSuites } from "junit2json";
import { afterAll, expect, test } from "vitest";
import { type ClassSettings, gradeClass, type ProjectRun } from "../lib/check-class.ts";
import { unsandboxed } from "../lib/check-sandbox.ts";
import { isMainLine, ROOT, STAGES } from "../lib/command.ts";
import { schemaErrors } from "./json-schema.ts";

const SCHEMA = JSON.parse(readFileSync(join(ROOT, "scripts", "lib", "check-schema.json"), "utf8"));

const root = mkdtempSync(join(tmpdir(), "check-class-grading-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface FakeScenario {
  id: string;
  level?: "core" | "conformance";
  verdict: "pass" | "fail" | "note";
  message?: string;
  docs?: string;
}

// A check report as `pnpm check --json` prints it, with only what the class reads filled in (the
// next thing to fix, which the check chooses, comes in `extra`).
function report(
  highest: string | null,
  stages: Record<string, FakeScenario[]>,
  extra: Record<string, unknown> = {},
): string {
  return JSON.stringify({
    version: 5,
    course: { commit: null, version: "0.0.0" },
    checkedAt: "2026-01-01T00:00:00.000Z",
    project: "/p",
    command: ["node"],
    strict: false,
    complete: true,
    highestStagePassed: highest,
    stages: Object.entries(stages).map(([stage, scenarios]) => {
      const core = scenarios.filter((scenario) => (scenario.level ?? "core") === "core");
      return {
        stage,
        title: stage,
        mainLine: isMainLine(stage),
        passed: core.every((scenario) => scenario.verdict === "pass"),
        counts: {
          core: { passed: core.filter((s) => s.verdict === "pass").length, total: core.length },
          conformance: { passed: 0, total: 0 },
        },
        scenarios: scenarios.map((scenario) => ({
          id: scenario.id,
          aliases: [],
          title: `the ${scenario.id} title`,
          level: scenario.level ?? "core",
          verdict: scenario.verdict,
          timedOut: false,
          failures:
            scenario.verdict === "pass"
              ? []
              : [
                  {
                    message: scenario.message ?? `${scenario.id} failed`,
                    docs: scenario.docs ?? null,
                  },
                ],
          serverText: null,
          stderrTail: null,
        })),
      };
    }),
    ...extra,
  });
}

function classFolder(name: string, learners: string[]): { dir: string; out: string } {
  const dir = join(root, name, "projects");
  for (const learner of learners) mkdirSync(join(dir, learner), { recursive: true });
  return { dir, out: join(root, name, "grades") };
}

function settings(dir: string, out: string, jobs: number): ClassSettings {
  return { dir, out, stages: STAGES, seed: 0, checkArgs: [], jobs, projectTimeoutMs: 60_000 };
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

test("projects run at once and the table is by name, whatever order they finish in", async () => {
  const { dir, out } = classFolder("order", ["ada", "ben", "cy"]);
  const delays: Record<string, number> = { ada: 300, ben: 0, cy: 100 };
  let running = 0;
  let most = 0;
  const progress: string[] = [];
  const result = await gradeClass(settings(dir, out, 3), {
    progress: (line) => progress.push(line.replace(/\(\d+ s\)$/, "(N s)")),
    check: async (project): Promise<ProjectRun> => {
      running++;
      most = Math.max(most, running);
      await sleep(delays[basename(project)] ?? 0);
      running--;
      const stages = { "day-1": [{ id: "echo-round-trip", verdict: "pass" as const }] };
      return { exitCode: 0, stdout: report("day-1", stages), stderr: "", timedOut: false };
    },
  });
  expect(most).toBe(3);
  expect(progress).toEqual([
    "[1/3] ada: checking",
    "[2/3] ben: checking",
    "[3/3] cy: checking",
    "[2/3] ben: day-1 (N s)",
    "[3/3] cy: day-1 (N s)",
    "[1/3] ada: day-1 (N s)",
  ]);
  expect(result.learners.map((row) => row.learner)).toEqual(["ada", "ben", "cy"]);
  const rows = readFileSync(join(out, "class.md"), "utf8")
    .split("\n")
    .filter((line) => /^\| (ada|ben|cy) /.test(line))
    .map((line) => line.split(" | ")[0]);
  expect(rows).toEqual(["| ada", "| ben", "| cy"]);
  expect(readFileSync(join(out, "points.csv"), "utf8").split("\n")[1]).toMatch(
    /^ada,day-1,1,\d+,$/,
  );
});

test("one job at a time keeps to one", async () => {
  const { dir, out } = classFolder("one-job", ["ada", "ben"]);
  let running = 0;
  let most = 0;
  await gradeClass(settings(dir, out, 1), {
    check: async () => {
      running++;
      most = Math.max(most, running);
      await sleep(20);
      running--;
      return { exitCode: 1, stdout: report(null, {}), stderr: "", timedOut: false };
    },
  });
  expect(most).toBe(1);
});

test("the failing column and the feedback name only core misses above the headline", async () => {
  const { dir, out } = classFolder("headline", ["ada"]);
  const stages = {
    // Outgrown: Day 1's scenarios fail in a Day 2 project, and must not be listed.
    "day-1": [{ id: "repl-runs-each-line", verdict: "fail" as const }],
    "day-2-v1": [{ id: "system-date-round", verdict: "pass" as const }],
    // An optional stage's miss is not the learner's next step either.
    "day-2-challenges": [{ id: "streams", verdict: "fail" as const }],
    "day-3-v1": [
      {
        id: "read-file",
        verdict: "fail" as const,
        message: "the read_file tool should be offered",
        docs: "docs/day-3.md#v1-reading-files",
      },
      { id: "exact-text", level: "conformance" as const, verdict: "note" as const },
      { id: "list-files", verdict: "fail" as const },
    ],
    // Kept scenarios fail again in later stages: each is listed once, at its first stage.
    "day-3-v2": [
      { id: "read-file", verdict: "fail" as const },
      { id: "list-files", verdict: "fail" as const },
      { id: "grep", verdict: "fail" as const },
      { id: "glob", verdict: "fail" as const },
      { id: "fine", verdict: "pass" as const },
    ],
  };
  const result = await gradeClass(settings(dir, out, 2), {
    check: async () => ({
      exitCode: 0,
      stdout: report("day-2-v1", stages, {
        projectCommit: "0a1b2c3d",
        nextToFix: {
          stage: "day-3-v1",
          id: "read-file",
          title: "the read-file title",
          message: "the read_file tool should be offered",
          docs: "docs/day-3.md#v1-reading-files",
        },
      }),
      stderr: "",
      timedOut: false,
    }),
  });
  const [ada] = result.learners;
  expect(ada?.highestStagePassed).toBe("day-2-v1");
  expect(ada?.commit).toBe("0a1b2c3d");
  expect(ada?.failingCore).toEqual([
    "day-3-v1/read-file",
    "day-3-v1/list-files",
    "day-3-v2/grep",
    "day-3-v2/glob",
  ]);
  // Day 1 and Day 2 v1 are below or at the headline: two points of the main line.
  expect(ada?.points.awarded).toBe(2);
  expect(ada?.points.available).toBe(
    result.stages.filter((s) => /^day-\d+(-v\d+)?$/.test(s)).length,
  );
  const table = readFileSync(join(out, "class.md"), "utf8");
  expect(table).toContain(
    `| ada | day-2-v1 | 2/${ada?.points.available} | \`day-3-v1/read-file\` and 3 more |`,
  );
  expect(table).not.toContain("repl-runs-each-line");
  expect(table).not.toContain("streams");

  const feedback = join(out, "reports", "ada.md");
  expect(statSync(feedback).size).toBeLessThan(10_000);
  const page = readFileSync(feedback, "utf8");
  expect(page.split("\n")[0]).toBe(
    `# agent-code check, ada: highest stage passed day-2-v1 (2 of ${ada?.points.available} points)`,
  );
  expect(page).toContain("your commit 0a1b2c3d");
  expect(page).toContain("day-3-v1, `read-file`: the read-file title");
  expect(page).toContain("> the read_file tool should be offered");
  expect(page).toContain("Read: `docs/day-3.md#v1-reading-files` in the course.");
  expect(page).toContain("After it, 3 more core scenarios above your highest stage.");
  expect(page).toContain("| day-3-v2 | 1 of 5 passed | not reached |");
  expect(page).toContain("| day-2-challenges (optional) | 0 of 1 passed | not passed |");
  expect(page).not.toContain("repl-runs-each-line");
});

test("the check's own next thing to fix wins when its report has one", async () => {
  const { dir, out } = classFolder("next", ["ada"]);
  const next = {
    stage: "day-2-v2",
    id: "parallel-tool-calls",
    title: "both results in one message",
    message: "both tool_result blocks should sit in one user message",
    docs: "docs/day-2.md#every-result-of-a-turn-in-one-message",
  };
  const stages = { "day-2-v2": [{ id: "parallel-tool-calls", verdict: "fail" as const }] };
  const result = await gradeClass(settings(dir, out, 1), {
    check: async () => ({
      exitCode: 1,
      stdout: report(null, stages, { nextToFix: next }),
      stderr: "",
      timedOut: false,
    }),
  });
  expect(result.learners[0]?.nextToFix).toEqual(next);
  expect(readFileSync(join(out, "reports", "ada.md"), "utf8")).toContain(
    "> both tool_result blocks should sit in one user message",
  );
});

test("a grader that fails part-way still leaves the table, the JSON and the points", async () => {
  const { dir, out } = classFolder("stops", ["ada", "ben", "cy"]);
  const failing = gradeClass(settings(dir, out, 1), {
    check: async (project) => {
      if (basename(project) === "ben") throw new Error("the disk is full");
      return { exitCode: 1, stdout: report(null, {}), stderr: "", timedOut: false };
    },
  });
  await expect(failing).rejects.toThrow("the disk is full");
  const json = JSON.parse(readFileSync(join(out, "class.json"), "utf8"));
  expect(json.learners.map((row: { error: string | null }) => row.error)).toEqual([
    null,
    "not checked: check:class stopped before this project",
    "not checked: check:class stopped before this project",
  ]);
  const available = json.learners[0].points.available;
  expect(readFileSync(join(out, "class.md"), "utf8")).toContain(
    `| cy | not checked | -/${available} | check:class stopped before this project |`,
  );
  // Not checked is no grade at all: an empty cell and the reason, never 0 points.
  expect(readFileSync(join(out, "points.csv"), "utf8")).toContain(
    `cy,not checked,,${available},check:class stopped before this project\n`,
  );
});

test("an interrupted class starts no more projects and says which were not checked", async () => {
  const { dir, out } = classFolder("interrupted", ["ada", "ben"]);
  const stop = new AbortController();
  const written: string[] = [];
  const result = await gradeClass(settings(dir, out, 1), {
    signal: stop.signal,
    written: (markdown) => written.push(markdown),
    check: async () => {
      stop.abort();
      return { exitCode: 130, stdout: "", stderr: "error: check interrupted\n", timedOut: false };
    },
  });
  expect(result.learners.map((row) => row.error)).toEqual([
    "not checked: check interrupted",
    "not checked: check:class stopped before this project",
  ]);
  expect(written).toHaveLength(1);
});

test("a class checked on one optional stage scores that stage", async () => {
  const { dir, out } = classFolder("optional", ["ada"]);
  const stages = { "day-2-challenges": [{ id: "streams", verdict: "pass" as const }] };
  const result = await gradeClass(
    { ...settings(dir, out, 1), stages: ["day-2-challenges"] },
    {
      check: async () => ({
        exitCode: 1,
        stdout: report(null, stages, { optionalPassed: ["day-2-challenges"] }),
        stderr: "",
        timedOut: false,
      }),
    },
  );
  expect(result.learners[0]?.points).toEqual({ awarded: 1, available: 1 });
  expect(result.learners[0]?.highestStagePassed).toBeNull();
});

test("class.xml: a suite per learner, a case per stage, a stage not reached failing with the next step", async () => {
  const { dir, out } = classFolder("junit", ["ada", "ben"]);
  const stages = {
    "day-1": [{ id: "echo-round-trip", verdict: "pass" as const }],
    "day-2-v1": [
      { id: "one-line-answer", verdict: "fail" as const, message: "the final line should be…" },
    ],
  };
  const next = {
    stage: "day-2-v1",
    id: "one-line-answer",
    title: "the one-line-answer title",
    message: "the final line should be…",
    docs: "docs/day-2.md#v1-the-real-model",
  };
  await gradeClass(
    { ...settings(dir, out, 1), stages: ["day-1", "day-2-v1"], seed: 42 },
    {
      check: async (project) =>
        basename(project) === "ada"
          ? {
              exitCode: 1,
              stdout: report("day-1", stages, { nextToFix: next }),
              stderr: "",
              timedOut: false,
            }
          : { exitCode: 2, stdout: "", stderr: "error: --cmd is empty\n", timedOut: false },
    },
  );
  const xml = (await parse(readFileSync(join(out, "class.xml"), "utf8"))) as TestSuites;
  expect(xml).toMatchObject({ name: "agent-code class", tests: 3, failures: 1, errors: 1 });
  const [ada, ben] = xml.testsuite ?? [];
  expect(ada).toMatchObject({ name: "ada", tests: 2, failures: 1, errors: 0 });
  expect(ada?.testcase?.map((one) => [one.name, one.failure?.[0]?.message ?? null])).toEqual([
    ["day-1", null],
    ["day-2-v1", "one-line-answer: the final line should be…"],
  ]);
  expect(ada?.testcase?.[1]?.failure?.[0]?.inner).toBe(
    "0/1 core scenarios passed; read docs/day-2.md#v1-the-real-model",
  );
  const props = Object.fromEntries((ada?.properties ?? []).map((one) => [one.name, one.value]));
  expect(props).toMatchObject({ seed: 42, highestStagePassed: "day-1", points: "1/2" });
  expect(ben).toMatchObject({ name: "ben", tests: 1, errors: 1 });
  expect(ben?.testcase?.[0]?.error?.[0]?.message).toBe("not checked: --cmd is empty");
});

// Issue #57: a grader's problem is no learner's 0, and a project that reached nothing says why.
test("not checked is no points, with the reason; does not build or start is 0, with the cause", async () => {
  const { dir, out } = classFolder("reasons", ["ada", "ben", "cy"]);
  const runs: Record<string, ProjectRun> = {
    // The check ran past its time: the grader's to look at, not a grade.
    ada: { exitCode: null, stdout: "", stderr: "", timedOut: true },
    ben: {
      exitCode: 1,
      stdout: report(null, {}, { buildError: 'src/tools.ts:3:28: Could not resolve "./x.ts"' }),
      stderr: "",
      timedOut: false,
    },
    cy: {
      exitCode: 1,
      stdout: report(
        null,
        { "day-1": [{ id: "echo-round-trip", verdict: "fail" as const }] },
        { startError: "Error: boom" },
      ),
      stderr: "",
      timedOut: false,
    },
  };
  const result = await gradeClass(
    { ...settings(dir, out, 1), stages: ["day-1", "day-2-v1"], seed: 42 },
    { check: async (project) => runs[basename(project)] as ProjectRun },
  );
  const [ada, ben, cy] = result.learners;
  expect(ada?.points).toEqual({ awarded: null, available: 2 });
  expect(ada?.error).toBe("not checked: the check took longer than 60000 ms");
  expect(ben?.points).toEqual({ awarded: 0, available: 2 });
  expect(cy?.points).toEqual({ awarded: 0, available: 2 });
  expect(cy?.startError).toBe("Error: boom");
  expect(cy?.nextToFix).toMatchObject({ stage: "day-1", id: "start", message: "Error: boom" });
  expect(readFileSync(join(out, "points.csv"), "utf8")).toBe(
    [
      "learner,highest_stage_passed,points_awarded,points_available,note",
      "ada,not checked,,2,the check took longer than 60000 ms",
      'ben,does not build,0,2,"src/tools.ts:3:28: Could not resolve ""./x.ts"""',
      "cy,does not start,0,2,Error: boom",
      "",
    ].join("\n"),
  );
  const rows = readFileSync(join(out, "class.md"), "utf8")
    .split("\n")
    .filter((line) => /^\| (ada|ben|cy) /.test(line));
  expect(rows).toEqual([
    "| ada | not checked | -/2 | the check took longer than 60000 ms |",
    '| ben | does not build | 0/2 | src/tools.ts:3:28: Could not resolve "./x.ts" |',
    "| cy | does not start | 0/2 | Error: boom |",
  ]);
  const page = (learner: string) =>
    readFileSync(join(out, "reports", `${learner}.md`), "utf8").split("\n")[0];
  expect(page("ada")).toBe(
    "# agent-code check, ada: not checked (no points): the check took longer than 60000 ms",
  );
  expect(page("ben")).toBe(
    '# agent-code check, ben: does not build (0 of 2 points): src/tools.ts:3:28: Could not resolve "./x.ts"',
  );
  expect(page("cy")).toBe("# agent-code check, cy: does not start (0 of 2 points): Error: boom");
  // In JUnit each is one case in error, its kind and cause the message.
  const xml = (await parse(readFileSync(join(out, "class.xml"), "utf8"))) as TestSuites;
  expect(xml).toMatchObject({ tests: 3, failures: 0, errors: 3 });
  expect(xml.testsuite?.map((suite) => suite.testcase?.[0]?.error?.[0]?.message)).toEqual([
    "not checked: the check took longer than 60000 ms",
    'does not build: src/tools.ts:3:28: Could not resolve "./x.ts"',
    "does not start: Error: boom",
  ]);
});

test("class.xml: a learner who reached the main line fails nothing for optional stages, skipped with the reason", async () => {
  const { dir, out } = classFolder("optional-skipped", ["ada"]);
  const stages = {
    "day-1": [{ id: "echo-round-trip", verdict: "pass" as const }],
    "day-2-challenges": [{ id: "streams", verdict: "fail" as const }],
    "appendix-providers": [{ id: "responses-api", verdict: "fail" as const }],
  };
  await gradeClass(
    { ...settings(dir, out, 1), stages: ["day-1", "day-2-challenges", "appendix-providers"] },
    {
      check: async () => ({
        exitCode: 0,
        stdout: report("day-1", stages),
        stderr: "",
        timedOut: false,
      }),
    },
  );
  const xml = (await parse(readFileSync(join(out, "class.xml"), "utf8"))) as TestSuites;
  expect(xml).toMatchObject({ tests: 3, failures: 0, skipped: 2, errors: 0 });
  const cases = xml.testsuite?.[0]?.testcase ?? [];
  expect(cases.map((one) => [one.name, one.skipped?.[0]?.message ?? null])).toEqual([
    ["day-1", null],
    ["day-2-challenges", "optional stage, apart from the headline: 0/1 core scenarios passed"],
    ["appendix-providers", "optional stage, apart from the headline: 0/1 core scenarios passed"],
  ]);
});

test("the feedback page says which scenarios were outgrown, not a bare count passed", async () => {
  const { dir, out } = classFolder("outgrown", ["ada"]);
  const text = report("day-2-v1", {
    "day-1": [
      { id: "echo-round-trip", verdict: "fail" as const },
      { id: "repl-runs-each-line", verdict: "fail" as const },
    ],
    "day-2-v1": [{ id: "one-line-answer", verdict: "pass" as const }],
  });
  // What the check's headline judged: Day 1's misses are outgrown, and Day 1 is reached.
  const judged = JSON.parse(text);
  for (const scenario of judged.stages[0].scenarios) scenario.outgrown = true;
  judged.stages[0].reached = true;
  await gradeClass(
    { ...settings(dir, out, 1), stages: ["day-1", "day-2-v1"] },
    {
      check: async () => ({
        exitCode: 0,
        stdout: JSON.stringify(judged),
        stderr: "",
        timedOut: false,
      }),
    },
  );
  const page = readFileSync(join(out, "reports", "ada.md"), "utf8");
  expect(page).toContain("| day-1 | 0 of 2 passed, 2 outgrown | reached |");
  expect(page).toContain(
    "Outgrown: a later stage changed the scenario, and your project does what that stage asks.",
  );
});

// A check of every stage reports thousands of scenarios: the learner's copy names the passes and
// notes, and holds each miss in full once.
test("reports/<learner>.json is brief and under 200 KB, valid against the schema; --verbose keeps it all", async () => {
  const scenario = (n: number, verdict: "pass" | "fail" | "note") => ({
    id: `scenario-${n}`,
    aliases: [],
    title: `what scenario ${n} of the course checks, in a line of about sixty characters`,
    level: verdict === "note" ? "conformance" : "core",
    verdict,
    timedOut: false,
    failures:
      verdict === "pass"
        ? []
        : [{ message: `scenario ${n} missed: the learner's words for it`, docs: "docs/day-2.md" }],
    serverText: null,
    stderrTail: verdict === "pass" ? null : ["error: a line", "of stderr"],
    stderrExcerpt: verdict === "pass" ? null : ["error: a line"],
    durationMs: 321,
    outgrown: false,
  });
  // Every stage keeps the scenarios before it, as the course's contracts do: 20 stages, 3,000 runs.
  const stages = STAGES.slice(0, 20).map((stage, index) => {
    const scenarios = Array.from({ length: 50 + index * 10 }, (_, n) =>
      scenario(n, n % 10 === 9 ? "fail" : n % 10 === 8 ? "note" : "pass"),
    );
    const core = scenarios.filter((one) => one.level === "core");
    return {
      stage,
      title: stage,
      passed: false,
      reached: false,
      mainLine: isMainLine(stage),
      durationMs: 1000,
      counts: {
        core: { passed: core.filter((one) => one.verdict === "pass").length, total: core.length },
        conformance: { passed: 0, total: scenarios.length - core.length },
      },
      scenarios,
    };
  });
  const full = JSON.stringify(
    {
      version: 5,
      course: { commit: null, version: "0.0.0" },
      checkedAt: "2026-01-01T00:00:00.000Z",
      project: "/p",
      projectCommit: null,
      seed: 42,
      command: ["node"],
      strict: false,
      complete: true,
      stages,
      highestStagePassed: null,
      optionalPassed: [],
      nextToFix: null,
    },
    null,
    2,
  );
  expect(full.length).toBeGreaterThan(1_000_000);
  const check = async () => ({ exitCode: 1, stdout: full, stderr: "", timedOut: false });
  const { dir, out } = classFolder("brief", ["ada"]);
  await gradeClass({ ...settings(dir, out, 1), stages: STAGES.slice(0, 20) }, { check });
  const path = join(out, "reports", "ada.json");
  expect(statSync(path).size).toBeLessThan(200_000);
  const brief = JSON.parse(readFileSync(path, "utf8"));
  expect(schemaErrors(brief, SCHEMA)).toEqual([]);
  expect(brief.brief).toBe(true);
  const [first, second] = brief.stages;
  // The first stage shows its misses in full; the next names the same misses and shows its own.
  expect(first.scenarios.map((one: { id: string }) => one.id)).toEqual([
    "scenario-9",
    "scenario-19",
    "scenario-29",
    "scenario-39",
    "scenario-49",
  ]);
  expect(first.scenarios[0].failures).toEqual([
    { message: "scenario 9 missed: the learner's words for it", docs: "docs/day-2.md" },
  ]);
  expect(first.passedIds).toHaveLength(40);
  expect(first.notedIds).toHaveLength(5);
  expect(second.failedAboveIds).toEqual(first.scenarios.map((one: { id: string }) => one.id));
  expect(second.scenarios.map((one: { id: string }) => one.id)).toEqual(["scenario-59"]);
  // The counts are the check's, whatever the brief leaves out.
  expect(second.counts).toEqual(stages[1]?.counts);

  const { dir: all, out: verbose } = classFolder("verbose", ["ada"]);
  await gradeClass(
    { ...settings(all, verbose, 1), stages: STAGES.slice(0, 20), verbose: true },
    { check },
  );
  expect(readFileSync(join(verbose, "reports", "ada.json"), "utf8")).toBe(full);
});

// The control characters in `text` but tab and line feed: what a terminal would act on.
function controls(text: string): string[] {
  return [...text].filter((char) => {
    const code = char.codePointAt(0) ?? 0;
    return (code < 0x20 && char !== "\t" && char !== "\n") || (code >= 0x7f && code < 0xa0);
  });
}

test("a learner's folder name and error line reach the terminal as text, never as its controls", async () => {
  const learner = "e\u001b[31mve";
  const { dir, out } = classFolder("terminal", [learner, "ned"]);
  const progress: string[] = [];
  const result = await gradeClass(settings(dir, out, 1), {
    progress: (line) => progress.push(line.replace(/\(\d+ s\)$/, "(N s)")),
    check: async (project) => ({
      exitCode: 2,
      stdout: report(
        null,
        {},
        { error: `cannot start \u001b]0;pwned\u0007\r\u009b2K${basename(project)}` },
      ),
      stderr: "",
      timedOut: false,
    }),
  });
  expect(result.learners[0]?.error).toBe(
    `not checked: cannot start \u001b]0;pwned\u0007\r\u009b2K${learner}`,
  );
  expect(progress).toEqual([
    "[1/2] e\uFFFD[31mve: checking",
    "[1/2] e\uFFFD[31mve: not checked: cannot start \uFFFD]0;pwned\uFFFD\uFFFD\uFFFD2Ke\uFFFD[31mve (N s)",
    "[2/2] ned: checking",
    "[2/2] ned: not checked: cannot start \uFFFD]0;pwned\uFFFD\uFFFD\uFFFD2Kned (N s)",
  ]);
  // Nor do they reach the files a grader reads in a terminal (cat class.md).
  for (const file of ["class.md", join("reports", `${learner}.md`)]) {
    expect(controls(readFileSync(join(out, file), "utf8"))).toEqual([]);
  }
});

test("what a check reports of a learner's program is text in class.md and their page", async () => {
  const { dir, out } = classFolder("markup", ["ada"]);
  // A message quotes the program's output: a forged row, a link, HTML; an id no code span holds.
  const next = {
    stage: "day-2-v2",
    id: "odd`id|x",
    title: "<b>title</b>",
    message: "got: [x](https://evil.example)\n| forged | row |\n<script>",
    docs: "docs/day-2.md#every-result-of-a-turn-in-one-message",
  };
  const stages = { "day-2-v2": [{ id: "odd`id|x", verdict: "fail" as const }] };
  await gradeClass(settings(dir, out, 1), {
    check: async () => ({
      exitCode: 1,
      stdout: report(null, stages, { nextToFix: next }),
      stderr: "",
      timedOut: false,
    }),
  });
  const table = readFileSync(join(out, "class.md"), "utf8");
  expect(table).toContain("| ada | none | 0/");
  expect(table).toMatch(/^\| ada \| none \| 0\/\d+ \| day-2-v2\/odd\\`id\\\|x \|$/m);
  const page = readFileSync(join(out, "reports", "ada.md"), "utf8");
  expect(page).toContain("day-2-v2, odd\\`id\\|x: \\<b\\>title\\</b\\>");
  expect(page).toContain(
    "> got: \\[x\\](https://evil.example)\n> \\| forged \\| row \\|\n> \\<script\\>",
  );
  expect(page).toContain(
    "Read: `docs/day-2.md#every-result-of-a-turn-in-one-message` in the course.",
  );
});

test.skipIf(unsandboxed() !== undefined)(
  "a check that ran its program without the sandbox: said in class.md, class.json, class.xml and the page",
  async () => {
    const { dir, out } = classFolder("unsandboxed", ["ada", "ben"]);
    const why = "learner code runs without a sandbox (AGENT_CODE_CHECK_SANDBOX=off): it can read";
    const stages = { "day-1": [{ id: "echo-round-trip", verdict: "pass" as const }] };
    const result = await gradeClass(settings(dir, out, 1), {
      check: async (project) => ({
        exitCode: 0,
        stdout: report("day-1", stages, basename(project) === "ada" ? { unsandboxed: why } : {}),
        stderr: "",
        timedOut: false,
      }),
    });
    expect(result.unsandboxed).toBe(why);
    expect(result.learners.map((row) => row.unsandboxed)).toEqual([why, undefined]);
    const table = readFileSync(join(out, "class.md"), "utf8").split("\n");
    expect(table.slice(2, 4).join(" ")).toBe(
      `**Learner code ran without the sandbox for ada**: ${why}`,
    );
    const xml = (await parse(readFileSync(join(out, "class.xml"), "utf8"))) as TestSuites;
    expect(
      xml.testsuite?.map(
        (suite) => suite.properties?.find((one) => one.name === "unsandboxed")?.value,
      ),
    ).toEqual([why, undefined]);
    expect(readFileSync(join(out, "reports", "ada.md"), "utf8")).toContain(
      `**Learner code ran without the sandbox** on the grader's machine: ${why}`,
    );
    expect(readFileSync(join(out, "reports", "ben.md"), "utf8")).not.toContain("sandbox");
  },
);

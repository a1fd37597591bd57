// gradeClass with each project's check scripted (no process started): projects graded several at
// once and tabled by name whatever order they finish in, the headline and points, the failing
// core scenarios above the headline only, the feedback page, and files written when it stops.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { parse, type TestSuites } from "junit2json";
import { afterAll, expect, test } from "vitest";
import { type ClassSettings, gradeClass, type ProjectRun } from "../lib/check-class.ts";
import { isMainLine, STAGES } from "../lib/command.ts";

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
    version: 4,
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
  expect(readFileSync(join(out, "points.csv"), "utf8").split("\n")[1]).toMatch(/^ada,day-1,1,\d+$/);
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
    "`day-3-v1/read-file`, `day-3-v1/list-files`, `day-3-v2/grep` and 1 more |",
  );
  expect(table).not.toContain("repl-runs-each-line");
  expect(table).not.toContain("streams");

  const feedback = join(out, "reports", "ada.md");
  expect(statSync(feedback).size).toBeLessThan(10_000);
  const page = readFileSync(feedback, "utf8");
  expect(page).toContain("**Highest stage passed: day-2-v1**");
  expect(page).toContain("your commit 0a1b2c3d");
  expect(page).toContain("day-3-v1, `read-file`: the read-file title");
  expect(page).toContain("> the read_file tool should be offered");
  expect(page).toContain("Read: `docs/day-3.md#v1-reading-files` in the course.");
  expect(page).toContain("After it, 3 more core scenarios above your highest stage.");
  expect(page).toContain("| day-3-v2 | 1/5 |");
  expect(page).toContain("| day-2-challenges (optional) | 0/1 |");
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
  expect(readFileSync(join(out, "class.md"), "utf8")).toContain("| cy | not checked | - |");
  expect(readFileSync(join(out, "points.csv"), "utf8")).toContain("cy,not checked,0,");
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

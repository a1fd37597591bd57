// Every exit of `pnpm check` leaves a report: an error is a JUnit file with one failed test case
// (never 0 bytes) and a step summary wherever GITHUB_STEP_SUMMARY is set; every report names the
// learner's commit and the course's; `--help` is no error; JUnit gives every case and suite a time.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "@agent-code/test-kit";
import { parse, type TestSuites } from "junit2json";
import { afterAll, expect, test } from "vitest";
import { checkSettings } from "../check.ts";
import { junitXml } from "../lib/check-junit.ts";
import { type CheckReport, projectCommit } from "../lib/check-run.ts";
import { MAIN_LINE, ROOT, STAGES, stageDir } from "../lib/command.ts";

const SCRIPT = fileURLToPath(new URL("../check.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "check-exit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const COURSE_COMMIT = execFileSync("git", ["rev-parse", "HEAD"], {
  cwd: ROOT,
  encoding: "utf8",
}).trim();

function check(args: string[], env: Record<string, string | undefined> = {}) {
  return runCli(["node", "--import", "tsx", SCRIPT], args, {
    env: { INIT_CWD: ROOT, GITHUB_ACTIONS: undefined, ...env },
    timeoutMs: 60_000,
  });
}

function properties(suite: { properties?: { name?: string; value?: string }[] } | undefined) {
  return Object.fromEntries((suite?.properties ?? []).map((one) => [one.name, one.value]));
}

test("--help prints the usage and the options, exit 0", async () => {
  const run = await check(["--help"]);
  expect(run.exitCode).toBe(0);
  expect(run.stderr).toBe("");
  expect(run.stdoutLines[0]).toMatch(
    /^usage: pnpm check <stage> \| --stages <a,b,…> \| --main-line \| --all /,
  );
  for (const option of ["--stages", "--main-line", "--reporter", "--only", "-h, --help"]) {
    expect(run.stdout).toContain(`  ${option}`);
  }
  expect((await check(["day-1", "-h"])).exitCode).toBe(0);
}, 30_000);

test("a usage error under --reporter junit: exit 2, the error line, and JUnit with it as one failed case", async () => {
  const summary = join(dir, "usage-summary.md");
  // GITHUB_STEP_SUMMARY alone is enough for a summary: no GITHUB_ACTIONS here.
  const run = await check(["day-9", "--reporter", "junit"], { GITHUB_STEP_SUMMARY: summary });
  expect(run.exitCode).toBe(2);
  const error = `unknown stage: day-9 (stages: ${STAGES.join(", ")})`;
  expect(run.stderr).toBe(`error: ${error}\n`);
  expect(run.stdout).not.toBe("");
  const xml = (await parse(run.stdout)) as TestSuites;
  expect(xml).toMatchObject({ tests: 1, failures: 1 });
  const [suite] = xml.testsuite ?? [];
  expect(suite?.testcase).toHaveLength(1);
  const [only] = suite?.testcase ?? [];
  expect(only?.name).toBe("the check ran");
  expect(only?.time).toBe(0);
  expect(only?.failure?.[0]?.message).toBe(error);
  expect(properties(suite)).toMatchObject({
    project: ROOT,
    "course.commit": COURSE_COMMIT,
    "project.commit": COURSE_COMMIT,
  });
  const table = readFileSync(summary, "utf8");
  expect(table).toContain(`### agent-code check: ${ROOT}`);
  expect(table).toContain(`not checked: ${error}`);
  expect(table).toContain(`learner's commit: \`${COURSE_COMMIT.slice(0, 12)}\``);
  // Without junit, the summary still; stdout stays empty.
  const text = await check(["day-9"], { GITHUB_STEP_SUMMARY: summary });
  expect(text.exitCode).toBe(2);
  expect(text.stdout).toBe("");
  expect(readFileSync(summary, "utf8").split("not checked: ")).toHaveLength(3);
}, 30_000);

test("a command that cannot start, under junit: exit 2 and a JUnit file that says why", async () => {
  const run = await check(["day-1", "--cmd", "no-such-program-for-agent-code", "--reporter=junit"]);
  expect(run.exitCode).toBe(2);
  const xml = (await parse(run.stdout)) as TestSuites;
  const message = xml.testsuite?.[0]?.testcase?.[0]?.failure?.[0]?.message ?? "";
  expect(message).toMatch(/^cannot start `no-such-program-for-agent-code`: .*ENOENT/);
}, 30_000);

test("sources that do not build, under junit: exit 1, one failed case quoting esbuild; a summary", async () => {
  const broken = join(dir, "broken");
  mkdirSync(join(broken, "src"), { recursive: true });
  writeFileSync(join(broken, "src", "cli.ts"), "export const x = ;\n");
  const summary = join(dir, "build-summary.md");
  const run = await check(["day-1", "--reporter", "junit"], {
    INIT_CWD: broken,
    GITHUB_STEP_SUMMARY: summary,
  });
  expect(run.exitCode).toBe(1);
  const xml = (await parse(run.stdout)) as TestSuites;
  const [suite] = xml.testsuite ?? [];
  expect(suite?.testcase?.[0]?.name).toBe("src/cli.ts builds");
  expect(suite?.testcase?.[0]?.failure?.[0]?.message).toBe('src/cli.ts:1:18: Unexpected ";"');
  // Not a git repository: no learner's commit.
  expect(properties(suite)).toMatchObject({ project: broken });
  expect(run.stdout).toContain('<property name="project.commit" value=""/>');
  expect(readFileSync(summary, "utf8")).toContain("learner's commit: not a git repository");
}, 30_000);

test("a whole check under junit: a time on every case and suite, both commits, the next thing to fix", async () => {
  const summary = join(dir, "check-summary.md");
  // Day 1's CLI checked on day-2-v1: it has not begun talking to a model. (A later stage's CLI
  // checked on day-1 reaches it: what it misses there, day-2-v1 changed; decision 0070.)
  const run = await check(
    [
      "day-2-v1",
      "--cmd",
      `node ${join(stageDir("day-1"), "dist", "agent-code.mjs")}`,
      "--reporter",
      "junit",
    ],
    { GITHUB_STEP_SUMMARY: summary },
  );
  expect(run.exitCode).toBe(1);
  expect(run.stdout).toMatch(/<testsuites [^>]* time="\d+\.\d{3}">/);
  const xml = (await parse(run.stdout)) as TestSuites;
  const [suite] = xml.testsuite ?? [];
  expect(suite?.time).toBeGreaterThan(0);
  const cases = suite?.testcase ?? [];
  expect(cases.length).toBeGreaterThan(1);
  for (const one of cases) expect(one.time).toBeGreaterThan(0);
  expect(properties(suite)).toMatchObject({
    "course.commit": COURSE_COMMIT,
    "project.commit": COURSE_COMMIT,
    mainLine: "true",
    nextToFix: "day-2-v1/one-line-answer",
  });
  const table = readFileSync(summary, "utf8");
  expect(table).toMatch(
    /next to fix \(day-2-v1\): .* `one-line-answer`: no request reached the test server/,
  );
  expect(table).toContain(`course: \`${COURSE_COMMIT.slice(0, 12)}\``);
}, 60_000);

test("the learner's commit: HEAD of the project's repository, null outside one", () => {
  expect(projectCommit(ROOT)).toBe(COURSE_COMMIT);
  expect(projectCommit(dir)).toBeNull();
  const repo = join(dir, "repo");
  mkdirSync(repo);
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: repo, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  git("init", "-q");
  // A repository with no commit yet has no HEAD to name.
  expect(projectCommit(repo)).toBeNull();
  git(
    "-c",
    "user.name=l",
    "-c",
    "user.email=l@example.com",
    "commit",
    "-q",
    "--allow-empty",
    "-m",
    "x",
  );
  expect(projectCommit(repo)).toBe(git("rev-parse", "HEAD").trim());
});

test("JUnit times: seconds to the millisecond, per case, per suite, and for all", () => {
  const report: CheckReport = {
    version: 5,
    course: { commit: "c".repeat(40), version: "0.1.0" },
    checkedAt: "2026-12-01T15:00:00.000Z",
    project: "/p",
    projectCommit: "a".repeat(40),
    command: ["x"],
    strict: false,
    complete: true,
    highestStagePassed: "day-1",
    stages: ["day-1", "day-2-v1"].map((stage, index) => ({
      stage,
      title: stage,
      passed: true,
      counts: { core: { passed: 1, total: 1 }, conformance: { passed: 0, total: 0 } },
      durationMs: 1500 + index,
      scenarios: [
        {
          id: "a",
          aliases: [],
          title: "a",
          level: "core",
          verdict: "pass",
          timedOut: false,
          failures: [],
          serverText: null,
          stderrTail: null,
          durationMs: 1234,
        },
      ],
    })),
  };
  const xml = junitXml(report);
  expect(xml).toContain(
    '<testsuites name="agent-code check" tests="2" failures="0" skipped="0" errors="0" time="3.001">',
  );
  expect(xml).toContain('timestamp="2026-12-01T15:00:00.000Z" time="1.500">');
  expect(xml).toContain('<testcase name="a [a]" classname="day-1.core" time="1.234"/>');
  expect(xml).toContain(`<property name="project.commit" value="${"a".repeat(40)}"/>`);
});

test("--stages takes several stages in course order, --main-line the main line; one way at a time", () => {
  const stages = (argv: string[]) => checkSettings([...argv, "--cmd", "x"], ROOT).settings.stages;
  expect(stages(["--stages", "day-2-v2,day-1"])).toEqual(["day-1", "day-2-v2"]);
  expect(stages(["--stages", "day-1", "--stages", "day-2-challenges"])).toEqual([
    "day-1",
    "day-2-challenges",
  ]);
  expect(stages(["--main-line"])).toEqual(MAIN_LINE);
  expect(MAIN_LINE).not.toContain("day-2-challenges");
  expect(MAIN_LINE).not.toContain("appendix-providers");
  expect(MAIN_LINE[0]).toBe("day-1");
  expect(stages(["--all"])).toEqual(STAGES);
  const error = (argv: string[]) => {
    try {
      checkSettings([...argv, "--cmd", "x"], ROOT);
    } catch (caught) {
      return (caught as Error).message;
    }
    return "";
  };
  expect(error(["--stages", "day-1,day-9"])).toMatch(/^unknown stage: day-9 \(stages: /);
  expect(error(["--stages", ","])).toMatch(/^--stages is empty/);
  expect(error(["--main-line", "--all"])).toBe(
    "--main-line and --all both name the stages: give one of them",
  );
  expect(error(["day-1", "--stages", "day-2-v1"])).toBe(
    "day-1 and --stages both name the stages: give one of them",
  );
  expect(error(["--main-line", "--only", "x"])).toBe(
    "--only names scenarios of one stage: it does not go with --main-line",
  );
  expect(error(["--stages", "day-1,day-2-v1", "--only", "x"])).toBe(
    "--only names scenarios of one stage: it does not go with several stages",
  );
  expect(error(["day-1", "day-2-v1"])).toMatch(/; several: --stages day-1,day-2-v1 /);
  // One stage through --stages takes --only as a stage does.
  expect(
    checkSettings(["--stages", "day-1", "--only", "echo-round-trip", "--cmd", "x"], ROOT).settings
      .only,
  ).toEqual(["echo-round-trip"]);
});

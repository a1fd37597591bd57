// A class graded on a machine where learner code runs without the sandbox (here turned off, as
// AGENT_CODE_CHECK_SANDBOX=off does): every file of the class says so, and why.
// Runs in a worker of its own: the machine's choice is made once a process, and made here.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, type TestSuites } from "junit2json";
import { afterAll, expect, test } from "vitest";
import { gradeClass } from "../lib/check-class.ts";
import { SANDBOX_VARIABLE, unsandboxed } from "../lib/check-sandbox.ts";

const root = mkdtempSync(join(tmpdir(), "check-class-unsandboxed-"));
const before = process.env[SANDBOX_VARIABLE];
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  if (before === undefined) delete process.env[SANDBOX_VARIABLE];
  else process.env[SANDBOX_VARIABLE] = before;
});

test("without the sandbox, class.md, class.json, class.xml and every page say so, and why", async () => {
  process.env[SANDBOX_VARIABLE] = "off";
  const dir = join(root, "projects");
  for (const learner of ["ada", "ben"]) mkdirSync(join(dir, learner), { recursive: true });
  const out = join(root, "grades");
  // The checks' reports need not say it: the class's own machine runs their code.
  const report = JSON.stringify({
    version: 5,
    course: { commit: null, version: "0.0.0" },
    checkedAt: "2026-01-01T00:00:00.000Z",
    project: "/p",
    command: ["node"],
    strict: false,
    complete: true,
    highestStagePassed: null,
    stages: [],
  });
  const result = await gradeClass(
    { dir, out, stages: ["day-1"], seed: 7, checkArgs: [], jobs: 1, projectTimeoutMs: 60_000 },
    { check: async () => ({ exitCode: 1, stdout: report, stderr: "", timedOut: false }) },
  );
  const why = unsandboxed() ?? "";
  expect(why).toMatch(/^learner code runs without a sandbox \(AGENT_CODE_CHECK_SANDBOX=off\)/);
  expect(result.unsandboxed).toBe(why);
  expect(JSON.parse(readFileSync(join(out, "class.json"), "utf8")).unsandboxed).toBe(why);
  expect(result.learners.map((row) => row.unsandboxed)).toEqual([why, why]);
  // Every learner's: no names, one paragraph under the heading, lines that fit a screen.
  const table = readFileSync(join(out, "class.md"), "utf8");
  const paragraph = table.slice(table.indexOf("\n\n") + 2, table.indexOf("\n\nChecked "));
  expect(paragraph.replaceAll("\n", " ")).toBe(`**Learner code ran without the sandbox**: ${why}`);
  for (const line of table.split("\n")) expect(line.length).toBeLessThanOrEqual(100);
  const xml = (await parse(readFileSync(join(out, "class.xml"), "utf8"))) as TestSuites;
  for (const suite of xml.testsuite ?? []) {
    expect(suite.properties?.find((one) => one.name === "unsandboxed")?.value).toBe(why);
  }
  for (const learner of ["ada", "ben"]) {
    expect(readFileSync(join(out, "reports", `${learner}.md`), "utf8")).toContain(
      `**Learner code ran without the sandbox** on the grader's machine: ${why}`,
    );
  }
});

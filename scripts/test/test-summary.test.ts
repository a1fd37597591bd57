// The closing line of .ci/run counts both runs: each run's reports are saved before the next one
// overwrites them, and the total sums every saved run.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { saveRun, summaryLines } from "../test-summary.ts";

const root = mkdtempSync(join(tmpdir(), "test-summary-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function report(dir: string, passed: number, failed: number, file = "vitest.json"): void {
  mkdirSync(join(root, dir, ".test-results"), { recursive: true });
  writeFileSync(
    join(root, dir, ".test-results", file),
    JSON.stringify({ numPassedTests: passed, numFailedTests: failed, numPendingTests: 0 }),
  );
}

test("without saved runs, the packages' reports; with them, a line per run and the total", () => {
  report("packages/day-1", 10, 0);
  report("scripts", 5, 1);
  expect(summaryLines(root)).toEqual(["15 passed, 1 failed"]);

  saveRun(root, "node-v22.18.0");
  // The second run overwrites the packages' reports; a package whose tests are several tasks
  // writes a report for each part, and every one counts.
  report("packages/day-1", 10, 2);
  report("scripts", 6, 0);
  report("scripts", 3, 1, "vitest-python.json");
  report("scripts", 1, 0, "not-a-report.json");
  saveRun(root, "node-v26.12.1");
  expect(summaryLines(root)).toEqual([
    "node-v22.18.0: 15 passed, 1 failed",
    "node-v26.12.1: 19 passed, 3 failed",
    "34 passed, 4 failed",
  ]);
});

test("a test file that failed before its tests ran counts as a failure", () => {
  const dir = mkdtempSync(join(tmpdir(), "test-summary-broken-"));
  try {
    mkdirSync(join(dir, "packages"));
    mkdirSync(join(dir, "site", ".test-results"), { recursive: true });
    writeFileSync(
      join(dir, "site", ".test-results", "vitest.json"),
      JSON.stringify({
        numPassedTests: 28,
        numFailedTests: 0,
        numPendingTests: 0,
        testResults: [
          {
            name: join(dir, "site", "test", "browser.test.ts"),
            status: "failed",
            assertionResults: [],
          },
          { status: "passed", assertionResults: [{ status: "passed" }] },
        ],
      }),
    );
    expect(summaryLines(dir)).toEqual([
      "FAIL site/test/browser.test.ts (failed before its tests ran)",
      "28 passed, 1 failed",
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("each failed test is named above the counts, with its file and the first line of its error", () => {
  const dir = mkdtempSync(join(tmpdir(), "test-summary-names-"));
  try {
    mkdirSync(join(dir, "packages"));
    const results = join(dir, "packages", "day-5-v4", ".test-results");
    mkdirSync(results, { recursive: true });
    writeFileSync(
      join(results, "vitest.json"),
      JSON.stringify({
        numPassedTests: 1,
        numFailedTests: 1,
        numPendingTests: 0,
        testResults: [
          {
            name: join(dir, "packages", "day-5-v4", "test", "shell.test.ts"),
            status: "failed",
            assertionResults: [
              { status: "passed", fullName: "a command's environment" },
              {
                status: "failed",
                fullName: "a timeout stops the whole group",
                failureMessages: ["AssertionError: expected 'a' to be 'b'\n    at shell.test.ts:9"],
              },
            ],
          },
          {
            name: join(dir, "packages", "day-5-v4", "test", "web.test.ts"),
            status: "failed",
            message: "Cannot find module './gone.ts'\n  at load",
            assertionResults: [],
          },
        ],
      }),
    );
    saveRun(dir, "test-node-v26.12.1");
    expect(summaryLines(dir)).toEqual([
      "FAIL test-node-v26.12.1: packages/day-5-v4/test/shell.test.ts > a timeout stops the whole group: AssertionError: expected 'a' to be 'b'",
      "FAIL test-node-v26.12.1: packages/day-5-v4/test/web.test.ts: Cannot find module './gone.ts'",
      "test-node-v26.12.1: 1 passed, 2 failed",
      "1 passed, 2 failed",
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

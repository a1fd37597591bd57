// The closing line of .ci/run counts both runs: each run's reports are saved before the next one
// overwrites them, and the total sums every saved run.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { saveRun, summaryLines } from "../test-summary.ts";

const root = mkdtempSync(join(tmpdir(), "test-summary-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function report(dir: string, passed: number, failed: number): void {
  mkdirSync(join(root, dir, ".test-results"), { recursive: true });
  writeFileSync(
    join(root, dir, ".test-results", "vitest.json"),
    JSON.stringify({ numPassedTests: passed, numFailedTests: failed, numPendingTests: 0 }),
  );
}

test("without saved runs, the packages' reports; with them, a line per run and the total", () => {
  report("packages/day-1", 10, 0);
  report("scripts", 5, 1);
  expect(summaryLines(root)).toEqual(["15 passed, 1 failed"]);

  saveRun(root, "node-v20.20.2");
  // The second run overwrites the packages' reports.
  report("packages/day-1", 10, 2);
  report("scripts", 6, 0);
  saveRun(root, "node-v26.12.1");
  expect(summaryLines(root)).toEqual([
    "node-v20.20.2: 15 passed, 1 failed",
    "node-v26.12.1: 16 passed, 2 failed",
    "31 passed, 3 failed",
  ]);
});

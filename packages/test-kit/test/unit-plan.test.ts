// Which of a stage's own test files run on a leg (decision 0062): a file named for one module is
// left out where both are its base's, byte for byte, unless the stage runs whole.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, expect, test } from "vitest";
import type { Contract } from "../src/contract.ts";
import { unitTestExclusions } from "../src/unit-plan.ts";

const root = mkdtempSync(join(tmpdir(), "unit-plan-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function put(file: string, text: string): void {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), text);
}

// day-9-v1, then day-9-v2 (not the day's last) and day-9-v3 (the last) on it.
const course: Contract[] = [
  { stage: "day-9-v1", title: "", scenarios: [] },
  { stage: "day-9-v2", title: "", base: "day-9-v1", scenarios: [] },
  { stage: "day-9-v3", title: "", base: "day-9-v2", scenarios: [] },
];
for (const stage of ["day-9-v1", "day-9-v2", "day-9-v3"]) {
  put(`${stage}/test/cli.test.ts`, "the contract\n");
  put(`${stage}/test/web.test.ts`, "web's tests\n");
  put(`${stage}/test/web.bash.test.ts`, "web against bash\n");
  put(`${stage}/src/web.ts`, "web\n");
  put(`${stage}/test/grep.test.ts`, "grep's tests\n");
  put(`${stage}/src/tools/grep.ts`, "grep\n");
  put(`${stage}/test/search-tools.test.ts`, "several tools\n");
}
put("day-9-v2/src/tools/grep.ts", "grep, changed by the lesson\n");

test("an unchanged test of an unchanged module is left out; a changed module's runs", () => {
  // A second file for the same module, named `<module>.<kind>.test.ts`, goes with it.
  expect(unitTestExclusions(join(root, "day-9-v2"), "full", course)).toEqual([
    "test/web.bash.test.ts",
    "test/web.test.ts",
  ]);
});

test("a changed test file runs, and so does one named for no module, and the contract's", () => {
  put("day-9-v2/test/web.test.ts", "web's tests, one more\n");
  try {
    expect(unitTestExclusions(join(root, "day-9-v2"), "full", course)).toEqual([
      "test/web.bash.test.ts",
    ]);
  } finally {
    put("day-9-v2/test/web.test.ts", "web's tests\n");
  }
});

test("a stage that runs whole, or has no base, runs every file", () => {
  expect(unitTestExclusions(join(root, "day-9-v3"), "full", course)).toEqual([]);
  expect(unitTestExclusions(join(root, "day-9-v2"), "all", course)).toEqual([]);
  expect(unitTestExclusions(join(root, "day-9-v1"), "full", course)).toEqual([]);
});

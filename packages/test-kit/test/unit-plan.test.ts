// Which of a stage's own test files run on a leg (decisions 0062 and 0088): a file carried from the
// base is left out where everything it reaches is the base's too, and otherwise runs where an
// inherited conformance scenario would.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeEach, expect, test } from "vitest";
import type { Contract } from "../src/contract.ts";
import { SLICES, scenarioSlice } from "../src/legs.ts";
import { isolatedTestFiles, reachedFiles, unitTestExclusions } from "../src/unit-plan.ts";

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
const STAGES = ["day-9-v1", "day-9-v2", "day-9-v3"];

// Every stage the same: web's test reaches web.ts, which reaches text.ts; grep's test reaches
// grep.ts alone; the CLI's test starts the bundle; a helper script sits beside a test.
beforeEach(() => {
  for (const stage of STAGES) {
    put(`${stage}/package.json`, JSON.stringify({ name: stage, dependencies: { diff: "9.0.0" } }));
    put(`${stage}/test/cli.test.ts`, 'const bundle = "dist/agent-code.mjs";\n');
    put(`${stage}/test/web.test.ts`, 'import { fetchPage } from "../src/web.ts";\n');
    put(`${stage}/src/web.ts`, 'import { squeeze } from "./text.ts";\n');
    put(`${stage}/src/text.ts`, "export const squeeze = 1;\n");
    put(`${stage}/test/grep.test.ts`, 'import { grep } from "../src/tools/grep.ts";\n');
    put(`${stage}/src/tools/grep.ts`, "export const grep = 1;\n");
    put(`${stage}/test/session.cli.test.ts`, 'spawn("node", ["dist/agent-code.mjs"]);\n');
    put(`${stage}/test/perf.test.ts`, 'new URL("./cpu.mjs", import.meta.url);\n');
    put(`${stage}/test/cpu.mjs`, "// measures\n");
  }
});

const leftOut = (stage: string, leg: "full" | "floor" | "all" = "full", slice = 0) =>
  unitTestExclusions(join(root, stage), leg, course, slice);
// The slices in which a file of day-9-v2 runs on the full leg.
const slicesRun = (file: string) =>
  [...Array(SLICES).keys()].filter((slice) => !leftOut("day-9-v2", "full", slice).includes(file));

test("a file reaches what it names by a relative path, what those name, and all of src/ through the bundle", () => {
  const dir = join(root, "day-9-v2");
  expect(reachedFiles(dir, "test/web.test.ts")).toEqual([
    "src/text.ts",
    "src/web.ts",
    "test/web.test.ts",
  ]);
  expect(reachedFiles(dir, "test/perf.test.ts")).toEqual(["test/cpu.mjs", "test/perf.test.ts"]);
  expect(reachedFiles(dir, "test/session.cli.test.ts")).toEqual([
    "src/text.ts",
    "src/tools/grep.ts",
    "src/web.ts",
    "test/session.cli.test.ts",
  ]);
});

test("a carried file whose reached code is all the base's is left out on every leg but all", () => {
  const every = [
    "test/grep.test.ts",
    "test/perf.test.ts",
    "test/session.cli.test.ts",
    "test/web.test.ts",
  ];
  for (const slice of [0, 1, 2, 3]) expect(leftOut("day-9-v2", "full", slice)).toEqual(every);
  expect(leftOut("day-9-v2", "floor")).toEqual(every);
  expect(leftOut("day-9-v2", "all")).toEqual([]);
});

test("a file changed here runs on both legs; cli.test.ts is never left out", () => {
  put("day-9-v2/test/web.test.ts", 'import { fetchPage } from "../src/web.ts"; // one more\n');
  for (const slice of [0, 1, 2, 3]) {
    expect(leftOut("day-9-v2", "full", slice)).not.toContain("test/web.test.ts");
    expect(leftOut("day-9-v2", "full", slice)).not.toContain("test/cli.test.ts");
  }
  expect(leftOut("day-9-v2", "floor")).not.toContain("test/web.test.ts");
});

test("a carried file whose code changed two imports down runs in its slice alone, and never on the floor", () => {
  put("day-9-v2/src/text.ts", "export const squeeze = 2;\n");
  expect(slicesRun("test/web.test.ts")).toEqual([scenarioSlice("day-9-v2", "test/web.test.ts")]);
  expect(leftOut("day-9-v2", "floor")).toContain("test/web.test.ts");
  // grep's test reaches nothing that changed: still left out on every slice.
  expect(slicesRun("test/grep.test.ts")).toEqual([]);
  // A test that starts the bundle reaches text.ts through it.
  expect(slicesRun("test/session.cli.test.ts")).toHaveLength(1);
});

test("a changed helper script or a changed dependency puts a carried file in its slice", () => {
  put("day-9-v2/test/cpu.mjs", "// measures otherwise\n");
  expect(slicesRun("test/perf.test.ts")).toHaveLength(1);
  put(
    "day-9-v2/package.json",
    JSON.stringify({ name: "day-9-v2", dependencies: { diff: "9.1.0" } }),
  );
  expect(slicesRun("test/grep.test.ts")).toHaveLength(1);
});

test("a file whose code changed here and which no later stage carries runs on every slice", () => {
  put("day-9-v2/src/text.ts", "export const squeeze = 2;\n");
  put("day-9-v3/test/web.test.ts", 'import { fetchPage } from "../src/web.ts"; // rewritten\n');
  expect(slicesRun("test/web.test.ts")).toEqual([0, 1, 2, 3]);
});

test("a stage that runs whole, or has no base, runs every file", () => {
  put("day-9-v3/src/text.ts", "export const squeeze = 3;\n");
  expect(leftOut("day-9-v3")).toEqual([]);
  expect(leftOut("day-9-v1")).toEqual([]);
});

test("a file that replaces a module, or asks, runs isolated; one that only spies or stubs shares a worker", () => {
  put("day-9-v1/test/writes.test.ts", 'vi.mock("node:fs/promises", async () => ({}));\n');
  put("day-9-v1/test/late.test.ts", 'vi.doMock("../src/web.ts", () => ({}));\n');
  put("day-9-v1/test/loops.test.ts", 'const spy = vi.spyOn(globalThis, "setInterval");\n');
  put("day-9-v1/test/cpu.mjs", 'vi.mock("node:os");\n');
  put("day-9-v1/test/once.test.ts", "// Runs in a worker of its own: the choice is made once.\n");
  // Only a line of its own asks, with a reason after the colon.
  put("day-9-v1/test/quoted.test.ts", 'const hint = "// Runs in a worker of its own: no";\n');
  put("day-9-v1/test/bare.test.ts", "// Runs in a worker of its own:\n");
  expect(isolatedTestFiles(join(root, "day-9-v1"))).toEqual([
    "test/late.test.ts",
    "test/once.test.ts",
    "test/writes.test.ts",
  ]);
  expect(isolatedTestFiles(join(root, "day-9-v2"))).toEqual([]);
});

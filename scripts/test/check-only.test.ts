// --only: ids, globs and old ids, resolved in contract order; a narrowed check names no highest
// stage and says it was not a full check.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { findContract, runCli } from "@agent-code/test-kit";
import { expect, test } from "vitest";
import { globPattern, resolveOnly } from "../lib/check-only.ts";
import { ROOT, stageDir } from "../lib/command.ts";

const SCRIPT = fileURLToPath(new URL("../check.ts", import.meta.url));
const BUNDLE = `node ${join(stageDir("day-2-v3"), "dist", "agent-code.mjs")}`;

test("a glob picks every scenario it matches, in contract order, each once", () => {
  const ids = (findContract("day-2-v3")?.scenarios ?? []).map((scenario) => scenario.id);
  const expected = ids.filter((id) => /^bad-arguments-.*$/.test(id));
  expect(expected.length).toBeGreaterThan(2);
  expect(resolveOnly("day-2-v3", ["bad-arguments-*"])).toEqual(expected);
  // A glob and an id it already covers, given in the other order: still contract order, once.
  const [first, second] = expected;
  expect(resolveOnly("day-2-v3", [second ?? "", "bad-arguments-*", first ?? ""])).toEqual(expected);
  expect(globPattern("a.b?c*").test("a.bxcdef")).toBe(true);
  expect(globPattern("a.b?c*").test("axbxc")).toBe(false);
});

test("a renamed scenario is still found by its old id", () => {
  const contract = findContract("day-1");
  const scenario = contract?.scenarios[0];
  if (scenario === undefined) throw new Error("day-1 has scenarios");
  scenario.aliases = ["an-old-name-for-it"];
  try {
    expect(resolveOnly("day-1", ["an-old-name-for-it"])).toEqual([scenario.id]);
  } finally {
    delete scenario.aliases;
  }
});

test("--only with a glob through the command: not a full check, no highest stage", async () => {
  const run = await runCli(
    ["node", "--import", "tsx", SCRIPT],
    ["day-2-v3", "--cmd", BUNDLE, "--only", "bad-arguments-*", "--json"],
    { env: { INIT_CWD: ROOT }, timeoutMs: 60_000 },
  );
  expect(run.exitCode).toBe(0);
  const report = JSON.parse(run.stdout);
  expect(report.complete).toBe(false);
  expect(report.highestStagePassed).toBeNull();
  const ran = report.stages[0].scenarios.map((scenario: { id: string }) => scenario.id);
  expect(ran).toEqual(resolveOnly("day-2-v3", ["bad-arguments-*"]));
}, 60_000);

// Issue #58: a selection of conformance scenarios alone read `passed: 0 of 0 core scenarios`.
test("--only with no core scenario: the stage line says so and counts the conformance ones", async () => {
  const only = resolveOnly("day-2-v3", ["bad-arguments-*-text"]);
  const levels = (findContract("day-2-v3")?.scenarios ?? [])
    .filter((scenario) => only.includes(scenario.id))
    .map((scenario) => scenario.level);
  expect(levels).toEqual(["conformance", "conformance", "conformance"]);
  const run = await runCli(
    ["node", "--import", "tsx", SCRIPT],
    ["day-2-v3", "--cmd", BUNDLE, "--only", "bad-arguments-*-text"],
    { env: { INIT_CWD: ROOT, NO_COLOR: "1" }, timeoutMs: 60_000 },
  );
  expect(run.exitCode).toBe(0);
  const lines = run.stdout.trim().split("\n");
  expect(lines).toContain(
    "day-2-v3 no core scenario in this selection; conformance: 3 of 3 passed",
  );
  expect(run.stdout).not.toContain("0 of 0");
  expect(lines.at(-1)).toBe("not a full check (--only: 3 scenarios run): no highest stage");
}, 60_000);

// The JSON document a term's grades are kept in: which course revision judged, when, and per
// stage how many core and conformance scenarios passed; valid against check-schema.json.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { findContract } from "@agent-code/test-kit";
import { expect, test } from "vitest";
import { jsonOutput } from "../lib/check-report.ts";
import { type CheckReport, runCheck } from "../lib/check-run.ts";
import { ROOT, stageDir } from "../lib/command.ts";
import { schemaErrors } from "./json-schema.ts";

const SCHEMA = JSON.parse(readFileSync(join(ROOT, "scripts", "lib", "check-schema.json"), "utf8"));

test("a whole stage: course revision, timestamp, counts per level, aliases; valid", async () => {
  let text = "";
  const before = Date.now();
  await runCheck(
    {
      stages: ["day-1"],
      project: ROOT,
      command: [process.execPath, join(stageDir("day-1"), "dist", "agent-code.mjs")],
      strict: false,
      only: undefined,
      timeoutMs: 20_000,
    },
    jsonOutput((chunk) => {
      text += chunk;
    }),
  );
  const report: CheckReport = JSON.parse(text);
  expect(schemaErrors(report, SCHEMA)).toEqual([]);
  expect(report.version).toBe(5);
  expect(report.course).toEqual({
    commit: execFileSync("git", ["rev-parse", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim(),
    version: JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version,
  });
  const checkedAt = Date.parse(report.checkedAt);
  expect(report.checkedAt).toBe(new Date(checkedAt).toISOString());
  expect(checkedAt).toBeGreaterThanOrEqual(before - 1000);
  expect(checkedAt).toBeLessThanOrEqual(Date.now());
  expect(report.complete).toBe(true);
  expect(report.highestStagePassed).toBe("day-1");
  const [stage] = report.stages;
  const contract = findContract("day-1")?.scenarios ?? [];
  const core = contract.filter((scenario) => scenario.level === "core").length;
  // day-1 passes its own contract: every scenario of each level passed.
  expect(stage?.counts).toEqual({
    core: { passed: core, total: core },
    conformance: { passed: contract.length - core, total: contract.length - core },
  });
  expect(stage?.scenarios.every((scenario) => Array.isArray(scenario.aliases))).toBe(true);
}, 60_000);

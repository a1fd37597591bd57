// Seeded scenarios through `pnpm check` (decision 0059): --seed is read and checked, a check
// without it draws a new seed and says which, every report keeps it, and a program that hard-codes
// what the pages' seed asks passes there and fails at another seed. A usage error under --json
// still writes the JSON document, with the error in it; and a check called in the course itself
// with no CLI to run names the form a learner types instead.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { drawWord, MAX_SEED, runCli } from "@agent-code/test-kit";
import { afterAll, expect, test } from "vitest";
import { checkSettings } from "../check.ts";
import type { CheckReport } from "../lib/check-run.ts";
import { ROOT, STAGES, stageDir } from "../lib/command.ts";
import { schemaErrors } from "./json-schema.ts";

const SCRIPT = fileURLToPath(new URL("../check.ts", import.meta.url));
const SCHEMA = JSON.parse(readFileSync(join(ROOT, "scripts", "lib", "check-schema.json"), "utf8"));
const DAY_1 = `node ${join(stageDir("day-1"), "dist", "agent-code.mjs")}`;
const dir = mkdtempSync(join(tmpdir(), "check-seed-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function check(args: string[]) {
  return runCli(["node", "--import", "tsx", SCRIPT], args, {
    env: { INIT_CWD: ROOT, GITHUB_STEP_SUMMARY: undefined },
    timeoutMs: 60_000,
  });
}

test("--seed takes a whole number from 0 to 999999; without it each check draws one", () => {
  const seed = (argv: string[]) => checkSettings(["day-1", "--cmd", "x", ...argv], ROOT).settings;
  expect(seed(["--seed", "0"]).seed).toBe(0);
  expect(seed(["--seed", "424242"]).seed).toBe(424242);
  for (const bad of ["-1", "1000000", "1.5", "x", ""]) {
    expect(() => seed([`--seed=${bad}`])).toThrow(
      `--seed must be a whole number from 0 to ${MAX_SEED}: ${bad}`,
    );
  }
  const drawn = Array.from({ length: 20 }, () => seed([]).seed ?? -1);
  // Never the pages' own seed, always in range, and not one seed for every check.
  expect(drawn.every((one) => one >= 1 && one <= MAX_SEED)).toBe(true);
  expect(new Set(drawn).size).toBeGreaterThan(1);
});

test("a usage error under --json: exit 2, the error line, and a JSON document that holds it", async () => {
  const run = await check(["day-9", "--json", "--seed", "12"]);
  expect(run.exitCode).toBe(2);
  const error = `unknown stage: day-9 (stages: ${STAGES.join(", ")})`;
  expect(run.stderr).toBe(`error: ${error}\n`);
  const report: CheckReport = JSON.parse(run.stdout);
  expect(schemaErrors(report, SCHEMA)).toEqual([]);
  expect(report).toMatchObject({
    version: 5,
    error,
    seed: 12,
    stages: [],
    complete: false,
    highestStagePassed: null,
  });
}, 30_000);

// Day 1's echo round, as a program that learnt the pages' answer rather than the lesson: it echoes
// `hi` whatever the prompt.
const HARD_CODED = `
console.log("Agent Code");
console.log("cwd: " + process.cwd());
console.log("");
console.log('tool_call: echo {"text":"hi"}');
console.log("observation: hi");
console.log("final: echo tool returned: hi");
`;

test("a hard-coded answer passes at the pages' seed and fails at another; the reports name the seed", async () => {
  const file = join(dir, "hard-coded.mjs");
  writeFileSync(file, HARD_CODED);
  const only = ["day-1", "--only", "echo-round-trip", "--json"];
  const at = async (cmd: string, seed: number) => {
    const run = await check([...only, "--cmd", cmd, "--seed", String(seed)]);
    const report: CheckReport = JSON.parse(run.stdout);
    expect(schemaErrors(report, SCHEMA)).toEqual([]);
    const [scenario] = report.stages[0]?.scenarios ?? [];
    return [report.seed, scenario?.verdict, scenario?.seeded, run.exitCode];
  };
  const seed = 5;
  expect(drawWord({ seed }, "day-1/greeting", "hi")).not.toBe("hi");
  expect(await at(`node ${file}`, 0)).toEqual([0, "pass", true, 0]);
  expect(await at(`node ${file}`, seed)).toEqual([seed, "fail", true, 1]);
  expect(await at(DAY_1, seed)).toEqual([seed, "pass", true, 0]);
  // The text says the seed at the top, and how to ask the same again.
  const text = await check(["day-1", "--only", "echo-round-trip", "--cmd", DAY_1, "--seed", "5"]);
  expect(text.stdoutLines[2]).toBe("seed: 5 (--seed 5 asks the same words and file names again)");
}, 60_000);

test("in the course without --project and with no CLI to run: one line naming the learner's form", async () => {
  const run = await check(["day-1"]);
  expect(run.exitCode).toBe(2);
  expect(run.stderr).toBe(
    `error: ${ROOT} is this course, not your project: from your project's folder, run pnpm --dir ${ROOT} check day-1 --project .\n`,
  );
}, 30_000);

// `pnpm check <stage> --battery` (decision 0069): Day 5's bypass battery through the CLI and the
// fake server. The reference stage passes it whole; a copy of it whose shell reader lets one
// spelling through fails, naming that command, with exit 1; a stage without a battery is a usage
// error.
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli, runKey } from "@agent-code/test-kit";
import { BATTERY_BATCH, BATTERY_CASES, batteryOf } from "@agent-code/test-kit/battery";
import { ensureStageBundle } from "@agent-code/test-kit/stage-bundle";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ROOT, stageDir } from "../lib/command.ts";
import { schemaErrors } from "./json-schema.ts";

const SCRIPT = fileURLToPath(new URL("../check.ts", import.meta.url));
const STAGE = stageDir("day-5-v5");
const BUNDLE = `node ${join(STAGE, "dist", "agent-code.mjs")}`;
const SCHEMA = JSON.parse(readFileSync(join(ROOT, "scripts", "lib", "check-schema.json"), "utf8"));
const dir = mkdtempSync(join(tmpdir(), "check-battery-"));
const MUTANT = join(dir, "mutant");

// The shell reader of the mutant reads nothing after a `|&`: the command behind it is unseen.
const PIPE_BOTH = 's.pos += s.src[s.pos + 1] === "&" ? 2 : 1; // `|&` pipes stderr too';
const PIPE_BOTH_SKIPPED =
  'if (s.src[s.pos + 1] === "&") {\n      s.pos = s.src.length;\n      break;\n    }\n    s.pos += 1;';

function check(args: string[]) {
  return runCli(["node", "--import", "tsx", SCRIPT], args, {
    env: { INIT_CWD: ROOT },
    timeoutMs: 180_000,
  });
}

function idOf(command: string): string {
  const found = BATTERY_CASES.find((c) => c.command === command);
  if (found === undefined) throw new Error(`no battery command ${command}`);
  return found.id;
}

beforeAll(() => {
  cpSync(join(STAGE, "src"), join(MUTANT, "src"), { recursive: true });
  const reader = join(MUTANT, "src", "shell-words.ts");
  const text = readFileSync(reader, "utf8");
  if (text.split(PIPE_BOTH).length !== 2)
    throw new Error(`shell-words.ts must hold once: ${PIPE_BOTH}`);
  writeFileSync(
    reader,
    text.replace(PIPE_BOTH, () => PIPE_BOTH_SKIPPED),
  );
  // Built as the stage's own bundle is, from its package.json and with its packages.
  cpSync(join(STAGE, "package.json"), join(MUTANT, "package.json"));
  symlinkSync(join(STAGE, "node_modules"), join(MUTANT, "node_modules"), "dir");
  ensureStageBundle(MUTANT);
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a batch is one run: its scenarios share their inputs; each command is in one batch", () => {
  const scenarios = batteryOf("day-5-v5", { has: () => true })?.scenarios ?? [];
  expect(scenarios.map((scenario) => scenario.id)).toEqual(BATTERY_CASES.map((c) => c.id));
  const batches = new Map<string, string[]>();
  for (const scenario of scenarios) {
    const key = runKey(scenario);
    batches.set(key, [...(batches.get(key) ?? []), scenario.id]);
  }
  expect(batches.size).toBe(Math.ceil(scenarios.length / BATTERY_BATCH));
  for (const batch of batches.values()) expect(batch.length).toBeLessThanOrEqual(BATTERY_BATCH);
  // The first commands of the table start different batches, so a pool runs them side by side.
  expect(new Set(scenarios.slice(0, 2).map((scenario) => runKey(scenario))).size).toBe(2);
});

test("day-5-v5 passes its whole battery: a PASS line a command, then the battery's line", async () => {
  const run = await check(["day-5-v5", "--battery", "--project", STAGE, "--cmd", BUNDLE]);
  expect(run.stderr).toBe("");
  expect(run.exitCode).toBe(0);
  const scenarios = batteryOf("day-5-v5")?.scenarios ?? [];
  expect(scenarios.length).toBeGreaterThan(150);
  const lines = run.stdoutLines.filter((line) => /^(PASS|FAIL|NOTE) {2}/.test(line));
  expect(lines).toEqual(scenarios.map((scenario) => `PASS  ${scenario.title}  [${scenario.id}]`));
  // Nothing in the battery is seeded: no seed line to rerun at.
  expect(run.stdoutLines.filter((line) => line.startsWith("seed:"))).toEqual([]);
  expect(run.stdoutLines.at(-1)).toBe(
    `battery: all ${scenarios.length} commands went as the rules say (the battery alone names no highest stage)`,
  );
}, 180_000);

test("a project whose reader lets one spelling through fails on that command alone, exit 1", async () => {
  const through = idOf("echo ok |& touch pwned.txt");
  // Beside it, commands of the same kinds that the mutant still gets right.
  const held = [idOf("echo ok | touch pwned.txt"), idOf("echo a |& echo b > made.txt")];
  held.push(idOf("echo ok; rm keep.txt"));
  const run = await check([
    "day-5-v5",
    "--battery",
    "--project",
    MUTANT,
    "--cmd",
    `node ${join(MUTANT, "dist", "agent-code.mjs")}`,
    ...[through, ...held].flatMap((id) => ["--only", id]),
  ]);
  expect(run.exitCode).toBe(1);
  const verdicts = run.stdoutLines.filter((line) => /^(PASS|FAIL|NOTE) {2}/.test(line));
  expect(verdicts.filter((line) => line.startsWith("FAIL"))).toEqual([
    `FAIL  asks: "echo ok |& touch pwned.txt": |& is a pipe too  [${through}]`,
  ]);
  expect(verdicts.filter((line) => line.startsWith("PASS"))).toHaveLength(held.length);
  expect(run.stdoutLines).toContain(
    "      - `echo ok |& touch pwned.txt` should be asked about, and the `n` refuse it",
  );
  expect(run.stdoutLines).toContain("      - nothing may run: the folder should be left as it was");
  expect(run.stdoutLines.at(-1)).toBe(
    `battery: 1 of 4 commands did not go as the rules say: ${through} (the battery alone names no highest stage)`,
  );
}, 180_000);

test("--battery with a stage that has none is a usage error: one line, exit 2", async () => {
  const run = await check(["day-4-v3", "--battery", "--project", STAGE, "--cmd", BUNDLE]);
  expect(run.exitCode).toBe(2);
  expect(run.stdout).toBe("");
  expect(run.stderr).toBe("error: day-4-v3 has no battery: --battery goes with day-5-v5\n");
  const several = await check(["--stages", "day-5-v4,day-5-v5", "--battery", "--cmd", BUNDLE]);
  expect(several.exitCode).toBe(2);
  expect(several.stderr).toBe(
    "error: --battery runs one stage's battery: it does not go with several stages\n",
  );
  const unknown = await check(["day-5-v5", "--battery", "--only", "nope", "--cmd", BUNDLE]);
  expect(unknown.exitCode).toBe(2);
  expect(unknown.stderr).toMatch(
    /^error: day-5-v5's battery has no command nope \(its ids: battery-001 to battery-\d{3}\)\n$/,
  );
});

test("the JSON report of a battery says so, and holds to the schema", async () => {
  const id = idOf("rm keep.txt");
  const run = await check(["day-5-v5", "--battery", "--only", id, "--json", "--cmd", BUNDLE]);
  expect(run.exitCode).toBe(0);
  const report = JSON.parse(run.stdout);
  expect(schemaErrors(report, SCHEMA)).toEqual([]);
  expect(report).toMatchObject({ battery: true, complete: false, highestStagePassed: null });
  expect(report.stages[0].scenarios.map((one: { id: string }) => one.id)).toEqual([id]);
}, 60_000);

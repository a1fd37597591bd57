// `pnpm check` end to end against the real day-2-v3, its settings and usage errors, the JSON
// document against its schema, and the highest-stage rule.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { stripVTControlCharacters } from "node:util";
import { findContract, runCli } from "@agent-code/test-kit";
import { afterAll, describe, expect, test } from "vitest";
import { checkSettings } from "../check.ts";
import { jsonOutput, scenarioLines } from "../lib/check-report.ts";
import { highestStagePassed, runCheck, type ScenarioReport } from "../lib/check-run.ts";
import { paint, ROOT, STAGES, stageDir, UsageError } from "../lib/command.ts";
import { schemaErrors } from "./json-schema.ts";

const SCRIPT = fileURLToPath(new URL("../check.ts", import.meta.url));
const STAGE = stageDir("day-2-v3");
const BUNDLE = `node ${join(STAGE, "dist", "agent-code.mjs")}`;
const SCHEMA = JSON.parse(readFileSync(join(ROOT, "scripts", "lib", "check-schema.json"), "utf8"));
const dir = mkdtempSync(join(tmpdir(), "check-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// pnpm check as pnpm runs it from the repository root. A whole contract is about sixty runs, two at
// a time, so the runs that check every scenario get minutes, not the 30 s of one spawn.
const WHOLE_CONTRACT_MS = 180_000;

// Every stage's contract at once, the provider appendix's hundred scenarios included.
const ALL_STAGES_MS = 300_000;

function check(args: string[], timeoutMs = WHOLE_CONTRACT_MS) {
  return runCli(["node", "--import", "tsx", SCRIPT], args, {
    env: { INIT_CWD: ROOT },
    timeoutMs,
  });
}

test(
  "day-2-v3 passes its own stage: a line per scenario, then the highest stage",
  async () => {
    const run = await check(["day-2-v3", "--cmd", BUNDLE]);
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    const scenarios = findContract("day-2-v3")?.scenarios ?? [];
    const lines = run.stdoutLines.filter((line) => /^(PASS|FAIL|NOTE) {2}/.test(line));
    expect(lines).toEqual(scenarios.map((scenario) => `PASS  ${scenario.title}  [${scenario.id}]`));
    expect(run.stdoutLines.slice(0, 4)).toEqual([
      `project: ${ROOT}`,
      `command: ${BUNDLE}`,
      "",
      "day-2-v3: Day 2 v3: the multi-step loop",
    ]);
    const core = scenarios.filter((scenario) => scenario.level === "core").length;
    expect(run.stdoutLines.slice(-3)).toEqual([
      `day-2-v3 passed: ${core} of ${core} core scenarios`,
      "",
      "highest stage passed: day-2-v3",
    ]);
  },
  WHOLE_CONTRACT_MS,
);

test("without --cmd, src/cli.ts is bundled once and run with node; --project is the caller's", async () => {
  const run = await check([
    "day-2-v3",
    "--project",
    "packages/day-2-v3",
    "--only",
    "two-step-chain",
    "--only",
    "repl-runs-each-line",
  ]);
  expect(run.exitCode).toBe(0);
  expect(run.stdoutLines[0]).toBe(`project: ${STAGE}`);
  expect(run.stdoutLines[1]).toBe(
    `command: ${process.execPath} --enable-source-maps ${join("node_modules", ".cache", "agent-code-check", "agent-code.mjs")}`,
  );
  expect(run.stderr).toBe("");
  expect(run.stdoutLines.filter((line) => line.startsWith("PASS  "))).toHaveLength(2);
  expect(run.stdoutLines.at(-1)).toBe(
    "not a full check (--only: 2 scenarios run): no highest stage",
  );
}, 30_000);

test(
  "--all --json: every stage on its own, in course order, valid against the schema",
  async () => {
    const run = await check(["--all", "--json", "--cmd", BUNDLE], ALL_STAGES_MS);
    expect(run.exitCode).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(schemaErrors(report, SCHEMA)).toEqual([]);
    expect(report.stages.map((stage: { stage: string }) => stage.stage)).toEqual(STAGES);
    expect(report.highestStagePassed).toBe("day-2-v3");
    const [day1] = report.stages;
    // day-2-v3 is not day-1: its default provider needs a model, so day-1's echo round fails.
    expect(day1.passed).toBe(false);
    expect(day1.scenarios[0]).toMatchObject({
      id: "echo-round-trip",
      level: "core",
      verdict: "fail",
      failures: expect.arrayContaining([
        { message: "exit code should be 0 (a finished run exits 0)", docs: expect.any(String) },
      ]),
      // The end of stderr says why: day-1 scenarios have no server, so the model is unreachable.
      stderrTail: [expect.stringMatching(/^error: could not connect to http:\/\/127\.0\.0\.1:9/)],
    });
    expect(
      day1.scenarios.some((scenario: { verdict: string }) => scenario.verdict === "note"),
    ).toBe(true);
  },
  ALL_STAGES_MS,
);

test("a schema miss is found: the checker below is no rubber stamp", () => {
  const report = {
    version: 2,
    course: { commit: null, version: "0.1.0" },
    checkedAt: "2026-12-01T15:00:00.000Z",
    project: "/p",
    command: [],
    strict: false,
    complete: true,
    stages: [{}],
  };
  expect(schemaErrors(report, SCHEMA)).toEqual([
    "$: missing highestStagePassed",
    "$.stages.0: missing stage",
    "$.stages.0: missing title",
    "$.stages.0: missing passed",
    "$.stages.0: missing counts",
    "$.stages.0: missing scenarios",
  ]);
  expect(schemaErrors({ ...report, stages: [], highestStagePassed: 3, x: 1 }, SCHEMA)).toEqual([
    "$: unexpected x",
    "$.highestStagePassed: expected string,null",
  ]);
});

test("the highest stage is the latest one in course order that passed, gaps allowed", () => {
  const order = ["a", "b", "c", "d"];
  const verdicts = (passed: string[]) =>
    order.map((stage) => ({ stage, passed: passed.includes(stage) }));
  expect(highestStagePassed(verdicts([]), order)).toBeNull();
  expect(highestStagePassed(verdicts(["a", "b"]), order)).toBe("b");
  expect(highestStagePassed(verdicts(["a", "c"]), order)).toBe("c");
  expect(highestStagePassed(verdicts(["d"]), order)).toBe("d");
  // Order comes from the course, not from the list given.
  expect(highestStagePassed(verdicts(["b", "c"]).reverse(), order)).toBe("c");
  expect(highestStagePassed([{ stage: "day-2-v1", passed: true }])).toBe("day-2-v1");
});

test("a miss shows its judgements, the API's 400 text and each docs link once; colour on request", () => {
  const scenario: ScenarioReport = {
    id: "x",
    aliases: [],
    title: "a title",
    level: "core",
    verdict: "fail",
    timedOut: false,
    failures: [
      { message: "first", docs: "docs/day-2.md#a" },
      { message: "second", docs: "docs/day-2.md#a" },
      { message: "third", docs: null },
    ],
    serverText: "messages.1: wrong",
    stderrTail: ["Traceback (most recent call last):", "KeyError: 'ANTHROPIC_AUTH_TOKEN'"],
  };
  const plain = scenarioLines(scenario, false);
  expect(plain).toEqual([
    "FAIL  a title  [x]",
    "      - first",
    "      - second",
    "      - third",
    "      the API rejected a request (400): messages.1: wrong",
    "      stderr (last lines):",
    "        Traceback (most recent call last):",
    "        KeyError: 'ANTHROPIC_AUTH_TOKEN'",
    "      read: docs/day-2.md#a",
  ]);
  const coloured = scenarioLines(scenario, true);
  expect(coloured[0]).toBe(`${paint(true, "red", "FAIL")}  a title  ${paint(true, "dim", "[x]")}`);
  expect(coloured.map((line) => stripVTControlCharacters(line))).toEqual(plain);
  expect(scenarioLines({ ...scenario, verdict: "pass", failures: [] }, false)).toEqual([
    "PASS  a title  [x]",
  ]);
});

describe("usage errors", () => {
  function settingsError(argv: string[], callerDir = ROOT): string {
    try {
      checkSettings(argv, callerDir);
    } catch (error) {
      if (error instanceof UsageError) return error.message;
      throw error;
    }
    throw new Error(`no usage error for ${argv.join(" ")}`);
  }

  test("unknown, missing or too many stages name the stages there are", () => {
    const stages = `(stages: ${STAGES.join(", ")})`;
    expect(settingsError(["day-9"])).toBe(`unknown stage: day-9 ${stages}`);
    expect(settingsError([])).toBe(`no stage given ${stages}`);
    expect(settingsError(["day-1", "day-2-v1"])).toMatch(
      /^one stage at a time, got: day-1 day-2-v1/,
    );
    expect(settingsError(["--all", "day-1"])).toBe("--all checks every stage: leave out day-1");
  });

  test("flags: unknown ones, bad values, --only with --all or with an id the stage lacks", () => {
    expect(settingsError(["day-1", "--bogus"])).toMatch(/'--bogus'.*usage: pnpm check/);
    expect(settingsError(["day-1", "--cmd"])).toMatch(/^Option '--cmd <value>' argument missing/);
    expect(settingsError(["day-1", "--cmd", " "])).toBe("--cmd is empty: give the command to run");
    expect(settingsError(["day-1", "--timeout-ms", "0", "--cmd", "x"])).toMatch(/^--timeout-ms/);
    expect(settingsError(["--all", "--only", "x"])).toMatch(/^--only .* --all$/);
    expect(settingsError(["day-1", "--only", "nope", "--cmd", "x"])).toMatch(
      /^day-1 has no scenario nope \(scenarios: echo-round-trip, /,
    );
    expect(settingsError(["day-2-v3", "--only", "bad-arguments-?", "--cmd", "x"])).toMatch(
      /^day-2-v3 has no scenario bad-arguments-\? \(scenarios: /,
    );
  });

  test("a missing project directory, or no src/cli.ts, or sources that neither bundle nor have tsx", () => {
    expect(settingsError(["day-1", "--project", "no/such/dir"])).toBe(
      `project directory not found: ${join(ROOT, "no", "such", "dir")}`,
    );
    expect(settingsError(["day-1"], dir)).toBe(
      `no src/cli.ts in ${dir}: write agent-code.check.json or pass --cmd "<the command that runs your agent-code>"`,
    );
    mkdirSync(join(dir, "src"), { recursive: true });
    writeFileSync(join(dir, "src", "cli.ts"), "const x = ;\n");
    expect(settingsError(["day-1"], dir)).toBe(
      `src/cli.ts in ${dir} does not bundle (src/cli.ts:1:11: Unexpected ";") and tsx is not installed: write agent-code.check.json or pass --cmd "<the command that runs your agent-code>"`,
    );
    // With --cmd, anything goes: a Python project has neither.
    expect(checkSettings(["day-1", "--cmd", "uv run agent-code"], dir).settings.command).toEqual([
      "uv",
      "run",
      "agent-code",
    ]);
  });

  test("a command that cannot start: one error line, exit 2, nothing judged", async () => {
    const run = await check(["day-1", "--cmd", "no-such-program-for-agent-code --flag"]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(
      /^error: cannot start `no-such-program-for-agent-code --flag`: .*ENOENT.*\n$/,
    );
    expect(run.stdout).not.toMatch(/^(PASS|FAIL|NOTE)/m);
  }, 30_000);

  test("an unknown stage through the command: one error line, exit 2", async () => {
    const run = await check(["day-9"]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toBe(`error: unknown stage: day-9 (stages: ${STAGES.join(", ")})\n`);
    expect(run.stdout).toBe("");
  }, 30_000);
});

test("a command that hangs is stopped at the timeout and judged as such", async () => {
  const hang = join(dir, "hang.mjs");
  writeFileSync(hang, "setInterval(() => {}, 1000);\n");
  const report = await runCheck(
    {
      stages: ["day-2-v3"],
      project: dir,
      command: [process.execPath, hang],
      strict: false,
      only: ["two-step-chain"],
      timeoutMs: 500,
    },
    jsonOutput(() => {}),
  );
  expect(report?.stages[0]?.scenarios[0]).toMatchObject({
    verdict: "fail",
    timedOut: true,
    failures: [{ message: "the run did not finish in time and was stopped", docs: null }],
  });
}, 30_000);

test("Ctrl-C stops the check and every command it started", async () => {
  const pids = join(dir, "pids");
  const hang = join(dir, "hang-and-tell.mjs");
  writeFileSync(
    hang,
    `import { appendFileSync } from "node:fs";\nappendFileSync(${JSON.stringify(pids)}, process.pid + "\\n");\nsetInterval(() => {}, 1000);\n`,
  );
  const child = spawn("node", ["--import", "tsx", SCRIPT, "day-2-v3", "--cmd", `node ${hang}`], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  // Two scenarios run at once: interrupt when both commands are up.
  while (!existsSync(pids) || readFileSync(pids, "utf8").trim().split("\n").length < 2) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill("SIGINT");
  expect(await exited).toBe(130);
  expect(stderr).toBe("error: check interrupted; the commands it started were stopped\n");
  for (const pid of readFileSync(pids, "utf8").trim().split("\n").map(Number)) {
    expect(running(pid)).toBe(false);
  }
}, 30_000);

// A killed process that no one has reaped yet is a zombie (Z): it counts as stopped.
function running(pid: number): boolean {
  const state = spawnSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" }).stdout;
  return state.trim() !== "" && !state.trim().startsWith("Z");
}

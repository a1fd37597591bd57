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
import { highestStagePassed, judgeHeadline } from "../lib/check-headline.ts";
import { jsonOutput, scenarioLines, textOutput } from "../lib/check-report.ts";
import {
  type CheckOutput,
  type CheckReport,
  projectCommit,
  runCheck,
  type ScenarioReport,
  stderrExcerpt,
} from "../lib/check-run.ts";
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

// The course up to the stage after day-2-v3, with the stage off the main line that branches there:
// what the headline, the next thing to fix and the outgrown scenarios need, at a cost that does
// not grow with the course (decision 0062). `--all` is the same runCheck over every stage.
const CUT = ["day-1", "day-2-v1", "day-2-v2", "day-2-v3", "day-2-challenges", "day-3-v1"];
const CUT_MS = 180_000;

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
    // Called in the course without --project: the first line says whose code this is, and how to
    // check your own.
    expect(run.stdoutLines.slice(0, 5)).toEqual([
      `project: ${ROOT} (this course's own code, not yours: to check your project, run in its folder: pnpm --dir ${ROOT} check day-2-v3 --project .)`,
      `command: ${BUNDLE}`,
      // A new seed each check, unless --seed names one; the line says how to ask the same again.
      expect.stringMatching(/^seed: (\d+) \(--seed \1 asks the same words and file names again\)$/),
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

// One run over the cut, written both ways at once (the text a person reads and the JSON document),
// in this process through the same runCheck and outputs the command uses: the longest run in this
// file happens once (decision 0038).
type Both = { text: string; json: string; report: CheckReport | undefined };
let cutRun: Promise<Both> | undefined;
function courseCutOnce(): Promise<Both> {
  cutRun ??= (async () => {
    const { settings } = checkSettings(["--stages", CUT.join(","), "--cmd", BUNDLE], ROOT);
    const both = { text: "", json: "" };
    const outputs = [
      textOutput((text) => {
        both.text += text;
      }, false),
      jsonOutput((text) => {
        both.json += text;
      }),
    ];
    const tee: CheckOutput = {
      start(settings) {
        for (const output of outputs) output.start(settings);
      },
      stage(stage, title) {
        for (const output of outputs) output.stage(stage, title);
      },
      scenario(stage, report) {
        for (const output of outputs) output.scenario(stage, report);
      },
      stageDone(report) {
        for (const output of outputs) output.stageDone(report);
      },
      done(report) {
        for (const output of outputs) output.done(report);
      },
    };
    const report = await runCheck(settings, tee);
    return { text: both.text, json: both.json, report };
  })();
  return cutRun;
}

test("--all is every stage in course order, --main-line the stages of the main line", () => {
  expect(checkSettings(["--all", "--cmd", BUNDLE], ROOT).settings.stages).toEqual(STAGES);
  expect(checkSettings(["--main-line", "--cmd", BUNDLE], ROOT).settings.stages).toEqual(
    STAGES.filter((stage) => !/challenges|appendix/.test(stage)),
  );
});

test(
  "several stages --json: every stage on its own, in course order, valid against the schema",
  async () => {
    const run = await courseCutOnce();
    const report = JSON.parse(run.json);
    expect(schemaErrors(report, SCHEMA)).toEqual([]);
    expect(report.stages.map((stage: { stage: string }) => stage.stage)).toEqual(CUT);
    expect(report.highestStagePassed).toBe("day-2-v3");
    expect(report.projectCommit).toBe(projectCommit(ROOT));
    expect(report.optionalPassed).toEqual([]);
    // Above the headline, on the main line: Day 3 v1, never a challenge stage.
    expect(report.nextToFix).toMatchObject({ stage: "day-3-v1", docs: expect.any(String) });
    expect(report.nextToFix.message).not.toBe("");
    const [day1] = report.stages;
    // day-2-v3 is not day-1: its default provider needs a model, so day-1's echo round fails.
    // Later stages changed it: it is outgrown, and day-1 is reached without it.
    expect(day1).toMatchObject({ passed: false, reached: true, mainLine: true });
    expect(day1.scenarios[0]).toMatchObject({ id: "echo-round-trip", outgrown: true });
    expect(
      report.stages.find((stage: { stage: string }) => stage.stage === "day-2-challenges"),
    ).toMatchObject({ mainLine: false });
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
  CUT_MS,
);

test(
  "several stages of a finished project: a line per stage and the next stage's misses, the highest stage at the top",
  async () => {
    const run = await courseCutOnce();
    expect(run.report?.highestStagePassed).toBe("day-2-v3");
    const lines = run.text.replace(/\n$/, "").split("\n");
    // The headline, the next thing to fix with its hint and link, a line per stage, and details
    // for one stage only: at most four misses, at most three lines each, and a count of the rest.
    const next = run.report?.nextToFix;
    expect(next?.stage).toBe("day-3-v1");
    expect(lines.slice(3, 7)).toEqual([
      "",
      "highest stage passed: day-2-v3",
      `next to fix (day-3-v1): ${next?.title}  [${next?.id}]`,
      `      - ${next?.message}`,
    ]);
    const stage = run.report?.stages.find((one) => one.stage === "day-3-v1");
    const misses = stage?.scenarios.filter((scenario) => scenario.verdict === "fail").length ?? 0;
    // The next thing to fix, then at most three more of its stage, and a count of the rest.
    const others = Math.min(misses - 1, 3);
    expect(others).toBeGreaterThan(0);
    expect(lines).toContain("day-3-v1 also misses:");
    expect(lines.filter((line) => line.startsWith("FAIL  "))).toHaveLength(others);
    expect(lines).not.toContain(`FAIL  ${next?.title}  [${next?.id}]`);
    const more = misses > 4 ? `and ${misses - 4} more; ` : "";
    expect(run.text).toContain(`${more}every scenario, stderr and notes: pnpm check day-3-v1;`);
    const width = Math.max(...CUT.map((name) => name.length));
    const first = lines.findIndex((line) => line.startsWith("day-1 "));
    const listed = lines.slice(first, first + CUT.length + 1);
    // The main line, then the optional stages apart under their heading.
    const names = listed.map((line) => (line.startsWith("optional") ? line : line.slice(0, width)));
    expect(names.map((name) => name.trimEnd())).toEqual([
      ...CUT.filter((name) => name !== "day-2-challenges"),
      "optional, apart from the headline:",
      "day-2-challenges",
    ]);
    // Outgrown scenarios are set aside, not failed, and counted apart.
    expect(listed[0]).toMatch(/^day-1 +passed: 0 of 0 core scenarios, 3 outgrown/);
    expect(listed[1]).toMatch(/^day-2-v1 +passed: (\d+) of \1 core scenarios, 1 outgrown/);
    expect(listed[3]).toMatch(/^day-2-v3 +passed: /);
    expect(listed[4]).toMatch(/^day-3-v1 +not passed: /);
    expect(run.text).toContain(
      "outgrown, set aside: 4 core scenarios of day-1, day-2-v1 that later stages changed",
    );
    expect(run.text).not.toMatch(/^(PASS|NOTE) {2}/m);
    expect(run.text).not.toContain("[echo-round-trip]");
    expect(lines.at(-1)).toBe("highest stage passed: day-2-v3");
  },
  CUT_MS,
);

test(
  "--all's first screen grows by a line a stage, not by a stage's scenarios: 20 lines around them",
  async () => {
    // The cut's own reports, and every later stage as day-3-v1 read (not passed, the same misses):
    // the screen of a whole course, built without running it.
    const run = await courseCutOnce();
    const cut = run.report;
    const missed = cut?.stages.find((one) => one.stage === "day-3-v1");
    if (cut === undefined || missed === undefined) throw new Error("the cut was not checked");
    const stages = STAGES.map(
      (name) =>
        cut.stages.find((one) => one.stage === name) ?? {
          ...missed,
          stage: name,
          title: `${name} title`,
          mainLine: !/challenges|appendix/.test(name),
        },
    );
    let text = "";
    const output = textOutput((chunk) => {
      text += chunk;
    }, false);
    const { settings } = checkSettings(["--all", "--cmd", BUNDLE], ROOT);
    output.start(settings);
    for (const stage of stages) output.stageDone(stage);
    output.done({ ...cut, stages });
    const lines = text.replace(/\n$/, "").split("\n");
    expect(lines.length).toBeLessThanOrEqual(STAGES.length + 3 * 4 + 14);
    // 43 lines for 19 stages when decision 0037 was made, 47 for 27: the list and 20 lines more.
    expect(lines.length).toBeLessThanOrEqual(STAGES.length + 20);
    const width = Math.max(...STAGES.map((stage) => stage.length));
    const first = lines.findIndex((line) => line.startsWith("day-1 "));
    const mainLine = STAGES.filter((stage) => !/challenges|appendix/.test(stage));
    const optional = STAGES.filter((stage) => !mainLine.includes(stage));
    const listed = lines.slice(first, first + STAGES.length + 1);
    const names = listed.map((line) => (line.startsWith("optional") ? line : line.slice(0, width)));
    expect(names.map((name) => name.trimEnd())).toEqual([
      ...mainLine,
      "optional, apart from the headline:",
      ...optional,
    ]);
    expect(lines.at(-1)).toBe("highest stage passed: day-2-v3");
  },
  CUT_MS,
);

test("a first screen from a report: the stage after the highest one, or the first when none passed", () => {
  const scenario = (id: string, verdict: "pass" | "fail" | "note"): ScenarioReport => ({
    id,
    aliases: [],
    title: `the ${id}`,
    level: verdict === "note" ? "conformance" : "core",
    verdict,
    timedOut: false,
    failures:
      verdict === "pass"
        ? []
        : [
            { message: `${id} missed`, docs: "docs/day-1.md#a" },
            { message: "and more", docs: null },
          ],
    serverText: null,
    stderrTail: null,
  });
  const stage = (name: string, passed: boolean) => ({
    stage: name,
    title: `${name} title`,
    passed,
    counts: { core: { passed: 0, total: 0 }, conformance: { passed: 0, total: 0 } },
    scenarios: passed ? [scenario("ok", "pass"), scenario("n", "note")] : [scenario("x", "fail")],
  });
  const screen = (passed: boolean[], verbose = false) => {
    let text = "";
    const output = textOutput(
      (chunk) => {
        text += chunk;
      },
      false,
      verbose,
    );
    const stages = ["day-1", "day-2-v1", "day-2-v2"].map((name, index) =>
      stage(name, passed[index] ?? false),
    );
    output.start({
      stages: stages.map((s) => s.stage),
      project: "/p",
      command: ["x"],
      strict: false,
      only: undefined,
      timeoutMs: 1,
    });
    for (const s of stages) {
      output.stage(s.stage, s.title);
      for (const one of s.scenarios) output.scenario(s.stage, one);
      output.stageDone(s);
    }
    output.done({
      version: 5,
      course: { commit: null, version: "0" },
      checkedAt: "2026-12-01T00:00:00.000Z",
      project: "/p",
      command: ["x"],
      strict: false,
      complete: true,
      stages,
      ...judgeHeadline(stages, false),
    });
    return text.split("\n");
  };
  expect(screen([false, true, false])).toEqual([
    "project: /p",
    "command: x",
    "",
    "highest stage passed: day-2-v1",
    "next to fix (day-2-v2): the x  [x]",
    "      - x missed",
    "      read: docs/day-1.md#a",
    "",
    // No later stage replaced or dropped day-1's `x` (no contract has it): a miss, not outgrown.
    "day-1     not passed: 1 of 1 core scenarios failed",
    "day-2-v1  passed: 1 of 1 core scenarios; 1 note",
    "day-2-v2  not passed: 1 of 1 core scenarios failed",
    "",
    "every scenario, stderr and notes: pnpm check day-2-v2; every stage: --all --verbose",
    "",
    "highest stage passed: day-2-v1",
    "",
  ]);
  const none = screen([false, false, false]);
  expect(none).toContain("next to fix (day-1): the x  [x]");
  expect(none.join("\n")).not.toContain("outgrown");
  // --verbose: every stage's scenarios as they finish, as one stage prints them.
  const verbose = screen([false, true, false], true);
  expect(verbose).toContain("day-1: day-1 title");
  expect(verbose).toContain("PASS  the ok  [ok]");
  expect(verbose).toContain("day-1 not passed: 1 of 1 core scenarios failed");
  expect(verbose.at(-2)).toBe("highest stage passed: day-2-v1");
});

test("the same 400 text is quoted once in a stage, then referred to", () => {
  const miss: ScenarioReport = {
    id: "x",
    aliases: [],
    title: "t",
    level: "core",
    verdict: "fail",
    timedOut: false,
    failures: [{ message: "m", docs: null }],
    serverText: "messages.1: wrong",
    stderrTail: null,
  };
  const quoted = new Set<string>();
  expect(scenarioLines(miss, false, quoted)).toContain(
    "      the API rejected a request (400): messages.1: wrong",
  );
  expect(scenarioLines({ ...miss, id: "y" }, false, quoted)).toContain(
    "      the API rejected a request (400), with the text quoted above",
  );
  expect(scenarioLines({ ...miss, serverText: "other" }, false, quoted)).toContain(
    "      the API rejected a request (400): other",
  );
});

test("stderr with a stack: the error's first line and the project's own frames, not Node's", () => {
  const stack = [
    "/work/me/src/model.ts:12",
    '    throw new Error("no key");',
    "          ^",
    "",
    "Error: no key",
    "    at createProvider (/work/me/src/model.ts:12:11)",
    "    at main (/work/me/src/cli.ts:30:5)",
    "    at run (/work/me/node_modules/cac/dist/index.mjs:9:1)",
    "    at ModuleJob.run (node:internal/modules/esm/module_job:234:25)",
    "    at async ModuleLoader.import (node:internal/modules/esm/loader:473:24)",
    "",
    "Node.js v20.19.0",
  ].join("\n");
  expect(stderrExcerpt(stack, "/work/me")).toEqual([
    "Error: no key",
    "    at createProvider (/work/me/src/model.ts:12:11)",
    "    at main (/work/me/src/cli.ts:30:5)",
  ]);
  const python = [
    "Traceback (most recent call last):",
    '  File "/work/me/.venv/lib/site-packages/x.py", line 3, in run',
    '  File "/work/me/agent_code/cli.py", line 40, in main',
    '  File "/work/me/agent_code/model.py", line 9, in key',
    "KeyError: 'ANTHROPIC_AUTH_TOKEN'",
  ].join("\n");
  expect(stderrExcerpt(python, "/work/me")).toEqual([
    '  File "/work/me/agent_code/cli.py", line 40, in main',
    '  File "/work/me/agent_code/model.py", line 9, in key',
    "KeyError: 'ANTHROPIC_AUTH_TOKEN'",
  ]);
  // One error line and no stack: the end of stderr, as it was.
  expect(stderrExcerpt("warning: x\nerror: set KEY\n", "/p")).toEqual([
    "warning: x",
    "error: set KEY",
  ]);
});

test("a schema miss is found: the checker below is no rubber stamp", () => {
  const report = {
    version: 5,
    course: { commit: null, version: "0.1.0" },
    checkedAt: "2026-12-01T15:00:00.000Z",
    project: "/p",
    command: [],
    strict: false,
    complete: true,
    stages: [{}],
  };
  expect(schemaErrors(report, SCHEMA)).toEqual([
    "$: missing projectCommit",
    "$: missing seed",
    "$: missing highestStagePassed",
    "$: missing optionalPassed",
    "$: missing nextToFix",
    "$.stages.0: missing stage",
    "$.stages.0: missing title",
    "$.stages.0: missing passed",
    "$.stages.0: missing counts",
    "$.stages.0: missing scenarios",
    "$.stages.0: missing mainLine",
    "$.stages.0: missing reached",
    "$.stages.0: missing durationMs",
  ]);
  const whole = { ...report, projectCommit: null, seed: 7, optionalPassed: [], nextToFix: null };
  expect(schemaErrors({ ...whole, stages: [], highestStagePassed: 3, x: 1 }, SCHEMA)).toEqual([
    "$: unexpected x",
    "$.highestStagePassed: expected string,null",
  ]);
  const next = { ...whole, stages: [], highestStagePassed: null, nextToFix: { stage: "day-1" } };
  expect(schemaErrors(next, SCHEMA)).toEqual([
    "$.nextToFix: missing id",
    "$.nextToFix: missing title",
    "$.nextToFix: missing message",
    "$.nextToFix: missing docs",
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
  // The headline is a main-line stage: a challenge stage that passed is not one.
  expect(
    highestStagePassed([
      { stage: "day-2-v3", passed: true },
      { stage: "day-2-challenges", passed: true },
    ]),
  ).toBe("day-2-v3");
  // A stage reached with its outgrown scenarios set aside counts, though its own contract missed.
  expect(highestStagePassed([{ stage: "day-1", passed: false, reached: true }])).toBe("day-1");
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
    // A file esbuild has no loader for bundles with tsx only, which this project lacks.
    writeFileSync(join(dir, "src", "cli.ts"), 'void import("./notes.yaml");\n');
    writeFileSync(join(dir, "src", "notes.yaml"), "not code\n");
    expect(settingsError(["day-1"], dir)).toBe(
      `src/cli.ts in ${dir} does not bundle (src/cli.ts:1:13: No loader is configured for ".yaml" files: src/notes.yaml) and tsx is not installed: write agent-code.check.json or pass --cmd "<the command that runs your agent-code>"`,
    );
    // With --cmd, anything goes: a Python project has neither.
    expect(checkSettings(["day-1", "--cmd", "uv run agent-code"], dir).settings.command).toEqual([
      "uv",
      "run",
      "agent-code",
    ]);
  });

  test("sources that do not parse: one failure quoting esbuild's file:line:column, nothing run", async () => {
    const broken = join(dir, "broken");
    mkdirSync(join(broken, "src"), { recursive: true });
    writeFileSync(join(broken, "src", "cli.ts"), 'import "./tools.ts";\n');
    writeFileSync(join(broken, "src", "tools.ts"), "export const x = ;\n");
    const run = await runCli(["node", "--import", "tsx", SCRIPT], ["day-1"], {
      env: { INIT_CWD: broken },
    });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe(
      [
        `project: ${broken}`,
        "",
        "FAIL  src/cli.ts does not build, so no scenario ran",
        '      src/tools.ts:1:18: Unexpected ";"',
        "",
        "highest stage passed: none",
        "",
      ].join("\n"),
    );
    const json = await runCli(["node", "--import", "tsx", SCRIPT], ["day-1", "--json"], {
      env: { INIT_CWD: broken },
    });
    const report = JSON.parse(json.stdout);
    expect(schemaErrors(report, SCHEMA)).toEqual([]);
    expect(report).toMatchObject({
      stages: [],
      highestStagePassed: null,
      buildError: 'src/tools.ts:1:18: Unexpected ";"',
    });
  }, 30_000);

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
  // The project is the folder it writes to: a sandboxed program writes only its own.
  const args = ["day-2-v3", "--project", dir, "--cmd", `node ${hang}`];
  const child = spawn("node", ["--import", "tsx", SCRIPT, ...args], {
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
  // By the script's path, not the pids it wrote: in the sandbox those are its namespace's.
  expect(runningScripts(hang)).toEqual([]);
}, 30_000);

// The live processes (not zombies: a killed process no one has reaped yet counts as stopped)
// whose command line names `script`.
function runningScripts(script: string): string[] {
  const listing = spawnSync("ps", ["-eo", "stat=,args="], { encoding: "utf8" }).stdout;
  return listing
    .split("\n")
    .filter((line) => line.includes(script) && !line.trim().startsWith("Z"));
}

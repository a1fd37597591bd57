// The honest headline (decision 0056), on every real contract: projects that do exactly what one
// stage's contract asks, with a bug or without, judged as `--all` judges them, in this process.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { findContract, runCli } from "@agent-code/test-kit";
import { expect, test } from "vitest";
import { changedBy, evidenceWanted, judgeHeadline } from "../lib/check-headline.ts";
import { textOutput } from "../lib/check-report.ts";
import type { CheckReport, ScenarioReport, StageReport } from "../lib/check-run.ts";
import { MAIN_LINE, ROOT, STAGES, stageDir } from "../lib/command.ts";
import { schemaErrors } from "./json-schema.ts";

const SCRIPT = fileURLToPath(new URL("../check.ts", import.meta.url));
const SCHEMA = JSON.parse(readFileSync(join(ROOT, "scripts", "lib", "check-schema.json"), "utf8"));

// A project at `level`: it passes exactly the scenarios of that stage's contract (the very same
// scenario, not a later stage's replacement of it), and misses every scenario named in `bugs`.
function projectAt(level: string, bugs: string[] = [], extra: string[] = []): StageReport[] {
  const does = new Set([level, ...extra].flatMap((stage) => findContract(stage)?.scenarios ?? []));
  return STAGES.map((stage) => {
    const contract = findContract(stage);
    const scenarios: ScenarioReport[] = (contract?.scenarios ?? []).map((scenario) => {
      const passed = does.has(scenario) && !bugs.includes(scenario.id);
      return {
        id: scenario.id,
        aliases: [],
        title: `the ${scenario.id}`,
        level: scenario.level,
        verdict: passed ? "pass" : scenario.level === "core" ? "fail" : "note",
        timedOut: false,
        failures: passed
          ? []
          : [{ message: `${scenario.id} missed`, docs: `docs/x.md#${scenario.id}` }],
        serverText: null,
        stderrTail: null,
      };
    });
    const core = scenarios.filter((scenario) => scenario.level === "core");
    return {
      stage,
      title: contract?.title ?? stage,
      passed: core.every((scenario) => scenario.verdict === "pass"),
      counts: {
        core: { passed: core.filter((one) => one.verdict === "pass").length, total: core.length },
        conformance: { passed: 0, total: scenarios.length - core.length },
      },
      scenarios,
    };
  });
}

function headline(stages: StageReport[]) {
  return judgeHeadline(stages, false);
}

function outgrown(stages: StageReport[], stage: string): string[] {
  const report = stages.find((one) => one.stage === stage);
  return (report?.scenarios ?? []).filter((one) => one.outgrown).map((one) => one.id);
}

test("a finished day-4-v3 project: day-4-v3, with Day 1's and Day 2 v1's outgrown scenarios set aside", () => {
  const stages = projectAt("day-4-v3");
  const judged = headline(stages);
  expect(judged.highestStagePassed).toBe("day-4-v3");
  expect(outgrown(stages, "day-1")).toEqual([
    "echo-round-trip",
    "cwd-option",
    "repl-runs-each-line",
  ]);
  expect(outgrown(stages, "day-2-v1")).toEqual(["one-line-answer"]);
  // Its own contract is not passed, but it is reached: that is what the headline reads.
  const day1 = stages.find((stage) => stage.stage === "day-1");
  expect(day1).toMatchObject({ passed: false, reached: true, mainLine: true });
  const added = (findContract("day-5-v1")?.scenarios ?? []).find(
    (scenario) =>
      scenario.level === "core" && !findContract("day-4-v3")?.scenarios.includes(scenario),
  );
  expect(judged.nextToFix).toEqual({
    stage: "day-5-v1",
    id: added?.id,
    title: `the ${added?.id}`,
    message: `${added?.id} missed`,
    docs: `docs/x.md#${added?.id}`,
  });
});

test("one bug at day-4-v3 (results of a turn in two messages): the stage below the bug, and the bug next", () => {
  const stages = projectAt("day-4-v3", ["parallel-tool-calls"]);
  const judged = headline(stages);
  expect(judged.highestStagePassed).toBe("day-2-v1");
  expect(judged.nextToFix).toMatchObject({
    stage: "day-2-v2",
    id: "parallel-tool-calls",
    message: "parallel-tool-calls missed",
    docs: "docs/x.md#parallel-tool-calls",
  });
  // Every stage that keeps the scenario misses it; none of the misses is outgrown.
  for (const stage of MAIN_LINE.slice(MAIN_LINE.indexOf("day-2-v2"))) {
    expect(stages.find((one) => one.stage === stage)?.reached).toBe(false);
  }
});

test("a scenario a later stage replaced is set aside only when the replacement passes", () => {
  // day-5-v2 replaces Day 3's fetch scenarios. A day-5-v2 project passes the new ones: Day 3's
  // are outgrown. With a fetch bug, both miss: the headline stops below Day 3 v3.
  const done = projectAt("day-5-v2");
  expect(headline(done).highestStagePassed).toBe("day-5-v2");
  expect(outgrown(done, "day-4-v3")).toContain("fetch-html");
  const buggy = projectAt("day-5-v2", ["fetch-html"]);
  const judged = headline(buggy);
  expect(judged.highestStagePassed).toBe("day-3-v2");
  expect(judged.nextToFix).toMatchObject({ stage: "day-3-v3", id: "fetch-html" });
  expect(outgrown(buggy, "day-4-v3")).not.toContain("fetch-html");
});

test("a dropped scenario is set aside only when the stage that dropped it is begun", () => {
  // A Day 1 project misses what day-2-v1 adds: its Day 1 scenarios still count, and pass.
  const day1 = projectAt("day-1");
  expect(headline(day1).highestStagePassed).toBe("day-1");
  expect(outgrown(day1, "day-1")).toEqual([]);
  expect(headline(day1).nextToFix?.stage).toBe("day-2-v1");
  // A Day 1 project with a bug: Day 1 is not excused by a stage it never began.
  const broken = projectAt("day-1", ["echo-round-trip"]);
  expect(headline(broken)).toMatchObject({
    highestStagePassed: null,
    nextToFix: { stage: "day-1", id: "echo-round-trip" },
  });
  // A project that does nothing reaches nothing, though Day 1's scenarios were all dropped.
  const nothing = projectAt("no-such-stage");
  expect(headline(nothing).highestStagePassed).toBeNull();
  expect(headline(nothing).nextToFix?.stage).toBe("day-1");
  expect(headline(projectAt("day-2-v1")).highestStagePassed).toBe("day-2-v1");
});

// Decision 0070: one stage checked, after a later lesson changed some of its scenarios.
test("an earlier stage checked alone after a later lesson changed it: outgrown by that lesson, never none", () => {
  const only = (stages: StageReport[], stage: string) =>
    stages.filter((report) => report.stage === stage);
  // A day-5-v2 project checked with `pnpm check day-5-v1`: Day 3's fetch scenarios, which day-5-v2
  // replaced, miss. Judged by day-5-v1's contract alone, that read `none`.
  const v2 = projectAt("day-5-v2");
  const checked = only(v2, "day-5-v1");
  expect(headline(checked).highestStagePassed).toBeNull();
  const misses = checked[0]?.scenarios.filter((one) => one.verdict === "fail") ?? [];
  expect(misses.map((one) => one.id)).toContain("fetch-html");
  expect(misses.map((one) => changedBy("day-5-v1", one.id))).toEqual(misses.map(() => "day-5-v2"));
  // The check asks for day-5-v2's versions of those misses, and nothing it already ran.
  const wanted = evidenceWanted(checked, [], false);
  expect([...wanted.keys()]).toEqual(["day-5-v2"]);
  expect(wanted.get("day-5-v2")).toEqual(misses.map((one) => one.id));
  const evidence = only(v2, "day-5-v2").map((report) => ({
    ...report,
    scenarios: report.scenarios.filter((one) => wanted.get("day-5-v2")?.includes(one.id)),
  }));
  const judged = judgeHeadline(checked, false, { evidence });
  expect(judged).toEqual({ highestStagePassed: "day-5-v1", optionalPassed: [], nextToFix: null });
  expect(outgrown(checked, "day-5-v1")).toEqual(misses.map((one) => one.id));
  expect(evidenceWanted(checked, evidence, false).size).toBe(0);
  const report: CheckReport = {
    version: 5,
    course: { commit: null, version: "0" },
    checkedAt: "2026-12-01T00:00:00.000Z",
    project: "/p",
    command: ["x"],
    strict: false,
    complete: true,
    stages: checked,
    ...judged,
  };
  let text = "";
  textOutput((chunk) => {
    text += chunk;
  }, false).done(report);
  const lines = text.trim().split("\n");
  expect(lines).toContain(
    `outgrown, set aside: ${misses.length} core scenarios of day-5-v1 that day-5-v2 changed: your project does what day-5-v2 asks instead`,
  );
  expect(lines.at(-1)).toBe(
    `highest stage passed: day-5-v1 (${misses.length} core scenarios outgrown by day-5-v2)`,
  );
  expect(text).not.toContain("none");
  // A day-5-v1 project with a fetch bug misses day-5-v2's version too: nothing is set aside.
  const buggy = projectAt("day-5-v1", ["fetch-html"]);
  const alone = only(buggy, "day-5-v1");
  expect(evidenceWanted(alone, [], false).get("day-5-v2")).toEqual(["fetch-html"]);
  const theirs = only(buggy, "day-5-v2").map((stage) => ({
    ...stage,
    scenarios: stage.scenarios.filter((one) => one.id === "fetch-html"),
  }));
  expect(judgeHeadline(alone, false, { evidence: theirs })).toMatchObject({
    highestStagePassed: null,
    nextToFix: { stage: "day-5-v1", id: "fetch-html" },
  });
  // A miss no later stage changed: no later stage can excuse it, and nothing more runs.
  const kept = only(projectAt("day-5-v1", ["parallel-tool-calls"]), "day-5-v1");
  expect(evidenceWanted(kept, [], false).size).toBe(0);
});

test("challenge and appendix stages are shown apart, never the headline", () => {
  const stages = projectAt("day-2-v3", [], ["day-2-challenges"]);
  const judged = headline(stages);
  expect(judged.highestStagePassed).toBe("day-2-v3");
  expect(judged.optionalPassed).toEqual(["day-2-challenges"]);
  expect(stages.find((stage) => stage.stage === "day-2-challenges")?.mainLine).toBe(false);
  // The next thing to fix is on the main line, not a challenge.
  expect(judged.nextToFix?.stage).toBe("day-3-v1");
  // Only a challenge stage checked: no headline, the challenge apart.
  const alone = projectAt("day-2-v3", [], ["day-2-challenges"]).filter(
    (stage) => stage.stage === "day-2-challenges",
  );
  expect(headline(alone)).toEqual({
    highestStagePassed: null,
    optionalPassed: ["day-2-challenges"],
    nextToFix: null,
  });
});

test("the first screen: the headline, the next thing to fix with its hint and link, a line a stage and twenty more", () => {
  const stages = projectAt("day-4-v3", ["parallel-tool-calls"]);
  const judged = headline(stages);
  const report: CheckReport = {
    version: 5,
    course: { commit: null, version: "0" },
    checkedAt: "2026-12-01T00:00:00.000Z",
    project: "/p",
    projectCommit: null,
    command: ["x"],
    strict: false,
    complete: true,
    stages,
    ...judged,
  };
  let text = "";
  const output = textOutput((chunk) => {
    text += chunk;
  }, false);
  output.start({
    stages: STAGES,
    project: "/p",
    command: ["x"],
    strict: false,
    only: undefined,
    timeoutMs: 1,
  });
  output.done(report);
  const lines = text.replace(/\n$/, "").split("\n");
  expect(lines.slice(0, 8)).toEqual([
    "project: /p",
    "command: x",
    "",
    // day-2-v1's one-line answer is set aside, outgrown by day-2-v2, which has its line below.
    "highest stage passed: day-2-v1",
    "next to fix (day-2-v2): the parallel-tool-calls  [parallel-tool-calls]",
    "      - parallel-tool-calls missed",
    "      read: docs/x.md#parallel-tool-calls",
    "",
  ]);
  const line = (stage: string) => lines.find((one) => one.startsWith(`${stage} `));
  // What was set aside is counted apart from what decided (notes: conformance, not deciding).
  expect(line("day-1")).toMatch(/^day-1 +passed: 0 of 0 core scenarios, 3 outgrown; \d+ notes$/);
  expect(line("day-2-v1")).toMatch(
    /^day-2-v1 +passed: 10 of 10 core scenarios, 1 outgrown; 1 note$/,
  );
  expect(line("day-2-v2")).toMatch(/^day-2-v2 +not passed: 1 of \d+ core scenarios failed/);
  // The optional stages come after the main line, under their own heading.
  const apart = lines.indexOf("optional, apart from the headline:");
  expect(apart).toBe(lines.findIndex((line) => line.startsWith(`${MAIN_LINE.at(-1)} `)) + 1);
  expect(lines.slice(apart + 1, apart + 4).map((line) => line.split(" ")[0])).toEqual([
    "day-2-challenges",
    "day-3-challenges",
    "day-5-challenges",
  ]);
  expect(lines).toContain(
    "outgrown, set aside: 4 core scenarios of day-1, day-2-v1 that later stages changed",
  );
  // The bug is the only miss of day-2-v2: nothing else listed, the way to see every scenario.
  expect(lines).not.toContain("day-2-v2 also misses:");
  expect(lines).toContain(
    "every scenario, stderr and notes: pnpm check day-2-v2; every stage: --all --verbose",
  );
  expect(lines.at(-1)).toBe("highest stage passed: day-2-v1");
  // A line a stage, and about twenty around them (44 lines for 32 stages before Day 7 v4).
  expect(lines.length).toBeLessThanOrEqual(STAGES.length + 20);
});

test("--stages through the command: day-2-v3's CLI reaches day-2-v2, day-2-v1's one-line answer outgrown", async () => {
  const run = await runCli(
    ["node", "--import", "tsx", SCRIPT],
    [
      "--stages",
      "day-2-v2,day-2-v1",
      "--cmd",
      `node ${join(stageDir("day-2-v3"), "dist", "agent-code.mjs")}`,
      "--json",
    ],
    { env: { INIT_CWD: ROOT }, timeoutMs: 180_000 },
  );
  expect(run.exitCode).toBe(0);
  const report = JSON.parse(run.stdout);
  expect(schemaErrors(report, SCHEMA)).toEqual([]);
  expect(report.stages.map((stage: StageReport) => stage.stage)).toEqual(["day-2-v1", "day-2-v2"]);
  expect(report).toMatchObject({ highestStagePassed: "day-2-v2", nextToFix: null });
  const [v1] = report.stages as StageReport[];
  // day-2-v1's own contract misses its one-line answer (day-2-v2 sends tools); day-2-v2 is done.
  expect(v1).toMatchObject({ passed: false, reached: true, mainLine: true });
  expect(v1?.scenarios.filter((scenario) => scenario.outgrown).map((one) => one.id)).toEqual([
    "one-line-answer",
  ]);
  for (const scenario of v1?.scenarios ?? []) expect(scenario.durationMs).toBeGreaterThan(0);
}, 180_000);

test("one stage through the command: Day 1 checked on a day-2-v1 CLI reads outgrown by day-2-v1", async () => {
  const run = await runCli(
    ["node", "--import", "tsx", SCRIPT],
    ["day-1", "--cmd", `node ${join(stageDir("day-2-v1"), "dist", "agent-code.mjs")}`],
    { env: { INIT_CWD: ROOT, NO_COLOR: "1" }, timeoutMs: 120_000 },
  );
  const lines = run.stdout.trim().split("\n");
  // Day 1's echo round is what day-2-v1 dropped; the rest of Day 1 the day-2-v1 CLI still does.
  expect(lines.filter((line) => line.startsWith("day-1 not passed:"))).toEqual([
    expect.stringMatching(/^day-1 not passed: 3 of 3 core scenarios failed\b/),
  ]);
  expect(lines).toContain(
    "outgrown, set aside: 3 core scenarios of day-1 that day-2-v1 changed: your project does what day-2-v1 asks instead",
  );
  expect(lines.at(-1)).toBe("highest stage passed: day-1 (3 core scenarios outgrown by day-2-v1)");
  expect(run.exitCode).toBe(0);
}, 120_000);

// Issue #57: a program that throws before it does anything passes every scenario that wants a
// failed run (exit 1, nothing on stdout). Those are no evidence that it moved on from Day 1.
test("a project that crashes on every run reaches no stage", async () => {
  const project = mkdtempSync(join(tmpdir(), "check-crasher-"));
  try {
    mkdirSync(join(project, "src"));
    writeFileSync(join(project, "src", "cli.ts"), 'throw new Error("boom");\n');
    const run = await runCli(
      ["node", "--import", "tsx", SCRIPT],
      ["--stages", "day-1,day-2-v1", "--project", project, "--json"],
      { env: { INIT_CWD: ROOT }, timeoutMs: 180_000 },
    );
    const report = JSON.parse(run.stdout);
    expect(schemaErrors(report, SCHEMA)).toEqual([]);
    expect(report.highestStagePassed).toBeNull();
    expect(report.stages.map((stage: StageReport) => stage.reached)).toEqual([false, false]);
    expect(run.exitCode).toBe(1);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}, 180_000);

// Where a scenario runs (docs/decisions/0062-where-a-scenario-runs.md): what each leg asks of each
// stage's contract, why, and that a mistyped leg or slice stops the run instead of running less.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import type { Contract, Scenario } from "../src/contract.ts";
import { CONTRACT_CPU_FILE, contractCpuMeter, ownCpuSeconds } from "../src/cpu.ts";
import {
  commitSlice,
  contractPlan,
  floorStages,
  newestStage,
  runsWhole,
  SLICES,
  scenarioSlice,
  stageOfTest,
  testLeg,
  wholeStages,
} from "../src/legs.ts";

test("the leg comes from AGENT_CODE_TEST_LEG; unset is the full leg; anything else throws", () => {
  expect(testLeg({})).toBe("full");
  expect(testLeg({ AGENT_CODE_TEST_LEG: "" })).toBe("full");
  expect(testLeg({ AGENT_CODE_TEST_LEG: "full" })).toBe("full");
  expect(testLeg({ AGENT_CODE_TEST_LEG: "floor" })).toBe("floor");
  expect(testLeg({ AGENT_CODE_TEST_LEG: "all" })).toBe("all");
  expect(() => testLeg({ AGENT_CODE_TEST_LEG: "Floor" })).toThrow(
    'AGENT_CODE_TEST_LEG must be "full", "floor" or "all", not "Floor"',
  );
});

test("the slice is AGENT_CODE_SLICE modulo SLICES, else the commit count's; a bad one throws", () => {
  expect(commitSlice({ AGENT_CODE_SLICE: "0" })).toBe(0);
  expect(commitSlice({ AGENT_CODE_SLICE: String(SLICES + 1) })).toBe(1);
  expect(commitSlice({ AGENT_CODE_SLICE: "123456789012345678901" })).toBe(
    Number(123456789012345678901n % BigInt(SLICES)),
  );
  expect(commitSlice({})).toBeGreaterThanOrEqual(0);
  expect(commitSlice({})).toBeLessThan(SLICES);
  expect(() => commitSlice({ AGENT_CODE_SLICE: "-1" })).toThrow(
    'AGENT_CODE_SLICE must be a whole number, not "-1"',
  );
});

test("the whole stages are each day's last and every stage off the main line", () => {
  expect(wholeStages()).toEqual([
    "day-1",
    "day-2-v3",
    "day-2-challenges",
    "day-3-v4",
    "day-3-challenges",
    "day-4-v3",
    "day-5-v5",
    "day-5-challenges",
    "day-6-v5",
    "day-6-challenges",
    "day-7-v5",
    "day-7-challenges",
    "appendix-providers",
  ]);
  // A new day's stages: only its last is added; a new challenge is always there.
  expect(wholeStages(["day-5-v1", "day-5-v2", "day-5-challenges", "day-5-v3"])).toEqual([
    "day-5-challenges",
    "day-5-v3",
  ]);
});

test("the floor leg tests the newest day's last stage whole and the stages off the main line", () => {
  expect(newestStage()).toBe("day-7-v5");
  expect(floorStages()).toEqual([
    "day-2-challenges",
    "day-3-challenges",
    "day-5-challenges",
    "day-6-challenges",
    "day-7-v5",
    "day-7-challenges",
    "appendix-providers",
  ]);
  expect(floorStages(["day-5-v5", "day-5-challenges", "day-6-v1", "day-6-v2"])).toEqual([
    "day-5-challenges",
    "day-6-v2",
  ]);
  expect(runsWhole("day-7-v5", "floor")).toBe(true);
  expect(runsWhole("day-7-v4", "floor")).toBe(false);
  expect(runsWhole("day-7-v3", "floor")).toBe(false);
  expect(runsWhole("day-7-v2", "floor")).toBe(false);
  expect(runsWhole("day-7-v1", "floor")).toBe(false);
  expect(runsWhole("day-6-v5", "floor")).toBe(false);
  expect(runsWhole("day-6-v4", "floor")).toBe(false);
  expect(runsWhole("day-6-v3", "floor")).toBe(false);
  expect(runsWhole("day-6-v2", "floor")).toBe(false);
  expect(runsWhole("day-5-v5", "floor")).toBe(false);
  expect(runsWhole("day-4-v3", "floor")).toBe(false);
  expect(runsWhole("day-5-challenges", "floor")).toBe(false);
  expect(runsWhole("day-4-v3", "full")).toBe(true);
  expect(runsWhole("day-4-v2", "full")).toBe(false);
  expect(runsWhole("day-4-v2", "all")).toBe(true);
});

test("the floor leg's turbo filter names exactly the floor's packages", () => {
  const manifest = JSON.parse(
    readFileSync(new URL("../../../package.json", import.meta.url), "utf8"),
  ) as { scripts: Record<string, string> };
  const filters = [...(manifest.scripts["test:floor"] ?? "").matchAll(/--filter=(\S+)/g)].map(
    (match) => match[1],
  );
  expect(filters).toEqual([
    "@agent-code/test-kit",
    "@agent-code/scripts",
    ...floorStages().map((stage) => `@agent-code/${stage}`),
  ]);
});

test("a test file's stage is its package's folder", () => {
  expect(stageOfTest("file:///repo/packages/day-3-v2/test/file-tools.test.ts")).toBe("day-3-v2");
});

// A small course: day-1 (a, b), day-2-v1 keeps a and b, changes c, adds d; day-2-v2 keeps all of
// day-2-v1 but c, which it changes; day-2-challenges keeps day-2-v1's and adds e.
describe("a contract plan", () => {
  const scenario = (id: string, level: Scenario["level"] = "conformance"): Scenario => ({
    id,
    title: id,
    level,
    args: [id],
    judgements: [],
  });
  const a = scenario("a", "core");
  const b = scenario("b");
  const c1 = scenario("c");
  const d = scenario("d");
  const twin = { ...d, id: "d-text" };
  const c2 = { ...scenario("c"), args: ["c", "--changed"] };
  const e = scenario("e");
  const inherited = Array.from({ length: 40 }, (_, n) => scenario(`old-${n}`));
  const course: Contract[] = [
    { stage: "day-1", title: "", scenarios: [a, b, ...inherited] },
    { stage: "day-2-v1", title: "", base: "day-1", scenarios: [a, b, c1, d, twin, ...inherited] },
    { stage: "day-2-v2", title: "", base: "day-2-v1", scenarios: [a, b, c2, d, ...inherited] },
    { stage: "day-2-challenges", title: "", base: "day-2-v1", scenarios: [a, b, c1, d, e] },
  ];
  const plan = (stage: string, leg: "full" | "floor" | "all", slice = 0) =>
    Object.fromEntries(
      contractPlan(stage, { leg, slice, contracts: course }).map(({ scenario, reason }) => [
        scenario.id,
        reason,
      ]),
    );

  test("an intermediate stage runs its own, its core, what only it proves, twins and a slice", () => {
    const runs = plan("day-2-v1", "full");
    expect(runs).toMatchObject({
      a: "core",
      c: "own",
      d: "own",
      // Judged on d's run: it costs nothing.
      "d-text": "own",
    });
    // day-2-v2 changed c and day-2-challenges kept it: some later stage carries it unchanged.
    expect(runs.c).toBe("own");
    expect(runs.b).toBeUndefined();
    const sliced = inherited.filter((old) => scenarioSlice("day-2-v1", old.id) === 0);
    expect(sliced.length).toBeGreaterThan(0);
    expect(Object.keys(runs).filter((id) => id.startsWith("old-"))).toEqual(
      sliced.map((old) => old.id),
    );
    expect(new Set(sliced.map((old) => runs[old.id]))).toEqual(new Set(["slice"]));
  });

  test("every inherited scenario runs within SLICES commits", () => {
    const seen = new Set<string>();
    for (let slice = 0; slice < SLICES; slice++) {
      for (const id of Object.keys(plan("day-2-v1", "full", slice))) seen.add(id);
    }
    expect([...seen].sort()).toEqual(
      ["a", "b", "c", "d", "d-text", ...inherited.map((old) => old.id)].sort(),
    );
  });

  test("a scenario no later stage carries unchanged runs in the stage that proves it", () => {
    // Neither child of day-2-v1 keeps b: day-2-v1 alone proves its copy of it.
    const only = course.map((contract) => ({
      ...contract,
      scenarios: contract.scenarios.filter((s) => !contract.stage.startsWith("day-2-") || s !== b),
    }));
    only[1]?.scenarios.push(b);
    const runs = Object.fromEntries(
      contractPlan("day-2-v1", { leg: "full", slice: 0, contracts: only }).map((planned) => [
        planned.scenario.id,
        planned.reason,
      ]),
    );
    expect(runs.b).toBe("only-here");
  });

  test("a day's last stage and a stage off the main line run whole on every commit", () => {
    expect(Object.keys(plan("day-1", "full"))).toHaveLength(42);
    expect(new Set(Object.values(plan("day-2-v2", "full")))).toEqual(new Set(["whole"]));
    expect(plan("day-2-challenges", "full")).toEqual({
      a: "whole",
      b: "whole",
      c: "whole",
      d: "whole",
      e: "whole",
    });
  });

  test("the floor leg: the newest stage whole, what a stage off the main line adds, no other", () => {
    expect(Object.keys(plan("day-2-v2", "floor"))).toHaveLength(44);
    expect(plan("day-2-challenges", "floor")).toEqual({ e: "own" });
    expect(plan("day-2-v1", "floor")).toEqual({});
    expect(plan("day-1", "floor")).toEqual({});
  });

  test("test:all runs every scenario of every stage", () => {
    for (const contract of course) {
      expect(Object.keys(plan(contract.stage, "all"))).toHaveLength(contract.scenarios.length);
    }
  });
});

const dir = mkdtempSync(join(tmpdir(), "contract-cpu-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test.runIf(process.platform === "linux")(
  "the contract meter records the CPU of the children waited for, and of this process",
  async () => {
    const meter = contractCpuMeter(dir, "day-x");
    expect(meter.write(0)).toBeNull();
    meter.scenario();
    // A child that burns 0.3 s of its own CPU (however long that takes on a busy machine), waited
    // for.
    const { spawnSync } = await import("node:child_process");
    spawnSync(process.execPath, ["-e", "while (process.cpuUsage().user < 300_000);"]);
    const record = meter.write(1);
    expect(record).toMatchObject({ stage: "day-x", scenarios: 1, runs: 1 });
    expect(record?.cli).toBeGreaterThan(0.25);
    expect(record?.test).toBeGreaterThan(0);
    expect(JSON.parse(readFileSync(join(dir, CONTRACT_CPU_FILE), "utf8"))).toEqual(record);
  },
);

test("a process's own CPU: fields 14 and 15 of its stat, in clock ticks", () => {
  const stat = `4242 (turbo (x)) S 1 4242 4242 0 -1 4194304 100 0 0 0 12 3 250 75 20 0 11 0 900`;
  expect(ownCpuSeconds(stat, 100)).toEqual({ user: 0.12, system: 0.03 });
  expect(ownCpuSeconds("1 (x) S 1", 100)).toBeNull();
});

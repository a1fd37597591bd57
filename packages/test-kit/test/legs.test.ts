// CI's two legs (docs/decisions/0049-two-legs.md): which contracts the floor leg runs, and that a
// mistyped leg stops the run instead of quietly running less.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { CONTRACT_CPU_FILE, contractCpuMeter, ownCpuSeconds } from "../src/cpu.ts";
import { contractRunsOnLeg, floorStages, stageOfTest, testLeg } from "../src/legs.ts";

test("the leg comes from AGENT_CODE_TEST_LEG; unset is the full leg; anything else throws", () => {
  expect(testLeg({})).toBe("full");
  expect(testLeg({ AGENT_CODE_TEST_LEG: "" })).toBe("full");
  expect(testLeg({ AGENT_CODE_TEST_LEG: "full" })).toBe("full");
  expect(testLeg({ AGENT_CODE_TEST_LEG: "floor" })).toBe("floor");
  expect(() => testLeg({ AGENT_CODE_TEST_LEG: "Floor" })).toThrow(
    'AGENT_CODE_TEST_LEG must be "full" or "floor", not "Floor"',
  );
});

test("the floor leg runs each day's last stage and every stage off the main line", () => {
  expect(floorStages()).toEqual([
    "day-1",
    "day-2-v3",
    "day-2-challenges",
    "day-3-v4",
    "day-3-challenges",
    "day-4-v3",
    "day-5-v5",
    "day-5-challenges",
    "appendix-providers",
  ]);
  // A new day's stages: only its last is added; a new challenge is always there.
  expect(floorStages(["day-5-v1", "day-5-v2", "day-5-challenges", "day-5-v3"])).toEqual([
    "day-5-challenges",
    "day-5-v3",
  ]);
  expect(contractRunsOnLeg("day-4-v2", "floor")).toBe(false);
  expect(contractRunsOnLeg("day-4-v3", "floor")).toBe(true);
  expect(contractRunsOnLeg("day-4-v2", "full")).toBe(true);
});

test("a test file's stage is its package's folder", () => {
  expect(stageOfTest("file:///repo/packages/day-3-v2/test/file-tools.test.ts")).toBe("day-3-v2");
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

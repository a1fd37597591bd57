// CI runs the suite twice, once on each end of the Node versions the course supports, and the two
// runs do not do the same work (docs/decisions/0049-two-legs.md). The full leg, on the newest Node
// LTS and on a developer's machine, runs everything. The floor leg, on the oldest Node `engines`
// allows, runs what can differ between Node versions: every package's unit tests, the check
// tests, and the whole contract of each day's last stage, the challenges and the appendix. A
// stage's contract asks `contractRunsOnLeg(stage)`.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { contracts } from "../contracts/index.ts";

export type TestLeg = "full" | "floor";

// AGENT_CODE_TEST_LEG names the leg; unset is the full leg. Any other value is a mistake in a
// script, not a reason to run less: it throws.
export function testLeg(env: NodeJS.ProcessEnv = process.env): TestLeg {
  const value = env.AGENT_CODE_TEST_LEG;
  if (value === undefined || value === "" || value === "full") return "full";
  if (value === "floor") return "floor";
  throw new Error(`AGENT_CODE_TEST_LEG must be "full" or "floor", not ${JSON.stringify(value)}`);
}

// The stages whose whole contract the floor leg runs: the last main-line stage of each day (the
// one that holds every earlier lesson of that day), and every stage off the main line (the
// challenges and the appendix), whose code no later stage carries.
export function floorStages(stages: string[] = contracts.map((c) => c.stage)): string[] {
  const lastOfDay = new Map<string, string>();
  const offLine: string[] = [];
  for (const stage of stages) {
    const day = /^(day-\d+)(-v\d+)?$/.exec(stage)?.[1];
    if (day === undefined) offLine.push(stage);
    else lastOfDay.set(day, stage);
  }
  const chosen = new Set([...lastOfDay.values(), ...offLine]);
  return stages.filter((stage) => chosen.has(stage));
}

export function contractRunsOnLeg(stage: string, leg: TestLeg = testLeg()): boolean {
  return leg === "full" || floorStages().includes(stage);
}

// The stage a test file belongs to (`packages/<stage>/test/x.test.ts`), for tests that follow the
// contract's legs: the race tests of the file tools run thousands of tool calls against a second
// process, and on the floor leg they run where the contract does.
export function stageOfTest(testFileUrl: string): string {
  return path.basename(path.dirname(path.dirname(fileURLToPath(testFileUrl))));
}

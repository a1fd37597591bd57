// The CLI as a user runs it: this stage's contract against its bundle, scenario by scenario, and
// the first core scenario once more through tsx, the path a learner's `pnpm start` takes. Which
// scenarios run on this leg is test-kit's contractPlan (decision 0062), each named with its
// reason. A scenario whose inputs match another's (a conformance twin) is judged on that one's run.
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  contractCpuMeter,
  contractPlan,
  findContract,
  runScenario,
  type SharedRuns,
  secondSeed,
} from "@agent-code/test-kit";
import { afterAll, describe, expect, test } from "vitest";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const contract = findContract(basename(packageDir));
if (contract === undefined) throw new Error(`no contract for ${packageDir}`);
const sharedRuns: SharedRuns = new Map();
// A seeded scenario (one that draws its words and names from the seed) runs once more at a second
// seed, random unless AGENT_CODE_SEED names it: a stage that hard-coded the pages' values fails.
const seed = secondSeed();
const seededRuns: SharedRuns = new Map();

// What the contract cost goes to bench:test. The bundle keeps V8's compiled code from one run for
// the next (Node 22.1 and later), which saves about a twentieth of a run.
const plan = contractPlan(contract.stage);
const meter = contractCpuMeter(packageDir, contract.stage);
const env = { NODE_COMPILE_CACHE: join(packageDir, "node_modules", ".cache", "node-compile") };

// What a failed scenario judged wrong, for the one line a CI summary keeps of the failure.
const failed = (failures: { message: string }[]) =>
  failures.map(({ message }) => message).join("; ");

describe
  .skipIf(plan.length === 0)
  .concurrent(`${contract.stage} contract against the bundle`, () => {
    afterAll(() => {
      meter.write(sharedRuns.size + seededRuns.size);
    });

    test.each(plan.map(({ scenario, reason }) => [scenario.id, reason, scenario] as const))(
      "%s (%s)",
      async (_id, _reason, scenario) => {
        meter.scenario();
        const command = ["node", "dist/agent-code.mjs"];
        const result = await runScenario(scenario, { command, cwd: packageDir, env, sharedRuns });
        expect(result.failures, failed(result.failures)).toEqual([]);
        if (result.seeded !== true) return;
        meter.scenario();
        const again = await runScenario(scenario, {
          command,
          cwd: packageDir,
          env,
          sharedRuns: seededRuns,
          seed,
        });
        expect(
          again.failures,
          `at seed ${seed} (AGENT_CODE_SEED=${seed} replays it): ${failed(again.failures)}`,
        ).toEqual([]);
      },
      30_000,
    );
  });

test("the learner's path, tsx on the sources, passes the first core scenario", async () => {
  const scenario = contract.scenarios.find((candidate) => candidate.level === "core");
  if (scenario === undefined) throw new Error("the contract has no core scenario");
  const result = await runScenario(scenario, {
    command: ["node", "--import", "tsx", "src/cli.ts"],
    cwd: packageDir,
  });
  expect(result.failures, failed(result.failures)).toEqual([]);
}, 30_000);

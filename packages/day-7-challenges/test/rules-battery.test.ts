// The Bash rules against the real CLI: the bypass battery (test-kit's day-5-v5-battery.ts, the
// table `pnpm check day-5-v5 --battery` runs against a learner's project), under the same flags:
// allow `echo:*`, `git status` and `npm test:*`, deny `rm:*` and `curl:*`. A command that must not
// run is answered `n` and must leave its folder exactly as it was; one that must run is asked
// nothing and must leave its mark. One test a command; the commands of a batch share one run of
// the CLI, which asks for each in turn.
import { runScenario, type SharedRuns, testLeg } from "@agent-code/test-kit";
import { BATTERY_CASES, batteryOf } from "@agent-code/test-kit/battery";
import { describe, expect, test } from "vitest";

const packageDir = new URL("..", import.meta.url).pathname;
const BUNDLE = ["node", "dist/agent-code.mjs"];
const battery = batteryOf("day-5-v5");
const runs: SharedRuns = new Map();

// What it proves is the reader and the rules, not what a Node version does: CI's floor leg, which
// runs this stage whole to catch the latter, leaves it out (decision 0062).
describe
  .skipIf(process.platform === "win32" || testLeg() === "floor")
  .concurrent("the Bash rules on the real CLI", () => {
    test.for(BATTERY_CASES.map((c) => [c.title, c] as const))(
      "%s",
      { timeout: 60_000 },
      async ([, c], { expect, skip }) => {
        const scenario = battery?.scenarios.find((one) => one.id === c.id);
        // git and npm are not on every machine the course runs on; without them these cannot run.
        if (scenario === undefined) skip(`${c.needs} is not on PATH`);
        else {
          const result = await runScenario(scenario, {
            command: BUNDLE,
            cwd: packageDir,
            sharedRuns: runs,
          });
          expect(result.failures, result.run.stdout).toEqual([]);
        }
      },
    );
  });

test("the battery holds enough cases of each kind", () => {
  const refused = BATTERY_CASES.filter((c) => c.verdict !== "runs");
  expect(refused.length).toBeGreaterThanOrEqual(60);
  expect(BATTERY_CASES.length - refused.length).toBeGreaterThanOrEqual(20);
});

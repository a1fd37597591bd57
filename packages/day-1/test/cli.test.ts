// The CLI as a user runs it: the stage's contract against the bundle, and one run through tsx.
import { fileURLToPath } from "node:url";
import { findContract, runCli, runScenario } from "@agent-code/test-kit";
import { describe, expect, test } from "vitest";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const contract = findContract("day-1");
if (contract === undefined) throw new Error("day-1 contract missing");

describe("day-1 contract against the bundle", () => {
  test.each(contract.scenarios.map((scenario) => [scenario.id, scenario] as const))(
    "%s",
    async (_id, scenario) => {
      const result = await runScenario(scenario, {
        command: ["node", "dist/agent-code.mjs"],
        cwd: packageDir,
      });
      expect(result.failures).toEqual([]);
    },
    30_000,
  );
});

test("the learner's path, tsx on the sources, prints the same trace", async () => {
  const run = await runCli(["node", "--import", "tsx", "src/cli.ts"], ["echo hi"], {
    cwd: packageDir,
  });
  expect(run.exitCode).toBe(0);
  expect(run.stdoutLines).toEqual([
    "Agent Code",
    `cwd: ${packageDir.replace(/\/$/, "")}`,
    "",
    'tool_call: echo {"text":"hi"}',
    "observation: hi",
    "final: echo tool returned: hi",
  ]);
}, 30_000);

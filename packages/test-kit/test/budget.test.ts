// The suite's budget (docs/decisions/0063-the-suite-budget.md), counted from the contracts and the
// leg rules, never timed: the CLI runs each leg makes and the waits they declare, today and with
// Days 6 to 9 as their designs plan them. A contract that grows past it fails here; raising it is
// a decision.
import { describe, expect, test } from "vitest";
import { contracts } from "../contracts/index.ts";
import {
  BUDGET,
  declaredWaitMs,
  isSeeded,
  legCost,
  overBudget,
  PLANNED_STAGES,
  plannedContracts,
} from "../src/budget.ts";
import type { Contract, Scenario } from "../src/contract.ts";

const planned = plannedContracts(PLANNED_STAGES);

describe("the suite's budget", () => {
  test("today's course and the course as Days 6 to 9 plan it fit the budget on every leg", () => {
    const lines: string[] = [];
    for (const leg of ["full", "floor"] as const) {
      const today = legCost(leg);
      const days9 = legCost(leg, planned);
      lines.push(
        `${leg} leg: ${today.runs} CLI runs and ${today.waitSeconds.toFixed(1)} s of declared waits today (${today.stages.length} stages); ` +
          `${Math.round(days9.runs)} runs and ${days9.waitSeconds.toFixed(1)} s with Days 6 to 9 (${days9.stages.length} stages); ` +
          `budget ${BUDGET[leg].runs} runs, ${BUDGET[leg].waitSeconds} s, ${BUDGET.stageRuns} runs a stage`,
      );
      expect(overBudget(today)).toEqual([]);
      expect(overBudget(days9)).toEqual([]);
    }
    // The projection, for whoever reads the test's output.
    console.log(lines.join("\n"));
  });

  test("a contract that grows past the budget fails it, naming the leg or the stage", () => {
    const last = contracts.find((contract) => contract.stage === "day-5-v5") as Contract;
    const grown = contracts.map((contract) =>
      contract === last
        ? {
            ...contract,
            scenarios: [
              ...contract.scenarios,
              ...Array.from(
                { length: BUDGET.stageRuns },
                (_, n): Scenario => ({
                  id: `grown-${n}`,
                  title: "a scenario too many",
                  level: "conformance",
                  args: [`grown-${n}`],
                  judgements: [],
                }),
              ),
            ],
          }
        : contract,
    );
    const problems = overBudget(legCost("full", grown));
    expect(problems).toContainEqual(
      expect.stringMatching(
        /^day-5-v5 makes \d+ CLI runs on the full leg; the budget is \d+ a stage/,
      ),
    );
    const many = plannedContracts(
      Array.from({ length: 40 }, (_, n) => ({
        stage: `day-${10 + n}-v1`,
        base: n === 0 ? "day-5-v5" : `day-${9 + n}-v1`,
        core: 20,
        conformance: 5,
      })),
    );
    expect(overBudget(legCost("full", many))).toContainEqual(
      expect.stringMatching(/^the full leg makes \d+ CLI runs; the budget is \d+/),
    );
  });

  test("waits are what a scenario declares: settleMs, afterMs, delays the client waits out", () => {
    const base: Scenario = { id: "x", title: "x", level: "core", args: [], judgements: [] };
    expect(declaredWaitMs({ ...base, settleMs: 3000 })).toBe(3000);
    expect(declaredWaitMs({ ...base, interrupt: { afterMs: 300 } })).toBe(300);
    const held = { steps: [{ content: [], delay_ms: 5000 }] };
    expect(declaredWaitMs({ ...base, server: held })).toBe(5000);
    // The client gives up first; a Ctrl-C ends the run while the answer is held.
    expect(declaredWaitMs({ ...base, server: held, env: { AGENT_CODE_TIMEOUT_MS: "200" } })).toBe(
      200,
    );
    expect(declaredWaitMs({ ...base, server: held, interrupt: { afterRequests: 1 } })).toBe(0);
  });

  test("a scenario whose inputs read the seed runs twice; others once", () => {
    const base: Scenario = { id: "x", title: "x", level: "core", args: [], judgements: [] };
    expect(isSeeded({ ...base, args: (context) => [`word ${context.seed}`] })).toBe(true);
    expect(isSeeded({ ...base, args: ["word"] })).toBe(false);
    expect(contracts.flatMap((contract) => contract.scenarios).some(isSeeded)).toBe(true);
  });
});

// The fuzz property of lib/fuzz.ts, 300 generated cases per `pnpm test` (`pnpm fuzz` runs 10,000),
// every counterexample ever found as a fixed case, and proof that the property can fail.
import { expect, test } from "vitest";
import { CANARY, checkCase, fuzz, REGRESSIONS } from "../lib/fuzz.ts";

test("300 generated answers: each run ends in a final line or one ApiError", async () => {
  const report = await fuzz({ runs: 300 });
  expect(report.failure).toBeUndefined();
  expect(report.runs).toBe(300);
}, 120_000);

test.each(REGRESSIONS.map((regression) => [regression.name, regression.steps] as const))(
  "regression: %s",
  async (_name, steps) => {
    await checkCase(steps);
  },
  30_000,
);

test("the property fails when a run shows the key", async () => {
  // A model that says the key back: the trace then holds it, and the property must catch that.
  const steps = [{ content: [{ type: "text" as const, text: `the key is ${CANARY}` }] }];
  await expect(checkCase(steps)).rejects.toThrow("the key appeared in the trace");
});

// runContract's second pool: a scenario that waits on purpose runs beside the others instead of
// holding the slot their starts need. Shown by order, not by a clock: the waiting scenario's
// program ends only once a later scenario has run.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { declaredWaitMs } from "../src/budget.ts";
import { type Contract, runContract } from "../src/contract.ts";

const dir = mkdtempSync(join(tmpdir(), "run-pools-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// `wait` ends once `mark` has left its file; `mark` leaves it.
const program = join(dir, "program.mjs");
writeFileSync(
  program,
  `import { existsSync, writeFileSync } from "node:fs";
const marker = ${JSON.stringify(join(dir, "marked"))};
if (process.argv[2] === "mark") {
  writeFileSync(marker, "");
  console.log("marked");
} else {
  const timer = setInterval(() => {
    if (!existsSync(marker)) return;
    clearInterval(timer);
    console.log("saw the mark");
  }, 20);
}
`,
);

const printed = (line: string) => ({
  message: `stdout should hold ${line}`,
  docs: "",
  check: (observed: { stdoutLines: string[] }) => observed.stdoutLines.includes(line),
});

const contract: Contract = {
  stage: "pools",
  title: "two pools",
  scenarios: [
    // A settle after the run: a wait on purpose, so the waiting pool's.
    { id: "waits", title: "waits", level: "core", args: ["wait"], settleMs: 1, judgements: [] },
    { id: "marks", title: "marks", level: "core", args: ["mark"], judgements: [] },
  ],
};
contract.scenarios[0]?.judgements.push(printed("saw the mark"));
contract.scenarios[1]?.judgements.push(printed("marked"));

test("a scenario that waits runs in its own pool, beside one slot for the rest", async () => {
  const result = await runContract(contract, {
    command: ["node", program],
    // One slot: without the second pool, `waits` would hold it until its timeout.
    concurrency: 1,
    waitingPool: { concurrency: 1, holds: (scenario) => declaredWaitMs(scenario) > 0 },
    timeoutMs: 60_000,
  });
  expect(result.scenarios.map((scenario) => [scenario.id, scenario.passed])).toEqual([
    ["waits", true],
    ["marks", true],
  ]);
}, 90_000);

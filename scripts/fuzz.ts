// `pnpm fuzz [--runs N] [--seed S]`: the fuzz property of scripts/lib/fuzz.ts, 10,000 cases by
// default. Prints the count, the time and, when something escaped, the shrunk counterexample to
// add to REGRESSIONS; exits 1 then.
import { parseArgs } from "node:util";
import { fuzz } from "./lib/fuzz.ts";

const { values } = parseArgs({
  options: { runs: { type: "string", default: "10000" }, seed: { type: "string" } },
});
const runs = Number(values.runs);
const seed = values.seed === undefined ? undefined : Number(values.seed);
if (!Number.isInteger(runs) || runs < 1 || (seed !== undefined && !Number.isInteger(seed))) {
  console.error("error: --runs must be a positive integer and --seed an integer");
  process.exit(2);
}
const report = await fuzz({ runs, seed });
const rate = Math.round((report.runs / report.ms) * 1000);
console.log(
  `fuzz: ${report.runs} cases in ${(report.ms / 1000).toFixed(1)} s (${rate}/s), seed ${report.seed}`,
);
if (report.failure !== undefined) {
  console.log(report.failure);
  process.exitCode = 1;
} else {
  console.log(
    `no escape: ${report.finished} runs ended with a final line, ${report.apiErrors} with one ApiError; ${report.multiTurn} sent tool results back`,
  );
}

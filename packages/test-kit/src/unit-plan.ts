// Which of a stage's own test files run on this leg (docs/decisions/0062-where-a-scenario-runs.md):
// a test file runs where it proves something, as a contract scenario does. Where the stage runs
// whole, every file runs. Elsewhere a file named for one module (`test/web.test.ts` or
// `test/web.bash.test.ts` for `src/web.ts` or `src/tools/web.ts`) is left out when both it and that module are byte for byte
// its base's: the base, or the first stage that changed them, proves the same code, and the day's
// last stage, which runs whole, proves it again where the lesson carries it. `cli.test.ts` always
// runs: it runs the contract's plan.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { contracts as courseContracts } from "../contracts/index.ts";
import type { Contract } from "./contract.ts";
import { runsWhole, type TestLeg, testLeg } from "./legs.ts";

// The test files (`test/<name>.test.ts`, relative to the package) that this leg leaves out.
export function unitTestExclusions(
  packageDir: string,
  leg: TestLeg = testLeg(),
  contracts: Contract[] = courseContracts,
): string[] {
  const stage = path.basename(packageDir);
  const contract = contracts.find((candidate) => candidate.stage === stage);
  const stages = contracts.map((candidate) => candidate.stage);
  if (contract?.base === undefined || runsWhole(stage, leg, stages)) return [];
  const baseDir = path.join(path.dirname(packageDir), contract.base);
  const same = (file: string) => {
    const here = path.join(packageDir, file);
    const there = path.join(baseDir, file);
    return existsSync(there) && readFileSync(here, "utf8") === readFileSync(there, "utf8");
  };
  const testDir = path.join(packageDir, "test");
  return readdirSync(testDir)
    .sort()
    .filter((name) => name.endsWith(".test.ts") && name !== "cli.test.ts")
    .filter((name) => {
      // `web.test.ts` and `web.property.test.ts` are both web's.
      const module = `${name.slice(0, name.indexOf("."))}.ts`;
      const subject = [`src/${module}`, `src/tools/${module}`].find((file) =>
        existsSync(path.join(packageDir, file)),
      );
      return subject !== undefined && same(`test/${name}`) && same(subject);
    })
    .map((name) => `test/${name}`);
}

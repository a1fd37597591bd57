// A lesson replayed as a learner types it, then checked as a learner checks it: the files written
// into a project beside the stage (so its packages resolve), type-checked with the starter's
// tsconfig, bundled once, and run through the contract's scenarios that a checkpoint names.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { findContract, runContract } from "@agent-code/test-kit";
import { bundleProject } from "./bundle.mjs";
import { ROOT, stageDir } from "./command.ts";
import { type Files, STARTER } from "./docs-lessons.ts";

const TSC = join(ROOT, "scripts", "node_modules", ".bin", "tsc");

// A project holding `files` under src/, beside `stage`'s own node_modules. Returns its directory.
export function writeProject(stage: string, files: Files): string {
  const cache = join(stageDir(stage), "node_modules", ".cache");
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, "docs-replay-"));
  writeFileSync(join(dir, "tsconfig.json"), readFileSync(join(ROOT, STARTER, "tsconfig.json")));
  writeFileSync(join(dir, "package.json"), '{ "type": "module", "private": true }\n');
  for (const [path, text] of files) {
    mkdirSync(dirname(join(dir, "src", path)), { recursive: true });
    writeFileSync(join(dir, "src", path), text);
  }
  return dir;
}

export function removeProject(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

// tsc's errors, or "" when the project type-checks.
export function typeErrors(dir: string): string {
  const run = spawnSync(TSC, ["--noEmit", "-p", "tsconfig.json"], { cwd: dir, encoding: "utf8" });
  return run.status === 0 ? "" : `${run.stdout}${run.stderr}`.trim();
}

// Which of the scenarios `only` names fail on the project, with why.
export async function failingScenarios(
  stage: string,
  dir: string,
  only: string[],
): Promise<string[]> {
  const contract = findContract(stage);
  if (contract === undefined) throw new Error(`no contract for ${stage}`);
  const bundle = bundleProject(dir);
  const result = await runContract(contract, {
    command: [process.execPath, bundle],
    cwd: dir,
    only,
    // pnpm check's own figure on a two-core machine; each scenario keeps its contract's timeout.
    concurrency: 2,
    // As pnpm check does: a conformance twin is judged on its core scenario's run.
    sharedRuns: new Map(),
  });
  return result.scenarios
    .filter((scenario) => !scenario.passed)
    .map(
      (scenario) =>
        `${scenario.id}: ${scenario.failures.map((failure) => failure.message).join("; ")}`,
    );
}

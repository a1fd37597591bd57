// Runs the line `pnpm course-model` printed, as a learner would paste it into bash, with a stage's
// bundle where the learner's `pnpm start --` runs their sources, and judges the run as the
// contract judges the scenario's own run. The model is a server in the test's own process: the
// line runs asynchronously, so the server goes on answering.
import { join } from "node:path";
import { judgeRun, observePrepared, runCli, type ScenarioResult } from "@agent-code/test-kit";
import { stageDir } from "../lib/command.ts";
import type { CourseModel } from "../lib/course-model.ts";

// The printed line with the stage's bundle in place of `pnpm start --`.
export function withBundle(line: string, stage: string): string {
  const bundle = join(stageDir(stage), "dist", "agent-code.mjs");
  return line.replace(" pnpm start -- ", ` ${JSON.stringify(process.execPath)} ${bundle} `);
}

export async function runPrinted(model: CourseModel): Promise<ScenarioResult> {
  const observed = await observePrepared(model.scenario, model.prepared, (_inputs, interrupt) =>
    runCli(["bash", "-c", withBundle(model.command, model.stage)], [], {
      cwd: stageDir(model.stage),
      stdin: model.typed.map((text) => `${text}\n`).join(""),
      timeoutMs: 30_000,
      // Only what a learner's shell surely has: the line brings every other variable itself.
      inherit: (name) => name === "PATH" || name === "HOME",
      ...(interrupt === undefined ? {} : { interrupt }),
    }),
  );
  return judgeRun(model.scenario, observed);
}

// Runs the line `pnpm course-model` printed, as a learner would paste it into bash, with a stage's
// bundle where the learner's `pnpm start --` runs their sources, and judges the run as the
// contract judges the scenario's own run. The model is a server in the test's own process: the
// line runs asynchronously, so the server goes on answering.
import { join } from "node:path";
import { judgeRun, observePrepared, runCli, type ScenarioResult } from "@agent-code/test-kit";
import { stageDir } from "../lib/command.ts";
import { type CourseModel, laterCommand } from "../lib/course-model.ts";

// The printed line with the stage's bundle in place of `pnpm start --`.
export function withBundle(line: string, stage: string): string {
  const bundle = join(stageDir(stage), "dist", "agent-code.mjs");
  return line.replace(" pnpm start -- ", ` ${JSON.stringify(process.execPath)} ${bundle} `);
}

// Each run of the scenario is the line printed for it: the first, then each later run's, built
// from the whole output of the runs it reads, as the learner pastes it (observePrepared applies
// the scenario's `between` before each later run, as the command does).
export async function runPrinted(model: CourseModel): Promise<ScenarioResult> {
  const outputs: string[] = [];
  const observed = await observePrepared(
    model.scenario,
    model.prepared,
    async (_inputs, interrupt) => {
      const index = outputs.length;
      const later = model.later[index - 1];
      const line = later === undefined ? model.command : laterCommand(model, later, outputs);
      const typed = later === undefined ? model.typed : later.typed;
      const run = await runCli(["bash", "-c", withBundle(line, model.stage)], [], {
        cwd: stageDir(model.stage),
        stdin: typed.map((text) => `${text}\n`).join(""),
        timeoutMs: 30_000,
        // Only what a learner's shell surely has: the line brings every other variable itself.
        inherit: (name) => name === "PATH" || name === "HOME",
        ...(interrupt === undefined ? {} : { interrupt }),
      });
      outputs.push(run.stdout);
      return run;
    },
  );
  return judgeRun(model.scenario, observed);
}

// `pnpm stage-diff <stage>`, `pnpm stage-diff <from> <to>` and `pnpm stage-diff <stage> --project
// <dir> [--src <dir>]`: what one lesson changes (against the stage it builds on, or any stage), or
// how a learner's project differs from a stage (`--tests` adds test/).
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { baseOf, requireStage, runCommand, UsageError, useColour } from "./lib/command.ts";
import { diffStageAndProject, diffStages } from "./lib/stage-diff.ts";

const USAGE =
  "usage: pnpm stage-diff <stage> [--tests] | pnpm stage-diff <from> <to> [--tests] | pnpm stage-diff <stage> --project <dir> [--src <dir>] [--tests]";

async function main(): Promise<number> {
  const { values, positionals } = parse(process.argv.slice(2));
  const options = { tests: values.tests, src: values.src, colour: useColour() };
  if (values.project !== undefined) {
    if (positionals.length !== 1) throw new UsageError(`give one stage with --project (${USAGE})`);
    // pnpm runs root scripts in the root: a relative --project means the caller's directory.
    const project = resolve(process.env.INIT_CWD ?? process.cwd(), values.project);
    process.stdout.write(await diffStageAndProject(positionals[0] ?? "", project, options));
    return 0;
  }
  if (values.src !== undefined) throw new UsageError(`--src goes with --project (${USAGE})`);
  if (positionals.length === 0 || positionals.length > 2) {
    throw new UsageError(`give one stage or two (${USAGE})`);
  }
  const [from, to] =
    positionals.length === 1 ? [baseStage(positionals[0]), positionals[0]] : positionals;
  process.stdout.write(await diffStages(from ?? "", to ?? "", options));
  return 0;
}

// One stage alone is compared with the stage it builds on.
function baseStage(stage: string | undefined): string {
  const base = baseOf(requireStage(stage));
  if (base === undefined) {
    throw new UsageError(`${stage} builds on no other stage: give two stages (${USAGE})`);
  }
  return base;
}

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: {
        tests: { type: "boolean" },
        project: { type: "string" },
        src: { type: "string" },
      },
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (${USAGE})`);
  }
}

await runCommand(main);

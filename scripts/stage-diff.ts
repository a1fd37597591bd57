// `pnpm stage-diff <stage>`, `pnpm stage-diff <from> <to>` and `pnpm stage-diff <stage> --project
// <dir> [--src <dir>]`: what one lesson changes (against the stage it builds on, or any stage), or
// how a learner's project differs from a stage (`--tests` adds test/).
//
// `--by-declaration` compares each TypeScript file on both sides declaration by declaration, so
// that a learner who typed a page's code blocks in another order sees only what differs: each
// top-level declaration (and the imports, sorted, and any other top-level statement) is paired
// with the one of its name on the other side, a pair that is equal is not shown, and one that
// differs is shown as its own diff under a line that names it (`@@ function walk @@`; `(only in
// a/)` or `(only in b/)` for one that only one side has). A file that does not parse is compared
// line by line, with a line that says so.
//
// `--carried` (two stages) shows the second stage's changes over its own base carried onto the
// first, as a learner who went on meets them: `pnpm stage-diff day-3-v4 day-3-challenges
// --carried` is Day 3's answers (a copy of day-3-v2) on day-3-v4, where the challenge page starts.
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { baseOf, requireStage, runCommand, UsageError, useColour } from "./lib/command.ts";
import { diffStageAndProject, diffStages } from "./lib/stage-diff.ts";
import { diffRebased } from "./lib/stage-rebase.ts";

const USAGE =
  "usage: pnpm stage-diff <stage> | pnpm stage-diff <from> <to> | " +
  "pnpm stage-diff <stage> --project <dir> [--src <dir>], each with [--tests] [--by-declaration]; " +
  "pnpm stage-diff <from> <to> --carried";

async function main(): Promise<number> {
  const { values, positionals } = parse(process.argv.slice(2));
  const options = {
    tests: values.tests,
    src: values.src,
    byDeclaration: values["by-declaration"],
    colour: useColour(),
  };
  if (values.project !== undefined) {
    if (positionals.length !== 1) throw new UsageError(`give one stage with --project (${USAGE})`);
    // pnpm runs root scripts in the root: a relative --project means the caller's directory.
    const project = resolve(process.env.INIT_CWD ?? process.cwd(), values.project);
    process.stdout.write(await diffStageAndProject(positionals[0] ?? "", project, options));
    return 0;
  }
  if (values.src !== undefined) throw new UsageError(`--src goes with --project (${USAGE})`);
  if (values.carried) {
    if (positionals.length !== 2) throw new UsageError(`--carried takes two stages (${USAGE})`);
    const [from, to] = positionals.map((stage) => requireStage(stage));
    const diff = await diffRebased(from ?? "", to ?? "", options).catch((error: Error) => {
      throw new UsageError(error.message);
    });
    process.stdout.write(diff);
    return 0;
  }
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
        "by-declaration": { type: "boolean" },
        carried: { type: "boolean" },
      },
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (${USAGE})`);
  }
}

await runCommand(main);

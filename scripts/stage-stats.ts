// `pnpm stage-stats [--json]`: files and lines of code in each stage's src/, and the lines each
// stage adds and removes against the one before.
import { parseArgs } from "node:util";
import { runCommand, UsageError } from "./lib/command.ts";
import { formatStats, stageStats } from "./lib/stage-stats.ts";

async function main(): Promise<number> {
  const { values } = parse(process.argv.slice(2));
  const stats = stageStats();
  process.stdout.write(values.json ? `${JSON.stringify(stats, null, 2)}\n` : formatStats(stats));
  return 0;
}

function parse(args: string[]) {
  try {
    return parseArgs({ args, options: { json: { type: "boolean" } } });
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (usage: pnpm stage-stats [--json])`);
  }
}

await runCommand(main);

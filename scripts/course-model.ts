// `pnpm course-model <stage>/<scenario> [--seed <n>]`: a scripted model on this machine for a
// page's checkpoint, with no key and no network. It prints the command to run in your project,
// then a line for each request your agent sends, until Ctrl-C (scripts/lib/course-model.ts).
import { parseArgs } from "node:util";
import { parseSeed } from "@agent-code/test-kit";
import { runCommand, UsageError } from "./lib/command.ts";
import { introLines, requestLines, startCourseModel } from "./lib/course-model.ts";

const USAGE = "usage: pnpm course-model <stage>/<scenario> [--seed <n>]";

async function main(): Promise<number> {
  const { values, positionals } = parse(process.argv.slice(2));
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError(`name one scenario (${USAGE})`);
  let seed: number | undefined;
  if (values.seed !== undefined) {
    seed = parseSeed(values.seed);
    if (seed === undefined) throw new UsageError(`--seed must be a whole number: ${values.seed}`);
  }
  const model = await startCourseModel(positionals[0] ?? "", seed);
  console.log(introLines(model).join("\n"));
  let seen = 0;
  const watch = setInterval(() => {
    const lines = requestLines(model, seen);
    seen += lines.length;
    for (const line of lines) console.log(line);
  }, 100);
  await new Promise<void>((resolve) => {
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => resolve());
  });
  clearInterval(watch);
  await model.prepared.close();
  return 0;
}

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: { seed: { type: "string" }, help: { type: "boolean", short: "h" } },
    });
  } catch (error) {
    const first = (error instanceof Error ? error.message : String(error)).split(". ")[0];
    throw new UsageError(`${first} (${USAGE})`);
  }
}

await runCommand(main);

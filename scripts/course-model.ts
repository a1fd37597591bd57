// `pnpm course-model <stage>/<scenario> [--seed <n>]`: a scripted model on this machine for a
// page's checkpoint, with no key and no network. It prints the command to run in your project
// (and, for a scenario that starts your agent several times, each later run's command as you go),
// then a line for each request your agent sends, until Ctrl-C (scripts/lib/course-model.ts).
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { parseSeed } from "@agent-code/test-kit";
import { runCommand, UsageError } from "./lib/command.ts";
import {
  type CourseModel,
  introLines,
  laterLines,
  requestLines,
  startCourseModel,
  waitLine,
} from "./lib/course-model.ts";

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
  const stopped = new Promise<void>((resolve) => {
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => resolve());
  });
  const input = model.later.some((run) => run.waits)
    ? createInterface({ input: process.stdin })
    : undefined;
  if (input !== undefined) void laterRuns(model, input[Symbol.asyncIterator]());
  await stopped;
  input?.close();
  clearInterval(watch);
  await model.prepared.close();
  return 0;
}

// The lines of the later runs that wait: each once the learner says (an Enter here) that the run
// before it has finished, after the scenario's `between` has changed the folder as it would
// between runs, and built from what the learner pasted when the run reads an earlier run's output.
async function laterRuns(model: CourseModel, lines: AsyncIterator<string>): Promise<void> {
  const outputs: (string | undefined)[] = [];
  let waited = false;
  for (const run of model.later) {
    if (run.waits) {
      // The intro has asked already for the first run that waits.
      if (waited) console.log(waitLine(run));
      waited = true;
      const pasted: string[] = [];
      for (;;) {
        const next = await lines.next();
        // No more input (stdin closed): the model goes on answering until Ctrl-C.
        if (next.done === true) return;
        if (next.value === "" && (run.reads.length === 0 || pasted.length > 0)) break;
        if (next.value !== "") pasted.push(next.value);
      }
      for (const read of run.reads) outputs[read] ??= pasted.map((line) => `${line}\n`).join("");
      model.scenario.between?.(model.prepared.context, run.index);
    } else if (!waited) {
      // Printed with the intro. (A scenario with `between` waits before every later run.)
      continue;
    }
    console.log(laterLines(model, run, outputs).join("\n"));
  }
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

// `pnpm test:stress [--runs N] [--filter <package>]... [--burners N] [--burn-minutes M]`: the whole
// suite, turbo's cache off, while a busy process per core competes for every core; it passes only
// when N runs in a row pass (default 3). A test that fails here measures the machine, not the
// code. The burners are this command's own children: stopped when a run ends, on Ctrl-C or
// SIGTERM, after --burn-minutes (default 20) whatever happens, and when this command is gone.
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ROOT, runCommand, UsageError, wholeOption } from "./lib/command.ts";
import { coldTestCommand, reportsSince, runTests, startBurners } from "./lib/test-runs.ts";
import { summarize } from "./test-summary.ts";

export interface StressSettings {
  runs: number;
  filters: string[];
  burners: number;
  burnMinutes: number;
}

export function stressSettings(argv: string[]): StressSettings {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values } = parsed;
  return {
    runs: wholeOption("runs", values.runs, 3),
    filters: values.filter ?? [],
    burners: wholeOption("burners", values.burners, availableParallelism()),
    burnMinutes: wholeOption("burn-minutes", values["burn-minutes"], 20),
  };
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    options: {
      runs: { type: "string" },
      filter: { type: "string", multiple: true },
      burners: { type: "string" },
      "burn-minutes": { type: "string" },
    },
  });
}

async function main(argv: string[]): Promise<number> {
  const settings = stressSettings(argv);
  const command = coldTestCommand(settings.filters.map((filter) => `--filter=${filter}`));
  console.log(
    `test:stress: ${settings.runs} run(s) of \`${command.join(" ")}\`, each beside ${settings.burners} busy process(es) (at most ${settings.burnMinutes} min)`,
  );
  let current: ReturnType<typeof runTests> | undefined;
  let burners: ReturnType<typeof startBurners> | undefined;
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupted = true;
    burners?.stop();
    current?.stop(signal);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  process.on("exit", () => burners?.stop());

  for (let run = 1; run <= settings.runs; run++) {
    const since = Date.now();
    burners = startBurners(settings.burners, settings.burnMinutes * 60_000);
    console.log(`\n== run ${run} of ${settings.runs}, burners ${burners.pids.join(", ")}`);
    current = runTests(ROOT, command, "inherit");
    const result = await current.done;
    burners.stop();
    if (interrupted) {
      console.error("error: test:stress interrupted; its burners were stopped");
      return 130;
    }
    const reports = reportsSince(ROOT, since).map(({ report }) => report);
    const counts = reports.length > 0 ? summarize(reports) : "no test reports";
    const late =
      result.seconds > settings.burnMinutes * 60
        ? ` (the burners stopped after ${settings.burnMinutes} min: the rest ran unloaded)`
        : "";
    if (result.exitCode !== 0) {
      console.log(
        `== run ${run} FAILED after ${result.seconds.toFixed(0)} s: ${counts}${late}\ntest:stress failed: ${run - 1} run(s) in a row passed, ${settings.runs} needed`,
      );
      return 1;
    }
    console.log(`== run ${run} passed in ${result.seconds.toFixed(0)} s: ${counts}${late}`);
  }
  console.log(`\ntest:stress passed: ${settings.runs} run(s) in a row under load`);
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runCommand(() => main(process.argv.slice(2)));
}

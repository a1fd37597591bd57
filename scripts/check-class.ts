// `pnpm check:class <dir-of-projects> [--stage <stage> | --stages <a,b> | --main-line] [--out <dir>]
// [--force] [--jobs <n>] [--cmd "<command>"] [--timeout-ms <ms>] [--pass-env <name>] [--strict]
// [--seed <n>]`: every project in a
// folder checked, several at once, one table of the class as Markdown (class.md), JSON
// (class.json) and points (points.csv), each project's report and feedback page beside them.
import { appendFileSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { MAX_SEED, parseSeed, randomSeed } from "@agent-code/test-kit";
import { type ClassSettings, defaultOut, gradeClass, refuseOverwrite } from "./lib/check-class.ts";
import { classJunitXml } from "./lib/check-class-output.ts";
import { courseRevision } from "./lib/check-course.ts";
import { junitFailureXml } from "./lib/check-junit.ts";
import { runCommand, STAGES, stagesOption, UsageError } from "./lib/command.ts";

const USAGE =
  'usage: pnpm check:class <dir-of-projects> [--stage <stage> | --stages <a,b,…> | --main-line] [--out <dir>] [--force] [--jobs <n>] [--cmd "<command>"] [--timeout-ms <ms>] [--pass-env <name>] [--strict] [--seed <n>] [--reporter text|junit]';

const HELP = `${USAGE}

Checks every project in a folder (each says how it starts in agent-code.check.json) and writes,
under --out (by default <dir-of-projects>-grades beside the folder):
  class.md, class.json   one row per learner: highest stage passed, points, core per stage
  class.xml              JUnit XML: a suite per learner, a case per stage (failed: not reached)
  points.csv             learner, highest_stage_passed, points_awarded, points_available
  reports/<learner>.json that project's pnpm check --json report
  reports/<learner>.md   a short feedback page: where the learner stands, the next thing to fix

  --stage <stage>     check one stage (default: every stage, as pnpm check --all)
  --stages <a,b,…>    check these stages, each on its own, in course order
  --main-line         check every stage of the main line, not the challenges
  --out <dir>         where the grades go; grades already there are kept unless --force
  --force             replace the grades already in --out
  --jobs <n>          projects checked at once (default: the number of cores)
  --cmd "<command>"   how every project starts, run in each project's folder
  --timeout-ms <ms>   per scenario, passed on to every check
  --pass-env <name>   one more variable for the learners' programs (repeatable)
  --strict            conformance scenarios decide too
  --seed <n>          the seed every project's seeded scenarios draw from (default: a new one
                      for the class, the same for every learner; in class.md and each report)
  --reporter <r>      text (a line per learner) or junit (class.xml on stdout; an error too)

Exit code: 0 every project was checked, 1 one was not, 2 a usage error, 130 interrupted.`;

// A whole --all check of a slow project on a busy machine: minutes, not the 20 s of a scenario.
const PROJECT_TIMEOUT_MS = 15 * 60_000;

export function classSettings(argv: string[], callerDir: string): ClassSettings {
  const { values, positionals } = parse(argv);
  if (positionals.length !== 1) throw new UsageError(`give one folder of projects (${USAGE})`);
  const dir = resolve(callerDir, positionals[0] ?? "");
  if (statSync(dir, { throwIfNoEntry: false })?.isDirectory() !== true) {
    throw new UsageError(`folder of projects not found: ${dir}`);
  }
  if (values.cmd !== undefined && values.cmd.trim() === "") {
    throw new UsageError("--cmd is empty: give the command that starts every project");
  }
  const out = values.out === undefined ? defaultOut(dir) : resolve(callerDir, values.out);
  refuseOverwrite(out, values.force === true);
  const seed = values.seed === undefined ? randomSeed() : parseSeed(values.seed);
  if (seed === undefined) {
    throw new UsageError(`--seed must be a whole number from 0 to ${MAX_SEED}: ${values.seed}`);
  }
  const stages =
    values.stage === undefined && values.stages === undefined && !values["main-line"]
      ? STAGES
      : stagesOption(values.stage, values);
  const checkArgs = [
    ...(values.strict ? ["--strict"] : []),
    "--seed",
    String(seed),
    ...(values.cmd === undefined ? [] : ["--cmd", values.cmd]),
    ...(values["timeout-ms"] === undefined ? [] : ["--timeout-ms", values["timeout-ms"]]),
    ...(values["pass-env"] ?? []).flatMap((name) => ["--pass-env", name]),
  ];
  const reporter = values.reporter ?? "text";
  if (reporter !== "text" && reporter !== "junit") {
    throw new UsageError(`--reporter is text or junit: ${reporter}`);
  }
  return {
    dir,
    stages,
    seed,
    reporter,
    out,
    checkArgs,
    jobs: jobsOption(values.jobs),
    projectTimeoutMs: PROJECT_TIMEOUT_MS,
  };
}

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        stage: { type: "string" },
        stages: { type: "string", multiple: true },
        "main-line": { type: "boolean" },
        seed: { type: "string" },
        out: { type: "string" },
        force: { type: "boolean" },
        jobs: { type: "string" },
        cmd: { type: "string" },
        "timeout-ms": { type: "string" },
        "pass-env": { type: "string", multiple: true },
        strict: { type: "boolean" },
        reporter: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (${USAGE})`);
  }
}

function jobsOption(value: string | undefined): number {
  if (value === undefined) return availableParallelism();
  const jobs = Number(value);
  if (!Number.isInteger(jobs) || jobs < 1) {
    throw new UsageError(`--jobs must be a positive whole number: ${value}`);
  }
  return jobs;
}

async function main(argv: string[]): Promise<number> {
  if (parse(argv).values.help === true) {
    console.log(HELP);
    return 0;
  }
  const callerDir = process.env.INIT_CWD ?? process.cwd();
  let settings: ClassSettings;
  try {
    settings = classSettings(argv, callerDir);
  } catch (error) {
    // Under --reporter junit even a usage error leaves XML for the CI's report step.
    const junit = argv.some(
      (arg, index) =>
        arg === "--reporter=junit" || (arg === "junit" && argv[index - 1] === "--reporter"),
    );
    if (junit) process.stdout.write(classFailureXml(argv, callerDir, error));
    throw error;
  }
  // A Ctrl-C stops the checks under way (each stops its commands) and writes what was graded.
  const interrupt = new AbortController();
  const stop = () => interrupt.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  let report: Awaited<ReturnType<typeof gradeClass>>;
  try {
    report = await gradeClass(settings, {
      progress: (line) => console.error(line),
      signal: interrupt.signal,
      // Wherever a summary file is named (GitHub Actions names one), the class table goes there,
      // even when the class stopped early.
      written: (markdown) => {
        const summary = process.env.GITHUB_STEP_SUMMARY;
        if (summary) appendFileSync(summary, markdown);
      },
    });
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
  if (settings.reporter === "junit") {
    process.stdout.write(classJunitXml(report));
  } else {
    for (const row of report.learners) {
      console.log(
        `${row.learner}: ${row.error ?? `highest stage passed: ${row.highestStagePassed ?? "none"}`}`,
      );
    }
    console.log(`class report: ${resolve(settings.out, "class.md")} and class.json`);
  }
  if (interrupt.signal.aborted) {
    console.error("error: check:class interrupted; what was graded is in the report");
    return 130;
  }
  // Not checked is the instructor's to fix (a missing install, a bad command): say so in the code.
  return report.learners.some((row) => row.error !== null) ? 1 : 0;
}

// A class that could not start: one failed case with the error line, as pnpm check writes one.
function classFailureXml(argv: string[], callerDir: string, error: unknown): string {
  const takesValue = new Set(["--stage", "--stages", "--seed", "--out", "--jobs", "--cmd"]);
  for (const name of ["--timeout-ms", "--pass-env", "--reporter"]) takesValue.add(name);
  const folder = argv.find(
    (arg, index) => !arg.startsWith("-") && !takesValue.has(argv[index - 1] ?? ""),
  );
  return junitFailureXml({
    course: courseRevision(),
    checkedAt: new Date().toISOString(),
    project: folder === undefined ? null : resolve(callerDir, folder),
    projectCommit: null,
    stages: argv.filter((arg) => STAGES.includes(arg)),
    seed: null,
    name: "the class was graded",
    message: error instanceof Error ? error.message : String(error),
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runCommand(() => main(process.argv.slice(2)));
}

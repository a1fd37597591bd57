// `pnpm check:class <dir-of-projects> [--stage <stage> | --stages <a,b> | --main-line] [--out <dir>]
// [--force] [--jobs <n>] [--cmd "<command>"] [--timeout-ms <ms>] [--pass-env <name>] [--strict]
// [--seed <n>]`: every project in a folder checked, several at once, one table of the class as
// Markdown (class.md), JSON (class.json) and points (points.csv), each project's report and
// feedback page beside them. `pnpm check:class combine <dir-of-reports>` writes the same from
// reports each learner's check wrote elsewhere (a CI job a learner).
import { appendFileSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { MAX_SEED, parseSeed, randomSeed } from "@agent-code/test-kit";
import {
  type ClassReport,
  type ClassSettings,
  type CombineSettings,
  combineClass,
  defaultOut,
  gradeClass,
  refuseOverwrite,
} from "./lib/check-class.ts";
import { classJunitXml, learnerLine } from "./lib/check-class-output.ts";
import { courseRevision } from "./lib/check-course.ts";
import { junitFailureXml } from "./lib/check-junit.ts";
import { runCommand, STAGES, stagesOption, UsageError, wholeOption } from "./lib/command.ts";

const USAGE =
  'usage: pnpm check:class <dir-of-projects> [--stage <stage> | --stages <a,b,…> | --main-line] [--out <dir>] [--force] [--jobs <n>] [--cmd "<command>"] [--timeout-ms <ms>] [--pass-env <name>] [--strict] [--seed <n>] [--install] [--verbose] [--reporter text|junit]';

const COMBINE_USAGE =
  "usage: pnpm check:class combine <dir-of-reports> [--learners <a,b,…>] [--out <dir>] [--force] [--verbose] [--reporter text|junit]";

const HELP = `${USAGE}

Checks every project in a folder (each says how it starts in agent-code.check.json) and writes,
under --out (by default <dir-of-projects>-grades beside the folder):
  class.md, class.json   one row per learner: highest stage passed, points, the next to fix
  class.xml              JUnit XML: a suite per learner, a case per stage (failed: not reached)
  points.csv             learner, highest_stage_passed, points_awarded, points_available, note
  reports/<learner>.json that project's pnpm check --json report, brief (every scenario with
                         --verbose)
  reports/<learner>.md   a short feedback page: where the learner stands, the command that asks
                         the same again, the next thing to fix, each stage

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
                      for the class, the same for every learner; in class.md and each report;
                      never 0, the pages' own words)
  --install           install each project from its lock file (pnpm-lock.yaml, uv.lock) before
                      its check, in the sandbox its code runs in; the log in
                      reports/<learner>.install.log
  --verbose           every scenario of each check in reports/<learner>.json
  --reporter <r>      text (a line per learner) or junit (class.xml on stdout; an error too)

${COMBINE_USAGE}

The same files from reports each learner's check wrote elsewhere, one <learner>.json each
(pnpm check --stages <a,b> --seed <n> --project <their project> --json > <learner>.json): one CI
job a learner, then one that combines them (docs/instructors.md has the workflow).
  --learners <a,b,…>  the class: a learner without a report is not checked

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
  // Seed 0 asks what the pages show: a project that prints those answers would pass unread.
  if (seed === 0) {
    throw new UsageError(
      "--seed 0 asks the words the pages show, which a project can print without doing the work: grade at another seed (leave out --seed for a new one)",
    );
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
    jobs: wholeOption("jobs", values.jobs, availableParallelism()),
    projectTimeoutMs: PROJECT_TIMEOUT_MS,
    // What a learner's own check needs besides stages, project and seed to be asked the same.
    options: [
      ...(values.strict ? ["--strict"] : []),
      ...(values.cmd === undefined ? [] : ["--cmd", values.cmd]),
    ],
    verbose: values.verbose === true,
    install: values.install === true,
  };
}

// `combine <dir-of-reports>`: the reports' folder, where the grades go, and the class's names.
export function combineSettings(argv: string[], callerDir: string): CombineSettings {
  let parsed: ReturnType<typeof parseCombine>;
  try {
    parsed = parseCombine(argv);
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (${COMBINE_USAGE})`);
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1)
    throw new UsageError(`give one folder of reports (${COMBINE_USAGE})`);
  const dir = resolve(callerDir, positionals[0] ?? "");
  if (statSync(dir, { throwIfNoEntry: false })?.isDirectory() !== true) {
    throw new UsageError(`folder of reports not found: ${dir}`);
  }
  const out = values.out === undefined ? defaultOut(dir) : resolve(callerDir, values.out);
  refuseOverwrite(out, values.force === true);
  const reporter = values.reporter ?? "text";
  if (reporter !== "text" && reporter !== "junit") {
    throw new UsageError(`--reporter is text or junit: ${reporter}`);
  }
  const learners = (values.learners ?? [])
    .flatMap((list) => list.split(/[\s,]+/))
    .filter((name) => name !== "");
  return {
    dir,
    out,
    reporter,
    verbose: values.verbose === true,
    ...(values.learners === undefined ? {} : { learners }),
  };
}

function parseCombine(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      learners: { type: "string", multiple: true },
      out: { type: "string" },
      force: { type: "boolean" },
      verbose: { type: "boolean" },
      reporter: { type: "string" },
    },
  });
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
        verbose: { type: "boolean" },
        install: { type: "boolean" },
        reporter: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (${USAGE})`);
  }
}

async function main(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(HELP);
    return 0;
  }
  const callerDir = process.env.INIT_CWD ?? process.cwd();
  if (argv[0] === "combine") return combine(argv.slice(1), callerDir);
  let settings: ClassSettings;
  try {
    settings = classSettings(argv, callerDir);
  } catch (error) {
    // Under --reporter junit even a usage error leaves XML for the CI's report step.
    if (junitAsked(argv)) process.stdout.write(classFailureXml(argv, callerDir, error));
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
      // Even when the class stopped early.
      written: summarise,
    });
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
  printClass(report, settings.reporter ?? "text", settings.out);
  if (interrupt.signal.aborted) {
    console.error("error: check:class interrupted; what was graded is in the report");
    return 130;
  }
  // Not checked is the instructor's to fix (a missing install, a bad command): say so in the code.
  return report.learners.some((row) => row.error !== null) ? 1 : 0;
}

async function combine(argv: string[], callerDir: string): Promise<number> {
  let settings: CombineSettings;
  try {
    settings = combineSettings(argv, callerDir);
  } catch (error) {
    if (junitAsked(argv)) process.stdout.write(classFailureXml(argv, callerDir, error));
    throw error;
  }
  const report = combineClass(settings, { written: summarise });
  printClass(report, settings.reporter ?? "text", settings.out);
  return report.learners.some((row) => row.error !== null) ? 1 : 0;
}

// Wherever a summary file is named (GitHub Actions names one), the class table goes there.
function summarise(markdown: string): void {
  const summary = process.env.GITHUB_STEP_SUMMARY;
  if (summary) appendFileSync(summary, markdown);
}

// stdout: class.xml under --reporter junit, else a line per learner and where the table is.
function printClass(report: ClassReport, reporter: "text" | "junit", out: string): void {
  if (reporter === "junit") {
    process.stdout.write(classJunitXml(report));
    return;
  }
  // A line a learner, their folder's name and their program's stderr shown as text: no escape
  // sequence of theirs reaches the terminal.
  for (const row of report.learners) console.log(learnerLine(row));
  console.log(`class report: ${resolve(out, "class.md")} and class.json`);
}

function junitAsked(argv: string[]): boolean {
  return argv.some(
    (arg, index) =>
      arg === "--reporter=junit" || (arg === "junit" && argv[index - 1] === "--reporter"),
  );
}

// A class that could not start: one failed case with the error line, as pnpm check writes one.
function classFailureXml(argv: string[], callerDir: string, error: unknown): string {
  const takesValue = new Set(["--stage", "--stages", "--seed", "--out", "--jobs", "--cmd"]);
  for (const name of ["--timeout-ms", "--pass-env", "--reporter", "--learners"]) {
    takesValue.add(name);
  }
  const folder = argv.find(
    (arg, index) =>
      !arg.startsWith("-") && arg !== "combine" && !takesValue.has(argv[index - 1] ?? ""),
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

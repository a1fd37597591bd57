// `pnpm check <stage> | --stages a,b | --main-line | --all [--project <dir>] [--cmd "<command>"]
// [--strict] [--json]`: stage contracts against a learner's agent-code, in any language, with
// reasons to act on. Every exit leaves a report: an error is a JUnit failure and a step summary too.
import { appendFileSync, existsSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { MAX_SEED, parseSeed, randomSeed, splitCommand } from "@agent-code/test-kit";
import { BATTERY_STAGES, batteryOf } from "@agent-code/test-kit/battery";
import { BundleRefused, bundleProject, sourceError } from "./lib/bundle.mjs";
import { courseRevision } from "./lib/check-course.ts";
import { passEnvOption } from "./lib/check-env.ts";
import {
  BUILD_CASE,
  type CheckFailure,
  failureSummary,
  junitFailureXml,
  junitOutput,
  stepSummary,
} from "./lib/check-junit.ts";
import { resolveOnly } from "./lib/check-only.ts";
import {
  commandStart,
  PROJECT_FILE,
  readProjectFile,
  requireInstalled,
} from "./lib/check-project.ts";
import { buildFailure, failureJson, jsonOutput, textOutput } from "./lib/check-report.ts";
import { type CheckSettings, projectCommit, runCheck } from "./lib/check-run.ts";
import { ROOT, runCommand, STAGES, stagesOption, UsageError, useColour } from "./lib/command.ts";

const USAGE =
  'usage: pnpm check <stage> | --stages <a,b,…> | --main-line | --all [--project <dir>] [--cmd "<command>"] [--strict] [--json | --reporter text|json|junit] [--verbose] [--only <scenario or glob>] [--battery] [--pass-env <name>] [--timeout-ms <ms>] [--seed <n>]';

const HELP = `${USAGE}

Checks your agent-code against a stage's contract: one line per scenario, then the highest stage
passed. With several stages, one screen: the highest main-line stage reached, the next thing to fix,
a line per stage.

  <stage>               one stage, such as day-2-v3 (stages: ${STAGES.join(", ")})
  --stages <a,b,…>      these stages, each on its own, in course order
  --main-line           every stage of the main line (day-1, day-N-vK), not the challenges
  --all                 every stage, challenges and appendix included (shown apart)
  --project <dir>       your project (default: where you ran pnpm)
  --cmd "<command>"     how to start your CLI (default: agent-code.check.json, else src/cli.ts)
  --strict              conformance scenarios decide too
  --json                one JSON document on stdout (--reporter json)
  --reporter <r>        text, json or junit (JUnit XML on stdout)
  --verbose             with several stages, every scenario of every stage
  --only <id or glob>   only these scenarios of one stage (repeatable)
  --battery             the stage's bypass battery instead of its scenarios (${BATTERY_STAGES.join(", ")}):
                        every command must be asked about, refused or run as the rules say
  --pass-env <name>     let this variable of yours through to your CLI (repeatable)
  --timeout-ms <ms>     how long one scenario may run (default 20000)
  --seed <n>            the seed seeded scenarios draw their words, numbers and file names from
                        (default: a new one each check, printed; 0: the values the pages show)
  -h, --help            this text

Exit: 0 a stage passed, 1 none did, 2 a usage error, 130 interrupted.
With --reporter junit every exit writes XML, an error as one failed test case; wherever
GITHUB_STEP_SUMMARY is set, a Markdown summary is appended to it.`;

const DEFAULT_TIMEOUT_MS = 20_000;

async function main(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(HELP);
    return 0;
  }
  const callerDir = process.env.INIT_CWD ?? process.cwd();
  const checkedAt = new Date().toISOString();
  try {
    return await check(argv, callerDir);
  } catch (error) {
    // Whatever stops the check, a CI still gets a report that says why; the error line follows.
    const message = error instanceof Error ? error.message : String(error);
    reportFailure(argv, failure(argv, callerDir, checkedAt, "the check ran", message));
    throw error;
  }
}

async function check(argv: string[], callerDir: string): Promise<number> {
  const { settings, json, reporter, verbose, note, buildError } = checkSettings(argv, callerDir);
  if (note !== undefined) console.error(note);
  const write = (text: string) => process.stdout.write(text);
  if (buildError !== undefined) {
    const stopped = failure(argv, callerDir, new Date().toISOString(), BUILD_CASE, buildError);
    write(
      reporter === "junit" ? junitFailureXml(stopped) : buildFailure(settings, buildError, json),
    );
    summarise(failureSummary(stopped));
    return 1;
  }
  const output = json
    ? jsonOutput(
        write,
        process.stderr.isTTY ? (text) => process.stderr.write(text) : undefined,
        useColour(process.stderr),
      )
    : reporter === "junit"
      ? junitOutput(write)
      : textOutput(write, useColour(process.stdout), verbose);
  // The commands run in process groups of their own, which a Ctrl-C does not reach: stop them.
  const interrupt = new AbortController();
  const stop = () => interrupt.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    const report = await runCheck(settings, output, interrupt.signal);
    if (report === undefined) {
      const message = "check interrupted; the commands it started were stopped";
      reportFailure(
        argv,
        failure(argv, callerDir, new Date().toISOString(), "the check ran", message),
      );
      console.error(`error: ${message}`);
      return 130;
    }
    // Wherever a step summary is kept (GitHub Actions, or a runner that sets the variable), a
    // table on the job's summary page too.
    summarise(stepSummary(report));
    // A narrowed check (--only) passes when the scenarios it ran decided their stage's way; a
    // whole one when a main-line stage was reached or an optional stage passed.
    const passed = report.complete
      ? report.highestStagePassed !== null || (report.optionalPassed ?? []).length > 0
      : report.stages.every((stage) => stage.passed);
    return passed ? 0 : 1;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}

function summarise(markdown: string): void {
  const summary = process.env.GITHUB_STEP_SUMMARY;
  if (summary) appendFileSync(summary, markdown);
}

// A check that stopped: what the arguments said, read leniently since they may be what failed.
function failure(
  argv: string[],
  callerDir: string,
  checkedAt: string,
  name: string,
  message: string,
): CheckFailure {
  const named = optionValue(argv, "--project");
  const project = resolve(callerDir, named ?? ".");
  const exists = statSync(project, { throwIfNoEntry: false })?.isDirectory() === true;
  return {
    course: courseRevision(),
    checkedAt,
    project: exists ? project : null,
    projectCommit: exists ? projectCommit(project) : null,
    stages: argv.filter((arg) => STAGES.includes(arg)),
    seed: parseSeed(optionValue(argv, "--seed") ?? "") ?? null,
    name,
    message,
  };
}

// After an error: the report the reporter promised (JUnit XML, never an empty file; a JSON
// document with the error) and the step summary.
function reportFailure(argv: string[], stopped: CheckFailure): void {
  const reporter = optionValue(argv, "--reporter");
  if (reporter === "junit") process.stdout.write(junitFailureXml(stopped));
  else if (reporter === "json" || argv.includes("--json"))
    process.stdout.write(failureJson(stopped));
  summarise(failureSummary(stopped));
}

// `--name value` or `--name=value`, the last one given.
function optionValue(argv: string[], name: string): string | undefined {
  let value: string | undefined;
  argv.forEach((arg, index) => {
    if (arg === name) value = argv[index + 1];
    else if (arg.startsWith(`${name}=`)) value = arg.slice(name.length + 1);
  });
  return value;
}

// argv to settings; every mistake is a UsageError. Relative paths are the caller's (INIT_CWD).
export function checkSettings(
  argv: string[],
  callerDir: string,
): {
  settings: CheckSettings;
  json: boolean;
  reporter: Reporter;
  verbose: boolean;
  note?: string;
  buildError?: string;
} {
  const { values, positionals } = parseCheckArgs(argv);
  if (positionals.length > 1) {
    throw new UsageError(
      `one stage at a time, got: ${positionals.join(" ")}; several: --stages ${positionals.join(",")} (${USAGE})`,
    );
  }
  const [stage] = positionals;
  const stages = stagesOption(stage, values);
  if (values.only !== undefined && stages.length > 1) {
    const how = values.all ? "--all" : values["main-line"] ? "--main-line" : "several stages";
    throw new UsageError(`--only names scenarios of one stage: it does not go with ${how}`);
  }
  const battery = values.battery === true;
  if (battery) batteryStage(stages, values);
  const reporter = reporterOption(values.reporter, values.json === true);
  const project = resolve(callerDir, values.project ?? ".");
  if (statSync(project, { throwIfNoEntry: false })?.isDirectory() !== true) {
    throw new UsageError(`project directory not found: ${project}`);
  }
  // Called inside the course without --project: the code checked is the course's, and a learner
  // who meant their own is told how (issue #45).
  const courseCode = values.project === undefined && isInside(ROOT, project);
  if (courseCode && !existsSync(join(project, "src", "cli.ts")) && values.cmd === undefined) {
    throw new UsageError(
      `${project} is this course, not your project: from your project's folder, run ${learnerCheck(stages)}`,
    );
  }
  const { command, env, note, buildError } =
    values.cmd === undefined ? projectCommand(project) : { command: splitCommand(values.cmd) };
  if (command.length === 0 && buildError === undefined) {
    throw new UsageError("--cmd is empty: give the command to run");
  }
  const only =
    values.only === undefined
      ? undefined
      : resolveOnly(stages[0] ?? "", values.only, battery ? batteryOf(stages[0] ?? "") : undefined);
  return {
    settings: {
      stages,
      project,
      command,
      strict: values.strict === true,
      only,
      ...(battery ? { battery } : {}),
      timeoutMs: timeoutOption(values["timeout-ms"]),
      passEnv: passEnvOption(values["pass-env"]),
      // The battery draws nothing from a seed: none is chosen, and none is printed to rerun at.
      ...(battery ? {} : { seed: seedOption(values.seed) }),
      ...(courseCode ? { courseCode: learnerCheck(stages) } : {}),
      ...(env === undefined ? {} : { env }),
    },
    json: values.json === true || reporter === "json",
    reporter,
    verbose: values.verbose === true,
    ...(note === undefined ? {} : { note }),
    ...(buildError === undefined ? {} : { buildError }),
  };
}

// --battery goes with one stage that has a battery (decision 0069).
function batteryStage(stages: string[], values: { all?: boolean; "main-line"?: boolean }): void {
  const [stage = ""] = stages;
  if (stages.length > 1) {
    const how = values.all ? "--all" : values["main-line"] ? "--main-line" : "several stages";
    throw new UsageError(`--battery runs one stage's battery: it does not go with ${how}`);
  }
  if (!BATTERY_STAGES.includes(stage)) {
    throw new UsageError(
      `${stage} has no battery: --battery goes with ${BATTERY_STAGES.join(", ")}`,
    );
  }
}

function parseCheckArgs(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        all: { type: "boolean" },
        stages: { type: "string", multiple: true },
        "main-line": { type: "boolean" },
        project: { type: "string" },
        cmd: { type: "string" },
        strict: { type: "boolean" },
        json: { type: "boolean" },
        verbose: { type: "boolean" },
        reporter: { type: "string" },
        only: { type: "string", multiple: true },
        battery: { type: "boolean" },
        "timeout-ms": { type: "string" },
        "pass-env": { type: "string", multiple: true },
        seed: { type: "string" },
      },
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (${USAGE})`);
  }
}

const PASS_CMD = `write ${PROJECT_FILE} or pass --cmd "<the command that runs your agent-code>"`;

// Without --cmd: the project's agent-code.check.json says how it starts; without one, it is a
// TypeScript project (src/cli.ts).
function projectCommand(project: string): {
  command: string[];
  env?: Record<string, string>;
  note?: string;
  buildError?: string;
} {
  const start = readProjectFile(project);
  if (start !== undefined && "command" in start) return commandStart(project, start);
  requireInstalled(project);
  return defaultCommand(project);
}

// Without --cmd, src/cli.ts is bundled once for the whole check and every scenario starts the
// bundle, with source maps so that a stack trace names the project's files. When it does not
// bundle, tsx runs the sources, as the project's `pnpm start` does, only slower.
// Sources that do not build are one failure, quoting esbuild, and nothing runs: a file that does
// not parse, or an import of one of the project's own files that is not there (tsx would fail on
// it at every start too).
function defaultCommand(project: string): {
  command: string[];
  note?: string;
  buildError?: string;
} {
  if (!existsSync(join(project, "src", "cli.ts"))) {
    throw new UsageError(`no src/cli.ts in ${project}: ${PASS_CMD}`);
  }
  let reason: string;
  try {
    const bundle = relative(project, bundleProject(project));
    return { command: [process.execPath, "--enable-source-maps", bundle] };
  } catch (error) {
    reason = bundleError(error);
    if (error instanceof BundleRefused || sourceError(project, error) || missingFile(error))
      return { command: [], buildError: reason };
  }
  if (!hasTsx(project)) {
    throw new UsageError(
      `src/cli.ts in ${project} does not bundle (${reason}) and tsx is not installed: ${PASS_CMD}`,
    );
  }
  return {
    command: [process.execPath, "--import", "tsx", "src/cli.ts"],
    note: `note: src/cli.ts does not bundle (${reason}): running it through tsx, which is slower`,
  };
}

// esbuild's first error as `file:line:column: text`, or the error's first line.
function bundleError(error: unknown): string {
  const [first] = (error as { errors?: BundleMessage[] }).errors ?? [];
  if (first === undefined) return String((error as Error).message ?? error).split("\n")[0] ?? "";
  const where = first.location;
  // esbuild counts columns from 0; editors and stack traces from 1.
  return where ? `${where.file}:${where.line}:${where.column + 1}: ${first.text}` : first.text;
}

// esbuild could not find a file the sources import by a path (`./system-date.ts`): not a package,
// which may yet load at run time.
function missingFile(error: unknown): boolean {
  const [first] = (error as { errors?: BundleMessage[] }).errors ?? [];
  return /^Could not resolve "\.{0,2}\//.test(first?.text ?? "");
}

interface BundleMessage {
  text: string;
  location: { file: string; line: number; column: number } | null;
}

// Where `node --import tsx` run in `dir` would find it: node_modules of dir or of a parent.
function hasTsx(dir: string): boolean {
  for (let current = dir; ; current = dirname(current)) {
    if (existsSync(join(current, "node_modules", "tsx", "package.json"))) return true;
    if (dirname(current) === current) return false;
  }
}

type Reporter = "text" | "json" | "junit";

function reporterOption(value: string | undefined, json: boolean): Reporter {
  if (value === undefined) return json ? "json" : "text";
  if (value !== "text" && value !== "json" && value !== "junit") {
    throw new UsageError(`--reporter is text, json or junit: ${value}`);
  }
  if (json && value !== "json") throw new UsageError(`--json does not go with --reporter ${value}`);
  return value;
}

// The command a learner types in their own project's folder, the form Day 1 defines.
function learnerCheck(stages: string[]): string {
  const which = stages.length === 1 ? (stages[0] ?? "") : "<stage>";
  return `pnpm --dir ${ROOT} check ${which} --project .`;
}

function isInside(parent: string, path: string): boolean {
  const rel = relative(parent, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

// --seed as typed, or a fresh seed: a learner's check asks new words each run unless told.
function seedOption(value: string | undefined): number {
  if (value === undefined) return randomSeed();
  const seed = parseSeed(value);
  if (seed === undefined) {
    throw new UsageError(`--seed must be a whole number from 0 to ${MAX_SEED}: ${value}`);
  }
  return seed;
}

function timeoutOption(value: string | undefined): number {
  if (value === undefined) return DEFAULT_TIMEOUT_MS;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 1) {
    throw new UsageError(`--timeout-ms must be a positive whole number of milliseconds: ${value}`);
  }
  return ms;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runCommand(() => main(process.argv.slice(2)));
}

// `pnpm check <stage> | --all [--project <dir>] [--cmd "<command>"] [--strict] [--json]`: a
// stage's contract against a learner's agent-code, in any language, with reasons to act on.
import { appendFileSync, existsSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { splitCommand } from "@agent-code/test-kit";
import { bundleProject, sourceError } from "./lib/bundle.mjs";
import { passEnvOption } from "./lib/check-env.ts";
import { junitOutput, stepSummary } from "./lib/check-junit.ts";
import { resolveOnly } from "./lib/check-only.ts";
import { PROJECT_FILE, readProjectFile, requireInstalled } from "./lib/check-project.ts";
import { buildFailure, jsonOutput, textOutput } from "./lib/check-report.ts";
import { type CheckSettings, runCheck } from "./lib/check-run.ts";
import { requireStage, runCommand, STAGES, UsageError, useColour } from "./lib/command.ts";

const USAGE =
  'usage: pnpm check <stage> | --all [--project <dir>] [--cmd "<command>"] [--strict] [--json | --reporter text|json|junit] [--verbose] [--only <scenario or glob>] [--pass-env <name>] [--timeout-ms <ms>]';

const DEFAULT_TIMEOUT_MS = 20_000;

async function main(argv: string[]): Promise<number> {
  const { settings, json, reporter, verbose, note, buildError } = checkSettings(
    argv,
    process.env.INIT_CWD ?? process.cwd(),
  );
  if (note !== undefined) console.error(note);
  const write = (text: string) => process.stdout.write(text);
  if (buildError !== undefined) {
    write(buildFailure(settings, buildError, json));
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
      console.error("error: check interrupted; the commands it started were stopped");
      return 130;
    }
    // Under GitHub Actions, a table on the job's summary page too.
    const summary = process.env.GITHUB_STEP_SUMMARY;
    if (process.env.GITHUB_ACTIONS === "true" && summary) {
      appendFileSync(summary, stepSummary(report));
    }
    // A narrowed check (--only) passes when the scenarios it ran decided their stage's way.
    const passed = report.complete
      ? report.highestStagePassed !== null
      : report.stages.every((stage) => stage.passed);
    return passed ? 0 : 1;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
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
    throw new UsageError(`one stage at a time, got: ${positionals.join(" ")} (${USAGE})`);
  }
  const [stage] = positionals;
  if (values.all && stage !== undefined) {
    throw new UsageError(`--all checks every stage: leave out ${stage}`);
  }
  if (values.all && values.only !== undefined) {
    throw new UsageError("--only names scenarios of one stage: it does not go with --all");
  }
  const reporter = reporterOption(values.reporter, values.json === true);
  const stages = values.all ? STAGES : [requireStage(stage)];
  const project = resolve(callerDir, values.project ?? ".");
  if (statSync(project, { throwIfNoEntry: false })?.isDirectory() !== true) {
    throw new UsageError(`project directory not found: ${project}`);
  }
  const { command, note, buildError } =
    values.cmd === undefined ? projectCommand(project) : { command: splitCommand(values.cmd) };
  if (command.length === 0 && buildError === undefined) {
    throw new UsageError("--cmd is empty: give the command to run");
  }
  const only = values.only === undefined ? undefined : resolveOnly(stages[0] ?? "", values.only);
  return {
    settings: {
      stages,
      project,
      command,
      strict: values.strict === true,
      only,
      timeoutMs: timeoutOption(values["timeout-ms"]),
      passEnv: passEnvOption(values["pass-env"]),
    },
    json: values.json === true || reporter === "json",
    reporter,
    verbose: values.verbose === true,
    ...(note === undefined ? {} : { note }),
    ...(buildError === undefined ? {} : { buildError }),
  };
}

function parseCheckArgs(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        all: { type: "boolean" },
        project: { type: "string" },
        cmd: { type: "string" },
        strict: { type: "boolean" },
        json: { type: "boolean" },
        verbose: { type: "boolean" },
        reporter: { type: "string" },
        only: { type: "string", multiple: true },
        "timeout-ms": { type: "string" },
        "pass-env": { type: "string", multiple: true },
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
  note?: string;
  buildError?: string;
} {
  const start = readProjectFile(project);
  if (start !== undefined && "command" in start) return { command: start.command };
  requireInstalled(project);
  return defaultCommand(project);
}

// Without --cmd, src/cli.ts is bundled once for the whole check and every scenario starts the
// bundle, with source maps so that a stack trace names the project's files. When it does not
// bundle, tsx runs the sources, as the project's `pnpm start` does, only slower.
// Sources that do not even parse are one failure, quoting esbuild, and nothing runs.
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
    if (sourceError(project, error)) return { command: [], buildError: reason };
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

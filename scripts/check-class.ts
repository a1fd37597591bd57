// `pnpm check:class <dir-of-projects> [--stage <stage>] [--out <dir>] [--timeout-ms <ms>]
// [--pass-env <name>] [--strict]`: every project in a folder checked, one table of the class as
// Markdown (class.md) and JSON (class.json), each project's full report beside them.
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type ClassSettings, defaultOut, gradeClass } from "./lib/check-class.ts";
import { requireStage, runCommand, UsageError } from "./lib/command.ts";

const USAGE =
  "usage: pnpm check:class <dir-of-projects> [--stage <stage>] [--out <dir>] [--timeout-ms <ms>] [--pass-env <name>] [--strict]";

// A whole --all check of a slow project on a busy machine: minutes, not the 20 s of a scenario.
const PROJECT_TIMEOUT_MS = 15 * 60_000;

export function classSettings(argv: string[], callerDir: string): ClassSettings {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (${USAGE})`);
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1) throw new UsageError(`give one folder of projects (${USAGE})`);
  const dir = resolve(callerDir, positionals[0] ?? "");
  if (statSync(dir, { throwIfNoEntry: false })?.isDirectory() !== true) {
    throw new UsageError(`folder of projects not found: ${dir}`);
  }
  const checkArgs = [
    ...(values.strict ? ["--strict"] : []),
    ...(values["timeout-ms"] === undefined ? [] : ["--timeout-ms", values["timeout-ms"]]),
    ...(values["pass-env"] ?? []).flatMap((name) => ["--pass-env", name]),
  ];
  return {
    dir,
    stage: values.stage === undefined ? undefined : requireStage(values.stage),
    out: values.out === undefined ? defaultOut(dir) : resolve(callerDir, values.out),
    checkArgs,
    projectTimeoutMs: PROJECT_TIMEOUT_MS,
  };
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      stage: { type: "string" },
      out: { type: "string" },
      "timeout-ms": { type: "string" },
      "pass-env": { type: "string", multiple: true },
      strict: { type: "boolean" },
    },
  });
}

async function main(argv: string[]): Promise<number> {
  const settings = classSettings(argv, process.env.INIT_CWD ?? process.cwd());
  const report = await gradeClass(settings, (line) => console.log(line));
  console.log(`class report: ${resolve(settings.out, "class.md")} and class.json`);
  // Not checked is the instructor's to fix (a missing install, a bad command): say so in the code.
  return report.learners.some((row) => row.error !== null) ? 1 : 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runCommand(() => main(process.argv.slice(2)));
}

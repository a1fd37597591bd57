// What every repository command (check, stage-diff, stage-stats, docs) shares: the stage list,
// usage errors with exit code 2, and colour only where a person is reading.
import { existsSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { contracts } from "@agent-code/test-kit";

export const ROOT = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

// The stages in course order: one contract per stage, so the contracts list is the source.
export const STAGES: string[] = contracts.map((contract) => contract.stage);

// The course's main line: day-1, then day-N-vK. Challenge stages and appendices are optional:
// shown apart, never the headline of a check (decision 0056).
export function isMainLine(stage: string): boolean {
  return /^day-\d+(-v\d+)?$/.test(stage);
}

export const MAIN_LINE: string[] = STAGES.filter(isMainLine);

// Whether `program` can be started from `dir`: a path to something there, or a name on PATH
// (with Windows' PATHEXT endings). The check's sandbox and check:class's missing-program line ask.
export function findProgram(program: string, dir: string, env = process.env): boolean {
  if (program.includes("/") || program.includes("\\")) {
    return existsSync(isAbsolute(program) ? program : resolve(dir, program));
  }
  const endings = process.platform === "win32" ? ["", ...(env.PATHEXT ?? ".EXE").split(";")] : [""];
  return (env.PATH ?? "")
    .split(delimiter)
    .filter((folder) => folder !== "")
    .some((folder) =>
      endings.some((ending) => existsSync(join(resolve(dir, folder), program + ending))),
    );
}

// The stage a stage is a copy of (its contract's `base`): what "the previous stage" means to
// stage-diff, stage-stats and the docs' diffs. Undefined for the first stage.
export function baseOf(stage: string): string | undefined {
  return contracts.find((contract) => contract.stage === stage)?.base;
}

export function stageDir(stage: string): string {
  return join(ROOT, "packages", stage);
}

// A mistake in how a command was called: printed as one `error:` line, exit code 2.
export class UsageError extends Error {
  override name = "UsageError";
}

// A flag that takes a positive whole number (`--runs 3`); `fallback` when it is not given.
export function wholeOption(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    throw new UsageError(`--${name} must be a positive whole number: ${value}`);
  }
  return number;
}

export function requireStage(stage: string | undefined): string {
  if (stage === undefined || !STAGES.includes(stage) || !existsSync(stageDir(stage))) {
    const named = stage === undefined ? "no stage given" : `unknown stage: ${stage}`;
    throw new UsageError(`${named} (stages: ${STAGES.join(", ")})`);
  }
  return stage;
}

// Colour for a terminal only, and never when NO_COLOR is set (https://no-color.org).
export function useColour(stream: NodeJS.WriteStream = process.stdout): boolean {
  return stream.isTTY === true && !process.env.NO_COLOR;
}

export function paint(
  enabled: boolean,
  code: "red" | "green" | "yellow" | "cyan" | "dim",
  text: string,
): string {
  if (!enabled) return text;
  const codes = { red: 31, green: 32, yellow: 33, cyan: 36, dim: 2 } as const;
  return `\u001b[${codes[code]}m${text}\u001b[0m`;
}

// Runs a command's main(): usage errors become exit 2 with one line; anything else is a bug.
export async function runCommand(main: () => Promise<number>): Promise<void> {
  try {
    process.exitCode = await main();
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`error: ${error.message}`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
}

// One stage, --stages a,b (repeatable), --main-line or --all: one of them, in course order.
export function stagesOption(
  stage: string | undefined,
  values: { all?: boolean; stages?: string[]; "main-line"?: boolean },
): string[] {
  const given = [
    stage === undefined ? [] : [stage],
    values.stages === undefined ? [] : ["--stages"],
    values["main-line"] ? ["--main-line"] : [],
    values.all ? ["--all"] : [],
  ].flat();
  if (given.length > 1) {
    const [first, second] = given;
    if (first === stage && second === "--all") {
      throw new UsageError(`--all checks every stage: leave out ${stage}`);
    }
    throw new UsageError(`${first} and ${second} both name the stages: give one of them`);
  }
  if (values.all) return STAGES;
  if (values["main-line"]) return MAIN_LINE;
  if (values.stages === undefined) return [requireStage(stage)];
  const named = values.stages.flatMap((list) => list.split(",")).map((name) => name.trim());
  if (named.every((name) => name === "")) {
    throw new UsageError("--stages is empty: name stages, such as --stages day-2-v3,day-3-v1");
  }
  for (const name of named) if (name !== "") requireStage(name);
  return STAGES.filter((name) => named.includes(name));
}

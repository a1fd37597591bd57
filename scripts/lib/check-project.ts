// How a project says `pnpm check` should start it: agent-code.check.json at its root, so that one
// loop grades a class of TypeScript and Python projects alike (decision 0039). `--cmd` still wins.
//
//   { "language": "typescript" }              src/cli.ts, bundled and run with node
//   { "command": ["uv", "run", "agent-code"] } any other language: this argv, run in the project
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "./command.ts";

export const PROJECT_FILE = "agent-code.check.json";

export type ProjectStart = { language: "typescript" } | { command: string[] };

// The project's file, read and checked; undefined when it has none.
export function readProjectFile(project: string): ProjectStart | undefined {
  const path = join(project, PROJECT_FILE);
  if (!existsSync(path)) return undefined;
  const wrong = (why: string) => new UsageError(`${PROJECT_FILE} in ${project}: ${why}`);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw wrong(`not JSON (${(error as Error).message})`);
  }
  const shape = 'give {"command": ["<program>", "<argument>", ...]} or {"language": "typescript"}';
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw wrong(shape);
  const keys = Object.keys(value);
  const { command, language } = value as { command?: unknown; language?: unknown };
  if (keys.length !== 1 || (command === undefined && language === undefined)) throw wrong(shape);
  if (language !== undefined) {
    if (language !== "typescript") throw wrong(`unknown language ${JSON.stringify(language)}`);
    return { language };
  }
  const words = Array.isArray(command) ? command : [];
  if (words.length === 0 || words.some((word) => typeof word !== "string" || word === "")) {
    throw wrong("command must be a non-empty list of words (strings)");
  }
  return { command: words as string[] };
}

// A TypeScript project that declares packages needs them installed before it can run: grading
// it without would fail most scenarios for a reason that is not the learner's code.
export function requireInstalled(project: string): void {
  const manifest = join(project, "package.json");
  if (!existsSync(manifest)) return;
  let declared = false;
  try {
    const pkg = JSON.parse(readFileSync(manifest, "utf8"));
    declared =
      Object.keys(pkg.dependencies ?? {}).length + Object.keys(pkg.devDependencies ?? {}).length >
      0;
  } catch {
    return;
  }
  if (declared && !existsSync(join(project, "node_modules"))) {
    throw new UsageError(`run pnpm install in ${project} first`);
  }
}

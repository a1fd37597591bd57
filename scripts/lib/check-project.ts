// How a project says `pnpm check` should start it: agent-code.check.json at its root, so that one
// loop grades a class of TypeScript and Python projects alike (decision 0039). `--cmd` still wins.
//
//   { "language": "typescript" }              src/cli.ts, bundled and run with node
//   { "command": ["uv", "run", "agent-code"] } any other language: this argv, run in the project
//   { "command": ["uv", …], "python": { "module": "agent_code" } }
//                                             the same, or `python3 -m agent_code` without uv
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, lstatSync, openSync, readFileSync, readSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { findProgram, UsageError } from "./command.ts";

export const PROJECT_FILE = "agent-code.check.json";

// The module `python3 -m` runs where uv is missing (decision 0065).
export interface PythonStart {
  module: string;
}

export type ProjectStart = { language: "typescript" } | { command: string[]; python?: PythonStart };

const UV_INSTALL = "https://docs.astral.sh/uv/getting-started/installation/";
const MODULE = /^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$/;

// The project's file, read and checked; undefined when it has none.
export function readProjectFile(project: string): ProjectStart | undefined {
  const path = join(project, PROJECT_FILE);
  if (!existsSync(path)) return undefined;
  const wrong = (why: string) => new UsageError(`${PROJECT_FILE} in ${project}: ${why}`);
  // Read by the grader, outside the sandbox: a link could quote a file of the grader's.
  if (lstatSync(path).isSymbolicLink()) throw wrong("a link, not a file of the project");
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw wrong(`not JSON (${(error as Error).message})`);
  }
  const shape = 'give {"command": ["<program>", "<argument>", ...]} or {"language": "typescript"}';
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw wrong(shape);
  const keys = Object.keys(value);
  const { command, language, python } = value as {
    command?: unknown;
    language?: unknown;
    python?: unknown;
  };
  const allowed = language !== undefined ? ["language"] : ["command", "python"];
  if (
    (command === undefined && language === undefined) ||
    keys.some((key) => !allowed.includes(key))
  ) {
    throw wrong(shape);
  }
  if (language !== undefined) {
    if (language !== "typescript") throw wrong(`unknown language ${JSON.stringify(language)}`);
    return { language };
  }
  const words = Array.isArray(command) ? command : [];
  if (words.length === 0 || words.some((word) => typeof word !== "string" || word === "")) {
    throw wrong("command must be a non-empty list of words (strings)");
  }
  if (python === undefined) return { command: words as string[] };
  const { module, ...rest } = (typeof python === "object" && python !== null ? python : {}) as {
    module?: unknown;
  };
  if (typeof module !== "string" || !MODULE.test(module) || Object.keys(rest).length > 0) {
    throw wrong('python must be {"module": "<the package python3 -m runs>"}');
  }
  return { command: words as string[], python: { module } };
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

// How a project that names its command starts on this machine: that command; or, when it starts
// with uv, uv is not on PATH and the file names a module, `python3 -m <module>` in the project's
// folder, with its src/ (when it has one) and the folder itself on PYTHONPATH, where `uv run`
// would have installed the package.
export function commandStart(
  project: string,
  start: { command: string[]; python?: PythonStart },
  env: NodeJS.ProcessEnv = process.env,
): { command: string[]; env?: Record<string, string>; note?: string } {
  const { python } = start;
  if (start.command[0] !== "uv" || python === undefined || findProgram("uv", project, env)) {
    return { command: start.command };
  }
  const path = [join(project, "src"), project].filter((folder) => existsSync(folder));
  return {
    command: ["python3", "-m", python.module],
    env: { PYTHONPATH: path.join(delimiter) },
    note: `note: uv is not on PATH: running python3 -m ${python.module} in ${project} instead, as its ${PROJECT_FILE} allows`,
  };
}

// Why a project's command cannot start here, as the line its row in a class shows (a bare program
// name not on PATH); undefined when it can. Without uv, the two ways on.
export function missingProgram(
  project: string,
  command: string[],
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const [program] = command;
  if (program === undefined || program.includes("/") || program.includes("\\")) return undefined;
  if (findProgram(program, project, env)) return undefined;
  const starts = `the project starts with \`${command.join(" ")}\``;
  return program === "uv"
    ? `not checked: uv is not installed (${starts}): install it (${UV_INSTALL}), then run uv sync in ${project}; or add "python": {"module": "<its package>"} to its ${PROJECT_FILE} to run it with python3 -m`
    : `not checked: ${program} is not on PATH (${starts})`;
}

// `python3` (or `python`) as the interpreter it is in the project's folder, asked once, when what
// PATH finds is a script: a version manager's shim (pyenv's is a shell script) costs every start
// of the program twice the CPU. Any other command, or one that does not answer, is left as it is.
export function directInterpreter(
  command: string[],
  project: string,
  env: NodeJS.ProcessEnv,
): string[] {
  const [program, ...args] = command;
  if (program === undefined || !/^python(3(\.\d+)?)?$/.test(program)) return command;
  const found = (env.PATH ?? "")
    .split(delimiter)
    .filter((folder) => isAbsolute(folder))
    .map((folder) => join(folder, program))
    .find((path) => existsSync(path));
  if (found === undefined || !isScript(found)) return command;
  const asked = spawnSync(program, ["-c", "import sys; print(sys.executable)"], {
    cwd: project,
    env,
    encoding: "utf8",
    timeout: 30_000,
  });
  const path = asked.status === 0 ? asked.stdout.trim() : "";
  return path !== "" && isAbsolute(path) && existsSync(path) ? [path, ...args] : command;
}

function isScript(path: string): boolean {
  try {
    const bytes = Buffer.alloc(2);
    const fd = openSync(path, "r");
    try {
      readSync(fd, bytes, 0, 2, 0);
    } finally {
      closeSync(fd);
    }
    return bytes.toString("latin1") === "#!";
  } catch {
    return false;
  }
}

// `pnpm check:class --install`: each learner's project installed from its lock file before its
// check, in the sandbox its program runs in (decision 0064): the learner's folder writable, the
// grader's home, /tmp, the other learners and the grades hidden, the rest read-only, the
// allowlisted environment only. Lifecycle scripts run: they are the learner's code, and contained
// like the rest of it.
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { runCli } from "@agent-code/test-kit";
import { inheritFilter } from "./check-env.ts";
import { HIDE_VARIABLE, sandboxCommand } from "./check-sandbox.ts";
import { findProgram } from "./command.ts";

// A cold install of the course's packages over a slow network: minutes, never an hour.
export const INSTALL_TIMEOUT_MS = 10 * 60_000;
// What an install's log keeps: its end, where a failure says why.
const LOG_CHARS = 20_000;

export interface InstallRun {
  command: string[];
  exitCode: number | null;
  timedOut: boolean;
  // stdout then stderr, each cut to its end.
  log: string;
}

export interface InstallOptions {
  // Folders hidden besides the sandbox's own (the grades folder).
  hide: string[];
  // --pass-env's names: the install's environment is the checks' allowlist.
  passEnv: string[];
  timeoutMs?: number;
  signal?: AbortSignal;
}

// What installs a project: its lock files' commands, in order; none without a lock file (a
// TypeScript project that declares packages is then refused by its check, as before).
export function installCommands(project: string): string[][] {
  const commands: string[][] = [];
  if (existsSync(join(project, "pnpm-lock.yaml"))) {
    commands.push(["pnpm", "install", "--frozen-lockfile"]);
  }
  // Without uv the check runs a Python project as its agent-code.check.json allows (decision 0065).
  if (existsSync(join(project, "uv.lock")) && findProgram("uv", project)) {
    commands.push(["uv", "sync", "--frozen"]);
  }
  return commands;
}

/** Each install command in turn, stopping at the first that fails; [] when there is none. */
export async function installProject(
  project: string,
  options: InstallOptions,
): Promise<InstallRun[]> {
  const commands = installCommands(project);
  if (commands.length === 0) return [];
  // As root the install runs as another uid, which must write the learner's folder: check:class
  // has handed the folder over before (giveToProgram).
  const env = { ...process.env, [HIDE_VARIABLE]: options.hide.join(delimiter) };
  const runs: InstallRun[] = [];
  for (const command of commands) {
    const run = await runCli(sandboxCommand(command, project, { env }), [], {
      cwd: project,
      inherit: inheritFilter(options.passEnv),
      env: { CI: "true" },
      timeoutMs: options.timeoutMs ?? INSTALL_TIMEOUT_MS,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    const log = [run.stdout.slice(-LOG_CHARS), run.stderr.slice(-LOG_CHARS)]
      .filter((text) => text !== "")
      .join("\n");
    runs.push({
      command,
      exitCode: run.exitCode,
      timedOut: run.timedOut,
      log: run.spawnError === undefined ? log : `cannot start: ${run.spawnError}`,
    });
    if (run.exitCode !== 0) break;
  }
  return runs;
}

// The row's reason when an install failed; undefined when every one succeeded.
export function installFailure(
  runs: InstallRun[],
  timeoutMs = INSTALL_TIMEOUT_MS,
): string | undefined {
  const failed = runs.find((run) => run.exitCode !== 0);
  if (failed === undefined) return undefined;
  const command = failed.command.join(" ");
  if (failed.timedOut) return `the install took longer than ${timeoutMs} ms (\`${command}\`)`;
  const last =
    failed.log
      .split("\n")
      .filter((line) => line.trim() !== "")
      .at(-1) ?? "";
  return `the install failed (\`${command}\` exited ${failed.exitCode ?? "on a signal"}): ${last.trim()}`;
}

// The install's log as kept beside the learner's report.
export function installLog(runs: InstallRun[]): string {
  return runs
    .map((run) => `$ ${run.command.join(" ")}  (exit ${run.exitCode ?? "none"})\n${run.log}\n`)
    .join("\n");
}

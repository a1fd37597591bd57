// `agent-code hooks list | approve`: the person's side of a project's hooks. `list` shows every
// hook and whether the project's run; `approve` shows the project's hooks and the files they run,
// asks, and records their hash. Only the person runs it: the gate refuses it as a command in every
// mode (permissions.ts), so the model cannot approve what it wrote.
import { readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { printable } from "./agent.ts";
import {
  approve,
  countHooks,
  filesOf,
  HOOK_EVENTS,
  type HookSet,
  hooksHash,
  isApproved,
  readApprovals,
} from "./hooks.ts";
import { PROJECT_FILE, projectHooks } from "./settings.ts";

export const HOOKS_USAGE = "usage: agent-code hooks [list | approve] [-C <dir>]";

// A mistake in how the command was called: exit code 2, the error line and the usage.
export class HooksUsageError extends Error {
  override name = "HooksUsageError";
}

export interface HooksIo {
  home: string;
  resolveCwd: (dir: string | undefined) => string;
  // The tools a rule may name, for reading the settings file whole.
  toolNames: string[];
  out: (line: string) => void;
  err: (line: string) => void;
  ask: (question: string) => Promise<string | undefined>;
}

// How many lines of each file `approve` shows.
const SHOWN_LINES = 10;

export async function hooksCommand(args: string[], io: HooksIo): Promise<number> {
  let command = "list";
  let dir: string | undefined;
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "-C" || arg === "--cwd") {
      dir = args[++i];
      if (dir === undefined) throw new HooksUsageError(`${arg} needs a value`);
    } else if (arg.startsWith("--cwd=")) dir = arg.slice("--cwd=".length);
    else if (arg.startsWith("-")) {
      throw new HooksUsageError(`unknown option for hooks: ${printable(arg)}`);
    } else words.push(arg);
  }
  if (words.length > 1) throw new HooksUsageError("hooks takes one command: list or approve");
  if (words[0] !== undefined) command = words[0];
  if (command !== "list" && command !== "approve") {
    throw new HooksUsageError(`unknown hooks command: ${printable(command)}`);
  }
  const cwd = io.resolveCwd(dir);
  const options = { cwd, home: io.home, allow: [], deny: [], toolNames: io.toolNames };
  const project = projectHooks(options);
  return command === "list" ? list(project, cwd, io) : await ask(project, cwd, io);
}

function hookLines(set: HookSet): string[] {
  return HOOK_EVENTS.flatMap((event) =>
    (set[event] ?? []).flatMap((entry) =>
      entry.hooks.map(
        (hook) =>
          `  ${event}  ${printable(entry.matcher)}  ${printable(hook.command)}${hook.timeout === undefined ? "" : `  (timeout ${hook.timeout} s)`}`,
      ),
    ),
  );
}

function list(project: HookSet, cwd: string, io: HooksIo): number {
  const n = countHooks(project);
  if (n === 0) {
    io.out(`${PROJECT_FILE}: no hooks`);
    return 0;
  }
  const approved = readApprovals(io.home).projects[realpathSync.native(cwd)];
  const state =
    approved === undefined
      ? "not approved"
      : isApproved(io.home, cwd, project)
        ? "approved"
        : "changed since approved: approve them again with agent-code hooks approve";
  io.out(`${PROJECT_FILE}: ${n} ${n === 1 ? "hook" : "hooks"}, ${state}`);
  for (const line of hookLines(project)) io.out(line);
  return 0;
}

async function ask(project: HookSet, cwd: string, io: HooksIo): Promise<number> {
  const n = countHooks(project);
  if (n === 0) {
    io.out(`${PROJECT_FILE}: no hooks to approve`);
    return 0;
  }
  const root = realpathSync.native(cwd);
  io.out(`${PROJECT_FILE} in ${printable(root)}:`);
  for (const line of hookLines(project)) io.out(line);
  for (const name of filesOf(project, cwd)) {
    const lines = readFileSync(join(root, name), "utf8").split("\n");
    io.out("");
    io.out(`${printable(name)} (${lines.length} lines):`);
    for (const line of lines.slice(0, SHOWN_LINES)) io.out(`  ${printable(line)}`);
    if (lines.length > SHOWN_LINES) io.out(`  … ${lines.length - SHOWN_LINES} more lines`);
  }
  // The hash of what was shown: a file changed while the person reads is not approved with it.
  const hash = hooksHash(project, cwd);
  const what = `${n === 1 ? "this hook" : `these ${n} hooks`}`;
  const answer = await io.ask(`Approve ${what} for ${printable(root)}? [y/N] `);
  if (!/^y(es)?$/i.test(answer?.trim() ?? "")) {
    io.out("not approved");
    return 1;
  }
  approve(io.home, cwd, hash);
  io.out(`approved: ${n} ${n === 1 ? "hook" : "hooks"} for ${printable(root)}`);
  return 0;
}

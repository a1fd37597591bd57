// Where a command runs: on Linux, in a PID namespace of its own (decision 0066), where it sees no
// process above it and every process it starts dies with it. Where none can be had, agent-code
// hides its own environment from /proc, and says once what a command can still read.
import { spawnSync } from "node:child_process";
import {
  accessSync,
  closeSync,
  constants,
  openSync,
  readFileSync,
  readSync,
  writeSync,
} from "node:fs";
import { constants as system } from "node:os";
import { delimiter, isAbsolute, join } from "node:path";
import { isMainThread } from "node:worker_threads";

export function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function onPath(name: string, path: string): string | undefined {
  return path
    .split(delimiter)
    .filter((dir) => dir !== "")
    .map((dir) => join(dir, name))
    .find(executable);
}

// The variable that turns the PID namespace off (a machine where it misbehaves): `off`.
export const SANDBOX_VARIABLE = "AGENT_CODE_SANDBOX";

// PID 1 of the namespace, as `pnpm check` has it (decision 0057). As PID 1 a program ignores every
// signal it has no handler for (a timeout's SIGTERM), so the command runs as its child, and when it
// ends PID 1 ends with its status: the kernel then kills whatever is left in the namespace, a
// `setsid -f` or a `set -m` job included. Its own PWD is not handed on: the command's environment
// is commandEnv's and nothing more. Its own stderr goes nowhere, for a shell reports a child killed
// by a signal there (`Terminated`); the command gets the one it was given back in a subshell, which
// applies the redirection in the child and then becomes the command.
const INIT = ["unset PWD", "exec 3>&2 2>/dev/null", '("$@") 2>&3 3>&-', "s=$?", 'exit "$s"'].join(
  "\n",
);

const NAMESPACES = ["--pid", "--fork", "--mount-proc", "--kill-child"];

// No capabilities left for the command: with them it could unmount the new /proc and find the old
// one below it.
const DROP_CAPABILITIES = ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--"];

function sandboxCandidates(uid: number): string[][] {
  const init = ["/bin/sh", "-c", INIT, "sh"];
  if (uid === 0) return [["unshare", ...NAMESPACES, "--", ...DROP_CAPABILITIES, ...init]];
  // Mapped to agent-code's own uid, the command is no root in the namespace and holds no
  // capabilities once started; util-linux before 2.38 has only --map-root-user.
  return [
    ["unshare", "--user", "--map-current-user", ...NAMESPACES, "--", ...init],
    ["unshare", "--user", "--map-root-user", ...NAMESPACES, "--", ...DROP_CAPABILITIES, ...init],
  ];
}

// The wrapper this machine can run, tried with a command that checks it is in a namespace of its
// own; else why not.
export function chooseSandbox(env: NodeJS.ProcessEnv = process.env): {
  prefix: string[] | undefined;
  why?: string;
} {
  if (env[SANDBOX_VARIABLE] === "off") return { prefix: undefined, why: `${SANDBOX_VARIABLE}=off` };
  if (process.platform !== "linux") return { prefix: undefined, why: "it needs Linux" };
  for (const prefix of sandboxCandidates(process.getuid?.() ?? 0)) {
    // The probe's program is INIT's child: PID 2 in a namespace of its own.
    const probe = spawnSync(
      prefix[0] ?? "",
      [...prefix.slice(1), "/bin/sh", "-c", 'test "$$" -le 3'],
      { env: { PATH: env.PATH ?? "" }, stdio: "ignore", timeout: 10_000 },
    );
    if (probe.status === 0) return { prefix };
  }
  return {
    prefix: undefined,
    why: "`unshare --pid --mount-proc` does not run here: no util-linux, or no user namespaces",
  };
}

// Outside a namespace a command can read /proc/<pid>/environ of agent-code: the variables it was
// started with, as they were at its start (process.env changes go elsewhere). Each one a command
// would not be given is moved into process.env's own memory and blanked in that block through
// /proc/self/mem, so agent-code keeps its keys and the block no longer shows them. Linux only, and
// only from the main thread, whose process.env is the real one.
function hideEnvironment(kept: Set<string>): boolean {
  if (process.platform !== "linux" || !isMainThread) return false;
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    // The fields from the third on; env_start and env_end are the 50th and the 51st.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const [start, end] = [Number(fields[47]), Number(fields[48])];
    if (!(start > 0 && end > start)) return false;
    const block = Buffer.alloc(end - start);
    const memory = openSync("/proc/self/mem", "r+");
    try {
      readSync(memory, block, 0, block.length, start);
      for (let at = 0; at < block.length; ) {
        const stop = block.indexOf(0, at) === -1 ? block.length : block.indexOf(0, at);
        const entry = block.toString("utf8", at, stop);
        const name = entry.slice(0, entry.indexOf("="));
        const value = name === "" || kept.has(name) ? undefined : process.env[name];
        if (value !== undefined) {
          process.env[name] = value;
          block.fill(0, at, stop);
        }
        at = stop + 1;
      }
      writeSync(memory, block, 0, block.length, start);
    } finally {
      closeSync(memory);
    }
    return true;
  } catch {
    return false;
  }
}

let sandbox: { prefix: string[] | undefined } | undefined;

interface Sandboxed {
  program: string;
  args: string[];
  inNamespace: boolean;
}

// `file args` as they run: inside the namespace where this machine has one. The first command
// decides, once a process (a run that runs no command pays nothing); without one, agent-code hides
// its own environment and a note says what a command can still read. A program that cannot be
// found is left as it is, so that its spawn still fails with ENOENT.
export function sandboxed(
  file: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Sandboxed {
  if (sandbox === undefined) {
    const { prefix, why } = chooseSandbox();
    sandbox = { prefix };
    if (why !== undefined) {
      const open = hideEnvironment(new Set(Object.keys(env)))
        ? "agent-code's environment is hidden from them, but not that of the shell that started " +
          "agent-code, nor of any process above it"
        : "they can read the environment agent-code was started with, its keys included, and " +
          "that of the shell that started it";
      process.stderr.write(`note: commands run without a PID namespace (${why}): ${open}\n`);
    }
  }
  const [wrapper, ...prefix] = sandbox.prefix ?? [];
  if (wrapper === undefined) return { program: file, args, inNamespace: false };
  const found = file.includes("/")
    ? executable(isAbsolute(file) ? file : join(cwd, file))
    : onPath(file, env.PATH ?? "") !== undefined;
  if (!found) return { program: file, args, inNamespace: false };
  return { program: wrapper, args: [...prefix, file, ...args], inNamespace: true };
}

// In the namespace INIT hands on a command killed by a signal as a shell does, as 128 + its
// number (so an `exit 139` reads as SIGSEGV there too).
export function signalOf(
  code: number | null,
  signal: NodeJS.Signals | null,
  inNamespace: boolean,
): NodeJS.Signals | undefined {
  if (signal !== null) return signal;
  if (!inNamespace || code === null) return undefined;
  return (Object.keys(system.signals) as NodeJS.Signals[]).find(
    (name) => system.signals[name] === code - 128,
  );
}

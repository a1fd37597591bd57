// Where `pnpm check` runs a learner's program: in a PID namespace of its own with its own /proc, so
// that it cannot read `/proc/<pid>/environ` of the grader, pnpm or a CI runner (decision 0057).
// Linux only, with util-linux's `unshare` and `setpriv`; elsewhere, or where the kernel refuses, the
// program runs as before and one note on stderr says what it can then reach.
import { spawnSync } from "node:child_process";
import { findProgram } from "./command.ts";

// The variable that turns the sandbox off (a machine where it misbehaves): `off`.
export const SANDBOX_VARIABLE = "AGENT_CODE_CHECK_SANDBOX";

// The runner's direct child. unshare blocks SIGINT and SIGTERM and forwards neither, so a shell
// stands between: it dies of the SIGTERM that stops a check (the runner then kills the group) and
// sits out a scenario's Ctrl-C (a trap, not an ignore, so the program below still gets it).
const OUTER = 'trap : INT\n"$@"\ns=$?\nexit "$s"';

// PID 1 of the namespace. As PID 1 a program ignores every signal it has no handler for, so the
// program runs as its child instead and gets a Ctrl-C as it would anywhere. When the program ends,
// PID 1 ends with its status, and the kernel kills what is left in the namespace: as the runner's
// kill of the program's process group did without a sandbox, so a run ends when the program does
// (the Python course's `subprocess.run` leaves a timed-out command's children behind). The shell's
// own PWD is not handed on: the program gets the grader's allowlist and nothing more.
const INIT = ["trap : INT", 'env -u PWD "$@"', "s=$?", 'exit "$s"'].join("\n");

const NAMESPACES = ["--pid", "--fork", "--mount-proc", "--kill-child"];
// No capabilities left for the program: with them it could unmount the new /proc and find the
// old one below it, or enter the grader's namespaces.
const DROP_CAPABILITIES = ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--"];

export interface SandboxOptions {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  uid?: number;
  // Where the note goes, once; stderr by default.
  note?: (text: string) => void;
}

let chosen: { prefix: string[] | undefined } | undefined;

/**
 * `command` wrapped to run in the sandbox, or `command` itself where there is none (and then a
 * note, once a process). `project` is where it starts: a program that cannot be found is left as
 * it is, so the runner's `cannot start` still names it.
 */
export function sandboxCommand(
  command: string[],
  project: string,
  options: SandboxOptions = {},
): string[] {
  if (chosen === undefined) {
    const { prefix, why } = chooseSandbox(options);
    chosen = { prefix };
    if (why !== undefined) (options.note ?? ((text) => process.stderr.write(text)))(`${why}\n`);
  }
  const [program] = command;
  if (chosen.prefix === undefined || program === undefined) return command;
  if (!findProgram(program, project, options.env ?? process.env)) return command;
  return [...chosen.prefix, ...command];
}

// The wrapper this machine can run, tried once with a command that checks it is in a namespace of
// its own; else why not, as the note a grader reads.
export function chooseSandbox(options: SandboxOptions = {}): {
  prefix: string[] | undefined;
  why?: string;
} {
  const env = options.env ?? process.env;
  if (env[SANDBOX_VARIABLE] === "off") {
    return { prefix: undefined, why: note(`${SANDBOX_VARIABLE}=off`) };
  }
  if ((options.platform ?? process.platform) !== "linux") {
    return { prefix: undefined, why: note("it needs Linux") };
  }
  for (const prefix of candidates(options.uid ?? process.getuid?.() ?? 0)) {
    // The probe's program is the INIT's child: PID 2 in a namespace of its own.
    const probe = spawnSync(
      prefix[0] ?? "",
      [...prefix.slice(1), "/bin/sh", "-c", 'test "$$" -le 3'],
      {
        env,
        stdio: "ignore",
        timeout: 10_000,
      },
    );
    if (probe.status === 0) return { prefix };
  }
  return {
    prefix: undefined,
    why: note(
      "`unshare --pid --mount-proc` does not run here: no util-linux, or no user namespaces",
    ),
  };
}

function candidates(uid: number): string[][] {
  const outer = ["/bin/sh", "-c", OUTER, "sh"];
  const init = ["/bin/sh", "-c", INIT, "sh"];
  if (uid === 0) return [[...outer, "unshare", ...NAMESPACES, "--", ...DROP_CAPABILITIES, ...init]];
  // Mapped to the grader's own uid, the program is no root in the namespace and holds no
  // capabilities once started; util-linux before 2.38 has only --map-root-user.
  return [
    [...outer, "unshare", "--user", "--map-current-user", ...NAMESPACES, "--", ...init],
    [
      ...outer,
      "unshare",
      "--user",
      "--map-root-user",
      ...NAMESPACES,
      "--",
      ...DROP_CAPABILITIES,
      ...init,
    ],
  ];
}

function note(why: string): string {
  return (
    `note: learner code runs without a sandbox (${why}): it can read the environment of ` +
    "`pnpm check` and of every process above it through /proc. Grade untrusted projects on " +
    "Linux with unshare and user namespaces (SECURITY.md, grading untrusted code)"
  );
}

// Where `pnpm check` runs a learner's program, and check:class its install: in PID and mount
// namespaces of its own (decisions 0057 and 0064). It sees its own processes and /proc, its own
// folder and the scenario's writable, an empty home, /tmp, class folder and grades folder, and the
// rest of the file system read-only; as root, in a project check:class has handed over, it runs
// as uid 65534. Linux only, with util-linux's `unshare` and `setpriv`; elsewhere, or where the
// kernel refuses, the program runs as before and one note on stderr (and the report's
// `unsandboxed`) says what it can then reach.
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, delimiter, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { SCENARIO_DIR_VARIABLE } from "@agent-code/test-kit";
import { findProgram } from "./command.ts";

// The variable that turns the sandbox off (a machine where it misbehaves): `off`.
export const SANDBOX_VARIABLE = "AGENT_CODE_CHECK_SANDBOX";
// More folders to hide, `:`-separated: check:class names its grades folder here for each check.
export const HIDE_VARIABLE = "AGENT_CODE_CHECK_HIDE";
// Who the program runs as when the grader is root: nobody, which owns none of the grader's files.
export const RUN_AS = { uid: 65534, gid: 65534 };

// The runner's direct child. unshare blocks SIGINT and SIGTERM and forwards neither, so a shell
// stands between: it dies of the SIGTERM that stops a check (the runner then kills the group) and
// sits out a scenario's Ctrl-C (a trap, not an ignore, so the program below still gets it).
const OUTER = 'trap : INT\n"$@"\ns=$?\nexit "$s"';

// Lays out the mount namespace, then becomes the program. Its words: the uid:gid to hand the
// scenario's folder to (empty when not root), then `w:` (writable), `r:` (read-only) folders to
// keep, `o:` mounts to make read-only and `h:` folders to hide, then `--` and the command. A kept
// folder may lie in a hidden one (the project in the home), so each is first bound into a staging
// tmpfs on /dev/shm, then moved back once the hiding tmpfs is over its parent; /dev/shm stays an
// empty tmpfs. /proc/sys and /sys are made read-only where the kernel lets the namespace do it (as
// root: a uid 0 with no capability could still write a root-owned sysctl); in a user namespace
// their files belong to no uid inside it anyway. The working directory is entered again by name,
// so that it is the new mount.
const SETUP = `set -e
umask 022
as=$1
shift
here=$(pwd -P)
path=$PATH; PATH=/usr/sbin:/usr/bin:/sbin:/bin
dir=$${SCENARIO_DIR_VARIABLE}
if [ -n "$dir" ]; then
  if [ -n "$as" ]; then chown -R -h "$as" "$dir"; fi
  set -- "w:$dir" "$@"
fi
stage=/dev/shm
mount -n -t tmpfs -o mode=1777 agent-code "$stage"
i=0
for entry do
  case $entry in
    --) break ;;
    [wr]:*) i=$((i + 1)); mkdir "$stage/$i"; mount -n -c --rbind "\${entry#??}" "$stage/$i" ;;
  esac
done
for entry do
  case $entry in
    --) break ;;
    o:*) mount -n -o remount,bind,ro "\${entry#??}" ;;
    h:*) mount -n -t tmpfs -o mode=1777 agent-code "\${entry#??}" ;;
  esac
done
for kernel in /proc/sys /sys; do
  { mount -n --bind "$kernel" "$kernel" && mount -n -o remount,bind,ro "$kernel"; } 2>/dev/null || :
done
i=0
for entry do
  shift
  case $entry in
    --) break ;;
    [wr]:*)
      i=$((i + 1))
      mkdir -p "\${entry#??}"
      mount -n --move "$stage/$i" "\${entry#??}"
      case $entry in r:*) mount -n -o remount,bind,ro "\${entry#??}" ;; esac ;;
  esac
done
cd "$here"
export PATH="$path"
exec "$@"`;

// PID 1 of the namespace. As PID 1 a program ignores every signal it has no handler for, so the
// program runs as its child instead and gets a Ctrl-C as it would anywhere. When the program ends,
// PID 1 ends with its status, and the kernel kills what is left in the namespace: as the runner's
// kill of the program's process group did without a sandbox, so a run ends when the program does
// (the Python course's `subprocess.run` leaves a timed-out command's children behind). The shell's
// own PWD and OLDPWD and the runner's scenario folder are not handed on: the program gets the allowlist.
const INIT = [
  "trap : INT",
  `env -u PWD -u OLDPWD -u ${SCENARIO_DIR_VARIABLE} "$@"`,
  "s=$?",
  'exit "$s"',
].join("\n");

const NAMESPACES = ["--mount", "--pid", "--fork", "--mount-proc", "--kill-child"];
// No capability left for the program, none to regain through a setuid file: with one it could
// unmount what hides the grader's files, or enter the grader's namespaces.
const NO_PRIVILEGES = [
  "--bounding-set=-all",
  "--inh-caps=-all",
  "--ambient-caps=-all",
  "--no-new-privs",
];

// One way this machine can make the namespaces: unshare's options, setpriv's, and whom the
// scenario's folder is handed to.
interface Way {
  unshare: string[];
  setpriv: string[];
  as: string;
}

// What the sandbox shows the program beyond the read-only root: `w:`, `r:`, `o:` and `h:` words.
export interface Layout {
  writable: string[];
  readOnly: string[];
  hidden: string[];
  mounts: string[];
}

export interface SandboxOptions {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  uid?: number;
  // Where the note goes, once; stderr by default.
  note?: (text: string) => void;
}

let chosen: { way: Way | undefined; why?: string } | undefined;

/**
 * `command` wrapped to run in the sandbox, with `project` writable and started there, or `command`
 * itself where there is none (and then a note, once a process). A program that cannot be found
 * is left as it is, so the runner's `cannot start` still names it.
 */
export function sandboxCommand(
  command: string[],
  project: string,
  options: SandboxOptions = {},
): string[] {
  const env = options.env ?? process.env;
  const { way } = sandboxWay(options);
  const [program] = command;
  if (way === undefined || program === undefined) return command;
  if (!findProgram(program, project, env)) return command;
  const other = runsAsOther(way, project);
  const own = other ? way : { ...way, setpriv: ["setpriv", ...NO_PRIVILEGES, "--"], as: "" };
  return [...wrapper(own, layoutFor(command, project, env, other)), ...command];
}

// As root the program runs as RUN_AS only in a project handed to it (check:class hands each one
// over, giveToProgram): `pnpm check` never changes who owns a learner's own files, so there the
// program keeps the grader's uid, with no capability, behind the same mounts.
function runsAsOther(way: Way, project: string): boolean {
  return way.as !== "" && ownerOf(project) === RUN_AS.uid;
}

function ownerOf(path: string): number | undefined {
  try {
    return statSync(path).uid;
  } catch {
    return undefined;
  }
}

/** Why learner code runs without the sandbox here, in the note's words; undefined when it has one. */
export function unsandboxed(options: SandboxOptions = {}): string | undefined {
  return sandboxWay(options).why;
}

/**
 * As root the program runs as RUN_AS, which owns nothing: a folder it must write (a project to
 * install) is handed to it, links left as they are. Elsewhere it runs as the grader: nothing to do.
 */
export function giveToProgram(folder: string, options: SandboxOptions = {}): void {
  const { way } = sandboxWay(options);
  if (way === undefined || way.as === "") return;
  const chown = spawnSync("chown", ["-R", "-h", way.as, folder], { stdio: "ignore" });
  if (chown.status !== 0) throw new Error(`cannot hand ${folder} to uid ${RUN_AS.uid} (chown)`);
}

function sandboxWay(options: SandboxOptions): { way: Way | undefined; why?: string } {
  if (chosen === undefined) {
    chosen = chooseSandbox(options);
    const { why } = chosen;
    if (why !== undefined)
      (options.note ?? ((text) => process.stderr.write(text)))(`note: ${why}\n`);
  }
  return chosen;
}

// The way this machine can run, tried once on a folder to hide and one to keep; else why not, as
// the note a grader reads.
export function chooseSandbox(options: SandboxOptions = {}): {
  way: Way | undefined;
  why?: string;
} {
  const env = options.env ?? process.env;
  if (env[SANDBOX_VARIABLE] === "off")
    return { way: undefined, why: exposed(`${SANDBOX_VARIABLE}=off`) };
  if ((options.platform ?? process.platform) !== "linux") {
    return { way: undefined, why: exposed("it needs Linux") };
  }
  const uid = options.uid ?? process.getuid?.() ?? 0;
  for (const way of ways(uid)) {
    if (probe(way, env)) return { way };
  }
  return {
    way: undefined,
    why: exposed("`unshare --mount --pid` does not run here: no util-linux, or no user namespaces"),
  };
}

// In its own PID namespace the probe's program is the child of PID 1, the INIT; it must not see the
// file of the folder hidden around its scenario's folder, and must write that folder.
function probe(way: Way, env: NodeJS.ProcessEnv): boolean {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "agent-code-probe-")));
  const scenario = join(dir, "scenario");
  try {
    mkdirSync(scenario);
    writeFileSync(join(dir, "hidden.txt"), "");
    const layout = { writable: [], readOnly: [], hidden: [dir], mounts: mounts() };
    const test = 'test "$PPID" -eq 1 && test ! -e "$1/hidden.txt" && echo > "$1/scenario/ok"';
    const [program = "", ...args] = [...wrapper(way, layout), "/bin/sh", "-c", test, "sh", dir];
    const run = spawnSync(program, args, {
      env: { ...env, [SCENARIO_DIR_VARIABLE]: scenario },
      cwd: dir,
      stdio: "ignore",
      timeout: 10_000,
    });
    return run.status === 0 && existsSync(join(scenario, "ok"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function ways(uid: number): Way[] {
  const setpriv = ["setpriv", ...NO_PRIVILEGES, "--"];
  if (uid === 0) {
    const { uid: runUid, gid } = RUN_AS;
    const user = [`--reuid=${runUid}`, `--regid=${gid}`, "--clear-groups"];
    return [
      {
        unshare: NAMESPACES,
        setpriv: ["setpriv", ...user, ...NO_PRIVILEGES, "--"],
        as: `${runUid}:${gid}`,
      },
    ];
  }
  // Mapped to the grader's own uid, the program is no root in the namespace; --keep-caps lets the
  // setup mount before setpriv drops every capability. util-linux before 2.38 has only
  // --map-root-user: root in the namespace, with no capability once started.
  return [
    { unshare: ["--user", "--map-current-user", "--keep-caps", ...NAMESPACES], setpriv, as: "" },
    { unshare: ["--user", "--map-root-user", ...NAMESPACES], setpriv, as: "" },
  ];
}

function wrapper(way: Way, layout: Layout): string[] {
  const words = [
    ...layout.mounts.map((path) => `o:${path}`),
    ...layout.hidden.map((path) => `h:${path}`),
    ...layout.writable.map((path) => `w:${path}`),
    ...layout.readOnly.map((path) => `r:${path}`),
  ];
  return [
    ...["/bin/sh", "-c", OUTER, "sh", "unshare", ...way.unshare, "--"],
    ...["/bin/sh", "-c", SETUP, "sh", way.as, ...words, "--"],
    ...way.setpriv,
    ...["/bin/sh", "-c", INIT, "sh"],
  ];
}

/**
 * What the program of `command`, started in `project`, is shown: the project writable; hidden,
 * the grader's home, the temporary folders, the project's own parent (the other learners, in a
 * class) and the folders of HIDE_VARIABLE; let back in read-only from those, the PATH's folders,
 * the installation the program runs from (a pyenv Python, an nvm Node, a venv's interpreter), as
 * the environment's allowlist lets PATH through, and the folder of a file the command names;
 * every other mount read-only. When the program runs as RUN_AS (`runAsOther`), each folder on the
 * way to the project or to what is let back that RUN_AS may not search is hidden as well.
 */
export function layoutFor(
  command: string[],
  project: string,
  env: NodeJS.ProcessEnv,
  runAsOther = false,
): Layout {
  const own = real(project) ?? project;
  const wanted = [
    env.HOME,
    tmpdir(),
    "/tmp",
    "/var/tmp",
    // Where services keep their sockets (a read-only mount does not stop a connect): Docker's,
    // the session bus, an SSH agent.
    "/run",
    "/var/run",
    dirname(own),
    ...(env[HIDE_VARIABLE] ?? "").split(delimiter),
  ];
  const tools = [
    ...(env.PATH ?? "").split(delimiter).filter((folder) => isAbsolute(folder)),
    installation(command[0], project, env, own),
    installation(join(own, ".venv", "bin", "python"), project, env, own),
    // A file the command names (`--cmd "node ../run.mjs"`): the grader chose it, so it is read.
    ...command.slice(1).map((word) => fileFolder(word, project)),
  ];
  // RUN_AS owns nothing on the way: a folder it may not search (a checkout in `mktemp -d`, a
  // Node under /root) is hidden too, so that what is let back is reached through the tmpfs.
  if (runAsOther) {
    for (const path of [own, ...tools.map((tool) => (tool ? real(tool) : undefined))]) {
      if (path !== undefined) wanted.push(...unsearchable(path));
    }
  }
  const hidden = outermost(
    wanted
      .map((path) => (path ? real(path) : undefined))
      .filter((path): path is string => path !== undefined && path !== "/" && !within(path, own)),
  );
  const readOnly = outermost(
    tools
      .map((path) => (path ? real(path) : undefined))
      .filter(
        (path): path is string =>
          path !== undefined &&
          hidden.some((folder) => within(path, folder)) &&
          !within(path, own) &&
          // Never one that holds the project's folder: it would cover the project read-only, and
          // show the other learners beside it.
          !within(dirname(own), path),
      ),
  );
  return { writable: [own], readOnly, hidden, mounts: mounts() };
}

// The folder a program is installed in: above its `bin/` (a Python's lib/ is its sibling), else
// its own folder; its own folder too when the one above holds the project (a `~/bin` tool, a class
// under `~`). Undefined when it cannot be found.
function installation(
  program: string | undefined,
  project: string,
  env: NodeJS.ProcessEnv,
  own: string,
) {
  if (program === undefined) return undefined;
  const candidates = program.includes("/")
    ? [resolve(project, program)]
    : (env.PATH ?? "")
        .split(delimiter)
        .filter((folder) => isAbsolute(folder))
        .map((folder) => join(folder, program));
  const found = candidates.map(real).find((path) => path !== undefined);
  if (found === undefined) return undefined;
  const folder = dirname(found);
  const above = dirname(folder);
  return basename(folder) === "bin" && !within(dirname(own), above) ? above : folder;
}

// The folders above `path` that a uid neither owning them nor in their group may not search.
function unsearchable(path: string): string[] {
  const found: string[] = [];
  for (let folder = dirname(path); dirname(folder) !== folder; folder = dirname(folder)) {
    try {
      if ((statSync(folder).mode & 0o001) === 0) found.push(folder);
    } catch {
      // A folder that cannot be read is none of the program's either.
    }
  }
  return found;
}

// The folder of the file `word` names, relative to the project or absolute; undefined for a word
// that names no file (an option, a module name, a folder).
function fileFolder(word: string, project: string): string | undefined {
  try {
    const path = resolve(project, word);
    return statSync(path).isFile() ? dirname(path) : undefined;
  } catch {
    return undefined;
  }
}

// The grader's mounts, each to be made read-only: all but the kernel's own (/proc, /sys, /dev).
function mounts(): string[] {
  let table: string;
  try {
    table = readFileSync("/proc/self/mountinfo", "utf8");
  } catch {
    return ["/"];
  }
  const points = table
    .split("\n")
    .map((line) => line.split(" ")[4])
    .filter((field): field is string => field !== undefined && field !== "")
    // The table writes a space, tab, newline or backslash in a path as an octal escape.
    .map((field) =>
      field.replace(/\\([0-7]{3})/g, (_, octal) => String.fromCharCode(parseInt(octal, 8))),
    )
    .filter((point) => !["/proc", "/sys", "/dev"].some((kernel) => within(point, kernel)));
  return [...new Set(points)];
}

function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function within(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

// Each folder once, and none inside another of the list: the outer one covers it.
function outermost(paths: string[]): string[] {
  const unique = [...new Set(paths)].sort();
  return unique.filter((path) => !unique.some((other) => other !== path && within(path, other)));
}

function exposed(why: string): string {
  return (
    `learner code runs without a sandbox (${why}): it can read and write whatever this user can ` +
    "(the home folder, /tmp, the other learners' projects, the grades) and read the environment " +
    "of every process above it through /proc. Grade untrusted projects on Linux with unshare " +
    "and user namespaces (SECURITY.md, grading untrusted code)"
  );
}

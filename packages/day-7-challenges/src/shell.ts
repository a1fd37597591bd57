// A command is a process tree, not one process: it runs in a fresh shell in its own process group,
// with no stdin, a scrubbed environment and capped output, and when it ends, times out or the run
// stops, the whole group is killed, so nothing it started keeps running. On Linux it also runs in
// a PID namespace of its own, where it sees no process above it and nothing it starts outlives it.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { constants, writeSync } from "node:fs";
import { type FileHandle, open, realpath } from "node:fs/promises";
import type { Socket } from "node:net";
import { dirname, join } from "node:path";
import { agentFolder } from "./file-history.ts";
import { executable, onPath, sandboxed, signalOf } from "./sandbox.ts";
import { ToolError } from "./tools/index.ts";

// The shell a command runs in. bash without profiles or rc files (they may re-export keys), found
// on the scrubbed PATH, else /bin/sh; never $SHELL (fish is not POSIX). On Windows, Git Bash.
export function findShell(env: NodeJS.ProcessEnv = process.env): string[] {
  const chosen = env.AGENT_CODE_SHELL;
  if (chosen !== undefined && chosen !== "") return [chosen, "-c"];
  const path = env.PATH ?? env.Path ?? "";
  if (process.platform === "win32") {
    const git = onPath("git.exe", path);
    const bash = git === undefined ? undefined : join(dirname(dirname(git)), "bin", "bash.exe");
    if (bash === undefined || !executable(bash)) {
      throw new ToolError(
        "bash needs a POSIX shell: install Git for Windows, or set AGENT_CODE_SHELL",
      );
    }
    return [bash, "--noprofile", "--norc", "-c"];
  }
  const bash = onPath("bash", path);
  return bash === undefined ? ["/bin/sh", "-c"] : [bash, "--noprofile", "--norc", "-c"];
}

// The variables a command may see. Everything else, API keys and tokens above all, stays with
// agent-code: the model chooses the command, and `env` or `curl -d @-` would send them anywhere.
const PASSED = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TZ",
  "TMPDIR",
];
const PASSED_ON_WINDOWS = [
  "Path",
  "SystemRoot",
  "SystemDrive",
  "windir",
  "ComSpec",
  "PATHEXT",
  "TEMP",
  "TMP",
  "USERPROFILE",
  "APPDATA",
  "LOCALAPPDATA",
  "ProgramData",
  "ProgramFiles",
];
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL/i;

// The environment of a command: the allowlist, names the user adds in AGENT_CODE_BASH_ENV (never
// one that looks like a secret), and settings that stop a tool from waiting for a person: no
// pager, no terminal, no git password prompt. BASH_ENV and ENV (files a shell reads) never pass.
export function commandEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const windows = process.platform === "win32";
  const extra = (env.AGENT_CODE_BASH_ENV ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter(
      (name) => name !== "" && !SECRET_NAME.test(name) && name !== "BASH_ENV" && name !== "ENV",
    );
  const wanted = new Set(
    [...PASSED, ...(windows ? PASSED_ON_WINDOWS : []), ...extra].map((name) =>
      windows ? name.toUpperCase() : name,
    ),
  );
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && wanted.has(windows ? name.toUpperCase() : name)) out[name] = value;
  }
  if (windows && out.LANG === undefined) out.LANG = "C.UTF-8";
  return {
    ...out,
    TERM: "dumb",
    GIT_TERMINAL_PROMPT: "0",
    GIT_PAGER: "cat",
    PAGER: "cat",
  };
}

// Every command group still alive, so that Ctrl-C or the end of agent-code can kill them all.
const live = new Set<ChildProcess>();

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform === "win32") {
      spawnSync("taskkill", ["/pid", String(child.pid), "/T", "/F"], { windowsHide: true });
    } else {
      // detached made the shell a group leader: -pid is the shell and everything it started.
      process.kill(-child.pid, signal);
    }
  } catch {
    // The group is gone already.
  }
}

// Kills every live command's whole group at once; sync, so it also works in an `exit` handler.
export function stopAllCommands(): void {
  for (const child of live) killGroup(child, "SIGKILL");
  live.clear();
}

// How long the pipes may stay open after the shell exited, held by something it left running.
const PIPE_GRACE_MS = 500;
// How long a timed-out group has between SIGTERM and SIGKILL.
const KILL_AFTER_MS = 2_000;

// How much a command may print before it is stopped, and what the model sees of it.
export const MAX_PRINTED_BYTES = 8 * 1024 * 1024;
const MAX_RESULT_CHARS = 12_000;
const RESULT_HEAD = 4_000;
const RESULT_TAIL = 8_000;

// stdout, then stderr under a `[stderr]` line; the middle cut out past 12,000 characters.
function output(out: string, err: string, dropped: number): string {
  let text = out.replace(/\n$/, "");
  if (err !== "") text += `${text === "" ? "" : "\n"}[stderr]\n${err.replace(/\n$/, "")}`;
  if (text === "") return "(no output)";
  return cutMiddle(text, dropped);
}

// The 12,000-character rule: the first 4,000 and the last 8,000, and a line that counts the rest
// (`dropped` more were never kept at all).
function cutMiddle(text: string, dropped: number): string {
  if (text.length <= MAX_RESULT_CHARS && dropped === 0) return text;
  const cut = text.length - RESULT_HEAD - RESULT_TAIL + dropped;
  return `${text.slice(0, RESULT_HEAD)}\n[output cut: ${cut} characters in the middle not shown]\n${text.slice(-RESULT_TAIL)}`;
}

const HEAD_CHARS = 16 * 1024;
const TAIL_CHARS = 32 * 1024;
// biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are the point
const CSI = /\u001b\[[0-?]*[ -/]*[@-~]/g;

// One stream as it arrives: decoded as UTF-8 across chunk boundaries (bad bytes become U+FFFD),
// the first 16 Ki and the last 32 Ki characters kept, the ones between only counted, so `yes`
// costs no memory. Terminal escape sequences (colours, cursor moves) are taken out at the end.
class Capture {
  #decoder = new TextDecoder("utf-8");
  #head = "";
  #tail = "";
  dropped = 0;

  add(chunk: Buffer): void {
    let text = this.#decoder.decode(chunk, { stream: true });
    if (this.#head.length < HEAD_CHARS) {
      const room = HEAD_CHARS - this.#head.length;
      this.#head += text.slice(0, room);
      text = text.slice(room);
    }
    this.#tail += text;
    if (this.#tail.length > 2 * TAIL_CHARS) {
      this.dropped += this.#tail.length - TAIL_CHARS;
      this.#tail = this.#tail.slice(-TAIL_CHARS);
    }
  }

  text(): string {
    this.#tail += this.#decoder.decode();
    if (this.#tail.length > TAIL_CHARS) {
      this.dropped += this.#tail.length - TAIL_CHARS;
      this.#tail = this.#tail.slice(-TAIL_CHARS);
    }
    return `${this.#head}${this.#tail}`.replace(CSI, "");
  }
}

export interface CommandOptions {
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  // Written to the command's stdin, which is then closed (a hook's JSON); none: no stdin at all.
  input?: string;
}

export interface CommandOutcome {
  // The result the model reads: the exit line, stdout, stderr, cut to 12,000 characters.
  text: string;
  // Stopped by agent-code (a timeout, a flood of output, the run's end): an error result.
  stopped: boolean;
}

// The outcome in pieces, for a caller that judges them itself (hooks.ts): the exit code (null
// when a signal ended it), the signal, and each stream as kept.
export interface CommandParts extends CommandOutcome {
  code: number | null;
  killedBy?: string;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

function delay(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms).unref());
}

// Runs one command line to its end and describes the outcome; never rejects for what the command
// did (a non-zero exit, a signal), only when no shell can be started.
export async function runCommand(
  file: string,
  args: string[],
  options: CommandOptions,
): Promise<CommandOutcome> {
  const { text, stopped } = await runCommandParts(file, args, options);
  return { text, stopped };
}

// runCommand, with the exit code and each stream apart.
export function runCommandParts(
  file: string,
  args: string[],
  options: CommandOptions,
): Promise<CommandParts> {
  return new Promise((resolve, reject) => {
    const env = options.env ?? commandEnv();
    const command = sandboxed(file, args, options.cwd, env);
    const child = spawn(command.program, command.args, {
      cwd: options.cwd,
      env,
      // No stdin: a command that reads it gets end of input at once, and never takes the
      // answers meant for agent-code's next question.
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      detached: process.platform !== "win32",
      windowsHide: true,
    });
    // A command that never reads its input, or exits first, closes the pipe: that is no error.
    child.stdin?.on("error", () => {});
    child.stdin?.end(options.input);
    const stdout = new Capture();
    const stderr = new Capture();
    let printed = 0;
    let why: string | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    const stop = (reason: string, signal: NodeJS.Signals) => {
      why ??= reason;
      killGroup(child, signal);
      killTimer ??= setTimeout(() => killGroup(child, "SIGKILL"), KILL_AFTER_MS);
    };
    const seconds = Math.round(options.timeoutMs / 1000);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      stop(`command timed out after ${seconds} s and was stopped; output so far:`, "SIGTERM");
    }, options.timeoutMs);
    const onAbort = () => stop("the run was stopped; output so far:", "SIGKILL");
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const take = (capture: Capture) => (chunk: Buffer) => {
      printed += chunk.length;
      capture.add(chunk);
      if (printed > MAX_PRINTED_BYTES) {
        stop(`[command stopped: it printed more than ${MAX_PRINTED_BYTES} bytes]`, "SIGKILL");
      }
    };
    child.stdout?.on("data", take(stdout));
    child.stderr?.on("data", take(stderr));
    live.add(child);
    const ended = [child.stdout, child.stderr].map(
      (stream) => new Promise<void>((done) => stream?.once("close", () => done()) ?? done()),
    );
    child.once("error", (error) => {
      clearTimeout(timer);
      live.delete(child);
      reject(error);
    });
    // The shell's exit is the command's end: whatever it left behind gets a moment to finish
    // writing, then the group is killed. Waiting for the pipes to close instead would wait for
    // any `sleep 999 &`.
    child.once("exit", async (code, signal) => {
      clearTimeout(timer);
      await Promise.race([Promise.all(ended), delay(PIPE_GRACE_MS)]);
      killGroup(child, "SIGKILL");
      // A job the command took out of its group (`set -m`, `setsid`) may hold the pipes still:
      // where no namespace killed it, it must not keep agent-code from exiting.
      child.stdout?.destroy();
      child.stderr?.destroy();
      clearTimeout(killTimer);
      live.delete(child);
      options.signal?.removeEventListener("abort", onAbort);
      const out = stdout.text();
      const err = stderr.text();
      const body = output(out, err, stdout.dropped + stderr.dropped);
      const killedBy = signalOf(code, signal, command.inNamespace);
      const parts = {
        code: killedBy === undefined ? code : null,
        ...(killedBy === undefined ? {} : { killedBy }),
        stdout: out,
        stderr: err,
        timedOut,
      };
      if (why !== undefined) {
        resolve({ text: `${why}\n${body}`, stopped: true, ...parts });
      } else if (killedBy !== undefined) {
        resolve({ text: `killed by signal ${killedBy}\n${body}`, stopped: false, ...parts });
      } else {
        resolve({
          text: code === 0 ? body : `exit code ${code}\n${body}`,
          stopped: false,
          ...parts,
        });
      }
    });
  });
}

// Background tasks: commands that run on while the agent goes on, owned by the session. Each
// prints stdout and stderr into one pipe, which agent-code copies to `.agent/bg/bg_<n>.log`, so
// their lines interleave as they happened and the log stops at its cap exactly; the model reads
// what is new with bash_output and stops a task with kill_shell. No task outlives agent-code: each
// is in `live`, which every way out of the CLI kills.
export const MAX_TASKS = 8;
export const MAX_LOG_BYTES = 64 * 1024 * 1024;

interface Task {
  id: string;
  // The log, relative to the working directory, as the model reads it.
  log: string;
  child: ChildProcess;
  // Opened once, and read through this handle only: what is read is the file that was created.
  reader: FileHandle;
  // How much of the log the model has been given.
  read: number;
  ended: string | undefined;
}

export class BackgroundTasks {
  #tasks = new Map<string, Task>();
  #next = 1;

  // Starts `command` in its own process group with its output going to a new log; no timeout.
  async start(command: string, cwd: string): Promise<string> {
    const running = [...this.#tasks.values()].filter((task) => task.ended === undefined);
    if (running.length >= MAX_TASKS) {
      throw new ToolError(`too many background tasks (${MAX_TASKS}); stop one with kill_shell`);
    }
    const root = await realpath(cwd);
    const folder = await agentFolder(root, "bg");
    // wx: a name that is there already, a symlink included, is never opened. An earlier session's
    // logs stay, so the ids go on past them.
    let id: string;
    let file: string;
    let writer: FileHandle;
    for (;;) {
      id = `bg_${this.#next++}`;
      file = join(folder, `${id}.log`);
      try {
        writer = await open(file, "wx", 0o600);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
    }
    const reader = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    const [shell = "/bin/sh", ...flags] = findShell();
    const env = commandEnv();
    // One pipe for both streams, so that the lines keep the order the task printed them in: a
    // first shell points stderr at stdout and becomes the task's own.
    const run = sandboxed(
      shell,
      [...flags, 'exec "$@" 2>&1', "sh", shell, ...flags, command],
      cwd,
      env,
    );
    // Its listeners come before any await: a task that ends at once must still be seen to end.
    const child = spawn(run.program, run.args, {
      cwd,
      env,
      stdio: ["ignore", "pipe", "ignore"],
      detached: process.platform !== "win32",
      windowsHide: true,
    });
    const task: Task = { id, log: `.agent/bg/${id}.log`, child, reader, read: 0, ended: undefined };
    this.#tasks.set(id, task);
    live.add(child);
    // A task must not keep agent-code running; its end is noticed, not waited for.
    child.unref();
    (child.stdout as Socket | null)?.unref();
    // The log holds MAX_LOG_BYTES at most: the first byte past them stops the task, unwritten.
    let written = 0;
    child.stdout?.on("data", (chunk: Buffer) => {
      const part = chunk.subarray(0, MAX_LOG_BYTES - written);
      try {
        for (let at = 0; at < part.length; ) at += writeSync(writer.fd, part, at);
      } catch (error) {
        child.stdout?.destroy();
        this.#end(task, `stopped: its log could not be written (${(error as Error).message})`);
        return;
      }
      written += part.length;
      if (part.length < chunk.length) {
        child.stdout?.destroy();
        this.#end(task, `stopped: its log passed ${MAX_LOG_BYTES} bytes`);
      }
    });
    const copied = new Promise<void>((done) => child.stdout?.once("close", done) ?? done());
    void copied.then(() => writer.close()).catch(() => {});
    child.once("error", () => this.#end(task, "could not be started"));
    child.once("exit", (code, signal) => {
      const killedBy = signalOf(code, signal, run.inNamespace);
      // What it printed last may be in the pipe still: it has ended once that is in the log.
      killGroup(child, "SIGKILL");
      void Promise.race([copied, delay(PIPE_GRACE_MS)]).then(() =>
        this.#end(
          task,
          killedBy === undefined ? `exited with code ${code}` : `killed by signal ${killedBy}`,
        ),
      );
    });
    return task.log;
  }

  // The task's state, then its output since the last read (the 12,000-character rule).
  async output(id: string): Promise<string> {
    const task = this.#find(id);
    const { size } = await task.reader.stat();
    const fresh = size - task.read;
    const head = Math.min(fresh, HEAD_CHARS);
    const tail = Math.min(fresh - head, TAIL_CHARS);
    const first = Buffer.alloc(head);
    const last = Buffer.alloc(tail);
    await task.reader.read(first, 0, head, task.read);
    await task.reader.read(last, 0, tail, size - tail);
    task.read = size;
    const skipped = fresh - head - tail;
    const decode = (bytes: Buffer) => new TextDecoder().decode(bytes).replace(CSI, "");
    let body: string;
    if (fresh === 0) body = "(no new output)";
    else if (skipped === 0)
      body = cutMiddle(decode(Buffer.concat([first, last])).replace(/\n$/, ""), 0);
    else {
      // Bytes between the two parts were never read: the cut is counted in bytes.
      const start = decode(first).slice(0, RESULT_HEAD);
      const end = decode(last).replace(/\n$/, "").slice(-RESULT_TAIL);
      const unseen = fresh - Buffer.byteLength(start) - Buffer.byteLength(end);
      body = `${start}\n[output cut: ${unseen} bytes in the middle not shown]\n${end}`;
    }
    return `${id}: ${task.ended ?? "running"}\n${body}`;
  }

  // Kills the task's whole group.
  stop(id: string): string {
    const task = this.#find(id);
    if (task.ended !== undefined) {
      return `${id} had already ${task.ended.replace(/^(stopped|killed)/, "been $1")}`;
    }
    this.#end(task, "stopped");
    return `Stopped ${id}`;
  }

  // Every task of the session, at its end.
  stopAll(): void {
    for (const task of this.#tasks.values()) {
      if (task.ended === undefined) this.#end(task, "stopped");
      // The session is over: nobody reads the logs through agent-code any more.
      void task.reader.close().catch(() => {});
    }
  }

  #find(id: string): Task {
    const task = this.#tasks.get(id);
    if (task === undefined) throw new ToolError(`no background task ${id}`);
    return task;
  }

  // The first reason a task ended is the one kept; its group is killed either way, so nothing it
  // started lives on.
  #end(task: Task, reason: string): void {
    task.ended ??= reason;
    killGroup(task.child, "SIGKILL");
    live.delete(task.child);
    // What it printed before is still copied for a moment; a process that left its group (where
    // no namespace killed it) does not write to the log for ever.
    setTimeout(() => task.child.stdout?.destroy(), PIPE_GRACE_MS).unref();
  }
}

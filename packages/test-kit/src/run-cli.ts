// Spawns a CLI the way a user would, but sealed: no credentials, proxies or agent-code settings of
// the caller leak in, and a timeout kills the whole process group (a `uv run` or `pnpm` wrapper
// and the program under it).
import { spawn } from "node:child_process";
import { parseTrace, type TraceEntry } from "./trace.ts";

export interface RunCliOptions {
  // A variable set to undefined is removed from the child's environment.
  env?: Record<string, string | undefined>;
  // Which of the caller's variables the child may inherit (the leaky ones never do); all of the
  // others when not given. `env` is applied after it.
  inherit?: (name: string) => boolean;
  stdin?: string;
  // Writes stdin but ends it only when the command exits, as a terminal would: a program that
  // hands its stdin to a child makes that child wait for input instead of reading its end.
  stdinOpen?: boolean;
  // Lines written after `stdin`, each when the feed yields it (a REPL that must stay open while
  // a timer of its own fires); stdin ends after the last one, or at exit with stdinOpen.
  stdinFeed?: AsyncIterable<string>;
  timeoutMs?: number;
  cwd?: string;
  // Aborting kills the whole group, as a timeout does (a Ctrl-C in the caller, say).
  signal?: AbortSignal;
  // When it resolves, the group gets SIGINT, as a Ctrl-C in the terminal would send it.
  interrupt?: Promise<void>;
}

export interface CliRun {
  command: string[];
  stdout: string;
  stdoutLines: string[];
  stderr: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  durationMs: number;
  timedOut: boolean;
  trace: TraceEntry[];
  // Set when the command could not be started at all (no such program, not executable).
  spawnError?: string;
  // True when the command exited but something it started still held its output open after
  // PIPE_GRACE_MS: that process group was killed and the output read up to then.
  leftRunning?: boolean;
}

// Writes each line the feed yields while the child's stdin is open; then ends it, unless it stays
// open until the child exits.
async function feed(
  stdin: NodeJS.WritableStream & { writableEnded: boolean; destroyed: boolean },
  lines: AsyncIterable<string>,
  open: boolean | undefined,
): Promise<void> {
  for await (const line of lines) {
    if (stdin.writableEnded || stdin.destroyed) return;
    stdin.write(line);
  }
  if (open !== true && !stdin.writableEnded && !stdin.destroyed) stdin.end();
}

// How long the output pipes may stay open after the command exits, for the last bytes in them.
const PIPE_GRACE_MS = 500;

const LEAKY = [
  /^ANTHROPIC_/,
  /^OPENAI_/,
  /^DEEPSEEK_/,
  /^AGENT_CODE_/,
  /_PROXY$/i,
  /API_KEY$/i,
  /AUTH_TOKEN$/i,
];

export async function runCli(
  command: string | string[],
  args: string[],
  options: RunCliOptions = {},
): Promise<CliRun> {
  const argv = [...(typeof command === "string" ? splitCommand(command) : command), ...args];
  const [program, ...rest] = argv;
  if (program === undefined) throw new Error("runCli: empty command");
  const started = performance.now();
  const child = spawn(program, rest, {
    cwd: options.cwd,
    env: childEnv(options.env ?? {}, options.inherit),
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
    signal: options.signal,
  });

  let stdout = "";
  let stderr = "";
  let timedOut = false;
  let spawnError: string | undefined;
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  // A child that exits without reading its input must not crash us with EPIPE.
  child.stdin.on("error", () => {});
  if (options.stdinOpen === true) {
    child.stdin.write(options.stdin ?? "");
    child.once("exit", () => child.stdin.end());
  } else if (options.stdinFeed === undefined) {
    child.stdin.end(options.stdin ?? "");
  } else {
    child.stdin.write(options.stdin ?? "");
  }
  if (options.stdinFeed !== undefined) void feed(child.stdin, options.stdinFeed, options.stdinOpen);

  options.interrupt?.then(() => signalGroup(child.pid, "SIGINT"));
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child.pid);
  }, options.timeoutMs ?? 30_000);

  // The run ends when the command's own process exits, not when its pipes close: a background
  // child (`sleep 300 &`) may hold them open for ever.
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>(
    (resolve) => {
      child.on("error", (error) => {
        spawnError = error.message;
        resolve([null, null]);
      });
      child.on("exit", (code, sig) => resolve([code, sig]));
    },
  );
  clearTimeout(timer);
  const leftRunning = spawnError === undefined && !(await settlesWithin(closed, PIPE_GRACE_MS));
  // Anything the program left behind in its group goes with it.
  killGroup(child.pid);
  if (leftRunning && !(await settlesWithin(closed, PIPE_GRACE_MS))) {
    // A holder outside the group (it started a session of its own): stop reading.
    child.stdout.destroy();
    child.stderr.destroy();
  }

  return {
    command: argv,
    stdout,
    stdoutLines: stdout.replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n"),
    stderr,
    exitCode,
    signal,
    durationMs: performance.now() - started,
    timedOut,
    trace: parseTrace(stdout),
    ...(spawnError === undefined ? {} : { spawnError }),
    ...(leftRunning ? { leftRunning } : {}),
  };
}

function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([promise.then(() => true), late]).finally(() => clearTimeout(timer));
}

function childEnv(
  overrides: Record<string, string | undefined>,
  inherit: (name: string) => boolean = () => true,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!LEAKY.some((pattern) => pattern.test(name)) && inherit(name)) env[name] = value;
  }
  Object.assign(env, {
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
    NO_COLOR: "1",
    TZ: "UTC",
  });
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

function killGroup(pid: number | undefined): void {
  signalGroup(pid, "SIGKILL");
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

// "uv run agent-code" -> ["uv", "run", "agent-code"]; quotes group words, as in a shell.
export function splitCommand(command: string): string[] {
  const words: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (const match of command.matchAll(pattern)) {
    words.push(match[1]?.replace(/\\(.)/g, "$1") ?? match[2] ?? match[3] ?? "");
  }
  return words;
}

// Patterns the model writes run where they can be stopped. A JavaScript regular expression can take
// for ever on one line (`^(.*.*)*z$` backtracks exponentially), and so can the expression picomatch
// makes of a glob; a match is synchronous, so no timer and no Ctrl-C can interrupt it on the thread
// that runs it. So the matching runs on a worker thread, and a time limit or a stop terminates the
// worker, which interrupts even a match in progress.
import { Worker } from "node:worker_threads";
import { ToolError } from "./tools.ts";

// The longest pattern a tool takes: longer ones are mistakes, or attempts to exhaust the parser.
export const MAX_PATTERN_CHARS = 1000;
// How long all of one tool call's matching may take, unless AGENT_CODE_MATCH_TIMEOUT_MS says.
const DEFAULT_TIME_LIMIT_MS = 10_000;

// The worker's whole program, sent as source text: it can import nothing of ours. A `pattern`
// message compiles an expression (a first match forces V8 to compile it, so a pattern too deep for
// the stack fails here); a `text` or `paths` message answers with the numbers of what matched:
// lines of a text (from 1, a trailing \r ignored) or indexes of paths (a basename-only glob tests
// the last part; a path equal to the pattern matches, as in picomatch).
function workerProgram(): void {
  // process.getBuiltinModule, not require: a bundler would rename require in the source text.
  const { parentPort: port } = process.getBuiltinModule("node:worker_threads");
  if (port === null) return;
  const parentPort = port;
  let regex = /$^/;
  let basename = false;
  let exact: string | undefined;
  type Request = {
    pattern?: { source: string; flags: string; basename: boolean; exact?: string };
    text?: string;
    paths?: string[];
  };
  parentPort.on("message", (request: Request) => {
    try {
      if (request.pattern !== undefined) {
        regex = new RegExp(request.pattern.source, request.pattern.flags);
        regex.test("");
        basename = request.pattern.basename;
        exact = request.pattern.exact;
        parentPort.postMessage({ hits: [] });
        return;
      }
      const hits: number[] = [];
      if (request.text !== undefined) {
        const lines = request.text.split("\n");
        for (let index = 0; index < lines.length; index++) {
          const line = lines[index] as string;
          if (regex.test(line.endsWith("\r") ? line.slice(0, -1) : line)) hits.push(index + 1);
        }
      }
      for (const [index, rel] of (request.paths ?? []).entries()) {
        const tested = basename ? rel.slice(rel.lastIndexOf("/") + 1) : rel;
        if (rel === exact || regex.test(tested)) hits.push(index);
      }
      parentPort.postMessage({ hits });
    } catch (error) {
      parentPort.postMessage({ error: String((error as Error).message) });
    }
  });
}

// A worker costs about 25 ms to start, more than most searches; the last one used waits here for
// the next search, without keeping the process alive. One stopped by a limit is never reused.
let idle: Worker | undefined;

function takeWorker(): Worker {
  // tsx (esbuild's keepNames) wraps named functions in a helper, __name, that the worker lacks.
  const program = `const __name = (target) => target;\n(${workerProgram})()`;
  const worker = idle ?? new Worker(program, { eval: true });
  idle = undefined;
  worker.removeAllListeners("exit");
  worker.ref();
  return worker;
}

function giveBack(worker: Worker): void {
  worker.removeAllListeners("message");
  worker.removeAllListeners("error");
  if (idle === undefined) {
    worker.unref();
    idle = worker;
    worker.once("exit", () => {
      if (idle === worker) idle = undefined;
    });
  } else {
    void worker.terminate();
  }
}

export interface MatcherOptions {
  // How the expression is spelled and what it is called in errors ("regex", "glob").
  source: string;
  flags: string;
  what: string;
  // For globs: test only the last part of a path, and count a path equal to this as a match.
  basename?: boolean;
  exact?: string;
  signal: AbortSignal;
}

type Reply = { hits?: number[]; error?: string };

// One worker for one tool call: start it, ask it, close it. Every question shares one time limit.
export class Matcher {
  #worker: Worker;
  #failed: Promise<never>;
  #fail!: (error: Error) => void;
  #timer: NodeJS.Timeout;
  #replies: ((reply: Reply) => void)[] = [];
  #stop: () => void;
  #signal: AbortSignal;
  #ended = false;

  private constructor(options: MatcherOptions, limitMs: number) {
    this.#failed = new Promise<never>((_, reject) => {
      this.#fail = reject;
    });
    // Nobody may be waiting when the limit strikes: the rejection is still handled.
    this.#failed.catch(() => undefined);
    this.#worker = takeWorker();
    this.#worker.on("message", (reply: Reply) => this.#replies.shift()?.(reply));
    this.#worker.on("error", (error) =>
      this.#end(new ToolError(`${options.what} failed: ${error.message}`)),
    );
    this.#timer = setTimeout(
      () =>
        this.#end(
          new ToolError(
            `${options.what} took longer than ${limitMs} ms and was stopped; simplify the pattern`,
          ),
        ),
      limitMs,
    );
    this.#stop = () => this.#end(new ToolError(`${options.what} was stopped`));
    this.#signal = options.signal;
    options.signal.addEventListener("abort", this.#stop, { once: true });
    if (options.signal.aborted) this.#stop();
  }

  // A matcher whose expression compiled; an invalid or too deep one is a ToolError.
  static async start(options: MatcherOptions): Promise<Matcher> {
    if (options.source.length > MAX_PATTERN_CHARS) {
      throw new ToolError(
        `${options.what} pattern too long: ${options.source.length} chars (limit ${MAX_PATTERN_CHARS})`,
      );
    }
    const matcher = new Matcher(options, timeLimitOf(process.env));
    matcher.#worker.postMessage({
      pattern: {
        source: options.source,
        flags: options.flags,
        basename: options.basename === true,
        exact: options.exact,
      },
    });
    const first = await matcher.#next();
    if (first.error !== undefined) {
      await matcher.close();
      throw new ToolError(`invalid ${options.what}: ${first.error}`);
    }
    return matcher;
  }

  // The numbers (from 1) of the lines of `text` that match.
  async lines(text: string): Promise<number[]> {
    this.#worker.postMessage({ text });
    return this.#hits();
  }

  // The indexes of the paths that match.
  async paths(paths: string[]): Promise<number[]> {
    this.#worker.postMessage({ paths });
    return this.#hits();
  }

  // Done with the worker: it waits for the next search, unless a limit or a stop ended it.
  async close(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#timer);
    this.#signal.removeEventListener("abort", this.#stop);
    giveBack(this.#worker);
  }

  async #hits(): Promise<number[]> {
    const reply = await this.#next();
    if (reply.error !== undefined) throw new ToolError(`pattern failed: ${reply.error}`);
    return reply.hits ?? [];
  }

  #next(): Promise<Reply> {
    const reply = new Promise<Reply>((resolve) => this.#replies.push(resolve));
    return Promise.race([reply, this.#failed]);
  }

  #end(error: Error): void {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#timer);
    this.#signal.removeEventListener("abort", this.#stop);
    void this.#worker.terminate();
    this.#fail(error);
  }
}

// The limit AGENT_CODE_MATCH_TIMEOUT_MS sets, or `fallback` when it is not set. grep's limit a file
// (tools.ts) is set by the same variable, so that one variable sets every match's limit.
export function timeLimitOf(
  env: Record<string, string | undefined>,
  fallback = DEFAULT_TIME_LIMIT_MS,
): number {
  const value = env.AGENT_CODE_MATCH_TIMEOUT_MS;
  if (value === undefined || value === "") return fallback;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 1) {
    throw new ToolError(`AGENT_CODE_MATCH_TIMEOUT_MS must be a positive integer, got ${value}`);
  }
  return ms;
}

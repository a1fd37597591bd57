// Loops: a prompt the REPL sends again on a timer. A loop lives in the REPL that started it and in
// its session's log (`loop` records), never in a project file, so no repository can schedule a
// prompt. Timers are Node's, unref'd: a loop never keeps the process alive. A tick only marks the
// loop due; the REPL fires one due loop at a time, and only while it waits for a line. The choices
// are decision 0080's ("Loops") and 0085's; a cron expression instead of an interval, decision
// 0087's.
import { CronError, nextFire, parseCron, shortestGap } from "./cron.ts";

// How many loops a REPL holds at once, unless AGENT_CODE_LOOP_MAX says otherwise, up to
// LOOP_MAX_CEILING (decision 0087: the challenge's 20 is the ceiling, not the default).
export const MAX_LOOPS = 5;
export const LOOP_MAX_CEILING = 20;
// The shortest interval, in seconds, unless AGENT_CODE_LOOP_MIN_S lowers it (for tests).
export const DEFAULT_LOOP_MIN_S = 60;

// A loop that cannot be added, cancelled or resumed: the tool's or the command's error text.
export class LoopError extends Error {}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

// AGENT_CODE_LOOP_MIN_S is not a whole number: exit 1, as a bad AGENT_CODE_COMPACT_AT.
export class LoopFloorError extends Error {}

export function loopFloorFromEnv(env: NodeJS.ProcessEnv): number {
  const value = env.AGENT_CODE_LOOP_MIN_S;
  if (value === undefined) return DEFAULT_LOOP_MIN_S;
  if (!/^[0-9]{1,9}$/.test(value)) {
    throw new LoopFloorError(
      `AGENT_CODE_LOOP_MIN_S must be a whole number, got ${JSON.stringify(value)}`,
    );
  }
  // A floor of 0 still means one second: a loop never fires in a tight circle.
  return Math.max(1, Number(value));
}

// AGENT_CODE_LOOP_MAX: a whole number from 1 to 20, read as AGENT_CODE_LOOP_MIN_S is; a mistake is
// the same exit 1.
export function loopMaxFromEnv(env: NodeJS.ProcessEnv): number {
  const value = env.AGENT_CODE_LOOP_MAX;
  if (value === undefined) return MAX_LOOPS;
  if (!/^[0-9]{1,2}$/.test(value) || Number(value) < 1 || Number(value) > LOOP_MAX_CEILING) {
    throw new LoopFloorError(
      `AGENT_CODE_LOOP_MAX must be a whole number from 1 to ${LOOP_MAX_CEILING}, got ${JSON.stringify(value)}`,
    );
  }
  return Number(value);
}

// `90`, `90s`, `5m`, `1h`: seconds, or undefined for anything else.
export function parseEvery(text: string): number | undefined {
  const match = /^([0-9]{1,9})([smh]?)$/.exec(text);
  if (match === null) return undefined;
  const unit = { "": 1, s: 1, m: 60, h: 3600 }[match[2] as "" | "s" | "m" | "h"];
  return Number(match[1]) * unit;
}

// The shortest way to write an interval: 300 is `5m`, 90 is `90s`.
export function formatEvery(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

export interface Loop {
  id: string;
  prompt: string;
  // Seconds between fires; 0 for a loop on a cron expression.
  every: number;
  // A 5-field cron expression (cron.ts), for a loop that fires at times of the clock.
  cron?: string;
  label?: string;
  // Read back by -c or --resume: listed, not firing until `/loop resume`.
  paused: boolean;
}

// What the session log keeps of a loop: `op` add, cancel or fire.
export type LoopRecord =
  | { op: "add"; id: string; prompt: string; every: number; cron?: string; label?: string }
  | { op: "cancel" | "fire"; id: string };

export interface LoopsOptions {
  floor: number;
  // At most this many loops at once; MAX_LOOPS unless given.
  max?: number;
  // Writes a record to the session's log (none with --no-session).
  record?: (record: LoopRecord) => void;
}

export class Loops {
  readonly floor: number;
  readonly max: number;
  #loops = new Map<string, Loop>();
  #timers = new Map<string, NodeJS.Timeout>();
  // Due loops, in the order their timers ticked; a loop is in it once however often it ticked.
  #due: string[] = [];
  #wake: { promise: Promise<void>; resolve: () => void } | undefined;
  #record: (record: LoopRecord) => void;
  #last = 0;

  constructor({ floor, max = MAX_LOOPS, record = () => {} }: LoopsOptions) {
    this.floor = floor;
    this.max = max;
    this.#record = record;
  }

  list(): Loop[] {
    return [...this.#loops.values()].map((loop) => ({ ...loop }));
  }

  // What an add would refuse, before anyone is asked about it. `when` is seconds between fires,
  // or a cron expression.
  check(prompt: string, when: number | string, label?: string): void {
    if (prompt.trim() === "") throw new LoopError("a loop needs a prompt");
    // One line of printable text: what /loop list shows is what the model is sent.
    if (CONTROL.test(prompt)) throw new LoopError("a loop's prompt is one line of text");
    if (label !== undefined && (CONTROL.test(label) || label.length > 40 || label === "")) {
      throw new LoopError("a label is 1 to 40 characters on one line");
    }
    if (prompt.trimStart().startsWith("/")) {
      throw new LoopError("a loop sends a prompt to the model, not a command");
    }
    if (typeof when === "string") {
      this.#checkCron(when);
    } else if (!Number.isInteger(when) || when < this.floor) {
      throw new LoopError(
        `a loop fires at most every ${formatEvery(this.floor)} (AGENT_CODE_LOOP_MIN_S), got ${String(when)}s`,
      );
    }
    if (this.#loops.size >= this.max) {
      throw new LoopError(
        `at most ${this.max} loops at once (AGENT_CODE_LOOP_MAX); cancel one first`,
      );
    }
  }

  // A cron expression is read once at the least (a bad field throws), and cron.ts's
  // shortest gap between its next fires is held to the floor: with the default floor of 60 s,
  // a minute's resolution always passes.
  #checkCron(expression: string): void {
    try {
      const schedule = parseCron(expression);
      const gap = shortestGap(schedule, new Date());
      if (gap < this.floor) {
        throw new LoopError(
          `a loop fires at most every ${formatEvery(this.floor)} (AGENT_CODE_LOOP_MIN_S), "${schedule.text}" fires ${formatEvery(gap)} apart`,
        );
      }
    } catch (error) {
      if (error instanceof CronError) throw new LoopError(error.message);
      throw error;
    }
  }

  add(prompt: string, when: number | string, label?: string): Loop {
    this.check(prompt, when, label);
    this.#last += 1;
    const cron = typeof when === "string" ? parseCron(when).text : undefined;
    const every = typeof when === "string" ? 0 : when;
    const loop: Loop = {
      id: `loop_${this.#last}`,
      prompt: prompt.trim(),
      every,
      ...(cron === undefined ? {} : { cron }),
      ...(label === undefined ? {} : { label }),
      paused: false,
    };
    this.#loops.set(loop.id, loop);
    this.#record({
      op: "add",
      id: loop.id,
      prompt: loop.prompt,
      every,
      ...(cron === undefined ? {} : { cron }),
      ...(label === undefined ? {} : { label }),
    });
    this.#start(loop);
    return { ...loop };
  }

  cancel(id: string): Loop {
    const loop = this.#own(id);
    this.#stop(id);
    this.#loops.delete(id);
    this.#record({ op: "cancel", id });
    return loop;
  }

  resume(id: string): Loop {
    const loop = this.#own(id);
    if (!loop.paused) throw new LoopError(`${id} is not paused`);
    loop.paused = false;
    this.#start(loop);
    return { ...loop };
  }

  // Writes an `add` record for each loop there is: /clear's new log must list them for its -c.
  recordEach(): void {
    for (const { id, prompt, every, cron, label } of this.#loops.values()) {
      this.#record({
        op: "add",
        id,
        prompt,
        every,
        ...(cron === undefined ? {} : { cron }),
        ...(label === undefined ? {} : { label }),
      });
    }
  }

  // A resumed session's loops, from its log: every one added and not cancelled, paused.
  restore(records: Record<string, unknown>[]): Loop[] {
    for (const record of records) {
      if (record.type !== "loop" || typeof record.id !== "string") continue;
      const number = /^loop_([0-9]+)$/.exec(record.id)?.[1];
      if (number === undefined) continue;
      this.#last = Math.max(this.#last, Number(number));
      if (record.op === "cancel") this.#loops.delete(record.id);
      if (record.op !== "add") continue;
      if (typeof record.prompt !== "string" || typeof record.every !== "number") continue;
      const cron = typeof record.cron === "string" ? record.cron : undefined;
      if (cron !== undefined && !readsAsCron(cron)) continue;
      this.#loops.set(record.id, {
        id: record.id,
        prompt: record.prompt,
        every: record.every,
        ...(cron === undefined ? {} : { cron }),
        ...(typeof record.label === "string" ? { label: record.label } : {}),
        paused: true,
      });
    }
    return this.list();
  }

  // Resolves once a loop is due (at once when one is).
  whenDue(): Promise<void> {
    if (this.#due.length > 0) return Promise.resolve();
    if (this.#wake === undefined) {
      let resolve = () => {};
      const promise = new Promise<void>((done) => {
        resolve = done;
      });
      this.#wake = { promise, resolve };
    }
    return this.#wake.promise;
  }

  // The next due loop, recorded as fired; undefined when none is due.
  takeDue(): Loop | undefined {
    for (let id = this.#due.shift(); id !== undefined; id = this.#due.shift()) {
      const loop = this.#loops.get(id);
      if (loop === undefined || loop.paused) continue;
      this.#record({ op: "fire", id });
      return { ...loop };
    }
    return undefined;
  }

  // The REPL is done: no timer is left.
  stopAll(): void {
    for (const id of [...this.#timers.keys()]) this.#stop(id);
    this.#due = [];
  }

  #own(id: string): Loop {
    const loop = this.#loops.get(id);
    if (loop === undefined) throw new LoopError(`no loop ${id} in this session`);
    return loop;
  }

  #start(loop: Loop): void {
    if (loop.cron !== undefined) {
      this.#arm(loop.id, parseCron(loop.cron), new Date());
      return;
    }
    const timer = setInterval(() => this.#tick(loop.id), loop.every * 1000);
    timer.unref();
    this.#timers.set(loop.id, timer);
  }

  // A cron loop's timer: one timeout to its next fire, set again from that fire's minute (not from
  // the clock, so a timer that wakes a little early cannot fire the same minute twice). A wait
  // longer than a timeout can hold wakes early and waits again.
  #arm(id: string, schedule: ReturnType<typeof parseCron>, after: Date): void {
    const at = nextFire(schedule, after);
    if (at === undefined) return;
    const wait = Math.min(at.getTime() - Date.now(), MAX_TIMEOUT_MS);
    const timer = setTimeout(
      () => {
        if (Date.now() < at.getTime() - 1_000) {
          this.#arm(id, schedule, after);
          return;
        }
        this.#tick(id);
        this.#arm(id, schedule, at);
      },
      Math.max(0, wait),
    );
    timer.unref();
    this.#timers.set(id, timer);
  }

  #stop(id: string): void {
    // clearInterval clears a timeout too: Node keeps one kind of timer.
    clearInterval(this.#timers.get(id));
    this.#timers.delete(id);
    this.#due = this.#due.filter((due) => due !== id);
  }

  #tick(id: string): void {
    if (!this.#due.includes(id)) this.#due.push(id);
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.resolve();
  }
}

// The longest wait a Node timer holds (about 24.8 days).
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

function readsAsCron(expression: string): boolean {
  try {
    parseCron(expression);
    return true;
  } catch {
    return false;
  }
}

// When a loop fires, as its lines say it: `every 5m`, or `cron */5 * * * *`.
export function whenText(loop: Pick<Loop, "every" | "cron">): string {
  return loop.cron === undefined ? `every ${formatEvery(loop.every)}` : `cron ${loop.cron}`;
}

// The prompt a loop sends, marked so the model and the log tell it from a typed one.
export function loopPrompt(loop: Loop): string {
  return `[loop ${loop.id}, ${whenText(loop)}] ${loop.prompt}`;
}

// One line of /loop list and cron_list.
export function loopLine(loop: Loop): string {
  const label = loop.label === undefined ? "" : ` (${loop.label})`;
  const paused = loop.paused ? ", paused" : "";
  return `${loop.id}${label}: ${whenText(loop)}${paused}: ${loop.prompt}`;
}

// What -c and --resume say about the loops they found: nothing fires until resumed.
export function pausedNote(loops: Loop[]): string | undefined {
  if (loops.length === 0) return undefined;
  const count = loops.length === 1 ? "1 loop" : `${loops.length} loops`;
  const resume = loops.map((loop) => `/loop resume ${loop.id}`).join(", ");
  return `note: ${count} paused; ${resume}`;
}

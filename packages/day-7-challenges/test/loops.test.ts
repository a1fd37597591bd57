// Loops (src/loops.ts, the /loop command, the cron_* tools, the log's loop records): the floor, the
// limit, one due loop at a time, paused on resume. Timers are Vitest's fake ones: no test waits.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { runAgent } from "../src/agent.ts";
import type { Ui } from "../src/diff-ui.ts";
import { ReadState } from "../src/fs-safety.ts";
import {
  DEFAULT_LOOP_MIN_S,
  formatEvery,
  type LoopRecord,
  Loops,
  loopFloorFromEnv,
  loopLine,
  loopMaxFromEnv,
  loopPrompt,
  parseEvery,
  pausedNote,
} from "../src/loops.ts";
import type { ModelProvider, ModelResponse } from "../src/model.ts";
import { SessionLog } from "../src/session.ts";
import { builtInCommands, dispatch, loopArguments, SlashCommands } from "../src/slash.ts";
import { defaultTools, type ToolContext } from "../src/tools/index.ts";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function recorded(): { records: LoopRecord[]; loops: Loops } {
  const records: LoopRecord[] = [];
  return { records, loops: new Loops({ floor: 60, record: (record) => records.push(record) }) };
}

test("the floor: 60 s unless AGENT_CODE_LOOP_MIN_S gives whole seconds; anything else is refused", () => {
  expect(loopFloorFromEnv({})).toBe(DEFAULT_LOOP_MIN_S);
  expect(loopFloorFromEnv({ AGENT_CODE_LOOP_MIN_S: "1" })).toBe(1);
  expect(loopFloorFromEnv({ AGENT_CODE_LOOP_MIN_S: "0" })).toBe(1);
  for (const bad of ["x", "1.5", "-1", " 5", "", "1e3"]) {
    expect(() => loopFloorFromEnv({ AGENT_CODE_LOOP_MIN_S: bad })).toThrow(
      `AGENT_CODE_LOOP_MIN_S must be a whole number, got ${JSON.stringify(bad)}`,
    );
  }
});

// Challenge d (decision 0087): 5 unless AGENT_CODE_LOOP_MAX says otherwise, and never over 20.
test("the cap: 5 unless AGENT_CODE_LOOP_MAX gives 1 to 20; anything else is refused", () => {
  expect(loopMaxFromEnv({})).toBe(5);
  expect(loopMaxFromEnv({ AGENT_CODE_LOOP_MAX: "20" })).toBe(20);
  expect(loopMaxFromEnv({ AGENT_CODE_LOOP_MAX: "1" })).toBe(1);
  for (const bad of ["0", "21", "100", "x", "5.0", " 5", "", "-1"]) {
    expect(() => loopMaxFromEnv({ AGENT_CODE_LOOP_MAX: bad })).toThrow(
      `AGENT_CODE_LOOP_MAX must be a whole number from 1 to 20, got ${JSON.stringify(bad)}`,
    );
  }
  const twenty = new Loops({ floor: 60, max: 20 });
  for (let n = 1; n <= 20; n++) twenty.add(`prompt ${n}`, 60);
  expect(() => twenty.add("the 21st", 60)).toThrow(
    "at most 20 loops at once (AGENT_CODE_LOOP_MAX); cancel one first",
  );
  twenty.stopAll();
});

test("intervals are read as seconds, minutes or hours and written the shortest way", () => {
  expect(parseEvery("90")).toBe(90);
  expect(parseEvery("90s")).toBe(90);
  expect(parseEvery("5m")).toBe(300);
  expect(parseEvery("2h")).toBe(7200);
  for (const bad of ["", "5 m", "5d", "-5m", "1.5m", "m"]) expect(parseEvery(bad)).toBeUndefined();
  expect([300, 90, 3600, 61].map(formatEvery)).toEqual(["5m", "90s", "1h", "61s"]);
});

test("a loop below the floor, a command, an empty prompt or a sixth loop is refused", () => {
  const { loops, records } = recorded();
  expect(() => loops.add("run the tests", 59)).toThrow(
    "a loop fires at most every 1m (AGENT_CODE_LOOP_MIN_S), got 59s",
  );
  expect(() => loops.add("/permissions bypassPermissions", 60)).toThrow(
    "a loop sends a prompt to the model, not a command",
  );
  expect(() => loops.add("  /clear", 60)).toThrow("not a command");
  expect(() => loops.add("   ", 60)).toThrow("a loop needs a prompt");
  expect(() => loops.add("two\nlines", 60)).toThrow("one line of text");
  for (let n = 1; n <= 5; n++) expect(loops.add(`prompt ${n}`, 60).id).toBe(`loop_${n}`);
  expect(() => loops.add("a sixth", 60)).toThrow("at most 5 loops at once");
  expect(records.filter((record) => record.op === "add")).toHaveLength(5);
  loops.stopAll();
});

test("a tick marks a loop due; it fires once however often it ticked, one loop at a time", async () => {
  const { loops, records } = recorded();
  const first = loops.add("check the build", 60);
  loops.add("check the queue", 120);
  expect(loops.takeDue()).toBeUndefined();
  let woke = false;
  void loops.whenDue().then(() => {
    woke = true;
  });
  await vi.advanceTimersByTimeAsync(59_999);
  expect(woke).toBe(false);
  await vi.advanceTimersByTimeAsync(1);
  expect(woke).toBe(true);
  // A long run: the first loop ticks twice more, the second once.
  await vi.advanceTimersByTimeAsync(120_000);
  expect(loops.takeDue()?.id).toBe(first.id);
  expect(loops.takeDue()?.id).toBe("loop_2");
  expect(loops.takeDue()).toBeUndefined();
  expect(records.filter((record) => record.op === "fire")).toEqual([
    { op: "fire", id: "loop_1" },
    { op: "fire", id: "loop_2" },
  ]);
  expect(loopPrompt(first)).toBe("[loop loop_1, every 1m] check the build");
  loops.stopAll();
});

test("a cancelled loop never fires again, and only this session's ids can be cancelled", async () => {
  const { loops, records } = recorded();
  loops.add("check the build", 60);
  await vi.advanceTimersByTimeAsync(60_000);
  loops.cancel("loop_1");
  expect(loops.takeDue()).toBeUndefined();
  await vi.advanceTimersByTimeAsync(600_000);
  expect(loops.takeDue()).toBeUndefined();
  expect(() => loops.cancel("loop_1")).toThrow("no loop loop_1 in this session");
  expect(records.at(-1)).toEqual({ op: "cancel", id: "loop_1" });
});

test("the timers are unref'd: a loop never keeps the process alive", () => {
  vi.useRealTimers();
  const { loops } = recorded();
  const spy = vi.spyOn(globalThis, "setInterval");
  loops.add("check the build", 60);
  const timer = spy.mock.results[0]?.value as NodeJS.Timeout;
  expect(timer.hasRef()).toBe(false);
  loops.stopAll();
  spy.mockRestore();
});

test("a resumed log's loops come back paused; nothing fires until one is resumed", async () => {
  const home = mkdtempSync(join(tmpdir(), "loops-home-"));
  const cwd = mkdtempSync(join(tmpdir(), "loops-work-"));
  const log = SessionLog.create({ home, cwd });
  const first = new Loops({ floor: 60, record: (record) => log.loop(record) });
  first.add("check the build", 300, "build");
  first.add("check the queue", 60);
  first.cancel("loop_2");
  first.stopAll();
  log.finish();
  log.close();
  const lines = readFileSync(log.path, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  expect(lines[1]).toMatchObject({
    seq: 1,
    type: "loop",
    op: "add",
    id: "loop_1",
    prompt: "check the build",
    every: 300,
    label: "build",
  });
  expect(lines[3]).toMatchObject({ type: "loop", op: "cancel", id: "loop_2" });

  const again = SessionLog.open({ home, cwd }, log.id);
  const loops = new Loops({ floor: 60, record: (record) => again.loop(record) });
  const restored = loops.restore(again.loopRecords());
  expect(restored.map((loop) => [loop.id, loop.paused])).toEqual([["loop_1", true]]);
  expect(pausedNote(restored)).toBe("note: 1 loop paused; /loop resume loop_1");
  expect(restored.map(loopLine)).toEqual(["loop_1 (build): every 5m, paused: check the build"]);
  await vi.advanceTimersByTimeAsync(3_600_000);
  expect(loops.takeDue()).toBeUndefined();
  loops.resume("loop_1");
  expect(() => loops.resume("loop_1")).toThrow("loop_1 is not paused");
  await vi.advanceTimersByTimeAsync(300_000);
  expect(loops.takeDue()?.id).toBe("loop_1");
  // A new loop takes the next number, never a cancelled one's.
  expect(loops.add("another", 60).id).toBe("loop_3");
  loops.stopAll();
  again.close();
});

test("/clear writes the running loops into its new log, so that log's -c lists them", async () => {
  const home = mkdtempSync(join(tmpdir(), "loops-home-"));
  const cwd = mkdtempSync(join(tmpdir(), "loops-work-"));
  const session = { ...slashSession(undefined), home, cwd, log: SessionLog.create({ home, cwd }) };
  const loops = new Loops({ floor: 60, record: (record) => session.log?.loop(record) });
  loops.add("check the build", 300, "build");
  loops.add("check the queue", 60);
  loops.add("check the night build", "0 3 * * *");
  loops.cancel("loop_1");
  const old = session.log;
  const ran = await dispatch(
    "/clear",
    new SlashCommands(builtInCommands()),
    {
      session: { ...session, loops },
      oneShot: false,
      onNewLog: (log) => Object.assign(session, { log }),
    },
    { out: () => {}, err: () => {} },
  );
  expect(ran.code).toBe(0);
  expect(session.log.id).not.toBe(old.id);
  session.log.finish();
  session.log.close();
  const again = SessionLog.open({ home, cwd }, session.log.id);
  const restored = new Loops({ floor: 60 }).restore(again.loopRecords());
  expect(restored.map(loopLine)).toEqual([
    "loop_2: every 1m, paused: check the queue",
    "loop_3: cron 0 3 * * *, paused: check the night build",
  ]);
  // The old log keeps what it had: loop_1 cancelled, loop_2 running.
  const before = new Loops({ floor: 60 }).restore(
    SessionLog.open({ home, cwd }, old.id).loopRecords(),
  );
  expect(before.map((loop) => loop.id)).toEqual(["loop_2", "loop_3"]);
  loops.stopAll();
  again.close();
});

test("/loop add takes everything before its last options as the prompt, apostrophes too", () => {
  expect(loopArguments("don't stop --every 5m")).toEqual({ prompt: "don't stop", every: "5m" });
  expect(loopArguments("run it --every 5m --label ci")).toEqual({
    prompt: "run it",
    every: "5m",
    label: "ci",
  });
  // An option written twice: the last one counts, the earlier is part of the prompt.
  expect(loopArguments("say --every day --every 90s")).toEqual({
    prompt: "say --every day",
    every: "90s",
  });
  expect(loopArguments("no interval")).toEqual({ prompt: "no interval" });
});

function slashSession(loops: Loops | undefined) {
  return {
    cwd: tmpdir(),
    home: tmpdir(),
    model: "m",
    tools: defaultTools(),
    compactAt: 0,
    permissionMode: "default" as const,
    log: undefined,
    history: [],
    readState: new ReadState(),
    loops,
  };
}

async function slash(line: string, loops: Loops | undefined, oneShot = false) {
  const out: string[] = [];
  const err: string[] = [];
  const ran = await dispatch(
    line,
    new SlashCommands(builtInCommands()),
    { session: slashSession(loops), oneShot, onNewLog: () => {} },
    { out: (text) => out.push(...text.split("\n")), err: (text) => err.push(text) },
  );
  return { ...ran, out, err };
}

test("/loop add, list, cancel and resume; mistakes are one line and code 2", async () => {
  const { loops } = recorded();
  expect(await slash("/loop add don't stop --every 5m", loops)).toMatchObject({
    code: 0,
    out: ["added loop_1: every 5m: don't stop"],
  });
  expect((await slash("/loop list", loops)).out).toEqual(["loop_1: every 5m: don't stop"]);
  expect((await slash("/loop add hi --every 30s", loops)).err).toEqual([
    "/loop: a loop fires at most every 1m (AGENT_CODE_LOOP_MIN_S), got 30s",
  ]);
  expect((await slash("/loop add /clear --every 5m", loops)).err).toEqual([
    "/loop: a loop sends a prompt to the model, not a command",
  ]);
  expect(await slash("/loop add hi", loops)).toMatchObject({ code: 2 });
  expect((await slash("/loop add hi --every soon", loops)).err).toEqual([
    "/loop: --every takes 90s, 5m or 1h, got soon",
  ]);
  expect((await slash("/loop cancel loop_9", loops)).err).toEqual([
    "/loop: no loop loop_9 in this session",
  ]);
  expect((await slash("/loop cancel loop_1", loops)).out).toEqual(["cancelled loop_1"]);
  expect((await slash("/loop", loops)).out).toEqual(["no loops"]);
  expect((await slash("/loop stop", loops)).code).toBe(2);
  const oneShot = await slash("/loop list", undefined, true);
  expect(oneShot.code).toBe(2);
  expect(oneShot.err[0]).toMatch(/^\/loop: works in the REPL only/);
  loops.stopAll();
});

// A model that calls one tool, then answers.
function calling(name: string, input: Record<string, unknown>): ModelProvider {
  let step = 0;
  return {
    name: "fake",
    async complete(): Promise<ModelResponse> {
      step += 1;
      if (step === 1) {
        const call = { id: "toolu_1", name, arguments: input };
        return {
          text: null,
          toolCalls: [call],
          stopReason: "tool_use",
          assistantContent: [{ type: "tool_use", id: call.id, name, input }],
        } as unknown as ModelResponse;
      }
      return {
        text: "done",
        toolCalls: [],
        stopReason: "end_turn",
        assistantContent: [{ type: "text", text: "done" }],
      } as unknown as ModelResponse;
    },
  } as unknown as ModelProvider;
}

function answering(yes: boolean, seen: string[]): Ui {
  return {
    print: (line: string) => seen.push(line),
    confirm: async (question: string) => {
      seen.push(question);
      return yes;
    },
  } as unknown as Ui;
}

async function cronCreate(
  input: Record<string, unknown>,
  options: { loops?: Loops; mode?: "default" | "plan" | "bypassPermissions"; yes?: boolean },
) {
  const seen: string[] = [];
  const result = await runAgent("start a loop", calling("cron_create", input), defaultTools(), {
    cwd: tmpdir(),
    ui: answering(options.yes ?? true, seen),
    permissionMode: options.mode ?? "default",
    ...(options.loops === undefined ? {} : { loops: options.loops }),
  });
  const observation = result.trace.find((line) => line.startsWith("observation: ")) ?? "";
  return { observation, seen };
}

test("cron_create asks with the prompt and interval shown; a no starts nothing", async () => {
  const { loops } = recorded();
  const asked = await cronCreate({ slash: "run the tests", every_seconds: 300 }, { loops });
  expect(asked.seen).toEqual(["Loop: every 5m: run the tests", "Start this loop?"]);
  expect(asked.observation).toMatch(/^observation: Loop started: loop_1, every 5m/);
  const refused = await cronCreate({ slash: "again", every_seconds: 300 }, { loops, yes: false });
  expect(refused.observation).toBe("observation: the user did not start this loop");
  expect(loops.list().map((loop) => loop.id)).toEqual(["loop_1"]);
  loops.stopAll();
});

test("cron_create: denied in plan mode, refused for a command, below the floor or one-shot", async () => {
  const { loops } = recorded();
  const plan = await cronCreate({ slash: "x", every_seconds: 300 }, { loops, mode: "plan" });
  expect(plan.observation).toBe(
    "observation: plan mode: cron_create is not allowed; only read-only tools run in plan mode",
  );
  expect(plan.seen).toEqual([]);
  const command = await cronCreate(
    { slash: "/permissions bypassPermissions", every_seconds: 300 },
    { loops, mode: "bypassPermissions" },
  );
  expect(command.observation).toBe(
    "observation: bad arguments for cron_create: a loop sends a prompt to the model, not a command",
  );
  const fast = await cronCreate({ slash: "x", every_seconds: 1 }, { loops });
  expect(fast.observation).toMatch(/^observation: bad arguments for cron_create: a loop fires/);
  expect(fast.seen).toEqual([]);
  const oneShot = await cronCreate({ slash: "x", every_seconds: 300 }, {});
  expect(oneShot.observation).toBe("observation: loops run only in the REPL");
  expect(oneShot.seen).toEqual([]);
  expect(loops.list()).toEqual([]);
});

// Challenge c (decision 0087): a loop on a 5-field cron expression, under the same rules.
test("/loop add --cron: listed, recorded, fired at the clock's minutes, one line per mistake", async () => {
  vi.setSystemTime(new Date(2026, 11, 6, 23, 7, 30));
  const { loops, records } = recorded();
  expect(
    await slash(`/loop add run the tests --cron "*/5 * * * *" --label ci`, loops),
  ).toMatchObject({
    code: 0,
    out: ["added loop_1: cron */5 * * * *: run the tests"],
  });
  expect((await slash("/loop list", loops)).out).toEqual([
    "loop_1 (ci): cron */5 * * * *: run the tests",
  ]);
  expect(records[0]).toEqual({
    op: "add",
    id: "loop_1",
    prompt: "run the tests",
    every: 0,
    cron: "*/5 * * * *",
    label: "ci",
  });
  // 23:10 is 2.5 minutes away.
  await vi.advanceTimersByTimeAsync(149_000);
  expect(loops.takeDue()).toBeUndefined();
  await vi.advanceTimersByTimeAsync(1_000);
  const due = loops.takeDue();
  expect(due === undefined ? "" : loopPrompt(due)).toBe(
    "[loop loop_1, cron */5 * * * *] run the tests",
  );
  await vi.advanceTimersByTimeAsync(300_000);
  expect(loops.takeDue()?.id).toBe("loop_1");
  expect((await slash(`/loop add x --cron '61 * * * *'`, loops)).err).toEqual([
    "/loop: cron minute field: 61 is out of range (0-59)",
  ]);
  expect((await slash(`/loop add x --cron "* * *"`, loops)).err).toEqual([
    "/loop: cron takes 5 fields (minute hour day-of-month month day-of-week), got 3",
  ]);
  expect((await slash(`/loop add x --every 5m --cron "* * * * *"`, loops)).err).toEqual([
    "/loop: --every or --cron, not both",
  ]);
  loops.stopAll();
});

test("a cron loop is held to the floor, comes back paused from the log, and cron_create takes one", async () => {
  const slow = new Loops({ floor: 600 });
  expect(() => slow.add("x", "*/5 * * * *")).toThrow(
    'a loop fires at most every 10m (AGENT_CODE_LOOP_MIN_S), "*/5 * * * *" fires 5m apart',
  );
  expect(slow.add("x", "*/10 * * * *").cron).toBe("*/10 * * * *");
  slow.stopAll();
  const restored = new Loops({ floor: 60 }).restore([
    { type: "loop", op: "add", id: "loop_1", prompt: "hi", every: 0, cron: "0 9 * * 1-5" },
    { type: "loop", op: "add", id: "loop_2", prompt: "bad", every: 0, cron: "0 99 * * *" },
  ]);
  expect(restored.map(loopLine)).toEqual(["loop_1: cron 0 9 * * 1-5, paused: hi"]);
  const { loops } = recorded();
  const asked = await cronCreate({ slash: "stand-up notes", cron: "0 9 * * 1-5" }, { loops });
  expect(asked.seen).toEqual(["Loop: cron 0 9 * * 1-5: stand-up notes", "Start this loop?"]);
  expect(asked.observation).toMatch(/^observation: Loop started: loop_1, cron 0 9 \* \* 1-5;/);
  const bad = await cronCreate({ slash: "x", cron: "0 9 * * Mon" }, { loops });
  expect(bad.observation).toBe(
    'observation: bad arguments for cron_create: cron day-of-week field: "Mon" is not a number, range or step',
  );
  const both = await cronCreate({ slash: "x", cron: "* * * * *", every_seconds: 60 }, { loops });
  expect(both.observation).toBe(
    "observation: bad arguments for cron_create: every_seconds or cron, not both",
  );
  expect(bad.seen).toEqual([]);
  loops.stopAll();
});

test("cron_list and cron_cancel read only this session's loops, with no question", async () => {
  const { loops } = recorded();
  loops.add("check the build", 60, "ci");
  const tools = defaultTools();
  const ctx = { cwd: tmpdir(), readState: new ReadState(), loops } as unknown as ToolContext;
  const call = (name: string, args: Record<string, unknown>) =>
    tools.run({ id: "t", name, arguments: args }, { ...ctx, signal: new AbortController().signal });
  expect(tools.get("cron_list")?.readOnly).toBe(true);
  expect(tools.get("cron_cancel")?.readOnly).toBe(true);
  expect(tools.get("cron_create")?.readOnly).toBeUndefined();
  expect((await call("cron_list", {})).content).toBe("loop_1 (ci): every 1m: check the build");
  expect(await call("cron_cancel", { id: "loop_7" })).toMatchObject({
    content: "no loop loop_7 in this session",
    isError: true,
  });
  expect((await call("cron_cancel", { id: "loop_1" })).content).toBe("Loop cancelled: loop_1");
  expect((await call("cron_list", {})).content).toBe("no loops");
});

// Slash commands (src/slash.ts): the registry, words split by Day 5's reader, decision 0080's texts
// and exit codes, and what /compact, /clear, /permissions and /plan change in the session.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { ReadState } from "../src/fs-safety.ts";
import type { Message } from "../src/model.ts";
import { readLog, SessionLog, sessionsFolder } from "../src/session.ts";
import { splitWords } from "../src/shell-words.ts";
import {
  builtInCommands,
  dispatch,
  isSlash,
  runOneShot,
  type SlashCommand,
  SlashCommands,
  type SlashSession,
} from "../src/slash.ts";
import { defaultTools } from "../src/tools/index.ts";

const open: SessionLog[] = [];
afterEach(() => {
  for (const log of open.splice(0)) log.close();
});

function folders(): { cwd: string; home: string } {
  const dir = mkdtempSync(join(tmpdir(), "slash-"));
  mkdirSync(join(dir, "work"));
  mkdirSync(join(dir, "home"));
  return { cwd: join(dir, "work"), home: join(dir, "home") };
}

function session(over: Partial<SlashSession> = {}): SlashSession {
  return {
    ...folders(),
    model: "test-model",
    tools: defaultTools(),
    compactAt: 100_000,
    permissionMode: "default",
    log: undefined,
    history: [],
    readState: new ReadState(),
    ...over,
  };
}

// Runs one line in the REPL's way; what it printed, on which stream, and its code.
async function run(line: string, s: SlashSession, oneShot = false) {
  const out: string[] = [];
  const err: string[] = [];
  const newLogs: (SessionLog | undefined)[] = [];
  const commands = new SlashCommands(builtInCommands());
  const ran = await dispatch(
    line,
    commands,
    { session: s, oneShot, onNewLog: (log) => newLogs.push(log) },
    { out: (text) => out.push(...text.split("\n")), err: (text) => err.push(text) },
  );
  return { ...ran, out, err, newLogs };
}

// Two prompts, each answered with a long text: enough for a summary to save something.
function twoRounds(): Message[] {
  const long = "a long answer. ".repeat(200);
  return [
    { role: "user", content: "first question" },
    { role: "assistant", content: [{ type: "text", text: long }] },
    { role: "user", content: "second question" },
    { role: "assistant", content: [{ type: "text", text: long }] },
  ];
}

test("the reader splits words as a shell does, runs nothing and says when a quote is open", () => {
  expect(splitWords(`/model "it's fine" 'a b'  c\\ d`)).toEqual({
    words: ["/model", "it's fine", "a b", "c d"],
    unclosed: false,
  });
  // Shell operators are text here: nothing is a pipe, a redirect, a comment or a substitution.
  expect(splitWords("/x a;b c|d >e #f $HOME $(rm -rf x)").words).toEqual([
    "/x",
    "a;b",
    "c|d",
    ">e",
    "#f",
    "$HOME",
    "$(rm -rf x)",
  ]);
  expect(splitWords("/loop add don't stop").unclosed).toBe(true);
  expect(splitWords('/model "open').unclosed).toBe(true);
  expect(splitWords("   ").words).toEqual([]);
});

test("/help lists every command, Day 1's first line lengthened, one line a command", async () => {
  const { out, err, code } = await run("/help", session());
  expect(code).toBe(0);
  expect(err).toEqual([]);
  expect(out[0]).toBe(
    "commands: /help, /exit, /context, /model, /compact, /permissions, /plan, /clear",
  );
  expect(out).toHaveLength(9);
  expect(out[1]).toMatch(/^ {2}\/help {2,}list these commands$/);
  expect(out[6]).toMatch(/^ {2}\/permissions {2}\S/);
});

test("a registered command is listed and run with its words; a name twice is a bug", async () => {
  const seen: string[][] = [];
  const echo: SlashCommand = {
    name: "echo",
    description: "say the words back",
    run: (args) => {
      seen.push(args);
      return { message: args.join("|") };
    },
  };
  const commands = new SlashCommands([...builtInCommands(), echo]);
  const out: string[] = [];
  const print = { out: (text: string) => out.push(text), err: () => {} };
  const ctx = { session: session(), oneShot: false, onNewLog: () => {} };
  await dispatch(`/echo "don't stop" now`, commands, ctx, print);
  await dispatch("/help", commands, ctx, print);
  expect(seen).toEqual([["don't stop", "now"]]);
  expect(out[0]).toBe("don't stop|now");
  expect(out[1]?.split("\n")[0]).toMatch(/, \/clear, \/echo$/);
  expect(() => commands.register(echo)).toThrow("/echo is registered twice");
});

test("an unknown command is Day 1's line on stderr, code 2; the words after it do not matter", async () => {
  for (const line of ["/nope", "/nope with 'an open quote", "/"]) {
    const { out, err, code, exit } = await run(line, session());
    expect({ out, code, exit }).toEqual({ out: [], code: 2, exit: false });
    expect(err).toEqual([`unknown command: ${line.split(" ")[0]} (try /help)`]);
  }
});

test("an unclosed quote names the command and runs nothing", async () => {
  const { out, err, code } = await run("/model o'brien", session());
  expect({ out, err, code }).toEqual({
    out: [],
    err: ["/model: a quote is not closed"],
    code: 2,
  });
  const quoted = await run(`/model "o'brien"`, session());
  expect(quoted.out).toEqual([
    "/model: switching the model arrives on Day 8; start again with --model o'brien",
  ]);
  expect(quoted.code).toBe(0);
});

test("/exit says Bye. and ends the REPL; /model shows the model and changes nothing", async () => {
  expect(await run("/exit", session())).toMatchObject({ out: ["Bye."], exit: true, code: 0 });
  const s = session();
  expect((await run("/model", s)).out).toEqual(["model: test-model"]);
  await run("/model other", s);
  expect(s.model).toBe("test-model");
  expect((await run("/model a b", s)).err).toEqual(["/model: takes one model name"]);
});

test("/permissions shows and changes the mode for this process; /plan sets plan", async () => {
  const s = session();
  expect((await run("/permissions", s)).out).toEqual(["mode: default"]);
  expect((await run("/permissions acceptEdits", s)).out).toEqual(["mode: acceptEdits"]);
  expect(s.permissionMode).toBe("acceptEdits");
  const bad = await run("/permissions Plan", s);
  expect(bad.err).toEqual([
    "/permissions: unknown mode: Plan (valid: default, acceptEdits, plan, bypassPermissions)",
  ]);
  expect(bad.code).toBe(2);
  expect(s.permissionMode).toBe("acceptEdits");
  expect((await run("/plan", s)).out).toEqual(["mode: plan"]);
  expect(s.permissionMode).toBe("plan");
  expect((await run("/plan off", s)).code).toBe(2);
  expect(s.permissionMode).toBe("plan");
});

test("/context: one line each, the rules files, the notes and the size of the next request", async () => {
  const s = session();
  writeFileSync(join(s.cwd, "AGENT.md"), "Answer briefly.\n");
  const empty = await run("/context", s);
  expect(empty.out.slice(0, 6)).toEqual([
    `cwd: ${s.cwd}`,
    "session: none",
    "mode: default",
    "model: test-model",
    "rules: AGENT.md",
    "memory: 0 notes",
  ]);
  const size = (out: string[]) =>
    Number(/^next request: about (\d+) tokens$/.exec(out[6] ?? "")?.[1]);
  expect(size(empty.out)).toBeGreaterThan(100);
  s.history.push(...twoRounds());
  // The two long answers are about 1,500 tokens each.
  expect(size((await run("/context", s)).out)).toBeGreaterThan(size(empty.out) + 1000);
});

test("/compact summarizes every round but the last now and writes the compact record", async () => {
  const s = session();
  const log = SessionLog.create({ home: s.home, cwd: s.cwd });
  open.push(log);
  s.log = log;
  expect((await run("/compact", s)).out).toEqual(["compact: nothing to compact (0 messages)"]);
  for (const message of twoRounds()) {
    s.history.push(message);
    log.append(message);
  }
  const { out, code } = await run("/compact", s);
  expect(code).toBe(0);
  expect(out[0]).toMatch(
    /^compacted: 4 messages \(about \d+ tokens\) into 2 \(about \d+ tokens\)$/,
  );
  expect(s.history).toHaveLength(2);
  expect(String(s.history[0]?.content)).toContain("first question");
  // The log rebuilds the same view: what -c would send.
  const read = readLog(readFileSync(log.path), log.id);
  expect(read.messages).toEqual(s.history);
  expect(readFileSync(log.path, "utf8")).toContain('"type":"compact"');
  // Only the last round is left: nothing more to cut.
  expect((await run("/compact", s)).out).toEqual(["compact: nothing to compact (2 messages)"]);
});

test("/clear starts a new session, keeps the old file and forgets the conversation", async () => {
  const s = session();
  const log = SessionLog.create({ home: s.home, cwd: s.cwd });
  open.push(log);
  s.log = log;
  const [asked] = twoRounds();
  if (asked === undefined) throw new Error("no message");
  s.history.push(asked);
  log.append(asked);
  const readState = s.readState;
  const { out, newLogs } = await run("/clear", s);
  const fresh = s.log as SessionLog | undefined;
  if (fresh === undefined) throw new Error("no new log");
  open.push(fresh);
  expect(fresh.id).not.toBe(log.id);
  expect(out).toEqual([`session: ${fresh.id}`]);
  expect(newLogs).toEqual([fresh]);
  expect(s.history).toEqual([]);
  expect(s.readState).not.toBe(readState);
  expect(existsSync(log.path)).toBe(true);
  // The new file is made at its first message, as any new session's.
  expect(readdirSync(sessionsFolder(s.home, s.cwd)).filter((f) => f.endsWith(".jsonl"))).toEqual([
    `${log.id}.jsonl`,
  ]);
  // With --no-session there is no log before or after.
  const none = session();
  expect((await run("/clear", none)).out).toEqual(["session: none"]);
  expect(none.log).toBeUndefined();
});

test("a one-shot run: the same texts, code 2 for a mistake, no session to compact or clear", async () => {
  const s = session();
  const out: string[] = [];
  const err: string[] = [];
  const print = { out: (text: string) => out.push(text), err: (text: string) => err.push(text) };
  const commands = new SlashCommands(builtInCommands());
  expect(await runOneShot("/model", commands, s, print)).toBe(0);
  expect(await runOneShot("/nope", commands, s, print)).toBe(2);
  expect(await runOneShot("/compact", commands, s, print)).toBe(2);
  expect(await runOneShot("/clear", commands, s, print)).toBe(2);
  expect(out).toEqual(["model: test-model"]);
  expect(err).toEqual([
    "unknown command: /nope (try /help)",
    "/compact: works in the REPL only (a one-shot run opens no session)",
    "/clear: works in the REPL only (a one-shot run opens no session)",
  ]);
  expect(existsSync(join(s.home, "projects"))).toBe(false);
});

test("a command is `/` and a name as the first word; a first word that is a path starts a prompt", () => {
  expect(["/help", "/nope now", "/", "/model  m"].map(isSlash)).toEqual([true, true, true, true]);
  expect(
    ["/etc/hosts: what is this file?", "/usr/bin/env python3", "what does /help do?", ""].map(
      isSlash,
    ),
  ).toEqual([false, false, false, false]);
});

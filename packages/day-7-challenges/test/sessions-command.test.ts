// `agent-code sessions`: each subcommand on logs planted or written by SessionLog in a home folder
// of the test's own, its output lines and exit code; `verify` and `rewrite` on damaged logs; and
// `--fork`'s new session. The bundle's dispatch (the first word, exit codes, no request) is in
// sessions.cli.test.ts.
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeSessionLog } from "@agent-code/test-kit";
import { expect, test } from "vitest";
import type { Message } from "../src/model.ts";
import {
  readLog,
  rewrite,
  SessionError,
  SessionLog,
  sessionsFolder,
  verify,
} from "../src/session.ts";
import {
  glance,
  parseSessionsArgs,
  SessionsUsageError,
  sessionsCommand,
  traceOf,
} from "../src/sessions-command.ts";

const ID = "20261201-181502-3f9a1c";
const OTHER = "20261202-090000-a1b2c3";

function place() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "sessions-")));
  const cwd = join(dir, "app");
  mkdirSync(cwd);
  return { home: join(dir, "home"), cwd };
}

type Where = ReturnType<typeof place>;
type Turn = { role: "user" | "assistant"; content: unknown };

function plant(where: Where, messages: Turn[], id = ID, text?: string): string {
  const folder = sessionsFolder(where.home, where.cwd);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const path = join(folder, `${id}.jsonl`);
  writeFileSync(path, text ?? makeSessionLog({ id, cwd: where.cwd, messages }), { mode: 0o600 });
  return path;
}

// A round of read_file and its answer.
const ROUND: Turn[] = [
  { role: "user", content: "What is in notes.txt?" },
  {
    role: "assistant",
    content: [{ type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "notes.txt" } }],
  },
  {
    role: "user",
    content: [
      { type: "tool_result", tool_use_id: "toolu_1", content: "buy milk", is_error: false },
    ],
  },
  { role: "assistant", content: [{ type: "text", text: "It says: buy milk." }] },
];

// Runs one `sessions` command; its exit code and what it printed.
async function run(where: Where, args: string[], answer?: string) {
  const out: string[] = [];
  const err: string[] = [];
  const questions: string[] = [];
  const code = await sessionsCommand(args, {
    home: where.home,
    resolveCwd: () => where.cwd,
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    ask: async (question) => {
      questions.push(question);
      return answer;
    },
  });
  return { code, out, err, questions };
}

// The escape, bell, CSI and bidi characters in a text a terminal would show.
function controls(text: string): string[] {
  return ["\u001b", "\u0007", "\u009b", "\u202e"].filter((char) => text.includes(char));
}

function lines(path: string): string[] {
  return readFileSync(path, "utf8").split("\n").slice(0, -1);
}

test("list shows each session on one line, the one written to last first", async () => {
  const where = place();
  const old = plant(where, ROUND, ID);
  plant(where, [{ role: "user", content: "fix the failing date test" }], OTHER);
  utimesSync(old, new Date("2026-12-01T18:15:00Z"), new Date("2026-12-01T18:15:00Z"));
  const { code, out } = await run(where, []);
  expect(code).toBe(0);
  expect(out[0]).toMatch(
    /^20261202-090000-a1b2c3 {2}\d{4}-\d\d-\d\d \d\d:\d\d {2}1 message {2}"fix the failing date test"$/,
  );
  expect(out[1]).toBe(`${ID}  2026-12-01 18:15  4 messages  "What is in notes.txt?"`);
  expect(out).toHaveLength(2);
  expect((await run(where, ["list"])).out).toEqual(out);
});

test("list says so when the project has no sessions, and marks a damaged header", async () => {
  const where = place();
  expect((await run(where, ["list"])).out).toEqual([`no sessions in ${where.cwd}`]);
  plant(where, [], ID, "not a header\n");
  expect((await run(where, ["list"])).out[0]).toMatch(
    new RegExp(`^${ID} {2}.* {2}damaged \\(agent-code sessions check ${ID}\\)$`),
  );
});

test("list reads the first line and the last 64 KiB: the newest prompt there, and the count", () => {
  const where = place();
  const big = "x".repeat(200_000);
  const path = plant(where, [
    { role: "user", content: "the first task" },
    { role: "assistant", content: [{ type: "text", text: big }] },
    { role: "user", content: "the second task" },
    { role: "assistant", content: [{ type: "text", text: "done" }] },
  ]);
  const seen = glance(path, ID);
  expect(seen).toMatchObject({ messages: 4, prompt: "the second task", damaged: false });
  // With a tail that holds no prompt, the list says so rather than reading the whole file.
  expect(glance(path, ID, 100).prompt).toBeUndefined();
});

test("list shows a hostile prompt sanitised, on one line", async () => {
  const where = place();
  plant(where, [{ role: "user", content: "hi\u001b[2J\u001b]0;owned\u0007\nthere\u202e" }]);
  const { out } = await run(where, []);
  expect(out[0]).toMatch(/"hi\ufffd\[2J\ufffd\]0;owned\ufffd there\ufffd"$/);
  expect(controls(out.join(""))).toEqual([]);
});

test("show prints the trace a run prints, from the log", async () => {
  const where = place();
  plant(where, ROUND);
  const { code, out } = await run(where, ["show", ID]);
  expect(code).toBe(0);
  expect(out).toEqual([
    "prompt: What is in notes.txt?",
    'tool_call: read_file {"path":"notes.txt"}',
    "observation: buy milk",
    "final: It says: buy milk.",
  ]);
  // The 6 hex digits name it too, as --resume takes them.
  expect((await run(where, ["show", "3f9a1c"])).out).toEqual(out);
});

test("show sanitises escape sequences a tool result put in the log", async () => {
  const where = place();
  plant(where, [
    ROUND[0] as Turn,
    ROUND[1] as Turn,
    {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "a\u001b[31mred\u009b" }],
    },
  ]);
  const { out } = await run(where, ["show", ID]);
  expect(out.at(-1)).toBe("observation: a\ufffd[31mred\ufffd");
});

test("show refuses a damaged log and points to check; an unknown id is exit 1", async () => {
  const where = place();
  const path = plant(where, ROUND);
  const text = readFileSync(path, "utf8").replace("notes.txt?", "nutes.txt?");
  writeFileSync(path, text);
  await expect(run(where, ["show", ID])).rejects.toThrow(
    `session ${ID}: line 3 does not follow line 2 (edited or damaged); agent-code sessions check ${ID} lists what is wrong`,
  );
  await expect(run(where, ["show", OTHER])).rejects.toThrow(SessionError);
});

test("check says ok with the counts, and names every bad line of a damaged log", async () => {
  const where = place();
  const path = plant(where, ROUND);
  expect(await run(where, ["check", ID])).toMatchObject({
    code: 0,
    out: [`${ID}: ok (4 messages, 5 records)`],
  });
  const broken = lines(path);
  broken[1] = (broken[1] ?? "").replace("notes.txt?", "nutes.txt?");
  broken[3] = "{not json";
  writeFileSync(path, `${broken.join("\n")}\n{"seq":5,"ty`);
  const { code, out } = await run(where, ["check", ID]);
  expect(code).toBe(1);
  expect(out).toEqual([
    `${ID}: line 3 does not follow line 2 (edited or damaged)`,
    `${ID}: line 4 is not a record (edited or damaged)`,
    `${ID}: line 5 does not follow line 4 (edited or damaged)`,
    `${ID}: line 6 is an unfinished write (12 bytes)`,
    `${ID}: line 3 asks for 1 call with no result (toolu_1)`,
    `${ID}: agent-code sessions repair ${ID} writes a mended log and keeps this one`,
  ]);
});

test("check with no id takes the latest session; --all takes every one, exit 1 if one is bad", async () => {
  const where = place();
  const old = plant(where, ROUND, ID);
  utimesSync(old, new Date("2026-12-01T18:15:00Z"), new Date("2026-12-01T18:15:00Z"));
  plant(where, [{ role: "user", content: "hi" }], OTHER);
  expect((await run(where, ["check"])).out).toEqual([`${OTHER}: ok (1 message, 2 records)`]);
  appendFileSync(old, "{}\n");
  // The append made it the newest: back to its old time, so the order is known.
  utimesSync(old, new Date("2026-12-01T18:15:00Z"), new Date("2026-12-01T18:15:00Z"));
  const all = await run(where, ["check", "--all"]);
  expect(all.code).toBe(1);
  expect(all.out[0]).toBe(`${OTHER}: ok (1 message, 2 records)`);
  expect(all.out[1]).toBe(`${ID}: line 6 does not follow line 5 (edited or damaged)`);
});

test("verify: an unanswered call at the end, and a result no call asked for, are problems", () => {
  const log = makeSessionLog({
    id: ID,
    cwd: "/app",
    messages: [ROUND[0] as Turn, ROUND[1] as Turn],
  });
  expect(verify(Buffer.from(log), ID).problems).toEqual([
    "line 3 asks for 1 call with no result (toolu_1)",
  ]);
  const stray = makeSessionLog({
    id: ID,
    cwd: "/app",
    messages: [ROUND[0] as Turn, ROUND[3] as Turn, ROUND[2] as Turn],
  });
  expect(verify(Buffer.from(stray), ID).problems).toEqual([
    "line 4 answers 1 call no turn asked for (toolu_1)",
  ]);
  expect(verify(Buffer.from(""), ID).problems).toEqual([
    "line 1 is not a session header (the file is empty)",
  ]);
});

test("repair writes a fresh chain that check passes, keeps the old file as .bak, and says what changed", async () => {
  const where = place();
  const path = plant(where, ROUND);
  const broken = lines(path);
  broken[1] = (broken[1] ?? "").replace("notes.txt?", "nutes.txt?");
  broken.splice(3, 0, "{not json");
  const damaged = `${broken.join("\n")}\n{"seq":5,"ty`;
  writeFileSync(path, damaged);
  const { code, out } = await run(where, ["repair", ID]);
  expect(code).toBe(0);
  const folder = sessionsFolder(where.home, where.cwd);
  const backup = readdirSync(folder).find((name) => name.startsWith(`${ID}.jsonl.bak-`));
  expect(backup).toMatch(/^20261201-181502-3f9a1c\.jsonl\.bak-\d{8}-\d{6}$/);
  expect(readFileSync(join(folder, backup ?? ""), "utf8")).toBe(damaged);
  expect(out).toEqual([
    `${ID}: dropped line 4: not a record`,
    `${ID}: dropped line 7: an unfinished write (12 bytes)`,
    `${ID}: chained again from line 3 on (its seq and prev written anew)`,
    `${ID}: repaired (5 records); the old log is ${backup}`,
  ]);
  expect(existsSync(`${path}.new`)).toBe(false);
  // The edited line is kept as it is; the chain after it is new, and a resume reads it.
  expect(readLog(readFileSync(path), ID).messages[0]?.content).toBe("What is in nutes.txt?");
  expect((await run(where, ["check", ID])).out).toEqual([`${ID}: ok (4 messages, 5 records)`]);
  expect((await run(where, ["repair", ID])).out).toEqual([`${ID}: nothing to repair`]);
});

test("repair answers calls left with no result, in the middle of a log too, and drops stray results", () => {
  const middle: Turn[] = [
    ROUND[0] as Turn,
    ROUND[1] as Turn,
    // Its result line was deleted by hand: the next prompt follows the call.
    { role: "user", content: "never mind" },
    {
      role: "assistant",
      content: [{ type: "tool_use", id: "toolu_2", name: "bash", input: { command: "ls" } }],
    },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_2", content: "a.txt" },
        { type: "tool_result", tool_use_id: "toolu_9", content: "from nowhere" },
      ],
    },
    {
      role: "assistant",
      content: [{ type: "tool_use", id: "toolu_3", name: "bash", input: { command: "pwd" } }],
    },
  ];
  const fixed = rewrite(
    Buffer.from(makeSessionLog({ id: ID, cwd: "/app", messages: middle })),
    ID,
    new Date("2026-12-06T12:00:00.000Z"),
  );
  expect(fixed.changes).toEqual([
    "answered 1 call of line 3 (recorded as interrupted)",
    "line 6: took out results that answer no call (toolu_9)",
    "answered 1 call of line 7 (recorded as interrupted)",
    "chained again from line 4 on (its seq and prev written anew)",
  ]);
  expect(verify(Buffer.from(fixed.text), ID).problems).toEqual([]);
  const read = readLog(Buffer.from(fixed.text), ID);
  expect(read.messages).toHaveLength(8);
  const answer = read.messages[2] as Message;
  expect(answer.content).toEqual([
    expect.objectContaining({ tool_use_id: "toolu_1", is_error: true }),
  ]);
  expect(read.records[2]).toMatchObject({ repair: "interrupted" });
});

test("repair keeps a compact record, its `from` following the messages it kept", () => {
  const where = place();
  const log = SessionLog.create(where);
  for (const message of [...ROUND, ROUND[0], ROUND[3]] as Message[]) log.append(message);
  log.compact({
    summary: "<compacted-history>x</compacted-history>",
    kept: 2,
    tokens: { before: 9, after: 3 },
  });
  log.append({ role: "user", content: "and then?" });
  log.close();
  const before = readLog(readFileSync(log.path), log.id);
  // The first line after the header is torn out by hand: every seq after it moves.
  const edited = lines(log.path);
  edited.splice(1, 1);
  const fixed = rewrite(Buffer.from(`${edited.join("\n")}\n`), log.id);
  expect(fixed.changes).toEqual(["chained again from line 2 on (its seq and prev written anew)"]);
  expect(verify(Buffer.from(fixed.text), log.id).problems).toEqual([]);
  const after = readLog(Buffer.from(fixed.text), log.id);
  // The same view a resume sent before: the summary, the two messages kept, the new prompt.
  expect(after.messages).toEqual(before.messages);
  expect(traceOf(after.records)).toContain(
    "compacted: 5 messages (about 9 tokens) into 2 (about 3 tokens)",
  );
});

test("repair refuses a log whose header is not its own, and one a live run holds", async () => {
  const where = place();
  plant(where, [], ID, "{}\n");
  await expect(run(where, ["repair", ID])).rejects.toThrow(
    `session ${ID}: line 1 is not this session's header; repair keeps a log's own header and cannot make one`,
  );
  const path = plant(where, ROUND, OTHER);
  writeFileSync(
    path.replace(/\.jsonl$/, ".lock"),
    JSON.stringify({
      pid: process.pid,
      host: (await import("node:os")).hostname(),
      started: new Date().toISOString(),
    }),
  );
  await expect(run(where, ["repair", OTHER])).rejects.toThrow(/is open in another agent-code/);
  expect(readdirSync(sessionsFolder(where.home, where.cwd)).some((n) => n.includes(".bak-"))).toBe(
    false,
  );
});

test("export writes the transcript as Markdown, or the records as JSON", async () => {
  const where = place();
  plant(where, ROUND);
  const md = await run(where, ["export", ID]);
  expect(md.code).toBe(0);
  expect(md.out.slice(0, 5)).toEqual([
    `# Session ${ID}`,
    "",
    `- cwd: ${where.cwd}`,
    "- created: 2026-12-01T18:15:02.123Z",
    "",
  ]);
  expect(md.out).toContain("## Prompt");
  expect(md.out).toContain("What is in notes.txt?");
  expect(md.out).toContain("Tool call `read_file`:");
  expect(md.out).toContain("buy milk");
  expect(md.out.at(-1)).toBe("It says: buy milk.");
  expect((await run(where, ["export", ID, "--format", "md"])).out).toEqual(md.out);
  const json = await run(where, ["export", ID, "--format=json"]);
  const body = JSON.parse(json.out.join("\n"));
  expect(body).toMatchObject({ id: ID, cwd: where.cwd });
  expect(body.records.map((r: { message: Message }) => r.message)).toEqual(ROUND);
});

test("export escapes what a terminal would act on, in both formats", async () => {
  const where = place();
  plant(where, [{ role: "user", content: "a\u009b31m\u202eb\u001b[H" }]);
  const md = (await run(where, ["export", ID])).out.join("\n");
  expect(md).toContain("a\ufffd31m\ufffdb\ufffd[H");
  const json = (await run(where, ["export", ID, "--format", "json"])).out.join("\n");
  expect(controls(json)).toEqual([]);
  expect(JSON.parse(json).records[0].message.content).toBe("a\u009b31m\u202eb\u001b[H");
});

test("rm asks, keeps the log on no, and removes it and its backups on yes or --yes", async () => {
  const where = place();
  const path = plant(where, ROUND);
  writeFileSync(`${path}.bak-20261206-120000`, "old\n");
  const no = await run(where, ["rm", ID], "n");
  expect(no.questions).toEqual([
    `Delete session ${ID} (${readdirSync(join(where.home, "projects"))[0]})? [y/N] `,
  ]);
  expect(no.out).toEqual([`kept ${ID}`]);
  expect(existsSync(path)).toBe(true);
  expect((await run(where, ["rm", ID])).out).toEqual([`kept ${ID}`]);
  const yes = await run(where, ["rm", ID], "y");
  expect(yes.out).toEqual([`removed ${ID}`]);
  expect(readdirSync(sessionsFolder(where.home, where.cwd))).toEqual([]);
  plant(where, ROUND, OTHER);
  const forced = await run(where, ["rm", OTHER, "--yes"]);
  expect(forced).toMatchObject({ questions: [], out: [`removed ${OTHER}`] });
});

test("bad arguments are usage errors: unknown commands and flags, bad ids, missing ids", () => {
  const bad = (args: string[], message: string) =>
    expect(() => parseSessionsArgs(args)).toThrow(new SessionsUsageError(message));
  bad(["prune"], "unknown sessions command: prune");
  bad(["list", "--json"], "unknown option for sessions: --json");
  bad(["show"], "sessions show takes one session id");
  bad(
    ["show", "../x"],
    'sessions show: "../x" is not a session id (they look like 20261201-181502-3f9a1c)',
  );
  bad(
    ["repair", `${ID}/..`],
    `sessions repair: "${ID}/.." is not a session id (they look like 20261201-181502-3f9a1c)`,
  );
  bad(["check", ID, "--all"], "sessions check takes an id or --all, not both");
  bad(["export", ID, "--format", "html"], "unknown --format: html (valid: md, json)");
  bad(["list", "--yes"], "sessions list takes no --yes");
  bad(["show", ID, "-C"], "-C needs a value");
  bad(["list", "--json\u001b[2J"], "unknown option for sessions: --json\ufffd[2J");
  expect(parseSessionsArgs(["show", "--help"])).toMatchObject({ help: true });
  expect(parseSessionsArgs(["-C", "/x", "show", "3f9a1c"])).toMatchObject({
    command: "show",
    ids: ["3f9a1c"],
    cwd: "/x",
  });
});

test("fork: a new session whose header names its parent and holds the parent's view, not its file", () => {
  const where = place();
  const parent = SessionLog.create(where);
  for (const message of [...ROUND, ROUND[0], ROUND[3]] as Message[]) parent.append(message);
  parent.compact({
    summary: "<compacted-history>x</compacted-history>",
    kept: 2,
    tokens: { before: 9, after: 3 },
  });
  parent.close();
  const parentText = readFileSync(parent.path, "utf8");
  const view = readLog(readFileSync(parent.path), parent.id).messages;
  const fork = SessionLog.fork(where, undefined);
  expect(fork.id).not.toBe(parent.id);
  expect(fork.parent).toEqual({ id: parent.id, seq: 7 });
  expect(fork.messages()).toEqual(view);
  fork.append({ role: "user", content: "a new way" });
  fork.close();
  const written = lines(fork.path);
  expect(JSON.parse(written[0] ?? "")).toMatchObject({
    parent: { id: parent.id, seq: 7 },
    by: "agent-code day-7-challenges",
  });
  // The summary is a message of the fork: 3 of the view and the new prompt, not the parent's 6.
  const read = readLog(readFileSync(fork.path), fork.id);
  expect(read.messages).toEqual([...view, { role: "user", content: "a new way" }]);
  expect(read.header.parent).toEqual({ id: parent.id, seq: 7 });
  expect(verify(readFileSync(fork.path), fork.id).problems).toEqual([]);
  expect(readFileSync(parent.path, "utf8")).toBe(parentText);
});

test("fork of a session with an unanswered call answers it in the fork, and leaves the parent as it was", () => {
  const where = place();
  const path = plant(where, [ROUND[0] as Turn, ROUND[1] as Turn]);
  const before = readFileSync(path, "utf8");
  const fork = SessionLog.fork(where, ID);
  fork.append({ role: "user", content: "go on" });
  fork.close();
  expect(readLog(readFileSync(fork.path), fork.id).records[2]).toMatchObject({
    repair: "interrupted",
  });
  expect(readFileSync(path, "utf8")).toBe(before);
});

test("a log with a compact record: check passes it, show prints the compacted line, export marks the place", async () => {
  const where = place();
  const log = SessionLog.create(where);
  for (const message of [...ROUND, ROUND[0], ROUND[3]] as Message[]) log.append(message);
  log.compact({
    summary: "<compacted-history>x</compacted-history>",
    kept: 2,
    tokens: { before: 900, after: 300 },
  });
  log.append({ role: "user", content: "and then?" });
  log.close();
  expect((await run(where, ["check", log.id])).out).toEqual([
    `${log.id}: ok (7 messages, 9 records)`,
  ]);
  const shown = (await run(where, ["show", log.id])).out;
  expect(shown.slice(-2)).toEqual([
    "compacted: 6 messages (about 900 tokens) into 2 (about 300 tokens)",
    "prompt: and then?",
  ]);
  const md = (await run(where, ["export", log.id])).out;
  const mark = md.indexOf(
    "*Compacted here: the conversation went on from a summary and the newest rounds.*",
  );
  expect(mark).toBeGreaterThan(md.lastIndexOf("It says: buy milk."));
  expect(md.slice(mark)).toContain("and then?");
  // The list counts the messages, not the compact record.
  expect((await run(where, ["list"])).out[0]).toMatch(/ {2}7 messages {2}"and then\?"$/);
});

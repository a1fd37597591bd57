import { spawnSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import {
  chainHash,
  projectKey as kitProjectKey,
  makeSessionLog,
  plantLock,
} from "@agent-code/test-kit";
import { expect, test } from "vitest";
import type { Message } from "../src/model.ts";
import {
  newSessionId,
  projectKey,
  readLog,
  SESSION_ID,
  SessionLog,
  sessionsFolder,
} from "../src/session.ts";

const ID = "20261201-181502-3f9a1c";
const posix = process.platform !== "win32";

// A home folder and a work folder of their own, in a fresh temporary folder.
function place(name = "app") {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "session-")));
  const cwd = join(dir, name);
  mkdirSync(cwd);
  return { dir, home: join(dir, "home"), cwd };
}

type Turn = Message & { role: "user" | "assistant" };

// A log planted as the test-kit writes one, in the work folder's sessions folder.
function plant(where: { home: string; cwd: string }, messages: Turn[], id = ID): string {
  const folder = sessionsFolder(where.home, where.cwd);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const file = join(folder, `${id}.jsonl`);
  writeFileSync(file, makeSessionLog({ id, cwd: realpathSync(where.cwd), messages }), {
    mode: 0o600,
  });
  return file;
}

const prompt = (text: string): Turn => ({ role: "user", content: text });
const answer = (text: string): Turn => ({
  role: "assistant",
  content: [{ type: "text", text }],
});
const call = (id: string): Turn => ({
  role: "assistant",
  content: [{ type: "tool_use", id, name: "bash", input: { command: "sleep 30" } }],
});

function lines(file: string): string[] {
  return readFileSync(file, "utf8").split("\n").slice(0, -1);
}

// Every line's prev is the test-kit's hash of the line before it, and seq counts from 0.
function chained(file: string): boolean {
  return lines(file).every((line, index, all) => {
    const record = JSON.parse(line) as { seq: number; prev: string | null };
    const before = all[index - 1];
    return (
      record.seq === index && record.prev === (before === undefined ? null : chainHash(before))
    );
  });
}

test("an id is the UTC time it began and six hex digits, and names sort by time", () => {
  const id = newSessionId(new Date("2026-12-01T18:15:02.999Z"), Buffer.from([0x3f, 0x9a, 0x1c]));
  expect(id).toBe(ID);
  expect(SESSION_ID.test(newSessionId())).toBe(true);
  for (const bad of ["../x", "/etc/passwd", `${ID}/..`, `${ID}.jsonl`, "3F9A1C", ""]) {
    expect(SESSION_ID.test(bad)).toBe(false);
  }
});

test("a project's key is the test-kit's, byte for byte, and two folders of one name differ", () => {
  const { dir } = place();
  const names = ["app", "My Project (copy)", "--x--", "ü", "a".repeat(60), "a.b_c-d"];
  for (const name of names) {
    const cwd = join(dir, "k", name);
    mkdirSync(cwd, { recursive: true });
    expect(projectKey(cwd)).toBe(kitProjectKey(cwd));
  }
  expect(projectKey(join(dir, "k", "ü"))).toMatch(/^project-[0-9a-f]{12}$/);
  expect(projectKey(join(dir, "k", "My Project (copy)"))).toMatch(/^my-project-copy-[0-9a-f]{12}$/);
  // Through a symlink the key is the real folder's.
  symlinkSync(join(dir, "k", "app"), join(dir, "link"));
  expect(projectKey(join(dir, "link"))).toBe(projectKey(join(dir, "k", "app")));
  mkdirSync(join(dir, "other", "app"), { recursive: true });
  expect(projectKey(join(dir, "other", "app"))).not.toBe(projectKey(join(dir, "k", "app")));
});

test("a new session writes its header at the first message, each line chained to the one before", () => {
  const where = place();
  const log = SessionLog.create(where);
  // The folders exist at once; the log only once there is something in it.
  expect(existsSync(log.path)).toBe(false);
  log.append(prompt("read notes.txt"));
  log.append(call("toolu_1"), {
    stop: "tool_use",
    usage: { input_tokens: 812, output_tokens: 40 },
  });
  log.finish();
  log.close();
  const [header, first, second] = lines(log.path).map((line) => JSON.parse(line));
  expect(header).toEqual({
    seq: 0,
    type: "session",
    v: 1,
    id: log.id,
    cwd: realpathSync(where.cwd),
    created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    by: "agent-code day-7-challenges",
    prev: null,
  });
  expect(Object.keys(second)).toEqual(["seq", "type", "time", "message", "stop", "usage", "prev"]);
  expect(first.message).toEqual(prompt("read notes.txt"));
  expect(chained(log.path)).toBe(true);
  expect(log.path).toBe(join(sessionsFolder(where.home, where.cwd), `${log.id}.jsonl`));
});

test.runIf(posix)(
  "folders are 0700 and the log 0600, and a wider log is made private again",
  () => {
    const where = place();
    const log = SessionLog.create(where);
    log.append(prompt("hi"));
    log.close();
    const key = projectKey(where.cwd);
    for (const folder of ["projects", `projects/${key}`, `projects/${key}/sessions`]) {
      expect(statSync(join(where.home, folder)).mode & 0o777).toBe(0o700);
    }
    expect(statSync(log.path).mode & 0o777).toBe(0o600);
    spawnSync("chmod", ["0644", log.path]);
    SessionLog.open(where, log.id).close();
    expect(statSync(log.path).mode & 0o777).toBe(0o600);
  },
);

test("a log the test-kit wrote resumes with its messages, and what is appended continues its chain", () => {
  const where = place();
  const file = plant(where, [prompt("one"), answer("two")]);
  const log = SessionLog.open(where, ID);
  expect(log.resumed).toBe(true);
  expect(log.notes).toEqual([]);
  expect(log.messages()).toEqual([prompt("one"), answer("two")]);
  log.append(prompt("three"));
  log.close();
  expect(lines(file)).toHaveLength(4);
  expect(chained(file)).toBe(true);
  expect(SessionLog.open(where, ID).messages()).toHaveLength(3);
});

test("a torn last line is dropped with a note, and cut off before the next record", () => {
  const where = place();
  const file = plant(where, [prompt("one"), answer("two")]);
  const whole = readFileSync(file, "utf8");
  appendFileSync(file, '{"seq":3,"type":"mess');
  const log = SessionLog.open(where, ID);
  expect(log.notes).toEqual([`note: session ${ID}: dropped an unfinished last line (21 bytes)`]);
  expect(readFileSync(file, "utf8")).toBe(whole);
  log.append(prompt("three"));
  log.close();
  expect(chained(file)).toBe(true);
  const again = SessionLog.open(where, ID);
  expect(again.notes).toEqual([]);
  expect(again.messages().at(-1)).toEqual(prompt("three"));
  again.close();
});

test("a whole last line that lost its newline is kept, and the next record starts a line", () => {
  const where = place();
  const file = plant(where, [prompt("one"), answer("two")]);
  writeFileSync(file, readFileSync(file, "utf8").slice(0, -1));
  const log = SessionLog.open(where, ID);
  expect(log.messages()).toHaveLength(2);
  log.append(prompt("three"));
  log.close();
  expect(chained(file)).toBe(true);
});

test("an edited, missing or unreadable line is refused by its number", () => {
  const where = place();
  const messages = [prompt("one"), answer("two"), prompt("three"), answer("four")];
  const file = plant(where, messages);
  const good = lines(file);
  const refused = (text: string[]) => {
    writeFileSync(file, `${text.join("\n")}\n`);
    return () => SessionLog.open(where, ID);
  };
  const edited = [...good];
  edited[1] = (edited[1] ?? "").replace('"one"', '"One"');
  expect(refused(edited)).toThrow(
    `session ${ID}: line 3 does not follow line 2 (edited or damaged); it was not resumed`,
  );
  expect(refused([...good.slice(0, 2), ...good.slice(3)])).toThrow(
    `session ${ID}: line 3 does not follow line 2 (edited or damaged); it was not resumed`,
  );
  expect(refused([good[0] ?? "", "not json", ...good.slice(2)])).toThrow(
    `session ${ID}: line 2 is not a record (edited or damaged); it was not resumed`,
  );
  // Nothing resumed is nothing locked: the lock of a refused session is gone.
  expect(readdirSync(sessionsFolder(where.home, where.cwd))).toEqual([`${ID}.jsonl`]);
});

test("a message line that is JSON but not a message is refused, not a traceback", () => {
  const where = place();
  const file = plant(where, [prompt("one")]);
  const [header] = lines(file);
  const record = { seq: 1, type: "message", time: "x", message: {}, prev: chainHash(header ?? "") };
  writeFileSync(file, `${header}\n${JSON.stringify(record)}\n`);
  expect(() => SessionLog.open(where, ID)).toThrow(
    `session ${ID}: line 2 is not a message (edited or damaged); it was not resumed`,
  );
});

test("a log written by a newer agent-code is refused; a record type it does not know is skipped", () => {
  const where = place();
  const file = plant(where, [prompt("one")]);
  const [header, first] = lines(file);
  const later = JSON.stringify({ seq: 2, type: "todos", items: [], prev: chainHash(first ?? "") });
  appendFileSync(file, `${later}\n`);
  expect(readLog(readFileSync(file), ID).records.map((record) => record.type)).toEqual([
    "message",
    "todos",
  ]);
  const log = SessionLog.open(where, ID);
  expect(log.messages()).toEqual([prompt("one")]);
  log.append(answer("two"));
  log.close();
  expect(chained(file)).toBe(true);

  const newer = (header ?? "").replace('"v":1', '"v":2');
  writeFileSync(file, `${newer}\n`);
  expect(() => SessionLog.open(where, ID)).toThrow(
    `session ${ID} was written by a newer agent-code (format 2)`,
  );
});

test("a call without a result is answered once, as interrupted, when the log is opened", () => {
  const where = place();
  const file = plant(where, [prompt("wait"), call("toolu_1")]);
  const log = SessionLog.open(where, ID);
  expect(log.notes).toEqual([
    `note: session ${ID}: 1 call had no result; recorded it as interrupted`,
  ]);
  log.close();
  const last = JSON.parse(lines(file).at(-1) ?? "");
  expect(last).toMatchObject({
    seq: 3,
    repair: "interrupted",
    message: {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_1",
          content:
            "not run: agent-code stopped before this call finished (interrupted); check what it did before you repeat it",
          is_error: true,
        },
      ],
    },
  });
  const again = SessionLog.open(where, ID);
  expect(again.notes).toEqual([]);
  again.close();
  expect(lines(file)).toHaveLength(4);
  expect(chained(file)).toBe(true);
});

test("a session open in a live agent-code is refused; a dead one's lock is taken over", () => {
  const where = place();
  plant(where, [prompt("one")]);
  const lock = join(sessionsFolder(where.home, where.cwd), `${ID}.lock`);
  writeFileSync(lock, plantLock(process.pid, hostname(), new Date("2026-12-01T18:15:02.123Z")));
  expect(() => SessionLog.open(where, ID)).toThrow(
    `session ${ID} is open in another agent-code (pid ${process.pid}, since 18:15:02); wait for it to end, or start a new session`,
  );
  // The live lock is left as it was.
  expect(readFileSync(lock, "utf8")).toContain(`"pid":${process.pid}`);

  const ended = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  const dead = Number(ended.stdout.toString());
  writeFileSync(lock, plantLock(dead, hostname()));
  const log = SessionLog.open(where, ID);
  expect(log.notes).toEqual([
    `note: session ${ID}: took over the lock of agent-code pid ${dead}, which has ended`,
  ]);
  expect(JSON.parse(readFileSync(lock, "utf8"))).toMatchObject({ pid: process.pid });
  log.close();
  expect(existsSync(lock)).toBe(false);

  // A lock from another machine cannot be checked: it counts as live.
  writeFileSync(lock, plantLock(dead, `not-${hostname()}`));
  expect(() => SessionLog.open(where, ID)).toThrow("is open in another agent-code");
});

test.runIf(posix)(
  "a symlinked sessions folder is refused, and nothing is written where it points",
  () => {
    const where = place();
    const key = projectKey(where.cwd);
    const elsewhere = join(where.dir, "elsewhere");
    mkdirSync(elsewhere);
    mkdirSync(join(where.home, "projects", key), { recursive: true });
    symlinkSync(elsewhere, join(where.home, "projects", key, "sessions"));
    const message = `${join(where.home, "projects", key, "sessions")} is a symlink; agent-code keeps sessions only in real folders`;
    expect(() => SessionLog.create(where)).toThrow(message);
    expect(() => SessionLog.latest(where)).toThrow(message);
    expect(() => SessionLog.open(where, ID)).toThrow(message);
    expect(readdirSync(elsewhere)).toEqual([]);
  },
);

test.runIf(posix)("a log that is a symlink is not opened", () => {
  const where = place();
  const file = plant(where, [prompt("one")]);
  const target = join(where.dir, "target.jsonl");
  writeFileSync(target, readFileSync(file));
  spawnSync("rm", [file]);
  symlinkSync(target, file);
  expect(() => SessionLog.open(where, ID)).toThrow("is a symlink; not opened");
});

test("-c finds the session written to last; with none, it says so and makes nothing", () => {
  const where = place();
  expect(() => SessionLog.latest(where)).toThrow(`no session to continue in ${where.cwd}`);
  expect(existsSync(where.home)).toBe(false);
  const older = plant(where, [prompt("older")], "20261201-181502-aaaaaa");
  const newer = plant(where, [prompt("newer")], "20261130-090000-bbbbbb");
  utimesSync(older, new Date("2026-12-01T00:00:00Z"), new Date("2026-12-01T00:00:00Z"));
  utimesSync(newer, new Date("2026-12-02T00:00:00Z"), new Date("2026-12-02T00:00:00Z"));
  const log = SessionLog.latest(where);
  expect(log.id).toBe("20261130-090000-bbbbbb");
  log.close();
});

test("--resume takes the 6 hex digits when they name one session here, and finds an id moved away", () => {
  const where = place();
  plant(where, [prompt("one")]);
  const short = SessionLog.open(where, "3f9a1c");
  expect(short.id).toBe(ID);
  short.close();
  plant(where, [prompt("two")], "20261202-000000-3f9a1c");
  expect(() => SessionLog.open(where, "3f9a1c")).toThrow(
    "--resume: 3f9a1c names 2 sessions here; give the whole id",
  );
  expect(() => SessionLog.open(where, "abcdef")).toThrow("no session abcdef");
  expect(() => SessionLog.open(where, "20261201-181502-000000")).toThrow(
    "no session 20261201-181502-000000",
  );

  // The project moved: its sessions are under the old key, and a whole id still finds them.
  const moved = join(where.dir, "moved");
  mkdirSync(moved);
  const log = SessionLog.open({ home: where.home, cwd: moved }, ID);
  expect(log.notes).toEqual([
    `note: session ${ID} began in ${realpathSync(where.cwd)}; it goes on in ${realpathSync(moved)}`,
  ]);
  expect(log.messages()).toEqual([prompt("one")]);
  log.close();
  expect(existsSync(join(where.home, "projects", projectKey(moved)))).toBe(false);
});

test("readLog reads a generated log of 1,000 messages whole", () => {
  const messages = Array.from({ length: 1000 }, (_, index) =>
    index % 2 === 0 ? prompt(`p${index}`) : answer(`a${index}`),
  );
  const bytes = Buffer.from(makeSessionLog({ id: ID, cwd: "/x", messages }));
  const contents = readLog(bytes, ID);
  expect(contents.messages).toEqual(messages);
  expect(contents.seq).toBe(1000);
  expect(contents.length).toBe(bytes.length);
});

// The session logs the Day 6 scenarios plant: a chain a reader can check line by line, a key that
// depends on the real path, and ids checked before any path is built.
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import {
  chainHash,
  makeSessionLog,
  plantLock,
  projectKey,
  SESSION_ID,
  sessionPath,
} from "../src/sessions.ts";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "sessions-")));

test("a log of two messages: a header, then one record a message, each chained to the line before", () => {
  const text = makeSessionLog({
    id: "20261201-181502-3f9a1c",
    cwd: "/home/me/app",
    messages: [
      { role: "user", content: "read notes.txt" },
      { role: "assistant", content: [{ type: "text", text: "done" }] },
    ],
  });
  expect(text.endsWith("\n")).toBe(true);
  const lines = text.slice(0, -1).split("\n");
  const records = lines.map((line) => JSON.parse(line));
  expect(records.map((record) => [record.seq, record.type])).toEqual([
    [0, "session"],
    [1, "message"],
    [2, "message"],
  ]);
  expect(records[0]).toMatchObject({
    v: 1,
    id: "20261201-181502-3f9a1c",
    cwd: "/home/me/app",
    prev: null,
  });
  expect(records[2].message).toEqual({
    role: "assistant",
    content: [{ type: "text", text: "done" }],
  });
  // Each prev is the hash of the line before it, exactly as written.
  expect(records[1].prev).toBe(chainHash(lines[0] ?? ""));
  expect(records[2].prev).toBe(chainHash(lines[1] ?? ""));
  expect(records[1].prev).toMatch(/^[0-9a-f]{16}$/);
  // One byte changed in line 1 breaks the link from line 2.
  expect(chainHash((lines[1] ?? "").replace("notes", "nites"))).not.toBe(records[2].prev);
  expect(records[1].time < records[2].time).toBe(true);
});

test("an id that is not one is refused before anything is built", () => {
  for (const id of ["../x", "20261201-181502-3F9A1C", "20261201-181502-3f9a1c/..", ""]) {
    expect(SESSION_ID.test(id)).toBe(false);
    expect(() => makeSessionLog({ id, cwd: "/", messages: [] })).toThrow("not a session id");
  }
});

test("a project's key: its folder's name made safe, and a hash of its real path", () => {
  const plain = join(dir, "My App (copy)");
  mkdirSync(plain);
  expect(projectKey(plain)).toMatch(/^my-app-copy-[0-9a-f]{12}$/);
  // A link to the folder is the same project; another folder of the same name is not.
  symlinkSync(plain, join(dir, "link"));
  expect(projectKey(join(dir, "link"))).toBe(projectKey(plain));
  mkdirSync(join(dir, "other"));
  mkdirSync(join(dir, "other", "My App (copy)"));
  expect(projectKey(join(dir, "other", "My App (copy)"))).not.toBe(projectKey(plain));
  const long = join(dir, "x".repeat(60));
  mkdirSync(long);
  expect(projectKey(long)).toMatch(/^x{40}-[0-9a-f]{12}$/);
  expect(sessionPath(plain, "20261201-181502-3f9a1c")).toBe(
    `projects/${projectKey(plain)}/sessions/20261201-181502-3f9a1c.jsonl`,
  );
});

test("a lock names the process that holds it", () => {
  const started = new Date("2026-12-01T18:15:02.000Z");
  expect(JSON.parse(plantLock(process.pid, hostname(), started))).toEqual({
    pid: process.pid,
    host: hostname(),
    started: "2026-12-01T18:15:02.000Z",
  });
});

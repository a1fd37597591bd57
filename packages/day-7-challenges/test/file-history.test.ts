// Backups: where they go, what they hold, how many stay, and that a failed one stops the write.
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeEach, expect, test } from "vitest";
import type { Ui } from "../src/diff-ui.ts";
import { agentOwned, backup, prune, stamp } from "../src/file-history.ts";
import { ReadState } from "../src/fs-safety.ts";
import { defaultTools, type ToolContext } from "../src/tools/index.ts";

const base = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-code-history-")));
const work = path.join(base, "work");
const history = path.join(work, ".agent", "history");
afterAll(() => rmSync(base, { recursive: true, force: true }));

beforeEach(() => {
  rmSync(base, { recursive: true, force: true });
  mkdirSync(path.join(work, "src"), { recursive: true });
  writeFileSync(path.join(work, "src", "a.txt"), "old\n");
});

const yes: Ui = {
  colour: false,
  print: () => {},
  confirm: async () => true,
  choose: async () => ({ kind: "skipped" }),
};
const no: Ui = { ...yes, confirm: async () => false };

function context(ui: Ui): ToolContext {
  return { cwd: work, readState: new ReadState(), signal: new AbortController().signal, ui };
}

async function call(name: string, args: Record<string, unknown>, ctx: ToolContext) {
  const result = await defaultTools().run({ id: "toolu_1", name, arguments: args }, ctx);
  return { text: result.content, isError: result.isError };
}

const copies = (rel: string) => readdirSync(path.join(history, rel)).sort();

test("stamp: UTC, to the millisecond, in an order names sort by", () => {
  expect(stamp(new Date(Date.UTC(2026, 11, 1, 8, 5, 9, 7)))).toBe("20261201T080509.007Z");
});

test.each([
  [".agent/history", true],
  [".agent/history/a.txt/1", true],
  [".Agent/History/a.txt", true],
  [".agent/historyx", false],
  [".agent/.gitignore", true],
  [".Agent/.GitIgnore", true],
  [".agent/.gitignore.bak", false],
  ["src/.agent/history/a", false],
])("agentOwned(%j) is %s", (rel, expected) => {
  expect(agentOwned(rel)).toBe(expected);
});

test("an edit after a yes: one backup holding the old bytes, and a .gitignore for .agent", async () => {
  const ctx = context(yes);
  await call("read_file", { path: "src/a.txt" }, ctx);
  expect(
    (await call("file_edit", { file_path: "src/a.txt", old_string: "old", new_string: "new" }, ctx))
      .text,
  ).toBe("Edited src/a.txt: 1 replacement");
  const [copy, ...rest] = copies("src/a.txt");
  expect(rest).toEqual([]);
  expect(copy).toMatch(/^\d{8}T\d{6}\.\d{3}Z$/);
  expect(readFileSync(path.join(history, "src/a.txt", copy as string), "utf8")).toBe("old\n");
  expect(readFileSync(path.join(work, ".agent", ".gitignore"), "utf8")).toBe("*\n");
});

test("no backup after a no, and none for a new file", async () => {
  const ctx = context(no);
  await call("read_file", { path: "src/a.txt" }, ctx);
  await call("file_write", { file_path: "src/a.txt", content: "x\n" }, ctx);
  await call("file_write", { file_path: "new.txt", content: "x\n" }, { ...ctx, ui: yes });
  expect(readFileSync(path.join(work, "new.txt"), "utf8")).toBe("x\n");
  expect(readdirSync(work).sort()).toEqual(["new.txt", "src"]);
});

test("two backups in the same millisecond get -1; the newest 20 are kept", async () => {
  const now = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6));
  const first = await backup(work, "src/a.txt", Buffer.from("1"), now);
  const second = await backup(work, "src/a.txt", Buffer.from("2"), now);
  expect(path.basename(first)).toBe("20260102T030405.006Z");
  expect(path.basename(second)).toBe("20260102T030405.006Z-1");
  for (let n = 0; n < 25; n++) {
    await backup(
      work,
      "src/a.txt",
      Buffer.from(String(n)),
      new Date(Date.UTC(2026, 0, 3, 0, 0, n)),
    );
  }
  const kept = copies("src/a.txt");
  expect(kept).toHaveLength(20);
  expect(kept[0]).toBe("20260103T000005.000Z");
  expect(kept.at(-1)).toBe("20260103T000024.000Z");
  expect(await prune(path.join(history, "src/a.txt"), 19)).toEqual(["20260103T000005.000Z"]);
});

test("tools cannot write into the history", async () => {
  await backup(work, "src/a.txt", Buffer.from("old\n"));
  const [copy] = copies("src/a.txt");
  const ctx = context(yes);
  const target = `.agent/history/src/a.txt/${copy}`;
  await call("read_file", { path: target }, ctx);
  expect(await call("file_write", { file_path: target, content: "forged\n" }, ctx)).toEqual({
    text: "refusing to change agent-code's backups",
    isError: true,
  });
  expect(
    (await call("file_edit", { file_path: target, old_string: "old", new_string: "x" }, ctx)).text,
  ).toBe("refusing to change agent-code's backups");
  expect(readFileSync(path.join(work, target), "utf8")).toBe("old\n");
  await call("read_file", { path: ".agent/.gitignore" }, ctx);
  expect(
    await call("file_write", { file_path: ".agent/.gitignore", content: "!*\n" }, ctx),
  ).toEqual({ text: "refusing to change agent-code's backups", isError: true });
  expect(readFileSync(path.join(work, ".agent", ".gitignore"), "utf8")).toBe("*\n");
});

test("a backup that fails stops the write", async () => {
  // A file where the history folder should be: no folder can be made below it.
  mkdirSync(path.join(work, ".agent"));
  writeFileSync(path.join(work, ".agent", "history"), "in the way\n");
  const ctx = context(yes);
  await call("read_file", { path: "src/a.txt" }, ctx);
  const result = await call("file_write", { file_path: "src/a.txt", content: "new\n" }, ctx);
  expect(result.isError).toBe(true);
  expect(result.text).toMatch(/^could not back up src\/a\.txt: .+; nothing was written$/);
  expect(readFileSync(path.join(work, "src", "a.txt"), "utf8")).toBe("old\n");
});

test.skipIf(process.platform === "win32")(
  "a .agent symlink that leads out is not followed: the backup fails, nothing is written",
  async () => {
    mkdirSync(path.join(base, "elsewhere"));
    symlinkSync(path.join(base, "elsewhere"), path.join(work, ".agent"));
    const ctx = context(yes);
    await call("read_file", { path: "src/a.txt" }, ctx);
    const result = await call("file_write", { file_path: "src/a.txt", content: "new\n" }, ctx);
    expect(result.text).toBe(
      "could not back up src/a.txt: symlink not followed: .agent; nothing was written",
    );
    expect(readdirSync(path.join(base, "elsewhere"))).toEqual([]);
    expect(readFileSync(path.join(work, "src", "a.txt"), "utf8")).toBe("old\n");
  },
);

test.skipIf(process.platform === "win32")(
  "a history folder planted as a symlink into the project is not followed: src keeps its files",
  async () => {
    // Twenty files in src that sort before any stamp: a prune there would delete the oldest.
    const names = Array.from({ length: 20 }, (_, n) => `${String(n).padStart(2, "0")}.txt`);
    for (const name of names) writeFileSync(path.join(work, "src", name), `${name}\n`);
    writeFileSync(path.join(work, "a.txt"), "mine\n");
    mkdirSync(history, { recursive: true });
    symlinkSync("../../src", path.join(history, "a.txt"));
    const ctx = context(yes);
    await call("read_file", { path: "a.txt" }, ctx);
    for (const content of ["one\n", "two\n"]) {
      expect(await call("file_write", { file_path: "a.txt", content }, ctx)).toEqual({
        text: "could not back up a.txt: symlink not followed: .agent/history/a.txt; nothing was written",
        isError: true,
      });
    }
    expect(readdirSync(path.join(work, "src")).sort()).toEqual([...names, "a.txt"].sort());
    expect(readFileSync(path.join(work, "a.txt"), "utf8")).toBe("mine\n");
  },
);

test.skipIf(process.platform === "win32")(
  "a .agent symlink into the project is not followed: no .gitignore and no history land there",
  async () => {
    mkdirSync(path.join(work, "docs"));
    symlinkSync("docs", path.join(work, ".agent"));
    const ctx = context(yes);
    await call("read_file", { path: "src/a.txt" }, ctx);
    expect((await call("file_write", { file_path: "src/a.txt", content: "new\n" }, ctx)).text).toBe(
      "could not back up src/a.txt: symlink not followed: .agent; nothing was written",
    );
    expect(readdirSync(path.join(work, "docs"))).toEqual([]);
  },
);

test.skipIf(process.platform === "win32")(
  "prune removes old copies only: a symlink's target and a folder in the history stay",
  async () => {
    const folder = path.join(history, "src/a.txt");
    mkdirSync(path.join(folder, "20200101T000000.000Z-dir"), { recursive: true });
    writeFileSync(path.join(work, "src", "keep.txt"), "keep\n");
    symlinkSync("../../../../src/keep.txt", path.join(folder, "20200101T000000.000Z-link"));
    writeFileSync(path.join(folder, "20200101T000001.000Z"), "copy\n");
    expect(await prune(folder, 0)).toEqual(["20200101T000001.000Z"]);
    expect(readdirSync(folder).sort()).toEqual([
      "20200101T000000.000Z-dir",
      "20200101T000000.000Z-link",
    ]);
    expect(lstatSync(path.join(folder, "20200101T000000.000Z-link")).isSymbolicLink()).toBe(true);
    expect(readFileSync(path.join(work, "src", "keep.txt"), "utf8")).toBe("keep\n");
  },
);

// file_write through the registry, with a scripted person: what is checked before anything is
// shown, what is shown, what a yes and a no leave on disk, and how the write itself behaves.
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeEach, expect, test } from "vitest";
import type { Ui } from "../src/diff-ui.ts";
import { ReadState } from "../src/fs-safety.ts";
import { defaultTools, type ToolContext } from "../src/tools.ts";
import { writeAtomic } from "../src/writes.ts";

const base = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-code-writes-")));
const work = path.join(base, "work");
afterAll(() => rmSync(base, { recursive: true, force: true }));

beforeEach(() => {
  rmSync(base, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  writeFileSync(path.join(base, "secret.txt"), "outside\n");
  writeFileSync(path.join(work, "a.txt"), "alpha\n");
});

// A person who answers from a list and remembers everything shown to them.
function person(...answers: boolean[]): Ui & { lines: string[]; questions: string[] } {
  const lines: string[] = [];
  const questions: string[] = [];
  return {
    colour: false,
    lines,
    questions,
    print: (line) => lines.push(line),
    confirm: async (question) => {
      questions.push(question);
      return answers.shift() ?? false;
    },
  };
}

function context(ui: Ui): ToolContext {
  return { cwd: work, readState: new ReadState(), signal: new AbortController().signal, ui };
}

async function call(name: string, args: Record<string, unknown>, ctx: ToolContext) {
  const result = await defaultTools().run({ id: "toolu_1", name, arguments: args }, ctx);
  return { text: result.content, isError: result.isError };
}

const read = (file: string) => readFileSync(path.join(work, file), "utf8");

test("a new file: the diff from /dev/null, the question, and after a yes the file", async () => {
  const ui = person(true);
  const result = await call(
    "file_write",
    { file_path: "new.txt", content: "hello\n" },
    context(ui),
  );
  expect(result).toEqual({ text: "Wrote 6 chars to new.txt", isError: false });
  expect(ui.lines).toEqual([
    "Diff for new.txt:",
    "--- /dev/null",
    "+++ b/new.txt",
    "@@ -0,0 +1,1 @@",
    "+hello",
  ]);
  expect(ui.questions).toEqual(["Apply this change to new.txt?"]);
  expect(read("new.txt")).toBe("hello\n");
});

test("a no leaves the disk as it was and says so, as a refusal", async () => {
  const ui = person(false);
  const result = await call(
    "file_write",
    { file_path: "new.txt", content: "hello\n" },
    context(ui),
  );
  expect(result).toEqual({
    text: "the user rejected this change; new.txt was not changed",
    isError: true,
  });
  expect(readdirSync(work).sort()).toEqual(["a.txt"]);
});

test("an existing file not read in this run: refused before anything is shown", async () => {
  const ui = person(true);
  const result = await call("file_write", { file_path: "a.txt", content: "x\n" }, context(ui));
  expect(result).toEqual({
    text: "file has not been read yet: a.txt (read it with read_file first)",
    isError: true,
  });
  expect(ui.lines).toEqual([]);
  expect(ui.questions).toEqual([]);
  expect(read("a.txt")).toBe("alpha\n");
});

test("read, changed by someone else, then written: refused; a touch alone is no change", async () => {
  const ctx = context(person(true, true));
  await call("read_file", { path: "a.txt" }, ctx);
  // Only the clock moves: the bytes decide, so this is no conflict.
  const later = new Date(Date.now() + 60_000);
  const { utimesSync } = await import("node:fs");
  utimesSync(path.join(work, "a.txt"), later, later);
  expect(await call("file_write", { file_path: "a.txt", content: "one\n" }, ctx)).toEqual({
    text: "Wrote 4 chars to a.txt",
    isError: false,
  });
  // What this run wrote it knows: a second write needs no second read.
  expect((await call("file_write", { file_path: "a.txt", content: "two\n" }, ctx)).text).toBe(
    "Wrote 4 chars to a.txt",
  );
  writeFileSync(path.join(work, "a.txt"), "someone else\n");
  const ui = person(true);
  expect(
    await call("file_write", { file_path: "a.txt", content: "three\n" }, { ...ctx, ui }),
  ).toEqual({
    text: "file changed since it was read: a.txt (read it again first)",
    isError: true,
  });
  expect(ui.questions).toEqual([]);
  expect(read("a.txt")).toBe("someone else\n");
});

test("a change made while the person decides is not overwritten", async () => {
  const ctx = context(person());
  await call("read_file", { path: "a.txt" }, ctx);
  const ui: Ui = {
    ...person(),
    confirm: async () => {
      writeFileSync(path.join(work, "a.txt"), "typed meanwhile\n");
      return true;
    },
  };
  const result = await call("file_write", { file_path: "a.txt", content: "x\n" }, { ...ctx, ui });
  expect(result.text).toBe("file changed since it was read: a.txt (read it again first)");
  expect(read("a.txt")).toBe("typed meanwhile\n");
});

test("the same content: nothing written and nothing asked", async () => {
  const ui = person(true);
  const ctx = context(ui);
  await call("read_file", { path: "a.txt" }, ctx);
  const before = statSync(path.join(work, "a.txt")).ino;
  expect(await call("file_write", { file_path: "a.txt", content: "alpha\n" }, ctx)).toEqual({
    text: "a.txt already has this content; nothing written",
    isError: false,
  });
  expect(ui.questions).toEqual([]);
  expect(statSync(path.join(work, "a.txt")).ino).toBe(before);
});

test.each([
  ["../secret.txt", "path escapes the working directory: ../secret.txt"],
  ["../new.txt", "path escapes the working directory: ../new.txt"],
  ["", "path must not be empty"],
])("file_write %j is refused without a question", async (file, text) => {
  const ui = person(true);
  expect(await call("file_write", { file_path: file, content: "x\n" }, context(ui))).toEqual({
    text,
    isError: true,
  });
  expect(ui.questions).toEqual([]);
  expect(readFileSync(path.join(base, "secret.txt"), "utf8")).toBe("outside\n");
  expect(readdirSync(base).sort()).toEqual(["secret.txt", "work"]);
});

test.skipIf(process.platform === "win32")(
  "symlinks: one leading out is refused, one inside writes its target and stays a link",
  async () => {
    symlinkSync("../secret.txt", path.join(work, "out.txt"));
    symlinkSync("a.txt", path.join(work, "in.txt"));
    const ctx = context(person(true, true));
    expect((await call("file_write", { file_path: "out.txt", content: "x\n" }, ctx)).text).toBe(
      "path escapes the working directory through a symlink: out.txt",
    );
    await call("read_file", { path: "in.txt" }, ctx);
    expect(
      (await call("file_write", { file_path: "in.txt", content: "via link\n" }, ctx)).text,
    ).toBe("Wrote 9 chars to a.txt");
    expect(read("a.txt")).toBe("via link\n");
    expect(readFileSync(path.join(base, "secret.txt"), "utf8")).toBe("outside\n");
  },
);

test("a folder is not a file, and a file is not a folder to write into", async () => {
  mkdirSync(path.join(work, "sub"));
  const ctx = context(person(true, true));
  expect((await call("file_write", { file_path: "sub", content: "x" }, ctx)).text).toBe(
    "not a file: sub",
  );
  expect((await call("file_write", { file_path: "a.txt/b.txt", content: "x" }, ctx)).text).toBe(
    "not a directory: a.txt/b.txt",
  );
});

test("writeAtomic makes folders, leaves no temporary file and keeps the mode", async () => {
  await writeAtomic(
    path.join(work, "deep", "er", "new.txt"),
    Buffer.from("hi\n"),
    "deep/er/new.txt",
  );
  expect(read("deep/er/new.txt")).toBe("hi\n");
  if (process.platform !== "win32") {
    const script = path.join(work, "run.sh");
    writeFileSync(script, "echo hi\n");
    chmodSync(script, 0o751);
    await writeAtomic(script, Buffer.from("echo bye\n"), "run.sh");
    expect(statSync(script).mode & 0o777).toBe(0o751);
  }
  expect(readdirSync(work).filter((name) => name.endsWith(".tmp"))).toEqual([]);
});

test("writeAtomic replaces the file in one step: an open reader keeps the old bytes", async () => {
  const file = path.join(work, "a.txt");
  const { openSync, readSync, closeSync } = await import("node:fs");
  const fd = openSync(file, "r");
  await writeAtomic(file, Buffer.from("new\n"), "a.txt");
  const buffer = Buffer.alloc(16);
  const length = readSync(fd, buffer, 0, 16, 0);
  closeSync(fd);
  // On POSIX the rename gave the name to a new file; the old one is whole, not half written.
  if (process.platform !== "win32") expect(buffer.subarray(0, length).toString()).toBe("alpha\n");
  expect(read("a.txt")).toBe("new\n");
});

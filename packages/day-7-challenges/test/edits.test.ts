// file_edit through the registry, with a scripted person, and applyEdit on its own.
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeEach, expect, test } from "vitest";
import type { Ui } from "../src/diff-ui.ts";
import { applyEdit, ReadState } from "../src/fs-safety.ts";
import { defaultTools, type ToolContext, ToolError } from "../src/tools/index.ts";

const base = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-code-edits-")));
const work = path.join(base, "work");
afterAll(() => rmSync(base, { recursive: true, force: true }));

beforeEach(() => {
  rmSync(base, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  writeFileSync(path.join(work, "a.txt"), "one\ntwo\none\n");
});

function person(...answers: boolean[]): Ui & { lines: string[]; questions: string[] } {
  const lines: string[] = [];
  const questions: string[] = [];
  return {
    colour: false,
    lines,
    questions,
    print: (line) => lines.push(line),
    choose: async () => ({ kind: "skipped" as const }),
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

const bytes = (file: string) => readFileSync(path.join(work, file));
const text = (file: string) => bytes(file).toString("utf8");

async function readThenEdit(file: string, args: Record<string, unknown>, ui: Ui) {
  const ctx = context(ui);
  await call("read_file", { path: file }, ctx);
  return call("file_edit", { file_path: file, ...args }, ctx);
}

test.each([
  ["", "x", false, "old_string must not be empty"],
  ["two", "two", false, "old_string and new_string are the same"],
  ["three", "3", false, "old_string not found in a.txt"],
  ["one", "1", false, "old_string found 2 times in a.txt; add context or set replace_all"],
])("applyEdit(%j, %j, all=%s) refuses: %s", (oldText, newText, all, message) => {
  expect(() => applyEdit("one\ntwo\none\n", oldText, newText, all, "a.txt")).toThrow(
    new ToolError(message),
  );
});

test("applyEdit replaces one, or all, and takes `$` in the new text as it is", () => {
  expect(applyEdit("one\ntwo\none\n", "two", "$&$&", false, "a.txt")).toEqual({
    text: "one\n$&$&\none\n",
    count: 1,
  });
  expect(applyEdit("one\ntwo\none\n", "one", "1", true, "a.txt")).toEqual({
    text: "1\ntwo\n1\n",
    count: 2,
  });
});

test("a unique edit after a read: the diff, the question, and after a yes the file", async () => {
  const ui = person(true);
  expect(await readThenEdit("a.txt", { old_string: "two", new_string: "2" }, ui)).toEqual({
    text: "Edited a.txt: 1 replacement",
    isError: false,
  });
  expect(ui.lines).toEqual([
    "Diff for a.txt:",
    "--- a/a.txt",
    "+++ b/a.txt",
    "@@ -1,3 +1,3 @@",
    " one",
    "-two",
    "+2",
    " one",
  ]);
  expect(text("a.txt")).toBe("one\n2\none\n");
});

test("replace_all changes every match and counts them", async () => {
  expect(
    await readThenEdit(
      "a.txt",
      { old_string: "one", new_string: "1", replace_all: true },
      person(true),
    ),
  ).toEqual({ text: "Edited a.txt: 2 replacements", isError: false });
  expect(text("a.txt")).toBe("1\ntwo\n1\n");
});

test.each([
  [
    { old_string: "one", new_string: "1" },
    "old_string found 2 times in a.txt; add context or set replace_all",
  ],
  [{ old_string: "nine", new_string: "9" }, "old_string not found in a.txt"],
  [{ old_string: "", new_string: "9" }, "old_string must not be empty"],
])("a refused edit %j asks nothing and changes nothing", async (args, message) => {
  const ui = person(true);
  expect(await readThenEdit("a.txt", args, ui)).toEqual({ text: message, isError: true });
  expect(ui.questions).toEqual([]);
  expect(ui.lines).toEqual([]);
  expect(text("a.txt")).toBe("one\ntwo\none\n");
});

test("not read, missing, or changed since the read: refused before anything is shown", async () => {
  const ui = person(true, true, true);
  const ctx = context(ui);
  expect(
    (await call("file_edit", { file_path: "a.txt", old_string: "two", new_string: "2" }, ctx)).text,
  ).toBe("file has not been read yet: a.txt (read it with read_file first)");
  expect(
    (await call("file_edit", { file_path: "b.txt", old_string: "x", new_string: "y" }, ctx)).text,
  ).toBe("no such file or directory: b.txt");
  await call("read_file", { path: "a.txt" }, ctx);
  writeFileSync(path.join(work, "a.txt"), "one\ntwo\none\nthree\n");
  expect(
    (await call("file_edit", { file_path: "a.txt", old_string: "two", new_string: "2" }, ctx)).text,
  ).toBe("file changed since it was read: a.txt (read it again first)");
  expect(ui.questions).toEqual([]);
  expect(text("a.txt")).toBe("one\ntwo\none\nthree\n");
});

test("a touch is no conflict: only the bytes decide", async () => {
  const ctx = context(person(true));
  await call("read_file", { path: "a.txt" }, ctx);
  const later = new Date(Date.now() + 120_000);
  utimesSync(path.join(work, "a.txt"), later, later);
  expect(
    (await call("file_edit", { file_path: "a.txt", old_string: "two", new_string: "2" }, ctx)).text,
  ).toBe("Edited a.txt: 1 replacement");
});

test("two edits after one read: the first edit's bytes are what the run knows", async () => {
  const ctx = context(person(true, true));
  await call("read_file", { path: "a.txt" }, ctx);
  await call("file_edit", { file_path: "a.txt", old_string: "two", new_string: "2" }, ctx);
  expect(
    (await call("file_edit", { file_path: "a.txt", old_string: "2", new_string: "II" }, ctx)).text,
  ).toBe("Edited a.txt: 1 replacement");
  expect(text("a.txt")).toBe("one\nII\none\n");
});

test("a CRLF file stays CRLF, and a BOM stays, when the model speaks in \\n", async () => {
  writeFileSync(path.join(work, "win.txt"), "\ufeffone\r\ntwo\r\nthree\r\n");
  const ui = person(true);
  expect(
    await readThenEdit("win.txt", { old_string: "one\ntwo\n", new_string: "1\n2\n" }, ui),
  ).toEqual({ text: "Edited win.txt: 1 replacement", isError: false });
  expect(bytes("win.txt")).toEqual(Buffer.from("\ufeff1\r\n2\r\nthree\r\n"));
  // The diff shows lines, not carriage returns.
  expect(ui.lines).toContain("+2");
});

test("a mixed file is matched as it is", async () => {
  writeFileSync(path.join(work, "mixed.txt"), "one\r\ntwo\nthree\n");
  await readThenEdit("mixed.txt", { old_string: "two\n", new_string: "2\n" }, person(true));
  expect(text("mixed.txt")).toBe("one\r\n2\nthree\n");
});

test("a file that is not UTF-8 is not edited", async () => {
  writeFileSync(path.join(work, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  expect(
    await readThenEdit("latin1.txt", { old_string: "caf", new_string: "tea" }, person(true)),
  ).toEqual({ text: "not UTF-8 text: latin1.txt (file_edit changes text only)", isError: true });
});

test("a no leaves the file; a change during the question is kept, not edited", async () => {
  expect(
    (await readThenEdit("a.txt", { old_string: "two", new_string: "2" }, person(false))).text,
  ).toBe("the user rejected this change; a.txt was not changed");
  expect(text("a.txt")).toBe("one\ntwo\none\n");
  const ui: Ui = {
    ...person(),
    choose: async () => ({ kind: "skipped" as const }),
    confirm: async () => {
      writeFileSync(path.join(work, "a.txt"), "one\ntwo\none\nmeanwhile\n");
      return true;
    },
  };
  expect((await readThenEdit("a.txt", { old_string: "two", new_string: "2" }, ui)).text).toBe(
    "file changed since it was read: a.txt (read it again first)",
  );
  expect(text("a.txt")).toBe("one\ntwo\none\nmeanwhile\n");
});

test.each(["a.txt/", "a.txt/.", "sub/../a.txt/"])(
  "file_edit %j names a folder, not a file: refused before anything",
  async (file) => {
    const ui = person(true);
    const ctx = context(ui);
    await call("read_file", { path: "a.txt" }, ctx);
    expect(
      await call("file_edit", { file_path: file, old_string: "two", new_string: "2" }, ctx),
    ).toEqual({ text: `not a file path: ${file} (it must end in a file name)`, isError: true });
    expect(ui.questions).toEqual([]);
    expect(text("a.txt")).toBe("one\ntwo\none\n");
  },
);

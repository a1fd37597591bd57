// The diff the person sees and the question they answer.
import { expect, test } from "vitest";
import {
  forTerminal,
  isYes,
  type LineSource,
  Prompter,
  renderDiff,
  wantsColour,
} from "../src/diff-ui.ts";

test("a changed line with three lines of context, git's a/ and b/ names", () => {
  const before = "1\n2\n3\n4\n5\n6\n7\n8\n";
  const after = "1\n2\n3\n4\nfive\n6\n7\n8\n";
  expect(renderDiff("src/x.txt", before, after, false)).toEqual([
    "--- a/src/x.txt",
    "+++ b/src/x.txt",
    "@@ -2,7 +2,7 @@",
    " 2",
    " 3",
    " 4",
    "-5",
    "+five",
    " 6",
    " 7",
    " 8",
  ]);
});

test("a long diff is cut after 500 lines and says how many more there were", () => {
  const after = Array.from({ length: 600 }, (_, n) => `line ${n}\n`).join("");
  const lines = renderDiff("big.txt", undefined, after, false);
  expect(lines).toHaveLength(501);
  // 3 header lines and 600 added lines: 103 left out.
  expect(lines.at(-1)).toBe("[diff cut: 103 more lines]");
});

test("colour only when asked: green, red, cyan; control characters never reach the screen", () => {
  const plain = renderDiff("a.txt", "old\n", "new\u001b[2K\rsecret\r\n", false);
  expect(plain).toContain("+new\ufffd[2K\ufffdsecret");
  expect(plain.some((line) => line.includes("\u001b") || line.includes("\r"))).toBe(false);
  const coloured = renderDiff("a.txt", "old\n", "new\n", true);
  expect(coloured).toContain("\u001b[32m+new\u001b[39m");
  expect(coloured).toContain("\u001b[31m-old\u001b[39m");
  expect(coloured.some((line) => line.startsWith("\u001b[36m@@"))).toBe(true);
});

test("C1 and bidi controls in the new text never reach the screen either; tabs stay", () => {
  const lines = renderDiff(
    "a.txt",
    "old\n",
    "a\u009b2Jb\u202ec\u2066d\u061ce\u200ff\tg\u0085h\n",
    false,
  );
  expect(lines).toContain("+a\ufffd2Jb\ufffdc\ufffdd\ufffde\ufffdf\tg\ufffdh");
  expect(
    lines.some((line) => /[\u0080-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(line)),
  ).toBe(false);
});

test("forTerminal shows every control character as an escape and leaves the rest as it is", () => {
  expect(forTerminal("src/é 中.txt")).toBe("src/é 中.txt");
  expect(forTerminal("a\u001b[2Jb\tc\nd\re\u007ff\u0000")).toBe(
    "a\\x1b[2Jb\\x09c\\x0ad\\x0de\\x7ff\\x00",
  );
  expect(forTerminal("\u0080\u009b\u009f")).toBe("\\x80\\x9b\\x9f");
  expect(
    forTerminal("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"),
  ).toBe("\\u061c\\u200e\\u200f\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069");
});

test("a name with control characters: the diff's headers quote it as git does, never raw", () => {
  const lines = renderDiff("x\u001b[2J\u202e.txt", "old\n", "new\n", false);
  expect(lines.slice(0, 2)).toEqual([
    '--- "a/x\\033[2J\\342\\200\\256.txt"',
    '+++ "b/x\\033[2J\\342\\200\\256.txt"',
  ]);
});

test.each([
  ["y", true],
  ["YES", true],
  [" Yes ", true],
  ["", false],
  ["n", false],
  ["yep", false],
  [undefined, false],
])("isYes(%j) is %s", (answer, expected) => {
  expect(isYes(answer)).toBe(expected);
});

test.each([
  [{ isTTY: true }, {}, true],
  [{ isTTY: true }, { NO_COLOR: "1" }, false],
  [{ isTTY: true }, { NO_COLOR: "" }, true],
  [{ isTTY: false }, {}, false],
  [{}, {}, false],
])("wantsColour(%j, %j) is %s", (stream, env, expected) => {
  expect(wantsColour(stream, env)).toBe(expected);
});

function lines(...items: string[]): LineSource {
  return { next: async () => items.shift() };
}

function output() {
  const written: string[] = [];
  return { written, write: (text: string) => written.push(text) };
}

test("from a pipe the answer is echoed after the question, so the transcript reads right", async () => {
  const out = output();
  const prompter = new Prompter(lines("y", "no"), out, true, false);
  expect(await prompter.confirm("Apply this change to a.txt?")).toBe(true);
  expect(await prompter.confirm("Apply this change to b.txt?")).toBe(false);
  expect(out.written.join("")).toBe(
    "Apply this change to a.txt? [y/N] y\nApply this change to b.txt? [y/N] no\n",
  );
});

test("on a terminal nothing is echoed; the end of input is a no that ends the line", async () => {
  const out = output();
  const prompter = new Prompter(lines("y"), out, false, false);
  expect(await prompter.confirm("Apply?")).toBe(true);
  expect(await prompter.confirm("Apply?")).toBe(false);
  expect(out.written.join("")).toBe("Apply? [y/N] Apply? [y/N] \n");
});

test("the question is shown with its control characters as escapes", async () => {
  const out = output();
  const prompter = new Prompter(lines("n"), out, false, false);
  await prompter.confirm("Apply this change to x\u001b[2K\u202e.txt?");
  expect(out.written.join("")).toBe("Apply this change to x\\x1b[2K\\u202e.txt? [y/N] ");
});

test("a menu: the question, numbered options, 0 to skip, and the range to choose from", async () => {
  const out = output();
  const prompter = new Prompter(lines("2"), out, true, false);
  expect(await prompter.choose("Which test runner?", ["vitest", "jest"])).toEqual({
    kind: "selected",
    label: "jest",
  });
  expect(out.written.join("")).toBe(
    "? Which test runner?\n  1. vitest\n  2. jest\n  0. skip\nChoice [0-2] 2\n",
  );
});

test.each([
  ["0", { kind: "skipped" }],
  ["", { kind: "skipped" }],
  [undefined, { kind: "skipped" }],
  ["1", { kind: "selected", label: "vitest" }],
  [" use pnpm ", { kind: "answered", text: "use pnpm" }],
  ["3", { kind: "answered", text: "3" }],
])("the answer %j to a two-option menu is %j", async (answer, choice) => {
  const prompter = new Prompter(
    lines(...(answer === undefined ? [] : [answer])),
    output(),
    false,
    false,
  );
  expect(await prompter.choose("Which?", ["vitest", "jest"])).toEqual(choice);
});

test("a menu shows the model's words with their control characters as escapes", async () => {
  const out = output();
  const prompter = new Prompter(lines("0"), out, false, false);
  await prompter.choose("Pick\u001b[2J", ["a\rb"]);
  expect(out.written.join("")).toBe("? Pick\\x1b[2J\n  1. a\\x0db\n  0. skip\nChoice [0-1] ");
});

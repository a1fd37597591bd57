import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runsWhole, stageOfTest, startSwapper } from "@agent-code/test-kit";
import { afterAll, describe, expect, test } from "vitest";
import { NO_UI } from "../src/diff-ui.ts";
import { ReadState } from "../src/fs-safety.ts";
import { defaultTools, type ToolContext } from "../src/tools/index.ts";

const RACES_RUN = runsWhole(stageOfTest(import.meta.url));

const base = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-code-file-tools-")));
const work = path.join(base, "work");
mkdirSync(path.join(work, "sub"), { recursive: true });
mkdirSync(path.join(work, "node_modules", "x"), { recursive: true });
mkdirSync(path.join(work, ".git"));
mkdirSync(path.join(work, "empty"));
writeFileSync(path.join(base, "secret.txt"), "outside secret\n");
writeFileSync(path.join(work, "a.txt"), "alpha\nbeta\n");
writeFileSync(path.join(work, "Z.txt"), "zed");
writeFileSync(path.join(work, "sub", "b.txt"), "bee\n");
writeFileSync(path.join(work, "ten.txt"), numbered(10));
writeFileSync(path.join(work, "bom.txt"), "\ufeffhello\n");
writeFileSync(path.join(work, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
writeFileSync(path.join(work, "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
writeFileSync(path.join(work, "empty.txt"), "");
writeFileSync(path.join(work, "huge.txt"), numbered(30_000));
writeFileSync(path.join(work, "one-line.min.js"), "x".repeat(20_000));
if (process.platform !== "win32")
  symlinkSync(path.join(base, "secret.txt"), path.join(work, "out"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function numbered(count: number): string {
  return `${Array.from({ length: count }, (_, index) => `line ${index + 1}`).join("\n")}\n`;
}

function context(): ToolContext {
  return { cwd: work, readState: new ReadState(), signal: new AbortController().signal, ui: NO_UI };
}

async function call(name: string, args: Record<string, unknown>, ctx = context()) {
  const result = await defaultTools().run({ id: "toolu_1", name, arguments: args }, ctx);
  return { text: result.content, isError: result.isError };
}

test("read_file returns a small text file whole and records what it read", async () => {
  const ctx = context();
  expect(await call("read_file", { path: "a.txt" }, ctx)).toEqual({
    text: "alpha\nbeta",
    isError: false,
  });
  expect(ctx.readState.get(path.join(work, "a.txt"))?.size).toBe(11);
});

test("read_file: a window of lines, with a marker saying how to read on", async () => {
  expect((await call("read_file", { path: "ten.txt", offset: 3, limit: 2 })).text).toBe(
    "line 3\nline 4\n[showing lines 3-4 of 10; read on with offset 5]",
  );
  expect((await call("read_file", { path: "ten.txt", offset: 9 })).text).toBe(
    "line 9\nline 10\n[showing lines 9-10 of 10]",
  );
  expect(await call("read_file", { path: "ten.txt", offset: 11 })).toEqual({
    text: "offset 11 is past the end of ten.txt (10 lines)",
    isError: true,
  });
});

test("read_file never sends a huge file whole: 8,000 characters at most, then the marker", async () => {
  const { text } = await call("read_file", { path: "huge.txt" });
  const [shownText, marker] = [text.slice(0, text.lastIndexOf("\n")), text.split("\n").at(-1)];
  expect(shownText.length).toBeLessThanOrEqual(8000);
  expect(shownText.startsWith("line 1\nline 2\n")).toBe(true);
  const last = shownText.split("\n").length;
  expect(marker).toBe(`[showing lines 1-${last} of 30000; read on with offset ${last + 1}]`);
  // Reading on starts exactly where the window stopped.
  const next = await call("read_file", { path: "huge.txt", offset: last + 1, limit: 1 });
  expect(next.text.split("\n")[0]).toBe(`line ${last + 1}`);
});

test("read_file: one line longer than the cap shows its start and says so", async () => {
  const { text } = await call("read_file", { path: "one-line.min.js" });
  expect(text).toBe(`${"x".repeat(8000)}\n[showing lines 1-1 of 1, line 1 cut at 8000 chars]`);
});

test("read_file decodes UTF-8 with replacement and drops a BOM; an empty file says so", async () => {
  expect((await call("read_file", { path: "bom.txt" })).text).toBe("hello");
  expect((await call("read_file", { path: "latin1.txt" })).text).toBe("caf\ufffd");
  expect((await call("read_file", { path: "empty.txt" })).text).toBe("(empty file)");
});

test.each([
  [{ path: "logo.png" }, "binary file: logo.png"],
  [{ path: "missing.txt" }, "no such file or directory: missing.txt"],
  [{ path: "sub" }, "not a file: sub"],
  [{ path: "a.txt/x" }, "not a directory: a.txt/x"],
  [{ path: "../secret.txt" }, "path escapes the working directory: ../secret.txt"],
  [{ path: "" }, "path must not be empty"],
  [{ path: "a.txt", offset: 0 }, "offset must be an integer of at least 1, got 0"],
  [{ path: "a.txt", limit: -2 }, "limit must be an integer of at least 1, got -2"],
])("read_file %j is refused: %s", async (args, text) => {
  expect(await call("read_file", args)).toEqual({ text, isError: true });
});

test.skipIf(process.platform === "win32")(
  "read_file through a symlink that points out is refused, and nothing is read",
  async () => {
    const ctx = context();
    expect(await call("read_file", { path: "out" }, ctx)).toEqual({
      text: "path escapes the working directory through a symlink: out",
      isError: true,
    });
    expect(ctx.readState.get(path.join(base, "secret.txt"))).toBeUndefined();
  },
);

test("list_files: one level, folders first, byte order, skipped folders named at the end", async () => {
  const symlink = process.platform === "win32" ? [] : ["out@"];
  expect((await call("list_files", {})).text.split("\n")).toEqual([
    "empty/",
    "sub/",
    "Z.txt",
    "a.txt",
    "bom.txt",
    "empty.txt",
    "huge.txt",
    "latin1.txt",
    "logo.png",
    "one-line.min.js",
    ...symlink,
    "ten.txt",
    "(skipped: .git/, node_modules/)",
  ]);
  expect((await call("list_files", { path: "empty" })).text).toBe("(empty)");
  expect((await call("list_files", { path: path.join(work, "sub") })).text).toBe("b.txt");
});

test.each([
  [{ path: "a.txt" }, "not a directory: a.txt"],
  [{ path: "nope" }, "no such file or directory: nope"],
  [{ path: ".." }, "path escapes the working directory: .."],
])("list_files %j is refused: %s", async (args, text) => {
  expect(await call("list_files", args)).toEqual({ text, isError: true });
});

test("list_files stops at 500 entries and says how many more there are", async () => {
  const many = path.join(work, "many");
  mkdirSync(many);
  for (let index = 0; index < 503; index++) {
    writeFileSync(path.join(many, `f${String(index).padStart(3, "0")}`), "");
  }
  const lines = (await call("list_files", { path: "many" })).text.split("\n");
  expect(lines).toHaveLength(501);
  expect(lines[499]).toBe("f499");
  expect(lines[500]).toBe("[3 more]");
});

// Check, then use: a second process swaps a name between something inside and a symlink out while
// a tool runs 1,000 times. Every answer is what is inside or a refusal; none holds the outside text.
// Races run where the stage's whole contract runs: runsWhole (decision 0062).
describe.skipIf(process.platform === "win32" || !RACES_RUN)(
  "a name swapped while the tool runs",
  () => {
    const raceWork = path.join(base, "race-work");
    const outside = path.join(base, "race-outside");
    mkdirSync(raceWork);
    mkdirSync(outside);
    writeFileSync(path.join(outside, "in.txt"), "outside secret\n");
    const raceContext = (): ToolContext => ({ ...context(), cwd: raceWork });
    const TRIES = 1000;
    let swaps = 0;

    async function answers(name: string, args: Record<string, unknown>): Promise<Set<string>> {
      const seen = new Set<string>();
      for (let index = 0; index < TRIES; index++) {
        const result = await defaultTools().run(
          { id: "toolu_1", name, arguments: args },
          raceContext(),
        );
        seen.add(result.content);
      }
      return seen;
    }

    test("read_file of a file swapped with a symlink out never returns the outside text", async () => {
      const swapper = await startSwapper(path.join(raceWork, "race.txt"), [
        { kind: "file", text: "inside\n" },
        { kind: "link", to: path.join(outside, "in.txt") },
      ]);
      const seen = await answers("read_file", { path: "race.txt" }).finally(async () => {
        swaps = await swapper.stop();
      });
      // The name changed hands while the tool ran; what each answer met is the machine's timing.
      expect(swaps).toBeGreaterThan(1);
      for (const answer of seen) {
        expect(answer).toMatch(
          /^(inside|path escapes the working directory through a symlink: race\.txt|symlink not followed: race\.txt|changed while being opened: race\.txt|no such file or directory: race\.txt)$/,
        );
      }
    });

    test("read_file below a folder swapped with a symlink out never returns the outside text", async () => {
      const swapper = await startSwapper(path.join(raceWork, "dir"), [
        { kind: "dir", files: { "in.txt": "inside\n" } },
        { kind: "link", to: outside },
      ]);
      const seen = await answers("read_file", { path: "dir/in.txt" }).finally(async () => {
        swaps = await swapper.stop();
      });
      // The name changed hands while the tool ran; what each answer met is the machine's timing.
      expect(swaps).toBeGreaterThan(1);
      expect([...seen].filter((answer) => answer.includes("outside"))).toEqual([]);
    });

    test("list_files of a folder swapped with a symlink out never lists the outside folder", async () => {
      writeFileSync(path.join(outside, "outside-name.txt"), "");
      const swapper = await startSwapper(path.join(raceWork, "listed"), [
        { kind: "dir", files: { "in.txt": "" } },
        { kind: "link", to: outside },
      ]);
      const seen = await answers("list_files", { path: "listed" }).finally(async () => {
        swaps = await swapper.stop();
      });
      // The name changed hands while the tool ran; what each answer met is the machine's timing.
      expect(swaps).toBeGreaterThan(1);
      expect([...seen].filter((answer) => answer.includes("outside-name"))).toEqual([]);
    });
  },
);

test("read_file of a FIFO is refused at once: nothing waits for a writer", async () => {
  if (process.platform === "win32") return;
  const fifo = path.join(work, "pipe");
  execFileSync("mkfifo", [fifo]);
  expect(await call("read_file", { path: "pipe" })).toEqual({
    text: "not a file: pipe",
    isError: true,
  });
  rmSync(fifo);
});

test("an error names the path as given, never the machine's absolute path", async () => {
  if (process.platform === "win32") return;
  symlinkSync("loop-b", path.join(work, "loop-a"));
  symlinkSync("loop-a", path.join(work, "loop-b"));
  const result = await call("read_file", { path: "loop-a/x.txt" });
  expect(result).toEqual({ text: "too many levels of symlinks: loop-a/x.txt", isError: true });
  rmSync(path.join(work, "loop-a"));
  rmSync(path.join(work, "loop-b"));
});

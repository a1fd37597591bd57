// The answers to docs/day-3.md#challenges, tool by tool, on a folder of their own: max_chars, line
// numbers, hex_preview, .ignore files, grep's worker and its time limit, and ripgrep.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, expect, test } from "vitest";
import { ReadState, SKIP_DIRS } from "../src/fs-safety.ts";
import { defaultTools, type ToolContext } from "../src/tools.ts";

const base = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-code-challenges-")));
const work = path.join(base, "work");
afterAll(() => rmSync(base, { recursive: true, force: true }));

function put(rel: string, text: string | Uint8Array = "x\n"): void {
  mkdirSync(path.dirname(path.join(base, rel)), { recursive: true });
  writeFileSync(path.join(base, rel), text);
}

const LINE = "x".repeat(99);
put("outside.bin", new Uint8Array([1, 2, 3]));
put("work/long.txt", Array.from({ length: 300 }, () => LINE).join("\n"));
put(
  "work/logo.png",
  new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]),
);
put(
  "work/blob.bin",
  new Uint8Array(300).map((_, index) => index % 256),
);
put("work/empty.bin", new Uint8Array(0));
put("work/huge.bin", new Uint8Array(10 * 1024 * 1024 + 1));
if (process.platform !== "win32") {
  symlinkSync(path.join(base, "outside.bin"), path.join(work, "out.bin"));
}

function context(): ToolContext {
  return { cwd: work, readState: new ReadState(), signal: new AbortController().signal };
}

async function call(name: string, args: Record<string, unknown>, ctx = context()) {
  const result = await defaultTools().run({ id: "toolu_1", name, arguments: args }, ctx);
  return { text: result.content, isError: result.isError };
}

test("read_file's max_chars widens the window; without it the cap stays 8000", async () => {
  // 100 characters a line with its newline: 80 lines fit 8000, 200 fit 20000.
  const plain = await call("read_file", { path: "long.txt" });
  expect(plain.text.split("\n").slice(-1)[0]).toBe(
    "[showing lines 1-80 of 300; read on with offset 81]",
  );
  const wide = await call("read_file", { path: "long.txt", max_chars: 20_000 });
  expect(wide.text.split("\n").slice(-1)[0]).toBe(
    "[showing lines 1-200 of 300; read on with offset 201]",
  );
  const narrow = await call("read_file", { path: "long.txt", offset: 201, max_chars: 500 });
  expect(narrow.text.split("\n").slice(-1)[0]).toBe(
    "[showing lines 201-205 of 300; read on with offset 206]",
  );
});

test.each([499, 20_001, -1])(
  "read_file refuses max_chars %s: the bound is the tool's",
  async (value) => {
    expect(await call("read_file", { path: "long.txt", max_chars: value })).toEqual({
      text: `max_chars must be an integer from 500 to 20000, got ${value}`,
      isError: true,
    });
  },
);

test("read_file's schema offers max_chars with its bounds", () => {
  const schema = defaultTools()
    .list()
    .find((tool) => tool.name === "read_file")?.parameters;
  expect(schema?.properties?.max_chars).toMatchObject({
    type: "integer",
    minimum: 500,
    maximum: 20_000,
  });
});

test("hex_preview shows a binary's first bytes as xxd does", async () => {
  expect(await call("hex_preview", { path: "logo.png" })).toEqual({
    text: "00000000  89 50 4e 47 0d 0a 1a 0a  00 00 00 0d              |.PNG........|",
    isError: false,
  });
});

test("hex_preview stops at 256 bytes and says how many there were", async () => {
  const { text, isError } = await call("hex_preview", { path: "blob.bin" });
  const lines = text.split("\n");
  expect(isError).toBe(false);
  expect(lines).toHaveLength(17);
  expect(lines[2]).toBe(
    "00000020  20 21 22 23 24 25 26 27  28 29 2a 2b 2c 2d 2e 2f  | !\"#$%&'()*+,-./|",
  );
  expect(lines[15]?.startsWith("000000f0  f0 f1 ")).toBe(true);
  expect(lines[16]).toBe("[first 256 of 300 bytes]");
  expect(await call("hex_preview", { path: "empty.bin" })).toEqual({
    text: "(empty file)",
    isError: false,
  });
});

test.each([
  ["../outside.bin", "path escapes the working directory: ../outside.bin"],
  [
    path.join(base, "outside.bin"),
    `path escapes the working directory: ${path.join(base, "outside.bin")}`,
  ],
  ["huge.bin", "file too large: 10485761 bytes (limit 10485760); use grep"],
  ["missing.bin", "no such file or directory: missing.bin"],
  [".", "not a file: ."],
])("hex_preview shares read_file's refusals: %s", async (input, message) => {
  expect(await call("hex_preview", { path: input })).toEqual({ text: message, isError: true });
});

test.skipIf(process.platform === "win32")(
  "hex_preview refuses a symlink that leads out",
  async () => {
    expect(await call("hex_preview", { path: "out.bin" })).toEqual({
      text: "path escapes the working directory through a symlink: out.bin",
      isError: true,
    });
  },
);

test("hex_preview records nothing in readState: 256 bytes are not the file", async () => {
  const ctx = context();
  await call("hex_preview", { path: "blob.bin" }, ctx);
  expect(ctx.readState.get(path.join(work, "blob.bin"))).toBeUndefined();
});

// .ignore beside .gitignore: in the root, one with rules the other takes back, and nested.
put("work/ign/.gitignore", "*.log\n!wanted.json\ngenerated.ts\n");
put("work/ign/.ignore", "*.json\nfixtures/\n!generated.ts\n");
put("work/ign/a.log", "needle\n");
put("work/ign/wanted.json", "needle\n");
put("work/ign/generated.ts", "needle\n");
put("work/ign/fixtures/big.ts", "needle\n");
put("work/ign/src/main.ts", "needle\n");
put("work/ign/src/.ignore", "*.snap\n");
put("work/ign/src/main.snap", "needle\n");

test(".ignore files count as .gitignore files do, and win over the .gitignore beside them", async () => {
  expect((await call("grep", { pattern: "needle", path: "ign" })).text).toBe(
    ["ign/generated.ts:1:needle", "ign/src/main.ts:1:needle"].join("\n"),
  );
  expect((await call("glob", { pattern: "*", path: "ign" })).text).toBe(
    [
      "ign/.gitignore",
      "ign/.ignore",
      "ign/generated.ts",
      "ign/src/.ignore",
      "ign/src/main.ts",
    ].join("\n"),
  );
  expect((await call("project_tree", { path: "ign" })).text).toBe(
    ["src/", "  .ignore", "  main.ts", ".gitignore", ".ignore", "generated.ts"].join("\n"),
  );
});

test("an .ignore above the search's start counts too", async () => {
  expect((await call("grep", { pattern: "needle", path: "ign/src" })).text).toBe(
    "ign/src/main.ts:1:needle",
  );
  expect((await call("glob", { pattern: "*.ts", path: "ign/fixtures" })).text).toBe("(no matches)");
});

// A pattern that backtracks for ever on a line of a's that ends otherwise: (a+)+$ tries every way
// to split 40 a's. The lookahead makes it a pattern ripgrep refuses, so the worker runs it even
// where rg is installed. a.txt matches at once, b.txt once and then never finishes, c.txt is never read.
put("work/slow/a.txt", "aaa\n");
put("work/slow/b.txt", `aa\n${"a".repeat(40)}!\n`);
put("work/slow/c.txt", "aaaa\n");

test("grep stops a pattern that runs away, keeping the lines found before, in order", async () => {
  // An interval that fires while the worker backtracks: it is due long before the time limit, so
  // it runs first unless the main thread is blocked.
  let turns = 0;
  const interval = setInterval(() => turns++, 50);
  const result = await call("grep", { pattern: "^(?=a)(a+)+$", path: "slow" });
  clearInterval(interval);
  expect(result).toEqual({
    text: [
      "slow/a.txt:1:aaa",
      "slow/b.txt:1:aa",
      "[search stopped: pattern took longer than 2 s on slow/b.txt, after 2 matching lines; simplify the pattern or narrow the path]",
    ].join("\n"),
    isError: true,
  });
  expect(turns).toBeGreaterThan(0);
}, 20_000);

test("grep's worker gives the same answer as before on patterns that end", async () => {
  expect(await call("grep", { pattern: "^a+$", path: "slow" })).toEqual({
    text: ["slow/a.txt:1:aaa", "slow/b.txt:1:aa", "slow/c.txt:1:aaaa"].join("\n"),
    isError: false,
  });
});

test("the run's signal stops a runaway grep too, and the answer says it was stopped", async () => {
  const controller = new AbortController();
  const ctx = { ...context(), signal: controller.signal };
  const pending = call("grep", { pattern: "^(?=a)(a+)+$", path: "slow" }, ctx);
  setTimeout(() => controller.abort(), 100);
  const result = await pending;
  expect(result.isError).toBe(true);
  expect(result.text).toMatch(
    /\[search stopped at slow\/\S+, after \d+ matching lines: the run was stopped\]$/,
  );
  expect(result.text).not.toContain("c.txt");
}, 20_000);

put("work/three.txt", "first\nsecond\nthird\n");

test("read_file with line_numbers starts each shown line with its number and →", async () => {
  expect(await call("read_file", { path: "three.txt", line_numbers: true })).toEqual({
    text: ["     1→first", "     2→second", "     3→third"].join("\n"),
    isError: false,
  });
  expect(
    (await call("read_file", { path: "three.txt", offset: 2, limit: 1, line_numbers: true })).text,
  ).toBe("     2→second\n[showing lines 2-2 of 3; read on with offset 3]");
  expect((await call("read_file", { path: "three.txt" })).text).toBe("first\nsecond\nthird");
});

test("the numbers count against the cap: fewer numbered lines fit", async () => {
  // 100 characters a line, 107 numbered: 74 fit 8000 instead of 80.
  expect(
    (await call("read_file", { path: "long.txt", line_numbers: true })).text.split("\n").at(-1),
  ).toBe("[showing lines 1-74 of 300; read on with offset 75]");
});

// A fake ripgrep: it writes the folder it ran in and its arguments, one a line, to $FAKE_RG_LOG,
// answers with two matches of its own in rg's JSON (one path with a colon, one line that is not
// UTF-8), and exits with $FAKE_RG_EXIT.
const LATIN1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]).toString("base64");
const FAKE_RG = `#!/bin/sh
pwd > "$FAKE_RG_LOG"
printf '%s\\n' "$@" >> "$FAKE_RG_LOG"
printf '%s\\n' '{"type":"begin","data":{"path":{"text":"ign/src/main.ts"}}}'
printf '%s\\n' '{"type":"match","data":{"path":{"text":"ign/src/main.ts"},"lines":{"text":"only rg says so\\r\\n"},"line_number":7,"absolute_offset":0,"submatches":[]}}'
printf '%s\\n' '{"type":"match","data":{"path":{"text":"ign/a:b.ts"},"lines":{"bytes":"${LATIN1}"},"line_number":1,"absolute_offset":0,"submatches":[]}}'
exit "\${FAKE_RG_EXIT:-0}"
`;
put("bin/rg", FAKE_RG);
chmodSync(path.join(base, "bin/rg"), 0o755);
mkdirSync(path.join(base, "empty-bin"));
const LOG = path.join(base, "rg.log");
const WALKER_ANSWER = ["ign/generated.ts:1:needle", "ign/src/main.ts:1:needle"].join("\n");

const savedPath = process.env.PATH;
afterEach(() => {
  process.env.PATH = savedPath;
  delete process.env.FAKE_RG_EXIT;
  rmSync(LOG, { force: true });
});

function withRg(exit = 0): void {
  process.env.PATH = `${path.join(base, "bin")}${path.delimiter}${savedPath}`;
  process.env.FAKE_RG_LOG = LOG;
  process.env.FAKE_RG_EXIT = String(exit);
}

const unix = process.platform !== "win32";

test.skipIf(!unix)(
  "with rg on PATH, grep asks it, in the working directory, with what makes it see what the walker sees",
  async () => {
    withRg();
    expect(await call("grep", { pattern: "needle", path: "ign", ignore_case: true })).toEqual({
      text: ["ign/src/main.ts:7:only rg says so", "ign/a:b.ts:1:caf\uFFFD"].join("\n"),
      isError: false,
    });
    const [ranIn, ...argv] = readFileSync(LOG, "utf8").trimEnd().split("\n");
    expect(ranIn).toBe(work);
    expect(argv).toEqual([
      "--json",
      "--no-config",
      "--hidden",
      "--no-require-git",
      "--no-ignore-global",
      "--no-ignore-exclude",
      ...[...SKIP_DIRS].flatMap((dir) => ["--glob", `!${dir}/`]),
      "--max-filesize",
      "1M",
      "--crlf",
      "--sort",
      "path",
      "--ignore-case",
      "--regexp",
      "needle",
      "--",
      "ign",
    ]);
  },
);

test.skipIf(!unix)(
  "rg's matches go through grep's glob, and a pattern starting with - stays a pattern",
  async () => {
    withRg();
    expect((await call("grep", { pattern: "-x", glob: "src/*.ts", path: "ign" })).text).toBe(
      "ign/src/main.ts:7:only rg says so",
    );
    const argv = readFileSync(LOG, "utf8").trimEnd().split("\n");
    expect(argv.slice(-4)).toEqual(["--regexp", "-x", "--", "ign"]);
    expect(argv).not.toContain("--ignore-case");
  },
);

test.skipIf(!unix)("when rg refuses (exit 2: a lookahead, say), the walker answers", async () => {
  withRg(2);
  expect((await call("grep", { pattern: "needle", path: "ign" })).text).toBe(WALKER_ANSWER);
  expect(existsSync(LOG)).toBe(true);
});

test.skipIf(!unix)("without rg on PATH, the walker answers", async () => {
  process.env.PATH = path.join(base, "empty-bin");
  expect((await call("grep", { pattern: "needle", path: "ign" })).text).toBe(WALKER_ANSWER);
});

test.skipIf(!unix)("one file is searched by the walker, never by rg", async () => {
  withRg();
  expect((await call("grep", { pattern: "needle", path: "ign/generated.ts" })).text).toBe(
    "ign/generated.ts:1:needle",
  );
  expect(existsSync(LOG)).toBe(false);
});

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runsWhole, stageOfTest, startSwapper } from "@agent-code/test-kit";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { NO_UI } from "../src/diff-ui.ts";
import { ReadState } from "../src/fs-safety.ts";
import { defaultTools, type ToolContext } from "../src/tools/index.ts";

const RACES_RUN = runsWhole(stageOfTest(import.meta.url));

const base = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-code-search-tools-")));
const work = path.join(base, "work");
afterAll(() => rmSync(base, { recursive: true, force: true }));

function put(rel: string, text: string | Uint8Array = "x\n"): void {
  mkdirSync(path.dirname(path.join(base, rel)), { recursive: true });
  writeFileSync(path.join(base, rel), text);
}

put("secret.txt", "needle outside\n");
put("work/.gitignore", "gen/\n");
put("work/a.ts", "one\nconst needle = 1\n");
put("work/b/c.ts", "1\n2\n3\n4\nconst NEEDLE = 5\n");
put("work/b/notes.md", "a needle in prose\r\n");
put("work/gen/y.ts", "needle generated\n");
put("work/node_modules/x/x.ts", "needle in a package\n");
put("work/logo.ts", new Uint8Array([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0]));
put("work/huge.ts", `needle\n${"y".repeat(1024 * 1024)}`);
put("work/long.txt", `needle${"z".repeat(600)}\n`);
put("work/many/lines.txt", Array.from({ length: 250 }, (_, n) => `hit ${n}`).join("\n"));
for (let n = 0; n < 205; n++) put(`work/many/f${String(n).padStart(3, "0")}.js`);
if (process.platform !== "win32") {
  symlinkSync(path.join(base, "secret.txt"), path.join(work, "out.ts"));
  symlinkSync(base, path.join(work, "up"));
}

function context(): ToolContext {
  return { cwd: work, readState: new ReadState(), signal: new AbortController().signal, ui: NO_UI };
}

async function call(name: string, args: Record<string, unknown>) {
  const result = await defaultTools().run({ id: "toolu_1", name, arguments: args }, context());
  return { text: result.content, isError: result.isError };
}

test("glob **/*.ts finds the project's files, not ignored, skipped, or linked-out ones", async () => {
  expect(await call("glob", { pattern: "**/*.ts" })).toEqual({
    text: [
      "a.ts",
      "b/c.ts",
      "huge.ts",
      "logo.ts",
      ...(process.platform === "win32" ? [] : ["out.ts"]),
    ].join("\n"),
    isError: false,
  });
});

test("glob: a pattern without a slash matches names at any depth; path narrows; none says so", async () => {
  expect((await call("glob", { pattern: "*.md" })).text).toBe("b/notes.md");
  expect((await call("glob", { pattern: "*.ts", path: "b" })).text).toBe("b/c.ts");
  expect((await call("glob", { pattern: "*.rs" })).text).toBe("(no matches)");
});

test("glob stops at 200 paths and says how many there were", async () => {
  const { text } = await call("glob", { pattern: "many/*.js" });
  const lines = text.split("\n");
  expect(lines).toHaveLength(201);
  expect(lines[0]).toBe("many/f000.js");
  expect(lines.at(-1)).toBe("[200 of 205 matches; narrow the pattern]");
});

test("grep answers path:line:text, skipping binaries, huge files, ignored and skipped folders, links out", async () => {
  expect(await call("grep", { pattern: "needle\\b", glob: "*.ts" })).toEqual({
    text: "a.ts:2:const needle = 1",
    isError: false,
  });
  expect((await call("grep", { pattern: "needle", ignore_case: true, path: "b" })).text).toBe(
    "b/c.ts:5:const NEEDLE = 5\nb/notes.md:1:a needle in prose",
  );
});

test("grep cuts a long line at 500 characters and marks it", async () => {
  const { text } = await call("grep", { pattern: "^needlez" });
  expect(text).toBe(`long.txt:1:needle${"z".repeat(494)}…`);
});

test("grep stops at 200 lines and says how many matched", async () => {
  const { text } = await call("grep", { pattern: "^hit \\d+$", path: "many" });
  const lines = text.split("\n");
  expect(lines).toHaveLength(201);
  expect(lines[0]).toBe("many/lines.txt:1:hit 0");
  expect(lines.at(-1)).toBe("[200 of 250 matching lines shown; narrow the pattern, path or glob]");
});

test("a regex that does not compile is a refusal; the same regex twice finds the same lines", async () => {
  const bad = await call("grep", { pattern: "(" });
  expect(bad.isError).toBe(true);
  expect(bad.text).toMatch(/^invalid regex: Invalid regular expression: \/\(\/: /);
  // No g flag: test() keeps no lastIndex from one line to the next.
  expect((await call("grep", { pattern: "needle", path: "a.ts" })).text).toBe(
    "a.ts:2:const needle = 1",
  );
});

test("project_tree: folders first, two spaces a level, skipped folders shown, ignored ones not", async () => {
  const { text } = await call("project_tree", { max_depth: 1 });
  expect(text.split("\n")).toEqual([
    "b/",
    "many/",
    "node_modules/ (skipped)",
    ".gitignore",
    "a.ts",
    "huge.ts",
    "logo.ts",
    "long.txt",
    ...(process.platform === "win32" ? [] : ["out.ts@", "up@"]),
  ]);
  expect((await call("project_tree", { path: "b" })).text).toBe("c.ts\nnotes.md");
});

test("project_tree stops at 200 entries and max_depth must be 1 to 10", async () => {
  const { text } = await call("project_tree", {});
  expect(text.split("\n")).toHaveLength(201);
  expect(text.split("\n").at(-1)).toBe("[tree cut at 200 entries; lower max_depth or give a path]");
  expect(await call("project_tree", { max_depth: 11 })).toEqual({
    text: "max_depth must be an integer from 1 to 10, got 11",
    isError: true,
  });
});

test("every search path goes through the boundary", async () => {
  for (const [name, args] of [
    ["glob", { pattern: "*", path: ".." }],
    ["grep", { pattern: "needle", path: ".." }],
    ["project_tree", { path: "../" }],
  ] as const) {
    const result = await call(name, args);
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^path escapes the working directory: \.\.\/?$/);
  }
  if (process.platform !== "win32") {
    expect(await call("grep", { pattern: "needle", path: "up" })).toEqual({
      text: "path escapes the working directory through a symlink: up",
      isError: true,
    });
  }
});

// A pattern from the model runs on a worker with a time limit: a catastrophic one ends as a
// refusal, and a stop ends it at once. The limit is made short through the environment.
describe("patterns that could run for ever", () => {
  const slow = { pattern: "^(.*.*)*z$" };
  // Stubbed, so Vitest puts the variable back after each test (`unstubEnvs`), a test that times
  // out included: a lifted limit must not outlive its test and hang the next file in the worker.
  const limit = (ms: string) => vi.stubEnv("AGENT_CODE_MATCH_TIMEOUT_MS", ms);
  beforeAll(() => put("work/slow/line.txt", `${"a".repeat(5000)}\n`));

  test("a regex that backtracks for ever is stopped at the time limit, and grep still works after", async () => {
    limit("300");
    expect(await call("grep", { ...slow, path: "slow" })).toEqual({
      text: "regex took longer than 300 ms and was stopped; simplify the pattern",
      isError: true,
    });
    // With the limit back to its default: a busy machine can take 300 ms over a plain search.
    vi.unstubAllEnvs();
    expect((await call("grep", { pattern: "const needle" })).text).toBe("a.ts:2:const needle = 1");
  });

  test("a stop (Ctrl-C in a REPL) ends a running match at once, long before the time limit", async () => {
    limit("600000");
    const stop = new AbortController();
    const ctx = { ...context(), signal: stop.signal };
    const running = defaultTools().run(
      { id: "toolu_1", name: "grep", arguments: { ...slow, path: "slow" } },
      ctx,
    );
    setTimeout(() => stop.abort(), 100);
    expect(await running).toMatchObject({ content: "regex was stopped", isError: true });
  });

  test("a stop at any moment of a search reads as stopped, never as an empty search", async () => {
    // Many quick files, then one the pattern never finishes. The stop comes as the search looks at
    // the signal for the at-th time: before the pattern is compiled, before the first file, between
    // two files, before the last; whenever it lands, the answer must say the search was stopped.
    for (let n = 0; n < 300; n++) put(`work/stops/f${String(n).padStart(3, "0")}.txt`, "aaa\n");
    put("work/stops/zz.txt", `${"a".repeat(5000)}\n`);
    limit("600000");
    try {
      for (const at of [1, 2, 3, 100, 302]) {
        const stop = new AbortController();
        let looks = 0;
        const ctx = {
          ...context(),
          get signal() {
            looks += 1;
            if (looks === at) stop.abort();
            return stop.signal;
          },
        };
        const running = defaultTools().run(
          { id: "toolu_1", name: "grep", arguments: { ...slow, path: "stops" } },
          ctx,
        );
        expect(await running, `a stop at look ${at}`).toMatchObject({
          content: "regex was stopped",
          isError: true,
        });
      }
    } finally {
      rmSync(path.join(work, "stops"), { recursive: true, force: true });
    }
  });

  test("a glob whose expression backtracks for ever is stopped too", async () => {
    put("work/slow/name.txt", "");
    limit("300");
    const pattern = `${"*?".repeat(60)}#`;
    put(`work/slow/${"a".repeat(200)}`, "");
    expect(await call("glob", { pattern, path: "slow" })).toEqual({
      text: "glob took longer than 300 ms and was stopped; simplify the pattern",
      isError: true,
    });
  });

  test.each([
    [
      "grep",
      { pattern: `${"(".repeat(20_000)}a${")".repeat(20_000)}` },
      "regex pattern too long: 40001 chars (limit 1000)",
    ],
    ["glob", { pattern: "*".repeat(70_000) }, "glob pattern too long: 70000 chars (limit 1000)"],
    [
      "grep",
      { pattern: "a", glob: "x".repeat(1001) },
      "glob pattern too long: 1001 chars (limit 1000)",
    ],
  ])("%s with a huge pattern is a one-line refusal", async (name, args, text) => {
    expect(await call(name, args)).toEqual({ text, isError: true });
  });
});

// Ignore files are read through the same boundary as every file: a regular file inside, at most
// 1 MiB. Anything else is skipped, and the answer says so.
describe.skipIf(process.platform === "win32")("ignore files a hostile folder plants", () => {
  test("a .gitignore that links out, a FIFO one and a huge one are skipped with a note", async () => {
    put("ignores/outside-rules", "*.ts\n");
    put("work/ign/link/a.ts");
    symlinkSync(
      path.join(base, "ignores", "outside-rules"),
      path.join(work, "ign/link/.gitignore"),
    );
    put("work/ign/fifo/a.ts");
    execFileSync("mkfifo", [path.join(work, "ign/fifo/.gitignore")]);
    put("work/ign/huge/a.ts");
    put("work/ign/huge/.gitignore", `*.ts\n${"#".repeat(1024 * 1024)}\n`);
    expect((await call("glob", { pattern: "*.ts", path: "ign" })).text).toBe(
      [
        "ign/fifo/a.ts",
        "ign/huge/a.ts",
        "ign/link/a.ts",
        "(skipped ign/fifo/.gitignore: not a regular file)",
        "(skipped ign/huge/.gitignore: over 1048576 bytes)",
        "(skipped ign/link/.gitignore: symlink not followed)",
      ].join("\n"),
    );
    expect((await call("project_tree", { path: "ign" })).text).toContain(
      "(skipped ign/fifo/.gitignore: not a regular file)",
    );
    expect((await call("grep", { pattern: "zzz", path: "ign" })).text).toContain(
      "(no matches)\n(skipped ign/fifo/.gitignore",
    );
  });
});

// Check, then use, for the walk and grep: a folder swapped with a symlink out while the tool runs
// 1,000 times is never listed, and a file swapped so is never searched.
// Races run where the stage's whole contract runs: runsWhole (decision 0062).
describe.skipIf(process.platform === "win32" || !RACES_RUN)(
  "a name swapped while a search runs",
  () => {
    put("race-outside/in.txt", "needle outside\n");
    put("race-outside/outside-name.txt", "");
    const TRIES = 1000;
    let swaps = 0;

    async function answers(name: string, args: Record<string, unknown>): Promise<Set<string>> {
      const seen = new Set<string>();
      for (let index = 0; index < TRIES; index++) seen.add((await call(name, args)).text);
      return seen;
    }

    test("project_tree never shows the outside folder", async () => {
      const swapper = await startSwapper(path.join(work, "raced"), [
        { kind: "dir", files: { "in.txt": "needle inside\n" } },
        { kind: "link", to: path.join(base, "race-outside") },
      ]);
      const seen = await answers("project_tree", { path: "raced" }).finally(async () => {
        swaps = await swapper.stop();
      });
      // The name changed hands while the tool ran; what each answer met is the machine's timing.
      expect(swaps).toBeGreaterThan(1);
      expect([...seen].filter((answer) => answer.includes("outside-name"))).toEqual([]);
    });

    test("grep never reads the outside file", async () => {
      const swapper = await startSwapper(path.join(work, "raced-file.txt"), [
        { kind: "file", text: "needle inside\n" },
        { kind: "link", to: path.join(base, "race-outside", "in.txt") },
      ]);
      const seen = await answers("grep", { pattern: "needle", path: "raced-file.txt" }).finally(
        async () => {
          swaps = await swapper.stop();
        },
      );
      // The name changed hands while the tool ran; what each answer met is the machine's timing.
      expect(swaps).toBeGreaterThan(1);
      expect([...seen].filter((answer) => answer.includes("outside"))).toEqual([]);
    });
  },
);

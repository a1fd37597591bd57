import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, test } from "vitest";
import { walk } from "../src/walk.ts";

const root = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-code-walk-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function put(rel: string, text = "x\n"): void {
  mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  writeFileSync(path.join(root, rel), text);
}

put(".gitignore", "gen/\n*.log\n");
put("a.ts");
put("B.ts");
put("a-b.ts");
put("a/z.ts");
put("gen/y.ts");
put("debug.log");
put("node_modules/x/x.ts");
put(".git/HEAD");
put("lib/.gitignore", "!keep.log\n*.tmp\n");
put("lib/keep.log");
put("lib/drop.tmp");
put("lib/deep/.gitignore", "!drop.tmp\n");
put("lib/deep/drop.tmp");
put("elsewhere/secret.txt");
if (process.platform !== "win32")
  symlinkSync(path.join(root, "elsewhere"), path.join(root, "link"));

const paths = async (start = root, maxDepth?: number) =>
  (await walk(root, start, maxDepth === undefined ? {} : { maxDepth })).map(
    (entry) =>
      `${entry.path}${entry.kind === "dir" ? "/" : ""}${entry.kind === "skipped" ? " (skipped)" : ""}${entry.kind === "link" ? "@" : ""}`,
  );

test("walks depth first in byte order, prunes skipped and ignored folders, applies nested .gitignore files", async () => {
  const expected = [
    ".git (skipped)",
    ".gitignore",
    "B.ts",
    "a/",
    "a/z.ts",
    "a-b.ts",
    "a.ts",
    "elsewhere/",
    "elsewhere/secret.txt",
    "lib/",
    "lib/.gitignore",
    "lib/deep/",
    "lib/deep/.gitignore",
    "lib/deep/drop.tmp",
    "lib/keep.log",
    ...(process.platform === "win32" ? [] : ["link@"]),
    "node_modules (skipped)",
  ];
  expect(await paths()).toEqual(expected);
});

test("a symlinked folder is listed as a link and never entered", async () => {
  if (process.platform === "win32") return;
  const entries = await walk(root, root);
  expect(entries.filter((entry) => entry.path.startsWith("link"))).toEqual([
    { path: "link", rel: "link", absolute: path.join(root, "link"), kind: "link", depth: 1 },
  ]);
});

test("a start below the root keeps the .gitignore files above it, and rel is from the start", async () => {
  const entries = await walk(root, path.join(root, "lib"));
  expect(entries.map((entry) => [entry.path, entry.rel, entry.depth])).toEqual([
    ["lib/.gitignore", ".gitignore", 1],
    ["lib/deep", "deep", 1],
    ["lib/deep/.gitignore", "deep/.gitignore", 2],
    ["lib/deep/drop.tmp", "deep/drop.tmp", 2],
    ["lib/keep.log", "keep.log", 1],
  ]);
});

test("maxDepth lists entries down to that depth and reads no folder below it", async () => {
  expect(await paths(path.join(root, "lib"), 1)).toEqual([
    "lib/.gitignore",
    "lib/deep/",
    "lib/keep.log",
  ]);
});

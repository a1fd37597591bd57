// The README is for learners first: how to use the repository, not how fast it ran on one
// machine. Measured figures live on docs/benchmarks.md, which the README links once.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { ROOT } from "../lib/command.ts";

test("the README holds no measured timings and links the benchmarks page once", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  expect(readme.match(/\b\d+(\.\d+)? s\b|\b\d+(\.\d+)?x\b|quiet, on \d/g)).toBeNull();
  expect(readme.split("(docs/benchmarks.md)").length - 1).toBe(1);
  const page = readFileSync(join(ROOT, "docs", "benchmarks.md"), "utf8");
  expect(page).toMatch(/`pnpm check --all` +\| \d+(\.\d+)? s/);
});

test("Day 2 teaches running your own project against the fake server, and reading what it sent", () => {
  const page = readFileSync(join(ROOT, "docs", "day-2.md"), "utf8");
  const start = page.indexOf("\n### Run your own project against the fake server\n");
  expect(start).toBeGreaterThan(0);
  const section = page.slice(start, page.indexOf("\n## ", start));
  expect(section).toContain("fake-server --script");
  expect(section).toContain("ANTHROPIC_BASE_URL=http://127.0.0.1:");
  // The control routes need the server's token: the page shows where it is printed and uses it.
  expect(section).toMatch(/^# control: http:\/\/127\.0\.0\.1:\d+\/_fake\/[\w-]{16,}$/m);
  expect(section).toMatch(/\/_fake\/[\w-]{16,}\/requests/);
});

// pnpm takes `pnpm start -C dir` as its own --dir, and npm takes options before `--` as its own.
test("no page or README passes options to `pnpm start` without `--` before them", () => {
  const files = execFileSync("git", ["ls-files", "*.md"], { cwd: ROOT, encoding: "utf8" })
    .split("\n")
    .filter((file) => file !== "" && !file.startsWith("docs/diffs/"));
  expect(files.length).toBeGreaterThan(10);
  const bad = files.flatMap((file) =>
    readFileSync(join(ROOT, file), "utf8")
      .split("\n")
      .filter((line) => /\b(pnpm|npm)( --filter \S+)? start -(?!-[ `])/.test(line))
      .map((line) => `${file}: ${line.trim()}`),
  );
  expect(bad).toEqual([]);
});

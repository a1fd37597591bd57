// The starter as a learner gets it: copied out of the repository, installed, run, and checked
// against day-1. Installing is offline, from the store the workspace's own install filled: the
// starter pins the same versions as the stages.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { runCli } from "@agent-code/test-kit";
import { expect, onTestFinished, test } from "vitest";
import { ROOT, stageDir } from "../lib/command.ts";

// The pnpm running these tests (pnpm 12 is a native binary, older ones a script), else PATH's.
function pnpm(args: string[], cwd: string): string {
  const execPath = process.env.npm_execpath ?? "";
  const command = !/^pnpm/i.test(basename(execPath))
    ? ["pnpm"]
    : /\.[cm]?js$/.test(execPath)
      ? [process.execPath, execPath]
      : [execPath];
  const [program = "pnpm", ...rest] = command;
  const run = spawnSync(program, [...rest, ...args], { cwd, encoding: "utf8" });
  if (run.status !== 0) {
    throw new Error(`pnpm ${args.join(" ")} failed (${run.status}):\n${run.stdout}${run.stderr}`);
  }
  return run.stdout;
}

test("pins exactly the versions the stages use", () => {
  const starter = JSON.parse(readFileSync(join(ROOT, "starter", "package.json"), "utf8"));
  const day1 = JSON.parse(readFileSync(join(stageDir("day-1"), "package.json"), "utf8"));
  const { "@agent-code/test-kit": _workspaceOnly, ...devDependencies } = day1.devDependencies;
  expect(starter.dependencies).toEqual(day1.dependencies);
  expect(starter.devDependencies).toEqual(devDependencies);
  expect(starter.packageManager).toBe(
    JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).packageManager,
  );
});

test("its README links nothing outside the folder, which is copied out of the repository", () => {
  const readme = readFileSync(join(ROOT, "starter", "README.md"), "utf8");
  const targets = [...readme.matchAll(/\]\(([^)]+)\)/g)].map((match) => match[1] ?? "");
  expect(targets.filter((target) => !/^(https:\/\/|#)/.test(target))).toEqual([]);
  expect(readme).toContain("`docs/day-1.md` in the course repository");
});

test("a copy installs offline, runs, and fails `pnpm check day-1` saying where to start", async () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "agent-code-starter-")));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(join(ROOT, "starter"), dir, {
    recursive: true,
    filter: (source) => !/[\\/](node_modules|dist)$/.test(source),
  });
  // Not installed yet: refused, not graded (most scenarios would fail for want of packages).
  const early = await runCli(
    ["node", "--import", "tsx", join(ROOT, "scripts", "check.ts")],
    ["day-1", "--project", dir],
  );
  expect(early.exitCode).toBe(2);
  expect(early.stderr).toBe(`error: run pnpm install in ${dir} first\n`);
  expect(early.stdout).toBe("");
  expect(JSON.parse(readFileSync(join(dir, "agent-code.check.json"), "utf8"))).toEqual({
    language: "typescript",
  });

  const store = pnpm(["store", "path"], ROOT).trim();
  // --frozen-lockfile also proves the starter's lock file matches its package.json. Offline there
  // is no registry metadata to verify the lock file against; its packages are the workspace's own.
  pnpm(
    ["install", "--offline", "--frozen-lockfile", "--trust-lockfile", "--store-dir", store],
    dir,
  );

  const start = await runCli(["node", "--import", "tsx", "src/cli.ts"], ["hi"], { cwd: dir });
  expect(start.stderr).toContain("docs/day-1.md");

  const check = await runCli(
    ["node", "--import", "tsx", join(ROOT, "scripts", "check.ts")],
    ["day-1", "--project", dir, "--json"],
    { timeoutMs: 50_000 },
  );
  expect(check.exitCode).toBe(1);
  const report = JSON.parse(check.stdout);
  expect(report.highestStagePassed).toBeNull();
  // Every scenario fails, each with what it expected and the section of Day 1 that explains it.
  const scenarios: { id: string; verdict: string; failures: { docs: string }[] }[] =
    report.stages[0].scenarios;
  expect(scenarios.filter((scenario) => scenario.verdict === "pass")).toEqual([]);
  const links = scenarios.flatMap((scenario) => scenario.failures.map((failure) => failure.docs));
  for (const link of links) expect(link).toMatch(/^docs\/day-1\.md#/);
  expect(links).toContain("docs/day-1.md#v1-an-echo-cli");
  expect(scenarios[0]?.failures).toContainEqual({
    message: expect.stringContaining("tool_call: echo"),
    docs: "docs/day-1.md#v3-tools-and-the-loop",
  });
}, 60_000);

test("git ignores .env here and in the starter, so a key in one never gets committed", () => {
  const paths = [".env", "starter/.env", "packages/day-2-challenges/.env"];
  const ignored = spawnSync("git", ["check-ignore", "--no-index", ...paths], {
    cwd: ROOT,
    encoding: "utf8",
  });
  expect(ignored.stdout.trim().split("\n")).toEqual(paths);
  // Copied out of this repository, the starter has only its own .gitignore to go by.
  const own = readFileSync(join(ROOT, "starter", ".gitignore"), "utf8").split("\n");
  expect(own).toContain(".env");
});

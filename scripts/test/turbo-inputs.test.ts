// What turbo hashes and waits for, read from its own dry run: a task whose hash leaves out a file
// it reads replays a stale result from the cache after that file changes, and a task that does not
// wait for a bundle it starts may find none, or last commit's.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { ROOT, STAGES } from "../lib/command.ts";

interface DryTask {
  taskId: string;
  directory: string;
  inputs: Record<string, string>;
  dependencies: string[];
}

function dryRun(): DryTask[] {
  const run = spawnSync(
    join(ROOT, "node_modules", ".bin", "turbo"),
    [
      "run",
      "lint",
      "test",
      "test:docs",
      "test:python",
      "docs:check",
      "--filter=@agent-code/scripts",
      "--filter=//",
      "--dry=json",
    ],
    { cwd: ROOT, encoding: "utf8", env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1" } },
  );
  expect(run.status, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as { tasks: DryTask[] }).tasks;
}

// The files Biome can read: those git does not ignore (biome.json's `useIgnoreFile`), tracked or
// new. Listed before the dry run, so a file another task writes meanwhile is in the dry run too.
const listed = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
  cwd: ROOT,
  encoding: "utf8",
});
const tasks = dryRun();
const task = (id: string) => {
  const found = tasks.find((candidate) => candidate.taskId === id);
  if (found === undefined) throw new Error(`turbo's dry run has no ${id}`);
  return found;
};

// The files a task's hash covers, named from the repository's root: its own inputs and those of
// every task it waits on, whose hashes turbo folds into its own.
function hashedFiles(id: string, seen = new Set<string>()): Set<string> {
  if (seen.has(id)) return new Set();
  seen.add(id);
  const found = task(id);
  const files = new Set(Object.keys(found.inputs).map((file) => join(found.directory, file)));
  for (const dependency of found.dependencies) {
    for (const file of hashedFiles(dependency, seen)) files.add(file);
  }
  return files;
}

test.each(["test", "test:docs", "test:python"])(
  "scripts#%s hashes the stages, pages and starter it reads, and no file a run writes",
  (name) => {
    // The course's files come in through one task with no command that the three wait on: turbo
    // walks a glob outside a package on every run, cached or not, and walking it for each of the
    // three took its dry run of the full leg from 0.2 s to 1.3 s.
    const own = Object.keys(task(`@agent-code/scripts#${name}`).inputs);
    expect(own.filter((file) => file.startsWith("../"))).toEqual([]);
    const inputs = [...hashedFiles(`@agent-code/scripts#${name}`)];
    // The tests start every stage's bundle, replay the pages, copy the starter and read the
    // workflows; turbo hashed none of these before, so an edit to them replayed a cached pass.
    for (const file of [
      "packages/day-7-v5/src/cli.ts",
      "packages/day-5-v5/package.json",
      "packages/test-kit/contracts/index.ts",
      "docs/day-1.md",
      "starter/tsconfig.json",
      ".github/workflows/ci.yml",
      "README.md",
      "scripts/lib/command.ts",
    ]) {
      expect(inputs, file).toContain(file);
    }
    // What the suite writes (bundles, reports, turbo's logs, packages) is ignored by git: a hash
    // over it would change with every run and never hit.
    const ignored = spawnSync("git", ["check-ignore", "--stdin"], {
      cwd: ROOT,
      input: inputs.join("\n"),
      encoding: "utf8",
    });
    expect(ignored.stdout).toBe("");
    expect(ignored.status).toBe(1);
  },
);

test("docs:check waits for the bundle of every stage: its replays start them", () => {
  const waitsFor = task("//#docs:check").dependencies;
  expect(STAGES.filter((stage) => !waitsFor.includes(`@agent-code/${stage}#build`))).toEqual([]);
});

test("lint's hash covers every file Biome can read, tracked or new", () => {
  // Turbo replays a cached lint when its hash is unchanged, so the hash must cover every file Biome
  // reads (decision 0091): a file left out could gain a lint error and still replay a pass.
  expect(listed.status, listed.stderr).toBe(0);
  const readable = listed.stdout
    .split("\0")
    .filter((file) => file !== "" && existsSync(join(ROOT, file)));
  const hashed = hashedFiles("//#lint");
  expect(readable.filter((file) => !hashed.has(file))).toEqual([]);
  expect(readable).toContain("packages/day-7-v5/src/cli.ts");
});

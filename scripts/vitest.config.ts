import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { isolatedTestFiles } from "@agent-code/test-kit/unit-plan";
import { defineConfig } from "vitest/config";

// The package's tests are three turbo tasks, so that the two long ones run beside the rest rather
// after it (decision 0062): `test:python` the Python fixtures, `test:docs` the docs tooling (its
// replays of every page), `test` everything else. AGENT_CODE_SCRIPTS_PART names the part; `test`
// leaves the other two out. (Vite loads this file before any TypeScript import could be resolved,
// so it reads the variables itself, as test-kit's testLeg does.)
const PARTS: Record<string, string[]> = {
  python: ["test/check-python-seeds.test.ts", "test/check-python.test.ts"],
  docs: [
    "test/docs.test.ts",
    "test/docs-course-models.test.ts",
    "test/docs-parts.test.ts",
    "test/docs-replay.test.ts",
    "test/docs-replay-second.test.ts",
    "test/docs-wire.test.ts",
    "test/readme.test.ts",
  ],
};

// What `test` runs on CI's floor leg (decision 0074): a test of each command a learner or an
// instructor starts on their own Node, through its process: `pnpm check` end to end, check:class's
// command line, the sandbox a learner's program runs in, the bundle and tsx paths, the starter,
// `pnpm start`, `pnpm agent-code`, stage-diff. The rest of `test` checks what those commands
// compute (headlines, reports, JUnit, the class's tables, the workflow's files, the battery) over
// the same runner, which no Node version changes: the full leg runs it, and so do the Python and
// docs parts, tasks of their own there.
const FLOOR_LEG = [
  "test/agent-code.test.ts",
  "test/bundle.test.ts",
  "test/check-class-cli.test.ts",
  "test/check-env.test.ts",
  "test/check-grader-side.test.ts",
  "test/check-project.test.ts",
  "test/check-sandbox.test.ts",
  "test/check.test.ts",
  "test/ctrl-c-terminal.test.ts",
  "test/pnpm-start.test.ts",
  "test/stage-diff.test.ts",
  "test/starter.test.ts",
];

const part = process.env.AGENT_CODE_SCRIPTS_PART;
if (part !== undefined && PARTS[part] === undefined) {
  throw new Error(`AGENT_CODE_SCRIPTS_PART must be python or docs, not ${JSON.stringify(part)}`);
}

// The files this run takes: the part's, the floor leg's, or (when `only` is undefined) Vitest's
// default, all but the parts'.
const only =
  part !== undefined
    ? PARTS[part]
    : process.env.AGENT_CODE_TEST_LEG === "floor"
      ? FLOOR_LEG
      : undefined;
const exclude = ["**/node_modules/**", ...(part === undefined ? Object.values(PARTS).flat() : [])];

// Files share workers, as the stages' do (decision 0089): a worker imports Vitest, test-kit and
// lib/ once rather than once a file. A file that replaces a module, or that says it must run alone
// (a choice a module makes once a process), runs in a worker of its own.
const isolated = isolatedTestFiles(fileURLToPath(new URL(".", import.meta.url))).filter(
  (file) => only?.includes(file) ?? !exclude.includes(file),
);

export default defineConfig({
  test: {
    // These files mostly wait on the programs they start (checks, CLIs, fake servers): two run at
    // once even on two cores, where Vitest's default, one worker fewer than the cores, runs one
    // file at a time (the main part: 172 s alone, 122 s two at a time, the same CPU; benchmarks).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        extends: true as const,
        test: {
          name: "shared",
          isolate: false,
          ...(only === undefined ? {} : { include: only }),
          exclude: [...exclude, ...isolated],
        },
      },
      ...(isolated.length === 0
        ? []
        : [{ extends: true as const, test: { name: "isolated", include: isolated } }]),
    ],
    globalSetup: ["test/stage-bundles.ts"],
    // An environment variable or a global a test stubs is put back after it, whichever worker.
    unstubEnvs: true,
    unstubGlobals: true,
  },
});

import { availableParallelism } from "node:os";
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
    "test/docs-wire.test.ts",
    "test/readme.test.ts",
  ],
};

// What `test` runs on CI's full leg only: the repository's own tools (the fuzzer, the suite's
// reports and benchmarks, stage-stats). The floor leg keeps the tests of what a learner or an
// instructor runs on their own Node: check, check:class, stage-diff, pnpm start, agent-code. The
// Python and docs parts are full-leg tasks of their own.
const FULL_LEG_ONLY = [
  "test/fuzz.test.ts",
  "test/smoke-real.test.ts",
  "test/stage-rebase.test.ts",
  "test/stage-stats.test.ts",
  "test/test-runs.test.ts",
  "test/test-summary.test.ts",
];

const part = process.env.AGENT_CODE_SCRIPTS_PART;
if (part !== undefined && PARTS[part] === undefined) {
  throw new Error(`AGENT_CODE_SCRIPTS_PART must be python or docs, not ${JSON.stringify(part)}`);
}

export default defineConfig({
  test: {
    globalSetup: ["test/stage-bundles.ts"],
    // These files mostly wait on the programs they start (checks, CLIs, fake servers): two run at
    // once even on two cores, where Vitest's default, one worker fewer than the cores, runs one
    // file at a time (the main part: 172 s alone, 122 s two at a time, the same CPU; benchmarks).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    ...(part === undefined ? {} : { include: PARTS[part] }),
    exclude: [
      "**/node_modules/**",
      ...(part === undefined ? Object.values(PARTS).flat() : []),
      ...(part === undefined && process.env.AGENT_CODE_TEST_LEG === "floor" ? FULL_LEG_ONLY : []),
    ],
  },
});

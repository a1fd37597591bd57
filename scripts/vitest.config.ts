import { defineConfig } from "vitest/config";

// What runs once, on CI's full leg only (docs/decisions/0062-where-a-scenario-runs.md): the Python
// fixtures, the docs tooling, whose docs:check and replays the full leg runs, and the repository's
// own tools (the fuzzer, the suite's reports and benchmarks, stage-stats). The floor leg keeps the
// tests of what a learner or an instructor runs on their own Node: check, check:class, stage-diff,
// pnpm start, agent-code. (Vite loads this file before any TypeScript import could be resolved, so
// it reads the variable itself, as test-kit's testLeg does.)
const FULL_LEG_ONLY = [
  "test/check-python-seeds.test.ts",
  "test/check-python.test.ts",
  "test/docs.test.ts",
  "test/docs-parts.test.ts",
  "test/docs-replay.test.ts",
  "test/docs-wire.test.ts",
  "test/readme.test.ts",
  "test/fuzz.test.ts",
  "test/smoke-real.test.ts",
  "test/stage-rebase.test.ts",
  "test/stage-stats.test.ts",
  "test/test-runs.test.ts",
  "test/test-summary.test.ts",
];

export default defineConfig({
  test: {
    globalSetup: ["test/stage-bundles.ts"],
    exclude: [
      "**/node_modules/**",
      ...(process.env.AGENT_CODE_TEST_LEG === "floor" ? FULL_LEG_ONLY : []),
    ],
  },
});

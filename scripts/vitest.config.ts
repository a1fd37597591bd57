import { defineConfig } from "vitest/config";

// What runs once, on CI's full leg only (docs/decisions/0049-two-legs.md): the Python fixtures,
// and the docs tooling, whose docs:check and replays the full leg runs. (Vite loads this file
// before any TypeScript import could be resolved, so it reads the variable itself, as test-kit's
// testLeg does.)
const FULL_LEG_ONLY = [
  "test/check-python-seeds.test.ts",
  "test/check-python.test.ts",
  "test/docs.test.ts",
  "test/docs-parts.test.ts",
  "test/docs-replay.test.ts",
  "test/readme.test.ts",
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

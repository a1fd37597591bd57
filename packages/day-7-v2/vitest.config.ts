// Which of this stage's test files run on this leg is test-kit's to say (decision 0062): each runs
// where it proves something.
import { fileURLToPath } from "node:url";
import { unitTestExclusions } from "@agent-code/test-kit/unit-plan";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Many tests start the CLI, some several times; what they judge is what it did, never how
    // long it took, so a busy machine gets 20 s a test rather than Vitest's 5 s.
    testTimeout: 20_000,
    exclude: [
      "**/node_modules/**",
      ...unitTestExclusions(fileURLToPath(new URL(".", import.meta.url))),
    ],
  },
});

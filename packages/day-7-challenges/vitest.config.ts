// Which of this stage's test files run on this leg is test-kit's to say (decision 0062): each runs
// where it proves something.
import { fileURLToPath } from "node:url";
import { unitTestExclusions } from "@agent-code/test-kit/unit-plan";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    exclude: [
      "**/node_modules/**",
      ...unitTestExclusions(fileURLToPath(new URL(".", import.meta.url))),
    ],
  },
});

// Which of this stage's test files run on this leg is test-kit's to say (decision 0062): each runs
// where it proves something. Files share workers, but a file that replaces a module runs alone
// (decision 0088).
import { fileURLToPath } from "node:url";
import { isolatedTestFiles, unitTestExclusions } from "@agent-code/test-kit/unit-plan";
import { defineConfig } from "vitest/config";

const packageDir = fileURLToPath(new URL(".", import.meta.url));
const isolated = isolatedTestFiles(packageDir);
const shared = {
  // Many tests start the CLI, some several times; what they judge is what it did, never how
  // long it took, so a busy machine gets 20 s a test rather than Vitest's 5 s.
  testTimeout: 20_000,
  // An environment variable or a global a test stubs is put back after it, whichever worker.
  unstubEnvs: true,
  unstubGlobals: true,
  exclude: ["**/node_modules/**", ...unitTestExclusions(packageDir)],
};

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          ...shared,
          name: "shared",
          isolate: false,
          exclude: [...shared.exclude, ...isolated],
        },
      },
      ...(isolated.length === 0
        ? []
        : [{ test: { ...shared, name: "isolated", include: isolated } }]),
    ],
  },
});

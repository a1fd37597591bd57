import { defineConfig } from "vitest/config";

// The browser suite loads every page of the site, some several times: it needs more than the
// default five seconds per test.
export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 30_000,
  },
});

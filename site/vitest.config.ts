import { defineConfig } from "vitest/config";

// The browser suite loads every page of the site, some several times: it needs more than the
// default five seconds per test. Each wait inside a test has its own bound (a page load, a
// diagram), so a test's own limit only has to catch a hang, never a machine that is merely busy:
// twelve page loads in a row, each allowed a minute, fit in it.
export default defineConfig({
  test: {
    testTimeout: 900_000,
    hookTimeout: 30_000,
  },
});

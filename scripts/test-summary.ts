// The closing line of a CI run: tests passed and failed, summed over every package's Vitest JSON
// report (each package's `test` script writes .test-results/vitest.json; turbo restores it from
// its cache when the run is replayed).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
}

const root = fileURLToPath(new URL("..", import.meta.url));

export function reportPaths(rootDir: string): string[] {
  const packages = readdirSync(join(rootDir, "packages")).map((name) => join("packages", name));
  return [...packages, "scripts", "site"]
    .map((dir) => join(rootDir, dir, ".test-results", "vitest.json"))
    .filter((path) => existsSync(path));
}

export function summarize(reports: VitestReport[]): string {
  const sum = (key: keyof VitestReport) => reports.reduce((total, r) => total + r[key], 0);
  const skipped = sum("numPendingTests");
  return `${sum("numPassedTests")} passed, ${sum("numFailedTests")} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const reports = reportPaths(root).map(
    (path) => JSON.parse(readFileSync(path, "utf8")) as VitestReport,
  );
  console.log(summarize(reports));
}

// The closing line of a CI run: tests passed and failed, summed over every package's Vitest JSON
// reports (each package's `test` script writes .test-results/vitest.json; turbo restores it from
// its cache when the run is replayed). `.ci/run` runs the tests once per Node version: after each
// run, `save <name>` keeps that run's reports under .test-results/runs/<name>/, and the summary
// then sums every saved run (one line per run, the total last); with none saved, the packages'.
// Each failed test is named above those lines, so the tail of a failed run says what failed.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  testResults?: {
    name?: string;
    status: string;
    message?: string;
    assertionResults?: { status: string; fullName?: string; failureMessages?: string[] }[];
  }[];
}

const root = fileURLToPath(new URL("..", import.meta.url));

// Each package's reports: `vitest.json`, and one per part of a package whose tests are several
// turbo tasks (the scripts package's `vitest-python.json` and `vitest-docs.json`).
export function reportPaths(rootDir: string): string[] {
  const packages = readdirSync(join(rootDir, "packages")).map((name) => join("packages", name));
  return [...packages, "scripts", "site"].flatMap((dir) => {
    const results = join(rootDir, dir, ".test-results");
    if (!existsSync(results)) return [];
    return readdirSync(results)
      .filter((name) => /^vitest(-[a-z]+)?\.json$/.test(name))
      .sort()
      .map((name) => join(results, name));
  });
}

export function runsDir(rootDir: string): string {
  return join(rootDir, ".test-results", "runs");
}

// Copies the packages' reports into runs/<name>/, one file per package.
export function saveRun(rootDir: string, name: string): void {
  const target = join(runsDir(rootDir), name);
  mkdirSync(target, { recursive: true });
  for (const path of reportPaths(rootDir)) {
    const part = basename(path).replace(/^vitest/, "");
    copyFileSync(path, join(target, `${basename(dirname(dirname(path)))}${part}`));
  }
}

export function summarize(reports: VitestReport[]): string {
  const sum = (count: (report: VitestReport) => number) =>
    reports.reduce((total, report) => total + count(report), 0);
  const skipped = sum((report) => report.numPendingTests);
  // A test file that fails before any of its tests runs (an error where it loads, or in a
  // beforeAll) has no failed test in Vitest's counts: it counts as one failure here, or a broken
  // suite would close on "0 failed".
  const failed = sum((report) => report.numFailedTests + brokenFiles(report));
  return `${sum((report) => report.numPassedTests)} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`;
}

function brokenFiles(report: VitestReport): number {
  return (report.testResults ?? []).filter(
    (file) =>
      file.status === "failed" &&
      !(file.assertionResults ?? []).some((test) => test.status === "failed"),
  ).length;
}

// One line per failed test, and per test file that failed before its tests ran: the file from the
// repository's root, the test's full name, the first line of its error.
export function failureLines(rootDir: string, reports: VitestReport[], run?: string): string[] {
  const lines: string[] = [];
  const firstLine = (text = "") => text.trim().split("\n", 1)[0]?.slice(0, 300) ?? "";
  for (const report of reports) {
    for (const file of report.testResults ?? []) {
      const where = `${run === undefined ? "" : `${run}: `}${relative(rootDir, file.name ?? "?")}`;
      const failed = (file.assertionResults ?? []).filter((test) => test.status === "failed");
      for (const test of failed) {
        lines.push(
          `FAIL ${where} > ${test.fullName ?? "?"}: ${firstLine(test.failureMessages?.[0])}`,
        );
      }
      if (file.status === "failed" && failed.length === 0) {
        const message = firstLine(file.message);
        lines.push(
          `FAIL ${where}${message === "" ? " (failed before its tests ran)" : `: ${message}`}`,
        );
      }
    }
  }
  return lines;
}

function read(paths: string[]): VitestReport[] {
  return paths.map((path) => JSON.parse(readFileSync(path, "utf8")) as VitestReport);
}

// The failed tests, one line per saved run, then the total over all of them; the packages' own
// reports when no run was saved.
export function summaryLines(rootDir: string): string[] {
  const dir = runsDir(rootDir);
  const runs = existsSync(dir) ? readdirSync(dir).sort() : [];
  if (runs.length === 0) {
    const reports = read(reportPaths(rootDir));
    return [...failureLines(rootDir, reports), summarize(reports)];
  }
  const byRun = runs.map((name) => {
    const files = readdirSync(join(dir, name)).map((file) => join(dir, name, file));
    return { name, reports: read(files) };
  });
  return [
    ...byRun.flatMap(({ name, reports }) => failureLines(rootDir, reports, name)),
    ...byRun.map(({ name, reports }) => `${name}: ${summarize(reports)}`),
    summarize(byRun.flatMap(({ reports }) => reports)),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [command, name] = process.argv.slice(2);
  if (command === "save" && name !== undefined) saveRun(root, name);
  else if (command === undefined) console.log(summaryLines(root).join("\n"));
  else {
    console.error("usage: test-summary.ts [save <run name>]");
    process.exitCode = 2;
  }
}

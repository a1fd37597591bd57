// `pnpm bench:floor`, through its process: a figure for each command, the stage's own run among
// them, and one `error:` line for a mistake. Its figures are for reading; what is checked here is
// that each command really ran (a run that fails stops the benchmark) and the report's shape.
import { fileURLToPath } from "node:url";
import { runCli } from "@agent-code/test-kit";
import { expect, test } from "vitest";
import { ROOT } from "../lib/command.ts";

const SCRIPT = fileURLToPath(new URL("../bench-floor.ts", import.meta.url));
const benchFloor = (...args: string[]) =>
  runCli(["node", "--import", "tsx", SCRIPT], args, { cwd: ROOT, timeoutMs: 60_000 });

test("one round of one run: a CPU figure for Node, fetch, the SDK and the stage", async () => {
  const run = await benchFloor("--stage", "day-2-v1", "--runs", "1", "--rounds", "1");
  expect(run.stderr).toBe("");
  expect(run.exitCode).toBe(0);
  const lines = run.stdout.trim().split("\n");
  expect(lines[0]).toMatch(/^CPU seconds a run .* 1 round\(s\) of 1 run\(s\), Node v\d+/);
  const names = [
    "node -e 0 (Node's start)",
    "one fetch (Node's HTTP client)",
    "the SDK, one streamed message",
    "day-2-v1, one prompt",
  ];
  const figures = lines.slice(2).map((line) => {
    const [, name = "", figure = ""] =
      /^(.+?)\s+(\d+\.\d{3}) s {3}\(rounds: [\d.]+\)$/.exec(line) ?? [];
    return { name, figure: Number(figure) };
  });
  expect(figures.map((one) => one.name)).toEqual(names);
  // Node's start costs something, and nothing costs a minute.
  for (const { figure } of figures) expect(figure).toBeGreaterThan(0);
  for (const { figure } of figures) expect(figure).toBeLessThan(60);
}, 90_000);

test("a mistake is one error line and exit 2", async () => {
  const cases: [string[], string][] = [
    [["--runs", "0"], "error: --runs must be a positive whole number: 0\n"],
    [["--rounds", "x"], "error: --rounds must be a positive whole number: x\n"],
    [
      ["--stage", "day-1"],
      "error: day-1 does not use the Anthropic SDK: name a stage from day-2-v1 on\n",
    ],
  ];
  for (const [args, stderr] of cases) {
    const run = await benchFloor(...args);
    expect(run.stderr).toBe(stderr);
    expect(run.exitCode).toBe(2);
  }
  const flag = await benchFloor("--bogus");
  expect(flag.stderr).toMatch(/^error: Unknown option '--bogus'/);
  expect(flag.stderr.split("\n")).toHaveLength(2);
  expect(flag.exitCode).toBe(2);
  const unknown = await benchFloor("--stage", "day-9-v9");
  expect(unknown.stderr).toMatch(/^error: unknown stage: day-9-v9 \(stages: day-1, /);
  expect(unknown.exitCode).toBe(2);
});

// `pnpm bench:check [--runs N]`: how fast the commands people type first are, against the bundled
// CLI, with the targets of issue #16. A benchmark to read, not a timed test: a shared machine's
// load only ever adds time, so each figure is the best of N runs (default 3), taken in turns.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { findContract, runKey } from "@agent-code/test-kit";
import { contracts } from "@agent-code/test-kit/contracts";
import { ensureStageBundle } from "@agent-code/test-kit/stage-bundle";
import { ROOT, runCommand, stageDir, wholeOption } from "./lib/command.ts";

const STAGE = "day-2-v3";
const CHECK = fileURLToPath(new URL("check.ts", import.meta.url));
const PROJECT = join("packages", STAGE);
const MOCK_RUN = ["--provider", "mock", "echo hi using the echo tool"];

// Wall-clock seconds of one run; a run that fails stops the benchmark, whose figures would lie.
function seconds(command: string[], env: NodeJS.ProcessEnv = {}): number {
  const [program = "", ...args] = command;
  const started = performance.now();
  const run = spawnSync(program, args, {
    cwd: ROOT,
    env: { ...process.env, INIT_CWD: ROOT, ...env },
    encoding: "utf8",
  });
  const elapsed = (performance.now() - started) / 1000;
  if (run.status !== 0) {
    throw new Error(`\`${command.join(" ")}\` exited ${run.status}:\n${run.stdout}${run.stderr}`);
  }
  return elapsed;
}

// The best time of each command over `runs` rounds, the commands taking turns within a round.
function bestTimes(commands: string[][], runs: number): number[] {
  const times: number[][] = commands.map(() => []);
  for (let round = 0; round < runs; round++) {
    for (const [index, command] of commands.entries()) times[index]?.push(seconds(command));
  }
  return times.map((values) => Math.min(...values));
}

// What a check of these stages runs: its scenarios, and the distinct runs among them (a check
// judges scenarios with the same inputs on one run).
function workOf(stages: string[]): { scenarios: number; runs: number } {
  const scenarios = stages.flatMap((stage) => findContract(stage)?.scenarios ?? []);
  return { scenarios: scenarios.length, runs: new Set(scenarios.map(runKey)).size };
}

// The seconds a scenario costs, against what the absolute target allowed a scenario when
// it was set (day-2-v3 had 38 scenarios, the four stages of then 67; docs/decisions/0030).
function perScenario(seconds: number, work: { scenarios: number; runs: number }, then: number) {
  const each = seconds / work.scenarios;
  return `  (${work.scenarios} scenarios, ${work.runs} distinct runs: ${each.toFixed(2)} s a scenario; the target allowed ${then.toFixed(2)} s when it was set)`;
}

function line(what: string, figure: string, target: string, met: boolean): string {
  return `${what.padEnd(52)} ${figure.padStart(7)}   target ${target.padEnd(7)} ${met ? "met" : "MISSED"}`;
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { runs: { type: "string" } } });
  const runs = wholeOption("runs", values.runs, 3);
  const check = (...args: string[]) => [process.execPath, "--import", "tsx", CHECK, ...args];
  // The bundles are brought up to date first, so no round pays for a build.
  ensureStageBundle(stageDir(STAGE));
  const bundled = [process.execPath, join(PROJECT, "dist", "agent-code.mjs"), ...MOCK_RUN];
  seconds(["pnpm", "agent-code", ...MOCK_RUN]);

  console.log(`best of ${runs} run(s) each, in seconds; the project is ${PROJECT}\n`);
  const [byDefault = 0, byBundle = 0] = bestTimes(
    [
      check(STAGE, "--project", PROJECT),
      check(STAGE, "--project", PROJECT, "--cmd", "node dist/agent-code.mjs"),
    ],
    runs,
  );
  const [all = 0] = bestTimes([check("--all", "--project", PROJECT)], runs);
  const [typed = 0, exec = 0, direct = 0] = bestTimes(
    [["pnpm", "agent-code", ...MOCK_RUN], ["pnpm", "exec", ...bundled], bundled],
    Math.max(runs, 5),
  );
  console.log(
    [
      line(
        `check ${STAGE}: default path / --cmd bundle`,
        `${(byDefault / byBundle).toFixed(2)}x`,
        "<= 1.2x",
        byDefault <= 1.2 * byBundle,
      ),
      `  (${byDefault.toFixed(1)} s against ${byBundle.toFixed(1)} s)`,
      line(`check ${STAGE}, default path`, `${byDefault.toFixed(1)} s`, "< 10 s", byDefault < 10),
      perScenario(byDefault, workOf([STAGE]), 10 / 38),
      line("check --all, default path", `${all.toFixed(1)} s`, "< 30 s", all < 30),
      perScenario(all, workOf(contracts.map((contract) => contract.stage)), 30 / 67),
      line(
        "pnpm agent-code / pnpm exec node dist/agent-code.mjs",
        `${(typed / exec).toFixed(2)}x`,
        "<= 1.5x",
        typed <= 1.5 * exec,
      ),
      `  (${typed.toFixed(2)} s against ${exec.toFixed(2)} s; node dist/agent-code.mjs alone ${direct.toFixed(2)} s)`,
    ].join("\n"),
  );
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runCommand(() => main(process.argv.slice(2)));
}

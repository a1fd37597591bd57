// The CLI as a user runs it: this stage's contract against its bundle, scenario by scenario, the
// first core scenario once more through tsx, the path a learner's `pnpm start` takes, and a
// streamed answer on a pseudo-terminal. Which scenarios run on this leg is test-kit's contractPlan
// (decision 0062), each named with its reason. A scenario whose inputs match another's (a
// conformance twin) is judged on that one's run.
import { spawn, spawnSync } from "node:child_process";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  contractCpuMeter,
  contractPlan,
  findContract,
  runScenario,
  type SharedRuns,
  secondSeed,
  startFakeServer,
} from "@agent-code/test-kit";
import { afterAll, describe, expect, test } from "vitest";
import { holdAfterFirstWords } from "./held-stream.ts";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const contract = findContract(basename(packageDir));
if (contract === undefined) throw new Error(`no contract for ${packageDir}`);
const sharedRuns: SharedRuns = new Map();
// A seeded scenario (one that draws its words and names from the seed) runs once more at a second
// seed, random unless AGENT_CODE_SEED names it: a stage that hard-coded the pages' values fails.
const seed = secondSeed();
const seededRuns: SharedRuns = new Map();

// What the contract cost goes to bench:test. The bundle keeps V8's compiled code from one run for
// the next (Node 22.1 and later), which saves about a twentieth of a run.
const plan = contractPlan(contract.stage);
const meter = contractCpuMeter(packageDir, contract.stage);
const env = { NODE_COMPILE_CACHE: join(packageDir, "node_modules", ".cache", "node-compile") };

// What a failed scenario judged wrong, for the one line a CI summary keeps of the failure.
const failed = (failures: { message: string }[]) =>
  failures.map(({ message }) => message).join("; ");

describe
  .skipIf(plan.length === 0)
  .concurrent(`${contract.stage} contract against the bundle`, () => {
    afterAll(() => {
      meter.write(sharedRuns.size + seededRuns.size);
    });

    test.each(plan.map(({ scenario, reason }) => [scenario.id, reason, scenario] as const))(
      "%s (%s)",
      async (_id, _reason, scenario) => {
        meter.scenario();
        const command = ["node", "dist/agent-code.mjs"];
        const result = await runScenario(scenario, { command, cwd: packageDir, env, sharedRuns });
        expect(result.failures, failed(result.failures)).toEqual([]);
        if (result.seeded !== true) return;
        meter.scenario();
        const again = await runScenario(scenario, {
          command,
          cwd: packageDir,
          env,
          sharedRuns: seededRuns,
          seed,
        });
        expect(
          again.failures,
          `at seed ${seed} (AGENT_CODE_SEED=${seed} replays it): ${failed(again.failures)}`,
        ).toEqual([]);
      },
      30_000,
    );
  });

test("--help says what --no-stream does and that streaming is the default", () => {
  const help = spawnSync("node", ["dist/agent-code.mjs", "--help"], {
    cwd: packageDir,
    encoding: "utf8",
  });
  const line = help.stdout.split("\n").find((text) => text.trimStart().startsWith("--no-stream"));
  expect(line).toMatch(/Wait for each whole answer \(default: stream it as it arrives\)$/);
  expect(help.stdout).not.toContain("(default: true)");
});

test("the learner's path, tsx on the sources, passes the first core scenario", async () => {
  const scenario = contract.scenarios.find((candidate) => candidate.level === "core");
  if (scenario === undefined) throw new Error("the contract has no core scenario");
  const result = await runScenario(scenario, {
    command: ["node", "--import", "tsx", "src/cli.ts"],
    cwd: packageDir,
  });
  expect(result.failures, failed(result.failures)).toEqual([]);
}, 30_000);

// util-linux's `script` runs a command on a pseudo-terminal: the one way to see what a person sees.
const hasScript = spawnSync("script", ["--version"], { encoding: "utf8" }).stdout?.includes(
  "util-linux",
);

test.skipIf(!hasScript)(
  "on a terminal the words show as they arrive, and are erased before the trace line",
  async () => {
    const answer = "One two three four five six seven eight nine ten eleven twelve.";
    const server = await startFakeServer({
      script: [{ content: [{ type: "text", text: answer }] }],
    });
    // The rest of the answer is held until the terminal shows the first words.
    const held = await holdAfterFirstWords(server.url);
    let output = "";
    let beforeRelease = "";
    const child = spawn(
      "script",
      ["-q", "-e", "-f", "-c", "node dist/agent-code.mjs Count", "/dev/null"],
      {
        cwd: packageDir,
        env: {
          PATH: process.env.PATH,
          TZ: "UTC",
          ANTHROPIC_BASE_URL: held.url,
          ANTHROPIC_AUTH_TOKEN: "sk-test",
          NO_PROXY: "127.0.0.1",
        },
      },
    );
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      output += text;
      if (held.releasedBy() === undefined && output.includes("One")) {
        beforeRelease = output;
        held.release("the terminal");
      }
    });
    const exitCode = await new Promise((resolve) => child.on("close", resolve));
    await held.close();
    await server.close();
    expect(exitCode).toBe(0);
    // The words showed while the rest of the answer was held; the final line came after.
    expect(held.releasedBy()).toBe("the terminal");
    expect(beforeRelease).toContain("One");
    expect(beforeRelease).not.toContain("final: ");
    // The preview was erased (cursor back, screen cleared below), then the answer printed once.
    const erased = output.lastIndexOf("\u001b[0J");
    expect(erased).toBeGreaterThan(output.indexOf("One"));
    expect(output.slice(erased)).toContain(`final: ${answer}`);
    expect(output.split(`final: ${answer}`)).toHaveLength(2);
  },
  30_000,
);

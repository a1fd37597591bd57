// Commands cannot see or outlive agent-code, as a user runs it: the bundle, a fake model that asks
// for one bash call, and the contract's canaries in agent-code's own environment.
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { findContract, resultOf, runScenario, type Scenario } from "@agent-code/test-kit";
import { expect, test } from "vitest";
import { chooseSandbox } from "../src/sandbox.ts";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const linux = process.platform === "linux";
const namespace = linux && chooseSandbox().prefix !== undefined;

// The contract's scenario whose run holds every canary (the user's tokens, the provider's key),
// asking for `command` instead of `env`, with judgements of its own.
function askingFor(command: string, env: Scenario["env"], judgements: Scenario["judgements"]) {
  const scenario = findContract(basename(packageDir))?.scenarios.find(
    (candidate) => candidate.id === "bash-env-scrubbed",
  );
  const steps = scenario?.server?.steps;
  if (scenario === undefined || !Array.isArray(steps)) throw new Error("no bash-env-scrubbed");
  const call = { type: "tool_use" as const, id: "toolu_snoop_1", name: "bash", input: { command } };
  return {
    ...scenario,
    env: { ...(scenario.env as Record<string, string>), ...env },
    server: { ...scenario.server, steps: [{ content: [call] }, ...steps.slice(1)] },
    judgements,
  };
}

function run(scenario: Scenario) {
  return runScenario(scenario, { command: ["node", "dist/agent-code.mjs"], cwd: packageDir });
}

// Prints every line that holds a canary (the scenario fails when one reaches the model) of the
// environments it reads, then how many PATH lines it read: its own environment has one. In the
// namespace it reads every process it can see; without it, its parent and every process above it
// (another test's agent-code, elsewhere on the machine, may hold the same canaries).
const FILTER = `awk 'tolower($0) ~ /canary/ { print } /^PATH=/ { path++ } END { print "PATH lines: " path+0 }'`;
const EVERY_PROCESS = `for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < "$f"; done 2>/dev/null | ${FILTER}`;
const ANCESTORS = `p=$PPID; while [ "$p" -gt 0 ]; do tr '\\0' '\\n' < /proc/$p/environ; p=$(awk '/^PPid:/ { print $2 }' /proc/$p/status); done 2>/dev/null | ${FILTER}`;

const readSomething = {
  message: "the command should have read at least its own environment",
  docs: "",
  check: (o: Parameters<Scenario["judgements"][number]["check"]>[0]) =>
    /^PATH lines: [1-9]/m.test(resultOf(o, "bash")?.text ?? ""),
};

test.runIf(linux)(
  "no canary of agent-code's environment reaches a command, with the namespace or without it",
  async () => {
    const runs = await Promise.all([
      namespace ? run(askingFor(EVERY_PROCESS, {}, [readSomething])) : undefined,
      run(askingFor(ANCESTORS, { AGENT_CODE_SANDBOX: "off" }, [readSomething])),
    ]);
    for (const result of runs) if (result !== undefined) expect(result.failures).toEqual([]);
  },
  60_000,
);

test.runIf(process.platform !== "win32")(
  "without the namespace the run still ends after its answer when a command left a job holding its output",
  async () => {
    const result = await run(
      askingFor("set -m; sleep 60 & echo started", { AGENT_CODE_SANDBOX: "off" }, []),
    );
    expect(result.timedOut).toBe(false);
    expect(result.failures).toEqual([]);
    expect(result.run.stdout).toMatch(/\nfinal: /);
    // The job was still there when agent-code had exited: the runner found it and stopped it.
    if (linux) expect(result.notes?.join("\n")).toContain("sleep 60");
  },
  60_000,
);

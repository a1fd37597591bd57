// `pnpm smoke:real [--base-url URL] [--model M]`: each Day 2 stage's acceptance prompt against a
// real Messages API endpoint, to see the reference answers work with a live model. Opt-in: it
// needs a key, does nothing without one, and is never part of `pnpm test` or CI.

import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { runCli, type TraceEntry } from "@agent-code/test-kit";

export interface SmokeOptions {
  baseURL: string | undefined;
  model: string | undefined;
}

interface Acceptance {
  stage: string;
  prompt: string;
  // The tool calls a correct run makes, in order.
  toolCalls: string[];
  // Whether the stage has --model/--base-url (v1 and v2 take the base URL from the environment).
  options: boolean;
}

const ACCEPTANCE: Acceptance[] = [
  {
    stage: "day-2-v1",
    prompt: "Hi, introduce yourself in one sentence",
    toolCalls: [],
    options: false,
  },
  {
    stage: "day-2-v2",
    prompt: "What's today's date? Use the system_date tool.",
    toolCalls: ["system_date"],
    options: false,
  },
  {
    stage: "day-2-v3",
    prompt:
      "Don't answer directly. First call system_date for today's date. Then call echo to repeat back what system_date returned. Then answer.",
    toolCalls: ["system_date", "echo"],
    options: true,
  },
  {
    stage: "day-2-challenges",
    prompt:
      "Don't answer from memory. Call system_date with the time zone Asia/Shanghai, then tell me the time there.",
    toolCalls: ["system_date"],
    options: true,
  },
];

const USAGE = "usage: pnpm smoke:real [--base-url URL] [--model M]";

export function parseSmokeArgs(argv: string[]): SmokeOptions {
  const { values } = parseArgs({
    args: argv,
    options: { "base-url": { type: "string" }, model: { type: "string" } },
    strict: true,
    allowPositionals: false,
  });
  return { baseURL: values["base-url"], model: values.model };
}

// The shape a correct run prints: the expected tool calls in order, then a non-empty final.
export function traceProblem(trace: TraceEntry[], expected: string[]): string | undefined {
  const calls = trace.flatMap((entry) => (entry.kind === "tool_call" ? [entry.name] : []));
  if (calls.join(",") !== expected.join(",")) {
    return `expected tool calls [${expected.join(", ")}], got [${calls.join(", ")}]`;
  }
  const last = trace.at(-1);
  if (last?.kind !== "final" || last.text.trim() === "") return "expected a non-empty final line";
  return undefined;
}

async function main(argv: string[]): Promise<number> {
  let options: SmokeOptions;
  try {
    options = parseSmokeArgs(argv);
  } catch (error) {
    console.error(`error: ${(error as Error).message} (${USAGE})`);
    return 2;
  }
  const key = process.env.ANTHROPIC_AUTH_TOKEN || process.env.ANTHROPIC_API_KEY;
  if (!key) {
    console.log("smoke:real skipped: set ANTHROPIC_AUTH_TOKEN or ANTHROPIC_API_KEY to run it");
    return 0;
  }
  const baseURL = options.baseURL ?? process.env.ANTHROPIC_BASE_URL;
  let failed = 0;
  for (const acceptance of ACCEPTANCE) {
    const problem = await smoke(acceptance, key, baseURL, options.model);
    if (problem !== undefined) failed++;
  }
  console.log(
    `${ACCEPTANCE.length - failed} of ${ACCEPTANCE.length} stages gave the expected shape`,
  );
  return failed === 0 ? 0 : 1;
}

async function smoke(
  acceptance: Acceptance,
  key: string,
  baseURL: string | undefined,
  model: string | undefined,
): Promise<string | undefined> {
  const packageDir = fileURLToPath(new URL(`../packages/${acceptance.stage}/`, import.meta.url));
  const flags = acceptance.options && model !== undefined ? ["--model", model] : [];
  const run = await runCli(
    ["node", "--import", "tsx", "src/cli.ts"],
    [...flags, acceptance.prompt],
    {
      cwd: packageDir,
      timeoutMs: 180_000,
      env: { ANTHROPIC_AUTH_TOKEN: key, ANTHROPIC_BASE_URL: baseURL },
    },
  );
  const problem =
    run.exitCode === 0
      ? traceProblem(run.trace, acceptance.toolCalls)
      : `exit code ${run.exitCode}`;
  console.log(
    `== ${acceptance.stage}: ${problem === undefined ? "expected shape" : `NOT as expected: ${problem}`}`,
  );
  for (const line of run.stdoutLines) console.log(`   ${line}`);
  if (run.stderr.trim() !== "") console.log(`   stderr: ${run.stderr.trim()}`);
  if (!acceptance.options && model !== undefined) {
    console.log(
      `   (--model does not apply to ${acceptance.stage}: its model is DEFAULT_MODEL in src/model.ts)`,
    );
  }
  return problem;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}

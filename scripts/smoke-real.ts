// `pnpm smoke:real [--base-url URL] [--model M]`: each Day 2 stage's acceptance prompt against a
// real Messages API endpoint, and the provider appendix's through every provider whose key is set,
// to see the reference answers work with a live model; and day-3-v4's web_search through every
// search provider whose key is set (the model there is the fake server, the search is real).
// Opt-in: it needs a key, does nothing without one, and is never part of `pnpm test` or CI.

import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  type RecordedRequest,
  runCli,
  startFakeServer,
  type TraceEntry,
} from "@agent-code/test-kit";

export interface SmokeOptions {
  baseURL: string | undefined;
  model: string | undefined;
}

interface Acceptance {
  stage: string;
  // The appendix runs once per provider (`--provider <name>`), with the caller's own variables.
  provider?: string;
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

const CHAIN_PROMPT = ACCEPTANCE[2]?.prompt ?? "";

// The appendix's providers and the keys that make each worth a run.
const APPENDIX_KEYS: Record<string, string[]> = {
  anthropic: ["ANTHROPIC_API_KEY"],
  deepseek: ["ANTHROPIC_AUTH_TOKEN", "DEEPSEEK_API_KEY"],
  openai: ["OPENAI_API_KEY"],
  "openai-chat": ["OPENAI_CHAT_API_KEY"],
};

// What a provider reads; handed to the appendix's runs as the caller set them.
const PROVIDER_VARIABLES = [
  ...new Set(Object.values(APPENDIX_KEYS).flat()),
  "ANTHROPIC_BASE_URL",
  "OPENAI_BASE_URL",
  "OPENAI_CHAT_BASE_URL",
  "OPENAI_CHAT_MODEL",
];

// The runs a set of variables allows: the Day 2 stages with a Messages API key, and the appendix
// once for each provider whose key is set.
export function smokePlan(env: NodeJS.ProcessEnv): Acceptance[] {
  const day2 = env.ANTHROPIC_AUTH_TOKEN || env.ANTHROPIC_API_KEY ? ACCEPTANCE : [];
  const appendix = Object.entries(APPENDIX_KEYS)
    .filter(([, keys]) => keys.some((key) => env[key]))
    .map(([provider]) => ({
      stage: "appendix-providers",
      provider,
      prompt: CHAIN_PROMPT,
      toolCalls: ["system_date", "echo"],
      options: false,
    }));
  return [...day2, ...appendix];
}

// The search providers day-3-v4 knows, and the key each needs.
const SEARCH_KEYS: Record<string, string> = { tavily: "TAVILY_API_KEY", brave: "BRAVE_API_KEY" };
const SEARCH_STAGE = "day-3-v4";
const SEARCH_QUERY = "Node.js release notes";

// The search providers whose key is set, in day-3-v4's order of preference.
export function searchPlan(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(SEARCH_KEYS)
    .filter(([, key]) => env[key]?.trim())
    .map(([provider]) => provider);
}

// What a real search should give: a result that is not a refusal, with 1 to 3 numbered hits, each
// with an http(s) URL on the line after its title.
export function searchProblem(
  result: { text: string; isError: boolean } | undefined,
): string | undefined {
  if (result === undefined) return "the tool's result never reached the model";
  if (result.isError) return `web_search refused: ${result.text}`;
  const lines = result.text.split("\n");
  const titles = lines.flatMap((line, index) => (/^\d+\. /.test(line) ? [index] : []));
  if (titles.length < 1 || titles.length > 3) {
    return `expected 1 to 3 hits, got ${titles.length}: ${result.text.slice(0, 200)}`;
  }
  const badUrl = titles.find((index) => !/^ {3}https?:\/\/\S+$/.test(lines[index + 1] ?? ""));
  if (badUrl !== undefined) return `expected a URL after \`${lines[badUrl]}\``;
  return undefined;
}

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
  const plan = smokePlan(process.env);
  const searches = searchPlan(process.env);
  if (plan.length === 0 && searches.length === 0) {
    console.log(
      "smoke:real skipped: set ANTHROPIC_AUTH_TOKEN, ANTHROPIC_API_KEY, DEEPSEEK_API_KEY, OPENAI_API_KEY, OPENAI_CHAT_API_KEY, TAVILY_API_KEY or BRAVE_API_KEY to run it",
    );
    return 0;
  }
  const key = process.env.ANTHROPIC_AUTH_TOKEN || process.env.ANTHROPIC_API_KEY || "";
  const baseURL = options.baseURL ?? process.env.ANTHROPIC_BASE_URL;
  let failed = 0;
  for (const acceptance of plan) {
    const problem = await smoke(acceptance, key, baseURL, options.model);
    if (problem !== undefined) failed++;
  }
  for (const provider of searches) {
    if ((await smokeSearch(provider)) !== undefined) failed++;
  }
  const runs = plan.length + searches.length;
  console.log(`${runs - failed} of ${runs} runs gave the expected shape`);
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
  const provider = acceptance.provider === undefined ? [] : ["--provider", acceptance.provider];
  const env =
    acceptance.provider === undefined
      ? { ANTHROPIC_AUTH_TOKEN: key, ANTHROPIC_BASE_URL: baseURL }
      : Object.fromEntries(PROVIDER_VARIABLES.map((name) => [name, process.env[name]]));
  const run = await runCli(
    ["node", "--import", "tsx", "src/cli.ts"],
    [...provider, ...flags, acceptance.prompt],
    { cwd: packageDir, timeoutMs: 180_000, env },
  );
  const problem =
    run.exitCode === 0
      ? traceProblem(run.trace, acceptance.toolCalls)
      : `exit code ${run.exitCode}`;
  console.log(
    `== ${acceptance.stage}${acceptance.provider ? ` (${acceptance.provider})` : ""}: ${problem === undefined ? "expected shape" : `NOT as expected: ${problem}`}`,
  );
  for (const line of run.stdoutLines) console.log(`   ${line}`);
  if (run.stderr.trim() !== "") console.log(`   stderr: ${run.stderr.trim()}`);
  if (!acceptance.options && acceptance.provider === undefined && model !== undefined) {
    console.log(
      `   (--model does not apply to ${acceptance.stage}: its model is DEFAULT_MODEL in src/model.ts)`,
    );
  }
  return problem;
}

// The tool_result the request hands back (Anthropic's protocol: the fake server's default).
function toolResult(
  request: RecordedRequest | undefined,
): { text: string; isError: boolean } | undefined {
  const last = request?.body?.messages?.at(-1)?.content;
  const block = Array.isArray(last)
    ? last.find((item: { type?: unknown }) => item?.type === "tool_result")
    : undefined;
  if (block === undefined) return undefined;
  const text =
    typeof block.content === "string"
      ? block.content
      : (block.content ?? []).map((part: { text?: string }) => part.text ?? "").join("");
  return { text, isError: block.is_error === true };
}

// day-3-v4's CLI with a fake model that asks for one web_search, and the real provider behind it:
// only that provider's key is handed to the run, and the result the model got is checked.
async function smokeSearch(provider: string): Promise<string | undefined> {
  const keyName = SEARCH_KEYS[provider] ?? "";
  const packageDir = fileURLToPath(new URL(`../packages/${SEARCH_STAGE}/`, import.meta.url));
  const server = await startFakeServer();
  let problem: string | undefined;
  let stdout: string[] = [];
  try {
    server.script([
      {
        content: [
          {
            type: "tool_use",
            id: "toolu_smoke_1",
            name: "web_search",
            input: { query: SEARCH_QUERY, max_results: 3 },
          },
        ],
      },
      { content: [{ type: "text", text: "Searched." }] },
    ]);
    const run = await runCli(
      ["node", "--import", "tsx", "src/cli.ts"],
      [`Search for ${SEARCH_QUERY}`],
      {
        cwd: packageDir,
        timeoutMs: 60_000,
        env: {
          ANTHROPIC_BASE_URL: server.url,
          ANTHROPIC_AUTH_TOKEN: "sk-smoke-for-the-fake-model",
          AGENT_CODE_SEARCH_PROVIDER: provider,
          // Unset, the real service; a run may point it elsewhere (a proxy, the test's fake web).
          AGENT_CODE_SEARCH_BASE_URL: process.env.AGENT_CODE_SEARCH_BASE_URL,
          [keyName]: process.env[keyName],
        },
      },
    );
    stdout = run.stdoutLines;
    problem =
      run.exitCode === 0
        ? searchProblem(toolResult(server.requests()[1]))
        : `exit code ${run.exitCode}`;
  } finally {
    await server.close();
  }
  console.log(
    `== ${SEARCH_STAGE} web_search (${provider}): ${problem === undefined ? "expected shape" : `NOT as expected: ${problem}`}`,
  );
  for (const line of stdout) console.log(`   ${line}`);
  return problem;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}

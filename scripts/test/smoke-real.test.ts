// The real-model smoke script never runs a model here: only its argument handling, its shape
// check and its no-key path are tested.
import { fileURLToPath } from "node:url";
import { parseTrace, runCli, startFakeWeb, TAVILY_CANARY } from "@agent-code/test-kit";
import { expect, test } from "vitest";
import {
  parseSmokeArgs,
  searchPlan,
  searchProblem,
  smokePlan,
  traceProblem,
} from "../smoke-real.ts";

const script = fileURLToPath(new URL("../smoke-real.ts", import.meta.url));

test("without a key it says so and exits 0, running nothing", async () => {
  const run = await runCli(["node", "--import", "tsx", script], ["--model", "m"]);
  expect(run.exitCode).toBe(0);
  expect(run.stdout).toBe(
    "smoke:real skipped: set ANTHROPIC_AUTH_TOKEN, ANTHROPIC_API_KEY, DEEPSEEK_API_KEY, OPENAI_API_KEY, OPENAI_CHAT_API_KEY, TAVILY_API_KEY or BRAVE_API_KEY to run it\n",
  );
}, 30_000);

test("a bad argument is one error line and exit 2", async () => {
  const run = await runCli(["node", "--import", "tsx", script], ["--bogus"]);
  expect(run.exitCode).toBe(2);
  expect(run.stderr.trim().split("\n")).toHaveLength(1);
  expect(run.stderr).toMatch(/^error: .*--bogus.*usage: pnpm smoke:real/);
}, 30_000);

test("parses --base-url and --model; a missing value is an error", () => {
  expect(parseSmokeArgs(["--base-url", "http://x", "--model", "m"])).toEqual({
    baseURL: "http://x",
    model: "m",
  });
  expect(parseSmokeArgs([])).toEqual({ baseURL: undefined, model: undefined });
  expect(() => parseSmokeArgs(["--model"])).toThrow();
});

test("the shape check wants the expected tool calls in order and a non-empty final", () => {
  const good = parseTrace(
    "tool_call: system_date {}\nobservation: x\ntool_call: echo {}\nobservation: x\nfinal: ok\n",
  );
  expect(traceProblem(good, ["system_date", "echo"])).toBeUndefined();
  expect(traceProblem(good, ["system_date"])).toBe(
    "expected tool calls [system_date], got [system_date, echo]",
  );
  expect(traceProblem(parseTrace("final: \n"), [])).toBe("expected a non-empty final line");
});

test("the plan: the Day 2 stages with a Messages API key, the appendix once per provider key", () => {
  const runs = (env: NodeJS.ProcessEnv) =>
    smokePlan(env).map((run) => (run.provider ? `${run.stage}/${run.provider}` : run.stage));
  expect(runs({})).toEqual([]);
  expect(runs({ ANTHROPIC_AUTH_TOKEN: "k" })).toEqual([
    "day-2-v1",
    "day-2-v2",
    "day-2-v3",
    "day-2-challenges",
    "appendix-providers/deepseek",
  ]);
  expect(runs({ OPENAI_API_KEY: "k", OPENAI_CHAT_API_KEY: "k", DEEPSEEK_API_KEY: "k" })).toEqual([
    "appendix-providers/deepseek",
    "appendix-providers/openai",
    "appendix-providers/openai-chat",
  ]);
  expect(runs({ ANTHROPIC_API_KEY: "k" })).toContain("appendix-providers/anthropic");
});

test("the search plan: one run per search provider whose key is set, Tavily first", () => {
  expect(searchPlan({})).toEqual([]);
  expect(searchPlan({ TAVILY_API_KEY: " " })).toEqual([]);
  expect(searchPlan({ BRAVE_API_KEY: "k", TAVILY_API_KEY: "k" })).toEqual(["tavily", "brave"]);
  expect(smokePlan({ TAVILY_API_KEY: "k" })).toEqual([]);
});

test("the search check wants 1 to 3 numbered hits, each with a URL, and no refusal", () => {
  const hit = (n: number) => `${n}. Title ${n}\n   https://example.com/${n}\n   snippet`;
  expect(searchProblem({ text: [hit(1), hit(2)].join("\n"), isError: false })).toBeUndefined();
  expect(searchProblem({ text: "(no results)", isError: false })).toBe(
    "expected 1 to 3 hits, got 0: (no results)",
  );
  expect(searchProblem({ text: "1. Title\n   not a url", isError: false })).toBe(
    "expected a URL after `1. Title`",
  );
  expect(searchProblem({ text: "search provider tavily answered 500", isError: true })).toBe(
    "web_search refused: search provider tavily answered 500",
  );
  expect(searchProblem(undefined)).toBe("the tool's result never reached the model");
});

// The search path end to end, offline: the canary key and the fake web stand in for Tavily.
test("with only a search key it runs day-3-v4's web_search once, and never prints the key", async () => {
  const web = await startFakeWeb({
    search: { results: [{ title: "Node.js 24", url: "https://nodejs.org/en/blog", snippet: "x" }] },
  });
  try {
    const run = await runCli(["node", "--import", "tsx", script], [], {
      env: { TAVILY_API_KEY: TAVILY_CANARY, AGENT_CODE_SEARCH_BASE_URL: web.url },
      inherit: (name) => !/API_KEY|AUTH_TOKEN|_BASE_URL$/.test(name),
    });
    expect(run.stdout).toContain("== day-3-v4 web_search (tavily): expected shape");
    expect(run.stdout).toContain("1 of 1 runs gave the expected shape");
    expect(run.exitCode).toBe(0);
    expect(`${run.stdout}${run.stderr}`).not.toContain(TAVILY_CANARY);
    expect(web.requests().map((request) => request.search?.keyAccepted)).toEqual([true]);
  } finally {
    await web.close();
  }
}, 60_000);

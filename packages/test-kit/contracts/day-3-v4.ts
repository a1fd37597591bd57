// Day 3, v4: web_search behind a SearchProvider interface (taught in docs/day-3-web.md). The Python
// course scrapes DuckDuckGo's HTML page, so the only core fact is that the tool is offered with
// `query` required; the providers' request shapes (Tavily, Brave, both answered by the fake web),
// the texts and the key's handling are conformance. The runner gives every run
// AGENT_CODE_SEARCH_BASE_URL=<fake web> and TAVILY_API_KEY=<canary>, and fails any run that prints
// a key; fileScenario adds that no model request carries it.
import type { Contract, Judgement, Scenario } from "../src/contract.ts";
import { judge, observations, offeredTools } from "../src/judgements.ts";
import type { RecordedRequest, Step } from "../src/server.ts";
import { BRAVE_CANARY, type SearchHit, type WebSearch } from "../src/web-server.ts";
import { fileScenario, fileTwin, oneCall, theResult, wentOn } from "./day-3-v1.ts";
// The stage this one is built on: its scenarios are kept, its unknown-tool text replaced.
import { day3v3 as baseContract } from "./day-3-v3.ts";
import { namesEveryToolOffered, scenarioOf } from "./shared.ts";

const SEARCH = "docs/day-3-web.md#v4-search-behind-an-interface";
const INTERFACE = "docs/day-3-web.md#an-interface-before-a-service";
const KEY = "docs/day-3-web.md#the-key-stays-in-one-header";
const FAILURES = "docs/day-3-web.md#when-the-provider-says-no";

// What every query finds on the fake web: twelve hits, so a count of 10 can be seen.
const HITS: SearchHit[] = Array.from({ length: 12 }, (_, n) => ({
  title: `Agent loop guide ${n + 1}`,
  url: `https://docs.example.com/agent-loop/${n + 1}`,
  snippet: `Part ${n + 1} of a guide to agent loops.`,
}));

// The text of the first `count` hits, as the stage lists them.
function listed(count: number): string {
  return HITS.slice(0, count)
    .map((hit, n) => `${n + 1}. ${hit.title}\n   ${hit.url}\n   ${hit.snippet}`)
    .join("\n");
}

const SEARCH_THREE = oneCall("web_search", { query: "agent loop", max_results: 3 });

interface SearchScenario {
  id: string;
  title: string;
  level: Scenario["level"];
  steps: Step[];
  env?: Record<string, string | undefined>;
  search?: WebSearch;
  judgements: Judgement[];
}

// A Day 3 scenario (the folder, the boundary judgements) with a fake web that answers searches.
function searchScenario(spec: SearchScenario): Scenario {
  const scenario = fileScenario({
    id: spec.id,
    title: spec.title,
    level: spec.level,
    prompt: "Search the web for agent loop",
    steps: spec.steps,
    judgements: spec.judgements,
  });
  return {
    ...scenario,
    web: { search: spec.search ?? { results: HITS } },
    ...(spec.env === undefined ? {} : { env: spec.env }),
  };
}

// The schema the first request gave a tool, in any protocol.
function schemaOf(request: RecordedRequest | undefined, name: string): Record<string, unknown> {
  const tools: unknown[] = Array.isArray(request?.body?.tools) ? request.body.tools : [];
  for (const tool of tools) {
    const {
      function: fn,
      name: own,
      input_schema,
      parameters,
    } = (tool ?? {}) as {
      function?: { name?: unknown; parameters?: Record<string, unknown> };
      name?: unknown;
      input_schema?: Record<string, unknown>;
      parameters?: Record<string, unknown>;
    };
    if ((fn?.name ?? own) !== name) continue;
    return input_schema ?? fn?.parameters ?? parameters ?? {};
  }
  return {};
}

function resultIs(docs: string, text: string, isError: boolean): Judgement[] {
  return [
    judge(docs, `expected \`observation: ${text.split("\n")[0]}\`…`, (o) => {
      const result = theResult(o);
      return result?.text === text && observations(o)[0] === text;
    }),
    judge(
      docs,
      `the result should go back with is_error: ${isError}`,
      (o) => theResult(o)?.isError === isError,
    ),
  ];
}

// The fake web got exactly one search, from this provider, with this query and count and the key
// it expects in the header it reads.
function searched(
  docs: string,
  provider: "tavily" | "brave",
  count: number,
  keyAccepted = true,
): Judgement {
  const what = `exactly one ${provider} search for "agent loop" asking for ${count}, ${keyAccepted ? "with" : "with the wrong"} key`;
  return judge(docs, `the fake ${provider} should get ${what}`, (o) => {
    const [request, ...more] = o.webRequests;
    const search = request?.search;
    return (
      more.length === 0 &&
      search?.provider === provider &&
      search.query === "agent loop" &&
      search.count === count &&
      search.keyAccepted === keyAccepted
    );
  });
}

const NO_KEYS = {
  TAVILY_API_KEY: undefined,
  BRAVE_API_KEY: undefined,
  AGENT_CODE_SEARCH_PROVIDER: undefined,
};

export const day3v4: Contract = {
  stage: "day-3-v4",
  title: "Day 3 v4: web_search behind an interface",
  base: "day-3-v3",
  scenarios: [
    searchScenario({
      id: "search-offered",
      title: "web_search is offered from the first request, with query required",
      level: "core",
      steps: [{ content: [{ type: "text", text: "I could search the web for that." }] }],
      judgements: [
        judge(SEARCH, "the first request should offer the `web_search` tool", (o) =>
          offeredTools(o.requests[0]).includes("web_search"),
        ),
        judge(
          SEARCH,
          "web_search's schema should have `query` among its required properties",
          (o) => {
            const required = schemaOf(o.requests[0], "web_search").required;
            return Array.isArray(required) && required.includes("query");
          },
        ),
      ],
    }),
    searchScenario({
      id: "search-tavily",
      title: "Tavily: POST /search {query, max_results: 3} with a Bearer key; hits listed in order",
      level: "conformance",
      steps: SEARCH_THREE,
      judgements: [
        searched(INTERFACE, "tavily", 3),
        judge(INTERFACE, "the request should be POST /search with a JSON body", (o) => {
          const request = o.webRequests[0];
          return (
            request?.method === "POST" &&
            request.path === "/search" &&
            (request.headers["content-type"] ?? "").startsWith("application/json")
          );
        }),
        ...resultIs(INTERFACE, listed(3), false),
      ],
    }),
    searchScenario({
      id: "search-brave",
      title: "Brave: GET /res/v1/web/search?q=&count=3 with X-Subscription-Token; hits listed",
      level: "conformance",
      steps: SEARCH_THREE,
      env: { ...NO_KEYS, BRAVE_API_KEY: BRAVE_CANARY },
      judgements: [
        searched(INTERFACE, "brave", 3),
        judge(INTERFACE, "the request should be GET /res/v1/web/search", (o) => {
          const request = o.webRequests[0];
          return request?.method === "GET" && request.path === "/res/v1/web/search";
        }),
        ...resultIs(INTERFACE, listed(3), false),
      ],
    }),
    searchScenario({
      id: "search-provider-chosen",
      title: "AGENT_CODE_SEARCH_PROVIDER=brave wins over a Tavily key that is set too",
      level: "conformance",
      steps: SEARCH_THREE,
      env: { BRAVE_API_KEY: BRAVE_CANARY, AGENT_CODE_SEARCH_PROVIDER: "brave" },
      judgements: [searched(INTERFACE, "brave", 3)],
    }),
    searchScenario({
      id: "search-no-provider-text",
      title: "without a key, the result says which variable to set, and nothing is sent",
      level: "conformance",
      steps: SEARCH_THREE,
      env: NO_KEYS,
      judgements: [
        ...resultIs(
          INTERFACE,
          "web_search needs a search provider: set TAVILY_API_KEY or BRAVE_API_KEY",
          true,
        ),
        judge(INTERFACE, "the fake web should get no request", (o) => o.webRequests.length === 0),
        ...wentOn(INTERFACE),
      ],
    }),
    searchScenario({
      id: "search-key-rejected",
      title: "a key the provider rejects: one result naming the variable, the key never shown",
      level: "conformance",
      steps: SEARCH_THREE,
      search: { results: HITS, tavilyKey: "tvly-the-key-the-service-wants" },
      judgements: [
        searched(KEY, "tavily", 3, false),
        ...resultIs(
          KEY,
          "search provider tavily rejected the key (401): check TAVILY_API_KEY",
          true,
        ),
        ...wentOn(KEY),
      ],
    }),
    searchScenario({
      id: "search-provider-down",
      title: "a provider that answers 500 is one result, and the run goes on",
      level: "conformance",
      steps: SEARCH_THREE,
      search: { results: HITS, status: 500 },
      judgements: [
        ...resultIs(FAILURES, "search provider tavily answered 500", true),
        ...wentOn(FAILURES),
      ],
    }),
    searchScenario({
      id: "search-clamp",
      title: "max_results 50 asks the provider for 10, and 10 hits come back",
      level: "conformance",
      steps: oneCall("web_search", { query: "agent loop", max_results: 50 }),
      judgements: [searched(SEARCH, "tavily", 10), ...resultIs(SEARCH, listed(10), false)],
    }),
    // Judged on Day 2's unknown-tool run, which this stage keeps: the tools offered are this stage's.
    fileTwin(scenarioOf(baseContract, "unknown-tool"), {
      id: "unknown-tool-text",
      title: "the unknown-tool text names every tool offered, web_search too",
      judgements: [namesEveryToolOffered(SEARCH, "web_search")],
    }),
    // The base stage's scenarios, but the unknown-tool text, which names a shorter list.
    ...baseContract.scenarios.filter((scenario) => scenario.id !== "unknown-tool-text"),
  ],
};

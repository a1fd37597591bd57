// web_search and its providers against the test-kit's fake web on 127.0.0.1, which answers as
// Tavily and Brave do and records every request: what each provider sends (and where its key
// goes), which provider the environment picks, and how each failure becomes one readable result.
import { inspect } from "node:util";
import {
  BRAVE_CANARY,
  type FakeWeb,
  type SearchHit,
  startFakeWeb,
  TAVILY_CANARY,
  type WebRoutes,
} from "@agent-code/test-kit";
import { afterEach, expect, test } from "vitest";
import { NO_UI } from "../src/diff-ui.ts";
import { ReadState } from "../src/fs-safety.ts";
import { BraveSearch, createSearchProvider, TavilySearch } from "../src/search.ts";
import { defaultTools, type ToolContext } from "../src/tools/index.ts";
import { webSearch } from "../src/tools/web-search.ts";

const HITS: SearchHit[] = Array.from({ length: 12 }, (_, n) => ({
  title: `Result ${n + 1}`,
  url: `https://example.com/${n + 1}`,
  snippet: `Snippet number ${n + 1}.`,
}));

const webs: FakeWeb[] = [];
afterEach(async () => {
  await Promise.all(webs.splice(0).map((web) => web.close()));
});

async function web(options: { results?: SearchHit[]; status?: number; routes?: WebRoutes } = {}) {
  const fake = await startFakeWeb({
    ...(options.routes ? { routes: options.routes } : {}),
    ...(options.routes && !options.results
      ? {}
      : { search: { results: options.results ?? HITS, status: options.status } }),
  });
  webs.push(fake);
  return fake;
}

function context(signal = new AbortController().signal): ToolContext {
  return {
    cwd: process.cwd(),
    readState: new ReadState(),
    signal,
    ui: { ...NO_UI, confirm: async () => true },
  };
}

// web_search with this environment: its text, and whether it is a refusal (is_error).
async function search(args: Record<string, unknown>, env: Record<string, string | undefined>) {
  try {
    return { text: await webSearch(args, context(), env), isError: false };
  } catch (error) {
    return { text: (error as Error).message, isError: (error as Error).name === "ToolError" };
  }
}

const tavilyEnv = (url: string) => ({
  TAVILY_API_KEY: TAVILY_CANARY,
  AGENT_CODE_SEARCH_BASE_URL: url,
});
const braveEnv = (url: string) => ({
  BRAVE_API_KEY: BRAVE_CANARY,
  AGENT_CODE_SEARCH_BASE_URL: url,
});

test("web_search is always offered, with query required and max_results optional", () => {
  const tool = defaultTools()
    .list()
    .find((t) => t.name === "web_search");
  expect(tool?.parameters?.required).toEqual(["query"]);
  expect(Object.keys(tool?.parameters?.properties ?? {})).toEqual(["query", "max_results"]);
});

test("tavily: POST /search with the query, max_results and the key as a Bearer token", async () => {
  const fake = await web();
  const result = await search({ query: "agent loops", max_results: 3 }, tavilyEnv(fake.url));
  expect(result).toEqual({
    isError: false,
    text: [
      "1. Result 1",
      "   https://example.com/1",
      "   Snippet number 1.",
      "2. Result 2",
      "   https://example.com/2",
      "   Snippet number 2.",
      "3. Result 3",
      "   https://example.com/3",
      "   Snippet number 3.",
    ].join("\n"),
  });
  const [request] = fake.requests();
  expect(fake.requests()).toHaveLength(1);
  expect(request?.method).toBe("POST");
  expect(request?.path).toBe("/search");
  expect(JSON.parse(request?.body ?? "")).toEqual({ query: "agent loops", max_results: 3 });
  expect(request?.search).toEqual({
    provider: "tavily",
    query: "agent loops",
    count: 3,
    keyAccepted: true,
  });
});

test("brave: GET /res/v1/web/search with q, count and X-Subscription-Token; tags dropped", async () => {
  const fake = await web({
    results: [
      {
        title: "The <strong>agent</strong> loop",
        url: "https://b.example/",
        snippet: "Tools &amp; <strong>results</strong>",
      },
    ],
  });
  const result = await search({ query: "agent loop", max_results: 2 }, braveEnv(fake.url));
  expect(result.text).toBe("1. The agent loop\n   https://b.example/\n   Tools & results");
  const [request] = fake.requests();
  expect(request?.method).toBe("GET");
  expect(request?.path).toBe("/res/v1/web/search");
  expect(request?.query).toEqual({ q: "agent loop", count: "2" });
  expect(request?.search?.keyAccepted).toBe(true);
  // Nothing else in the request carries the key: no header the fake records, no URL, no body.
  expect(JSON.stringify(request)).not.toContain(BRAVE_CANARY);
});

test("the provider: AGENT_CODE_SEARCH_PROVIDER, else the first key set, Tavily before Brave", async () => {
  const both = { TAVILY_API_KEY: TAVILY_CANARY, BRAVE_API_KEY: BRAVE_CANARY };
  expect(createSearchProvider(both)?.name).toBe("tavily");
  expect(createSearchProvider({ BRAVE_API_KEY: BRAVE_CANARY })?.name).toBe("brave");
  expect(createSearchProvider({ ...both, AGENT_CODE_SEARCH_PROVIDER: "Brave" })?.name).toBe(
    "brave",
  );
  expect(createSearchProvider({ TAVILY_API_KEY: "  " })).toBeUndefined();
  expect(createSearchProvider({})).toBeUndefined();
  expect(() => createSearchProvider({ ...both, AGENT_CODE_SEARCH_PROVIDER: "duckduckgo" })).toThrow(
    "unknown AGENT_CODE_SEARCH_PROVIDER: duckduckgo (valid: tavily, brave)",
  );
  expect(() =>
    createSearchProvider({ TAVILY_API_KEY: TAVILY_CANARY, AGENT_CODE_SEARCH_PROVIDER: "brave" }),
  ).toThrow("AGENT_CODE_SEARCH_PROVIDER is brave, but BRAVE_API_KEY is not set");
  expect(() =>
    createSearchProvider({ ...both, AGENT_CODE_SEARCH_BASE_URL: "file:///etc" }),
  ).toThrow("AGENT_CODE_SEARCH_BASE_URL is not an http(s) URL: file:///etc");

  // Both keys set, Brave chosen: the one request goes to Brave, with Brave's key.
  const fake = await web();
  const env = {
    ...both,
    AGENT_CODE_SEARCH_PROVIDER: "brave",
    AGENT_CODE_SEARCH_BASE_URL: fake.url,
  };
  expect((await search({ query: "q" }, env)).isError).toBe(false);
  expect(fake.requests().map((r) => r.search?.provider)).toEqual(["brave"]);
  expect(fake.requests()[0]?.search?.keyAccepted).toBe(true);
  expect(JSON.stringify(fake.requests())).not.toContain(TAVILY_CANARY);
});

test("without a provider the result says which variable to set, and nothing is sent", async () => {
  const fake = await web();
  const result = await search({ query: "anything" }, { AGENT_CODE_SEARCH_BASE_URL: fake.url });
  expect(result).toEqual({
    isError: true,
    text: "web_search needs a search provider: set TAVILY_API_KEY or BRAVE_API_KEY",
  });
  expect(fake.requests()).toEqual([]);
});

test("max_results: 5 by default, held to 1..10", async () => {
  const fake = await web();
  const env = tavilyEnv(fake.url);
  const counts: number[] = [];
  for (const max of [undefined, 50, 0, -3, 10]) {
    const result = await search(
      max === undefined ? { query: "q" } : { query: "q", max_results: max },
      env,
    );
    counts.push(result.text.split("\n").filter((line) => /^\d+\. /.test(line)).length);
  }
  expect(fake.requests().map((r) => r.search?.count)).toEqual([5, 10, 1, 1, 10]);
  expect(counts).toEqual([5, 10, 1, 1, 10]);
  expect((await search({ query: "q", max_results: 2.5 }, env)).text).toBe(
    "max_results must be an integer, got 2.5",
  );
  expect((await search({ query: "  " }, env)).text).toBe("query must not be empty");
  expect(fake.requests()).toHaveLength(5);
});

test("snippets are one line of at most 300 characters; no hits is (no results)", async () => {
  const long = {
    title: "Long\nTitle",
    url: "https://l.example/",
    snippet: `${"word ".repeat(100)}\nend`,
  };
  const fake = await web({
    results: [long, { title: "", url: "https://t.example/", snippet: "" }],
  });
  const lines = (await search({ query: "q" }, tavilyEnv(fake.url))).text.split("\n");
  expect(lines[0]).toBe("1. Long Title");
  expect(lines[2]?.length).toBe(3 + 300);
  expect(lines[2]?.endsWith("word…")).toBe(true);
  expect(lines.slice(3)).toEqual(["2. (no title)", "   https://t.example/"]);

  const empty = await web({ results: [] });
  expect((await search({ query: "q" }, tavilyEnv(empty.url))).text).toBe("(no results)");
  expect((await search({ query: "q" }, braveEnv(empty.url))).text).toBe("(no results)");
});

test("a rejected key is one result that names the variable and never shows the key", async () => {
  const fake = await web();
  const wrong = "tvly-wrong-key-5eb1";
  const tavily = await search(
    { query: "q" },
    { TAVILY_API_KEY: wrong, AGENT_CODE_SEARCH_BASE_URL: fake.url },
  );
  expect(tavily).toEqual({
    isError: true,
    text: "search provider tavily rejected the key (401): check TAVILY_API_KEY",
  });
  // Brave says so with a 422 and SUBSCRIPTION_TOKEN_INVALID.
  const brave = await search(
    { query: "q" },
    { BRAVE_API_KEY: "BSA-wrong", AGENT_CODE_SEARCH_BASE_URL: fake.url },
  );
  expect(brave).toEqual({
    isError: true,
    text: "search provider brave rejected the key (422): check BRAVE_API_KEY",
  });
  expect(fake.requests().map((r) => r.search?.keyAccepted)).toEqual([false, false]);
});

test("a provider that is down, or answers something other than JSON, is one result", async () => {
  const down = await web({ status: 500 });
  expect(await search({ query: "q" }, tavilyEnv(down.url))).toEqual({
    isError: true,
    text: "search provider tavily answered 500",
  });
  expect((await search({ query: "q" }, braveEnv(down.url))).text).toBe(
    "search provider brave answered 500",
  );

  const html = await web({
    routes: { "/search": { type: "text/html; charset=utf-8", body: "<h1>Captive portal</h1>" } },
  });
  expect((await search({ query: "q" }, tavilyEnv(html.url))).text).toBe(
    "search provider tavily answered with something other than JSON (text/html; charset=utf-8)",
  );
  const shapeless = await web({
    routes: { "/search": { type: "application/json", body: '{"hits":[]}' } },
  });
  expect((await search({ query: "q" }, tavilyEnv(shapeless.url))).text).toBe(
    "search provider tavily answered JSON without a list of results",
  );
});

test("an answer over 2 MiB is refused once it is, and the rest is never read", async () => {
  const fake = await web({
    routes: {
      "/search": { type: "application/json", body: " ", bytes: 3 * 1024 * 1024 },
      "/res/v1/web/search": { type: "application/json", body: " ", endless: true },
    },
  });
  expect(await search({ query: "q" }, tavilyEnv(fake.url))).toEqual({
    isError: true,
    text: "search provider tavily answered more than 2097152 bytes",
  });
  // An answer without end ends here too, not at the time limit.
  const endless = await search(
    { query: "q" },
    { ...braveEnv(fake.url), AGENT_CODE_SEARCH_TIMEOUT_MS: "60000" },
  );
  expect(endless).toEqual({
    isError: true,
    text: "search provider brave answered more than 2097152 bytes",
  });
});

test("a provider that does not answer in time, or cannot be reached, is one result", async () => {
  const slow = await web({
    routes: { "/search": { delayMs: 60_000, type: "application/json", body: "{}" } },
  });
  const late = await search(
    { query: "q" },
    { ...tavilyEnv(slow.url), AGENT_CODE_SEARCH_TIMEOUT_MS: "200" },
  );
  expect(late).toEqual({
    isError: true,
    text: "search provider tavily did not answer within 200 ms",
  });

  const gone = await startFakeWeb();
  const url = gone.url;
  await gone.close();
  expect((await search({ query: "q" }, tavilyEnv(url))).text).toBe(
    "search provider tavily could not be reached: ECONNREFUSED",
  );
});

test("a stopped run stops the search", async () => {
  const slow = await web({ routes: { "/search": { delayMs: 60_000, body: "{}" } } });
  const controller = new AbortController();
  const pending = webSearch({ query: "q" }, context(controller.signal), tavilyEnv(slow.url));
  controller.abort();
  await expect(pending).rejects.toThrow("the search was stopped");
});

test("a redirect is not followed: the key's header never reaches where it points", async () => {
  const elsewhere = await web({ routes: {} });
  const away = { status: 302, redirect: `${elsewhere.url}/steal` };
  const fake = await web({ routes: { "/search": away, "/res/v1/web/search": away } });
  expect((await search({ query: "q" }, tavilyEnv(fake.url))).text).toBe(
    "search provider tavily answered 302",
  );
  expect((await search({ query: "q" }, braveEnv(fake.url))).text).toBe(
    "search provider brave answered 302",
  );
  expect(fake.requests()).toHaveLength(2);
  expect(elsewhere.requests()).toEqual([]);
});

test("the key is in no printout of a provider, and a malformed key is refused without quoting it", async () => {
  const tavily = new TavilySearch("tvly-secret-in-field");
  const brave = new BraveSearch("BSA-secret-in-field");
  for (const provider of [tavily, brave]) {
    expect(inspect(provider)).not.toContain("secret-in-field");
    expect(JSON.stringify(provider)).not.toContain("secret-in-field");
  }
  const broken = "tvly-line\nbreak";
  expect(() => createSearchProvider({ TAVILY_API_KEY: broken })).toThrow(
    "TAVILY_API_KEY holds a character no key has (a space or a line break?)",
  );
  // A key pasted with a trailing newline still works.
  const fake = await web();
  const result = await search(
    { query: "q", max_results: 1 },
    { ...tavilyEnv(fake.url), TAVILY_API_KEY: `${TAVILY_CANARY}\n` },
  );
  expect(result.isError).toBe(false);
  expect(fake.requests()[0]?.search?.keyAccepted).toBe(true);
});

test("web_search asks before the query leaves the machine, and a no sends nothing", async () => {
  const fake = await web();
  const asked: string[] = [];
  const ctx: ToolContext = {
    ...context(),
    ui: {
      ...NO_UI,
      confirm: async (question) => {
        asked.push(question);
        return false;
      },
    },
  };
  await expect(webSearch({ query: 'agent "loops"' }, ctx, tavilyEnv(fake.url))).rejects.toThrow(
    "the user rejected this call to web_search",
  );
  expect(asked).toEqual(['Allow web_search "agent \\"loops\\""?']);
  expect(fake.requests()).toEqual([]);
});

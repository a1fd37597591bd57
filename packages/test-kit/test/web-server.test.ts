// The fake web: each kind of route, the two search providers with a right and a wrong key, the
// `fake-server --web` command, and a scenario that uses it all through the runner.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, writeFileSync } from "node:fs";
import { get } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { expect, onTestFinished, test } from "vitest";
import { type Observed, runContract, type Scenario } from "../src/contract.ts";
import { judge } from "../src/judgements.ts";
import {
  BRAVE_CANARY,
  type FakeWebOptions,
  startFakeWeb,
  TAVILY_CANARY,
} from "../src/web-server.ts";

async function web(options: FakeWebOptions) {
  const server = await startFakeWeb(options);
  onTestFinished(() => server.close());
  return server;
}

// A response as it came over the wire: no redirect followed, no body decoded.
function raw(
  url: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on("error", reject);
    }).on("error", reject);
  });
}

const HTML = "<html><head><title>Fixture Title</title></head><body><p>caf\u00e9</p></body></html>";
const PNG = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13]);

test("a page comes with its content type and charset, bytes as given", async () => {
  const site = await web({
    routes: {
      "/page": { type: "text/html; charset=utf-8", body: HTML },
      "/latin": {
        type: "text/plain; charset=iso-8859-1",
        body: Buffer.from("caf\u00e9", "latin1"),
      },
      "/logo.png": { type: "image/png", body: PNG },
    },
  });
  const page = await fetch(`${site.url}/page`);
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
  expect(await page.text()).toBe(HTML);
  const latin = await raw(`${site.url}/latin`);
  expect(latin.headers["content-type"]).toBe("text/plain; charset=iso-8859-1");
  expect([...latin.body]).toEqual([0x63, 0x61, 0x66, 0xe9]);
  const logo = await raw(`${site.url}/logo.png`);
  expect(logo.headers["content-type"]).toBe("image/png");
  expect(new Uint8Array(logo.body)).toEqual(PNG);
});

test("redirects carry their status and Location; chains are followed, loops never end", async () => {
  const site = await web({
    routes: {
      "/301": { status: 301, redirect: "/page" },
      "/302": { redirect: "/page" },
      "/307": { status: 307, redirect: "/page" },
      "/308": { status: 308, redirect: "http://169.254.169.254/latest" },
      "/a": { redirect: "/b" },
      "/b": { status: 301, redirect: "/c" },
      "/c": { status: 307, redirect: "/page" },
      "/loop-1": { redirect: "/loop-2" },
      "/loop-2": { redirect: "/loop-1" },
      "/page": { type: "text/plain", body: "landed" },
    },
  });
  for (const [path, status, location] of [
    ["/301", 301, "/page"],
    ["/302", 302, "/page"],
    ["/307", 307, "/page"],
    ["/308", 308, "http://169.254.169.254/latest"],
  ] as const) {
    const answer = await raw(`${site.url}${path}`);
    expect([answer.status, answer.headers.location]).toEqual([status, location]);
  }
  const chained = await fetch(`${site.url}/a`);
  expect([chained.url, await chained.text()]).toEqual([`${site.url}/page`, "landed"]);
  expect(
    site
      .requests()
      .slice(-4)
      .map((request) => [request.path, request.status]),
  ).toEqual([
    ["/a", 302],
    ["/b", 301],
    ["/c", 307],
    ["/page", 200],
  ]);
  await expect(fetch(`${site.url}/loop-1`)).rejects.toThrow();
  const loops = site.requests().filter((request) => request.path.startsWith("/loop-"));
  // fetch gives up after 20 redirects: the loop itself never ends.
  expect(loops.length).toBeGreaterThan(20);
});

test("status codes answer with their text, or the body given; unknown paths are 404", async () => {
  const site = await web({
    routes: {
      "/gone": { status: 404 },
      "/broken": { status: 500, type: "text/html", body: "<h1>oops</h1>" },
      "/teapot": { status: 418 },
    },
  });
  const gone = await fetch(`${site.url}/gone`);
  expect([gone.status, await gone.text()]).toEqual([404, "404 Not Found"]);
  const broken = await fetch(`${site.url}/broken`);
  expect([broken.status, broken.headers.get("content-type"), await broken.text()]).toEqual([
    500,
    "text/html",
    "<h1>oops</h1>",
  ]);
  expect((await fetch(`${site.url}/teapot`)).status).toBe(418);
  const missing = await fetch(`${site.url}/nowhere?x=1`);
  expect([missing.status, await missing.text()]).toEqual([404, "404 Not Found"]);
  expect(site.requests().at(-1)).toMatchObject({
    path: "/nowhere",
    query: { x: "1" },
    status: 404,
  });
});

test("gzip and brotli bodies are sent encoded, and decode to the body", async () => {
  const site = await web({
    routes: {
      "/gz": { type: "text/html; charset=utf-8", body: HTML, encoding: "gzip" },
      "/br": { type: "text/html; charset=utf-8", body: HTML, encoding: "br" },
      // 20 MiB of `x`, a few KiB on the wire: a bomb for a tool that does not cap decoded bytes.
      "/bomb": { type: "text/plain", bytes: 20 * 2 ** 20, encoding: "gzip" },
    },
  });
  const gz = await raw(`${site.url}/gz`);
  expect(gz.headers["content-encoding"]).toBe("gzip");
  expect(gunzipSync(gz.body).toString("utf8")).toBe(HTML);
  const br = await raw(`${site.url}/br`);
  expect(br.headers["content-encoding"]).toBe("br");
  expect(brotliDecompressSync(br.body).toString("utf8")).toBe(HTML);
  expect(await (await fetch(`${site.url}/br`)).text()).toBe(HTML);
  const bomb = await raw(`${site.url}/bomb`);
  expect(bomb.body.length).toBeLessThan(2 ** 20);
  expect(gunzipSync(bomb.body).length).toBe(20 * 2 ** 20);
});

test("a body of a given size is the body repeated; an endless one runs until the client leaves", async () => {
  const site = await web({
    routes: {
      "/big": { type: "text/plain", body: "0123456789", bytes: 3_145_730 },
      "/endless": { type: "text/plain", body: "more ", endless: true },
      "/after": { body: "still here" },
    },
  });
  const big = await raw(`${site.url}/big`);
  expect(big.headers["content-length"]).toBe("3145730");
  expect(big.body.subarray(0, 12).toString()).toBe("012345678901");
  expect(big.body.subarray(-10).toString()).toBe("0123456789");

  const endless = await fetch(`${site.url}/endless`);
  expect(endless.headers.get("content-length")).toBeNull();
  const reader = endless.body?.getReader();
  let read = 0;
  while (reader && read < 8 * 2 ** 20) read += (await reader.read()).value?.length ?? 0;
  await reader?.cancel();
  expect(read).toBeGreaterThanOrEqual(8 * 2 ** 20);
  expect(await (await fetch(`${site.url}/after`)).text()).toBe("still here");
});

test("a slow first byte comes after the delay; a fast route meanwhile answers at once", async () => {
  const site = await web({
    routes: { "/slow": { delayMs: 400, body: "slow" }, "/fast": { body: "fast" } },
  });
  const order: string[] = [];
  const began = performance.now();
  const slow = fetch(`${site.url}/slow`).then(async (response) => {
    order.push(await response.text());
    return performance.now() - began;
  });
  await expect.poll(() => site.requests().length).toBe(1);
  order.push(await (await fetch(`${site.url}/fast`)).text());
  expect(await slow).toBeGreaterThanOrEqual(390);
  expect(order).toEqual(["fast", "slow"]);
});

test("every request is recorded without its credentials; /_fake/requests lists them", async () => {
  const site = await web({ routes: { "/p": { body: "ok" } } });
  await fetch(`${site.url}/p?a=1&b=two`, {
    headers: { "user-agent": "agent-code/0.0.0", authorization: "Bearer secret" },
  });
  await fetch(`${site.url}/p`, { method: "POST", body: "hello" });
  const listed = await (await fetch(`${site.controlUrl}/requests`)).json();
  expect(listed).toEqual(site.requests());
  expect(site.requests()).toMatchObject([
    {
      index: 0,
      method: "GET",
      path: "/p",
      query: { a: "1", b: "two" },
      headers: { "user-agent": "agent-code/0.0.0" },
      body: "",
      status: 200,
    },
    { index: 1, method: "POST", path: "/p", body: "hello", status: 200 },
  ]);
  expect(JSON.stringify(site.requests())).not.toContain("secret");
});

test("/_fake/requests needs the web's token: without it, a 403 that lists nothing", async () => {
  const site = await web({ routes: { "/p": { body: "ok" } } });
  await fetch(`${site.url}/p?q=private`);
  const other = await web({});
  for (const url of [
    `${site.url}/_fake/requests`,
    `${site.url}/_fake//requests`,
    `${other.controlUrl.replace(other.url, site.url)}/requests`,
  ]) {
    const response = await fetch(url);
    expect(response.status).toBe(403);
    expect(await response.text()).not.toContain("private");
  }
  expect(site.requests().map((request) => request.path)).toEqual(["/p"]);
});

const HITS = [
  { title: "First", url: "https://example.com/1", snippet: "one" },
  { title: "Second", url: "https://example.com/2", snippet: "two" },
  { title: "Third", url: "https://example.com/3", snippet: "three" },
];

function tavilySearch(url: string, key: string | undefined, body: object) {
  return fetch(`${url}/search`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
    },
    body: JSON.stringify(body),
  });
}

function braveSearch(url: string, key: string | undefined, query: string) {
  return fetch(`${url}/res/v1/web/search?${query}`, {
    headers: {
      accept: "application/json",
      ...(key === undefined ? {} : { "x-subscription-token": key }),
    },
  });
}

test("Tavily: the right Bearer key gets results in Tavily's shape; a wrong or missing one a 401", async () => {
  const site = await web({ search: { results: HITS } });
  const right = await tavilySearch(site.url, TAVILY_CANARY, {
    query: "agent code",
    max_results: 2,
  });
  expect(right.status).toBe(200);
  const found = (await right.json()) as { results: unknown[] };
  expect(found).toMatchObject({
    query: "agent code",
    results: [
      { title: "First", url: "https://example.com/1", content: "one" },
      { title: "Second", url: "https://example.com/2", content: "two" },
    ],
  });
  expect(found.results).toHaveLength(2);
  const wrong = await tavilySearch(site.url, "tvly-wrong", { query: "x" });
  expect([wrong.status, await wrong.json()]).toEqual([
    401,
    { detail: { error: "Unauthorized: missing or invalid API key." } },
  ]);
  expect((await tavilySearch(site.url, undefined, { query: "x" })).status).toBe(401);
  expect(site.requests().map((request) => request.search)).toEqual([
    { provider: "tavily", query: "agent code", count: 2, keyAccepted: true },
    { provider: "tavily", query: "x", count: undefined, keyAccepted: false },
    { provider: "tavily", query: "x", count: undefined, keyAccepted: false },
  ]);
  // Five results by default, as the service gives.
  const many = await web({ search: { results: [...HITS, ...HITS, ...HITS] } });
  const byDefault = (await (
    await tavilySearch(many.url, TAVILY_CANARY, { query: "q" })
  ).json()) as { results: unknown[] };
  expect(byDefault.results).toHaveLength(5);
});

test("Brave: the right token gets web.results; a wrong one a 422 SUBSCRIPTION_TOKEN_INVALID", async () => {
  const site = await web({ search: { results: HITS } });
  const right = await braveSearch(site.url, BRAVE_CANARY, "q=agent+code&count=3");
  expect(right.status).toBe(200);
  expect(await right.json()).toMatchObject({
    type: "search",
    query: { original: "agent code" },
    web: {
      results: [
        { title: "First", url: "https://example.com/1", description: "one" },
        { title: "Second", url: "https://example.com/2", description: "two" },
        { title: "Third", url: "https://example.com/3", description: "three" },
      ],
    },
  });
  const wrong = await braveSearch(site.url, "BSA-wrong", "q=x");
  expect(wrong.status).toBe(422);
  expect(await wrong.json()).toMatchObject({
    type: "ErrorResponse",
    error: { status: 422, code: "SUBSCRIPTION_TOKEN_INVALID" },
  });
  const missing = await braveSearch(site.url, undefined, "q=x");
  expect(missing.status).toBe(422);
  expect(await missing.json()).toMatchObject({
    error: { code: "VALIDATION", meta: { errors: [{ loc: ["header", "x-subscription-token"] }] } },
  });
  expect(site.requests().map((request) => request.search)).toEqual([
    { provider: "brave", query: "agent code", count: 3, keyAccepted: true },
    { provider: "brave", query: "x", count: undefined, keyAccepted: false },
    { provider: "brave", query: "x", count: undefined, keyAccepted: false },
  ]);
  expect(JSON.stringify(site.requests())).not.toContain(BRAVE_CANARY);
});

test("search keys and a provider that is down can be set per scenario", async () => {
  const site = await web({
    search: { results: HITS, tavilyKey: "tvly-mine", braveKey: "BSA-mine", status: 500 },
  });
  expect((await tavilySearch(site.url, TAVILY_CANARY, { query: "q" })).status).toBe(401);
  expect((await tavilySearch(site.url, "tvly-mine", { query: "q" })).status).toBe(500);
  expect((await braveSearch(site.url, "BSA-mine", "q=q")).status).toBe(500);
  // Without `search` the paths are ordinary unknown ones.
  const plain = await web({});
  expect((await tavilySearch(plain.url, TAVILY_CANARY, { query: "q" })).status).toBe(404);
});

const SERVER_CLI = fileURLToPath(new URL("../src/server-cli.ts", import.meta.url));

test("fake-server --web FILE serves the file's routes and search", async () => {
  const dir = mkdtempSync(join(tmpdir(), "fake-web-"));
  const file = join(dir, "web.json");
  writeFileSync(
    file,
    JSON.stringify({
      routes: {
        "/page": { type: "text/html; charset=utf-8", body: HTML },
        "/logo.png": { type: "image/png", body: { base64: Buffer.from(PNG).toString("base64") } },
      },
      search: { results: HITS },
    }),
  );
  const child = spawn(process.execPath, ["--import", "tsx", SERVER_CLI, "--web", file], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  onTestFinished(() => {
    child.kill("SIGTERM");
  });
  let output = "";
  for await (const chunk of child.stdout) {
    output += String(chunk);
    if (output.split("\n").length > 2) break;
  }
  const url = /^listening on (\S+)$/m.exec(output)?.[1] ?? "";
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  const control = /^control: (\S+)$/m.exec(output)?.[1] ?? "";
  expect(control).toMatch(new RegExp(`^${url}/_fake/[\\w-]{22}$`));
  expect(await (await fetch(`${url}/page`)).text()).toBe(HTML);
  expect(new Uint8Array(await (await fetch(`${url}/logo.png`)).arrayBuffer())).toEqual(PNG);
  const found = (await (await tavilySearch(url, TAVILY_CANARY, { query: "q" })).json()) as {
    results: unknown[];
  };
  expect(found.results[0]).toMatchObject({ title: "First" });
  const listed = (await (await fetch(`${control}/requests`)).json()) as { path: string }[];
  expect(listed.map((request) => request.path)).toEqual(["/page", "/logo.png", "/search"]);
  child.kill("SIGTERM");
  const [code] = await once(child, "exit");
  expect(code).toBe(0);
}, 30_000);

test("fake-server --web with a bad file says so on one line and exits 2", async () => {
  const dir = mkdtempSync(join(tmpdir(), "fake-web-"));
  const file = join(dir, "web.json");
  writeFileSync(file, JSON.stringify({ routes: { page: {} } }));
  const child = spawn(process.execPath, ["--import", "tsx", SERVER_CLI, "--web", file], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += String(chunk);
  });
  const [code] = await once(child, "close");
  expect(code).toBe(2);
  expect(stderr).toBe(
    `error: web file ${file} is not a JSON object of routes and search: route "page" must start with /\n`,
  );
}, 30_000);

// A command that asks the model (the fake server) for a URL, fetches it, and searches.
const FETCHES = `
const ask = await fetch(process.env.ANTHROPIC_BASE_URL + "/v1/messages", {
  method: "POST",
  headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
  body: JSON.stringify({ model: "claude-sonnet-5", max_tokens: 64, messages: [{ role: "user", content: "go" }] }),
});
const url = (await ask.json()).content[0].text;
const page = await fetch(url);
console.log("fetched: " + (await page.text()));
console.log("local fetch: " + process.env.AGENT_CODE_ALLOW_LOCAL_FETCH);
const search = await fetch(process.env.AGENT_CODE_SEARCH_BASE_URL + "/search", {
  method: "POST",
  headers: { "content-type": "application/json", authorization: "Bearer " + process.env.TAVILY_API_KEY },
  body: JSON.stringify({ query: "fixture", max_results: 1 }),
});
console.log("search: " + (await search.json()).results[0].title);
if (process.argv[2] === "leak") console.error("key " + process.env[process.argv[3]]);
`;

function webScenario(args: string[], extra: Partial<Scenario> = {}): Scenario {
  return {
    id: "web",
    title: "web",
    level: "core",
    args,
    server: {
      steps: (context) => [{ content: [{ type: "text", text: `${context.webUrl}/start` }] }],
    },
    web: {
      routes: (context) => ({
        "/start": { redirect: `${context.webUrl}/page` },
        "/page": { type: "text/plain; charset=utf-8", body: "Fixture Title" },
      }),
      search: { results: HITS },
    },
    judgements: [],
    ...extra,
  };
}

test("a scenario's steps and routes name the web's URL; judgements see its requests", async () => {
  const dir = mkdtempSync(join(tmpdir(), "web-cli-"));
  const cli = join(dir, "fetches.mjs");
  writeFileSync(cli, FETCHES);
  let seen: Observed | undefined;
  const result = await runContract(
    {
      stage: "t",
      title: "t",
      scenarios: [
        webScenario([], {
          judgements: [
            judge("", "keeps what it saw", (o) => {
              seen = o;
              return true;
            }),
          ],
        }),
      ],
    },
    { command: ["node", cli] },
  );
  expect(result.scenarios[0]?.failures).toEqual([]);
  expect(seen?.stdoutLines).toEqual(["fetched: Fixture Title", "local fetch: 1", "search: First"]);
  const webUrl = seen?.context.webUrl ?? "";
  expect(webUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(
    seen?.webRequests.map((request) => [request.method, request.path, request.status]),
  ).toEqual([
    ["GET", "/start", 302],
    ["GET", "/page", 200],
    ["POST", "/search", 200],
  ]);
  expect(seen?.webRequests[2]?.search).toEqual({
    provider: "tavily",
    query: "fixture",
    count: 1,
    keyAccepted: true,
  });
}, 30_000);

test("a printed TAVILY_API_KEY or BRAVE_API_KEY fails the scenario like any key", async () => {
  const dir = mkdtempSync(join(tmpdir(), "web-cli-"));
  const cli = join(dir, "fetches.mjs");
  writeFileSync(cli, FETCHES);
  const result = await runContract(
    {
      stage: "t",
      title: "t",
      scenarios: [
        webScenario(["leak", "TAVILY_API_KEY"]),
        {
          ...webScenario(["leak", "BRAVE_API_KEY"], { env: { BRAVE_API_KEY: BRAVE_CANARY } }),
          id: "brave",
        },
      ],
    },
    { command: ["node", cli] },
  );
  expect(result.scenarios.map((scenario) => scenario.failures.map((f) => f.message))).toEqual([
    ["the value of TAVILY_API_KEY appeared in the output: never print a key, not even in an error"],
    ["the value of BRAVE_API_KEY appeared in the output: never print a key, not even in an error"],
  ]);
}, 30_000);

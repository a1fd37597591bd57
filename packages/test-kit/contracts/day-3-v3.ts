// Day 3, v3: web_fetch, guarded on the address it connects to (taught in docs/day-3-web.md). The
// folder of day-3-v2's scenarios, and a fake web on 127.0.0.1 that serves a page, a redirect, a
// picture, a big page, and the faults a fetch must survive. Core scenarios are what the Python
// course's web_fetch also does (the page's text without its markup, a redirect followed, a non-http
// scheme or a binary type refused and the run goes on, a huge page cut); the loopback guard, the
// texts, the caps and the knobs are conformance.
//
// A contract runs learners' code, which may have no guard at all: every address a scenario
// expects refused must, unguarded, still land on this machine. So the refused redirect goes to
// 0.0.0.0 (this machine, on Linux and macOS), never to 169.254.169.254, which on a cloud runner
// is the metadata service the lesson is about.

import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Contract, Judgement, Observed, Scenario, ScenarioContext } from "../src/contract.ts";
import { judge, noRequestCarries, observations, offeredTools } from "../src/judgements.ts";
import { drawNumber, drawWord, FIXED_SEED, type Seeded } from "../src/vary.ts";
import type { WebRoutes } from "../src/web-server.ts";
import { fileScenario, fileTwin, oneCall, theResult, wentOn } from "./day-3-v1.ts";
import { day3v2 } from "./day-3-v2.ts";
import { namesEveryToolOffered, scenarioOf } from "./shared.ts";

const FETCH = "docs/day-3-web.md#v3-a-url-is-untrusted-input";
const GUARD = "docs/day-3-web.md#check-the-address-you-connect-to";
const READING = "docs/day-3-web.md#cap-while-you-read";
const PAGES = "docs/day-3-web.md#pages-as-markdown";

// Easy to spot in any request: what must never reach the model.
const SCRIPT_CALL = "evil_4b1d()";
const PNG_MARKER = "png-body-9e2c";
const METADATA = "metadata-secret-51f0";

const PAGE_HTML = pageHtml("Fixture Title");

function pageHtml(title: string): string {
  return `<!doctype html>
<html><head><title>${title}</title>
<style>.hidden { display: none }</style>
<script>${SCRIPT_CALL}</script></head>
<body><h1>${title}</h1>
<p>The fixture page says <b>hello</b>. Read the <a href="/docs/next">next page</a>.</p>
<img src="/logo.png" alt="logo">
</body></html>`;
}

// The title of fetch-html's page: `Fixture Title` on the pages, a drawn word and number at another
// seed.
function seededTitle(context: Seeded): string {
  const word = drawWord(context, "day-3-v3/title", "Fixture");
  const number = drawNumber(context, "day-3-v3/number", 0, [100, 999]);
  return context.seed === FIXED_SEED ? "Fixture Title" : `${word} report ${number}`;
}

// What the fake web serves in every v3 scenario. Built per run: the refused redirect names the
// web's own port.
function routes(context: ScenarioContext): WebRoutes {
  const port = new URL(context.webUrl ?? "http://127.0.0.1:1").port;
  return {
    "/page": { type: "text/html; charset=utf-8", body: PAGE_HTML },
    "/start": { redirect: "/page" },
    "/logo.png": {
      type: "image/png",
      body: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, ...Buffer.from(PNG_MARKER), 0, 0]),
    },
    "/big": { type: "text/plain; charset=utf-8", body: "a line of the big page\n", bytes: 3 << 20 },
    "/endless": { type: "text/plain", body: "again and again\n", endless: true },
    "/bomb": { type: "text/plain", body: "z", bytes: 16 << 20, encoding: "gzip" },
    "/loop": { redirect: "/loop" },
    "/slow": { type: "text/plain", body: "late", delayMs: 5000 },
    "/data.json": { type: "application/json", body: '{"answer": 42, "html": "<p>as is</p>"}' },
    "/to-this-machine": { redirect: `http://0.0.0.0:${port}/metadata` },
    "/metadata": { type: "text/plain", body: METADATA },
  };
}

interface FetchScenario {
  id: string;
  title: string;
  level: Scenario["level"];
  // The URL the model asks for: a path on the fake web, or any URL built from the run.
  url: string | ((context: ScenarioContext) => string);
  env?: Scenario["env"];
  // The fake web's routes, when not `routes`.
  routes?: (context: ScenarioContext) => WebRoutes;
  judgements: Judgement[];
}

function urlOf(spec: FetchScenario, context: ScenarioContext): string {
  if (typeof spec.url === "function") return spec.url(context);
  return spec.url.startsWith("/") ? `${context.webUrl}${spec.url}` : spec.url;
}

// A day-3 folder scenario whose model makes one web_fetch call and answers with its result.
function fetchScenario(spec: FetchScenario): Scenario {
  const base = fileScenario({
    id: spec.id,
    title: spec.title,
    level: spec.level,
    prompt: "Fetch the page and tell me what it says",
    steps: [],
    judgements: spec.judgements,
  });
  return {
    ...base,
    server: { steps: (context) => oneCall("web_fetch", { url: urlOf(spec, context) }) },
    web: { routes: spec.routes ?? routes },
    ...(spec.env === undefined ? {} : { env: spec.env }),
  };
}

// Without the tool on offer, a refusal would only be "unknown tool".
const offered = judge(FETCH, "the first request should offer the `web_fetch` tool", (o) =>
  offeredTools(o.requests[0]).includes("web_fetch"),
);

const resultText = (o: Observed) => theResult(o)?.text ?? "";
const paths = (o: Observed) => o.webRequests.map((request) => request.path);

function nothingFetched(docs: string): Judgement {
  return judge(
    docs,
    "the fake web should get no request: the URL is refused before connecting",
    (o) => o.webRequests.length === 0,
  );
}

// The result is exactly this refusal, as an is_error result.
function refusedWith(docs: string, expected: (o: Observed) => string): Judgement {
  return judge(docs, "expected the refusal's text, with is_error: true", (o) => {
    return observations(o)[0] === expected(o) && theResult(o)?.isError === true;
  });
}

const withoutOptIn = { AGENT_CODE_ALLOW_LOCAL_FETCH: undefined };

// The core scenarios that conformance twins below judge again, on the same run.
const fetchBinaryType = fetchScenario({
  id: "fetch-binary-type",
  title: "web_fetch of an image is refused, and the run goes on",
  level: "core",
  url: "/logo.png",
  judgements: [
    offered,
    ...wentOn(PAGES),
    noRequestCarries(PAGES, PNG_MARKER, "the image's bytes"),
    noRequestCarries(PAGES, "\u0000", "a NUL byte of the image"),
  ],
});

const fetchBig = fetchScenario({
  id: "fetch-big",
  title: "web_fetch of a 3 MiB page: the model gets a cut, under 21,000 characters",
  level: "core",
  url: "/big",
  judgements: [
    offered,
    ...wentOn(READING),
    judge(READING, "expected the page's start and a result under 21,000 characters", (o) => {
      const text = resultText(o);
      return text.includes("a line of the big page") && text.length < 21_000;
    }),
  ],
});

const fetch404 = fetchScenario({
  id: "fetch-404",
  title: "web_fetch of a missing page: the model reads why, and the run goes on",
  level: "core",
  url: "/missing",
  judgements: [offered, ...wentOn(FETCH)],
});

export const day3v3: Contract = {
  stage: "day-3-v3",
  title: "Day 3 v3: web_fetch, guarded on the address it connects to",
  base: "day-3-v2",
  scenarios: [
    fetchScenario({
      id: "fetch-html",
      title: "web_fetch of an HTML page: its text reaches the model, its markup and script do not",
      level: "core",
      url: "/page",
      // Seeded: the page's title is drawn.
      routes: (context) => ({
        ...routes(context),
        "/page": { type: "text/html; charset=utf-8", body: pageHtml(seededTitle(context)) },
      }),
      judgements: [
        offered,
        ...wentOn(PAGES),
        judge(PAGES, "the page's text (its title) should reach the model", (o) =>
          resultText(o).includes(seededTitle(o.context)),
        ),
        judge(PAGES, "the page's markup (`<p>`, `<h1>`) should not reach the model", (o) => {
          const text = resultText(o);
          return !text.includes("<p>") && !text.includes("<h1>");
        }),
        noRequestCarries(PAGES, SCRIPT_CALL, "the page's <script>"),
      ],
    }),
    fetchScenario({
      id: "fetch-redirect",
      title: "web_fetch follows a redirect to the page",
      level: "core",
      url: "/start",
      judgements: [
        offered,
        ...wentOn(FETCH),
        judge(FETCH, "the fake web should be asked for /start, then /page", (o) => {
          const asked = paths(o);
          return asked.indexOf("/start") === 0 && asked.includes("/page");
        }),
        judge(FETCH, "the redirected page's text `Fixture Title` should reach the model", (o) =>
          resultText(o).includes("Fixture Title"),
        ),
      ],
    }),
    fetchScenario({
      id: "fetch-scheme",
      title: "web_fetch of a file:// URL is refused before anything is read, and the run goes on",
      level: "core",
      url: (context) => pathToFileURL(join(context.dir, "secret.txt")).href,
      judgements: [offered, ...wentOn(GUARD), nothingFetched(GUARD)],
    }),
    fetchBinaryType,
    fetchBig,
    fetch404,
    fetchScenario({
      id: "fetch-loopback-refused",
      title: "without AGENT_CODE_ALLOW_LOCAL_FETCH=1, 127.0.0.1 is refused and nothing connects",
      level: "conformance",
      url: "/page",
      env: withoutOptIn,
      judgements: [
        nothingFetched(GUARD),
        refusedWith(GUARD, () => "refusing to fetch a private or loopback address: 127.0.0.1"),
      ],
    }),
    fetchScenario({
      id: "fetch-loopback-decimal",
      title: "127.0.0.1 spelled as one decimal number is refused too",
      level: "conformance",
      url: (context) => `http://2130706433:${new URL(context.webUrl ?? "").port}/page`,
      env: withoutOptIn,
      judgements: [
        nothingFetched(GUARD),
        refusedWith(GUARD, () => "refusing to fetch a private or loopback address: 127.0.0.1"),
      ],
    }),
    fetchScenario({
      id: "fetch-loopback-mapped",
      title: "127.0.0.1 as an IPv4-mapped IPv6 address is refused too",
      level: "conformance",
      url: (context) => `http://[::ffff:127.0.0.1]:${new URL(context.webUrl ?? "").port}/page`,
      env: withoutOptIn,
      judgements: [
        nothingFetched(GUARD),
        refusedWith(GUARD, () => "refusing to fetch a private or loopback address: ::ffff:7f00:1"),
      ],
    }),
    fetchScenario({
      id: "fetch-redirect-refused",
      title: "a redirect to 0.0.0.0 is refused at the hop, even with loopback allowed",
      level: "conformance",
      url: "/to-this-machine",
      judgements: [
        judge(
          GUARD,
          "the fake web should be asked for /to-this-machine only, never /metadata",
          (o) => paths(o).join(",") === "/to-this-machine",
        ),
        noRequestCarries(GUARD, METADATA, "the page behind the refused redirect"),
        refusedWith(
          GUARD,
          (o) =>
            `refusing to fetch a private or loopback address: 0.0.0.0 (redirected from ${o.context.webUrl}/to-this-machine)`,
        ),
      ],
    }),
    fetchScenario({
      id: "fetch-userinfo",
      title: "a URL with a user name and password is refused before connecting",
      level: "conformance",
      url: (context) => context.webUrl?.replace("http://", "http://admin:hunter2@") ?? "",
      judgements: [
        nothingFetched(GUARD),
        refusedWith(GUARD, () => "URLs with a user name or password are not fetched"),
      ],
    }),
    // A run of its own, not fetch-scheme's: the text names the URL, here ftp:// where fetch-scheme
    // asks for a file:// URL.
    fetchScenario({
      id: "fetch-scheme-text",
      title: "the text for a scheme other than http and https",
      level: "conformance",
      url: "ftp://127.0.0.1/file.txt",
      judgements: [
        nothingFetched(GUARD),
        refusedWith(
          GUARD,
          () => "only http and https URLs can be fetched: ftp://127.0.0.1/file.txt",
        ),
      ],
    }),
    fetchScenario({
      id: "fetch-too-many-redirects",
      title: "a redirect loop stops after 5 redirects",
      level: "conformance",
      url: "/loop",
      judgements: [
        judge(
          FETCH,
          "expected 6 requests for /loop: the first and 5 redirects",
          (o) => paths(o).join(",") === Array(6).fill("/loop").join(","),
        ),
        refusedWith(FETCH, (o) => `too many redirects (5): ${o.context.webUrl}/loop`),
      ],
    }),
    fetchScenario({
      id: "fetch-timeout",
      title: "AGENT_CODE_FETCH_TIMEOUT_MS=300 against a page that answers after 5 s",
      level: "conformance",
      url: "/slow",
      env: { AGENT_CODE_FETCH_TIMEOUT_MS: "300" },
      judgements: [refusedWith(READING, (o) => `timed out after 300 ms: ${o.context.webUrl}/slow`)],
    }),
    fetchScenario({
      id: "fetch-endless",
      title: "a body that never ends is cut at 2 MiB while reading, and the run finishes",
      level: "conformance",
      url: "/endless",
      judgements: [
        ...wentOn(READING),
        judge(READING, "expected the result to end `[page cut at 2097152 bytes]`", (o) =>
          resultText(o).endsWith("\n[page cut at 2097152 bytes]"),
        ),
      ],
    }),
    fetchScenario({
      id: "fetch-gzip-bomb",
      title: "a small gzip download that decodes to 16 MiB is cut at 2 MiB of decoded bytes",
      level: "conformance",
      url: "/bomb",
      judgements: [
        judge(READING, "expected the result to end `[page cut at 2097152 bytes]`", (o) =>
          resultText(o).endsWith("\n[page cut at 2097152 bytes]"),
        ),
      ],
    }),
    fileTwin(fetchBig, {
      id: "fetch-big-text",
      title: "the markers of a page cut twice: at 20,000 characters, and at 2 MiB while reading",
      judgements: [
        judge(
          READING,
          "expected 20,000 characters, `[showing the first N of 2097152 chars]` and `[page cut at 2097152 bytes]`",
          (o) => {
            const lines = resultText(o).split("\n");
            const shown = resultText(o).slice(0, resultText(o).lastIndexOf("\n[showing"));
            return (
              shown.length === 20_000 &&
              /^\[showing the first \d+ of 2097152 chars\]$/.test(lines.at(-2) ?? "") &&
              lines.at(-1) === "[page cut at 2097152 bytes]"
            );
          },
        ),
      ],
    }),
    fetchScenario({
      id: "fetch-header-text",
      title:
        "the result starts with the final URL and the content type; the request names agent-code",
      level: "conformance",
      url: "/start",
      judgements: [
        judge(
          PAGES,
          "expected `url: <web>/page`, `content-type: text/html; charset=utf-8`, a blank line",
          (o) =>
            resultText(o).startsWith(
              `url: ${o.context.webUrl}/page\ncontent-type: text/html; charset=utf-8\n\n`,
            ),
        ),
        judge(FETCH, "the request should send `User-Agent: agent-code/…` and accept gzip", (o) => {
          const headers = o.webRequests[0]?.headers ?? {};
          return (
            (headers["user-agent"] ?? "").startsWith("agent-code/") &&
            (headers["accept-encoding"] ?? "").includes("gzip")
          );
        }),
      ],
    }),
    fetchScenario({
      id: "fetch-absolute-links",
      title: "links come absolute, images and scripts are dropped",
      level: "conformance",
      url: "/page",
      judgements: [
        judge(PAGES, "expected `[next page](<web>/docs/next)` and no image", (o) => {
          const text = resultText(o);
          return (
            text.includes(`[next page](${o.context.webUrl}/docs/next)`) &&
            !text.includes("![") &&
            text.includes("# Fixture Title")
          );
        }),
      ],
    }),
    fetchScenario({
      id: "fetch-json-raw",
      title: "JSON comes as it is",
      level: "conformance",
      url: "/data.json",
      judgements: [
        judge(
          PAGES,
          "expected the head, then the JSON exactly as served",
          (o) =>
            resultText(o) ===
            `url: ${o.context.webUrl}/data.json\ncontent-type: application/json\n\n{"answer": 42, "html": "<p>as is</p>"}`,
        ),
      ],
    }),
    fileTwin(fetchBinaryType, {
      id: "fetch-binary-type-text",
      title: "the text for a type that is not text",
      judgements: [refusedWith(PAGES, () => "unsupported content type: image/png")],
    }),
    fileTwin(fetch404, {
      id: "fetch-404-text",
      title: "the text for a page that is not there",
      judgements: [refusedWith(FETCH, (o) => `HTTP 404 Not Found: ${o.context.webUrl}/missing`)],
    }),
    // Judged on Day 2's unknown-tool run, which this stage keeps: the tools offered are this stage's.
    fileTwin(scenarioOf(day3v2, "unknown-tool"), {
      id: "unknown-tool-text",
      title: "the unknown-tool text names the tools there are, web_fetch too",
      judgements: [namesEveryToolOffered(FETCH, "web_fetch")],
    }),
    // Day 3 v2's scenarios, but the unknown-tool text, which names this stage's longer list.
    ...day3v2.scenarios.filter((scenario) => scenario.id !== "unknown-tool-text"),
  ],
};

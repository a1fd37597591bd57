// A fake web on 127.0.0.1 for the web tools: it serves what a scenario lists (pages with a content
// type and charset, redirects, status codes, gzip and brotli bodies, big, endless and slow bodies,
// binary types), answers the search APIs of Tavily and Brave, and records every request.
// The shapes of the search APIs, with their sources, are in reference/search-apis.md.
import { createServer, type IncomingMessage, type ServerResponse, STATUS_CODES } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { brotliCompressSync, createBrotliCompress, createGzip, gzipSync } from "node:zlib";
import {
  CONTROL_PREFIX,
  controlRoute,
  controlToken,
  listenOnLoopback,
  NEEDS_TOKEN,
} from "./listen.ts";

/** One thing the web serves at a path. */
export interface WebRoute {
  /** 200 by default; 302 when `redirect` is set. */
  status?: number;
  /** The Content-Type header as sent, charset and all (`text/html; charset=utf-8`). */
  type?: string;
  /** The body; without one a status other than 200 gets `<status> <reason>` as text. */
  body?: string | Uint8Array;
  /** The body sent compressed, with its Content-Encoding, whatever the client accepts. */
  encoding?: "gzip" | "br";
  /** Location of a redirect: a path on this web (`/b`) or any URL. */
  redirect?: string;
  /** Wait this long before the status line: a slow first byte. */
  delayMs?: number;
  /** The body repeated (or `x`) to exactly this many bytes, before any encoding. */
  bytes?: number;
  /** The body repeated without end, until the client hangs up. */
  endless?: boolean;
  /** More headers to send. */
  headers?: Record<string, string>;
}

/** Paths (without the query) to routes. */
export type WebRoutes = Record<string, WebRoute>;

/** One search hit, as each provider's shape renders it. */
export interface SearchHit {
  title: string;
  url: string;
  /** Tavily's `content`, Brave's `description`. */
  snippet: string;
}

export interface WebSearch {
  /** What every query finds, cut to the count the request asks for. */
  results: SearchHit[];
  /** The key Tavily accepts as `Authorization: Bearer <key>`; TAVILY_CANARY by default. */
  tavilyKey?: string;
  /** The key Brave accepts as `X-Subscription-Token`; BRAVE_CANARY by default. */
  braveKey?: string;
  /** Answer every accepted search with this status instead (500: the provider is down). */
  status?: number;
}

/** What a search request asked, when it was one. */
export interface SearchQuery {
  provider: "tavily" | "brave";
  query: string | undefined;
  /** `max_results` (Tavily) or `count` (Brave), as sent; undefined when not sent. */
  count: number | undefined;
  /** The key was the right one, in the header the provider reads. */
  keyAccepted: boolean;
}

export interface WebRequest {
  /** 0-based position in `requests()`. */
  index: number;
  method: string;
  /** The path without the query string. */
  path: string;
  /** The query string's parameters (the last of a repeated name). */
  query: Record<string, string>;
  /** Lower-case names; `authorization` and `x-subscription-token` are left out. */
  headers: Record<string, string>;
  /** The request body as text ("" when none). */
  body: string;
  /** The status the web answered with (0 when the connection was dropped first). */
  status: number;
  search?: SearchQuery;
}

export interface FakeWebOptions {
  /** 0 (the default) takes a free port. */
  port?: number;
  routes?: WebRoutes;
  /** Answer the search APIs (`POST /search`, `GET /res/v1/web/search`). */
  search?: WebSearch;
  /** What `GET /_fake/<token>/requests` needs in its path; a random token by default. */
  controlToken?: string;
}

export interface FakeWeb {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** `http://127.0.0.1:PORT/_fake/<token>`: where the control route is, token and all. */
  controlUrl: string;
  /** Replaces the routes (for routes that name the web's own URL). */
  routes(routes: WebRoutes): void;
  requests(): WebRequest[];
  close(): Promise<void>;
}

/** The Tavily key every scenario's command gets by default (TAVILY_API_KEY). */
export const TAVILY_CANARY = "tvly-agent-code-canary";
/** The Brave key the fake accepts by default; a scenario sets BRAVE_API_KEY to it. */
export const BRAVE_CANARY = "BSA-agent-code-canary";

const TAVILY_PATH = "/search";
const BRAVE_PATH = "/res/v1/web/search";
const CHUNK = 64 * 1024;

interface WebState {
  token: string;
  routes: WebRoutes;
  search: WebSearch | undefined;
  records: WebRequest[];
  closing: AbortController;
  // Encoded bodies by route: a big compressed body is worked out once.
  bodies: WeakMap<WebRoute, Buffer>;
}

export async function startFakeWeb(options: FakeWebOptions = {}): Promise<FakeWeb> {
  const state: WebState = {
    token: options.controlToken ?? controlToken(),
    routes: options.routes ?? {},
    search: options.search,
    records: [],
    closing: new AbortController(),
    bodies: new WeakMap(),
  };
  const server = createServer((req, res) => {
    handle(req, res, state).catch(() => res.destroy());
  });
  const listening = await listenOnLoopback(server, options.port);
  return {
    url: listening.url,
    controlUrl: `${listening.url}${CONTROL_PREFIX}${state.token}`,
    routes(routes) {
      state.routes = routes;
      state.bodies = new WeakMap();
    },
    requests() {
      return [...state.records];
    },
    async close() {
      state.closing.abort();
      await listening.close();
    },
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, state: WebState): Promise<void> {
  const body = await readText(req);
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  const method = req.method ?? "GET";
  if (url.pathname.startsWith(CONTROL_PREFIX)) {
    const route = controlRoute(url.pathname, state.token);
    if (route === "requests" && method === "GET") {
      return sendText(res, 200, "application/json", JSON.stringify(state.records));
    }
    if (route === undefined) return sendText(res, 403, "text/plain; charset=utf-8", NEEDS_TOKEN);
    return sendText(res, 404, "text/plain; charset=utf-8", "404 Not Found");
  }
  const record: WebRequest = {
    index: state.records.length,
    method,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: recordedHeaders(req),
    body,
    status: 0,
  };
  state.records.push(record);
  res.once("finish", () => {
    record.status = res.statusCode;
  });
  const route = state.routes[url.pathname];
  if (route !== undefined) return serveRoute(res, route, state);
  if (state.search !== undefined) {
    const provider =
      method === "POST" && url.pathname === TAVILY_PATH
        ? tavily
        : method === "GET" && url.pathname === BRAVE_PATH
          ? brave
          : undefined;
    if (provider !== undefined) {
      const { status, body: answer } = provider(req, record, state.search);
      return sendText(res, status, "application/json", JSON.stringify(answer));
    }
  }
  sendText(res, 404, "text/plain; charset=utf-8", "404 Not Found");
}

async function serveRoute(res: ServerResponse, route: WebRoute, state: WebState): Promise<void> {
  if (route.delayMs) {
    try {
      await sleep(route.delayMs, undefined, { signal: state.closing.signal });
    } catch {
      return;
    }
    if (res.destroyed) return;
  }
  const status = route.status ?? (route.redirect === undefined ? 200 : 302);
  const headers: Record<string, string | number> = {
    ...(route.type === undefined ? {} : { "content-type": route.type }),
    ...(route.redirect === undefined ? {} : { location: route.redirect }),
    ...(route.encoding === undefined ? {} : { "content-encoding": route.encoding }),
    ...route.headers,
  };
  if (route.endless) return sendEndless(res, status, headers, route, state.closing.signal);
  let bytes = state.bodies.get(route);
  if (bytes === undefined) {
    bytes = encode(plainBody(route, status), route.encoding);
    state.bodies.set(route, bytes);
  }
  if (route.type === undefined && route.body === undefined && status !== 200) {
    headers["content-type"] = "text/plain; charset=utf-8";
  }
  res.writeHead(status, { ...headers, "content-length": bytes.length });
  res.end(bytes);
}

function plainBody(route: WebRoute, status: number): Buffer {
  const given =
    route.body === undefined
      ? status === 200 || route.redirect !== undefined
        ? Buffer.alloc(0)
        : Buffer.from(`${status} ${STATUS_CODES[status] ?? ""}`.trim())
      : Buffer.from(route.body);
  if (route.bytes === undefined) return given;
  return repeated(given.length > 0 ? given : Buffer.from("x"), route.bytes);
}

function repeated(unit: Buffer, size: number): Buffer {
  return Buffer.alloc(size, unit);
}

function encode(bytes: Buffer, encoding: WebRoute["encoding"]): Buffer {
  if (encoding === "gzip") return gzipSync(bytes);
  if (encoding === "br") return brotliCompressSync(bytes);
  return bytes;
}

// The body again and again, as fast as the client reads, until it hangs up or the web closes.
// With an encoding the stream is compressed as it goes (a body that never ends, decoded).
async function sendEndless(
  res: ServerResponse,
  status: number,
  headers: Record<string, string | number>,
  route: WebRoute,
  signal: AbortSignal,
): Promise<void> {
  res.writeHead(status, headers);
  const unit = route.body === undefined ? Buffer.from("x") : Buffer.from(route.body);
  const chunk = repeated(unit, Math.max(CHUNK, unit.length));
  const sink =
    route.encoding === "gzip"
      ? createGzip()
      : route.encoding === "br"
        ? createBrotliCompress()
        : undefined;
  sink?.pipe(res);
  const target = sink ?? res;
  const stop = () => res.destroy();
  signal.addEventListener("abort", stop, { once: true });
  try {
    while (!res.destroyed && !signal.aborted) {
      if (!target.write(chunk)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            target.off("drain", done);
            res.off("close", done);
            resolve();
          };
          target.once("drain", done);
          res.once("close", done);
        });
      }
    }
  } finally {
    signal.removeEventListener("abort", stop);
    sink?.destroy();
  }
}

// Tavily: POST /search, `Authorization: Bearer <key>`, a JSON body {query, max_results}.
function tavily(req: IncomingMessage, record: WebRequest, search: WebSearch): JsonAnswer {
  const key = search.tavilyKey ?? TAVILY_CANARY;
  const keyAccepted = req.headers.authorization === `Bearer ${key}`;
  let body: { query?: unknown; max_results?: unknown } = {};
  try {
    body = JSON.parse(record.body || "{}");
  } catch {
    // Recorded as a query of nothing; the answer below is the 400 the service gives.
  }
  const count = typeof body.max_results === "number" ? body.max_results : undefined;
  const query = typeof body.query === "string" ? body.query : undefined;
  record.search = { provider: "tavily", query, count, keyAccepted };
  if (!keyAccepted) {
    return json(401, { detail: { error: "Unauthorized: missing or invalid API key." } });
  }
  if (query === undefined) {
    return json(400, { detail: { error: "Query is missing." } });
  }
  if (search.status !== undefined && search.status !== 200) {
    return json(search.status, { detail: { error: STATUS_CODES[search.status] ?? "" } });
  }
  const results = search.results.slice(0, count ?? 5).map((hit, index) => ({
    title: hit.title,
    url: hit.url,
    content: hit.snippet,
    score: Number((0.9 - index * 0.05).toFixed(2)),
    raw_content: null,
  }));
  return json(200, {
    query,
    follow_up_questions: null,
    answer: null,
    images: [],
    results,
    response_time: 0.01,
  });
}

// Brave: GET /res/v1/web/search?q=&count=, `X-Subscription-Token: <key>`. A wrong key is a 422
// in Brave's error shape, not a 401 (reference/search-apis.md).
function brave(req: IncomingMessage, record: WebRequest, search: WebSearch): JsonAnswer {
  const key = search.braveKey ?? BRAVE_CANARY;
  const token = req.headers["x-subscription-token"];
  const keyAccepted = token === key;
  const query = record.query.q;
  const count = record.query.count === undefined ? undefined : Number(record.query.count);
  record.search = { provider: "brave", query, count, keyAccepted };
  if (token === undefined) {
    return json(
      422,
      braveError(422, "VALIDATION", "Unable to validate request parameter(s)", {
        errors: [
          {
            type: "missing",
            loc: ["header", "x-subscription-token"],
            msg: "Field required",
            input: null,
          },
        ],
      }),
    );
  }
  if (!keyAccepted) {
    return json(
      422,
      braveError(422, "SUBSCRIPTION_TOKEN_INVALID", "The provided subscription token is invalid.", {
        component: "authentication",
      }),
    );
  }
  if (search.status !== undefined && search.status !== 200) {
    const status = search.status;
    return json(status, braveError(status, "UNKNOWN", STATUS_CODES[status] ?? "", {}));
  }
  const results = search.results.slice(0, count ?? 20).map((hit) => ({
    type: "search_result",
    title: hit.title,
    url: hit.url,
    description: hit.snippet,
    is_source_local: false,
    is_source_both: false,
    family_friendly: true,
  }));
  return json(200, {
    type: "search",
    query: { original: query ?? "" },
    web: { type: "search", results, family_friendly: true },
  });
}

interface JsonAnswer {
  status: number;
  body: unknown;
}

function json(status: number, body: unknown): JsonAnswer {
  return { status, body };
}

function braveError(
  status: number,
  code: string,
  detail: string,
  meta: Record<string, unknown>,
): object {
  return {
    type: "ErrorResponse",
    error: { id: "00000000-0000-4000-8000-000000000000", status, code, detail, meta },
    time: 0,
  };
}

function sendText(res: ServerResponse, status: number, type: string, text: string): void {
  res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(text) });
  res.end(text);
}

function recordedHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (name === "authorization" || name === "x-subscription-token" || value === undefined)
      continue;
    headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

// Request bodies here are small (a search's JSON); a client that hangs up mid-body gets nothing.
function readText(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.once("error", reject);
    req.once("close", () => {
      if (!req.complete) reject(new Error("the client closed the connection mid-request"));
    });
    req.once("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

/**
 * Routes and search from JSON (the `fake-server --web FILE` command's file): the options'
 * shape, where a body may also be `{ "base64": "..." }` for bytes.
 */
export function parseWebFile(value: unknown): Pick<FakeWebOptions, "routes" | "search"> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error('expected an object with "routes" and/or "search"');
  }
  const { routes = {}, search } = value as { routes?: unknown; search?: unknown };
  if (typeof routes !== "object" || routes === null || Array.isArray(routes)) {
    throw new Error('"routes" must be an object of paths to routes');
  }
  const parsed: WebRoutes = {};
  for (const [path, route] of Object.entries(routes)) {
    if (!path.startsWith("/")) throw new Error(`route ${JSON.stringify(path)} must start with /`);
    if (typeof route !== "object" || route === null) {
      throw new Error(`route ${path} must be an object`);
    }
    const body = (route as { body?: unknown }).body;
    const base64 = (body as { base64?: unknown } | undefined)?.base64;
    parsed[path] = {
      ...(route as WebRoute),
      ...(typeof base64 === "string"
        ? { body: new Uint8Array(Buffer.from(base64, "base64")) }
        : {}),
    };
  }
  if (search !== undefined) {
    const results = (search as { results?: unknown })?.results;
    if (!Array.isArray(results)) throw new Error('"search.results" must be an array');
  }
  return { routes: parsed, ...(search === undefined ? {} : { search: search as WebSearch }) };
}

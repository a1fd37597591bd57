// Web search behind an interface: the tool asks a SearchProvider, and which service answers (and
// with which key) is configuration. Tavily is the one the course teaches, Brave the second; a
// fake of both answers on 127.0.0.1 in the tests. A key goes to its own provider in one header,
// and never into a message, a result or the trace.
import { ToolError } from "./tools/index.ts";

// One result, the same whichever service found it.
export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
}

export interface SearchProvider {
  readonly name: string;
  search(query: string, n: number, signal: AbortSignal): Promise<SearchHit[]>;
}

export interface SearchOptions {
  // Where the service is; tests point it at the fake web.
  baseURL?: string;
  timeoutMs?: number;
}

type Env = Record<string, string | undefined>;

const TAVILY_URL = "https://api.tavily.com";
const BRAVE_URL = "https://api.search.brave.com";
const DEFAULT_TIMEOUT_MS = 15_000;
// The most of an answer that is read, as web_fetch reads a page: a results list is a few KiB.
const MAX_ANSWER_BYTES = 2 * 1024 * 1024;

// Tavily: POST /search with the key as a Bearer token; hits are results[{title, url, content}].
export class TavilySearch implements SearchProvider {
  readonly name = "tavily";
  // A private field: console.log(provider) and JSON.stringify(provider) never show it.
  readonly #key: string;
  readonly #baseURL: string;
  readonly #timeoutMs: number;

  constructor(
    key: string,
    { baseURL = TAVILY_URL, timeoutMs = DEFAULT_TIMEOUT_MS }: SearchOptions = {},
  ) {
    this.#key = key;
    this.#baseURL = baseURL.replace(/\/+$/, "");
    this.#timeoutMs = timeoutMs;
  }

  async search(query: string, n: number, signal: AbortSignal): Promise<SearchHit[]> {
    const answer = await ask({
      provider: this.name,
      keyName: "TAVILY_API_KEY",
      key: this.#key,
      url: `${this.#baseURL}/search`,
      init: {
        method: "POST",
        headers: {
          authorization: `Bearer ${this.#key}`,
          "content-type": "application/json",
          accept: "application/json",
        },
        body: JSON.stringify({ query, max_results: n }),
      },
      timeoutMs: this.#timeoutMs,
      signal,
      keyRejected: (status) => status === 401 || status === 403,
    });
    const results = field(answer, "results");
    if (!Array.isArray(results)) throw unreadable(this.name);
    return hits(results, "content", (text) => text);
  }
}

// Brave: GET /res/v1/web/search?q=&count= with the key in X-Subscription-Token; hits are
// web.results[{title, url, description}]. With nothing found, Brave may leave `web` out.
export class BraveSearch implements SearchProvider {
  readonly name = "brave";
  readonly #key: string;
  readonly #baseURL: string;
  readonly #timeoutMs: number;

  constructor(
    key: string,
    { baseURL = BRAVE_URL, timeoutMs = DEFAULT_TIMEOUT_MS }: SearchOptions = {},
  ) {
    this.#key = key;
    this.#baseURL = baseURL.replace(/\/+$/, "");
    this.#timeoutMs = timeoutMs;
  }

  async search(query: string, n: number, signal: AbortSignal): Promise<SearchHit[]> {
    const params = new URLSearchParams({ q: query, count: String(n) });
    const answer = await ask({
      provider: this.name,
      keyName: "BRAVE_API_KEY",
      key: this.#key,
      url: `${this.#baseURL}/res/v1/web/search?${params}`,
      init: {
        method: "GET",
        headers: { "x-subscription-token": this.#key, accept: "application/json" },
      },
      timeoutMs: this.#timeoutMs,
      signal,
      // Brave answers a wrong key with 422 SUBSCRIPTION_TOKEN_INVALID, not 401.
      keyRejected: (status, body) =>
        status === 401 ||
        status === 403 ||
        (status === 422 && field(field(body, "error"), "code") === "SUBSCRIPTION_TOKEN_INVALID"),
    });
    if (typeof answer !== "object" || answer === null) throw unreadable(this.name);
    const results = field(field(answer, "web"), "results") ?? [];
    if (!Array.isArray(results)) throw unreadable(this.name);
    return hits(results, "description", withoutTags);
  }
}

// The provider the environment asks for: AGENT_CODE_SEARCH_PROVIDER names one, else the first
// key that is set picks it. Undefined when there is none; the tool then says what to set.
export function createSearchProvider(env: Env): SearchProvider | undefined {
  const named = env.AGENT_CODE_SEARCH_PROVIDER?.trim().toLowerCase() || undefined;
  if (named !== undefined && named !== "tavily" && named !== "brave") {
    throw new ToolError(`unknown AGENT_CODE_SEARCH_PROVIDER: ${named} (valid: tavily, brave)`);
  }
  const name =
    named ??
    (env.TAVILY_API_KEY?.trim() ? "tavily" : env.BRAVE_API_KEY?.trim() ? "brave" : undefined);
  if (name === undefined) return undefined;
  const keyName = name === "tavily" ? "TAVILY_API_KEY" : "BRAVE_API_KEY";
  const key = env[keyName]?.trim();
  if (!key) throw new ToolError(`AGENT_CODE_SEARCH_PROVIDER is ${name}, but ${keyName} is not set`);
  // A header cannot carry a space or a line break, and fetch's complaint would quote the key.
  if (!/^[\x21-\x7e]+$/.test(key)) {
    throw new ToolError(`${keyName} holds a character no key has (a space or a line break?)`);
  }
  const options = { baseURL: baseURLOf(env), timeoutMs: timeoutOf(env) };
  return name === "tavily" ? new TavilySearch(key, options) : new BraveSearch(key, options);
}

// The endpoint is configuration, not model input: any http(s) URL the user sets.
function baseURLOf(env: Env): string | undefined {
  const value = env.AGENT_CODE_SEARCH_BASE_URL?.trim();
  if (!value) return undefined;
  if (!/^https?:\/\//i.test(value) || !URL.canParse(value)) {
    throw new ToolError(`AGENT_CODE_SEARCH_BASE_URL is not an http(s) URL: ${value}`);
  }
  return value;
}

function timeoutOf(env: Env): number {
  const value = env.AGENT_CODE_SEARCH_TIMEOUT_MS;
  if (value === undefined || value === "") return DEFAULT_TIMEOUT_MS;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 1) {
    throw new ToolError(`AGENT_CODE_SEARCH_TIMEOUT_MS must be a positive integer, got ${value}`);
  }
  return ms;
}

interface Ask {
  provider: string;
  keyName: string;
  key: string;
  url: string;
  init: RequestInit;
  timeoutMs: number;
  signal: AbortSignal;
  keyRejected: (status: number, body: unknown) => boolean;
}

// One request to a provider and its JSON answer. Every way it can go wrong becomes one ToolError
// the model can read; none of them quotes the key.
async function ask(request: Ask): Promise<unknown> {
  const { provider, keyName, timeoutMs } = request;
  const timeout = AbortSignal.timeout(timeoutMs);
  let response: Response;
  let text: string;
  try {
    // A redirect is not followed: it would carry the key's header to wherever it points.
    response = await fetch(request.url, {
      ...request.init,
      redirect: "manual",
      signal: AbortSignal.any([request.signal, timeout]),
    });
    text = await readAnswer(response, provider);
  } catch (error) {
    if (error instanceof ToolError) throw error;
    if (timeout.aborted) {
      throw new ToolError(`search provider ${provider} did not answer within ${timeoutMs} ms`);
    }
    if (request.signal.aborted) throw new ToolError("the search was stopped");
    const reason = hidden(causeOf(error), request.key);
    throw new ToolError(`search provider ${provider} could not be reached: ${reason}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (request.keyRejected(response.status, body)) {
    throw new ToolError(
      `search provider ${provider} rejected the key (${response.status}): check ${keyName}`,
    );
  }
  if (!response.ok) throw new ToolError(`search provider ${provider} answered ${response.status}`);
  if (body === undefined) {
    const type = response.headers.get("content-type") ?? "no content type";
    throw new ToolError(
      `search provider ${provider} answered with something other than JSON (${type})`,
    );
  }
  return body;
}

// The answer as text, read up to MAX_ANSWER_BYTES: past that the answer is refused and the rest is
// never read, however much more (or for however long) the server would send.
async function readAnswer(response: Response, provider: string): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    size += read.value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel().catch(() => {});
      throw new ToolError(
        `search provider ${provider} answered more than ${MAX_ANSWER_BYTES} bytes`,
      );
    }
    chunks.push(read.value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

// fetch says "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND, …) is in its cause.
function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === "string") return cause.code;
  if (typeof cause?.message === "string") return cause.message;
  return error instanceof Error ? error.message : String(error);
}

// The last guard: a message that somehow holds the key never shows it.
function hidden(text: string, key: string): string {
  return text.replaceAll(key, "[key]");
}

function unreadable(provider: string): ToolError {
  return new ToolError(`search provider ${provider} answered JSON without a list of results`);
}

function field(value: unknown, name: string): unknown {
  return typeof value === "object" && value !== null
    ? (value as Record<string, unknown>)[name]
    : undefined;
}

// Hits with a URL, whatever else a provider sends; the snippet comes from the named field.
function hits(
  results: unknown[],
  snippetField: string,
  clean: (text: string) => string,
): SearchHit[] {
  const found: SearchHit[] = [];
  for (const result of results) {
    const url = field(result, "url");
    if (typeof url !== "string" || url === "") continue;
    const title = field(result, "title");
    const snippet = field(result, snippetField);
    found.push({
      title: typeof title === "string" ? clean(title) : "",
      url,
      snippet: typeof snippet === "string" ? clean(snippet) : "",
    });
  }
  return found;
}

// Brave marks the words that matched: `<strong>agent</strong>`. The model wants the text.
function withoutTags(text: string): string {
  const entities: Record<string, string> = {
    amp: "&",
    lt: "<",
    gt: ">",
    quot: '"',
    "#39": "'",
    "#x27": "'",
  };
  return text
    .replace(/<[^>]*>/g, "")
    .replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_, name: string) => entities[name] ?? "");
}

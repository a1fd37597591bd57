// A fake Messages API server on 127.0.0.1 that real clients (the official SDK included) cannot
// tell from the real one: it rejects what the real service rejects, answers scripted steps,
// records every request and injects faults.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import {
  CONTROL_PREFIX,
  controlRoute,
  controlToken,
  listenOnLoopback,
  NEEDS_TOKEN,
} from "./listen.ts";
import { type ModelEntry, outputLimits } from "./models.ts";
import {
  handleOpenAI,
  misplacedStep,
  newOpenAIState,
  type OpenAIState,
  openAIRoute,
} from "./openai-server.ts";
import { notTheApiAnswer, sendRawAnswer, withStringContent } from "./server-raw.ts";
import { requestsView } from "./server-requests-view.ts";
import {
  type Answer,
  answer,
  MAX_BODY_BYTES,
  modelsFor,
  needsKey,
  type Route,
  routeOf,
  TOO_LARGE,
  versionAndBetas,
} from "./server-routes.ts";
import { overloadedEvent, streamEvents } from "./server-sse.ts";
import {
  buildMessage,
  type FaultStep,
  type IdSource,
  parseStep,
  parseSteps,
  type ReplyMessage,
  type ReplyStep,
  type StepResult,
  thinkingFirst,
  unmetExpectation,
} from "./server-steps.ts";
import { deepSeekThinks, validateRequest } from "./validator.ts";

export type Step = StepResult | ((request: RecordedRequest) => StepResult | Promise<StepResult>);

export type Flavour = "anthropic" | "deepseek";

export type Verdict =
  | { accepted: true }
  | { accepted: false; status: number; message: string; location?: string };

export interface RecordedRequest {
  /** 0-based position in `requests()`; the request number in messages is `index + 1`. */
  index: number;
  /** `req_<index + 1>`: the response's `request-id` header (`x-ds-trace-id` for DeepSeek). */
  requestId: string;
  /** Which API answered: `responses` and `chat` are the OpenAI endpoints, anything else `messages`. */
  api: "messages" | "responses" | "chat";
  method: string;
  /** The path without the query string. */
  path: string;
  /** Lower-case names; `authorization` and `x-api-key` are left out. */
  headers: Record<string, string>;
  /** The parsed JSON body, or null when there was none or it was not JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: a request body is whatever the client sent; tests read into it freely.
  body: any;
  verdict: Verdict;
}

/** What the server sent back to one recorded request, as bytes on the wire, decoded. */
export interface RecordedResponse {
  /** The position of the request it answers in `requests()`. */
  index: number;
  status: number;
  /** The `content-type` header: JSON, or `text/event-stream` for a streamed reply. */
  contentType: string;
  /** Everything written, in order; for a stream, the events as sent. */
  body: string;
}

export interface FakeServerOptions {
  /** 0 (the default) takes a free port. */
  port?: number;
  flavour?: Flavour;
  /** When set, requests must carry it as `Authorization: Bearer <key>` or `x-api-key: <key>`. */
  key?: string;
  script?: Step[];
  /** What the control routes need in their path (`/_fake/<token>/…`); a random token by default. */
  controlToken?: string;
  /** `false` lets requests that break the protocol rules through to the script; on by default. */
  validate?: boolean;
  /** What `GET /v1/models` lists; a model's `max_tokens` is its enforced output limit. */
  models?: ModelEntry[];
  /**
   * The script starts over from its first step at each new conversation (a request with no
   * assistant turn in it) and whenever it runs out: a demo can be run again and again.
   */
  loop?: boolean;
}

export interface FakeServer {
  /** `http://127.0.0.1:PORT`, a client's base URL (the SDK appends `/v1/messages`). */
  url: string;
  /** `http://127.0.0.1:PORT/_fake/<token>`: where the control routes are, token and all. */
  controlUrl: string;
  /** Replaces the queue of steps, like `POST /_fake/<token>/script`. */
  script(steps: Step[]): void;
  requests(): RecordedRequest[];
  /**
   * Resolves once `count` requests have been recorded, as the last of them arrives and before it
   * is answered. With `answerAfter`, that request is answered only once it settles (or the server
   * closes): a REPL line typed "after request 1" is then in its pipe before the reply can land,
   * however busy the machine.
   */
  whenRequests(count: number, answerAfter?: Promise<void>): Promise<void>;
  /** What was sent back, for each request whose response has finished, in request order. */
  responses(): RecordedResponse[];
  /** Forgets the script, the recorded requests and the id counters. */
  reset(): void;
  close(): Promise<void>;
}

// What the server answers instead of a step: the route, the credentials or the body is wrong.
interface Rejection {
  status: number;
  type: string;
  message: string;
  location?: string;
  details?: Record<string, unknown>;
}

// A response about to be sent: the flavour decides the error envelope and the id header.
interface Outgoing {
  res: ServerResponse;
  flavour: Flavour;
  requestId: string;
}

interface ServerState {
  options: FakeServerOptions;
  token: string;
  flavour: Flavour;
  queue: Step[];
  // The last script given, which `loop` starts over from.
  script: Step[];
  records: RecordedRequest[];
  // Who waits for a number of requests (whenRequests), and what that request's answer waits for.
  arrivals: { count: number; resolve: () => void; answerAfter?: Promise<void> }[];
  responses: RecordedResponse[];
  stepsUsed: number;
  messages: number;
  toolUses: number;
  openai: OpenAIState;
  closing: AbortController;
  /** The models' output limits, by id: fixed for the server's life, so worked out once. */
  outputLimits: Record<string, number>;
}

const FAULT_TEXT = "This reply is broken on purpose by a scripted fault.";

export async function startFakeServer(options: FakeServerOptions = {}): Promise<FakeServer> {
  const state: ServerState = {
    options,
    token: options.controlToken ?? controlToken(),
    flavour: options.flavour ?? "anthropic",
    queue: checkSteps(options.script ?? []),
    script: checkSteps(options.script ?? []),
    records: [],
    arrivals: [],
    responses: [],
    stepsUsed: 0,
    messages: 0,
    toolUses: 0,
    openai: newOpenAIState(),
    closing: new AbortController(),
    outputLimits: outputLimits(modelsFor(options.flavour ?? "anthropic", options.models)),
  };
  const server = createServer((req, res) => {
    handle(req, res, state).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const out = { res, flavour: state.flavour, requestId: "req_error" };
      sendError(out, {
        status: 500,
        type: "api_error",
        message: `fake server bug: ${String(error)}`,
      });
    });
  });
  const listening = await listenOnLoopback(server, options.port);
  return {
    url: listening.url,
    controlUrl: `${listening.url}${CONTROL_PREFIX}${state.token}`,
    script(steps) {
      state.queue = checkSteps(steps);
      state.script = state.queue;
    },
    requests() {
      return [...state.records];
    },
    whenRequests(count, answerAfter) {
      // Already answered, or on its way: too late to hold it.
      if (state.records.length >= count) return Promise.resolve();
      return new Promise((resolve) =>
        state.arrivals.push({
          count,
          resolve,
          ...(answerAfter === undefined ? {} : { answerAfter }),
        }),
      );
    },
    responses() {
      return state.responses.filter((response) => response !== undefined);
    },
    reset() {
      resetState(state);
    },
    async close() {
      state.closing.abort();
      await listening.close();
    },
  };
}

/** The body of an error response, in the flavour's envelope: every error body is built here. */
export function errorEnvelope(
  type: string,
  message: string,
  options: { requestId: string; flavour?: Flavour; details?: Record<string, unknown> },
): object {
  // DeepSeek's OpenAI-style envelope has no top-level type and no request id (reference §6);
  // `code` repeats `type`, as in the one verified body.
  if (options.flavour === "deepseek") return { error: { message, type, param: null, code: type } };
  const details = options.details === undefined ? {} : { details: options.details };
  return { type: "error", error: { type, message, ...details }, request_id: options.requestId };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  state: ServerState,
): Promise<void> {
  const { raw, tooLarge } = await readBody(req);
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  const path = url.pathname;
  const method = req.method ?? "GET";
  if (path.startsWith(CONTROL_PREFIX)) {
    const pretty = url.searchParams.has("pretty");
    return handleControl(method, pretty ? `${path}?pretty` : path, raw, res, state);
  }

  const index = state.records.length;
  const openai = openAIRoute(path, state.flavour);
  const record: RecordedRequest = {
    index,
    requestId: `req_${index + 1}`,
    api: openai ?? "messages",
    method,
    path,
    headers: recordedHeaders(req),
    body: parseJson(raw),
    verdict: { accepted: true },
  };
  state.records.push(record);
  const arrived = state.arrivals.filter(({ count }) => count <= state.records.length);
  state.arrivals = state.arrivals.filter(({ count }) => count > state.records.length);
  for (const { resolve } of arrived) resolve();
  const holds = arrived.flatMap(({ answerAfter }) =>
    answerAfter === undefined ? [] : [answerAfter],
  );
  if (holds.length > 0) {
    await Promise.race([Promise.all(holds), aborted(state.closing.signal)]);
    if (state.closing.signal.aborted) return;
  }
  recordResponse(res, index, state);
  if (openai) {
    return handleOpenAI(req, res, record, {
      api: openai,
      flavour: state.flavour,
      key: state.options.key,
      validate: state.options.validate !== false,
      state: state.openai,
      requestId: record.requestId,
      next: () => nextStep(record, state),
      hold: (step) => holdBack(step, state),
    });
  }
  const out: Outgoing = { res, flavour: state.flavour, requestId: record.requestId };
  const route = routeOf(method, path);
  const rejection: Rejection | null = tooLarge ? TOO_LARGE : judge(req, record, state, route);
  if (rejection) {
    const { status, message, location } = rejection;
    record.verdict = {
      accepted: false,
      status,
      message,
      ...(location === undefined ? {} : { location }),
    };
    return sendError(out, rejection);
  }
  if (route && route.kind !== "messages") {
    const models = modelsFor(state.flavour, state.options.models);
    return sendAnswer(out, answer(route, { body: record.body, query: url.searchParams, models }));
  }

  const step = await nextStep(record, state);
  if (!(await holdBack(step, state)) || res.destroyed) return;
  if ("error" in step) return sendError(out, step.error);
  if ("fault" in step) return sendFault(out, step, record, state);
  if ("raw" in step) return sendRawAnswer(res, step.raw);
  if (!("content" in step)) return sendError(out, misplacedStep(step, "messages"));
  const unmet = unmetExpectation(step, record.body);
  if (unmet) {
    record.verdict = { accepted: false, status: 400, message: unmet };
    return sendError(out, { status: 400, type: "invalid_request_error", message: unmet });
  }
  return sendReply(out, step, record, state);
}

// Resolves when the signal aborts, at once if it has.
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

// Keeps a copy of what is written to `res`, filed under the request's index when the response has
// gone out (a reset in between files it nowhere). A few copies of small bodies per run: the docs
// show them as the wire of a replay.
function recordResponse(res: ServerResponse, index: number, state: ServerState): void {
  const records = state.records;
  const chunks: string[] = [];
  const keep = (chunk: unknown) => {
    if (typeof chunk === "string") chunks.push(chunk);
    else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk).toString("utf8"));
  };
  // writeHead's headers are not kept where getHeader finds them: read the content type there.
  let contentType = "";
  const writeHead = res.writeHead.bind(res);
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    const headers = rest.find((item) => typeof item === "object" && item !== null) ?? {};
    for (const [name, value] of Object.entries(headers)) {
      if (name.toLowerCase() === "content-type") contentType = String(value);
    }
    return writeHead(status, ...(rest as never[]));
  }) as typeof res.writeHead;
  const write = res.write.bind(res);
  const end = res.end.bind(res);
  res.write = ((chunk: unknown, ...rest: never[]) => {
    keep(chunk);
    return write(chunk as string, ...rest);
  }) as typeof res.write;
  res.end = ((chunk?: unknown, ...rest: never[]) => {
    if (typeof chunk !== "function") keep(chunk);
    return end(chunk as string, ...rest);
  }) as typeof res.end;
  res.on("close", () => {
    if (state.records !== records) return;
    state.responses[index] = {
      index,
      status: res.statusCode,
      contentType: contentType || String(res.getHeader("content-type") ?? ""),
      body: chunks.join(""),
    };
  });
}

// A step's `delay_ms`; false when the server closed meanwhile, and nothing should be sent.
async function holdBack(step: StepResult, state: ServerState): Promise<boolean> {
  if (!step.delay_ms) return true;
  try {
    await sleep(step.delay_ms, undefined, { signal: state.closing.signal });
    return true;
  } catch {
    return false;
  }
}

// In the order the real service checks (after the size, which its front checks): route,
// credentials, body.
function judge(
  req: IncomingMessage,
  record: RecordedRequest,
  state: ServerState,
  route: Route | null,
): Rejection | null {
  if (route === null) return { status: 404, type: "not_found_error", message: "Not Found" };
  const credentialProblem = needsKey(route) ? checkCredentials(req, state.options.key) : null;
  if (credentialProblem)
    return { status: 401, type: "authentication_error", message: credentialProblem };
  if (route.kind !== "messages" && route.kind !== "count_tokens") return null;
  if (record.body === null) {
    return {
      status: 400,
      type: "invalid_request_error",
      message: "the request body is not valid JSON",
    };
  }
  if (state.options.validate === false) return null;
  const violation = validateRequest(record.body, {
    flavour: state.flavour,
    endpoint: route.kind,
    ...versionAndBetas(req.headers),
    maxTokens: state.outputLimits,
  });
  return violation && { ...violation, type: "invalid_request_error" };
}

// The SDK sends every credential as a Bearer token; older clients send x-api-key. With neither,
// the real service answers "x-api-key header is required".
function checkCredentials(req: IncomingMessage, key: string | undefined): string | null {
  if (key === undefined) return null;
  const { authorization } = req.headers;
  if (authorization !== undefined) {
    return authorization === `Bearer ${key}` ? null : "Invalid bearer token";
  }
  const apiKey = req.headers["x-api-key"];
  if (apiKey === undefined) return "x-api-key header is required";
  return apiKey === key ? null : "invalid x-api-key";
}

async function nextStep(record: RecordedRequest, state: ServerState): Promise<StepResult> {
  if (state.options.loop && (state.queue.length === 0 || startsConversation(record.body))) {
    state.queue = [...state.script];
  }
  const step = state.queue.shift();
  const where = `step ${state.stepsUsed + 1}`;
  if (step === undefined) {
    return {
      error: {
        status: 500,
        type: "api_error",
        message: `fake server: the script is empty, no step is left for request ${record.index + 1} (${state.stepsUsed} steps used)`,
        // Without this the client would retry and hide a runaway loop behind three requests.
        headers: { "x-should-retry": "false" },
      },
    };
  }
  state.stepsUsed += 1;
  if (typeof step !== "function") return step;
  try {
    return parseStep(await step(record), where);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      error: {
        status: 500,
        type: "api_error",
        message: `fake server: ${where} (a function) failed: ${message}`,
        headers: { "x-should-retry": "false" },
      },
    };
  }
}

function sendReply(
  out: Outgoing,
  step: ReplyStep,
  record: RecordedRequest,
  state: ServerState,
): void | Promise<void> {
  const thinks = state.flavour === "deepseek" && deepSeekThinks(record.body);
  const message = buildMessage(thinks ? thinkingFirst(step) : step, record.body, idSource(state));
  if (record.body?.stream !== true) return sendJson(out, 200, message);
  const events = streamEvents(message);
  if (!step.event_delay_ms) return sendEvents(out, events.join(""));
  return sendEventsSlowly(out, events, step.event_delay_ms, state.closing.signal);
}

function sendFault(
  out: Outgoing,
  step: FaultStep,
  record: RecordedRequest,
  state: ServerState,
): void {
  if (step.fault === "drop") {
    out.res.socket?.destroy();
    return;
  }
  const message = faultMessage(record, state);
  const json = JSON.stringify(message);
  const streaming = record.body?.stream === true;
  switch (step.fault) {
    case "malformed":
      sendRaw(out, 200, "application/json", json.slice(0, json.length / 2));
      break;
    case "wrong-content-type": {
      const body = streaming ? streamEvents(message).join("") : json;
      sendRaw(out, 200, "text/plain; charset=utf-8", body);
      break;
    }
    case "stream-error":
      if (streaming) sendEvents(out, firstEvents(message) + overloadedEvent());
      // Before the 200 has gone out, an overload is an ordinary 529.
      else sendError(out, { status: 529, type: "overloaded_error", message: "Overloaded" });
      break;
    case "stream-cut":
      // A clean end of the response, but before message_delta and message_stop.
      if (streaming) sendEvents(out, firstEvents(message));
      else cutJson(out, json);
      break;
    default:
      sendRawAnswer(
        out.res,
        notTheApiAnswer(step.fault, withStringContent(message), streamEvents(message).join("")),
      );
  }
}

function faultMessage(record: RecordedRequest, state: ServerState): ReplyMessage {
  return buildMessage(
    { content: [{ type: "text", text: FAULT_TEXT }] },
    record.body,
    idSource(state),
  );
}

// message_start, the block's start, the ping and a few deltas: what a client has when the cut comes.
function firstEvents(message: ReplyMessage): string {
  return streamEvents(message).slice(0, 6).join("");
}

// The connection dies halfway through a JSON body whose content-length promised more.
function cutJson(out: Outgoing, json: string): void {
  out.res.writeHead(200, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(json),
    ...idHeader(out),
  });
  out.res.write(json.slice(0, json.length / 2), () => out.res.socket?.destroy());
}

function handleControl(
  method: string,
  path: string,
  raw: string,
  res: ServerResponse,
  state: ServerState,
): void {
  const out: Outgoing = { res, flavour: state.flavour, requestId: "req_control" };
  const route = controlRoute(path, state.token);
  if (route === undefined) {
    sendError(out, { status: 403, type: "permission_error", message: NEEDS_TOKEN });
    return;
  }
  switch (`${method} ${route}`) {
    case "POST script":
      try {
        state.queue = parseSteps(JSON.parse(raw));
        state.script = state.queue;
        sendJson(out, 200, { steps: state.queue.length });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        sendError(out, { status: 400, type: "invalid_request_error", message });
      }
      break;
    case "GET requests":
      sendJson(out, 200, state.records);
      break;
    case "GET requests?pretty":
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      res.end(requestsView(state.records));
      break;
    case "POST reset":
      resetState(state);
      sendJson(out, 200, { reset: true });
      break;
    default:
      sendError(out, { status: 404, type: "not_found_error", message: "Not Found" });
  }
}

function sendError(
  out: Outgoing,
  error: {
    status: number;
    type: string;
    message: string;
    headers?: Record<string, string>;
    details?: Record<string, unknown>;
  },
): void {
  const { status, type, message, headers, details } = error;
  // Like the real service, a 4xx the client cannot fix by waiting says so, and the SDK obeys.
  const noRetry =
    status < 500 && ![408, 409, 429].includes(status) ? { "x-should-retry": "false" } : {};
  const envelope = errorEnvelope(type, message, { ...out, details });
  out.res.writeHead(status, {
    "content-type": "application/json",
    ...idHeader(out),
    ...noRetry,
    ...headers,
  });
  out.res.end(JSON.stringify(envelope));
}

function sendAnswer(out: Outgoing, reply: Answer): void {
  if ("error" in reply) sendError(out, reply.error);
  else sendJson(out, reply.status, reply.json);
}

function sendJson(out: Outgoing, status: number, value: unknown): void {
  sendRaw(out, status, "application/json", JSON.stringify(value));
}

function sendRaw(out: Outgoing, status: number, contentType: string, body: string): void {
  out.res.writeHead(status, {
    "content-type": contentType,
    "content-length": Buffer.byteLength(body),
    ...idHeader(out),
  });
  out.res.end(body);
}

function sendEvents(out: Outgoing, events: string): void {
  out.res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    ...idHeader(out),
  });
  out.res.end(events);
}

// One event at a time, each after a pause: a client that shows text as it arrives shows the first
// words long before the last event. A client that hangs up, or the server closing, ends it.
async function sendEventsSlowly(
  out: Outgoing,
  events: string[],
  delayMs: number,
  signal: AbortSignal,
): Promise<void> {
  out.res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    ...idHeader(out),
  });
  for (const [index, event] of events.entries()) {
    if (index > 0) {
      try {
        await sleep(delayMs, undefined, { signal });
      } catch {
        return;
      }
    }
    if (out.res.destroyed) return;
    out.res.write(event);
  }
  out.res.end();
}

// Anthropic names every response with `request-id`, which the SDK reads as `requestID`. DeepSeek
// sends no such header (the SDK's `requestID` is null), only a trace id of its own.
function idHeader(out: Outgoing): Record<string, string> {
  if (out.flavour === "deepseek") return { "x-ds-trace-id": out.requestId };
  return { "request-id": out.requestId };
}

function idSource(state: ServerState): IdSource {
  const toolPrefix = state.flavour === "deepseek" ? "call_" : "toolu_";
  return {
    messageId: () => `msg_${++state.messages}`,
    toolUseId: () => `${toolPrefix}${++state.toolUses}`,
  };
}

// A request that opens a conversation: nothing the model said is in it yet (Messages and Chat
// Completions: no assistant message; Responses: no assistant or function-call item).
function startsConversation(body: unknown): boolean {
  const { messages, input } = (body ?? {}) as { messages?: unknown; input?: unknown };
  const items = Array.isArray(messages) ? messages : Array.isArray(input) ? input : undefined;
  if (items === undefined) return typeof input === "string";
  return !items.some((item) => {
    const { role, type } = (item ?? {}) as { role?: unknown; type?: unknown };
    return role === "assistant" || type === "function_call" || type === "function_call_output";
  });
}

function resetState(state: ServerState): void {
  state.queue = [];
  state.script = [];
  state.records = [];
  state.responses = [];
  state.stepsUsed = 0;
  state.messages = 0;
  state.toolUses = 0;
  state.openai = newOpenAIState();
}

// Plain steps are checked at once, so a bad script fails where it is written, not mid-test.
function checkSteps(steps: Step[]): Step[] {
  return steps.map((step, i) =>
    typeof step === "function" ? step : parseStep(step, `step ${i + 1}`),
  );
}

function recordedHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (name === "authorization" || name === "x-api-key" || value === undefined) continue;
    headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

function parseJson(raw: string): unknown {
  if (raw === "") return null;
  try {
    return JSON.parse(raw);
  } catch {
    return null;
  }
}

// Past the size limit the rest is read and dropped, so the client still gets its 413. Plain
// events rather than `for await`: this runs on every request, and the async iterator costs more.
function readBody(req: IncomingMessage): Promise<{ raw: string; tooLarge: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.once("error", reject);
    // A client that hangs up mid-body gets no answer; the promise must still settle.
    req.once("close", () => {
      if (!req.complete) reject(new Error("the client closed the connection mid-request"));
    });
    req.once("end", () => {
      if (size > MAX_BODY_BYTES) resolve({ raw: "", tooLarge: true });
      else resolve({ raw: Buffer.concat(chunks).toString("utf8"), tooLarge: false });
    });
  });
}

// A fake Messages API server on 127.0.0.1 that real clients (the official SDK included) cannot
// tell from the real one: it answers scripted steps, records every request and injects faults.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { overloadedEvent, streamEvents } from "./server-sse.ts";
import {
  buildMessage,
  type ErrorStep,
  type FaultStep,
  type IdSource,
  parseStep,
  parseSteps,
  type ReplyMessage,
  type ReplyStep,
  type StepResult,
} from "./server-steps.ts";

export type Step = StepResult | ((request: RecordedRequest) => StepResult | Promise<StepResult>);

export type Flavour = "anthropic" | "deepseek";

export type Verdict =
  | { accepted: true }
  | { accepted: false; status: number; message: string; location?: string };

/** What a validator reports: the status and message of the error the service would send. */
export interface Rejection {
  status: number;
  message: string;
  type?: string;
  location?: string;
}

export interface ValidationContext {
  flavour: Flavour;
  index: number;
  path: string;
  headers: Record<string, string>;
}

export interface RecordedRequest {
  /** 0-based position in `requests()`; the request number in messages is `index + 1`. */
  index: number;
  /** The `request-id` header of the response, `req_<index + 1>`. */
  requestId: string;
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

export interface FakeServerOptions {
  /** 0 (the default) takes a free port. */
  port?: number;
  flavour?: Flavour;
  /** When set, requests must carry it as `Authorization: Bearer <key>` or `x-api-key: <key>`. */
  key?: string;
  script?: Step[];
  /** Judges each `POST /v1/messages` body; a violation is answered with its error, no step is used. */
  // biome-ignore lint/suspicious/noExplicitAny: the validator receives the parsed body as sent.
  validate?: (body: any, context: ValidationContext) => Rejection | null;
}

export interface FakeServer {
  /** `http://127.0.0.1:PORT`, a client's base URL (the SDK appends `/v1/messages`). */
  url: string;
  /** Replaces the queue of steps, like `POST /_fake/script`. */
  script(steps: Step[]): void;
  requests(): RecordedRequest[];
  /** Forgets the script, the recorded requests and the id counters. */
  reset(): void;
  close(): Promise<void>;
}

interface ServerState {
  options: FakeServerOptions;
  flavour: Flavour;
  queue: Step[];
  records: RecordedRequest[];
  stepsUsed: number;
  messages: number;
  toolUses: number;
  closing: AbortController;
}

const MESSAGES_PATH = "/v1/messages";
const CONTROL_PREFIX = "/_fake/";
const FAULT_TEXT = "This reply is broken on purpose by a scripted fault.";

export async function startFakeServer(options: FakeServerOptions = {}): Promise<FakeServer> {
  const state: ServerState = {
    options,
    flavour: options.flavour ?? "anthropic",
    queue: checkSteps(options.script ?? []),
    records: [],
    stepsUsed: 0,
    messages: 0,
    toolUses: 0,
    closing: new AbortController(),
  };
  const server = createServer((req, res) => {
    handle(req, res, state).catch((error: unknown) => {
      if (res.headersSent) res.destroy();
      else sendError(res, 500, "api_error", `fake server bug: ${String(error)}`, "req_error");
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    script(steps) {
      state.queue = checkSteps(steps);
    },
    requests() {
      return [...state.records];
    },
    reset() {
      resetState(state);
    },
    async close() {
      state.closing.abort();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** The body of an Anthropic error response: every error response the server sends is built here. */
export function errorEnvelope(type: string, message: string, requestId: string): object {
  return { type: "error", error: { type, message }, request_id: requestId };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  state: ServerState,
): Promise<void> {
  const raw = await readBody(req);
  const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
  const method = req.method ?? "GET";
  if (path.startsWith(CONTROL_PREFIX)) return handleControl(method, path, raw, res, state);

  const index = state.records.length;
  const record: RecordedRequest = {
    index,
    requestId: `req_${index + 1}`,
    method,
    path,
    headers: recordedHeaders(req),
    body: parseJson(raw),
    verdict: { accepted: true },
  };
  state.records.push(record);
  const rejection = judge(req, record, state);
  if (rejection) {
    record.verdict = {
      accepted: false,
      status: rejection.status,
      message: rejection.message,
      ...(rejection.location === undefined ? {} : { location: rejection.location }),
    };
    return sendError(
      res,
      rejection.status,
      rejection.type ?? "invalid_request_error",
      rejection.message,
      record.requestId,
    );
  }

  const step = await nextStep(record, state);
  if (step.delay_ms) {
    try {
      await sleep(step.delay_ms, undefined, { signal: state.closing.signal });
    } catch {
      return;
    }
  }
  if (res.destroyed) return;
  if ("error" in step) return sendStepError(res, step, record.requestId);
  if ("fault" in step) return sendFault(res, step, record, state);
  return sendReply(res, step, record, state);
}

// In the order the real service checks: route, credentials, body.
function judge(
  req: IncomingMessage,
  record: RecordedRequest,
  state: ServerState,
): Rejection | null {
  if (record.method !== "POST" || record.path !== MESSAGES_PATH) {
    return { status: 404, type: "not_found_error", message: "Not Found" };
  }
  const credentialProblem = checkCredentials(req, state.options.key);
  if (credentialProblem)
    return { status: 401, type: "authentication_error", message: credentialProblem };
  if (record.body === null) {
    return {
      status: 400,
      type: "invalid_request_error",
      message: "the request body is not valid JSON",
    };
  }
  const { validate } = state.options;
  if (!validate) return null;
  return validate(record.body, {
    flavour: state.flavour,
    index: record.index,
    path: record.path,
    headers: record.headers,
  });
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
  res: ServerResponse,
  step: ReplyStep,
  record: RecordedRequest,
  state: ServerState,
): void {
  const message = buildMessage(step, record.body, idSource(state));
  if (record.body?.stream === true) {
    sendEvents(res, streamEvents(message).join(""), record.requestId);
  } else {
    sendJson(res, 200, message, record.requestId);
  }
}

function sendStepError(res: ServerResponse, step: ErrorStep, requestId: string): void {
  const { status, type, message, headers } = step.error;
  sendError(res, status, type, message, requestId, headers);
}

function sendFault(
  res: ServerResponse,
  step: FaultStep,
  record: RecordedRequest,
  state: ServerState,
): void {
  const { requestId } = record;
  if (step.fault === "drop") {
    res.socket?.destroy();
    return;
  }
  const message = faultMessage(record, state);
  const json = JSON.stringify(message);
  const streaming = record.body?.stream === true;
  switch (step.fault) {
    case "malformed":
      sendRaw(res, 200, "application/json", json.slice(0, json.length / 2), requestId);
      break;
    case "wrong-content-type": {
      const body = streaming ? streamEvents(message).join("") : json;
      sendRaw(res, 200, "text/plain; charset=utf-8", body, requestId);
      break;
    }
    case "stream-error":
      if (streaming) sendEvents(res, firstEvents(message) + overloadedEvent(), requestId);
      // Before the 200 has gone out, an overload is an ordinary 529.
      else sendError(res, 529, "overloaded_error", "Overloaded", requestId);
      break;
    case "stream-cut":
      // A clean end of the response, but before message_delta and message_stop.
      if (streaming) sendEvents(res, firstEvents(message), requestId);
      else cutJson(res, json, requestId);
      break;
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
function cutJson(res: ServerResponse, json: string, requestId: string): void {
  res.writeHead(200, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(json),
    "request-id": requestId,
  });
  res.write(json.slice(0, json.length / 2), () => res.socket?.destroy());
}

function handleControl(
  method: string,
  path: string,
  raw: string,
  res: ServerResponse,
  state: ServerState,
): void {
  const requestId = "req_control";
  switch (`${method} ${path}`) {
    case "POST /_fake/script":
      try {
        state.queue = parseSteps(JSON.parse(raw));
        sendJson(res, 200, { steps: state.queue.length }, requestId);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        sendError(res, 400, "invalid_request_error", message, requestId);
      }
      break;
    case "GET /_fake/requests":
      sendJson(res, 200, state.records, requestId);
      break;
    case "POST /_fake/reset":
      resetState(state);
      sendJson(res, 200, { reset: true }, requestId);
      break;
    default:
      sendError(res, 404, "not_found_error", "Not Found", requestId);
  }
}

function sendError(
  res: ServerResponse,
  status: number,
  type: string,
  message: string,
  requestId: string,
  headers: Record<string, string> = {},
): void {
  // Like the real service, a 4xx the client cannot fix by waiting says so, and the SDK obeys.
  const noRetry =
    status < 500 && ![408, 409, 429].includes(status) ? { "x-should-retry": "false" } : {};
  const body = JSON.stringify(errorEnvelope(type, message, requestId));
  res.writeHead(status, {
    "content-type": "application/json",
    "request-id": requestId,
    ...noRetry,
    ...headers,
  });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, value: unknown, requestId: string): void {
  sendRaw(res, status, "application/json", JSON.stringify(value), requestId);
}

function sendRaw(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string,
  requestId: string,
): void {
  res.writeHead(status, {
    "content-type": contentType,
    "content-length": Buffer.byteLength(body),
    "request-id": requestId,
  });
  res.end(body);
}

function sendEvents(res: ServerResponse, events: string, requestId: string): void {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "request-id": requestId,
  });
  res.end(events);
}

function idSource(state: ServerState): IdSource {
  const toolPrefix = state.flavour === "deepseek" ? "call_" : "toolu_";
  return {
    messageId: () => `msg_${++state.messages}`,
    toolUseId: () => `${toolPrefix}${++state.toolUses}`,
  };
}

function resetState(state: ServerState): void {
  state.queue = [];
  state.records = [];
  state.stepsUsed = 0;
  state.messages = 0;
  state.toolUses = 0;
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

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

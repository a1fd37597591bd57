// The fake server's OpenAI side: `POST /v1/responses` and `POST /v1/chat/completions` (DeepSeek's
// dialect of the latter in the `deepseek` flavour), answered from the one script, recorded in the
// one request log, with OpenAI's auth, error envelope and `x-request-id` (reference §1, §4, §8).

import type { IncomingMessage, ServerResponse } from "node:http";
import {
  buildChatCompletion,
  buildResponse,
  type ChatCompletion,
  type OpenAIIds,
  type ResponseObject,
} from "./openai-replies.ts";
import {
  brokenChatChunks,
  brokenResponsesEvents,
  chatChunks,
  responsesEvents,
  SERVER_ERROR_TEXT,
} from "./openai-sse.ts";
import type { ChatStep, NativeStep, ResponsesStep } from "./openai-steps.ts";
import {
  isReasoningModel,
  type OpenAIViolation,
  type ResponsesMemory,
  validateChatRequest,
  validateResponsesRequest,
} from "./openai-validator.ts";
import { isNotTheApiFault, notTheApiAnswer, sendRawAnswer } from "./server-raw.ts";
import {
  type FaultStep,
  type ReplyStep,
  type StepResult,
  unmetExpectation,
} from "./server-steps.ts";
import { deepSeekThinks } from "./validator.ts";

export type OpenAIApi = "responses" | "chat";

/** The server's OpenAI memory: id counters and the responses a later request may refer to. */
export interface OpenAIState {
  counters: Record<"responses" | "messages" | "calls" | "reasoning" | "completions", number>;
  memory: ResponsesMemory;
}

/** What the Messages API server hands over with a request on an OpenAI path. */
export interface OpenAIContext {
  api: OpenAIApi;
  flavour: "anthropic" | "deepseek";
  key: string | undefined;
  validate: boolean;
  state: OpenAIState;
  requestId: string;
  /** The next step of the script (an error step when it is empty). */
  next(): Promise<StepResult>;
  /** Waits out a step's `delay_ms`; false when the server closed meanwhile. */
  hold(step: StepResult): Promise<boolean>;
}

// The part of a recorded request this side reads and writes.
interface OpenAIRecord {
  method: string;
  path: string;
  // biome-ignore lint/suspicious/noExplicitAny: a request body is whatever the client sent.
  body: any;
  verdict:
    | { accepted: true }
    | { accepted: false; status: number; message: string; location?: string };
}

interface OpenAIError {
  status: number;
  type: string;
  message: string;
  param?: string | null;
  code?: string | null;
  headers?: Record<string, string>;
}

const FAULT_STEP: ReplyStep = {
  content: [{ type: "text", text: "This reply is broken on purpose by a scripted fault." }],
};

/**
 * Which OpenAI endpoint a path is, if any. OpenAI's base URL ends in `/v1`; DeepSeek's is the bare
 * host (`/v1` also works there), and it serves no Responses API (reference §7).
 */
export function openAIRoute(path: string, flavour: "anthropic" | "deepseek"): OpenAIApi | null {
  if (path === "/v1/chat/completions") return "chat";
  if (flavour === "deepseek") return path === "/chat/completions" ? "chat" : null;
  return path === "/v1/responses" ? "responses" : null;
}

export function newOpenAIState(): OpenAIState {
  return {
    counters: { responses: 0, messages: 0, calls: 0, reasoning: 0, completions: 0 },
    memory: { responses: new Map(), items: new Map() },
  };
}

/**
 * The 500 a native step gets on an endpoint of another protocol: a Responses step cannot answer
 * Chat, and neither can answer the Messages API.
 */
export function misplacedStep(step: NativeStep, api: OpenAIApi | "messages"): OpenAIError {
  const name = "output" in step ? 'a Responses step ("output")' : 'a Chat step ("message")';
  return {
    status: 500,
    type: api === "messages" ? "api_error" : "server_error",
    message: `fake server: ${name} cannot answer the ${API_NAMES[api]}; a neutral step ("content") answers every API`,
    headers: { "x-should-retry": "false" },
  };
}

const API_NAMES = {
  messages: "Messages API",
  responses: "Responses API",
  chat: "Chat Completions API",
} as const;

export async function handleOpenAI(
  req: IncomingMessage,
  res: ServerResponse,
  record: OpenAIRecord,
  context: OpenAIContext,
): Promise<void> {
  const rejection = judge(req, record, context);
  if (rejection) {
    const { status, message, param } = rejection;
    record.verdict = { accepted: false, status, message, ...(param ? { location: param } : {}) };
    return sendError(res, context, rejection);
  }
  const step = await context.next();
  if (!(await context.hold(step)) || res.destroyed) return;
  if ("error" in step) return sendError(res, context, fromStepError(step.error));
  if ("fault" in step) return sendFault(res, step, record, context);
  if ("raw" in step) return sendRawAnswer(res, step.raw);
  if (!("content" in step) && "output" in step !== (context.api === "responses")) {
    return sendError(res, context, misplacedStep(step, context.api));
  }
  const unmet = "content" in step ? unmetExpectation(step, record.body) : null;
  if (unmet) {
    record.verdict = { accepted: false, status: 400, message: unmet };
    return sendError(res, context, { status: 400, type: "invalid_request_error", message: unmet });
  }
  const streaming = record.body.stream === true;
  if (context.api === "responses") {
    const response = reply(step as ReplyStep | ResponsesStep, record, context) as ResponseObject;
    remember(response, record.body, context.state.memory);
    if (streaming) sendEvents(res, context, responsesEvents(response).join(""));
    else sendBody(res, context, 200, "application/json", JSON.stringify(response));
    return;
  }
  const completion = reply(step as ReplyStep | ChatStep, record, context) as ChatCompletion;
  if (streaming) sendEvents(res, context, chatStream(completion, record.body, context));
  else sendBody(res, context, 200, "application/json", JSON.stringify(completion));
}

// In the order the real service checks: route, credentials, body.
function judge(
  req: IncomingMessage,
  record: OpenAIRecord,
  context: OpenAIContext,
): OpenAIError | null {
  if (record.method !== "POST") {
    return {
      status: 404,
      type: "invalid_request_error",
      message: `Invalid URL (${record.method} ${record.path})`,
    };
  }
  const credentials = checkBearer(req.headers.authorization, context.key);
  if (credentials) return credentials;
  if (record.body === null || typeof record.body !== "object") {
    return {
      status: 400,
      type: "invalid_request_error",
      message:
        "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
    };
  }
  if (!context.validate) return null;
  return violationError(
    context.api === "responses"
      ? validateResponsesRequest(record.body, { memory: context.state.memory })
      : validateChatRequest(record.body, {
          flavour: context.flavour === "deepseek" ? "deepseek" : "openai",
        }),
  );
}

function violationError(violation: OpenAIViolation | null): OpenAIError | null {
  return violation && { ...violation };
}

// Any key passes unless the server was given one; no Bearer token at all never does (rule 15).
function checkBearer(header: string | undefined, key: string | undefined): OpenAIError | null {
  const token = header?.match(/^Bearer\s+(\S.*)$/)?.[1];
  if (token === undefined) {
    return {
      status: 401,
      type: "invalid_request_error",
      code: "invalid_api_key",
      message:
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY). You can obtain an API key from https://platform.openai.com/account/api-keys.",
    };
  }
  if (key === undefined || token === key) return null;
  return {
    status: 401,
    type: "invalid_request_error",
    code: "invalid_api_key",
    message: `Incorrect API key provided: ${maskKey(token)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
  };
}

/** A key as the service shows it: its first 8 characters, stars, and its last 4. */
export function maskKey(key: string): string {
  if (key.length <= 12) return `${"*".repeat(Math.max(0, key.length - 4))}${key.slice(-4)}`;
  return `${key.slice(0, 8)}${"*".repeat(key.length - 12)}${key.slice(-4)}`;
}

function fromStepError(error: Extract<StepResult, { error: unknown }>["error"]): OpenAIError {
  return { ...error };
}

function reply(
  step: ReplyStep | ResponsesStep | ChatStep,
  record: OpenAIRecord,
  context: OpenAIContext,
): ResponseObject | ChatCompletion {
  const ids = idSource(context);
  if (context.api === "responses") {
    return buildResponse(step as ReplyStep | ResponsesStep, record.body, ids, {
      reasoning: isReasoningModel(record.body.model),
    });
  }
  const deepseek = context.flavour === "deepseek";
  return buildChatCompletion(step as ReplyStep | ChatStep, record.body, ids, {
    deepseek,
    thinks: deepseek && deepSeekThinks(record.body),
  });
}

// Every item the server hands out, so replays and `previous_response_id` can be checked.
function remember(
  response: ResponseObject,
  body: Record<string, unknown>,
  memory: ResponsesMemory,
) {
  const stored = body.store !== false;
  let reasoning: string | undefined;
  for (const item of response.output) {
    if (item.type === "reasoning") {
      reasoning = item.id;
      memory.items.set(item.id, {
        type: item.type,
        stored,
        encrypted_content: item.encrypted_content,
      });
    } else {
      const call = item.type === "function_call" ? { call_id: item.call_id } : {};
      memory.items.set(item.id, {
        type: item.type,
        stored,
        ...call,
        ...(reasoning ? { reasoning } : {}),
      });
    }
  }
  if (!stored) return;
  const previous = typeof body.previous_response_id === "string" ? body.previous_response_id : null;
  memory.responses.set(response.id, { previous, output: response.output });
}

function chatStream(
  completion: ChatCompletion,
  body: Record<string, unknown>,
  context: OpenAIContext,
) {
  const options = body.stream_options;
  const usage =
    typeof options === "object" && options !== null && "include_usage" in options
      ? options.include_usage === true
      : false;
  // DeepSeek sends keep-alive comments while it works (reference §7); clients must skip them.
  const keepAlive = context.flavour === "deepseek" ? ": keep-alive\n\n" : "";
  return keepAlive + chatChunks(completion, usage).join("");
}

function sendFault(
  res: ServerResponse,
  step: FaultStep,
  record: OpenAIRecord,
  context: OpenAIContext,
): void {
  if (step.fault === "drop") {
    res.socket?.destroy();
    return;
  }
  const built = reply(FAULT_STEP, record, context);
  const json = JSON.stringify(built);
  const streaming = record.body.stream === true;
  const fullStream = () =>
    context.api === "responses"
      ? responsesEvents(built as ResponseObject).join("")
      : chatStream(built as ChatCompletion, record.body, context);
  const brokenStream = (cut: boolean) =>
    context.api === "responses"
      ? brokenResponsesEvents(built as ResponseObject, cut)
      : brokenChatChunks(built as ChatCompletion, cut);
  if (isNotTheApiFault(step.fault)) {
    // The list a client reads becomes a string: a response's output, a completion's choices.
    const list = context.api === "responses" ? "output" : "choices";
    const stringContent = {
      ...built,
      [list]: "This reply is broken on purpose by a scripted fault.",
    };
    sendRawAnswer(res, notTheApiAnswer(step.fault, stringContent, fullStream()));
    return;
  }
  switch (step.fault) {
    case "malformed":
      sendBody(res, context, 200, "application/json", json.slice(0, json.length / 2));
      break;
    case "wrong-content-type":
      sendBody(res, context, 200, "text/plain; charset=utf-8", streaming ? fullStream() : json);
      break;
    case "stream-error":
      if (streaming) sendEvents(res, context, brokenStream(false));
      // Before the 200 has gone out, a failure is an ordinary 500, which clients retry.
      else
        sendError(res, context, { status: 500, type: "server_error", message: SERVER_ERROR_TEXT });
      break;
    case "stream-cut":
      if (streaming) sendEvents(res, context, brokenStream(true));
      else {
        // The connection dies halfway through a body whose content-length promised more.
        res.writeHead(200, {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(json),
          "x-request-id": context.requestId,
        });
        res.write(json.slice(0, json.length / 2), () => res.socket?.destroy());
      }
      break;
    default:
      sendError(res, context, {
        status: 500,
        type: "server_error",
        message: `fake server: the fault "${step.fault}" is not modelled on the ${API_NAMES[context.api]}`,
        headers: { "x-should-retry": "false" },
      });
  }
}

function sendError(res: ServerResponse, context: OpenAIContext, error: OpenAIError): void {
  const { status, message, param, code, headers } = error;
  // The fake's own 500s (an empty script) are written in the Messages vocabulary.
  const type = error.type === "api_error" ? "server_error" : error.type;
  const body = JSON.stringify({
    error: { message, type, param: param ?? null, code: code ?? null },
  });
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "x-request-id": context.requestId,
    ...headers,
  });
  res.end(body);
}

function sendBody(
  res: ServerResponse,
  context: OpenAIContext,
  status: number,
  contentType: string,
  body: string,
): void {
  res.writeHead(status, {
    "content-type": contentType,
    "content-length": Buffer.byteLength(body),
    "x-request-id": context.requestId,
  });
  res.end(body);
}

function sendEvents(res: ServerResponse, context: OpenAIContext, events: string): void {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "x-request-id": context.requestId,
  });
  res.end(events);
}

function idSource(context: OpenAIContext): OpenAIIds {
  const { counters } = context.state;
  const deepseek = context.flavour === "deepseek";
  return {
    response: () => `resp_${++counters.responses}`,
    message: () => `msg_${++counters.messages}`,
    functionCall: () => {
      const n = ++counters.calls;
      return { id: `fc_${n}`, callId: `call_${n}` };
    },
    reasoning: () => `rs_${++counters.reasoning}`,
    completion: () => {
      const n = ++counters.completions;
      // DeepSeek's completion ids are UUIDs (reference §7).
      if (deepseek) return `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
      return `chatcmpl-${n}`;
    },
    toolCall: (index) => {
      const n = ++counters.calls;
      // DeepSeek: call_<two-digit index>_<24 alphanumerics> (reference §7).
      if (deepseek) return `call_${String(index).padStart(2, "0")}_${String(n).padStart(24, "0")}`;
      return `call_${n}`;
    },
  };
}

// What every real provider shares: its settings, the timeout and retry knobs, reading the
// arguments a model wrote, and turning either SDK's errors into the one ApiError a user reads.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { ApiError, type ToolCall } from "../model.ts";

// The protocols, by the names errors use, and where each one's base URL usually ends.
const BASE_URL_HINTS = {
  "Messages API": "DeepSeek's ends in /anthropic",
  "Responses API": "OpenAI's ends in /v1",
  "Chat Completions API": "OpenAI's ends in /v1",
} as const;

export type Api = keyof typeof BASE_URL_HINTS;

export interface ProviderSettings {
  model: string;
  baseURL: string;
  apiKey: string;
  // The variables the key can come from, named when the service refuses it.
  keyNames: string[];
}

// Timeout and retries are explicit, so users on slow links and tests can set them.
export function clientOptions(settings: ProviderSettings) {
  return {
    apiKey: settings.apiKey,
    baseURL: settings.baseURL,
    timeout: settingFromEnv("AGENT_CODE_TIMEOUT_MS", 60_000),
    maxRetries: settingFromEnv("AGENT_CODE_MAX_RETRIES", 2),
  };
}

function settingFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw new ApiError(`${name} must be a whole number, got ${JSON.stringify(raw)}`);
  }
  return value;
}

// OpenAI's protocols carry arguments as the JSON text the model wrote. Text that does not parse is
// the model's mistake: the call gets an error result, not a crash. (JSON that is not an object is
// caught by the registry, as a Messages API input that is not one is.)
export function parseArguments(raw: unknown): Pick<ToolCall, "arguments" | "argumentsError"> {
  // Some gateways send the object itself, as the Messages API does.
  if (typeof raw !== "string") return { arguments: raw };
  try {
    // A call with no arguments may come as "" rather than "{}".
    return { arguments: JSON.parse(raw.trim() === "" ? "{}" : raw) };
  } catch {
    const shown = raw.length > 60 ? `${raw.slice(0, 60)}…` : raw;
    return { arguments: raw, argumentsError: `not valid JSON: ${shown}` };
  }
}

// One line a user can act on, whichever SDK failed: what failed and where; never the key.
export function toApiError(
  error: unknown,
  settings: ProviderSettings,
  maxRetries: number,
  api: Api,
) {
  const { baseURL, keyNames } = settings;
  const retried = maxRetries > 0 ? ` (tried ${maxRetries + 1} times)` : "";
  if (
    error instanceof Anthropic.APIConnectionTimeoutError ||
    error instanceof OpenAI.APIConnectionTimeoutError
  ) {
    return new ApiError(
      `request to ${baseURL} timed out${retried}; AGENT_CODE_TIMEOUT_MS sets the limit`,
    );
  }
  if (error instanceof Anthropic.APIConnectionError || error instanceof OpenAI.APIConnectionError) {
    return new ApiError(`could not connect to ${baseURL}${retried}: ${causeOf(error)}`);
  }
  if (!(error instanceof Anthropic.APIError || error instanceof OpenAI.APIError)) return error;
  const { status } = error;
  if (apiMessage(error) === undefined) {
    // Without the API's error envelope, the answer came from something else: a web page, a proxy.
    const body = error.message.replace(/^\d+ /, "");
    return notTheApi(api, baseURL, status, error.headers?.get("content-type"), body);
  }
  if (status === 401 || status === 403) {
    return new ApiError(
      `authentication failed at ${baseURL} (${status}): check ${keyNames.join(" or ")}`,
    );
  }
  const detail = apiMessage(error) ?? error.message;
  if (status === 400) return new ApiError(`the API rejected the request (400): ${detail}`);
  if (status === 429 || (status ?? 0) >= 500) {
    return new ApiError(`${baseURL} answered ${status}${retried}: ${detail}`);
  }
  return new ApiError(`${baseURL} answered ${status ?? "with an error"}: ${detail}`);
}

// The answer to a request, read as the protocol's reply. A web page, a proxy's own JSON, the
// wrong content type or a body cut off is not one, and the run ends saying what came back.
export async function readReply<T>(
  answer: Response,
  settings: ProviderSettings,
  api: Api,
  looksRight: (value: unknown) => boolean,
): Promise<T> {
  const type = answer.headers.get("content-type");
  const body = await answer.text().catch(() => {
    throw new ApiError(`${settings.baseURL} broke off its answer halfway; try again`);
  });
  const value = type?.includes("json") ? parseJson(body) : undefined;
  if (looksRight(value)) return value as T;
  throw notTheApi(api, settings.baseURL, answer.status, type, body);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

// Who answered, what (status, content type, the first characters on one line), and the usual
// cause: a base URL that points at something other than the API.
function notTheApi(
  api: Api,
  baseURL: string,
  status: number | undefined,
  type: string | null | undefined,
  body: string,
): ApiError {
  // Control characters could redraw the terminal, and newlines would break the one error line.
  const text = body.replace(/[\s\p{C}]+/gu, " ").trim();
  const start = text.length > 60 ? `${text.slice(0, 60)}...` : text;
  return new ApiError(
    `${baseURL} answered ${status} ${type || "without a content type"} "${start}", which is not the ${api}: check the base URL (${BASE_URL_HINTS[api]}) and any proxy in between`,
  );
}

// The service's own words from its error envelope (both SDKs put the status before them in
// `message`), or undefined when the body was not the API's envelope.
function apiMessage(
  error: InstanceType<typeof Anthropic.APIError | typeof OpenAI.APIError>,
): string | undefined {
  if (error instanceof Anthropic.APIError) return error.apiMessage ?? undefined;
  const inner = (error.error as { message?: unknown } | undefined)?.message;
  return typeof inner === "string" ? inner : undefined;
}

// fetch reports a refused connection as "fetch failed"; the reason (ECONNREFUSED) is deeper.
function causeOf(error: Error): string {
  let current: unknown = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  const code = (current as { code?: unknown }).code;
  return typeof code === "string" ? code : (current as Error).message;
}

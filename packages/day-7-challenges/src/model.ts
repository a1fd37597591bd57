// What a model says and hears: the shapes, the ModelProvider interface, the mock model that only
// echoes, and AnthropicProvider, a real model behind the Anthropic Messages API. This is the only
// file that uses the SDK's runtime; its errors leave here as one ApiError fit for a user.
import Anthropic from "@anthropic-ai/sdk";
import type { Tool } from "./tools/index.ts";

export interface ToolCall {
  id: string;
  name: string;
  // The tool's input as the model sent it: meant to be a JSON object, which the registry checks.
  arguments: unknown;
}

export interface ToolResult {
  toolCallId: string;
  content: string;
  isError: boolean;
}

export interface ModelResponse {
  text: string | null;
  toolCalls: ToolCall[];
  stopReason: string;
  // The response's content blocks as they came, to be sent back unchanged.
  assistantContent: Anthropic.ContentBlockParam[];
  // What the request and the answer cost, as the API counted them (the session log keeps it).
  usage?: { input_tokens: number; output_tokens: number };
}

// From v2 on, the conversation is the public Messages API shape: tool results are tool_result
// blocks inside a user message, and there is no "tool" role.
export type Message = Anthropic.MessageParam;

// What a request carries besides the conversation: the system prompt (rules.ts builds it).
export interface CompleteOptions {
  system?: string;
}

// Anything that can complete a conversation is a model to the loop: the mock, a real provider.
export interface ModelProvider {
  complete(messages: Message[], tools?: Tool[], options?: CompleteOptions): Promise<ModelResponse>;
}

// The mock reads no system prompt: it only echoes.
export class MockProvider {
  async complete(
    messages: Message[],
    _tools?: Tool[],
    _options?: CompleteOptions,
  ): Promise<ModelResponse> {
    const last = messages.at(-1);
    const result = toolResultText(last);
    if (result !== undefined) {
      const text = `echo tool returned: ${result}`;
      return {
        text,
        toolCalls: [],
        stopReason: "end_turn",
        assistantContent: [{ type: "text", text }],
      };
    }
    const prompt = typeof last?.content === "string" ? last.content : "";
    const call = { id: "call_echo_1", name: "echo", arguments: { text: echoText(prompt) } };
    return {
      text: null,
      toolCalls: [call],
      stopReason: "tool_use",
      assistantContent: [{ type: "tool_use", id: call.id, name: call.name, input: call.arguments }],
    };
  }
}

// The text of the first tool_result block in a message, if it holds one.
function toolResultText(message: Message | undefined): string | undefined {
  if (message === undefined || typeof message.content === "string") return undefined;
  for (const block of message.content) {
    if (block.type !== "tool_result") continue;
    if (typeof block.content === "string") return block.content;
    return (block.content ?? []).map((part) => (part.type === "text" ? part.text : "")).join("");
  }
  return undefined;
}

// "echo hi using the echo tool" -> "hi": the words the user wants echoed, or the whole prompt.
export function echoText(prompt: string): string {
  const text = prompt
    .replace(/^echo /i, "")
    .replace(/(using|with) the echo tool$/i, "")
    .replace(/[.,;:!?]+$/, "")
    .trim();
  return text === "" ? prompt : text;
}

export interface AnthropicProviderOptions {
  model?: string;
  maxTokens?: number;
  baseURL?: string;
}

// Model names change: this is the one place to change the default.
export const DEFAULT_MODEL = "deepseek-v4-flash";
const DEFAULT_BASE_URL = "https://api.deepseek.com/anthropic";

// A failure to reach or use the model, with a message already fit to show the user.
export class ApiError extends Error {
  override name = "ApiError";
}

export class AnthropicProvider {
  readonly model: string;
  readonly maxTokens: number;
  readonly baseURL: string;
  #client: Anthropic;

  constructor({ model = DEFAULT_MODEL, maxTokens = 1024, baseURL }: AnthropicProviderOptions = {}) {
    // DeepSeek's guide names ANTHROPIC_AUTH_TOKEN, Anthropic's ANTHROPIC_API_KEY: take either, and
    // hand it to the client ourselves so the SDK does not pick its own from the environment.
    const apiKey = process.env.ANTHROPIC_AUTH_TOKEN || process.env.ANTHROPIC_API_KEY;
    if (!apiKey) {
      throw new ApiError("set ANTHROPIC_AUTH_TOKEN, e.g. export ANTHROPIC_AUTH_TOKEN='sk-...'");
    }
    this.model = model;
    this.maxTokens = maxTokens;
    this.baseURL = baseURL || process.env.ANTHROPIC_BASE_URL || DEFAULT_BASE_URL;
    this.#client = new Anthropic({
      apiKey,
      baseURL: this.baseURL,
      timeout: settingFromEnv("AGENT_CODE_TIMEOUT_MS", 60_000),
      maxRetries: settingFromEnv("AGENT_CODE_MAX_RETRIES", 2),
    });
  }

  async complete(
    messages: Message[],
    tools: Tool[] = [],
    { system = "" }: CompleteOptions = {},
  ): Promise<ModelResponse> {
    let response: Anthropic.Message;
    try {
      // The raw answer, not the SDK's parse of it: when something other than the API answers, the
      // user should learn what it was.
      const answer = await this.#client.messages
        .create({
          model: this.model,
          max_tokens: this.maxTokens,
          // The top-level system field, as a string; an empty one is not sent at all.
          ...(system === "" ? {} : { system }),
          messages,
          ...(tools.length > 0 ? { tools: toAnthropicTools(tools) } : {}),
        })
        .asResponse();
      response = await readMessage(answer, this.baseURL);
    } catch (error) {
      throw toApiError(error, this.baseURL, this.#client.maxRetries);
    }
    const texts: string[] = [];
    const toolCalls: ToolCall[] = [];
    for (const block of response.content) {
      if (block.type === "text") texts.push(block.text);
      if (block.type === "tool_use") {
        toolCalls.push({ id: block.id, name: block.name, arguments: block.input });
      }
    }
    return {
      text: texts.length > 0 ? texts.join("\n") : null,
      toolCalls,
      stopReason: response.stop_reason ?? "end_turn",
      // Verbatim, thinking blocks and their signatures included: DeepSeek answers a tool-use turn
      // whose thinking did not come back with a 400, and Anthropic checks the signatures.
      assistantContent: response.content,
      ...usageOf(response),
    };
  }
}

// The two counts, when the answer has them (an API that leaves usage out is still answered).
function usageOf(response: Anthropic.Message): Pick<ModelResponse, "usage"> {
  const usage = response.usage as Partial<Anthropic.Usage> | null | undefined;
  const input = usage?.input_tokens;
  const output = usage?.output_tokens;
  if (typeof input !== "number" || typeof output !== "number") return {};
  return { usage: { input_tokens: input, output_tokens: output } };
}

// Anthropic calls the schema input_schema (OpenAI-style APIs call it parameters).
function toAnthropicTools(tools: Tool[]): Anthropic.Tool[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.parameters ?? { type: "object", properties: {} },
  }));
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

// One line a user can act on: what failed and where; never the key.
function toApiError(error: unknown, baseURL: string, maxRetries: number): unknown {
  const retried = maxRetries > 0 ? ` (tried ${maxRetries + 1} times)` : "";
  if (
    error instanceof Anthropic.AuthenticationError ||
    error instanceof Anthropic.PermissionDeniedError
  ) {
    return new ApiError(
      `authentication failed at ${baseURL} (${error.status}): check ANTHROPIC_AUTH_TOKEN or ANTHROPIC_API_KEY`,
    );
  }
  if (error instanceof Anthropic.APIConnectionTimeoutError) {
    return new ApiError(
      `request to ${baseURL} timed out${retried}; AGENT_CODE_TIMEOUT_MS sets the limit`,
    );
  }
  if (error instanceof Anthropic.APIConnectionError) {
    return new ApiError(`could not connect to ${baseURL}${retried}: ${causeOf(error)}`);
  }
  if (error instanceof Anthropic.APIError && error.apiMessage === null) {
    // Without the API's error envelope, the answer came from something else: a web page, a proxy.
    const body = error.message.replace(/^\d+ /, "");
    return notTheApi(baseURL, error.status, error.headers?.get("content-type"), body);
  }
  if (error instanceof Anthropic.APIError) {
    const detail = error.apiMessage ?? error.message;
    if (error.status === 400) return new ApiError(`the API rejected the request (400): ${detail}`);
    if (error.status === 429 || (error.status ?? 0) >= 500) {
      return new ApiError(`${baseURL} answered ${error.status}${retried}: ${detail}`);
    }
    return new ApiError(`${baseURL} answered ${error.status ?? "with an error"}: ${detail}`);
  }
  return error;
}

// The answer to a request, read as a message. A web page, a proxy's own JSON, the wrong content
// type or a body cut off is not one, and the run ends saying what came back.
async function readMessage(answer: Response, baseURL: string): Promise<Anthropic.Message> {
  const type = answer.headers.get("content-type");
  const body = await answer.text().catch(() => {
    throw new ApiError(`${baseURL} broke off its answer halfway; try again`);
  });
  const message = type?.includes("json") ? parseJson(body) : undefined;
  if (isMessage(message)) return message;
  throw notTheApi(baseURL, answer.status, type, body);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

// What the loop relies on: a list of content blocks, each with a type.
function isMessage(value: unknown): value is Anthropic.Message {
  const content = (value as { content?: unknown } | null | undefined)?.content;
  return Array.isArray(content) && content.every((block) => typeof block?.type === "string");
}

// Who answered, what (status, content type, the first characters on one line) and the usual cause.
function notTheApi(
  baseURL: string,
  status: number | undefined,
  type: string | null | undefined,
  body: string,
): ApiError {
  // Control characters could redraw the terminal, and newlines would break the one error line.
  const text = body.replace(/[\s\p{C}]+/gu, " ").trim();
  const start = text.length > 60 ? `${text.slice(0, 60)}...` : text;
  return new ApiError(
    `${baseURL} answered ${status} ${type || "without a content type"} "${start}", which is not the Messages API: check the base URL (DeepSeek's ends in /anthropic) and any proxy in between`,
  );
}

// fetch reports a refused connection as "fetch failed"; the reason (ECONNREFUSED) is deeper.
function causeOf(error: Error): string {
  let current: unknown = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  const code = (current as { code?: unknown }).code;
  return typeof code === "string" ? code : (current as Error).message;
}

export const PROVIDERS = ["anthropic", "mock"] as const;

// The CLI names a provider; this builds it, so the CLI needs no constructor details.
export function createProvider(name: string, model: string, baseURL?: string): ModelProvider {
  if (name === "anthropic") return new AnthropicProvider({ model, baseURL });
  if (name === "mock") return new MockProvider();
  throw new Error(`unknown provider: ${name} (expected one of: ${PROVIDERS.join(", ")})`);
}

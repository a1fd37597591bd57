// What a model says and hears, in words that belong to no vendor: the loop sees only these shapes.
// Each provider in src/providers/ speaks one protocol and owns that protocol's conversation
// format; this file says which providers there are, where each finds its key, and builds one.
import { OpenAIChatProvider } from "./providers/chat.ts";
import { AnthropicProvider } from "./providers/messages.ts";
import { MockProvider } from "./providers/mock.ts";
import { OpenAIResponsesProvider } from "./providers/responses.ts";
import type { Tool } from "./tools.ts";

export interface ToolCall {
  id: string;
  name: string;
  // The tool's input as the model sent it: meant to be a JSON object, which the registry checks.
  arguments: unknown;
  // Set when a provider could not read the model's arguments (JSON text that does not parse): the
  // call does not run, and the model reads why.
  argumentsError?: string;
}

export interface ToolResult {
  toolCallId: string;
  content: string;
  isError: boolean;
}

// One entry of a conversation in its provider's own format: a Messages API message, a Responses
// input item, a Chat Completions message. The loop keeps them in order and never looks inside.
export type ConversationItem = object;

// One vocabulary for every protocol: end_turn (an answer), tool_use (run the calls), max_tokens
// (cut off), or any other reason by its own name (refusal, content_filter, …), which ends the run.
export type StopReason = "end_turn" | "tool_use" | "max_tokens" | (string & {});

export interface ModelResponse {
  text: string | null;
  toolCalls: ToolCall[];
  stopReason: StopReason;
  // The model's turn as its protocol wants it back in the next request.
  assistantItems: ConversationItem[];
}

// Anything that can complete a conversation is a model to the loop. The provider, not the loop,
// knows how results go back: in one user message, as output items, or as one message per call.
export interface ModelProvider {
  complete(conversation: ConversationItem[], tools?: Tool[]): Promise<ModelResponse>;
  toolResults(results: ToolResult[]): ConversationItem[];
}

// A failure to reach or use the model, with a message already fit to show the user.
export class ApiError extends Error {
  override name = "ApiError";
}

// Where a provider finds its key, its base URL and its model. The variables are tried in order.
interface Service {
  protocol: "messages" | "responses" | "chat";
  keys: string[];
  baseURLVariable: string;
  baseURL?: string;
  model?: string;
  modelVariable?: string;
}

// In the order `--provider auto` tries them: the first whose key is set wins.
const SERVICES: Record<string, Service> = {
  anthropic: {
    protocol: "messages",
    keys: ["ANTHROPIC_API_KEY"],
    baseURLVariable: "ANTHROPIC_BASE_URL",
    baseURL: "https://api.anthropic.com",
    // Model names change: these are the places to change the defaults.
    model: "claude-sonnet-5-5",
  },
  deepseek: {
    protocol: "messages",
    keys: ["ANTHROPIC_AUTH_TOKEN", "DEEPSEEK_API_KEY"],
    baseURLVariable: "ANTHROPIC_BASE_URL",
    baseURL: "https://api.deepseek.com/anthropic",
    model: "deepseek-v4-flash",
  },
  openai: {
    protocol: "responses",
    keys: ["OPENAI_API_KEY"],
    baseURLVariable: "OPENAI_BASE_URL",
    baseURL: "https://api.openai.com/v1",
    model: "gpt-4.1",
  },
  // Any gateway that speaks Chat Completions: it has no default address, and its models are its
  // own, so OPENAI_CHAT_MODEL names one (OpenAI's is the fallback).
  "openai-chat": {
    protocol: "chat",
    keys: ["OPENAI_CHAT_API_KEY"],
    baseURLVariable: "OPENAI_CHAT_BASE_URL",
    model: "gpt-4.1",
    modelVariable: "OPENAI_CHAT_MODEL",
  },
};

export const PROVIDERS = [
  "auto",
  "anthropic",
  "deepseek",
  "openai",
  "openai-chat",
  "mock",
  "offline",
] as const;

// `auto` and `offline` are ways to name a provider; this is the provider they name.
export function resolveProviderName(name: string): string {
  if (name === "offline") return "mock";
  if (name !== "auto") return name;
  const found = Object.entries(SERVICES).find(([, service]) =>
    service.keys.some((key) => process.env[key]),
  );
  return found?.[0] ?? "mock";
}

// The model a provider uses when --model is not given: its variable, else its default.
export function defaultModel(name: string): string {
  if (name === "mock") return "mock";
  const service = SERVICES[name];
  const fromEnv = service?.modelVariable ? process.env[service.modelVariable] : undefined;
  return fromEnv || service?.model || "";
}

// The CLI names a provider; this builds it, so the CLI needs no constructor details.
export function createProvider(name: string, model: string, baseURL?: string): ModelProvider {
  if (name === "mock") return new MockProvider();
  const service = SERVICES[name];
  if (service === undefined) {
    throw new Error(`unknown provider: ${name} (expected one of: ${PROVIDERS.join(", ")})`);
  }
  const [keyName = ""] = service.keys;
  const apiKey = service.keys.map((key) => process.env[key]).find(Boolean);
  if (!apiKey) throw new ApiError(`set ${keyName}, e.g. export ${keyName}='sk-...'`);
  const url = baseURL || process.env[service.baseURLVariable] || service.baseURL;
  if (!url) {
    throw new ApiError(
      `set ${service.baseURLVariable} to the gateway's base URL (e.g. https://example.com/v1), or pass --base-url`,
    );
  }
  const settings = { model, baseURL: url, apiKey, keyNames: service.keys };
  if (service.protocol === "messages") return new AnthropicProvider(settings);
  if (service.protocol === "responses") return new OpenAIResponsesProvider(settings);
  return new OpenAIChatProvider(settings);
}

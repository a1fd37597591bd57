// The Anthropic Messages API, spoken by Anthropic and by DeepSeek's /anthropic endpoint: the
// protocol of Day 2. Tool calls are tool_use blocks whose input is already an object; results go
// back as tool_result blocks, all of one turn in one user message.
import Anthropic from "@anthropic-ai/sdk";
import type {
  ConversationItem,
  ModelResponse,
  StopReason,
  ToolCall,
  ToolResult,
} from "../model.ts";
import type { Tool } from "../tools.ts";
import { clientOptions, type ProviderSettings, readReply, toApiError } from "./common.ts";

export class AnthropicProvider {
  readonly model: string;
  readonly maxTokens = 1024;
  readonly baseURL: string;
  #settings: ProviderSettings;
  #client: Anthropic;

  constructor(settings: ProviderSettings) {
    this.model = settings.model;
    this.baseURL = settings.baseURL;
    this.#settings = settings;
    // The key is handed over explicitly, so the SDK does not pick its own from the environment.
    this.#client = new Anthropic(clientOptions(settings));
  }

  async complete(conversation: ConversationItem[], tools: Tool[] = []): Promise<ModelResponse> {
    let response: Anthropic.Message;
    try {
      // The raw answer, not the SDK's parse of it: when something other than the API answers, the
      // user should learn what it was.
      const answer = await this.#client.messages
        .create({
          model: this.model,
          max_tokens: this.maxTokens,
          messages: conversation as Anthropic.MessageParam[],
          ...(tools.length > 0 ? { tools: toAnthropicTools(tools) } : {}),
        })
        .asResponse();
      response = await readReply(answer, this.#settings, "Messages API", isMessage);
    } catch (error) {
      throw toApiError(error, this.#settings, this.#client.maxRetries, "Messages API");
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
      stopReason: stopReason(response.stop_reason),
      // Verbatim, thinking blocks and their signatures included: DeepSeek answers a tool-use turn
      // whose thinking did not come back with a 400, and Anthropic checks the signatures.
      assistantItems: [{ role: "assistant", content: response.content }],
    };
  }

  toolResults(results: ToolResult[]): ConversationItem[] {
    return toolResultMessage(results);
  }
}

// Every result of the turn in ONE user message right after it. One message per result is merged
// by Anthropic but rejected by DeepSeek.
export function toolResultMessage(results: ToolResult[]): Anthropic.MessageParam[] {
  const content: Anthropic.ToolResultBlockParam[] = results.map((result) => ({
    type: "tool_result",
    tool_use_id: result.toolCallId,
    content: result.content,
    is_error: result.isError,
  }));
  return [{ role: "user", content }];
}

// What the loop relies on: a list of content blocks, each with a type.
function isMessage(value: unknown): boolean {
  const content = (value as { content?: unknown } | null | undefined)?.content;
  return Array.isArray(content) && content.every((block) => typeof block?.type === "string");
}

// Anthropic calls the schema input_schema (OpenAI's protocols call it parameters).
function toAnthropicTools(tools: Tool[]): Anthropic.Tool[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.parameters ?? { type: "object", properties: {} },
  }));
}

// stop_sequence is an answer like end_turn; the rest keep their names (max_tokens, refusal, …).
function stopReason(reason: string | null): StopReason {
  if (reason === null || reason === "stop_sequence") return "end_turn";
  return reason;
}

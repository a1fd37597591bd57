// Chat Completions, the protocol most OpenAI-compatible gateways speak (DeepSeek's own API among
// them). The model's turn is one assistant message with tool_calls whose arguments are JSON
// text; results go back as one role "tool" message per call, right after that message.
import OpenAI from "openai";
import type {
  ConversationItem,
  ModelResponse,
  StopReason,
  ToolCall,
  ToolResult,
} from "../model.ts";
import type { Tool } from "../tools.ts";
import {
  clientOptions,
  type ProviderSettings,
  parseArguments,
  readReply,
  toApiError,
} from "./common.ts";

export class OpenAIChatProvider {
  readonly model: string;
  readonly baseURL: string;
  #settings: ProviderSettings;
  #client: OpenAI;

  constructor(settings: ProviderSettings) {
    this.model = settings.model;
    this.baseURL = settings.baseURL;
    this.#settings = settings;
    this.#client = new OpenAI(clientOptions(settings));
  }

  async complete(conversation: ConversationItem[], tools: Tool[] = []): Promise<ModelResponse> {
    let completion: OpenAI.Chat.ChatCompletion;
    try {
      const answer = await this.#client.chat.completions
        .create({
          model: this.model,
          messages: conversation as OpenAI.Chat.ChatCompletionMessageParam[],
          ...(tools.length > 0 ? { tools: toChatTools(tools) } : {}),
        })
        .asResponse();
      completion = await readReply(answer, this.#settings, "Chat Completions API", isCompletion);
    } catch (error) {
      throw toApiError(error, this.#settings, this.#client.maxRetries, "Chat Completions API");
    }
    const [choice] = completion.choices as [OpenAI.Chat.ChatCompletion.Choice];
    const { message } = choice;
    const toolCalls: ToolCall[] = (message.tool_calls ?? []).flatMap((call) =>
      call.type === "function"
        ? [{ id: call.id, name: call.function.name, ...parseArguments(call.function.arguments) }]
        : [],
    );
    return {
      text: message.content ?? null,
      toolCalls,
      stopReason: stopReason(choice.finish_reason, toolCalls.length > 0, Boolean(message.refusal)),
      assistantItems: [assistantMessage(message)],
    };
  }

  // One message per result, in the order of the calls, each naming the call it answers.
  toolResults(results: ToolResult[]): ConversationItem[] {
    return results.map(
      (result): OpenAI.Chat.ChatCompletionToolMessageParam => ({
        role: "tool",
        tool_call_id: result.toolCallId,
        content: result.content,
      }),
    );
  }
}

// What the loop relies on: a first choice that holds a message.
function isCompletion(value: unknown): boolean {
  const choices = (value as { choices?: unknown } | null | undefined)?.choices;
  const message = Array.isArray(choices) ? choices[0]?.message : undefined;
  return typeof message === "object" && message !== null;
}

// Chat nests each tool under `function`.
function toChatTools(tools: Tool[]): OpenAI.Chat.ChatCompletionFunctionTool[] {
  return tools.map((tool) => ({
    type: "function",
    function: {
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters ?? { type: "object", properties: {} },
    },
  }));
}

// "length" means the token limit cut the turn off, maybe inside a call's arguments: such a call
// never runs. Calls run on "tool_calls", and on "stop" too (a forced tool_choice ends that way).
function stopReason(finish: string | null, hasCalls: boolean, refused: boolean): StopReason {
  if (finish === "length") return "max_tokens";
  if (refused) return "refusal";
  if (finish === "content_filter") return finish;
  if (hasCalls) return "tool_use";
  if (finish === "stop" || finish === "tool_calls" || finish === null) return "end_turn";
  return finish;
}

// The assistant message goes back as it came: DeepSeek's reasoning_content included, which its
// thinking mode requires on every turn that called tools. Only an empty tool_calls list is left
// out, because the service refuses one.
function assistantMessage(message: OpenAI.Chat.ChatCompletionMessage): ConversationItem {
  const { tool_calls, ...rest } = message;
  return Array.isArray(tool_calls) && tool_calls.length > 0 ? { ...rest, tool_calls } : rest;
}

// OpenAI's Responses API through the official `openai` SDK. The model's turn is a list of output
// items (messages, reasoning, function_call items whose arguments are JSON text); results go back
// as function_call_output items, paired by call_id, after the calls they answer.
import OpenAI from "openai";
import {
  ApiError,
  type ConversationItem,
  type ModelResponse,
  type StopReason,
  type ToolCall,
  type ToolResult,
} from "../model.ts";
import type { Tool } from "../tools.ts";
import {
  clientOptions,
  type ProviderSettings,
  parseArguments,
  readReply,
  toApiError,
} from "./common.ts";

export class OpenAIResponsesProvider {
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
    let response: OpenAI.Responses.Response;
    try {
      const answer = await this.#client.responses
        .create({
          model: this.model,
          input: conversation as OpenAI.Responses.ResponseInput,
          // The whole conversation goes out every time, so the service need keep nothing: no
          // previous_response_id, nothing stored, and the same shape as the other protocols.
          store: false,
          ...(tools.length > 0 ? { tools: toFunctionTools(tools) } : {}),
        })
        .asResponse();
      response = await readReply(answer, this.#settings, "Responses API", isResponse);
    } catch (error) {
      throw toApiError(error, this.#settings, this.#client.maxRetries, "Responses API");
    }
    if (response.status === "failed") {
      throw new ApiError(
        `the model failed at ${this.baseURL}: ${response.error?.message ?? "no reason given"}`,
      );
    }
    const texts: string[] = [];
    const toolCalls: ToolCall[] = [];
    let refused = false;
    for (const item of response.output) {
      if (item.type === "message") {
        for (const part of item.content ?? []) {
          if (part.type === "output_text") texts.push(part.text);
          if (part.type === "refusal") refused = true;
        }
      }
      if (item.type === "function_call") {
        toolCalls.push({ id: item.call_id, name: item.name, ...parseArguments(item.arguments) });
      }
    }
    return {
      text: texts.length > 0 ? texts.join("\n") : null,
      toolCalls,
      stopReason: stopReason(response, toolCalls.length > 0, refused),
      assistantItems: response.output.flatMap(asInputItem),
    };
  }

  // No is_error field here: the text of an error result says what went wrong.
  toolResults(results: ToolResult[]): ConversationItem[] {
    return results.map(
      (result): OpenAI.Responses.ResponseInputItem.FunctionCallOutput => ({
        type: "function_call_output",
        call_id: result.toolCallId,
        output: result.content,
      }),
    );
  }
}

// What the loop relies on: a response object whose output is a list of typed items.
function isResponse(value: unknown): boolean {
  const { object, output } = (value ?? {}) as { object?: unknown; output?: unknown };
  return (
    object === "response" &&
    Array.isArray(output) &&
    output.every((item) => typeof item?.type === "string")
  );
}

// Responses tools are flat: the name beside the type, the schema called parameters. strict mode
// would need every property required, which optional arguments are not.
function toFunctionTools(tools: Tool[]): OpenAI.Responses.FunctionTool[] {
  return tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters ?? { type: "object", properties: {} },
    strict: false,
  }));
}

// Only a completed response is an answer. An incomplete one was cut off (its calls may be half
// written), and one still in progress or cancelled has nothing to act on: none of them runs a tool.
function stopReason(
  response: OpenAI.Responses.Response,
  hasCalls: boolean,
  refused: boolean,
): StopReason {
  if (response.status === "incomplete") {
    const reason = response.incomplete_details?.reason;
    return reason === "max_output_tokens" ? "max_tokens" : (reason ?? "incomplete");
  }
  if (response.status !== "completed") return String(response.status);
  if (refused) return "refusal";
  return hasCalls ? "tool_use" : "end_turn";
}

// An output item as the next request's input. With store: false the service keeps nothing, so an
// item's id would point at nothing (a 404): the item goes back without it. A reasoning item can
// only go back with its encrypted_content; without it, it is left out, as the API allows.
function asInputItem(item: OpenAI.Responses.ResponseOutputItem): ConversationItem[] {
  if (item.type === "reasoning" && !item.encrypted_content) return [];
  const { id: _id, ...rest } = item as { id?: string };
  return [rest];
}

// The offline model: no key, no network, always the same echo round. It keeps its conversation in
// the Messages API's shape, which is as good as any when nobody else reads it.
import type Anthropic from "@anthropic-ai/sdk";
import type { ConversationItem, ModelResponse, ToolResult } from "../model.ts";
import type { Tool } from "../tools.ts";
import { toolResultMessage } from "./messages.ts";

export class MockProvider {
  readonly model = "mock";

  async complete(conversation: ConversationItem[], _tools?: Tool[]): Promise<ModelResponse> {
    const last = conversation.at(-1) as Anthropic.MessageParam | undefined;
    const result = toolResultText(last);
    if (result !== undefined) {
      const text = `echo tool returned: ${result}`;
      return {
        text,
        toolCalls: [],
        stopReason: "end_turn",
        assistantItems: [{ role: "assistant", content: [{ type: "text", text }] }],
      };
    }
    const prompt = typeof last?.content === "string" ? last.content : "";
    const call = { id: "call_echo_1", name: "echo", arguments: { text: echoText(prompt) } };
    return {
      text: null,
      toolCalls: [call],
      stopReason: "tool_use",
      assistantItems: [
        {
          role: "assistant",
          content: [{ type: "tool_use", id: call.id, name: call.name, input: call.arguments }],
        },
      ],
    };
  }

  toolResults(results: ToolResult[]): ConversationItem[] {
    return toolResultMessage(results);
  }
}

// The text of the first tool_result block in a message, if it holds one.
function toolResultText(message: Anthropic.MessageParam | undefined): string | undefined {
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

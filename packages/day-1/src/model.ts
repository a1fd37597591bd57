// What a model says and hears. Day 1 has no real model: MockProvider plays one that always asks
// for the echo tool, so the loop can be built and tested offline.
import type { Tool } from "./tools.ts";

export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
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
}

// Day 1's own message shapes. The "tool" role is a shortcut of ours; the real Messages API has no
// such role, and Day 2 replaces it with tool_result blocks inside a user message.
export type Message =
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; toolCalls: ToolCall[] }
  | { role: "tool"; toolCallId: string; content: string };

export class MockProvider {
  async complete(messages: Message[], _tools?: Tool[]): Promise<ModelResponse> {
    const last = messages.at(-1);
    if (last?.role === "tool") {
      return { text: `echo tool returned: ${last.content}`, toolCalls: [], stopReason: "end_turn" };
    }
    const prompt = last?.role === "user" ? last.content : "";
    return {
      text: null,
      toolCalls: [{ id: "call_echo_1", name: "echo", arguments: { text: echoText(prompt) } }],
      stopReason: "tool_use",
    };
  }
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

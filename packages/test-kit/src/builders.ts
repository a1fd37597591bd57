// Content-block builders shared by fake-server steps and the scripted provider. Ids come from a
// counter so output is deterministic; resetIds() starts it again.
import { signThinking } from "./signature.ts";

export interface TextBlock {
  type: "text";
  text: string;
}

export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export interface ThinkingBlock {
  type: "thinking";
  thinking: string;
  signature: string;
}

export type Block = TextBlock | ToolUseBlock | ThinkingBlock;

// The shape every stage's ModelResponse has (day-1 ignores assistantContent).
export interface ScriptedResponse {
  text: string | null;
  // argumentsError: the provider appendix's mark on arguments it could not read.
  toolCalls: {
    id: string;
    name: string;
    arguments: Record<string, unknown>;
    argumentsError?: string;
  }[];
  stopReason: string;
  assistantContent: Block[];
}

let nextId = 1;

export function resetIds(): void {
  nextId = 1;
}

export function text(value: string): TextBlock {
  return { type: "text", text: value };
}

export function toolUse(
  name: string,
  input: Record<string, unknown> = {},
  id = `toolu_${nextId++}`,
): ToolUseBlock {
  return { type: "tool_use", id, name, input };
}

// Signed the way the fake server signs, so the validator accepts it when it comes back.
export function thinking(value: string): ThinkingBlock {
  return { type: "thinking", thinking: value, signature: signThinking(value) };
}

// A whole model response; the stop reason is derived from the blocks unless given.
export function reply(blocks: Block[], options: { stopReason?: string } = {}): ScriptedResponse {
  const texts = blocks.filter((block) => block.type === "text").map((block) => block.text);
  const toolCalls = blocks
    .filter((block) => block.type === "tool_use")
    .map((block) => ({ id: block.id, name: block.name, arguments: block.input }));
  return {
    text: texts.length > 0 ? texts.join("\n") : null,
    toolCalls,
    stopReason: options.stopReason ?? (toolCalls.length > 0 ? "tool_use" : "end_turn"),
    assistantContent: blocks,
  };
}

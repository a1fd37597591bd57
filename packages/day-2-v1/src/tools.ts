// Tools the model may ask for, and the registry that runs them by name.
import type { ToolCall, ToolResult } from "./model.ts";

export type ToolFunction = (args: Record<string, unknown>) => string;

export interface Tool {
  name: string;
  description: string;
  run: ToolFunction;
}

export function echo(args: Record<string, unknown>): string {
  return String(args.text ?? "");
}

export class ToolRegistry {
  #tools = new Map<string, Tool>();

  register(tool: Tool): void {
    this.#tools.set(tool.name, tool);
  }

  run(call: ToolCall): ToolResult {
    const tool = this.#tools.get(call.name);
    if (!tool) {
      // The model named a tool we do not have: tell it which ones exist instead of failing.
      const available = [...this.#tools.keys()].join(", ");
      return {
        toolCallId: call.id,
        content: `unknown tool: ${call.name} (available: ${available})`,
        isError: true,
      };
    }
    return { toolCallId: call.id, content: tool.run(call.arguments), isError: false };
  }
}

export function defaultTools(): ToolRegistry {
  const tools = new ToolRegistry();
  tools.register({ name: "echo", description: "Repeat the given text back.", run: echo });
  return tools;
}

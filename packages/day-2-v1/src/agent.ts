// The agent loop: ask the model, run the tools it asks for, hand the results back, ask again.
// This stage does one round of that.
import type { Message, ModelProvider } from "./model.ts";
import type { ToolRegistry } from "./tools.ts";

export interface AgentResult {
  final: string;
  trace: string[];
}

export async function runAgent(
  prompt: string,
  provider: ModelProvider,
  tools: ToolRegistry,
): Promise<AgentResult> {
  const messages: Message[] = [{ role: "user", content: prompt }];
  const trace: string[] = [];

  let response = await provider.complete(messages);
  messages.push({ role: "assistant", content: response.text, toolCalls: response.toolCalls });

  if (response.toolCalls.length > 0) {
    for (const call of response.toolCalls) {
      trace.push(`tool_call: ${call.name} ${JSON.stringify(call.arguments)}`);
      const result = tools.run(call);
      trace.push(`observation: ${result.content}`);
      // Day 1's shortcut: a message with role "tool". Day 2 switches to the public protocol.
      messages.push({ role: "tool", toolCallId: result.toolCallId, content: result.content });
    }
    response = await provider.complete(messages);
  }

  const final = response.text ?? "";
  trace.push(`final: ${final}`);
  return { final, trace };
}

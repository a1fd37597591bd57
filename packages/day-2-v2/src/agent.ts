// The agent loop: ask the model, run the tools it asks for, hand the results back, ask again.
// This stage does one round of that, over the public tool_use / tool_result protocol.
import type Anthropic from "@anthropic-ai/sdk";
import type { Message, ModelProvider } from "./model.ts";
import type { ToolRegistry } from "./tools.ts";

export interface AgentResult {
  final: string;
  trace: string[];
  messages: Message[];
}

export async function runAgent(
  prompt: string,
  provider: ModelProvider,
  tools: ToolRegistry,
): Promise<AgentResult> {
  const messages: Message[] = [{ role: "user", content: prompt }];
  const trace: string[] = [];

  let response = await provider.complete(messages, tools.list());
  // The assistant turn goes back exactly as it came, thinking blocks included.
  messages.push({ role: "assistant", content: response.assistantContent });

  if (response.toolCalls.length > 0) {
    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const call of response.toolCalls) {
      trace.push(`tool_call: ${call.name} ${JSON.stringify(call.arguments)}`);
      const result = tools.run(call);
      trace.push(`observation: ${result.content}`);
      results.push({
        type: "tool_result",
        tool_use_id: result.toolCallId,
        content: result.content,
        is_error: result.isError,
      });
    }
    // Every result of the turn in ONE user message right after it. One message per result is
    // merged by Anthropic but rejected by DeepSeek; asking the model between results is a 400.
    messages.push({ role: "user", content: results });
    response = await provider.complete(messages, tools.list());
    messages.push({ role: "assistant", content: response.assistantContent });
  }

  const final = response.text ?? "";
  trace.push(`final: ${final}`);
  return { final, trace, messages };
}

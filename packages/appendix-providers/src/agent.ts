// The agent loop: ask the model, run the tools it asks for, hand the results back, ask again,
// until the model answers without tools or the step budget runs out. It never learns which
// protocol the model speaks: the provider hands it items to append, and it appends them.
import type { ConversationItem, ModelProvider, ModelResponse, ToolResult } from "./model.ts";
import type { ToolRegistry } from "./tools.ts";

export interface AgentResult {
  final: string;
  trace: string[];
  conversation: ConversationItem[];
}

export interface AgentOptions {
  // The most model calls one run may make, so a model that keeps asking for tools cannot loop
  // forever.
  maxSteps?: number;
}

export async function runAgent(
  prompt: string,
  provider: ModelProvider,
  tools: ToolRegistry,
  { maxSteps = 8 }: AgentOptions = {},
): Promise<AgentResult> {
  // The one shape all three protocols share: a user message whose content is a string.
  const conversation: ConversationItem[] = [{ role: "user", content: prompt }];
  const trace: string[] = [];

  for (let step = 0; step < maxSteps; step++) {
    const response = await provider.complete(conversation, tools.list());
    // The model's turn goes back as its provider prepared it, thinking and reasoning included.
    conversation.push(...response.assistantItems);

    // Only a tool_use stop runs tools: a response cut off by max_tokens may hold a half-written
    // call, and one that was refused must not act.
    if (response.stopReason !== "tool_use" || response.toolCalls.length === 0) {
      const final = finalText(response);
      trace.push(`final: ${final}`);
      return { final, trace, conversation };
    }

    const results: ToolResult[] = [];
    for (const call of response.toolCalls) {
      trace.push(`tool_call: ${call.name} ${JSON.stringify(call.arguments)}`);
      const result = tools.run(call);
      trace.push(`observation: ${result.content}`);
      results.push(result);
    }
    // Where and how the results go (one user message, output items, a message per call) is the
    // protocol's business; every result of the turn goes back before the model is asked again.
    conversation.push(...provider.toolResults(results));
  }

  const final = `reached max_steps=${maxSteps}`;
  trace.push(`final: ${final}`);
  return { final, trace, conversation };
}

// end_turn is an answer; any other reason (max_tokens, refusal, content_filter, one not invented
// yet) ends the run and says why.
function finalText(response: ModelResponse): string {
  if (["end_turn", "tool_use"].includes(response.stopReason)) {
    return response.text ?? "";
  }
  return `stopped: stop_reason=${response.stopReason}`;
}

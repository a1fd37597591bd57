// The agent loop: ask the model, run the tools it asks for, hand the results back, ask again,
// until the model answers without tools or the step budget runs out.
import type Anthropic from "@anthropic-ai/sdk";
import type { Message, ModelProvider, ModelResponse } from "./model.ts";
import type { ToolRegistry } from "./tools.ts";

export interface AgentResult {
  final: string;
  trace: string[];
  messages: Message[];
}

export interface AgentOptions {
  // The most model calls one run may make, so a model that keeps asking for tools cannot loop
  // forever.
  maxSteps?: number;
  // The model's words as they arrive, and each trace line as it is made: how a CLI shows a run
  // while it happens. The loop itself never writes to the terminal.
  onText?: (text: string) => void;
  onTrace?: (line: string) => void;
}

export async function runAgent(
  prompt: string,
  provider: ModelProvider,
  tools: ToolRegistry,
  { maxSteps = 8, onText, onTrace }: AgentOptions = {},
): Promise<AgentResult> {
  const messages: Message[] = [{ role: "user", content: prompt }];
  const trace: string[] = [];
  const record = (line: string) => {
    trace.push(line);
    onTrace?.(line);
  };

  for (let step = 0; step < maxSteps; step++) {
    const response = await provider.complete(messages, tools.list(), { onText });
    // The assistant turn goes back exactly as it came, thinking blocks included.
    messages.push({ role: "assistant", content: response.assistantContent });

    // Only a tool_use stop runs tools: a response cut off by max_tokens may hold a half-written
    // call, and one that was refused must not act.
    if (response.stopReason !== "tool_use" || response.toolCalls.length === 0) {
      const final = finalText(response);
      record(`final: ${final}`);
      return { final, trace, messages };
    }

    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const call of response.toolCalls) {
      record(`tool_call: ${call.name} ${JSON.stringify(call.arguments)}`);
      const result = tools.run(call);
      record(`observation: ${result.content}`);
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
  }

  const final = `reached max_steps=${maxSteps}`;
  record(`final: ${final}`);
  return { final, trace, messages };
}

// end_turn and stop_sequence are answers; any other reason (max_tokens, refusal, pause_turn,
// model_context_window_exceeded, one not invented yet) ends the run and says why.
function finalText(response: ModelResponse): string {
  if (["end_turn", "stop_sequence", "tool_use"].includes(response.stopReason)) {
    return response.text ?? "";
  }
  return `stopped: stop_reason=${response.stopReason}`;
}

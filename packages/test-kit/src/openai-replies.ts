// What the OpenAI endpoints answer with: a step (neutral or native) turned into a Responses
// `response` or a Chat `chat.completion`, ids filled in, in the shapes of reference §2.2 and §3.2.
import { isObject } from "./json-checks.ts";
import type { ChatStep, ResponsesOutputItem, ResponsesStep } from "./openai-steps.ts";
import { estimateTokens, type ReplyStep, thinkingFirst } from "./server-steps.ts";
import { signThinking } from "./signature.ts";

/** Where filled-in ids come from: per-server counters, so output is deterministic. */
export interface OpenAIIds {
  response(): string;
  message(): string;
  /** A function call's item id (`fc_N`) and its `call_id` (`call_N`), from one counter. */
  functionCall(): { id: string; callId: string };
  reasoning(): string;
  completion(): string;
  /** A Chat tool call's id; `index` is its place in the message (DeepSeek's ids show it). */
  toolCall(index: number): string;
}

// An output item as the wire carries it: every id and status filled in.
export type OutputItem =
  | {
      type: "message";
      id: string;
      role: "assistant";
      status: string;
      content: Array<
        | { type: "output_text"; text: string; annotations: unknown[] }
        | { type: "refusal"; refusal: string }
      >;
    }
  | {
      type: "function_call";
      id: string;
      call_id: string;
      name: string;
      arguments: string;
      status: string;
    }
  | {
      type: "reasoning";
      id: string;
      summary: Array<{ type: "summary_text"; text: string }>;
      encrypted_content: string;
    };

export interface ResponseObject {
  id: string;
  object: "response";
  created_at: number;
  status: "completed" | "incomplete" | "failed";
  error: { code: string; message: string } | null;
  incomplete_details: { reason: string } | null;
  model: string;
  output: OutputItem[];
  usage: Record<string, unknown>;
  [field: string]: unknown;
}

export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: "assistant";
  content: string | null;
  refusal?: string | null;
  annotations?: unknown[];
  reasoning_content?: string;
  tool_calls?: ChatToolCall[];
}

export interface ChatCompletion {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: [{ index: 0; message: ChatMessage; logprobs: null; finish_reason: string }];
  usage: Record<string, unknown>;
  [field: string]: unknown;
}

// A fixed clock (2025-10-09), so that a reply is the same on every run.
export const CREATED = 1760000000;

/** The full `response` for a step; `reasoning` puts a reasoning item before a neutral reply. */
export function buildResponse(
  step: ReplyStep | ResponsesStep,
  requestBody: unknown,
  ids: OpenAIIds,
  options: { reasoning: boolean },
): ResponseObject {
  const body = isObject(requestBody) ? requestBody : {};
  const id = ids.response();
  let output: OutputItem[];
  let status: ResponseObject["status"];
  let incomplete: { reason: string } | null = null;
  if ("output" in step) {
    output = step.output.map((item) => fillItem(item, ids));
    status = step.status ?? "completed";
    if (status === "incomplete") {
      incomplete = step.incomplete_details ?? { reason: "max_output_tokens" };
    }
  } else {
    output = neutralOutput(step, ids);
    if (options.reasoning && !output.some((item) => item.type === "reasoning")) {
      output.unshift(fillItem({ type: "reasoning" }, ids));
    }
    const reason = INCOMPLETE_REASONS[step.stop_reason ?? ""];
    status = reason ? "incomplete" : "completed";
    incomplete = reason ? { reason } : null;
  }
  const last = output.at(-1);
  if (status === "incomplete" && last && last.type !== "reasoning") last.status = "incomplete";
  const inputTokens = estimateTokens([body.instructions, body.tools, body.input]);
  const outputTokens = estimateTokens(output);
  return {
    id,
    object: "response",
    created_at: CREATED,
    status,
    background: false,
    error:
      status === "failed"
        ? { code: "server_error", message: "The model failed to generate a response." }
        : null,
    incomplete_details: incomplete,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    metadata: body.metadata ?? {},
    model: typeof body.model === "string" ? body.model : "",
    output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: { effort: null, summary: null, ...(isObject(body.reasoning) ? body.reasoning : {}) },
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: { format: { type: "text" } },
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? "disabled",
    usage: {
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: inputTokens + outputTokens,
      ...("usage" in step ? step.usage : {}),
    },
    user: null,
  };
}

// Neutral stop reasons with no Responses twin end the response `incomplete`, for this reason.
const INCOMPLETE_REASONS: Record<string, string> = {
  max_tokens: "max_output_tokens",
  model_context_window_exceeded: "max_output_tokens",
  refusal: "content_filter",
};

// Neutral stop reasons and Chat's `finish_reason` (reference §3.2); any other is `stop`.
const FINISH_REASONS: Record<string, string> = {
  max_tokens: "length",
  model_context_window_exceeded: "length",
  refusal: "content_filter",
};

// Consecutive text blocks make one message item, a part each; thinking becomes a reasoning item.
function neutralOutput(step: ReplyStep, ids: OpenAIIds): OutputItem[] {
  const output: OutputItem[] = [];
  for (const block of step.content) {
    const last = output.at(-1);
    switch (block.type) {
      case "text": {
        const part = { type: "output_text" as const, text: block.text, annotations: [] };
        if (last?.type === "message") last.content.push(part);
        else output.push(fillItem({ type: "message", content: [part] }, ids));
        break;
      }
      case "tool_use":
        output.push(
          fillItem(
            {
              type: "function_call",
              name: block.name,
              arguments: JSON.stringify(block.input ?? {}),
              ...(block.id === undefined ? {} : { call_id: block.id }),
            },
            ids,
          ),
        );
        break;
      case "thinking":
        output.push(
          fillItem(
            { type: "reasoning", summary: [{ type: "summary_text", text: block.thinking }] },
            ids,
          ),
        );
        break;
      case "redacted_thinking":
        output.push(fillItem({ type: "reasoning", encrypted_content: block.data }, ids));
        break;
    }
  }
  return output;
}

function fillItem(item: ResponsesOutputItem, ids: OpenAIIds): OutputItem {
  switch (item.type) {
    case "message":
      return {
        id: item.id ?? ids.message(),
        type: "message",
        status: item.status ?? "completed",
        role: "assistant",
        content: item.content.map((part) =>
          part.type === "output_text" ? { ...part, annotations: part.annotations ?? [] } : part,
        ),
      };
    case "function_call": {
      const minted = ids.functionCall();
      return {
        id: item.id ?? minted.id,
        type: "function_call",
        status: item.status ?? "completed",
        arguments: item.arguments,
        call_id: item.call_id ?? minted.callId,
        name: item.name,
      };
    }
    case "reasoning": {
      const id = item.id ?? ids.reasoning();
      return {
        id,
        type: "reasoning",
        summary: item.summary ?? [],
        // Stands in for the service's encrypted state: the server recognises its own when a
        // client replays the item without storage (`store: false`).
        encrypted_content: item.encrypted_content ?? `enc_${signThinking(id)}`,
      };
    }
  }
}

/** The full `chat.completion` for a step; `deepseek` speaks DeepSeek's OpenAI-compatible dialect. */
export function buildChatCompletion(
  step: ReplyStep | ChatStep,
  requestBody: unknown,
  ids: OpenAIIds,
  options: { deepseek: boolean; thinks: boolean },
): ChatCompletion {
  const body = isObject(requestBody) ? requestBody : {};
  const id = ids.completion();
  let message: ChatMessage;
  let finishReason: string | undefined;
  if ("message" in step) {
    const calls = (step.message.tool_calls ?? []).map((call, index) => ({
      id: call.id ?? ids.toolCall(index),
      type: "function" as const,
      function: { name: call.function.name, arguments: call.function.arguments },
    }));
    message = chatMessage(step.message.content ?? null, calls, options.deepseek);
    if (step.message.refusal !== undefined) message.refusal = step.message.refusal;
    if (step.message.reasoning_content !== undefined) {
      message.reasoning_content = step.message.reasoning_content;
    }
    finishReason = step.finish_reason;
  } else {
    const texts = step.content.flatMap((block) => (block.type === "text" ? [block.text] : []));
    const uses = step.content.flatMap((block) => (block.type === "tool_use" ? [block] : []));
    message = chatMessage(
      texts.length > 0 ? texts.join("") : null,
      uses.map((block, index) => ({
        id: block.id ?? ids.toolCall(index),
        type: "function",
        function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
      })),
      options.deepseek,
    );
    const thoughts = step.content.flatMap((block) =>
      block.type === "thinking" ? [block.thinking] : [],
    );
    if (options.deepseek && options.thinks && thoughts.length > 0) {
      message.reasoning_content = thoughts.join("\n\n");
    }
    finishReason = step.stop_reason && FINISH_REASONS[step.stop_reason];
  }
  const calls = message.tool_calls ?? [];
  // DeepSeek thinks before every tool call in thinking mode, and wants that thought back.
  if (options.deepseek && options.thinks && calls.length > 0 && !message.reasoning_content) {
    message.reasoning_content = deepSeekThought(calls.map((call) => call.function.name));
  }
  const promptTokens = estimateTokens([body.tools, body.messages]);
  const completionTokens = estimateTokens(message);
  return {
    id,
    object: "chat.completion",
    created: CREATED,
    model: typeof body.model === "string" ? body.model : "",
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: finishReason ?? (calls.length > 0 ? "tool_calls" : "stop"),
      },
    ],
    usage: {
      ...chatUsage(promptTokens, completionTokens, options.deepseek),
      ...("usage" in step ? step.usage : {}),
    },
    system_fingerprint: "fp_fake",
    ...(options.deepseek ? {} : { service_tier: "default" }),
  };
}

function chatMessage(
  content: string | null,
  calls: ChatToolCall[],
  deepseek: boolean,
): ChatMessage {
  const message: ChatMessage = { role: "assistant", content };
  if (!deepseek) {
    message.refusal = null;
    message.annotations = [];
  }
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

// The thought the Messages side's DeepSeek flavour writes, so both dialects think alike.
function deepSeekThought(names: string[]): string {
  const step = thinkingFirst({ content: names.map((name) => ({ type: "tool_use", name })) });
  const first = step.content[0];
  return first?.type === "thinking" ? first.thinking : "";
}

function chatUsage(prompt: number, completion: number, deepseek: boolean): object {
  const total = prompt + completion;
  if (deepseek) {
    return {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: total,
      prompt_tokens_details: { cached_tokens: 0 },
      prompt_cache_hit_tokens: 0,
      prompt_cache_miss_tokens: prompt,
    };
  }
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: total,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

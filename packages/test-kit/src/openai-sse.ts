// The OpenAI endpoints' streams (reference §2.4, §3.4). Responses: named events with a
// `sequence_number`, `response.created` first and one terminal event, no `[DONE]`. Chat: `data:`
// lines only, the role first, tool calls fragmented by index, then `data: [DONE]`. Text and
// arguments are cut like the Messages side's, at varying but repeatable points.
import type { ChatCompletion, OutputItem, ResponseObject } from "./openai-replies.ts";
import { pieces, seedOf, sseEvent } from "./server-sse.ts";

const TERMINAL = {
  completed: "response.completed",
  incomplete: "response.incomplete",
  failed: "response.failed",
} as const;

export const SERVER_ERROR_TEXT =
  "The server had an error while processing your request. Sorry about that!";

/** The events of a streamed response, each `event: <type>\ndata: <json>\n\n`, terminal one last. */
export function responsesEvents(response: ResponseObject): string[] {
  return responsesPayloads(response).map(numbered);
}

// The wire puts `sequence_number` right after `type` (reference §2.4).
function numbered({ type, ...rest }: Payload, sequence_number: number): string {
  return sseEvent(type, { type, sequence_number, ...rest });
}

/**
 * The first events of a streamed response (up to its first delta or so), and the error event
 * plus `response.failed` the service sends when it fails after the 200 (the nested form of
 * reference §2.4); `cut` leaves the error out: the stream just ends.
 */
export function brokenResponsesEvents(response: ResponseObject, cut: boolean): string {
  const all = responsesPayloads(response);
  const sent = all.slice(0, Math.min(5, all.length - 1));
  if (!cut) {
    sent.push(
      {
        type: "error",
        error: {
          type: "server_error",
          code: "server_error",
          message: SERVER_ERROR_TEXT,
          param: null,
        },
      },
      {
        type: "response.failed",
        response: {
          ...response,
          status: "failed",
          error: { code: "server_error", message: SERVER_ERROR_TEXT },
          incomplete_details: null,
        },
      },
    );
  }
  return sent.map(numbered).join("");
}

type Payload = { type: string } & Record<string, unknown>;

function responsesPayloads(response: ResponseObject): Payload[] {
  const opening = {
    ...response,
    status: "in_progress",
    error: null,
    incomplete_details: null,
    output: [],
    usage: null,
  };
  const events: Payload[] = [
    { type: "response.created", response: opening },
    { type: "response.in_progress", response: opening },
  ];
  response.output.forEach((item, index) => {
    events.push(...itemPayloads(item, index, seedOf(response.id, index)));
  });
  events.push({ type: TERMINAL[response.status], response });
  return events;
}

function itemPayloads(item: OutputItem, output_index: number, seed: number): Payload[] {
  const item_id = item.id;
  const at = { item_id, output_index };
  const events: Payload[] = [];
  switch (item.type) {
    case "message":
      events.push({
        type: "response.output_item.added",
        output_index,
        item: { ...item, status: "in_progress", content: [] },
      });
      item.content.forEach((part, content_index) => {
        const where = { ...at, content_index };
        if (part.type === "output_text") {
          events.push(
            { type: "response.content_part.added", ...where, part: { ...part, text: "" } },
            ...pieces(part.text, seed + content_index).map((delta) => ({
              type: "response.output_text.delta",
              ...where,
              delta,
              logprobs: [],
            })),
            { type: "response.output_text.done", ...where, text: part.text, logprobs: [] },
          );
        } else {
          events.push(
            { type: "response.content_part.added", ...where, part: { ...part, refusal: "" } },
            ...pieces(part.refusal, seed + content_index).map((delta) => ({
              type: "response.refusal.delta",
              ...where,
              delta,
            })),
            { type: "response.refusal.done", ...where, refusal: part.refusal },
          );
        }
        events.push({ type: "response.content_part.done", ...where, part });
      });
      break;
    case "function_call":
      events.push(
        {
          type: "response.output_item.added",
          output_index,
          item: { ...item, status: "in_progress", arguments: "" },
        },
        ...pieces(item.arguments, seed).map((delta) => ({
          type: "response.function_call_arguments.delta",
          ...at,
          delta,
        })),
        {
          type: "response.function_call_arguments.done",
          ...at,
          name: item.name,
          arguments: item.arguments,
        },
      );
      break;
    case "reasoning":
      events.push({
        type: "response.output_item.added",
        output_index,
        item: { ...item, summary: [], encrypted_content: null },
      });
      item.summary.forEach((part, summary_index) => {
        const where = { ...at, summary_index };
        events.push(
          {
            type: "response.reasoning_summary_part.added",
            ...where,
            part: { ...part, text: "" },
          },
          ...pieces(part.text, seed + summary_index).map((delta) => ({
            type: "response.reasoning_summary_text.delta",
            ...where,
            delta,
          })),
          { type: "response.reasoning_summary_text.done", ...where, text: part.text },
          { type: "response.reasoning_summary_part.done", ...where, part },
        );
      });
      break;
  }
  events.push({ type: "response.output_item.done", output_index, item });
  return events;
}

/**
 * The chunks of a streamed completion as `data:` lines, then `data: [DONE]`. With
 * `includeUsage` every chunk has `usage: null` and a last chunk with no choices carries it.
 */
export function chatChunks(completion: ChatCompletion, includeUsage: boolean): string[] {
  const payloads = chatPayloads(completion);
  const usage = includeUsage ? { usage: null } : {};
  const chunks = payloads.map((chunk) => chatData({ ...chunk, ...usage }));
  if (includeUsage)
    chunks.push(chatData({ ...frame(completion), choices: [], usage: completion.usage }));
  chunks.push("data: [DONE]\n\n");
  return chunks;
}

/**
 * The first chunks of a streamed completion, then (unless `cut`) the `data: {"error": …}` chunk a
 * failing stream carries (reference §3.4); neither ends with `[DONE]`.
 */
export function brokenChatChunks(completion: ChatCompletion, cut: boolean): string {
  const payloads = chatPayloads(completion);
  const sent = payloads.slice(0, Math.min(3, payloads.length - 1)).map(chatData);
  if (!cut) {
    sent.push(
      chatData({
        error: { message: SERVER_ERROR_TEXT, type: "server_error", param: null, code: null },
      }),
    );
  }
  return sent.join("");
}

function frame(completion: ChatCompletion): Record<string, unknown> {
  const { id, created, model, system_fingerprint, service_tier } = completion;
  return {
    id,
    object: "chat.completion.chunk",
    created,
    model,
    ...(service_tier === undefined ? {} : { service_tier }),
    system_fingerprint,
  };
}

function chatPayloads(completion: ChatCompletion): Record<string, unknown>[] {
  const [choice] = completion.choices;
  const { message } = choice;
  const seed = seedOf(completion.id, 0);
  const deltas: Record<string, unknown>[] = [];
  // A turn of tool calls alone has `content: null`, in the first delta as in the message.
  const first: Record<string, unknown> = {
    role: "assistant",
    content: message.content === null ? null : "",
  };
  if (message.refusal !== undefined) first.refusal = null;
  if (message.reasoning_content !== undefined) {
    first.content = null;
    first.reasoning_content = "";
  }
  deltas.push(first);
  for (const piece of pieces(message.reasoning_content ?? "", seed)) {
    deltas.push({ reasoning_content: piece });
  }
  for (const piece of pieces(message.content ?? "", seed + 1)) deltas.push({ content: piece });
  if (message.refusal) {
    for (const piece of pieces(message.refusal, seed + 2)) deltas.push({ refusal: piece });
  }
  (message.tool_calls ?? []).forEach((call, index) => {
    deltas.push({
      tool_calls: [
        {
          index,
          id: call.id,
          type: "function",
          function: { name: call.function.name, arguments: "" },
        },
      ],
    });
    for (const piece of pieces(call.function.arguments, seed + 3 + index)) {
      deltas.push({ tool_calls: [{ index, function: { arguments: piece } }] });
    }
  });
  const chunks: Record<string, unknown>[] = deltas.map((delta) => ({
    ...frame(completion),
    choices: [{ index: 0, delta, logprobs: null, finish_reason: null }],
  }));
  chunks.push({
    ...frame(completion),
    choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: choice.finish_reason }],
  });
  return chunks;
}

function chatData(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

// Pieces several contracts use: the date format, server steps that answer like a model, the
// unknown-tool text of a stage that adds a tool, and conformance twins that share a run.
import type { Contract, Judgement, Scenario } from "../src/contract.ts";
import { judge, observations, offeredTools, sentResults } from "../src/judgements.ts";
import type { RecordedRequest, Step } from "../src/server.ts";
import { sseEvent } from "../src/server-sse.ts";
import type { StepResult } from "../src/server-steps.ts";

export const DATE_PATTERN = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \S+$/;

// The texts of the tool results the request hands back, in whichever protocol it speaks.
export function lastResultTexts(request: RecordedRequest): string[] {
  return sentResults(request).map((result) => result.text);
}

// A final answer that repeats what the tools returned, as a real model would.
export function answerWithResults(request: RecordedRequest): StepResult {
  return {
    content: [{ type: "text", text: `The tools said: ${lastResultTexts(request).join(" | ")}` }],
  };
}

// A reply sent raw, for blocks the fake server's reply steps do not build (a type from next year, a
// tool_use whose input is not an object): JSON, or, to a request that asked for a stream, events
// that open each block whole and close it, as the service streams its server-side tools' blocks.
export function rawReply(content: unknown[], stopReason = "tool_use"): Step {
  const message = {
    id: "msg_raw_1",
    type: "message",
    role: "assistant",
    model: "deepseek-v4-flash",
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: 20, output_tokens: 20 },
  };
  return (request) => {
    if (request.body?.stream !== true) {
      return {
        raw: { headers: { "content-type": "application/json" }, body: JSON.stringify(message) },
      };
    }
    const events = [
      { type: "message_start", message: { ...message, content: [], stop_reason: null } },
      ...content.flatMap((block, index) => [
        { type: "content_block_start", index, content_block: block },
        { type: "content_block_stop", index },
      ]),
      {
        type: "message_delta",
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: message.usage,
      },
      { type: "message_stop" },
    ];
    const body = events.map((event) => sseEvent(event.type, event)).join("");
    return { raw: { headers: { "content-type": "text/event-stream" }, body } };
  };
}

// The unknown-tool text names every tool the first request offered, in the order offered, and the
// stage's new tool is among them. The list is read from the request, not written here, so a
// project may offer its tools in its own order and a later stage's longer list needs no edit.
export function namesEveryToolOffered(section: string, added: string): Judgement {
  return judge(
    section,
    `expected \`observation: unknown tool: teleport (available: …)\`, naming the tools the first request offered (${added} among them), in order`,
    (o) => {
      const offered = offeredTools(o.requests[0]);
      return (
        offered.includes(added) &&
        observations(o)[0] === `unknown tool: teleport (available: ${offered.join(", ")})`
      );
    },
  );
}

// A scenario of a contract by its id: the very object, so a twin spread from it shares its run.
export function scenarioOf(contract: Contract, id: string): Scenario {
  const scenario = contract.scenarios.find((candidate) => candidate.id === id);
  if (scenario === undefined) throw new Error(`${contract.stage} has no scenario ${id}`);
  return scenario;
}

export interface Twin {
  id: string;
  title: string;
  judgements: Judgement[];
  aliases?: string[];
}

// A conformance twin: the exact texts of what `core` runs, judged on its run. Every input is the
// core scenario's own (its platforms too: the twin judges the same run), so runKey is the same and
// the runner starts the CLI once for both; the id, the title and the judgements are the twin's.
export function twinOf(core: Scenario, twin: Twin): Scenario {
  const { aliases: _aliases, ...inputs } = core;
  return { ...inputs, ...twin, level: "conformance" };
}

// An in-process model for unit tests of a stage's loop: it answers from a queue of steps, records
// every request, and fails loudly when the loop asks for more than the script holds.
import type { ScriptedResponse } from "./builders.ts";

export interface RecordedTool {
  name: string;
  description: string;
  parameters: unknown;
}

export interface ScriptedRequest {
  messages: unknown[];
  tools: RecordedTool[];
}

export type ScriptedStep =
  | ScriptedResponse
  | { throws: Error }
  | ((request: ScriptedRequest) => ScriptedResponse | Promise<ScriptedResponse>);

// What the loop hands back for each call (every stage's ToolResult has this shape).
interface ResultLike {
  toolCallId: string;
  content: string;
  isError: boolean;
}

// A reply as a protocol-neutral loop takes it: the assistant turn as items to append.
export type ScriptedTurn = ScriptedResponse & { assistantItems: object[] };

interface ToolLike {
  name: string;
  description: string;
  parameters?: unknown;
}

export class ScriptedProvider {
  readonly requests: ScriptedRequest[] = [];
  #steps: ScriptedStep[];

  constructor(steps: ScriptedStep[]) {
    this.#steps = [...steps];
  }

  async complete(messages: unknown[], tools: ToolLike[] = []): Promise<ScriptedTurn> {
    // Copies, so a loop that mutates its history later cannot rewrite what was sent.
    const request: ScriptedRequest = {
      messages: structuredClone(messages),
      tools: tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        parameters: structuredClone(tool.parameters),
      })),
    };
    this.requests.push(request);
    const step = this.#steps.shift();
    if (step === undefined) {
      throw new Error(
        `ScriptedProvider: call ${this.requests.length} has no scripted step (the script held ${this.requests.length - 1})`,
      );
    }
    if ("throws" in step) throw step.throws;
    const response = structuredClone(typeof step === "function" ? await step(request) : step);
    // A loop that appends what its provider gives (the provider appendix) gets the Messages API
    // shape; the Day 2 loops read assistantContent and ignore this.
    return {
      ...response,
      assistantItems: [{ role: "assistant", content: response.assistantContent }],
    };
  }

  // How results travel back in the Messages API: one user message of tool_result blocks.
  toolResults(results: ResultLike[]): object[] {
    const content = results.map((result) => ({
      type: "tool_result",
      tool_use_id: result.toolCallId,
      content: result.content,
      is_error: result.isError,
    }));
    return [{ role: "user", content }];
  }

  assertDone(): void {
    if (this.#steps.length > 0) {
      throw new Error(
        `ScriptedProvider: ${this.#steps.length} scripted step(s) were never used after ${this.requests.length} call(s)`,
      );
    }
  }
}

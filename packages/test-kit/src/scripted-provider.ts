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

  async complete(messages: unknown[], tools: ToolLike[] = []): Promise<ScriptedResponse> {
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
    if (typeof step === "function") return structuredClone(await step(request));
    if ("throws" in step) throw step.throws;
    return structuredClone(step);
  }

  assertDone(): void {
    if (this.#steps.length > 0) {
      throw new Error(
        `ScriptedProvider: ${this.#steps.length} scripted step(s) were never used after ${this.requests.length} call(s)`,
      );
    }
  }
}

// Tools the model may ask for, and the registry that runs them by name.
import type { ToolCall, ToolResult } from "./model.ts";

export type ToolFunction = (args: Record<string, unknown>) => string;

// JSON Schema of a tool's arguments, sent to the model as input_schema or parameters, as each
// protocol names it. (A type alias, not an interface, so it fits the SDKs' open-ended types.)
export type JsonSchema = {
  type: "object";
  properties?: Record<string, unknown>;
  required?: string[];
  additionalProperties?: boolean;
};

export interface Tool {
  name: string;
  description: string;
  run: ToolFunction;
  // Without one, the tool takes no arguments.
  parameters?: JsonSchema;
}

export function echo(args: Record<string, unknown>): string {
  return String(args.text ?? "");
}

// The model has no clock: this is how it learns the date. The zone is named as the platform names
// it (UTC, GMT+8, CET).
export function systemDate(): string {
  const now = new Date();
  const pad = (value: number) => String(value).padStart(2, "0");
  const zone = new Intl.DateTimeFormat("en-US", { timeZoneName: "short" })
    .formatToParts(now)
    .find((part) => part.type === "timeZoneName")?.value;
  const date = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
  const time = `${pad(now.getHours())}:${pad(now.getMinutes())}:${pad(now.getSeconds())}`;
  return `${date} ${time} ${zone ?? "UTC"}`;
}

export class ToolRegistry {
  #tools = new Map<string, Tool>();

  register(tool: Tool): void {
    this.#tools.set(tool.name, tool);
  }

  list(): Tool[] {
    return [...this.#tools.values()];
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
    // Input that is not a JSON object (or JSON text that does not parse) is the model's mistake
    // too: it reads why and retries.
    if (call.argumentsError !== undefined || !isObject(call.arguments)) {
      const why = call.argumentsError ?? "input must be an object";
      return {
        toolCallId: call.id,
        content: `bad arguments for ${call.name}: ${why}`,
        isError: true,
      };
    }
    // So are arguments that break the schema.
    const problem = argumentProblem(call.arguments, tool.parameters);
    if (problem !== undefined) {
      return {
        toolCallId: call.id,
        content: `bad arguments for ${call.name}: ${problem}`,
        isError: true,
      };
    }
    // A tool that throws is a bug in agent-code, not a model mistake: it fails the run.
    return { toolCallId: call.id, content: tool.run(call.arguments), isError: false };
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// Checks what a flat tool schema says: required properties, JSON types, and no unknown
// properties when additionalProperties is false. The first problem found, or undefined.
function argumentProblem(
  args: Record<string, unknown>,
  schema: JsonSchema | undefined,
): string | undefined {
  if (schema === undefined) return undefined;
  for (const name of schema.required ?? []) {
    if (!(name in args)) return `missing required property "${name}"`;
  }
  for (const [name, value] of Object.entries(args)) {
    const property = schema.properties?.[name] as { type?: unknown } | undefined;
    if (property === undefined) {
      if (schema.additionalProperties === false) return `unexpected property "${name}"`;
      continue;
    }
    if (typeof property.type === "string" && jsonType(value) !== property.type) {
      if (property.type === "number" && jsonType(value) === "integer") continue;
      return `property "${name}" should be ${property.type}, got ${jsonType(value)}`;
    }
  }
  return undefined;
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (Number.isInteger(value)) return "integer";
  return typeof value;
}

export function defaultTools(): ToolRegistry {
  const tools = new ToolRegistry();
  tools.register({
    name: "echo",
    description: "Repeat the given text back.",
    run: echo,
    parameters: {
      type: "object",
      properties: { text: { type: "string", description: "The text to repeat." } },
      required: ["text"],
      additionalProperties: false,
    },
  });
  tools.register({
    name: "system_date",
    description: "Return the current local date, time and time zone of this machine.",
    run: systemDate,
  });
  return tools;
}

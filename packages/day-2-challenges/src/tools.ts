// Tools the model may ask for, and the registry that runs them by name.
import type { ToolCall, ToolResult } from "./model.ts";

export type ToolFunction = (args: Record<string, unknown>) => string;

// JSON Schema of a tool's arguments, sent to the model as the tool's input_schema. (A type alias,
// not an interface, so it fits the SDK's open-ended InputSchema.)
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

// The model's mistake that only the tool can see (a time zone that does not exist): the registry
// sends it back as a `bad arguments` result the model reads, where any other throw is a bug.
export class ToolArgumentError extends Error {}

export function echo(args: Record<string, unknown>): string {
  return String(args.text ?? "");
}

// The model has no clock: this is how it learns the date, in this machine's zone or in the IANA
// zone it asks for. The zone is named as the platform names it (UTC, GMT+8, CET).
export function systemDate(args: Record<string, unknown> = {}): string {
  const timeZone = args.timezone === undefined ? undefined : String(args.timezone);
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      timeZoneName: "short",
    });
  } catch {
    // Intl throws a RangeError for a zone it does not know: the model named it, so it is told.
    throw new ToolArgumentError(`unknown time zone ${JSON.stringify(timeZone)}`);
  }
  const part = Object.fromEntries(format.formatToParts(new Date()).map((p) => [p.type, p.value]));
  const date = `${part.year}-${part.month}-${part.day}`;
  const time = `${part.hour}:${part.minute}:${part.second}`;
  return `${date} ${time} ${part.timeZoneName ?? "UTC"}`;
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
    // Input that is not a JSON object is the model's mistake too: it reads why and retries.
    if (!isObject(call.arguments)) {
      return {
        toolCallId: call.id,
        content: `bad arguments for ${call.name}: input must be an object`,
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
    // A tool that throws is a bug in agent-code, not a model mistake: it fails the run. Only a
    // ToolArgumentError, the model's mistake found by the tool itself, goes back to the model.
    try {
      return { toolCallId: call.id, content: tool.run(call.arguments), isError: false };
    } catch (error) {
      if (!(error instanceof ToolArgumentError)) throw error;
      return {
        toolCallId: call.id,
        content: `bad arguments for ${call.name}: ${error.message}`,
        isError: true,
      };
    }
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
    description:
      "Return the current date, time and time zone: this machine's, or those of the given time zone.",
    run: systemDate,
    parameters: {
      type: "object",
      properties: {
        timezone: {
          type: "string",
          description:
            "An IANA time zone such as Asia/Shanghai or Europe/Paris (default: this machine's).",
        },
      },
      additionalProperties: false,
    },
  });
  return tools;
}

// What every tool is (its name, description, schema and run function), the registry that runs a
// call by name, and the list of tools a run offers. Each tool lives in its own file beside this one.
import type { Ui } from "../diff-ui.ts";
import type { ReadState } from "../fs-safety.ts";
import type { Loops } from "../loops.ts";
import type { ToolCall, ToolResult } from "../model.ts";
import { redact, type Secret } from "../redact.ts";
import type { BackgroundTasks } from "../shell.ts";
import { askUserQuestionTool } from "./ask-user-question.ts";
import { bashTool } from "./bash.ts";
import { bashOutputTool } from "./bash-output.ts";
import { cronCancelTool } from "./cron-cancel.ts";
import { cronCreateTool } from "./cron-create.ts";
import { cronListTool } from "./cron-list.ts";
import { echoTool } from "./echo.ts";
import { fileEditTool } from "./file-edit.ts";
import { fileWriteTool } from "./file-write.ts";
import { gitDiffTool } from "./git-diff.ts";
import { gitStatusTool } from "./git-status.ts";
import { globTool } from "./glob.ts";
import { grepTool } from "./grep.ts";
import { killShellTool } from "./kill-shell.ts";
import { listFilesTool } from "./list-files.ts";
import { memoryRecallTool } from "./memory-recall.ts";
import { memoryWriteTool } from "./memory-write.ts";
import { projectTreeTool } from "./project-tree.ts";
import { readFileTool } from "./read-file.ts";
import { systemDateTool } from "./system-date.ts";
import { webFetchTool } from "./web-fetch.ts";
import { webSearchTool } from "./web-search.ts";

// What a tool may know about the run that called it: the directory it works in (never
// process.cwd()), what was read so far, a signal that says the run was stopped, and the person at
// the terminal, who sees a change and answers before it is written.
export interface ToolContext {
  cwd: string;
  readState: ReadState;
  signal: AbortSignal;
  ui: Ui;
  // The session's background tasks (shell.ts): shared by every run of a REPL.
  tasks?: BackgroundTasks;
  // What a deny rule keeps from every tool that reads (a cwd-relative path with `/`): the walk,
  // list_files, git_status and git_diff leave it out; a path a tool is given meets the gate.
  hidden?: (path: string) => boolean;
  // The agent-code home folder, where memory_write keeps the project's notes (memory.ts).
  home?: string;
  // The REPL's loops (loops.ts); none in a one-shot run, where cron_create is refused.
  loops?: Loops;
}

export type ToolFunction = (
  args: Record<string, unknown>,
  ctx: ToolContext,
) => string | Promise<string>;

// A tool's refusal (a path outside the working directory, a missing file): the model reads the
// message as an is_error result and the run goes on. Any other throw is a bug in agent-code.
export class ToolError extends Error {
  override name = "ToolError";
}

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
  // It only reads (or shows): the gate lets it run without a question, in plan mode too.
  readOnly?: boolean;
}

export class ToolRegistry {
  #tools = new Map<string, Tool>();
  #secrets: Secret[];

  // The credential values no result may carry (redact.ts).
  constructor({ secrets = [] }: { secrets?: Secret[] } = {}) {
    this.#secrets = secrets;
  }

  register(tool: Tool): void {
    this.#tools.set(tool.name, tool);
  }

  list(): Tool[] {
    return [...this.#tools.values()];
  }

  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  // Every result, an error's too, is redacted before it joins the conversation.
  async run(call: ToolCall, ctx: ToolContext): Promise<ToolResult> {
    const result = await this.#run(call, ctx);
    return { ...result, content: redact(result.content, this.#secrets) };
  }

  async #run(call: ToolCall, ctx: ToolContext): Promise<ToolResult> {
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
    // A refusal goes back to the model; any other throw is a bug in agent-code and fails the run.
    try {
      return { toolCallId: call.id, content: await tool.run(call.arguments, ctx), isError: false };
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      return { toolCallId: call.id, content: error.message, isError: true };
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

// The tools a run offers, in the order the model sees them.
export function defaultTools(options: { secrets?: Secret[] } = {}): ToolRegistry {
  const tools = new ToolRegistry(options);
  tools.register(echoTool);
  tools.register(systemDateTool);
  tools.register(readFileTool);
  tools.register(listFilesTool);
  tools.register(globTool);
  tools.register(grepTool);
  tools.register(projectTreeTool);
  tools.register(webFetchTool);
  tools.register(webSearchTool);
  tools.register(fileWriteTool);
  tools.register(fileEditTool);
  tools.register(bashTool);
  tools.register(gitStatusTool);
  tools.register(gitDiffTool);
  tools.register(askUserQuestionTool);
  tools.register(bashOutputTool);
  tools.register(killShellTool);
  tools.register(memoryWriteTool);
  tools.register(memoryRecallTool);
  tools.register(cronCreateTool);
  tools.register(cronListTool);
  tools.register(cronCancelTool);
  return tools;
}

// memory_write: a note the model proposes for later sessions. The person sees it and says yes
// before it is saved (permissions.ts: asked in default mode, refused in plan mode); it lands under
// the home folder, never in the project, and the index every later prompt shows is made again.
import { forTerminal } from "../diff-ui.ts";
import {
  BODY_RULE,
  bodyProblem,
  isMemoryType,
  MemoryError,
  TITLE_RULE,
  TYPE_RULE,
  titleProblem,
  writeMemory,
} from "../memory.ts";
import { type Tool, type ToolContext, ToolError } from "./index.ts";

export async function memoryWrite(
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<string> {
  const { type, title, body } = args;
  // The checks come before the question: a title that could break the index is never shown.
  const bad = (rule: string) => new ToolError(`bad arguments for memory_write: ${rule}`);
  if (!isMemoryType(type)) throw bad(TYPE_RULE);
  if (typeof title !== "string" || titleProblem(title) !== undefined) throw bad(TITLE_RULE);
  if (typeof body !== "string" || bodyProblem(body) !== undefined) throw bad(BODY_RULE);
  if (ctx.home === undefined) throw new ToolError("memory_write: no agent-code home folder");
  ctx.ui.print(`Memory (${type}): ${title}`);
  for (const line of body.split("\n")) ctx.ui.print(`  ${forTerminal(line)}`);
  if (!(await ctx.ui.confirm("Save this memory?"))) {
    throw new ToolError("the user did not save this memory");
  }
  try {
    const file = writeMemory({ home: ctx.home, cwd: ctx.cwd, type, title, body });
    return `Memory saved: [${type}] ${title} -> ${file}`;
  } catch (error) {
    if (error instanceof MemoryError) throw new ToolError(`memory not saved: ${error.message}`);
    throw error;
  }
}

export const memoryWriteTool: Tool = {
  name: "memory_write",
  description:
    "Save a short note for later sessions in this project: a fact about the user, feedback on how to work, the project, or where to find something. The user sees it and must approve it; a refusal is not an error to retry. Saved notes are listed at the start of every later session.",
  run: memoryWrite,
  parameters: {
    type: "object",
    properties: {
      type: {
        type: "string",
        enum: ["user", "feedback", "project", "reference"],
        description: "What the note is about.",
      },
      title: {
        type: "string",
        description: "One line of 1 to 80 characters, without [ ] < >.",
      },
      body: { type: "string", description: "The note itself, 1 to 4000 characters." },
    },
    required: ["type", "title", "body"],
    additionalProperties: false,
  },
};

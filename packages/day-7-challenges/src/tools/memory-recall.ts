// memory_recall: the saved notes that match a query's words, best first. It only reads, so it
// runs in every mode; it never makes a folder.
import { MemoryError, readMemories, recallMemories, recallText } from "../memory.ts";
import { type Tool, type ToolContext, ToolError } from "./index.ts";

export function memoryRecall(args: Record<string, unknown>, ctx: ToolContext): string {
  const query = String(args.query ?? "");
  const topK = args.top_k ?? 5;
  if (!Number.isInteger(topK) || (topK as number) < 1 || (topK as number) > 20) {
    throw new ToolError(
      "bad arguments for memory_recall: top_k must be a whole number from 1 to 20",
    );
  }
  if (query.trim() === "") {
    throw new ToolError("bad arguments for memory_recall: query must hold at least one word");
  }
  if (ctx.home === undefined) return recallText([]);
  try {
    return recallText(recallMemories(readMemories(ctx.home, ctx.cwd), query, topK as number));
  } catch (error) {
    if (error instanceof MemoryError) throw new ToolError(`memory not read: ${error.message}`);
    throw error;
  }
}

export const memoryRecallTool: Tool = {
  name: "memory_recall",
  description:
    "Find saved notes of this project by keywords: each word of the query is looked for in the notes' titles and bodies, and the best matches come back with a snippet.",
  run: memoryRecall,
  readOnly: true,
  parameters: {
    type: "object",
    properties: {
      query: { type: "string", description: "Keywords, separated by spaces." },
      top_k: {
        type: "integer",
        description: "How many notes to return, 1 to 20 (default 5).",
      },
    },
    required: ["query"],
    additionalProperties: false,
  },
};

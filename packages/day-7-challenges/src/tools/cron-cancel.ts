// cron_cancel: stops one of this session's loops. Like kill_shell it reaches only what this
// session started, so it needs no question, in plan mode too.
import { LoopError } from "../loops.ts";
import { type Tool, ToolError } from "./index.ts";

export const cronCancelTool: Tool = {
  name: "cron_cancel",
  description: 'Stop one of this session\'s loops, by the id cron_create gave, such as "loop_1".',
  run: (args, ctx) => {
    if (ctx.loops === undefined) throw new ToolError("loops run only in the REPL");
    try {
      return `Loop cancelled: ${ctx.loops.cancel(String(args.id)).id}`;
    } catch (error) {
      if (error instanceof LoopError) throw new ToolError(error.message);
      throw error;
    }
  },
  parameters: {
    type: "object",
    properties: { id: { type: "string", description: 'The loop\'s id, such as "loop_1".' } },
    required: ["id"],
    additionalProperties: false,
  },
  readOnly: true,
};

// bash_output: what a background task printed since the model last asked, and whether it runs.
import { type Tool, ToolError } from "./index.ts";

export const bashOutputTool: Tool = {
  name: "bash_output",
  description:
    'Read a background task\'s output since the last read, after its state (running, exited with code N, stopped). The id comes from bash with background: true, such as "bg_1".',
  run: (args, ctx) => {
    if (ctx.tasks === undefined) throw new ToolError("background tasks are not available here");
    return ctx.tasks.output(String(args.id));
  },
  parameters: {
    type: "object",
    properties: { id: { type: "string", description: 'The task\'s id, such as "bg_1".' } },
    required: ["id"],
    additionalProperties: false,
  },
  readOnly: true,
};

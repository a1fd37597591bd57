// kill_shell: stops a background task of this session, and everything it started.
import { type Tool, ToolError } from "./index.ts";

export const killShellTool: Tool = {
  name: "kill_shell",
  description:
    'Stop a background task started with bash background: true, and every process it started. The id is the one bash gave, such as "bg_1".',
  run: (args, ctx) => {
    if (ctx.tasks === undefined) throw new ToolError("background tasks are not available here");
    return ctx.tasks.stop(String(args.id));
  },
  parameters: {
    type: "object",
    properties: { id: { type: "string", description: 'The task\'s id, such as "bg_1".' } },
    required: ["id"],
    additionalProperties: false,
  },
  // It stops only what this session started: no question, in plan mode too.
  readOnly: true,
};

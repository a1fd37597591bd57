// cron_list: this session's loops, paused ones too (loops.ts).
import { loopLine } from "../loops.ts";
import { type Tool, ToolError } from "./index.ts";

export const cronListTool: Tool = {
  name: "cron_list",
  description: "List this session's loops: id, label, interval, whether paused, and the prompt.",
  run: (_args, ctx) => {
    if (ctx.loops === undefined) throw new ToolError("loops run only in the REPL");
    const loops = ctx.loops.list();
    return loops.length === 0 ? "no loops" : loops.map(loopLine).join("\n");
  },
  readOnly: true,
};

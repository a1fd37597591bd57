// cron_create: the model asks for a loop, a prompt the REPL sends again on a timer (loops.ts). The
// field keeps the origin's name, `slash`, but its value is a prompt: one that starts with `/` is
// refused, so a model cannot schedule a command for itself. The gate asks in default mode and
// denies in plan mode; the person sees the prompt and the interval before saying yes.
import { formatEvery, LoopError } from "../loops.ts";
import { type Tool, ToolError } from "./index.ts";

export const cronCreateTool: Tool = {
  name: "cron_create",
  description:
    "Ask to send a prompt again on a timer while this REPL session stays open (a loop). slash is the prompt to send, plain text for the model, never a /command; every_seconds is the interval (at least 60 unless the user lowered it). The user sees it and must approve it; it never runs in a one-shot run.",
  run: async (args, ctx) => {
    const { slash, every_seconds: every, label } = args;
    const bad = (rule: string) => new ToolError(`bad arguments for cron_create: ${rule}`);
    if (typeof slash !== "string" || slash.trim() === "") throw bad("slash is the prompt to send");
    if (slash.trimStart().startsWith("/")) {
      throw bad("a loop sends a prompt to the model, not a command");
    }
    if (typeof every !== "number" || !Number.isInteger(every)) {
      throw bad("every_seconds is a whole number of seconds");
    }
    if (label !== undefined && typeof label !== "string") throw bad("label is text");
    if (ctx.loops === undefined) throw new ToolError("loops run only in the REPL");
    // Checked before the question: the person is never asked about a loop that cannot start.
    try {
      ctx.loops.check(slash, every, label);
    } catch (error) {
      if (error instanceof LoopError) throw bad(error.message);
      throw error;
    }
    const named = label === undefined ? "" : ` (${label})`;
    ctx.ui.print(`Loop${named}: every ${formatEvery(every)}: ${slash.trim()}`);
    if (!(await ctx.ui.confirm("Start this loop?"))) {
      throw new ToolError("the user did not start this loop");
    }
    const loop = ctx.loops.add(slash, every, label);
    return `Loop started: ${loop.id}, every ${formatEvery(loop.every)}; it sends its prompt while the REPL waits for input`;
  },
  parameters: {
    type: "object",
    properties: {
      slash: { type: "string", description: "The prompt to send, plain text (not a /command)." },
      every_seconds: { type: "integer", description: "Seconds between sends, 60 or more." },
      label: { type: "string", description: "A short name for the loop, 1 to 40 characters." },
    },
    required: ["slash", "every_seconds"],
    additionalProperties: false,
  },
};

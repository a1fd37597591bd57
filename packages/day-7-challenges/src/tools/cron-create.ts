// cron_create: the model asks for a loop, a prompt the REPL sends again on a timer (loops.ts). The
// field keeps the origin's name, `slash`, but its value is a prompt: one that starts with `/` is
// refused, so a model cannot schedule a command for itself. The gate asks in default mode and
// denies in plan mode; the person sees the prompt and the interval before saying yes. Instead of
// every_seconds, `cron` takes a 5-field cron expression (decision 0087).
import { LoopError, whenText } from "../loops.ts";
import { type Tool, ToolError } from "./index.ts";

export const cronCreateTool: Tool = {
  name: "cron_create",
  description:
    'Ask to send a prompt again on a timer while this REPL session stays open (a loop). slash is the prompt to send, plain text for the model, never a /command; every_seconds is the interval (at least 60 unless the user lowered it), or cron a 5-field cron expression in local time ("*/5 * * * *", "0 9 * * 1-5"), one of the two. The user sees it and must approve it; it never runs in a one-shot run.',
  run: async (args, ctx) => {
    const { slash, every_seconds: every, cron, label } = args;
    const bad = (rule: string) => new ToolError(`bad arguments for cron_create: ${rule}`);
    if (typeof slash !== "string" || slash.trim() === "") throw bad("slash is the prompt to send");
    if (slash.trimStart().startsWith("/")) {
      throw bad("a loop sends a prompt to the model, not a command");
    }
    if (every !== undefined && cron !== undefined) throw bad("every_seconds or cron, not both");
    if (cron !== undefined && typeof cron !== "string") throw bad("cron is a 5-field expression");
    if (cron === undefined && (typeof every !== "number" || !Number.isInteger(every))) {
      throw bad("every_seconds is a whole number of seconds");
    }
    const when = typeof cron === "string" ? cron : (every as number);
    if (label !== undefined && typeof label !== "string") throw bad("label is text");
    if (ctx.loops === undefined) throw new ToolError("loops run only in the REPL");
    // Checked before the question: the person is never asked about a loop that cannot start.
    try {
      ctx.loops.check(slash, when, label);
    } catch (error) {
      if (error instanceof LoopError) throw bad(error.message);
      throw error;
    }
    const named = label === undefined ? "" : ` (${label})`;
    const shown =
      typeof when === "string"
        ? { every: 0, cron: when.trim().split(/\s+/).join(" ") }
        : { every: when };
    ctx.ui.print(`Loop${named}: ${whenText(shown)}: ${slash.trim()}`);
    if (!(await ctx.ui.confirm("Start this loop?"))) {
      throw new ToolError("the user did not start this loop");
    }
    const loop = ctx.loops.add(slash, when, label);
    return `Loop started: ${loop.id}, ${whenText(loop)}; it sends its prompt while the REPL waits for input`;
  },
  parameters: {
    type: "object",
    properties: {
      slash: { type: "string", description: "The prompt to send, plain text (not a /command)." },
      every_seconds: { type: "integer", description: "Seconds between sends, 60 or more." },
      cron: {
        type: "string",
        description:
          'Instead of every_seconds: minute hour day-of-month month day-of-week, as "0 9 * * 1-5".',
      },
      label: { type: "string", description: "A short name for the loop, 1 to 40 characters." },
    },
    required: ["slash"],
    additionalProperties: false,
  },
};

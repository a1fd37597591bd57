// bash: one command line in a fresh shell, after the person saw it and said yes (shell.ts runs it).
import { findShell, runCommand } from "../shell.ts";
import { type Tool, type ToolContext, ToolError } from "./index.ts";

const DEFAULT_TIMEOUT_S = 30;

const MAX_TIMEOUT_S = 600;

// Far more than a command line a person reads before saying yes, and far less than the 128 KiB a
// single argument may be on Linux.
const MAX_COMMAND_BYTES = 64 * 1024;

const CONTROLS =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

// What the person approves is exactly what runs: a carriage return, an escape sequence or a bidi
// mark could hide part of the command, so each shows as U+FFFD. Newlines and tabs stay.
function visibleCommand(command: string): string {
  return command.replace(CONTROLS, "\ufffd");
}

// Shows the command and returns the question to ask about it. A command of several lines is shown
// whole, each line indented under the first (none passes for a line of agent-code's own), and the
// question says how many there are: by the time it is asked, the first may have scrolled away.
function showCommand(command: string, ctx: ToolContext): string {
  const [first = "", ...more] = visibleCommand(command).split("\n");
  ctx.ui.print(`Command: ${first}`);
  for (const line of more) ctx.ui.print(`${" ".repeat("Command: ".length)}${line}`);
  return more.length === 0 ? "Run this command?" : `Run this command? (${more.length + 1} lines)`;
}

// A shell that cannot be started (not there, not executable, an argument the system refuses) is
// a refusal the model reads in one line, not a failure of agent-code.
function cannotStart(error: Error): never {
  if (error instanceof ToolError) throw error;
  throw new ToolError(`the command could not be started: ${error.message.split("\n")[0]}`);
}

// Why no shell is given `command`, if none is: a NUL would end the argument where the system reads
// it, and past MAX_COMMAND_BYTES nobody reads what they approve. The gate refuses the same.
export function unrunnable(command: string): string | undefined {
  if (command.includes("\0")) return "the command holds a NUL byte, which no shell can run";
  const bytes = Buffer.byteLength(command);
  if (bytes <= MAX_COMMAND_BYTES) return undefined;
  return `the command is ${bytes} bytes long; agent-code runs commands of at most ${MAX_COMMAND_BYTES} bytes`;
}

// Runs `command` in the working directory once the person approves it. A non-zero exit is data
// for the model (not an error); a rejection, a timeout or a flood of output is.
export async function bash(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  const command = String(args.command);
  const background = args.background === true;
  const timeout = args.timeout === undefined ? DEFAULT_TIMEOUT_S : Number(args.timeout);
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > MAX_TIMEOUT_S) {
    throw new ToolError(
      `bad arguments for bash: timeout must be between 1 and ${MAX_TIMEOUT_S} seconds`,
    );
  }
  const refused = unrunnable(command);
  if (refused !== undefined) throw new ToolError(refused);
  const shell = findShell();
  const question = showCommand(command, ctx);
  if (background)
    ctx.ui.print("(in the background: it runs until it ends, is stopped, or agent-code exits)");
  if (!(await ctx.ui.confirm(question))) {
    throw new ToolError("the user rejected this command; it was not run");
  }
  if (background) {
    if (ctx.tasks === undefined) throw new ToolError("background tasks are not available here");
    const log = await ctx.tasks.start(command, ctx.cwd).catch(cannotStart);
    const id = log.slice(log.lastIndexOf("/") + 1, -".log".length);
    return `Started ${id} in the background (log: ${log}). Read its output with bash_output {"id":"${id}"}; stop it with kill_shell {"id":"${id}"}.`;
  }
  const [file = "/bin/sh", ...flags] = shell;
  const outcome = await runCommand(file, [...flags, command], {
    cwd: ctx.cwd,
    timeoutMs: timeout * 1000,
    signal: ctx.signal,
  }).catch(cannotStart);
  if (outcome.stopped) throw new ToolError(outcome.text);
  return outcome.text;
}

export const bashTool: Tool = {
  name: "bash",
  description:
    "Run a shell command (bash) in the working directory. Each call starts a fresh shell: cd and variables do not carry over. stdin is empty and there is no terminal, so nothing can wait for input; processes the command leaves running are stopped when it ends; a server or a watcher goes in the background. The user sees the command and must approve it. Output over 12000 characters is cut in the middle; a non-zero exit code is reported on the first line.",
  run: bash,
  parameters: {
    type: "object",
    properties: {
      command: { type: "string", description: "The command line to run." },
      timeout: {
        type: "integer",
        minimum: 1,
        maximum: MAX_TIMEOUT_S,
        description: "Seconds before the command is stopped (1 to 600, default 30).",
      },
      background: {
        type: "boolean",
        description:
          "Run it in the background (a server, a watcher, a long build): the call returns at once with an id for bash_output and kill_shell; no timeout (default false).",
      },
    },
    required: ["command"],
    additionalProperties: false,
  },
};

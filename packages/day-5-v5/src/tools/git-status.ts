// git_status: what git says about the working tree, read without a shell and without a question.
import { commandEnv, runCommand } from "../shell.ts";
import { type Tool, type ToolContext, ToolError } from "./index.ts";

const GIT_TIMEOUT_MS = 10_000;

// Runs git with fixed arguments: no shell reads them, so nothing the model writes becomes a
// command, and the tool needs no approval. GIT_OPTIONAL_LOCKS=0 keeps a read from taking
// .git/index.lock, which would make a command the person runs at the same time fail.
export async function runGit(args: string[], ctx: ToolContext): Promise<string> {
  try {
    const outcome = await runCommand("git", args, {
      cwd: ctx.cwd,
      timeoutMs: GIT_TIMEOUT_MS,
      signal: ctx.signal,
      env: { ...commandEnv(), GIT_OPTIONAL_LOCKS: "0" },
    });
    if (outcome.stopped) throw new ToolError(outcome.text);
    return outcome.text;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new ToolError("git is not installed or not on PATH");
    }
    throw error;
  }
}

export const gitStatusTool: Tool = {
  name: "git_status",
  description:
    "Show `git status` of the working directory: the branch, and which files are staged, changed or untracked. Needs no approval.",
  run: (_args, ctx) => runGit(["status"], ctx),
  readOnly: true,
};

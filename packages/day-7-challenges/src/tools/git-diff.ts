// git_diff: the working tree's unstaged changes as git shows them, without a shell or a question.
import { runGit } from "./git-status.ts";
import type { Tool } from "./index.ts";

export const gitDiffTool: Tool = {
  name: "git_diff",
  description:
    "Show `git diff` of the working directory: the changes not yet staged, as a unified diff. Needs no approval.",
  // A diff driver's own program and a textconv are commands of the repository's too.
  run: (_args, ctx) =>
    runGit(["diff", "--no-ext-diff", "--no-textconv", "--ignore-submodules=all"], ctx),
  readOnly: true,
};

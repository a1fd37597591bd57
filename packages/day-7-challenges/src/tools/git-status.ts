// git_status: what git says about the working tree, read without a shell and without a question.
import { execFile } from "node:child_process";
import { lstatSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { commandEnv, MAX_PRINTED_BYTES, runCommand } from "../shell.ts";
import { type Tool, type ToolContext, ToolError } from "./index.ts";

const GIT_TIMEOUT_MS = 10_000;

const execGit = promisify(execFile);

function gitEnv(): NodeJS.ProcessEnv {
  return { ...commandEnv(), GIT_OPTIONAL_LOCKS: "0" };
}

// git's whole output, for agent-code to read (the model sees runGit's): a failure is a refusal.
async function readGit(args: string[], ctx: ToolContext): Promise<string> {
  try {
    const { stdout } = await execGit("git", args, {
      cwd: ctx.cwd,
      env: gitEnv(),
      signal: ctx.signal,
      timeout: GIT_TIMEOUT_MS,
      maxBuffer: MAX_PRINTED_BYTES,
      windowsHide: true,
    });
    return stdout;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw error;
    const said = (error as { stderr?: string }).stderr?.trim().split("\n")[0];
    throw new ToolError(`git failed: ${said || "it did not finish"}`);
  }
}

// The filter drivers git's config defines, in any file it reads (reading config runs nothing): the
// repository's config may redefine the person's own (git-lfs's, say), so every one is turned off.
// A driver's name is any word .gitattributes gives; `-c` cuts a setting at its first "=".
async function filterDrivers(ctx: ToolContext): Promise<string[]> {
  const names = new Set<string>();
  for (const entry of (await readGit(["config", "--null", "--list"], ctx)).split("\0")) {
    const key = entry.split("\n", 1)[0] ?? "";
    if (!key.startsWith("filter.")) continue;
    const name = key.slice("filter.".length, key.lastIndexOf("."));
    if (name.includes("=")) {
      throw new ToolError(`git's config names a filter that cannot be turned off: ${name}`);
    }
    if (name !== "") names.add(name);
  }
  return [...names];
}

// The nearest folder, from `cwd` up, that holds a `.git` (a folder, or a file as a worktree's):
// where git itself would look for the repository.
function workTree(cwd: string): string | undefined {
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (lstatSync(join(dir, ".git"), { throwIfNoEntry: false }) !== undefined) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

// A repository's .git/config and .gitattributes can name commands that git runs while it only
// reads. A tool that asks nothing runs none of them: each one is turned off here, and each tool
// passes --ignore-submodules=all (a submodule is a repository with a config of its own).
async function quietOptions(ctx: ToolContext): Promise<string[]> {
  const settings = [
    "core.fsmonitor=", // a hook asked which files changed (empty: off in every git version)
    "core.hooksPath=/dev/null", // hooks (none runs on a read today; a later git might add one)
    "diff.external=", // an external diff program
    // Each filter driver's programs, and not required: git then reads the file as it is.
    ...(await filterDrivers(ctx)).flatMap((name) =>
      ["clean=", "smudge=", "process=", "required=false"].map((set) => `filter.${name}.${set}`),
    ),
  ];
  // --no-pager: a pager (core.pager, pager.<command>). --work-tree: the folder that holds .git,
  // since core.worktree (which -c cannot undo) may name any folder, $HOME say, to read files from.
  const tree = workTree(ctx.cwd);
  return [
    "--no-pager",
    ...(tree === undefined ? [] : [`--work-tree=${tree}`]),
    ...settings.flatMap((setting) => ["-c", setting]),
  ];
}

// What a Read deny hides stays out of what git shows: git lists each path status would name
// (from the repository's top), the rules judge it as the walking tools do (relative to the working
// directory; a hidden folder hides what is in it), and git is told to leave each hidden one out,
// so neither its name nor its changes reach the model.
async function withoutHidden(quiet: string[], ctx: ToolContext): Promise<string[]> {
  const hidden = ctx.hidden;
  if (hidden === undefined) return [];
  const prefix = (await readGit([...quiet, "rev-parse", "--show-prefix"], ctx)).replace(/\n$/, "");
  const listing = [
    "status",
    "--porcelain",
    "-z",
    "--untracked-files=all",
    "--ignore-submodules=all",
  ];
  const entries = (await readGit([...quiet, ...listing], ctx)).split("\0");
  const left = new Set<string>();
  for (let at = 0; at < entries.length; at++) {
    const entry = entries[at] ?? "";
    // `XY path`; a rename or a copy names where it came from in the next entry.
    const paths = /[RC]/.test(entry.slice(0, 2))
      ? [entry.slice(3), entries[++at] ?? ""]
      : [entry.slice(3)];
    for (const path of paths) {
      if (path === "" || !path.startsWith(prefix)) continue; // outside the folder: no rule names it
      const parts = path.slice(prefix.length).split("/");
      const first = parts.findIndex((_, n) => hidden(parts.slice(0, n + 1).join("/")));
      if (first === -1) continue;
      // git is told the name as UTF-8; a name that is not would be shown after all.
      if (path.includes("\ufffd"))
        throw new ToolError("a hidden file's name is not UTF-8: git was not run");
      left.add(prefix + parts.slice(0, first + 1).join("/"));
    }
  }
  if (left.size === 0) return [];
  return ["--", ":/", ...[...left].map((path) => `:(exclude,top,literal)${path}`)];
}

// Runs git with fixed arguments: no shell reads them, so nothing the model writes becomes a
// command, and the tool needs no approval. GIT_OPTIONAL_LOCKS=0 keeps a read from taking
// .git/index.lock, which would make a command the person runs at the same time fail.
export async function runGit(args: string[], ctx: ToolContext): Promise<string> {
  try {
    const quiet = await quietOptions(ctx);
    const pathspecs = await withoutHidden(quiet, ctx);
    const outcome = await runCommand("git", [...quiet, ...args, ...pathspecs], {
      cwd: ctx.cwd,
      timeoutMs: GIT_TIMEOUT_MS,
      signal: ctx.signal,
      env: gitEnv(),
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
  run: (_args, ctx) => runGit(["status", "--ignore-submodules=all"], ctx),
  readOnly: true,
};

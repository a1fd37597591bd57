// A scenario's work folder as a git repository with one commit of everything in it. Names, dates
// and the branch are fixed and no configuration of the caller's is read, so every run makes the
// same commit and git's texts (`On branch main`) are the same on every machine.
import { execFileSync } from "node:child_process";

const FIXED = {
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "Agent Code",
  GIT_AUTHOR_EMAIL: "contract@agent-code.invalid",
  GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z",
  GIT_COMMITTER_NAME: "Agent Code",
  GIT_COMMITTER_EMAIL: "contract@agent-code.invalid",
  GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z",
};

/** Makes `folder` a repository on `main` with one commit, "initial", of the files in it. */
export function commitFolder(folder: string): void {
  for (const args of [
    ["-c", "init.defaultBranch=main", "init", "-q"],
    ["add", "-A"],
    ["commit", "-q", "-m", "initial"],
  ]) {
    execFileSync("git", args, { cwd: folder, env: gitEnv(), stdio: ["ignore", "ignore", "pipe"] });
  }
}

let gitFound: boolean | undefined;

/** Whether git can be run here at all (asked once). */
export function hasGit(): boolean {
  if (gitFound === undefined) {
    try {
      execFileSync("git", ["--version"], { stdio: "ignore" });
      gitFound = true;
    } catch {
      gitFound = false;
    }
  }
  return gitFound;
}

// The caller's variables but its own GIT_* ones (GIT_DIR would send the commit elsewhere).
function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith("GIT_")) env[name] = value;
  }
  return { ...env, ...FIXED };
}

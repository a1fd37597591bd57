// Where the repository lives on its host (GitHub or alike): the edit links and every docs link
// that leaves docs/ point there. One setting, looked for in this order: DOCS_REPOSITORY_URL, the
// root package.json's `repository`, the git remote `origin`. A clone from the host therefore
// links to itself, a fork to the fork, and nothing has to be filled in by hand.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface Repository {
  // "https://github.com/owner/name", without a trailing slash or ".git".
  url: string;
  branch: string;
}

export const BRANCH = "main";

export function findRepository(
  root: string,
  env: NodeJS.ProcessEnv = process.env,
): Repository | undefined {
  const candidates = [env.DOCS_REPOSITORY_URL, packageRepository(root), originUrl(root)];
  for (const candidate of candidates) {
    const url = candidate === undefined ? undefined : webUrl(candidate);
    if (url !== undefined) return { url, branch: BRANCH };
  }
  return undefined;
}

// The web address of a repository given as npm and git write it: "https://host/o/n.git",
// "git+https://…", "git@host:o/n.git", "ssh://git@host/o/n", "github:o/n" or "o/n". Anything
// else (a local path, an empty setting) is no address.
export function webUrl(value: string): string | undefined {
  const text = value
    .trim()
    .replace(/\/+$/, "")
    .replace(/\.git$/, "");
  const shorthand = /^(?:github:)?([\w.-]+\/[\w.-]+)$/.exec(text);
  if (shorthand && !text.startsWith(".")) return `https://github.com/${shorthand[1]}`;
  const scp = /^[\w.-]+@([\w.-]+):(?!\/)(.+)$/.exec(text);
  if (scp) return `https://${scp[1]}/${scp[2]}`;
  const url = /^(?:git\+)?(?:https?|ssh|git):\/\/(?:[^@/]+@)?([^/:]+)(?::\d+)?\/(.+)$/.exec(text);
  if (url) return `https://${url[1]}/${url[2]}`;
  return undefined;
}

function packageRepository(root: string): string | undefined {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    repository?: string | { url?: string };
  };
  return typeof pkg.repository === "string" ? pkg.repository : pkg.repository?.url;
}

function originUrl(root: string): string | undefined {
  try {
    return execFileSync("git", ["remote", "get-url", "origin"], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
  } catch {
    // No git, no remote: the site is built without links to the host.
    return undefined;
  }
}

// Which revision of this course graded a project: the git commit of this checkout and the
// course's version (the root package.json's), so a term's grades say what judged them.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./command.ts";

export interface CourseRevision {
  // The commit this checkout is at; null outside a git checkout (a downloaded archive).
  commit: string | null;
  version: string;
}

let known: CourseRevision | undefined;

export function courseRevision(): CourseRevision {
  known ??= {
    commit: gitCommit(),
    version: String(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version),
  };
  return known;
}

function gitCommit(): string | null {
  try {
    const out = execFileSync("git", ["rev-parse", "HEAD"], {
      cwd: ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    return /^[0-9a-f]{40,64}$/.test(out) ? out : null;
  } catch {
    return null;
  }
}

// A challenge's changes carried onto the stage a learner arrives from (issue #45). A challenge
// package is a copy of an earlier stage with its answers (day-3-challenges of day-3-v2), but the
// learner who reads the challenge page has gone on to the day's last stage (day-3-v4): the page's
// diff must start there. Each file is merged three ways, as git merges a branch: the challenge's
// base, the arrival stage (ours) and the challenge (theirs). A file both changed in the same
// place does not merge, and the page cannot show a diff from there.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { baseOf, stageDir } from "./command.ts";
import { diffStageAndProject, type StageDiffOptions, sourceFiles } from "./stage-diff.ts";

export type Rebased = { files: Map<string, string> } | { error: string };

// `to`'s src/ files with its changes over its base made on `from`'s instead. A path maps to its
// text; a file the challenge deleted is left out.
export function rebaseStage(from: string, to: string): Rebased {
  const base = baseOf(to);
  if (base === undefined) return { error: `${to} builds on no stage, so it cannot be carried` };
  const src = (stage: string) => join(stageDir(stage), "src");
  const read = (stage: string, path: string) => {
    const file = join(src(stage), path);
    return existsSync(file) ? readFileSync(file, "utf8") : undefined;
  };
  const paths = new Set([base, from, to].flatMap((stage) => sourceFiles(src(stage))));
  const files = new Map<string, string>();
  const conflicts: string[] = [];
  for (const path of [...paths].sort()) {
    const [old, ours, theirs] = [read(base, path), read(from, path), read(to, path)];
    const merged = mergeFile(old, ours, theirs);
    if (merged === null) conflicts.push(path);
    else if (merged !== undefined) files.set(path, merged);
  }
  if (conflicts.length > 0) {
    return {
      error: `${to}'s changes to ${conflicts.join(", ")} do not merge onto ${from}: ${from} changed the same lines`,
    };
  }
  return { files };
}

// One file merged three ways: its text, undefined when the result has no such file, null when
// both sides changed it in the same place.
function mergeFile(
  old: string | undefined,
  ours: string | undefined,
  theirs: string | undefined,
): string | undefined | null {
  if (theirs === old) return ours;
  if (ours === old) return theirs;
  if (ours === theirs) return ours;
  if (old === undefined || ours === undefined || theirs === undefined) return null;
  const dir = mkdtempSync(join(tmpdir(), "stage-rebase-"));
  try {
    const [a, o, b] = ["ours", "base", "theirs"].map((name) => join(dir, name));
    writeFileSync(a as string, ours);
    writeFileSync(o as string, old);
    writeFileSync(b as string, theirs);
    const run = spawnSync("git", ["merge-file", "-p", a as string, o as string, b as string], {
      encoding: "utf8",
    });
    return run.status === 0 ? run.stdout : null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The diff from `from` to `to` carried onto it, as stage-diff shows a diff, titled so. Throws
// with the reason when the challenge does not merge.
export async function diffRebased(
  from: string,
  to: string,
  options: StageDiffOptions = {},
): Promise<string> {
  const rebased = rebaseStage(from, to);
  if ("error" in rebased) throw new Error(rebased.error);
  const project = mkdtempSync(join(tmpdir(), "stage-rebase-project-"));
  try {
    for (const [path, text] of rebased.files) {
      mkdirSync(dirname(join(project, "src", path)), { recursive: true });
      writeFileSync(join(project, "src", path), text);
    }
    const diff = await diffStageAndProject(from, project, options);
    return diff.replace(
      /^(\S+) \(a\/\) -> your project \(b\/\)/,
      `$1 (a/) -> ${to} on ${from} (b/)`,
    );
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}

// The page replays of docs-replay.test.ts and docs-replay-second.test.ts: every lesson typed in
// as its page shows it. At each checkpoint the project type-checks with the starter's tsconfig and
// the scenarios its box names pass; at the lesson's end its src/ is the stage's, byte for byte, and
// type-checks. The stage's own tests run its whole contract on those same sources: running it here
// again would prove nothing more (decisions 0032 and 0038). The lessons alternate between the two
// files, which Vitest runs side by side, so the replays grow in two halves as the course does
// (docs/benchmarks.md, 7 December).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { ROOT } from "../lib/command.ts";
import { type Lesson, lessonsOf, replayLesson, stageFiles } from "../lib/docs-lessons.ts";
import { pagePaths, scanPage } from "../lib/docs-pages.ts";
import {
  failingScenarios,
  removeProject,
  typeErrors,
  writeProject,
} from "../lib/docs-replay-run.ts";
import { UNFINISHED_LESSONS } from "../lib/docs-tree.ts";

// Every finished lesson of the pages, in page order.
export function finishedLessons(): Lesson[] {
  const pages = pagePaths(ROOT).map((file) => ({
    file,
    blocks: scanPage(file, readFileSync(join(ROOT, file), "utf8")).blocks,
  }));
  return lessonsOf(pages).filter((lesson) => !UNFINISHED_LESSONS.includes(lesson.stage));
}

// The replay test of every other lesson: the first, third… for half 0, the second, fourth… for 1.
export function replayLessons(half: 0 | 1): void {
  const lessons = finishedLessons().filter((_, index) => index % 2 === half);
  // One lesson at a time in each file: the scenarios' own timeouts must hold on a busy machine.
  test.each(lessons.map((lesson) => [lesson.stage, lesson] as const))(
    "%s: every checkpoint type-checks and passes its scenarios; the end is the stage",
    async (_stage, lesson) => {
      const replayed = replayLesson(lesson);
      expect(replayed.problems).toEqual([]);
      const dirs: string[] = [];
      try {
        for (const { checkpoint, files } of replayed.checkpoints) {
          const dir = writeProject(lesson.stage, files);
          dirs.push(dir);
          const where = `${checkpoint.file}:${checkpoint.line}`;
          expect(typeErrors(dir), `tsc at ${where}`).toBe("");
          expect(
            await failingScenarios(checkpoint.stage, dir, checkpoint.scenarios),
            `scenarios at ${where}`,
          ).toEqual([]);
        }
        expect(Object.fromEntries(replayed.files)).toEqual(
          Object.fromEntries(stageFiles(lesson.stage)),
        );
        const dir = writeProject(lesson.stage, replayed.files);
        dirs.push(dir);
        expect(typeErrors(dir)).toBe("");
      } finally {
        for (const dir of dirs) removeProject(dir);
      }
    },
    400_000,
  );
}

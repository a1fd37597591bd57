// Every lesson typed in as its page shows it: at each checkpoint the project type-checks with the
// starter's tsconfig and the scenarios its box names pass; at the lesson's end its src/ is the
// stage's, byte for byte, and type-checks. The stage's own tests run its whole contract on those
// same sources: running it here again would prove nothing more (decisions 0032 and 0038).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { ROOT } from "../lib/command.ts";
import { lessonsOf, replayLesson, stageFiles } from "../lib/docs-lessons.ts";
import { pagePaths, scanPage } from "../lib/docs-pages.ts";
import {
  failingScenarios,
  removeProject,
  typeErrors,
  writeProject,
} from "../lib/docs-replay-run.ts";
import { UNFINISHED_LESSONS } from "../lib/docs-tree.ts";

const pages = pagePaths(ROOT).map((file) => ({
  file,
  blocks: scanPage(file, readFileSync(join(ROOT, file), "utf8")).blocks,
}));
const lessons = lessonsOf(pages).filter((lesson) => !UNFINISHED_LESSONS.includes(lesson.stage));

// One lesson at a time: the scenarios' own timeouts must hold on a busy machine.
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

test("swapping two blocks so that one uses a later name fails the replay at that block", () => {
  const text = readFileSync(join(ROOT, "docs/day-1.md"), "utf8");
  const block = (name: string) =>
    new RegExp(`<!-- code: day-1/src/agent\\.ts#${name} -->\\n\`\`\`ts\\n[\\s\\S]*?\\n\`\`\`\\n`);
  const first = block("AgentResult").exec(text)?.[0] ?? "";
  const second = block("runAgent").exec(text)?.[0] ?? "";
  expect(first).not.toBe("");
  const swapped = text
    .replace(first, "@@FIRST@@")
    .replace(second, first)
    .replace("@@FIRST@@", second);
  const [lesson] = lessonsOf([
    { file: "docs/day-1.md", blocks: scanPage("docs/day-1.md", swapped).blocks },
  ]);
  expect(lesson?.stage).toBe("day-1");
  const replayed = replayLesson(lesson as NonNullable<typeof lesson>);
  expect(replayed.problems.map((problem) => problem.message)).toEqual([
    "<!-- code: day-1/src/agent.ts#runAgent --> uses AgentResult, which day-1's page shows only later",
  ]);
  // The text still ends as the stage: only the order was wrong, and only the order check saw it.
  expect(replayed.coverage.shown).toBe(replayed.coverage.changed);
});

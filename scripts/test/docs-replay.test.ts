// The pages replayed: half the lessons typed in as their pages show them (the other half is
// docs-replay-second.test.ts; both in test/docs-replay-lessons.ts), a replay that must fail, and
// Day 3 typed in page order.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { ROOT } from "../lib/command.ts";
import { type Files, lessonsOf, replayLesson } from "../lib/docs-lessons.ts";
import { scanPage } from "../lib/docs-pages.ts";
import { removeProject, writeProject } from "../lib/docs-replay-run.ts";
import { diffStageAndProject } from "../lib/stage-diff.ts";
import {
  type DeclarationPiece,
  declarationPieces,
  isCodeFile,
} from "../lib/stage-diff-declarations.ts";
import { finishedLessons, replayLessons } from "./docs-replay-lessons.ts";

const lessons = finishedLessons();

// The first, third… lesson's replay; docs-replay-second.test.ts runs the others beside this file.
replayLessons(0);

test("swapping two blocks so that one uses a later name fails the replay at that block", () => {
  const text = readFileSync(join(ROOT, "docs/day-1.md"), "utf8");
  const block = (name: string) =>
    new RegExp(
      `<!-- code: day-1/src/agent\\.ts#${name} -->\\n(?:.+\\n\\n)?\`\`\`ts\\n[\\s\\S]*?\\n\`\`\`\\n`,
    );
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

// Day 3 typed as a learner might type it: each file's declarations in the order the page first
// shows them, rather than where the placement lines (and the stage) put them. At every checkpoint
// stage-diff --by-declaration finds the same declarations still to do as for the project typed in
// the stage's order, so order alone is never a difference; at the end, none. The plain diff is not
// so kind: somewhere in the day, order alone shows as changed lines.
const DAY_3 = lessons.filter((lesson) => /^day-3-v\d$/.test(lesson.stage));
const typedInOtherOrder = new Map<string, boolean>();

test.each(DAY_3.map((lesson) => [lesson.stage, lesson] as const))(
  "%s typed in page order: --by-declaration shows only what the lesson has left to do",
  async (_stage, lesson) => {
    const replayed = replayLesson(lesson);
    expect(replayed.problems).toEqual([]);
    // Each file's declarations by where the page first shows them.
    const shown = new Map<string, string[]>();
    for (const step of lesson.steps) {
      if (!("block" in step) || step.block.kind !== "code") continue;
      const [, path = "", name] = /^[^/]+\/src\/([^#\s]+)(?:#(\S+))?$/.exec(step.block.arg) ?? [];
      if (name !== undefined) shown.set(path, [...(shown.get(path) ?? []), name]);
    }
    const dirs: string[] = [];
    const diff = async (files: Files, byDeclaration: boolean) => {
      const dir = writeProject(lesson.stage, files);
      dirs.push(dir);
      return diffStageAndProject(lesson.stage, dir, { byDeclaration });
    };
    // The headers of the declarations a --by-declaration diff shows (`@@ function walk @@`).
    const pieces = (text: string) => text.split("\n").filter((line) => /^@@ [^-+]/.test(line));
    let orderShowed = false;
    try {
      const points = [...replayed.checkpoints.map((point) => point.files), replayed.files];
      for (const [index, placed] of points.entries()) {
        const typed = inPageOrder(placed, shown);
        const where = replayed.checkpoints[index]?.checkpoint.line ?? "the end";
        expect(pieces(await diff(typed, true)), `left at ${where}`).toEqual(
          pieces(await diff(placed, true)),
        );
        if ((await diff(typed, false)) !== (await diff(placed, false))) orderShowed = true;
      }
      expect(await diff(inPageOrder(replayed.files, shown), true)).toContain("no differences");
    } finally {
      for (const dir of dirs) removeProject(dir);
    }
    typedInOtherOrder.set(lesson.stage, orderShowed);
  },
  120_000,
);

afterAll(() => {
  // When the Day 3 tests above ran: page order showed in a plain diff at least once.
  if (typedInOtherOrder.size === DAY_3.length) {
    expect([...typedInOtherOrder.values()].some(Boolean)).toBe(true);
  }
});

// The files with each file's top-level pieces in page order: the imports first, then what the
// page shows in the order it first shows it, then the rest in file order.
function inPageOrder(files: Files, shown: Map<string, string[]>): Files {
  const typed: Files = new Map();
  for (const [path, text] of files) {
    const names = shown.get(path) ?? [];
    let pieces: DeclarationPiece[];
    try {
      pieces = isCodeFile(path) ? declarationPieces(text, path) : [];
    } catch {
      pieces = [];
    }
    if (pieces.length === 0) {
      typed.set(path, text);
      continue;
    }
    const rank = (piece: DeclarationPiece) => {
      if (piece.key === "imports") return -1;
      const at = names.findIndex((name) => piece.key === name || piece.label.endsWith(` ${name}`));
      return at < 0 ? names.length : at;
    };
    const ordered = pieces
      .map((piece, index) => ({ piece, index }))
      .sort((a, b) => rank(a.piece) - rank(b.piece) || a.index - b.index)
      .map(({ piece }) => piece.text.replace(/^\n+|\n+$/g, ""));
    typed.set(path, `${ordered.join("\n\n")}\n`);
  }
  return typed;
}

// How big each stage's src/ is and how much each lesson changes: files, lines of code, and the
// lines added and removed against its base (the stage it is a copy of), counted from the diff
// stage-diff shows.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { baseOf, STAGES, stageDir } from "./command.ts";
import { parseFile } from "./docs-code.ts";
import { compareStages, sourceFiles } from "./stage-diff.ts";

export interface StageStats {
  stage: string;
  files: number;
  // Lines of code in src/: blank and comment-only lines are not counted.
  lines: number;
  // Lines of src/ added and removed against the stage's base; 0 for the first stage. A file
  // stage-diff shows as moved counts only the lines its move changed, and lines it shows moved
  // from a deleted file into a new one count neither way.
  added: number;
  removed: number;
}

export function stageStats(): StageStats[] {
  return STAGES.map((stage) => {
    const src = join(stageDir(stage), "src");
    const files = sourceFiles(src);
    const base = baseOf(stage);
    const changes = base === undefined ? [] : compareStages(base, stage);
    return {
      stage,
      files: files.length,
      lines: files.reduce(
        (sum, file) => sum + countCodeLines(readFileSync(join(src, file), "utf8")),
        0,
      ),
      added: changes.reduce((sum, change) => sum + change.added, 0),
      removed: changes.reduce((sum, change) => sum + change.removed, 0),
    };
  });
}

// A line of TypeScript counts when something on it is outside a comment: a blank line does not,
// nor one that holds only `// …`, only part of a `/* … */` block, or only both. The comments are the
// parser's, so a "/*" inside a string or a quote inside a regular expression misleads nothing.
export function countCodeLines(source: string): number {
  let code = source;
  for (const comment of parseFile(source, "counted.ts").comments) {
    const blanked = source.slice(comment.start, comment.end).replace(/[^\n]/g, " ");
    code = code.slice(0, comment.start) + blanked + code.slice(comment.end);
  }
  return code.split("\n").filter((line) => line.trim() !== "").length;
}

const HEADINGS = ["stage", "files", "lines", "added", "removed"];

export function formatStats(stats: StageStats[]): string {
  const rows = [
    HEADINGS,
    ...stats.map((row) => [
      row.stage,
      ...[row.files, row.lines, row.added, row.removed].map(String),
    ]),
  ];
  const widths = HEADINGS.map((_, column) =>
    Math.max(...rows.map((row) => row[column]?.length ?? 0)),
  );
  const table = rows.map((row) =>
    row
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join("  ")
      .trimEnd(),
  );
  return [
    ...table,
    "",
    "lines: lines of code in src/; blank lines and comment-only lines are not counted.",
    "added, removed: lines of src/ changed against the stage it builds on, as `pnpm stage-diff <stage>` shows them.",
    "",
  ].join("\n");
}

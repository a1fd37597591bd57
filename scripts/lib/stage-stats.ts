// How big each stage's src/ is and how much each lesson changes: files, lines of code, and the
// lines added and removed against its base (the stage it is a copy of), counted from the diff
// stage-diff shows.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { baseOf, STAGES, stageDir } from "./command.ts";
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
// nor one that holds only `// …`, only part of a `/* … */` block, or only both. Strings and
// template literals are followed so that "/*" inside one opens no comment; a regular expression
// literal holding `/*` would (none of the stages has one).
export function countCodeLines(source: string): number {
  let count = 0;
  let state: "code" | "block" | "'" | '"' | "`" = "code";
  for (const line of source.split(/\r?\n/)) {
    let code = false;
    for (let at = 0; at < line.length; at++) {
      const char = line[at] ?? "";
      const pair = line.slice(at, at + 2);
      if (state === "block") {
        if (pair === "*/") {
          state = "code";
          at++;
        }
        continue;
      }
      if (state !== "code") {
        code = true;
        if (char === "\\") at++;
        else if (char === state) state = "code";
        continue;
      }
      if (pair === "//") break;
      if (pair === "/*") {
        state = "block";
        at++;
        continue;
      }
      if (char === "'" || char === '"' || char === "`") state = char;
      if (char.trim() !== "") code = true;
    }
    // Quotes close at the end of their line; only a template literal runs on.
    if (state === "'" || state === '"') state = "code";
    if (code) count++;
  }
  return count;
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

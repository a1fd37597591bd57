// The diff between two stages, or a stage and a learner's project: src/ (and test/) only, without
// the noise of lock files, generated files, line endings or lines that differ by the package name,
// and a moved file or a moved run of lines shown as a move. With `byDeclaration`, a TypeScript file
// on both sides is compared declaration by declaration, so that the order a learner typed a page's
// code blocks in is no difference.
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { devNull, tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { paint, requireStage, stageDir, UsageError } from "./command.ts";
import { declaredNames, parseFile } from "./docs-code.ts";
import { type DeclarationPiece, declarationPieces, isCodeFile } from "./stage-diff-declarations.ts";

export interface StageDiffOptions {
  // test/ as well as src/.
  tests?: boolean;
  colour?: boolean;
  // The learner project's source directory, relative to the project (default "src").
  src?: string;
  // A code file on both sides compared piece by piece, each top-level declaration with the one of
  // its name on the other side, wherever it is in the file (see byDeclaration).
  byDeclaration?: boolean;
}

// One file of a comparison: its path on each side (undefined where it does not exist), the
// unified diff hunks with the original lines, and the counts the stat header shows. A file that
// git found moved (a file gone from one side, most of whose lines are in a file new on the other)
// has its similarity set, and its hunks and counts hold only the lines the move changed. Runs of
// lines that a deleted file had and an added file has are neither removed nor added: each run is
// one line of the hunks (movedRuns), and `moved` counts its lines.
export interface FileDiff {
  from: string | undefined;
  to: string | undefined;
  hunks: string[];
  binary: boolean;
  added: number;
  removed: number;
  // git's "similarity index" of a rename, in percent; undefined for any other file.
  similarity: number | undefined;
  // Lines moved out of this file (one the comparison deletes) or into it (one it adds).
  moved: number;
  // Compared by declaration: how many of its pieces differ (its hunks are theirs).
  declarations?: number;
  // A line shown under the file's header: why it was compared line by line after all.
  note?: string;
}

// A side of a comparison: where each role (src, test) lives, relative to `root`.
interface Side {
  root: string;
  dirs: Map<string, string>;
  // Package names to treat as equal to the other side's.
  names: string[];
}

export async function diffStages(
  from: string,
  to: string,
  options: StageDiffOptions = {},
): Promise<string> {
  return renderDiff(compareStages(from, to, options), header(from, to, options), options);
}

export async function diffStageAndProject(
  stage: string,
  projectDir: string,
  options: StageDiffOptions = {},
): Promise<string> {
  const files = compareSides(stageSide(stage, options), projectSide(projectDir, options), options);
  return renderDiff(files, header(stage, "your project", options), options);
}

// Sync, so that stage-stats can count what stage-diff shows.
export function compareStages(
  from: string,
  to: string,
  options: StageDiffOptions = {},
): FileDiff[] {
  return compareSides(stageSide(from, options), stageSide(to, options), options);
}

// Every file below `dir` except dependencies, build output, caches, lock files and secrets,
// as paths relative to `dir` with forward slashes, sorted.
export function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name)) {
      const below = sourceFiles(join(dir, entry.name));
      files.push(...below.map((file) => `${entry.name}/${file}`));
    } else if (entry.isFile() && !isSkippedFile(entry.name)) {
      files.push(entry.name);
    }
  }
  return files.sort();
}

const SKIPPED_DIRS = new Set([
  "node_modules",
  "dist",
  "build",
  "coverage",
  ".git",
  ".turbo",
  ".test-results",
  "__pycache__",
  ".venv",
  ".pytest_cache",
  ".mypy_cache",
  ".ruff_cache",
]);

const LOCK_FILES = new Set([
  "pnpm-lock.yaml",
  "package-lock.json",
  "yarn.lock",
  "bun.lock",
  "bun.lockb",
  "uv.lock",
  "poetry.lock",
]);

function isSkippedFile(name: string): boolean {
  // A .env file holds API keys: never print it, even when a learner keeps one in src/.
  if (name === ".env" || name.startsWith(".env.")) return true;
  if (name === ".DS_Store") return true;
  return LOCK_FILES.has(name) || /\.(pyc|tsbuildinfo|log)$/.test(name);
}

function stageSide(stage: string, options: StageDiffOptions): Side {
  requireStage(stage);
  return {
    root: stageDir(stage),
    dirs: roles(options, "src", "test"),
    names: [`@agent-code/${stage}`],
  };
}

function projectSide(projectDir: string, options: StageDiffOptions): Side {
  const root = resolve(projectDir);
  if (!statSync(root, { throwIfNoEntry: false })?.isDirectory()) {
    throw new UsageError(`not a directory: ${root}`);
  }
  // Shown relative to the project, with forward slashes, however --src was spelled.
  const src = relative(root, resolve(root, options.src ?? "src")).replaceAll("\\", "/");
  if (!statSync(join(root, src), { throwIfNoEntry: false })?.isDirectory()) {
    throw new UsageError(
      `${join(root, src)} is not a directory (name the source folder with --src)`,
    );
  }
  // A Python project keeps its tests in tests/.
  const test =
    !existsSync(join(root, "test")) && existsSync(join(root, "tests")) ? "tests" : "test";
  return { root, dirs: roles(options, src, test), names: packageName(root) };
}

function roles(options: StageDiffOptions, src: string, test: string): Map<string, string> {
  const dirs = new Map([["src", src]]);
  if (options.tests) dirs.set("test", test);
  return dirs;
}

function packageName(root: string): string[] {
  const file = join(root, "package.json");
  if (!existsSync(file)) return [];
  try {
    const { name } = JSON.parse(readFileSync(file, "utf8")) as { name?: unknown };
    return typeof name === "string" && name !== "" ? [name] : [];
  } catch {
    // A package.json in the middle of an edit: the name only hides noise, so go on without it.
    return [];
  }
}

// Files are paired by role and path (a project's lib/agent.ts with a stage's src/agent.ts), and
// git diffs normalised copies of each pair: CRLF turned into LF, and every package name of
// either side replaced by one placeholder, so a line that differs only by the package name is
// equal. The hunks are then filled with the original lines, which normalising never moves.
// A file left unpaired on one side may then be paired by git with one on the other: a rename.
function compareSides(a: Side, b: Side, options: StageDiffOptions): FileDiff[] {
  const left = readSide(a);
  const right = readSide(b);
  const keys = [...new Set([...left.keys(), ...right.keys()])].sort(gitOrder);
  const names = new RegExp(
    [...a.names, ...b.names]
      .sort((x, y) => y.length - x.length)
      .map((name) => `(?<![\\w@/-])${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w-])`)
      .join("|"),
    "g",
  );
  const normaliseText = (text: string) => text.replace(names, "<package-name>");
  const normalise = (file: SourceFile) => normaliseText(file.text);
  const temp = mkdtempSync(join(tmpdir(), "stage-diff-"));
  try {
    mkdirSync(join(temp, "a"));
    mkdirSync(join(temp, "b"));
    for (const [index, key] of keys.entries()) {
      const before = left.get(key);
      const after = right.get(key);
      if (before) writeFileSync(join(temp, "a", String(index)), normalise(before));
      if (after) writeFileSync(join(temp, "b", String(index)), normalise(after));
    }
    const sections = gitDiff(temp);
    // A rename is shown where git shows it: at its new file's place.
    const parts = keys.flatMap((key, index) => {
      const section = sections.get(index);
      if (section === undefined) return [];
      return [
        { from: left.get(keys[section.from] ?? ""), to: right.get(key), lines: section.lines },
      ];
    });
    const moves = movedRuns(parts, normalise);
    const files = parts.map((part) => fileDiff(part, moves));
    return options.byDeclaration ? byDeclaration(parts, files, normaliseText, temp) : files;
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

// git walks each folder in name order, so a folder comes before a file whose name it begins
// (tools/ before tools.ts) where a plain sort of the paths puts it after.
function gitOrder(a: string, b: string): number {
  const x = a.split("/");
  const y = b.split("/");
  for (let at = 0; at < Math.min(x.length, y.length); at++) {
    const [one = "", two = ""] = [x[at], y[at]];
    if (one !== two) return one < two ? -1 : 1;
  }
  return x.length - y.length;
}

interface SourceFile {
  path: string;
  text: string;
}

// role/relative path -> the file as shown (its path on this side) and its text with LF endings.
function readSide(side: Side): Map<string, SourceFile> {
  const files = new Map<string, SourceFile>();
  for (const [role, dir] of side.dirs) {
    const full = join(side.root, dir);
    if (!existsSync(full)) continue;
    for (const file of sourceFiles(full)) {
      const text = readFileSync(join(full, file), "utf8").replaceAll("\r\n", "\n");
      // --src . (a project whose sources sit at its root) shows plain file names.
      files.set(`${role}/${file}`, { path: dir === "" ? file : `${dir}/${file}`, text });
    }
  }
  return files;
}

// Each file's section of the patch: the lines after its `diff --git` line, and the index of the
// file it comes from, which differs from the index it is keyed by only for a rename.
interface Section {
  from: number;
  lines: string[];
}

// A file's two sides (undefined where it does not exist) and its section of the patch.
interface Part {
  from: SourceFile | undefined;
  to: SourceFile | undefined;
  lines: string[];
}

// Runs git once over the two trees (files named by index, so no path needs quoting) and returns
// each file's section of the patch, keyed by the index of its file on the newer side (of its old
// file for a deleted one, which git names by that index on both sides).
//
// Renames are git's own: a deleted file is paired with the added file most like it when they share
// at least half of the larger one (git's default threshold, written out). A file split in many is
// paired with its most similar piece only if that piece reaches half; the others stay added. When
// day-5-v1 split day-4-v3's tools.ts (711 lines) into tools/ no piece did (tools/index.ts, the
// closest, is 15% similar), so tools.ts shows as deleted and every piece as added: the lines they
// share are then found by movedRuns.
function gitDiff(temp: string): Map<number, Section> {
  const git = spawnSync(
    "git",
    [
      "diff",
      "--no-index",
      "--histogram",
      "--find-renames=50%",
      "--no-color",
      "--no-ext-diff",
      "--no-textconv",
      "--unified=3",
      "--inter-hunk-context=0",
      "--src-prefix=a/",
      "--dst-prefix=b/",
      "a",
      "b",
    ],
    {
      cwd: temp,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
      // The user's git settings (prefixes, context, colour) must not change the output.
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: devNull },
    },
  );
  if (git.error) throw new Error(`stage-diff needs git on the PATH: ${git.error.message}`);
  if (git.status !== 0 && git.status !== 1) throw new Error(`git diff failed: ${git.stderr}`);
  const sections = new Map<number, Section>();
  let current: string[] = [];
  for (const line of git.stdout.split("\n")) {
    const start = /^diff --git a\/[ab]\/(\d+) b\/[ab]\/(\d+)$/.exec(line);
    if (start !== null) {
      current = [];
      sections.set(Number(start[2]), { from: Number(start[1]), lines: current });
    } else {
      current.push(line);
    }
  }
  return sections;
}

function fileDiff(part: Part, moves: Map<SourceFile, MovedRun[]>): FileDiff {
  const { from, to, lines: section } = part;
  const firstHunk = section.findIndex((text) => text.startsWith("@@"));
  const head = firstHunk < 0 ? section : section.slice(0, firstHunk);
  const similarity = head
    .map((line) => /^similarity index (\d+)%$/.exec(line)?.[1])
    .find((percent) => percent !== undefined);
  const diff: FileDiff = {
    from: from?.path,
    to: to?.path,
    hunks: [],
    binary: section.some((line) => line.startsWith("Binary files ")),
    added: 0,
    removed: 0,
    similarity: similarity === undefined ? undefined : Number(similarity),
    moved: 0,
  };
  const oldLines = from?.text.split("\n") ?? [];
  const newLines = to?.text.split("\n") ?? [];
  const movedOut = runAt(from, moves);
  const movedIn = runAt(to, moves);
  let oldAt = 0;
  let newAt = 0;
  for (const line of firstHunk < 0 ? [] : section.slice(firstHunk)) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      oldAt = Number(hunk[1]) - 1;
      newAt = Number(hunk[2]) - 1;
      diff.hunks.push(`${hunk[0]}${functionContext(oldLines, oldAt)}`);
    } else if (line.startsWith("-")) {
      const run = movedOut(oldAt);
      if (run === undefined) {
        diff.hunks.push(`-${oldLines[oldAt]}`);
        diff.removed++;
      } else {
        if (run.at === oldAt) diff.hunks.push(run.line);
        diff.moved++;
      }
      oldAt++;
    } else if (line.startsWith("+")) {
      const run = movedIn(newAt);
      if (run === undefined) {
        diff.hunks.push(`+${newLines[newAt]}`);
        diff.added++;
      } else {
        if (run.at === newAt) diff.hunks.push(run.line);
        diff.moved++;
      }
      newAt++;
    } else if (line.startsWith("\\")) {
      diff.hunks.push(line);
    } else if (line.startsWith(" ")) {
      // A context line shows the newer side; both are equal once normalised.
      diff.hunks.push(` ${newLines[newAt++]}`);
      oldAt++;
    }
  }
  return diff;
}

// A top-level piece of a file compared by declaration, on each side (undefined on a side whose
// file has no piece of its key), and the name the output shows it by.
interface PiecePair {
  label: string;
  from: DeclarationPiece | undefined;
  to: DeclarationPiece | undefined;
}

// --by-declaration: each code file on both sides is cut into its top-level pieces (see
// stage-diff-declarations.ts), and pieces pair up by name wherever they are in their files. Its
// hunks are then those of the pieces that differ once normalised (package names, line endings,
// trailing whitespace), each pair diffed alone under a line that names it: in a/'s order, then
// the pieces only b/ has. A hunk's line numbers are the file's, or the piece's own for a piece
// that is not one run of its file (the sorted imports). A file whose pieces are all equal is left
// out, but a rename keeps its header, as a file moved unchanged does. A file that does not parse
// keeps its line diff, with a note that says why.
function byDeclaration(
  parts: Part[],
  files: FileDiff[],
  normalise: (text: string) => string,
  temp: string,
): FileDiff[] {
  const compared = files.map((file, index) => {
    const { from, to } = parts[index] ?? {};
    if (from === undefined || to === undefined || file.binary) return { file, pairs: undefined };
    if (!isCodeFile(from.path) || !isCodeFile(to.path)) return { file, pairs: undefined };
    try {
      const before = declarationPieces(from.text, `a/${from.path}`);
      const after = declarationPieces(to.text, `b/${to.path}`);
      return { file, pairs: changedPieces(before, after, normalise) };
    } catch (error) {
      const message = (error as Error).message;
      if (!message.includes(" does not parse: ")) throw error;
      const note = `… ${message}; compared line by line …`;
      return { file: { ...file, note }, pairs: undefined };
    }
  });
  const diffs = diffPieces(
    compared.flatMap(({ pairs }) => pairs ?? []),
    normalise,
    temp,
  );
  return compared.flatMap(({ file, pairs }) => {
    if (pairs === undefined) return [file];
    if (pairs.length === 0 && file.similarity === undefined) return [];
    const shown = pairs.map((pair) => ({ pair, diff: diffs.get(pair) }));
    return [
      {
        ...file,
        hunks: shown.flatMap(({ pair, diff }) => [
          pieceHeader(pair),
          ...(diff?.hunks ?? []).map((line) => (line.startsWith("@@") ? placed(line, pair) : line)),
        ]),
        added: shown.reduce((sum, { diff }) => sum + (diff?.added ?? 0), 0),
        removed: shown.reduce((sum, { diff }) => sum + (diff?.removed ?? 0), 0),
        declarations: pairs.length,
      },
    ];
  });
}

// The pieces of a file that differ between its two sides: a/'s in its order, then b/'s own.
function changedPieces(
  before: DeclarationPiece[],
  after: DeclarationPiece[],
  normalise: (text: string) => string,
): PiecePair[] {
  const inBefore = new Set(before.map((piece) => piece.key));
  const afterByKey = new Map(after.map((piece) => [piece.key, piece]));
  return [
    ...before.map((piece) => ({ label: piece.label, from: piece, to: afterByKey.get(piece.key) })),
    ...after
      .filter((piece) => !inBefore.has(piece.key))
      .map((piece) => ({ label: piece.label, from: undefined, to: piece })),
  ].filter(
    ({ from, to }) =>
      from === undefined || to === undefined || normalise(from.text) !== normalise(to.text),
  );
}

// Each pair's line diff, from one run of git over them all. A piece missing on one side is
// diffed against an empty file, so that git sees every file on both sides and finds no rename.
function diffPieces(
  pairs: PiecePair[],
  normalise: (text: string) => string,
  temp: string,
): Map<PiecePair, FileDiff> {
  if (pairs.length === 0) return new Map();
  const dir = join(temp, "pieces");
  mkdirSync(join(dir, "a"), { recursive: true });
  mkdirSync(join(dir, "b"));
  const sides = pairs.map((pair) =>
    [pair.from, pair.to].map((piece) => ({
      path: "",
      text: piece === undefined ? "" : `${piece.text}\n`,
    })),
  );
  for (const [index, [before, after]] of sides.entries()) {
    writeFileSync(join(dir, "a", String(index)), normalise(before?.text ?? ""));
    writeFileSync(join(dir, "b", String(index)), normalise(after?.text ?? ""));
  }
  const sections = gitDiff(dir);
  return new Map(
    pairs.map((pair, index) => {
      const [from, to] = sides[index] ?? [];
      const lines = sections.get(index)?.lines ?? [];
      return [pair, fileDiff({ from, to, lines }, new Map())];
    }),
  );
}

// The line that names a piece above its hunks: `@@ function walk @@`, and which side alone has it.
function pieceHeader({ label, from, to }: PiecePair): string {
  const only = from === undefined ? " (only in b/)" : to === undefined ? " (only in a/)" : "";
  return `@@ ${label}${only} @@`;
}

// A piece's hunk header with the file's line numbers on each side where the piece is one run of
// that file's lines; an empty side (`-0,0`) stays as git wrote it.
function placed(hunk: string, { from, to }: PiecePair): string {
  const range = (start: string, count = "", line: number | undefined) =>
    line === undefined || count === ",0"
      ? `${start}${count}`
      : `${Number(start) + line - 1}${count}`;
  return hunk.replace(
    /^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@/,
    (_, old: string, oldCount: string | undefined, next: string, nextCount: string | undefined) =>
      `@@ -${range(old, oldCount, from?.line)} +${range(next, nextCount, to?.line)} @@`,
  );
}

// A run of lines that moved between a file the comparison deletes and one it adds, as one of the
// two sees it: where it starts in that file (0-based), how long it is, and the line that stands for
// it in the hunks, which names the other file.
interface MovedRun {
  at: number;
  count: number;
  line: string;
}

// The moved run a line of `file` is in, if any.
function runAt(
  file: SourceFile | undefined,
  moves: Map<SourceFile, MovedRun[]>,
): (at: number) => MovedRun | undefined {
  const runs = file === undefined ? [] : (moves.get(file) ?? []);
  return (at) => runs.find((run) => at >= run.at && at < run.at + run.count);
}

// A moved run is at least this many lines holding at least this many letters and digits (git's
// own threshold for --color-moved), so a few braces or blank lines in common are no move.
const MOVED_LINES = 3;
const MOVED_CHARACTERS = 20;

// The lines that a file gone from the newer side had and a file new on it has, in runs: a file
// split in several shows its pieces as moved, not as removed and then added again. Only a deleted
// file gives lines and only an added file takes them, so a file that stays on both sides shows
// every line as git does (appendix-providers copies declarations out of model.ts, which stays).
// Import lines never move: each file has its own, and two lists that share a few names are no
// move. Each line moves once: the added files in git's order, top to bottom, each take the longest
// run still free that starts with the line they are at.
function movedRuns(
  parts: Part[],
  normalise: (file: SourceFile) => string,
): Map<SourceFile, MovedRun[]> {
  const outlines = new Map<SourceFile, Outline>();
  const outlineOf = (file: SourceFile) => {
    const found = outlines.get(file) ?? outline(file);
    outlines.set(file, found);
    return found;
  };
  const sources = parts.flatMap(({ from, to }) =>
    from !== undefined && to === undefined ? [{ file: from, lines: linesOf(normalise(from)) }] : [],
  );
  const free = sources.map((source) => {
    const { imports } = outlineOf(source.file);
    return source.lines.map((_, at) => !imports.has(at));
  });
  // Where each line of a deleted file is: the index of its file and its own.
  const where = new Map<string, [number, number][]>();
  for (const [index, source] of sources.entries()) {
    for (const [at, line] of source.lines.entries()) {
      const found = where.get(line);
      if (found === undefined) where.set(line, [[index, at]]);
      else found.push([index, at]);
    }
  }
  const pairs: { from: SourceFile; fromAt: number; to: SourceFile; toAt: number; count: number }[] =
    [];
  for (const { from, to } of parts) {
    if (from !== undefined || to === undefined) continue;
    const lines = linesOf(normalise(to));
    const { imports } = outlineOf(to);
    let at = 0;
    while (at < lines.length) {
      let best = { index: -1, start: 0, count: 0 };
      for (const [index, start] of where.get(lines[at] ?? "") ?? []) {
        const old = sources[index]?.lines ?? [];
        const open = free[index] ?? [];
        let count = 0;
        while (
          open[start + count] === true &&
          !imports.has(at + count) &&
          old[start + count] === lines[at + count]
        ) {
          count++;
        }
        if (count > best.count) best = { index, start, count };
      }
      const source = sources[best.index];
      if (source === undefined || !isMove(lines.slice(at, at + best.count))) {
        at++;
        continue;
      }
      free[best.index]?.fill(false, best.start, best.start + best.count);
      pairs.push({ from: source.file, fromAt: best.start, to, toAt: at, count: best.count });
      at += best.count;
    }
  }
  const moves = new Map<SourceFile, MovedRun[]>();
  const sides = [
    ...pairs.map((pair) => ({ file: pair.to, at: pair.toAt, pair, word: "from" })),
    ...pairs.map((pair) => ({ file: pair.from, at: pair.fromAt, pair, word: "to" })),
  ];
  for (const file of new Set(sides.map((side) => side.file))) {
    // Runs next to each other with the same file on the other side are one run to a reader.
    const runs: { at: number; count: number; other: string; word: string }[] = [];
    for (const side of sides.filter((one) => one.file === file).sort((a, b) => a.at - b.at)) {
      const other = (side.word === "from" ? side.pair.from : side.pair.to).path;
      const last = runs.at(-1);
      if (last !== undefined && last.at + last.count === side.at && last.other === other) {
        last.count += side.pair.count;
      } else {
        runs.push({ at: side.at, count: side.pair.count, other, word: side.word });
      }
    }
    const { names } = outlineOf(file);
    moves.set(
      file,
      runs.map(({ at, count, other, word }) => {
        const held = names.filter((name) => name.line >= at && name.line < at + count);
        const what = held.length === 0 ? "" : ` (${held.map((name) => name.name).join(", ")})`;
        return { at, count, line: `… ${count} lines moved ${word} ${other}${what} …` };
      }),
    );
  }
  return moves;
}

// A file's lines without the empty string after its final newline.
function linesOf(text: string): string[] {
  return text === "" ? [] : text.replace(/\n$/, "").split("\n");
}

function isMove(lines: string[]): boolean {
  const characters = lines.join("").replace(/[^A-Za-z0-9]/g, "").length;
  return lines.length >= MOVED_LINES && characters >= MOVED_CHARACTERS;
}

// What a TypeScript or JavaScript file declares at its top level, each name with the 0-based line
// its statement starts on (so a moved run can say what it holds), and the lines of its imports.
// Nothing for any other file, nor for one that does not parse (a learner's file mid-edit).
interface Outline {
  names: { name: string; line: number }[];
  imports: Set<number>;
}

function outline(file: SourceFile): Outline {
  const found: Outline = { names: [], imports: new Set() };
  if (!isCodeFile(file.path)) return found;
  let body: ReturnType<typeof parseFile>["program"]["body"];
  try {
    body = parseFile(file.text, file.path).program.body;
  } catch {
    return found;
  }
  const lineOf = (offset: number) => file.text.slice(0, offset).split("\n").length - 1;
  for (const statement of body) {
    const line = lineOf(statement.start);
    if (statement.type === "ImportDeclaration") {
      for (let at = line; at <= lineOf(statement.end); at++) found.imports.add(at);
    }
    for (const name of declaredNames(statement)) found.names.push({ name, line });
  }
  return found;
}

// What git shows after a hunk's @@: the nearest line above the hunk that starts a declaration
// (git's default rule: it begins with a letter, `_` or `$`), taken from the original text, cut at
// 80 characters and then trimmed, as git does.
function functionContext(lines: string[], hunkStart: number): string {
  for (let index = hunkStart - 1; index >= 0; index--) {
    const line = lines[index] ?? "";
    if (/^[A-Za-z_$]/.test(line)) return ` ${line.trimEnd().slice(0, 80).trimEnd()}`;
  }
  return "";
}

function header(from: string, to: string, options: StageDiffOptions): string {
  const dirs = options.tests ? "src/ and test/" : "src/";
  return `${from} (a/) -> ${to} (b/): ${dirs}${options.byDeclaration ? ", by declaration" : ""}`;
}

function renderDiff(files: FileDiff[], title: string, options: StageDiffOptions): string {
  const colour = options.colour === true;
  if (files.length === 0) return `${title}\nno differences\n`;
  const lines = [title, ...statLines(files, colour), ""];
  for (const file of files) {
    const a = file.from === undefined ? "/dev/null" : `a/${file.from}`;
    const b = file.to === undefined ? "/dev/null" : `b/${file.to}`;
    lines.push(
      paint(colour, "yellow", `diff --git a/${file.from ?? file.to} b/${file.to ?? file.from}`),
    );
    if (file.similarity !== undefined) {
      lines.push(
        ...[
          `similarity index ${file.similarity}%`,
          `rename from ${file.from}`,
          `rename to ${file.to}`,
        ].map((line) => paint(colour, "yellow", line)),
      );
    }
    if (file.note !== undefined) lines.push(paint(colour, "cyan", file.note));
    if (file.binary) {
      lines.push(`Binary files ${a} and ${b} differ`);
      continue;
    }
    // A file moved unchanged has no hunks, and git then writes no ---/+++ lines either.
    if (file.similarity !== undefined && file.hunks.length === 0) continue;
    lines.push(paint(colour, "yellow", `--- ${a}`), paint(colour, "yellow", `+++ ${b}`));
    for (const line of file.hunks) lines.push(paintHunkLine(colour, line));
  }
  return `${lines.join("\n")}\n`;
}

function paintHunkLine(colour: boolean, line: string): string {
  // A piece's header (`@@ function walk @@`) stands out; a hunk's (`@@ -1,3 +1,4 @@`) does not.
  if (/^@@ [^-]/.test(line)) return paint(colour, "cyan", line);
  if (line.startsWith("@@")) return paint(colour, "dim", line);
  if (line.startsWith("… ")) return paint(colour, "cyan", line);
  if (line.startsWith("+")) return paint(colour, "green", line);
  if (line.startsWith("-")) return paint(colour, "red", line);
  return line;
}

const BAR_WIDTH = 50;

// "1 file", "2 files": a count and its word, as git's --stat writes them.
function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

// git's --stat: one line per file with its changed lines and a +/- bar, then the totals.
function statLines(files: FileDiff[], colour: boolean): string[] {
  const names = files.map((file) =>
    file.from !== undefined && file.to !== undefined && file.from !== file.to
      ? `${file.from} => ${file.to}`
      : (file.from ?? file.to ?? ""),
  );
  const nameWidth = Math.max(...names.map((name) => name.length));
  const most = Math.max(...files.map((file) => file.added + file.removed));
  const countWidth = String(most).length;
  const scale = (count: number) =>
    most <= BAR_WIDTH || count === 0 ? count : Math.max(1, Math.round((count * BAR_WIDTH) / most));
  const lines = files.map((file, index) => {
    const name = (names[index] ?? "").padEnd(nameWidth);
    if (file.binary) return ` ${name} | Bin`;
    const count = String(file.added + file.removed).padStart(countWidth);
    const plus = "+".repeat(scale(file.added));
    const minus = "-".repeat(scale(file.removed));
    const bar = `${plus && paint(colour, "green", plus)}${minus && paint(colour, "red", minus)}`;
    const pieces = file.declarations ? ` (${plural(file.declarations, "declaration")})` : "";
    return ` ${name} | ${count} ${bar}`.trimEnd() + pieces;
  });
  const added = files.reduce((sum, file) => sum + file.added, 0);
  const removed = files.reduce((sum, file) => sum + file.removed, 0);
  const declarations = files.reduce((sum, file) => sum + (file.declarations ?? 0), 0);
  const totals = [`${plural(files.length, "file")} changed`];
  if (declarations > 0) totals.push(`${plural(declarations, "declaration")} changed`);
  if (added > 0) totals.push(`${plural(added, "insertion")}(+)`);
  if (removed > 0) totals.push(`${plural(removed, "deletion")}(-)`);
  // Each moved line is counted once, where it arrives.
  const moved = files.reduce((sum, file) => sum + (file.from === undefined ? file.moved : 0), 0);
  if (moved > 0) totals.push(`${plural(moved, "line")} moved`);
  return [...lines, ` ${totals.join(", ")}`];
}

// Lessons replayed from their pages: a lesson is one stage, its blocks are the `code:`, `diff:`,
// `delete:` and `move:` blocks of that stage on the pages, and typing them in page order into a
// copy of the base (the starter for day-1) must give the stage's src/. Each block is typed as the
// page tells a learner to: a whole file written, a diff as `git apply` applies it, a declaration
// at its placement line. docs:check replays the text (every changed line shown, no block using a
// name a later block brings, no name declared twice, every name declared or imported where it is
// used by the next checkpoint); scripts/test/docs-replay.test.ts also type-checks and runs the
// contract at each checkpoint. Decisions 0032, 0051 and 0067 have the rules.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { baseOf, ROOT, STAGES, stageDir } from "./command.ts";
import {
  declaredNames,
  extractCode,
  headEnd,
  IMPORTS,
  memberSpans,
  type Piece,
  parseFile,
  pieces,
} from "./docs-code.ts";
import type { Block, Problem } from "./docs-pages.ts";
import { compareStages, type FileDiff } from "./stage-diff.ts";

// src/ files by path relative to src/ ("agent.ts", "providers/chat.ts").
export type Files = Map<string, string>;

// A `<!-- check: <stage> <scenario>… -->` marker: the scenarios a learner runs at this point.
export interface Checkpoint {
  stage: string;
  scenarios: string[];
  file: string;
  line: number;
}

export type Step = { block: Block; file: string } | { checkpoint: Checkpoint };

export interface Lesson {
  stage: string;
  // The stage it builds on, or "starter".
  base: string;
  steps: Step[];
}

export interface LessonCoverage {
  stage: string;
  changed: number;
  shown: number;
}

export const STARTER = "starter";

// The src/ files of a stage, or of the starter.
export function stageFiles(stage: string): Files {
  const src = join(stage === STARTER ? join(ROOT, STARTER) : stageDir(stage), "src");
  const files: Files = new Map();
  for (const name of readdirSync(src, { recursive: true, encoding: "utf8" }).sort()) {
    const path = name.split("\\").join("/");
    if (path.endsWith(".ts")) files.set(path, readFileSync(join(src, path), "utf8"));
  }
  return files;
}

// The src/ files stage-diff shows as moved from one stage to the other, by path relative to src/:
// old path -> new path. The starter is no stage, and nothing moves from it.
export function stageRenames(from: string, to: string): Map<string, string> {
  return from === STARTER ? new Map() : renamesIn(compareStages(from, to));
}

function renamesIn(changes: FileDiff[]): Map<string, string> {
  const renames = new Map<string, string>();
  for (const file of changes) {
    if (file.similarity === undefined || file.from === undefined || file.to === undefined) continue;
    renames.set(file.from.replace(/^src\//, ""), file.to.replace(/^src\//, ""));
  }
  return renames;
}

// The stage a block belongs to: the stage its code comes from, or a diff's later stage.
export function blockStage(block: Block): string | undefined {
  if (block.kind === "code") return block.arg.split("/")[0];
  if (block.kind === "diff") return /^\S+\.\.(\S+)/.exec(block.arg)?.[1];
  if (block.kind === "delete" || block.kind === "move") return block.arg.split(/\s+/)[0];
  return undefined;
}

// A `<!-- move: <stage> src/<from>#<Name>,<Name>… src/<to> -->` block: declarations the learner
// moves as they are from one file to another, paths relative to src/. `#*` moves all that is left
// and deletes the file, which the stage must no longer have.
export interface Move {
  stage: string;
  from: string;
  // The names, or REST.
  names: string[] | typeof REST;
  to: string;
}

export const REST = "*";

// What REST moves: the pieces of the base's file (`from`) whose names the stage's file (`to`) has,
// by their names, in the base's order.
export function restOf(
  from: { text: string; path: string },
  to: { text: string; path: string },
): string[] {
  const kept = new Set(pieces(to.text, to.path).flatMap((piece) => piece.names));
  return pieces(from.text, from.path)
    .filter((piece) => piece.names.some((name) => kept.has(name)))
    .map((piece) => piece.name);
}

export function parseMove(arg: string): Move | undefined {
  const match = /^(\S+)\s+src\/([^#\s]+)#(\*|[\w$]+(?:,[\w$]+)*)\s+src\/(\S+)$/.exec(arg);
  if (match === null) return undefined;
  const [, stage = "", from = "", names = "", to = ""] = match;
  return { stage, from, names: names === REST ? REST : names.split(","), to };
}

// Every lesson with its steps, from the pages in the order given.
export function lessonsOf(pages: { file: string; blocks: Block[] }[]): Lesson[] {
  const lessons = new Map<string, Lesson>();
  const lesson = (stage: string) => {
    let found = lessons.get(stage);
    if (found === undefined) {
      found = { stage, base: baseOf(stage) ?? STARTER, steps: [] };
      lessons.set(stage, found);
    }
    return found;
  };
  for (const page of pages) {
    for (const block of page.blocks) {
      if (block.kind === "check") {
        const checkpoint = parseCheckpoint(block, page.file);
        if (checkpoint !== undefined) lesson(checkpoint.stage).steps.push({ checkpoint });
        continue;
      }
      const stage = blockStage(block);
      if (stage !== undefined && STAGES.includes(stage)) {
        lesson(stage).steps.push({ block, file: page.file });
      }
    }
  }
  return STAGES.flatMap((stage) => {
    const found = lessons.get(stage);
    return found === undefined ? [] : [found];
  });
}

export function parseCheckpoint(block: Block, file: string): Checkpoint | undefined {
  const [stage, ...scenarios] = block.arg.split(/\s+/).filter((word) => word !== "");
  if (stage === undefined || scenarios.length === 0) return undefined;
  return { stage, scenarios, file, line: block.line };
}

// The command a checkpoint's box shows.
// Where the pages say the course is cloned (the course map's Day 0), and the form in which a
// learner checks their own project from its folder, defined once in Day 1: every checkpoint box
// writes it so.
export const COURSE_DIR = "~/agent-code-course";
export const LEARNER_CHECK = `pnpm --dir ${COURSE_DIR} check`;

export function checkCommand(checkpoint: { stage: string; scenarios: string[] }): string {
  const only = checkpoint.scenarios.map((id) => `--only ${id}`);
  return [LEARNER_CHECK, checkpoint.stage, "--project .", ...only].join(" ");
}

// The box under a `<!-- check: … -->` marker: a GitHub alert, which the site shows as a box too.
export function checkpointBox(checkpoint: { stage: string; scenarios: string[] }): string {
  return [
    "> [!TIP]",
    `> **Checkpoint.** Stop here and check your project: \`${checkCommand(checkpoint)}\``,
  ].join("\n");
}

// Applies one block to the files; returns why it cannot be applied, if it cannot.
export function applyBlock(files: Files, block: Block): string | undefined {
  return placeBlock(files, block).error;
}

// What applying a block did: why it could not, or, for a code block, its placement line, which
// says where its code went in the files as they were just before.
export interface Applied {
  error?: string;
  placement?: string;
  // The page line the error is on, when it is not the marker's: a diff's hunk that did not apply.
  line?: number;
}

// Applies one block to the files, as applyBlock does, and says where a code block's code went.
export function placeBlock(files: Files, block: Block): Applied {
  if (block.kind === "code") return applyCode(files, block.arg);
  if (block.kind === "diff") return applyDiff(files, block);
  if (block.kind === "delete") return { error: applyDelete(files, block.arg) };
  if (block.kind === "move") return { error: applyMove(files, block.arg) };
  return {};
}

// Names in code spans as a sentence lists them: "`a`", "`a` and `b`", "`a`, `b` and `c`".
export function listNames(names: string[]): string {
  const quoted = names.map((name) => `\`${name}\``);
  return quoted.length < 2
    ? quoted.join("")
    : `${quoted.slice(0, -1).join(", ")} and ${quoted.at(-1)}`;
}

// A placement line for the code of a file that exists: "In `src/x.ts`, after `y`:".
function placedIn(path: string, where: string): string {
  return `In \`src/${path}\`, ${where}:`;
}

// How a placement line names a piece of the learner's file: a declaration by its name; a statement
// that declares nothing by how it starts, `process.exitCode = …` or `console.error(…)`.
function pieceLabel(piece: Piece): string {
  const { statement } = piece;
  if (declaredNames(statement).length > 0 || statement.type !== "ExpressionStatement") {
    return piece.name;
  }
  const { type } = statement.expression;
  if (type === "AssignmentExpression") return `${piece.name} = …`;
  return type === "CallExpression" ? `${piece.name}(…)` : piece.name;
}

// What the top of the learner's file holds, for a placement line: its imports (with the comment
// above them), only an opening comment, or nothing.
function topOf(own: string, path: string, ownPieces: Piece[]): "imports" | "comment" | undefined {
  const { body } = parseFile(own, path).program;
  if (body.some((statement) => statement.type === "ImportDeclaration")) return "imports";
  return topEnd(own, path, ownPieces) > 0 ? "comment" : undefined;
}

// Each declaration leaves its file as the learner has it and goes where the stage has it in the
// other file (as a code block's would), which is made if need be. REST moves what its line names,
// which must be all the file still holds, and deletes the file.
function applyMove(files: Files, arg: string): string | undefined {
  const move = parseMove(arg);
  const base = move === undefined ? undefined : baseOf(move.stage);
  // A marker of the wrong form is reported where its line is filled.
  if (move === undefined || base === undefined || move.from === move.to) return undefined;
  const own = files.get(move.from);
  if (own === undefined) return `there is no src/${move.from} to move from`;
  const stagePath = join(stageDir(move.stage), "src", move.to);
  if (!existsSync(stagePath)) return `${move.stage} has no src/${move.to}`;
  const stageText = readFileSync(stagePath, "utf8");
  const stagePieces = pieces(stageText, move.to);
  const ownPieces = pieces(own, move.from);
  const names =
    move.names === REST
      ? restOf(
          { text: stageFiles(base).get(move.from) ?? "", path: move.from },
          { text: stageText, path: move.to },
        )
      : move.names;
  const moving: { piece: Piece; stageName: string }[] = [];
  for (const name of names) {
    const piece = ownPieces.find((candidate) => candidate.names.includes(name));
    if (piece === undefined) return `src/${move.from} has no ${name} to move`;
    const there = stagePieces.find((candidate) => candidate.names.includes(name));
    if (there === undefined) return `${move.stage}'s src/${move.to} has no ${name}`;
    if (!moving.some((item) => item.piece === piece)) moving.push({ piece, stageName: there.name });
  }
  // In the stage's order, so that each finds the one before it already there.
  const order = (name: string) => stagePieces.findIndex((piece) => piece.name === name);
  moving.sort((a, b) => order(a.stageName) - order(b.stageName));
  let target = files.get(move.to) ?? "";
  for (const { piece, stageName } of moving) {
    const targetPieces = pieces(target, move.to);
    if (targetPieces.some((there) => there.names.some((name) => piece.names.includes(name)))) {
      return `src/${move.to} has ${piece.name} already`;
    }
    const text = own.slice(piece.from, piece.to);
    target = insertPiece(
      target,
      move.to,
      targetPieces,
      stagePieces,
      stageText,
      stageName,
      text,
    ).text;
  }
  let left = own;
  for (const { piece } of [...moving].sort((a, b) => b.piece.from - a.piece.from)) {
    left = joinParts(left.slice(0, piece.from), left.slice(piece.to));
  }
  if (move.names === REST) {
    const still = pieces(left, move.from).map((piece) => piece.name);
    if (still.length > 0) {
      return `src/${move.from} still holds ${still.join(", ")}, which ${move.stage}'s src/${move.to} does not: move or delete them before the rest`;
    }
    files.delete(move.from);
  } else {
    files.set(move.from, left);
  }
  files.set(move.to, target);
  return undefined;
}

function applyDelete(files: Files, arg: string): string | undefined {
  const [, path = "", name = ""] = /^\S+\s+src\/(\S+)#(\S+)$/.exec(arg) ?? [];
  const own = files.get(path);
  const piece =
    own === undefined
      ? undefined
      : pieces(own, path).find((candidate) => candidate.names.includes(name));
  if (own === undefined || piece === undefined) return `src/${path} has no ${name} to delete`;
  files.set(path, joinParts(own.slice(0, piece.from), own.slice(piece.to)));
  return undefined;
}

// A code block: the whole file, or one piece of it (the imports, a declaration, a statement, a
// class's member) put where the stage has it among what the learner's file already holds.
function applyCode(files: Files, arg: string): Applied {
  const match = /^([^/]+)\/src\/([^#\s]+)(?:#(\S+))?$/.exec(arg);
  if (match === null) return {};
  const [, stage = "", path = "", name] = match;
  const stageText = readFileSync(join(stageDir(stage), "src", path), "utf8");
  const isNew = !files.has(path);
  const newFile = `New file \`src/${path}\`:`;
  if (name === undefined) {
    files.set(path, stageText);
    return { placement: isNew ? newFile : `The whole of \`src/${path}\`:` };
  }
  const text = extractCode(stageText, path, name);
  const own = files.get(path) ?? "";
  const ownPieces = pieces(own, path);
  const placed = (where: string): Applied => ({
    placement: isNew ? newFile : placedIn(path, where),
  });
  if (name === IMPORTS) {
    const top = topOf(own, path, ownPieces);
    files.set(path, joinParts(text, own.slice(topEnd(own, path, ownPieces))));
    if (top === undefined) return placed("the imports at the top");
    return placed(
      top === "imports" ? "replace the imports at the top" : "replace the comment at the top",
    );
  }
  const stagePieces = pieces(stageText, path);
  const [outer = "", member] =
    name.includes(".") &&
    !stagePieces.some(
      (piece) =>
        piece.name === name &&
        piece.names.length === 1 &&
        declaredNames(piece.statement).length === 0,
    )
      ? name.split(".")
      : [name];
  if (member !== undefined) {
    const where = applyMember(files, path, own, ownPieces, stageText, outer, member, text);
    return where.error === undefined ? placed(`in \`${outer}\`, ${where.placement}`) : where;
  }
  const isStatement = stagePieces.some(
    (piece) => piece.name === name && declaredNames(piece.statement).length === 0,
  );
  // A statement replaces the one of the same name or, when there is none, the statements the
  // stage no longer has (the starter's placeholder line, say).
  const sameName = ownPieces.filter((piece) => piece.names.includes(name));
  const replaced =
    sameName.length > 0 || !isStatement
      ? sameName
      : ownPieces.filter(
          (piece) =>
            declaredNames(piece.statement).length === 0 &&
            !stagePieces.some((other) => other.name === piece.name),
        );
  if (replaced.length > 0) {
    let result = own;
    // Bottom to top; the first takes the new text, the others go.
    for (const piece of [...replaced].reverse()) {
      const value = piece === replaced[0] ? text : "";
      result =
        value === ""
          ? joinParts(result.slice(0, piece.from).replace(/\n+$/, ""), result.slice(piece.to))
          : result.slice(0, piece.from) + value + result.slice(piece.to);
    }
    files.set(path, result);
    return placed(`replace ${listNames([...new Set(replaced.map(pieceLabel))])}`);
  }
  const top = topOf(own, path, ownPieces);
  const inserted = insertPiece(own, path, ownPieces, stagePieces, stageText, name, text);
  files.set(path, inserted.text);
  if (inserted.after !== undefined)
    return placed(`after ${listNames([pieceLabel(inserted.after)])}`);
  if (top === undefined) return placed("at the top");
  return placed(top === "imports" ? "below the imports" : "below the comment at the top");
}

// Inserts after the nearest piece that comes before it in the stage and is already there; or
// after the file's top when none is. The blank lines around it are the stage's. Returns the file
// and the piece of the file it went after, if any.
function insertPiece(
  own: string,
  path: string,
  ownPieces: Piece[],
  stagePieces: Piece[],
  stageText: string,
  name: string,
  text: string,
): { text: string; after?: Piece } {
  const index = stagePieces.findIndex((piece) => piece.name === name);
  const piece = stagePieces[index];
  const gap = (from: number, to: number) => {
    const between = stageText.slice(from, to);
    return /^\n+$/.test(between) ? between.length - 1 : 1;
  };
  const next = stagePieces[index + 1];
  const after = piece !== undefined && next !== undefined ? gap(piece.to, next.from) : 1;
  for (const earlier of stagePieces.slice(0, Math.max(0, index)).reverse()) {
    const there = ownPieces.find((candidate) => candidate.name === earlier.name);
    if (there === undefined) continue;
    const before = piece === undefined ? 1 : gap(earlier.to, piece.from);
    const head = joinParts(own.slice(0, there.to), text, before);
    return { text: joinParts(head, own.slice(there.to), after), after: there };
  }
  const end = topEnd(own, path, ownPieces);
  return { text: joinParts(joinParts(own.slice(0, end), text), own.slice(end), after) };
}

// Where a file's top (its opening comment and imports) ends; never inside its first piece, whose
// comment lines are its own: a file a move made holds no top until a code block shows it.
function topEnd(own: string, path: string, ownPieces: Piece[]): number {
  const end = headEnd(own, parseFile(own, path).program.body);
  const first = ownPieces[0];
  return first === undefined ? end : Math.min(end, first.from);
}

// A class's or an interface's member: it replaces the member of that name, or goes after the
// nearest member before it in the stage, or first. Its placement says which, within the holder.
function applyMember(
  files: Files,
  path: string,
  own: string,
  ownPieces: Piece[],
  stageText: string,
  outer: string,
  member: string,
  text: string,
): Applied {
  const holder = ownPieces.find((piece) => piece.names.includes(outer));
  if (holder === undefined)
    return { error: `${path} has no ${outer} yet for its member ${member}` };
  const { comments } = parseFile(own, path);
  const ownMembers = memberSpans(own, holder.statement, comments);
  const stageParsed = parseFile(stageText, path);
  const stageHolder = stageParsed.program.body.find((statement) =>
    declaredNames(statement).includes(outer),
  );
  const stageMembers =
    stageHolder === undefined ? [] : memberSpans(stageText, stageHolder, stageParsed.comments);
  const stageMember = stageMembers.find((candidate) => candidate.name === member);
  const indent =
    stageMember === undefined
      ? "  "
      : (/^[ \t]*/.exec(stageText.slice(stageMember.start))?.[0] ?? "");
  const indented = text
    .split("\n")
    .map((line) => (line === "" ? line : indent + line))
    .join("\n");
  const there = ownMembers.find((candidate) => candidate.name === member);
  if (there !== undefined) {
    files.set(path, own.slice(0, there.start) + indented + own.slice(there.end));
    return { placement: `replace \`${member}\`` };
  }
  const index = stageMembers.findIndex((candidate) => candidate.name === member);
  for (const earlier of stageMembers.slice(0, Math.max(0, index)).reverse()) {
    const found = ownMembers.find((candidate) => candidate.name === earlier.name);
    if (found !== undefined) {
      files.set(path, `${own.slice(0, found.end)}\n\n${indented}${own.slice(found.end)}`);
      return { placement: `after \`${found.name}\`` };
    }
  }
  const open = own.indexOf("{", holder.statement.start);
  const after = own.indexOf("\n", open);
  files.set(
    path,
    `${own.slice(0, after + 1)}${indented}\n${ownMembers.length > 0 ? "\n" : ""}${own.slice(after + 1)}`,
  );
  return { placement: "at the top" };
}

// Two parts of a file with blank lines (one unless told) between them, or a file's end.
function joinParts(before: string, after: string, blank = 1): string {
  const head = before.replace(/\n+$/, "");
  const tail = after.replace(/^\n+/, "");
  if (head === "") return tail;
  return tail === "" ? `${head}\n` : `${head}\n${"\n".repeat(blank)}${tail}`;
}

// A `diff:` block names two stages and maybe one file: `day-2-v2..day-2-v3 src/cli.ts`.
export function parseDiffArg(
  arg: string,
): { from: string; to: string; only: string | undefined } | undefined {
  const match = /^(\S+)\.\.(\S+)(?:\s+(\S+))?$/.exec(arg);
  if (match === null) return undefined;
  const [, from = "", to = "", only] = match;
  return { from, to, only };
}

// A diff of a whole stage, no file named: the lesson at once, for reading or for a learner who
// skips the typing ("All four answers"). The replay does not type it after the blocks above it.
export function isWholeStageDiff(block: Block): boolean {
  return block.kind === "diff" && parseDiffArg(block.arg)?.only === undefined;
}

// One file's part of a diff as the page prints it: its path on each side ("src/…", undefined
// where the file does not exist) and its hunks' lines, headers included.
export interface FilePatch {
  from: string | undefined;
  to: string | undefined;
  hunks: string[];
}

// Why a diff did not apply: which hunk (1-based, in its file's part), the header the page prints
// for it, and what went wrong.
export interface PatchFailure {
  message: string;
  hunk?: { path: string; index: number; header: string };
}

// One file's part of a stage diff, as the page shows it: the part of `only` ("src/<path>"),
// found by either of its paths as its header names both.
export function stagePatch(from: string, to: string, only: string): FilePatch[] {
  return compareStages(from, to).filter((file) => file.from === only || file.to === only);
}

// A diff block typed as `git apply` applies it: its file diff from the lesson's base (a diff of
// one file from any other stage is no part of a lesson).
function applyDiff(files: Files, block: Block): Applied {
  const diff = parseDiffArg(block.arg);
  if (diff === undefined || !STAGES.includes(diff.from) || !STAGES.includes(diff.to)) return {};
  // Shown for reading: see isWholeStageDiff.
  if (diff.only === undefined) return {};
  if (baseOf(diff.to) !== diff.from) {
    return {
      error: `is a diff from ${diff.from}, which is not ${diff.to}'s base (${baseOf(diff.to) ?? "none"}): a lesson is typed onto its base`,
    };
  }
  const failure = applyPatch(files, stagePatch(diff.from, diff.to, diff.only));
  if (failure === undefined) return {};
  return { error: failure.message, line: hunkLine(block, failure) };
}

// The page line of the hunk that failed: its header in the block, or the marker's line.
function hunkLine(block: Block, failure: PatchFailure): number | undefined {
  if (failure.hunk === undefined) return undefined;
  const lines = block.content.split("\n");
  let part = -1;
  let index = 0;
  for (const [at, line] of lines.entries()) {
    if (line.startsWith("diff --git ")) {
      part = line.endsWith(` b/${failure.hunk.path}`) ? 0 : -1;
      index = 0;
    } else if (part === 0 && line.startsWith("@@ ")) {
      index++;
      // The content starts on the line after the opening fence, `from` (0-based).
      if (index === failure.hunk.index) return block.from + at + 1;
    }
  }
  return undefined;
}

// The file parts typed into `files` as `git apply` types them, all or nothing: each hunk's context
// and removed lines must be in the file exactly, found nearest where its header says (earlier
// hunks shift the rest); a hunk at the file's start must match there, and one with no context
// after its change must match at the file's end. A new file must not exist yet, a deleted one must
// be exactly the diff's, and a renamed one moves. Nothing is skipped because it is there already:
// a learner who typed a hunk's lines from a code block meets a hunk that no longer applies.
export function applyPatch(files: Files, patch: FilePatch[]): PatchFailure | undefined {
  const next: Files = new Map(files);
  for (const part of patch) {
    const from = part.from?.replace(/^src\//, "");
    const to = part.to?.replace(/^src\//, "");
    const shown = `src/${to ?? from}`;
    const own = from === undefined ? undefined : next.get(from);
    if (from === undefined) {
      if (to !== undefined && next.has(to)) {
        return { message: `makes ${shown}, which the page has made already` };
      }
    } else if (own === undefined) {
      return { message: `changes src/${from}, which the page has not made` };
    } else if (to !== undefined && to !== from && next.has(to)) {
      return { message: `moves src/${from} to ${shown}, which the page has made already` };
    }
    let lines = splitLines(own ?? "");
    for (const [index, hunk] of parseHunks(part.hunks).entries()) {
      const failed = (why: string): PatchFailure => ({
        message: `does not apply: hunk ${index + 1} of ${shown} (${hunk.header}) ${why}`,
        hunk: { path: shown, index: index + 1, header: hunk.header },
      });
      if (hunk.unreadable !== undefined) {
        return failed(`holds a line git apply cannot read: ${JSON.stringify(hunk.unreadable)}`);
      }
      const at = findHunk(lines, hunk);
      if (at === -1) {
        return failed(
          "does not match your file: its context and removed lines are not there as the page built it",
        );
      }
      lines = [...lines.slice(0, at), ...hunk.after, ...lines.slice(at + hunk.before.length)];
    }
    if (from !== undefined) next.delete(from);
    if (to === undefined) {
      if (lines.length > 0) {
        return { message: `deletes src/${from}, which still holds lines the diff does not show` };
      }
    } else {
      next.set(to, lines.join(""));
    }
  }
  files.clear();
  for (const [path, text] of next) files.set(path, text);
  return undefined;
}

interface Hunk {
  header: string;
  // 1-based, as the header says; 0 for an empty side.
  oldStart: number;
  newStart: number;
  // The lines the file must hold and the lines it then holds, each with its newline (the last
  // line of a file without one, without).
  before: string[];
  after: string[];
  // Unchanged lines before the first change and after the last.
  leading: number;
  trailing: number;
  // A line that is neither context, removed, added nor "\ No newline at end of file".
  unreadable?: string;
}

function parseHunks(lines: string[]): Hunk[] {
  const result: Hunk[] = [];
  let hunk: Hunk | undefined;
  // Where each side's last line went, for "\ No newline at end of file".
  let last: { side: string[]; index: number }[] = [];
  let changed = false;
  for (const line of lines) {
    const header = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (header !== null) {
      hunk = {
        header: line,
        oldStart: Number(header[1]),
        newStart: Number(header[2]),
        before: [],
        after: [],
        leading: 0,
        trailing: 0,
      };
      result.push(hunk);
      changed = false;
      last = [];
      continue;
    }
    if (hunk === undefined) continue;
    const text = `${line.slice(1)}\n`;
    const kind = line[0];
    if (kind === " ") {
      hunk.before.push(text);
      hunk.after.push(text);
      last = [
        { side: hunk.before, index: hunk.before.length - 1 },
        { side: hunk.after, index: hunk.after.length - 1 },
      ];
      if (changed) hunk.trailing++;
      else hunk.leading++;
    } else if (kind === "-" || kind === "+") {
      const side = kind === "-" ? hunk.before : hunk.after;
      side.push(text);
      last = [{ side, index: side.length - 1 }];
      changed = true;
      hunk.trailing = 0;
    } else if (line.startsWith("\\")) {
      for (const { side, index } of last) side[index] = (side[index] ?? "").replace(/\n$/, "");
    } else {
      hunk.unreadable ??= line;
    }
  }
  return result;
}

// Where git apply puts a hunk: the match nearest the line its header gives on the new side (where
// the earlier hunks moved it), looking forward first; -1 when there is none.
function findHunk(lines: string[], hunk: Hunk): number {
  const matches = (at: number) =>
    at >= 0 &&
    at + hunk.before.length <= lines.length &&
    hunk.before.every((line, index) => lines[at + index] === line);
  const atStart = hunk.oldStart <= 1;
  const atEnd = hunk.trailing === 0;
  if (atStart || atEnd) {
    const at = atStart ? 0 : lines.length - hunk.before.length;
    const fits = matches(at) && (!atStart || !atEnd || at + hunk.before.length === lines.length);
    return fits ? at : -1;
  }
  const near = Math.min(Math.max(hunk.newStart - 1, 0), lines.length);
  for (let distance = 0; distance <= lines.length; distance++) {
    if (matches(near + distance)) return near + distance;
    if (distance > 0 && matches(near - distance)) return near - distance;
  }
  return -1;
}

// A file's lines, each with its newline (the last without one when the file has none).
function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

interface Op {
  kind: "same" | "add" | "remove";
  line: string;
  // The line's index in a (for same and remove).
  a: number;
}

// A longest-common-subsequence line diff: small files, so the quadratic table is fine.
export function lineDiff(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const table = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    const row = table[i] as Uint32Array;
    const below = table[i + 1] as Uint32Array;
    for (let j = m - 1; j >= 0; j--) {
      row[j] = a[i] === b[j] ? (below[j + 1] ?? 0) + 1 : Math.max(below[j] ?? 0, row[j + 1] ?? 0);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ kind: "same", line: a[i] ?? "", a: i });
      i++;
      j++;
    } else if (j < m && (i === n || (table[i]?.[j + 1] ?? 0) >= (table[i + 1]?.[j] ?? 0))) {
      ops.push({ kind: "add", line: b[j] ?? "", a: i });
      j++;
    } else {
      ops.push({ kind: "remove", line: a[i] ?? "", a: i });
      i++;
    }
  }
  return ops;
}

// Lines added or removed between two sets of files. A file renamed (old path -> new path in
// `renames`) that `a` holds at its old path only and `b` at its new path only counts as one file,
// by the lines its move changed: the count stage-stats takes from stage-diff.
export function changedLines(a: Files, b: Files, renames = new Map<string, string>()): number {
  const pairs = new Map<string, string>();
  for (const [oldPath, path] of renames) {
    if (a.has(oldPath) && !a.has(path) && b.has(path) && !b.has(oldPath)) pairs.set(oldPath, path);
  }
  const moved = new Set(pairs.values());
  let count = 0;
  for (const path of new Set([...a.keys(), ...b.keys()])) {
    if (moved.has(path)) continue;
    const left = a.get(path);
    const right = b.get(pairs.get(path) ?? path);
    if (left === right) continue;
    const ops = lineDiff(
      left === undefined ? [] : left.split("\n"),
      right === undefined ? [] : right.split("\n"),
    );
    count += ops.filter((op) => op.kind !== "same").length;
  }
  return count;
}

// The names a piece of code uses that are declared at the top level of some file.
export function usedNames(text: string, file: string): Set<string> {
  const { program } = parseFile(text, file);
  const used = new Set<string>();
  const bound = new Set<string>();
  visit(program, undefined, undefined, used, bound);
  for (const name of bound) used.delete(name);
  return used;
}

const NOT_REFERENCES: Record<string, string[]> = {
  MemberExpression: ["property"],
  Property: ["key"],
  PropertyDefinition: ["key"],
  MethodDefinition: ["key"],
  TSPropertySignature: ["key"],
  TSMethodSignature: ["key"],
  ImportSpecifier: ["imported"],
  TSQualifiedName: ["right"],
  TSEnumMember: ["id"],
  LabeledStatement: ["label"],
  BreakStatement: ["label"],
  ContinueStatement: ["label"],
};

const BINDINGS: Record<string, string[]> = {
  VariableDeclarator: ["id"],
  FunctionDeclaration: ["params"],
  FunctionExpression: ["params"],
  ArrowFunctionExpression: ["params"],
  CatchClause: ["param"],
  TSTypeParameter: ["name"],
  // The parameters of a signature with no body name nothing the file uses:
  // `complete(messages: Message[], options?: CompleteOptions)` in an interface.
  TSMethodSignature: ["params"],
  TSCallSignatureDeclaration: ["params"],
  TSConstructSignatureDeclaration: ["params"],
  TSFunctionType: ["params"],
  TSConstructorType: ["params"],
  TSDeclareFunction: ["params"],
  TSEmptyBodyFunctionExpression: ["params"],
};

function visit(
  node: unknown,
  parent: string | undefined,
  key: string | undefined,
  used: Set<string>,
  bound: Set<string>,
  binding = false,
): void {
  if (Array.isArray(node)) {
    for (const item of node) visit(item, parent, key, used, bound, binding);
    return;
  }
  if (node === null || typeof node !== "object") return;
  const record = node as Record<string, unknown> & { type?: string };
  const type = record.type;
  if (type === "Identifier" && typeof record.name === "string") {
    if (binding) bound.add(record.name);
    else if (!(parent !== undefined && key !== undefined && NOT_REFERENCES[parent]?.includes(key)))
      used.add(record.name);
  }
  for (const [field, value] of Object.entries(record)) {
    if (field === "type" || field === "start" || field === "end") continue;
    const isBinding =
      binding ||
      (type !== undefined && BINDINGS[type]?.includes(field) === true) ||
      (type === "TSTypeParameter" && field === "name");
    // A computed key or member is a reference after all.
    const skipComputed =
      (record as { computed?: boolean }).computed === true &&
      (field === "property" || field === "key");
    visit(
      value,
      skipComputed ? undefined : type,
      field,
      used,
      bound,
      isBinding &&
        field !== "typeAnnotation" &&
        field !== "init" &&
        field !== "right" &&
        field !== "default",
    );
  }
}

// Every top-level name the files declare.
// The names the stage's declarations of `name` use, in every file that declares it.
function declarationUses(files: Files, name: string): Set<string> {
  const uses = new Set<string>();
  for (const [path, text] of files) {
    try {
      for (const piece of pieces(text, path)) {
        if (!piece.names.includes(name)) continue;
        for (const used of usedNames(text.slice(piece.from, piece.to), path)) uses.add(used);
      }
    } catch {
      // A file that does not parse declares nothing a block could name.
    }
  }
  return uses;
}

export function declaredIn(files: Files): Set<string> {
  const names = new Set<string>();
  for (const [path, text] of files) {
    for (const name of outlineOf(text, path)?.declared.keys() ?? []) names.add(name);
  }
  return names;
}

// What the checks below need of one file: how many top-level statements declare each name, what
// it imports (local name -> the module and the name there), and the names it uses. Undefined for a
// file that does not parse. Kept by text: most files do not change from one block to the next.
interface Outline {
  declared: Map<string, number>;
  imports: Map<string, { source: string; imported: string | undefined }>;
  used: Set<string>;
}

const outlines = new Map<string, Outline | undefined>();

function outlineOf(text: string, path: string): Outline | undefined {
  const key = `${path}\0${text}`;
  if (outlines.has(key)) return outlines.get(key);
  let found: Outline | undefined;
  try {
    const declared = new Map<string, number>();
    for (const piece of pieces(text, path)) {
      if (declaredNames(piece.statement).length === 0) continue;
      for (const name of piece.names) declared.set(name, (declared.get(name) ?? 0) + 1);
    }
    const imports = new Map<string, { source: string; imported: string | undefined }>();
    for (const statement of parseFile(text, path).program.body) {
      if (statement.type !== "ImportDeclaration") continue;
      for (const specifier of statement.specifiers) {
        const imported =
          specifier.type === "ImportSpecifier" && specifier.imported.type === "Identifier"
            ? specifier.imported.name
            : undefined;
        imports.set(specifier.local.name, { source: statement.source.value, imported });
      }
    }
    found = { declared, imports, used: usedNames(text, path) };
  } catch {
    found = undefined;
  }
  if (outlines.size > 2000) outlines.clear();
  outlines.set(key, found);
  return found;
}

// What a learner's editor would say of the files, as keys ("use X", "import X src/y.ts", "twice
// X") by file: a name used that the file neither declares nor imports (among the names the stage
// or its base declares anywhere, or imports in that file), an import of a name the imported file
// does not declare, a name declared more often than the stage or its base declares it there (a
// second `function withNotes`), a file that does not parse.
// `known` gives the names that count in a file, `allowed` how many statements may declare a name
// there: one, or more where the stage or its base has more (overloads, an interface and a const of
// one name).
function editorProblems(
  files: Files,
  known: (path: string) => Set<string>,
  allowed: (path: string, name: string) => number,
): Map<string, string[]> {
  const result = new Map<string, string[]>();
  for (const [path, text] of files) {
    const own = outlineOf(text, path);
    if (own === undefined) {
      result.set(path, ["parse"]);
      continue;
    }
    const found: string[] = [];
    const names = known(path);
    for (const name of own.used) {
      if (names.has(name) && !own.declared.has(name) && !own.imports.has(name)) {
        found.push(`use ${name}`);
      }
    }
    for (const [local, { source, imported }] of own.imports) {
      if (!source.startsWith(".")) continue;
      const target = posix.normalize(posix.join(posix.dirname(path), source));
      const there = files.get(target);
      if (there === undefined) {
        found.push(`import ${local} ${target}`);
        continue;
      }
      const theirs = outlineOf(there, target);
      if (imported !== undefined && theirs !== undefined && !theirs.declared.has(imported)) {
        found.push(`import ${imported} ${target}`);
      }
    }
    for (const [name, count] of own.declared) {
      if (count > 1 && count > allowed(path, name)) found.push(`twice ${name}`);
    }
    if (found.length > 0) result.set(path, found);
  }
  return result;
}

// What a block shows, as code, for its name check: a code block's text. (What a diff or a move
// brings is checked file by file, by editorProblems.)
function shownCode(block: Block): { text: string; file: string }[] {
  if (block.kind === "code") {
    const match = /^([^/]+)\/src\/([^#\s]+)(?:#(\S+))?$/.exec(block.arg);
    if (match === null) return [];
    const [, stage = "", path = "", name] = match;
    const stageText = readFileSync(join(stageDir(stage), "src", path), "utf8");
    if (name === undefined) return [{ text: stageText, file: path }];
    const text = extractCode(stageText, path, name);
    // A member alone does not parse: wrap it in a class.
    const statement = pieces(stageText, path).some((piece) => piece.name === name);
    const wrapped = name.includes(".") && !statement ? `class __Member {\n${text}\n}` : text;
    return [{ text: wrapped, file: path }];
  }
  return [];
}

// One of editorProblems' keys in the words of a problem line; `until` says when the learner
// meets it (the checkpoint or the lesson's end).
function describe(path: string, key: string, files: Files, until: string): string {
  const [kind = "", name = "", target = ""] = key.split(" ");
  if (kind === "parse") return `leaves src/${path} in a state that does not parse ${until}`;
  if (kind === "twice") {
    return `declares ${name} a second time in src/${path}, which has it already: a learner gets a duplicate declaration; the page must replace it, not add it again`;
  }
  if (kind === "import") {
    return files.has(target)
      ? `imports ${name} from src/${target}, which does not declare it ${until}`
      : `imports from src/${target}, which the page has not made ${until}`;
  }
  return `uses ${name} in src/${path}, which the page does not declare or import there ${until}`;
}

// A whole-stage diff is not typed (isWholeStageDiff); from its lesson's base it must still give
// the stage when applied as git apply applies it. One carried from another stage is checked by
// docs:check against `pnpm stage-diff --carried` only.
function wholeDiffProblem(block: Block): string | undefined {
  const diff = parseDiffArg(block.arg);
  if (diff === undefined || baseOf(diff.to) !== diff.from) return undefined;
  const files = stageFiles(diff.from);
  const failure = applyPatch(files, compareStages(diff.from, diff.to));
  if (failure !== undefined) return failure.message;
  const stage = stageFiles(diff.to);
  const same =
    files.size === stage.size && [...stage].every(([path, text]) => files.get(path) === text);
  return same ? undefined : `does not give ${diff.to}'s src/ when applied to ${diff.from}'s`;
}

// Replays a lesson's text as a learner types it: the files it ends with, the problems on the way
// (a block that does not apply, a name used before the page declares or imports it, a name
// declared twice), its coverage, and where each code block's code goes, computed before the block
// applies.
export function replayLesson(lesson: Lesson): {
  files: Files;
  problems: Problem[];
  coverage: LessonCoverage;
  // The files at each checkpoint, in order.
  checkpoints: { checkpoint: Checkpoint; files: Files }[];
  // Each code block that applied, with its placement line.
  placements: Map<Block, string>;
} {
  const files = stageFiles(lesson.base);
  const base = stageFiles(lesson.base);
  const target = stageFiles(lesson.stage);
  const everywhere = new Set([...declaredIn(target), ...declaredIn(base)]);
  const known = (path: string) => {
    const names = new Set(everywhere);
    for (const side of [target, base]) {
      const text = side.get(path);
      const outline = text === undefined ? undefined : outlineOf(text, path);
      for (const name of outline?.imports.keys() ?? []) names.add(name);
    }
    return names;
  };
  const allowed = (path: string, name: string) =>
    Math.max(
      1,
      ...[target, base].map((side) => {
        const text = side.get(path);
        return text === undefined ? 0 : (outlineOf(text, path)?.declared.get(name) ?? 0);
      }),
    );
  const problems: Problem[] = [];
  const checkpoints: { checkpoint: Checkpoint; files: Files }[] = [];
  const placements = new Map<Block, string>();
  // Each problem a learner's editor would show, by file and key, with the block that brought it:
  // a repeated declaration fails at once; a name not declared or imported where it is used fails
  // when it is still so where the page has the learner compile (a checkpoint, the lesson's end).
  const open = new Map<string, { path: string; key: string; at: Problem; marker: string }>();
  const reported = new Set<string>();
  const settle = (until: string) => {
    for (const [id, { path, key, at, marker }] of open) {
      if (reported.has(id)) continue;
      reported.add(id);
      problems.push({ ...at, message: `${marker} ${describe(path, key, files, until)}` });
    }
  };
  const track = (at: Problem, marker: string) => {
    const now = editorProblems(files, known, allowed);
    const ids = new Set<string>();
    for (const [path, keys] of now) {
      for (const key of keys) {
        const id = `${path} ${key}`;
        ids.add(id);
        if (open.has(id)) continue;
        open.set(id, { path, key, at, marker });
        if (key.startsWith("twice ")) {
          reported.add(id);
          problems.push({ ...at, message: `${marker} ${describe(path, key, files, "")}` });
        }
      }
    }
    for (const id of open.keys()) {
      if (!ids.has(id)) {
        open.delete(id);
        reported.delete(id);
      }
    }
  };
  for (const step of lesson.steps) {
    if ("checkpoint" in step) {
      checkpoints.push({ checkpoint: step.checkpoint, files: new Map(files) });
      settle(`by the checkpoint on ${step.checkpoint.file}:${step.checkpoint.line}`);
      continue;
    }
    const { block, file } = step;
    const at = { file, line: block.line, message: "" };
    const marker = `<!-- ${block.kind}: ${block.arg} -->`;
    if (isWholeStageDiff(block)) {
      const why = wholeDiffProblem(block);
      if (why !== undefined) problems.push({ ...at, message: `${marker} ${why}` });
      else {
        // The learner who applies it has the lesson's stage from here on.
        files.clear();
        for (const [path, text] of target) files.set(path, text);
      }
      track(at, marker);
      continue;
    }
    let applied: Applied;
    try {
      applied = placeBlock(files, block);
    } catch (error) {
      applied = { error: (error as Error).message };
    }
    if (applied.placement !== undefined) placements.set(block, applied.placement);
    if (applied.error !== undefined) {
      problems.push({
        file,
        line: applied.line ?? block.line,
        message: `${marker} ${applied.error}`,
      });
      continue;
    }
    // A name the block's own code uses that no file declares yet: two blocks swapped.
    const declared = declaredIn(files);
    for (const shown of shownCode(block)) {
      let used: Set<string>;
      try {
        used = usedNames(shown.text, shown.file);
      } catch {
        continue;
      }
      // Two declarations that use each other (types may) cannot both come first: the one shown
      // first may name the other, which names it back.
      const own = new Set(outlineOf(shown.text, shown.file)?.declared.keys() ?? []);
      const missing = [...used].filter(
        (name) =>
          everywhere.has(name) &&
          !declared.has(name) &&
          ![...declarationUses(target, name)].some((back) => own.has(back)),
      );
      if (missing.length > 0) {
        problems.push({
          ...at,
          message: `${marker} uses ${missing.join(", ")}, which ${lesson.stage}'s page shows only later`,
        });
      }
    }
    track(at, marker);
  }
  settle("by the lesson's end");
  // A move counts by the lines it changes, as stage-stats counts it: a renamed file by its edits,
  // and the runs stage-diff shows moved from a deleted file into an added one not at all (each was
  // counted twice, out and in). What is left is counted path by path: a file the page has not
  // moved yet counts in full at both paths, and a declaration no move block carried counts where
  // it is missing and where it is still, so a move no block shows is never covered.
  const changes = lesson.base === STARTER ? [] : compareStages(lesson.base, lesson.stage);
  const changed =
    changedLines(stageFiles(lesson.base), target, renamesIn(changes)) -
    changes.reduce((sum, file) => sum + file.moved, 0);
  const left = changedLines(files, target);
  return {
    files,
    problems,
    checkpoints,
    placements,
    coverage: { stage: lesson.stage, changed, shown: Math.max(0, changed - left) },
  };
}

export function starterExists(): boolean {
  return existsSync(join(ROOT, STARTER, "src"));
}

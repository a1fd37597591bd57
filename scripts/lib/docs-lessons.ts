// Lessons replayed from their pages: a lesson is one stage, its blocks are the `code:`, `diff:`,
// `delete:` and `move:` blocks of that stage on the pages, and typing them in page order into a
// copy of the base (the starter for day-1) must give the stage's src/. docs:check replays the
// text (every changed line shown, no block using a name a later block brings);
// scripts/test/docs-replay.test.ts also type-checks and runs the contract at each checkpoint.
// Decisions 0032 and 0051 have the rules.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
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
}

// Applies one block to the files, as applyBlock does, and says where a code block's code went.
export function placeBlock(files: Files, block: Block): Applied {
  if (block.kind === "code") return applyCode(files, block.arg);
  if (block.kind === "diff") return { error: applyDiff(files, block.arg) };
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

// A stage diff (or one file's part). A diff from a stage that is not the lesson's base (a
// challenge's answers carried onto the stage the learner arrives from) holds the same changes as
// the one from the base, since it merged cleanly; the replay, which types the lesson onto its
// base, types them from there.
function applyDiff(files: Files, arg: string): string | undefined {
  const [, given = "", to = "", only] = /^(\S+)\.\.(\S+)(?:\s+(\S+))?$/.exec(arg) ?? [];
  if (!STAGES.includes(given) || !STAGES.includes(to)) return undefined;
  const from = baseOf(to) ?? given;
  return applyChanges(files, stageFiles(from), stageFiles(to), stageRenames(from, to), only);
}

// The changes from `before` to `after` typed into `files` (all of them, or only those of the file
// `only`, "src/<path>"): each hunk's old lines are found in the file and replaced by its new lines;
// a hunk whose new lines are already there (a code block showed them) is skipped. A renamed file
// (old path -> new path in `renames`) is one change, as its diff shows it, named by either path:
// its hunks apply to the file at its old path, or at its new one if a block moved it already.
export function applyChanges(
  files: Files,
  before: Files,
  after: Files,
  renames: Map<string, string>,
  only?: string,
): string | undefined {
  const moved = new Set(renames.values());
  const changes = [...new Set([...before.keys(), ...after.keys()])]
    .filter((path) => !renames.has(path) && !moved.has(path))
    .map((path) => [path, path] as const);
  changes.push(...renames);
  changes.sort(([, a], [, b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [oldPath, path] of changes) {
    if (only !== undefined && `src/${oldPath}` !== only && `src/${path}` !== only) continue;
    const old = before.get(oldPath);
    const next = after.get(path);
    if (old === next && oldPath === path) continue;
    if (next === undefined) {
      files.delete(oldPath);
      continue;
    }
    const own = files.get(oldPath) ?? files.get(path);
    if (old === undefined || own === undefined) {
      if (oldPath !== path) files.delete(oldPath);
      files.set(path, next);
      continue;
    }
    // Hunks as git makes them first; then each change on its own, for a file where code blocks
    // already showed some of a hunk's changes.
    let applied: string | { at: number } = { at: 0 };
    for (const [merge, context] of [
      [6, 3],
      [0, 2],
      [0, 1],
    ] as const) {
      const attempt = applyHunks(own, hunks(old.split("\n"), next.split("\n"), merge, context));
      if (typeof applied !== "string") applied = attempt;
      if (typeof attempt === "string") break;
    }
    if (typeof applied !== "string") {
      return `its change to src/${path} near line ${applied.at + 1} does not apply to what the page built so far`;
    }
    if (oldPath !== path) files.delete(oldPath);
    files.set(path, applied);
  }
  return undefined;
}

// The text with every hunk applied; or, when one does not apply, the first of those.
function applyHunks(own: string, list: Hunk[]): string | { at: number } {
  let lines = own.split("\n");
  let failed: Hunk | undefined;
  for (const hunk of list) {
    // Already there: a code block showed it.
    if (findLines(lines, hunk.new, hunk.at) !== -1) continue;
    const at = findLines(lines, hunk.old, hunk.at);
    if (at !== -1) {
      lines = [...lines.slice(0, at), ...hunk.new, ...lines.slice(at + hunk.old.length)];
      continue;
    }
    failed ??= hunk;
  }
  return failed === undefined ? lines.join("\n") : { at: failed.at };
}

function findLines(lines: string[], wanted: string[], near: number): number {
  let best = -1;
  for (let at = 0; at + wanted.length <= lines.length; at++) {
    if (wanted.every((line, index) => lines[at + index] === line)) {
      if (best === -1 || Math.abs(at - near) < Math.abs(best - near)) best = at;
    }
  }
  return best;
}

interface Hunk {
  at: number;
  old: string[];
  new: string[];
}

// The hunks that turn `a` into `b`, with up to `context` lines around each change, changes at most
// `merge` unchanged lines apart making one hunk.
function hunks(a: string[], b: string[], merge: number, context: number): Hunk[] {
  const ops = lineDiff(a, b);
  const result: Hunk[] = [];
  let index = 0;
  while (index < ops.length) {
    if (ops[index]?.kind === "same") {
      index++;
      continue;
    }
    let start = index;
    let end = index;
    // Extend over changes separated by at most six unchanged lines.
    for (;;) {
      while (end < ops.length && ops[end]?.kind !== "same") end++;
      let gap = end;
      while (gap < ops.length && ops[gap]?.kind === "same") gap++;
      if (gap < ops.length && gap - end <= merge) {
        end = gap;
        continue;
      }
      break;
    }
    let around = 0;
    while (start > 0 && ops[start - 1]?.kind === "same" && around < context) {
      start--;
      around++;
    }
    let stop = end;
    around = 0;
    while (stop < ops.length && ops[stop]?.kind === "same" && around < context) {
      stop++;
      around++;
    }
    const part = ops.slice(start, stop);
    result.push({
      at: part.find((op) => op.kind !== "add")?.a ?? 0,
      old: part.filter((op) => op.kind !== "add").map((op) => op.line),
      new: part.filter((op) => op.kind !== "remove").map((op) => op.line),
    });
    index = stop;
  }
  return result;
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
export function declaredIn(files: Files): Set<string> {
  const names = new Set<string>();
  for (const [path, text] of files) {
    for (const piece of safePieces(text, path)) for (const name of piece.names) names.add(name);
  }
  return names;
}

function safePieces(text: string, path: string): Piece[] {
  try {
    return pieces(text, path);
  } catch {
    return [];
  }
}

// What a block shows, as code, for its name check: a code block's text; for a diff, the new
// stage's pieces that its added lines touch.
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

// Replays a lesson's text: the files it ends with, the problems on the way (a block that does not
// apply, a block that uses a name only a later block brings), its coverage, and where each code
// block's code goes, computed before the block applies.
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
  const target = stageFiles(lesson.stage);
  const targetNames = declaredIn(target);
  const baseNames = declaredIn(files);
  const problems: Problem[] = [];
  const checkpoints: { checkpoint: Checkpoint; files: Files }[] = [];
  const placements = new Map<Block, string>();
  for (const step of lesson.steps) {
    if ("checkpoint" in step) {
      checkpoints.push({ checkpoint: step.checkpoint, files: new Map(files) });
      continue;
    }
    const { block, file } = step;
    const at = { file, line: block.line };
    let why: string | undefined;
    try {
      const applied = placeBlock(files, block);
      why = applied.error;
      if (applied.placement !== undefined) placements.set(block, applied.placement);
    } catch (error) {
      why = (error as Error).message;
    }
    if (why !== undefined) {
      problems.push({ ...at, message: `<!-- ${block.kind}: ${block.arg} --> ${why}` });
      continue;
    }
    const present = declaredIn(files);
    for (const shown of shownCode(block)) {
      let used: Set<string>;
      try {
        used = usedNames(shown.text, shown.file);
      } catch {
        continue;
      }
      const missing = [...used].filter(
        (name) => (targetNames.has(name) || baseNames.has(name)) && !present.has(name),
      );
      if (missing.length > 0) {
        problems.push({
          ...at,
          message: `<!-- ${block.kind}: ${block.arg} --> uses ${missing.join(", ")}, which ${lesson.stage}'s page shows only later`,
        });
      }
    }
  }
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

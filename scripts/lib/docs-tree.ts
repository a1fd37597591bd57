// docs:generate and docs:check share one plan: what every generated file, marked block and figure
// should hold, computed from the stages. generate writes it; check compares it with what is there.
// Both take the root of the tree to work on, so a test can point them at a drifted overlay.

import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { findContract, type Wire } from "@agent-code/test-kit";
import { baseOf, STAGES } from "./command.ts";
import { courseModelProblems } from "./course-model.ts";
import { extractCode } from "./docs-code.ts";
import {
  checkCommand,
  checkpointBox,
  type LessonCoverage,
  lessonsOf,
  listNames,
  parseCheckpoint,
  parseMove,
  REST,
  replayLesson,
  restOf,
} from "./docs-lessons.ts";
import { checkContractLinks, checkPageLinks, type LinkChecker, linkChecker } from "./docs-links.ts";
import {
  type Block,
  type Figure,
  fenceConflict,
  fillPage,
  type Problem,
  pagePaths,
  placementLines,
  type ScannedPage,
  scanPage,
  treePath,
} from "./docs-pages.ts";
import { replayFile, replayIds, runReplay } from "./docs-replays.ts";
import { learnerPageProblems } from "./docs-rules.ts";
import { courseMapProblems } from "./docs-times.ts";
import { layoutJson, wireExcerpt, wireFile, wireText } from "./docs-wire.ts";
import { diffStages } from "./stage-diff.ts";
import { diffRebased } from "./stage-rebase.ts";
import { type StageStats, stageStats } from "./stage-stats.ts";

// What the docs are generated from. Building it runs every replay, so tests build it once.
export interface Sources {
  // "day-1..day-2-v1" -> the stage diff, for each stage that has a base: "<base>..<stage>".
  diffs: Map<string, string>;
  // "day-2-v3/two-step-chain" -> the replay, for each replay whose run passed.
  replays: Map<string, string>;
  // "day-2-v3/two-step-chain" -> the requests and responses of the same run, when it sent any.
  wires: Map<string, Wire>;
  stats: StageStats[];
  // Replays that could not be made.
  problems: Problem[];
}

export interface DocsReport {
  problems: Problem[];
  pages: number;
  blocks: number;
  figures: number;
  links: number;
  generated: number;
  // Per lesson, how many of its changed lines of src/ its page shows.
  lessons: LessonCoverage[];
}

// Lessons whose pages do not show every changed line yet: reported, not failed. Empty it as
// each page is finished (decision 0032).
export const UNFINISHED_LESSONS: string[] = [];

const GENERATE = "run `pnpm docs:generate`";
const GENERATED_DIRS = ["docs/diffs", "docs/replays"];
const STAT_FIELDS = ["files", "lines", "added", "removed"] as const;

export async function buildSources(): Promise<Sources> {
  const problems: Problem[] = [];
  const pairs = STAGES.flatMap((stage) => {
    const base = baseOf(stage);
    return base === undefined ? [] : [`${base}..${stage}`];
  });
  const [diffs, replays] = await Promise.all([
    Promise.all(pairs.map(async (pair) => [pair, await stageDiff(pair)] as const)),
    Promise.all(
      replayIds().map(async (id) => {
        try {
          return [[id, await runReplay(id)] as const];
        } catch (error) {
          problems.push({ file: replayFile(id), message: (error as Error).message });
          return [];
        }
      }),
    ),
  ]);
  const runs = replays.flat();
  return {
    diffs: new Map(diffs),
    replays: new Map(runs.map(([id, run]) => [id, run.text])),
    wires: new Map(runs.flatMap(([id, run]) => (run.wire === undefined ? [] : [[id, run.wire]]))),
    stats: stageStats(),
    problems,
  };
}

export async function checkDocs(root: string, sources?: Sources): Promise<DocsReport> {
  const plan = await planDocs(root, sources ?? (await buildSources()));
  return { ...plan.report, problems: [...plan.report.problems, ...plan.drift] };
}

// Writes every file that differs from the plan and deletes generated files nothing makes any
// more. Returns the paths written and deleted, and the problems that generating cannot fix.
export async function generateDocs(
  root: string,
  sources?: Sources,
): Promise<DocsReport & { written: string[]; deleted: string[] }> {
  const plan = await planDocs(root, sources ?? (await buildSources()));
  for (const [file, text] of plan.writes) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  }
  for (const file of plan.stale) rmSync(join(root, file));
  return { ...plan.report, written: [...plan.writes.keys()], deleted: plan.stale };
}

export function formatProblem(problem: Problem): string {
  return `${problem.file}${problem.line === undefined ? "" : `:${problem.line}`}: ${problem.message}`;
}

interface Plan {
  // Files whose content differs from what they should hold, with that content.
  writes: Map<string, string>;
  // Files in the generated folders that nothing generates.
  stale: string[];
  // A difference for each block, figure or generated file that generate would change.
  drift: Problem[];
  // Everything generate cannot fix, and the counts.
  report: DocsReport;
}

async function planDocs(root: string, sources: Sources): Promise<Plan> {
  const plan: Plan = {
    writes: new Map(),
    stale: [],
    drift: [],
    report: {
      problems: [...sources.problems],
      pages: 0,
      blocks: 0,
      figures: 0,
      links: 0,
      generated: 0,
      lessons: [],
    },
  };
  planGenerated(root, sources, plan);
  const check = linkChecker(root);
  const pages = pagePaths(root).map((file) => {
    const text = readFileSync(treePath(root, file), "utf8");
    return { file, text, page: scanPage(file, text) };
  });
  // The lessons first, for the placement lines; their problems are reported after the pages'.
  const lessons = planLessons(
    pages
      .filter(({ file }) => LESSON_PAGE.test(file))
      .map(({ file, page }) => ({ file, blocks: page.blocks })),
    plan,
  );
  for (const page of pages) await planPage(root, page, lessons.placements, sources, check, plan);
  plan.report.problems.push(
    ...checkContractLinks(check),
    ...courseMapProblems(pages),
    ...lessons.problems,
    // A page's offline checkpoints name scenarios that exist and send requests.
    ...pages.flatMap(({ file, text }) => courseModelProblems(file, text)),
  );
  return plan;
}

// The pages that teach the lessons; other pages may show code without being typed in.
const LESSON_PAGE = /^docs\/(?:day-|appendix-)[^/]+\.md$/;

// Every lesson replayed as text: its blocks apply in page order, none uses a name a later block
// brings, and together they show every changed line. Returns the problems, and each code block's
// placement line, computed on the way.
function planLessons(
  pages: { file: string; blocks: Block[] }[],
  plan: Plan,
): { problems: Problem[]; placements: Map<Block, string> } {
  const problems: Problem[] = [];
  const placements = new Map<Block, string>();
  for (const lesson of lessonsOf(pages)) {
    const replayed = replayLesson(lesson);
    if (!UNFINISHED_LESSONS.includes(lesson.stage)) problems.push(...replayed.problems);
    for (const [block, line] of replayed.placements) placements.set(block, line);
    plan.report.lessons.push(replayed.coverage);
    const { stage, changed, shown } = replayed.coverage;
    if (shown < changed && !UNFINISHED_LESSONS.includes(stage)) {
      const where = lesson.steps.find((step) => "file" in step);
      problems.push({
        file: where !== undefined && "file" in where ? where.file : "docs",
        message: `${stage}: ${shown} of ${changed} changed lines shown; show the rest in code or diff blocks (\`pnpm stage-diff ${stage}\` lists them)`,
      });
    }
  }
  return { problems, placements };
}

// One page: its blocks, placement lines and figures compared with what they should hold, and the
// page as generate would write it.
async function planPage(
  root: string,
  { file, text, page }: { file: string; text: string; page: ScannedPage },
  placements: Map<Block, string>,
  sources: Sources,
  check: LinkChecker,
  plan: Plan,
): Promise<void> {
  const { problems } = plan.report;
  problems.push(...page.problems, ...checkPageLinks(file, page.links, check));
  problems.push(...learnerPageProblems(file, text));
  const expected = {
    blocks: new Map<Block, string>(),
    figures: new Map<Figure, string>(),
    placements: new Map<Block, string>(),
  };
  for (const block of page.blocks) {
    const at = { file, line: block.line };
    const placement = placementDrift(block, LESSON_PAGE.test(file), placements);
    if (placement !== undefined) {
      expected.placements.set(block, placement.line);
      if (placement.drift !== undefined) plan.drift.push({ ...at, message: placement.drift });
    }
    const source = await blockSource(root, block, sources);
    if ("error" in source) {
      problems.push({ ...at, message: `${marker(block)}: ${source.error}` });
      continue;
    }
    const conflict = fenceConflict(block, source.text);
    if (conflict !== undefined) {
      problems.push({
        ...at,
        message: `${marker(block)}: ${source.name} does not fit: ${conflict}`,
      });
      continue;
    }
    expected.blocks.set(block, source.text);
    if (block.content === source.text) continue;
    const difference = firstDifference(block.content, source.text);
    plan.drift.push({
      ...at,
      message: `the block of ${marker(block)} differs from ${source.name}${difference}; ${GENERATE}`,
    });
  }
  for (const figure of page.figures) {
    const at = { file, line: figure.line };
    const name = `<!-- stat: ${figure.arg} -->`;
    const value = figureValue(figure.arg, sources.stats);
    if (value === undefined) {
      const fields = STAT_FIELDS.join(", ");
      problems.push({ ...at, message: `${name} should be <stage>.<field>, a field of ${fields}` });
      continue;
    }
    expected.figures.set(figure, value);
    if (figure.text === value) continue;
    plan.drift.push({
      ...at,
      message: `figure ${name} says ${figure.text}, stage-stats says ${value}; ${GENERATE}`,
    });
  }
  const filled = fillPage(text, page, expected);
  if (filled !== text) plan.writes.set(file, filled);
  plan.report.pages++;
  plan.report.blocks += page.blocks.length;
  plan.report.figures += page.figures.length;
  plan.report.links += page.links.length;
}

// A code block's expected placement line ("" for none) and, when the page's differs, what to
// report. A code block on a lesson page has the line its lesson's replay gives (none when the
// replay could not apply it: that problem is reported already); elsewhere it has none.
function placementDrift(
  block: Block,
  lessonPage: boolean,
  placements: Map<Block, string>,
): { line: string; drift?: string } | undefined {
  if (block.kind !== "code") return undefined;
  const line = lessonPage ? placements.get(block) : "";
  if (line === undefined) return undefined;
  const found = block.placement ?? "";
  const spaced = block.from - 1 - block.line === placementLines(found).length;
  if (line === found && spaced) return { line };
  const drift =
    line === ""
      ? `${marker(block)} is not on a lesson page (docs/day-*.md, docs/appendix-*.md) and takes no placement line: found "${found}"`
      : found === ""
        ? `${marker(block)} has no placement line: expected "${line}"`
        : line === found
          ? `the placement line of ${marker(block)} needs a blank line below it`
          : `the placement line of ${marker(block)} says "${found}", expected "${line}"`;
  return { line, drift: `${drift}; ${GENERATE}` };
}

// docs/diffs/<from>..<to>.diff and docs/replays/<stage>-<scenario>.txt.
function planGenerated(root: string, sources: Sources, plan: Plan): void {
  const files = new Map<string, { text: string; source: string }>();
  for (const [pair, text] of sources.diffs) {
    files.set(`docs/diffs/${pair}.diff`, { text, source: diffSourceName(pair) });
  }
  for (const [id, text] of sources.replays) {
    files.set(replayFile(id), { text: `${text}\n`, source: replaySourceName(id) });
  }
  for (const [id, wire] of sources.wires) {
    files.set(wireFile(id), { text: wireText(wire), source: replaySourceName(id) });
  }
  for (const [file, { text, source }] of files) {
    const path = join(root, file);
    const current = existsSync(path) ? readFileSync(path, "utf8") : undefined;
    if (current === text) continue;
    plan.writes.set(file, text);
    const what = current === undefined ? "is missing" : "is out of date";
    plan.drift.push({ file, message: `${what}: it is generated from ${source}; ${GENERATE}` });
  }
  // A replay that failed keeps its old files: its problem is reported already.
  const failed = new Set(
    sources.problems.flatMap((problem) => [
      problem.file,
      problem.file.replace(/\.txt$/, ".wire.json"),
    ]),
  );
  for (const dir of GENERATED_DIRS) {
    if (!existsSync(join(root, dir))) continue;
    for (const name of readdirSync(join(root, dir))) {
      const file = `${dir}/${name}`;
      if (files.has(file) || failed.has(file)) continue;
      plan.stale.push(file);
      plan.drift.push({ file, message: `nothing generates it any more; ${GENERATE}` });
    }
  }
  plan.report.generated = files.size;
}

// What a block should hold and where that comes from, or why it cannot be known.
type Source = { text: string; name: string } | { error: string };

async function blockSource(root: string, block: Block, sources: Sources): Promise<Source> {
  if (block.kind === "code") return codeSource(root, block.arg);
  if (block.kind === "check") return checkSource(block);
  if (block.kind === "delete") return deleteSource(root, block.arg);
  if (block.kind === "move") return moveSource(root, block.arg);
  if (block.kind === "wire") return wireSource(block.arg, sources);
  if (block.kind === "replay") {
    const text = sources.replays.get(block.arg);
    if (text !== undefined) {
      return { text, name: `${replayFile(block.arg)} (${replaySourceName(block.arg)})` };
    }
    if (replayIds().includes(block.arg)) {
      return { error: `its run failed (${replayFile(block.arg)})` };
    }
    return {
      error: `no such replay; the replays are ${replayIds().join(", ")} (REPLAYS in scripts/lib/docs-replays.ts)`,
    };
  }
  const diff = /^(\S+)\.\.(\S+)(?:\s+(\S+))?$/.exec(block.arg);
  const [, from = "", to = "", path] = diff ?? [];
  if (!STAGES.includes(from) || !STAGES.includes(to)) {
    return {
      error: `should name two stages and maybe a file, e.g. day-2-v1..day-2-v2 src/agent.ts (stages: ${STAGES.join(", ")})`,
    };
  }
  const pair = `${from}..${to}`;
  const whole = sources.diffs.get(pair) ?? (await stageDiff(pair));
  if (path === undefined) return { text: whole.replace(/\n$/, ""), name: diffSourceName(pair) };
  const part = filePart(whole, path);
  if (part === undefined) return { error: `the diff ${pair} does not change ${path}` };
  return { text: part, name: `${diffSourceName(pair)}, ${path}` };
}

// "day-2-v3/src/agent.ts#runAgent": a file below packages/ and maybe a declaration in it.
function codeSource(root: string, arg: string): Source {
  const match = /^([^#\s]+)(?:#([\w$]+(?:\.[\w$]+)?))?$/.exec(arg);
  const file = `packages/${match?.[1] ?? ""}`;
  const name = match?.[2];
  if (match === null || posix.normalize(file) !== file) {
    return { error: "should be <package>/<path>, maybe with #<Name> or #<Name.member>" };
  }
  const path = treePath(root, file);
  if (!existsSync(path)) return { error: `${file} does not exist` };
  try {
    const text = extractCode(readFileSync(path, "utf8"), file, name);
    return { text, name: name === undefined ? file : `${file} (${name})` };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

// "day-2-v2 src/model.ts#toMessageParam": a declaration the stage's base has and the stage does
// not, shown as the lines to delete.
function deleteSource(root: string, arg: string): Source {
  const match = /^(\S+)\s+(src\/\S+)#([\w$]+(?:\.[\w$]+)?)$/.exec(arg);
  const [, stage = "", path = "", name = ""] = match ?? [];
  const base = baseOf(stage);
  if (match === null || base === undefined) {
    return { error: "should be <stage> src/<path>#<Name>, for a stage that has a base" };
  }
  const gone = codeSource(root, `${stage}/${path}#${name}`);
  if (!("error" in gone)) return { error: `${stage} still has ${name} in ${path}` };
  const old = codeSource(root, `${base}/${path}#${name}`);
  if ("error" in old) return old;
  const text = old.text
    .split("\n")
    .map((line) => `-${line}`)
    .join("\n");
  return { text, name: `${old.name}, deleted in ${stage}` };
}

// "day-5-v1 src/tools.ts#readTextFile,lineWindow src/tools/read-file.ts": declarations the base has
// in one file and the stage in another, shown as one line that says what goes where, never their
// code. "#*" is the rest of a file the stage no longer has: what its base has there that the stage
// has in the other file.
function moveSource(root: string, arg: string): Source {
  const move = parseMove(arg);
  const base = move === undefined ? undefined : baseOf(move.stage);
  if (move === undefined || base === undefined || move.from === move.to) {
    return {
      error:
        "should be <stage> src/<path>#<Name>[,<Name>…] src/<other path>, or #* for the rest of the file, for a stage that has a base",
    };
  }
  const from = `src/${move.from}`;
  const to = `src/${move.to}`;
  let names = move.names;
  if (names === REST) {
    if (existsSync(treePath(root, `packages/${move.stage}/${from}`))) {
      return { error: `${move.stage} still has ${from}: name what moves` };
    }
    const rest = restNames(root, `packages/${base}/${from}`, `packages/${move.stage}/${to}`);
    if ("error" in rest) return rest;
    if (rest.names.length === 0) return { error: `${move.stage}'s ${to} has nothing of ${from}` };
    names = rest.names;
  }
  let lines = 0;
  const changed: string[] = [];
  for (const name of names) {
    const old = codeSource(root, `${base}/${from}#${name}`);
    if ("error" in old) return old;
    const next = codeSource(root, `${move.stage}/${to}#${name}`);
    if ("error" in next) return next;
    lines += old.text.split("\n").length;
    if (next.text !== old.text) changed.push(name);
  }
  const what =
    move.names === REST ? `the rest of \`${from}\` (${listNames(names)})` : listNames(names);
  const where = move.names === REST ? `to \`${to}\`` : `from \`${from}\` to \`${to}\``;
  const how =
    changed.length === 0
      ? `${lines} lines, unchanged`
      : `${lines} lines; ${listNames(changed)} ${changed.length === 1 ? "changes" : "change"} after the move`;
  const then = move.names === REST ? ` Then delete \`${from}\`.` : "";
  return {
    text: `> **Move** ${what} ${where} (${how}).${then}`,
    name: `the move of ${names.join(", ")} from ${base}'s ${from} to ${move.stage}'s ${to}`,
  };
}

// REST's names, read from the tree.
function restNames(
  root: string,
  from: string,
  to: string,
): { names: string[] } | { error: string } {
  for (const file of [from, to]) {
    if (!existsSync(treePath(root, file))) return { error: `${file} does not exist` };
  }
  try {
    const read = (path: string) => ({ text: readFileSync(treePath(root, path), "utf8"), path });
    return { names: restOf(read(from), read(to)) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

// "day-2-v3 two-step-chain max-steps": a stage and the scenarios of its contract to run.
function checkSource(block: Block): Source {
  const checkpoint = parseCheckpoint(block, "");
  if (checkpoint === undefined) return { error: "should be <stage> <scenario>…" };
  const contract = findContract(checkpoint.stage);
  if (contract === undefined) return { error: `no stage ${checkpoint.stage}` };
  const ids = contract.scenarios.map((scenario) => scenario.id);
  const unknown = checkpoint.scenarios.filter((id) => !ids.includes(id));
  if (unknown.length > 0)
    return { error: `${checkpoint.stage} has no scenario ${unknown.join(", ")}` };
  return { text: checkpointBox(checkpoint), name: `the box for \`${checkCommand(checkpoint)}\`` };
}

function figureValue(arg: string, stats: StageStats[]): string | undefined {
  const [stage, field] = arg.split(".");
  const row = stats.find((candidate) => candidate.stage === stage);
  const known = STAT_FIELDS.find((candidate) => candidate === field);
  return row === undefined || known === undefined ? undefined : String(row[known]);
}

// One file's part of a stage diff: from its `diff --git` line to the next file's. A moved file's
// part is found by either of its paths, as its header names both.
function filePart(diff: string, path: string): string | undefined {
  const parts = diff.replace(/\n$/, "").split(/\n(?=diff --git )/);
  return parts.find((part) => {
    const header = part.slice(0, part.indexOf("\n"));
    return header.startsWith(`diff --git a/${path} `) || header.endsWith(` b/${path}`);
  });
}

// A pair whose first stage is not the second's base is the second's changes carried onto the
// first: a challenge page's diff from the stage the learner arrives from.
async function stageDiff(pair: string): Promise<string> {
  const [from = "", to = ""] = pair.split("..");
  return carried(from, to)
    ? diffRebased(from, to, { colour: false })
    : diffStages(from, to, { colour: false });
}

function carried(from: string, to: string): boolean {
  return baseOf(to) !== undefined && baseOf(to) !== from;
}

// `<stage>/<scenario> <n> <path>`: part of request n of a replay's stored run (docs-wire.ts).
function wireSource(arg: string, sources: Sources): Source {
  const [, id = "", number = "", path = ""] = /^(\S+)\s+(\d+)\s+(\S+)$/.exec(arg) ?? [];
  if (id === "") {
    return { error: "should be <stage>/<scenario> <request number> <request|response>.<path>" };
  }
  const wire = sources.wires.get(id);
  if (wire === undefined) {
    return {
      error: `no wire for ${id}: a wire is kept for a replay whose run asked a model (REPLAYS in scripts/lib/docs-replays.ts)`,
    };
  }
  try {
    const text = layoutJson(wireExcerpt(wire, Number(number), path));
    return { text, name: `${wireFile(id)}, request ${number}, ${path}` };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

function diffSourceName(pair: string): string {
  const [from = "", to = ""] = pair.split("..");
  return `\`pnpm stage-diff ${from} ${to}${carried(from, to) ? " --carried" : ""}\``;
}

function replaySourceName(id: string): string {
  return `${id.replace("/", "'s scenario ")}, run offline`;
}

function marker(block: Block): string {
  return `<!-- ${block.kind}: ${block.arg} -->`;
}

// Where a block first differs from its source, so the message shows what changed.
function firstDifference(actual: string, expected: string): string {
  if (actual === "") return " (the block is empty)";
  const found = actual.split("\n");
  const wanted = expected.split("\n");
  const index = found.findIndex((line, at) => line !== wanted[at]);
  const at = index === -1 ? found.length : index;
  const show = (line: string | undefined) =>
    line === undefined
      ? "nothing"
      : JSON.stringify(line.length > 60 ? `${line.slice(0, 57)}...` : line);
  return ` (block line ${at + 1}: found ${show(found[at])}, expected ${show(wanted[at])})`;
}

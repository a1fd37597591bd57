// The Markdown side of the docs tools: which files are pages, where their marked blocks, figures
// and links are, and how a page looks once its blocks and figures are filled. Anything inside a
// fenced block or a code span is skipped, so a page can show a marker without being one.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./command.ts";

export interface Problem {
  // Relative to the root, with "/" separators.
  file: string;
  // 1-based; absent when the problem is the file as a whole.
  line?: number;
  message: string;
}

export type BlockKind = "code" | "diff" | "replay" | "wire" | "check" | "delete" | "move";

// `<!-- code: day-2-v3/src/agent.ts#runAgent -->` on the line right before a fenced block; a
// `check:` or `move:` marker's generated lines run to its closing marker instead, with no fence.
export interface Block {
  kind: BlockKind;
  // What follows the colon, e.g. "day-2-v3/src/agent.ts#runAgent".
  arg: string;
  // The marker's line, 1-based.
  line: number;
  // Line indices (0-based) of the first content line and of the closing fence (or marker).
  from: number;
  to: number;
  fence: string;
  content: string;
  // A `code:` block's placement line, between its marker and its fence, when it has one: where
  // the code goes in the learner's project (generated on the lesson pages). The lines between
  // the marker and the fence are `from - 1 - line`: the placement line and, as Biome formats a
  // paragraph before a fence, a blank line.
  placement?: string;
}

// `<!-- stat: day-2-v3.lines -->123<!-- /stat -->`, inline.
export interface Figure {
  arg: string;
  line: number;
  // Where the figure's text sits on its line (0-based columns).
  start: number;
  end: number;
  text: string;
}

export interface Link {
  target: string;
  line: number;
}

export interface ScannedPage {
  blocks: Block[];
  figures: Figure[];
  links: Link[];
  problems: Problem[];
}

// The markdown files outside docs/ that may carry markers and whose links are checked.
const OTHER_PAGES = ["README.md", "CONTRIBUTING.md", "SECURITY.md", "starter/README.md"];

const MARKER = /^<!--\s*(code|diff|replay|wire|check|delete|move):\s*(.*?)\s*-->\s*$/;
const FENCE_OPEN = /^(`{3,}|~{3,})[^`]*$/;
// A checkpoint's box runs from its marker to this line, and a move's line to the other.
export const CHECK_END = "<!-- /check -->";
export const MOVE_END = "<!-- /move -->";
const BOX_ENDS: Partial<Record<BlockKind, string>> = { check: CHECK_END, move: MOVE_END };
const FIGURE = /<!--\s*stat:\s*(.*?)\s*-->(.*?)<!--\s*\/stat\s*-->/g;
const FIGURE_OPEN = /<!--\s*stat:/g;
const INLINE_LINK = /!?\[[^\]]*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
const LINK_DEFINITION = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/;
const CODE_SPAN = /(`+)(?:.*?[^`])?\1(?!`)/g;

// A file of the tree at `root`, or of the repository when root lacks it: a test can then drift
// one file in an overlay that holds only docs/ and that file.
export function treePath(root: string, file: string): string {
  const own = join(root, file);
  return existsSync(own) ? own : join(ROOT, file);
}

// Every page, as paths relative to root: docs/**/*.md, then the READMEs and the root's guides.
export function pagePaths(root: string): string[] {
  const docs = existsSync(join(root, "docs"))
    ? readdirSync(join(root, "docs"), { recursive: true, encoding: "utf8" })
        .filter((file) => file.endsWith(".md"))
        .map((file) => `docs/${file.split("\\").join("/")}`)
        .sort(byPageName)
    : [];
  const packages = readdirSync(join(ROOT, "packages"))
    .sort()
    .map((name) => `packages/${name}/README.md`);
  return [...docs, ...OTHER_PAGES, ...packages].filter((file) => existsSync(treePath(root, file)));
}

// A day's first page before its parts (`day-5.md`, then `day-5-approve.md`), as a learner reads
// them: a lesson whose steps run over two pages is replayed in that order.
function byPageName(a: string, b: string): number {
  const name = (file: string) => file.replace(/\.md$/, "");
  return name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0;
}

export function scanPage(file: string, text: string): ScannedPage {
  const lines = text.split("\n");
  const page: ScannedPage = { blocks: [], figures: [], links: [], problems: [] };
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? "";
    const marker = MARKER.exec(line);
    const kind = marker?.[1] as BlockKind | undefined;
    const end = kind === undefined ? undefined : BOX_ENDS[kind];
    if (kind !== undefined && end !== undefined && marker?.[2] !== undefined) {
      const close = lines.findIndex((candidate, at) => at > index && candidate.trim() === end);
      if (close === -1) {
        page.problems.push({
          file,
          line: index + 1,
          message: `${line.trim()} needs a ${end} line after its box`,
        });
        continue;
      }
      page.blocks.push({
        kind,
        arg: marker[2],
        line: index + 1,
        from: index + 1,
        to: close,
        fence: "",
        content: lines.slice(index + 1, close).join("\n"),
      });
      index = close;
      continue;
    }
    if (marker?.[1] !== undefined && marker[2] !== undefined) {
      const placement = placementLine(kind, lines, index);
      const start = index + 1 + (placement?.lines ?? 0);
      const fence = FENCE_OPEN.exec(lines[start] ?? "")?.[1];
      if (fence === undefined) {
        page.problems.push({
          file,
          line: index + 1,
          message: `${line.trim()} must be followed by a fenced block on the next line`,
        });
        continue;
      }
      const close = closingFence(lines, start + 1, fence);
      if (close === -1) {
        page.problems.push({
          file,
          line: index + 1,
          message: `the block after ${line.trim()} never ends`,
        });
        return page;
      }
      page.blocks.push({
        kind: marker[1] as BlockKind,
        arg: marker[2],
        line: index + 1,
        from: start + 1,
        to: close,
        fence,
        content: lines.slice(start + 1, close).join("\n"),
        ...(placement === undefined ? {} : { placement: placement.text }),
      });
      index = close;
      continue;
    }
    const fence = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      const close = closingFence(lines, index + 1, fence);
      if (close === -1) return page;
      index = close;
      continue;
    }
    scanLine(file, index + 1, blankCodeSpans(line), page);
  }
  return page;
}

// The line after the code marker at `index`, when it is a placement line: a line of text with the
// opening fence right below it or below one blank line; with the lines it takes before the fence.
// Any other line there (a blank, a fence, a marker) is none.
function placementLine(
  kind: BlockKind | undefined,
  lines: string[],
  index: number,
): { text: string; lines: number } | undefined {
  const text = lines[index + 1] ?? "";
  if (kind !== "code" || text.trim() === "" || FENCE_OPEN.test(text) || MARKER.test(text)) {
    return undefined;
  }
  if (FENCE_OPEN.test(lines[index + 2] ?? "")) return { text, lines: 1 };
  const blank = lines[index + 2]?.trim() === "";
  return blank && FENCE_OPEN.test(lines[index + 3] ?? "") ? { text, lines: 2 } : undefined;
}

// The lines a code block's placement line takes as generated: the line and a blank line, or none.
export function placementLines(placement: string): string[] {
  return placement === "" ? [] : [placement, ""];
}

// The page with each block's content and each figure's text replaced by its expected value, and
// each code block's placement line set to its expected value ("" for none: a line there goes);
// anything without a value stays as it is. Nothing else changes, so the formatter's work (padded
// tables, wrapped lines) survives.
export function fillPage(
  text: string,
  page: ScannedPage,
  expected: {
    blocks: Map<Block, string>;
    figures: Map<Figure, string>;
    placements?: Map<Block, string>;
  },
): string {
  const lines = text.split("\n");
  // Right to left within a line, so earlier columns stay valid.
  for (const figure of [...page.figures].reverse()) {
    const value = expected.figures.get(figure);
    const line = lines[figure.line - 1];
    if (value === undefined || line === undefined) continue;
    lines[figure.line - 1] = line.slice(0, figure.start) + value + line.slice(figure.end);
  }
  // Bottom to top, so earlier line indices stay valid.
  for (const block of [...page.blocks].reverse()) {
    const value = expected.blocks.get(block);
    if (value !== undefined)
      lines.splice(block.from, block.to - block.from, ...contentLines(value));
    // Right below the marker, whose 1-based number is the 0-based index of the line after it.
    const placement = expected.placements?.get(block);
    if (placement === undefined) continue;
    const own = lines.slice(block.line, block.from - 1);
    const wanted = placementLines(placement);
    if (own.join("\n") !== wanted.join("\n")) lines.splice(block.line, own.length, ...wanted);
  }
  return lines.join("\n");
}

// Why a value cannot go between a block's fences, if it cannot.
export function fenceConflict(block: Block, value: string): string | undefined {
  const [char] = block.fence;
  if (char === undefined) return undefined;
  const closes = contentLines(value).findIndex((line) => isClosingFence(line, block.fence));
  if (closes === -1) return undefined;
  return `its line ${closes + 1} would close the ${char === "`" ? "backtick" : "tilde"} fence; use a longer fence`;
}

function contentLines(value: string): string[] {
  return value === "" ? [] : value.split("\n");
}

function closingFence(lines: string[], from: number, fence: string): number {
  for (let index = from; index < lines.length; index++) {
    if (isClosingFence(lines[index] ?? "", fence)) return index;
  }
  return -1;
}

function isClosingFence(line: string, fence: string): boolean {
  const run = /^ {0,3}(`+|~+)\s*$/.exec(line)?.[1];
  return run !== undefined && run[0] === fence[0] && run.length >= fence.length;
}

// Code spans become spaces, so columns still match the original line.
function blankCodeSpans(line: string): string {
  return line.replace(CODE_SPAN, (span) => " ".repeat(span.length));
}

function scanLine(file: string, line: number, visible: string, page: ScannedPage): void {
  let figures = 0;
  for (const match of visible.matchAll(FIGURE)) {
    const [whole, arg, text] = match;
    if (arg === undefined || text === undefined) continue;
    const end = match.index + whole.lastIndexOf("<!--");
    page.figures.push({ arg, line, start: end - text.length, end, text });
    figures++;
  }
  if ((visible.match(FIGURE_OPEN) ?? []).length !== figures) {
    page.problems.push({
      file,
      line,
      message: "a <!-- stat: … --> figure needs its closing <!-- /stat --> on the same line",
    });
  }
  for (const match of visible.matchAll(INLINE_LINK)) {
    if (match[1] !== undefined) page.links.push({ target: unbracket(match[1]), line });
  }
  const definition = LINK_DEFINITION.exec(visible)?.[1];
  if (definition !== undefined) page.links.push({ target: unbracket(definition), line });
}

function unbracket(target: string): string {
  return target.startsWith("<") && target.endsWith(">") ? target.slice(1, -1) : target;
}

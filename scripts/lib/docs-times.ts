// How long a learner's page takes, from one rule (decision 0068): its prose read, the code it has
// the learner type, and its checkpoints run. docs:check fails a page whose `**Time:**` line is more
// than a quarter away from the rule's time, and the course map when its steps do not add up to
// the pages they link to.

import type { Problem, ScannedPage } from "./docs-pages.ts";
import { scanPage } from "./docs-pages.ts";

// The rule's rates (decision 0068 says why these).
export const RATES = {
  // Technical prose read closely enough to act on.
  wordsPerMinute: 100,
  // A line of code typed from the page, at about 40 words a minute.
  secondsPerCodeLine: 10,
  // A `<!-- check: … -->` box: run the check, read its report, fix what it finds.
  minutesPerCheck: 10,
  // An item of a `### Checkpoint` list: one command run by hand and its output looked at.
  minutesPerManualCheck: 2,
};

// How far a stated time may be from the rule's, as a share of the rule's.
export const TOLERANCE = 0.25;

const TIME_LINE = "**Time:** ";
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HTML_COMMENT = /<!--[\s\S]*?-->/g;
const LINK_TARGET = /\]\([^)]*\)/g;
const WORD = /[\p{L}\p{N}]/u;
// "2 hours 30", "1 hour", "1 h 30" (the course map), "35 minutes", "45 min".
const DURATION =
  /\b(\d+)\s*(?:hours?|h)\b(?:\s+(\d+)\b(?!\s*(?:hours?|h)\b)(?:\s*(?:minutes?|min)\b)?)?|\b(\d+)\s*(?:minutes?|min)\b/g;

export interface PageMeasure {
  // Words of prose: everything outside fenced blocks and checkpoint boxes, HTML comments and link
  // targets left out; headings, tables, placement lines and move lines count.
  words: number;
  // Lines a learner types: the non-blank lines of `code:` blocks and the added lines of `diff:`.
  codeLines: number;
  // `<!-- check: … -->` boxes.
  checks: number;
  // Items of the `### Checkpoint …` lists, run by hand.
  manualChecks: number;
}

export function measurePage(file: string, text: string, page?: ScannedPage): PageMeasure {
  const scanned = page ?? scanPage(file, text);
  const lines = text.split("\n");
  const skipped = new Set<number>();
  const measure: PageMeasure = { words: 0, codeLines: 0, checks: 0, manualChecks: 0 };
  for (const block of scanned.blocks) {
    // The marker, a code block's placement line and the fence stay prose (the marker is a
    // comment, so it counts nothing); the content and the closing line do not.
    for (let index = block.from; index <= block.to; index++) skipped.add(index);
    const content = block.content.split("\n");
    if (block.kind === "code") {
      measure.codeLines += content.filter((line) => line.trim() !== "").length;
    } else if (block.kind === "diff") {
      measure.codeLines += content.filter((line) => /^\+(?!\+\+ )/.test(line)).length;
    } else if (block.kind === "check") {
      measure.checks++;
    } else if (block.kind === "move") {
      measure.words += countWords(block.content);
    }
  }
  let fence: string | undefined;
  let checkpointList = false;
  lines.forEach((line, index) => {
    if (skipped.has(index)) return;
    const run = FENCE.exec(line)?.[1];
    if (fence !== undefined) {
      if (
        run !== undefined &&
        run[0] === fence[0] &&
        run.length >= fence.length &&
        line.trim() === run
      )
        fence = undefined;
      return;
    }
    if (run !== undefined) {
      // An opening fence of a marked block is on a skipped line or right after a placement line.
      if (!skipped.has(index + 1)) fence = run;
      return;
    }
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading !== null) checkpointList = /^Checkpoint\b/.test(heading[1] ?? "");
    else if (checkpointList && /^(?:[-*+]|\d+\.)\s/.test(line)) measure.manualChecks++;
    measure.words += countWords(line);
  });
  return measure;
}

function countWords(text: string): number {
  return text
    .replace(HTML_COMMENT, " ")
    .replace(LINK_TARGET, "]")
    .split(/\s+/)
    .filter((word) => WORD.test(word)).length;
}

// The rule's time for a page, in minutes (not rounded).
export function ruleMinutes(measure: PageMeasure): number {
  return (
    measure.words / RATES.wordsPerMinute +
    (measure.codeLines * RATES.secondsPerCodeLine) / 60 +
    measure.checks * RATES.minutesPerCheck +
    measure.manualChecks * RATES.minutesPerManualCheck
  );
}

// Every duration in a text, in minutes, in order, with where each ends.
export function durations(text: string): { minutes: number; end: number }[] {
  return [...text.matchAll(DURATION)].map((match) => {
    const [whole, hours, hourMinutes, minutes] = match;
    const value =
      minutes === undefined ? Number(hours) * 60 + Number(hourMinutes ?? 0) : Number(minutes);
    return { minutes: value, end: match.index + whole.length };
  });
}

export interface StatedTime {
  // 1-based line of the `**Time:**` line.
  line: number;
  minutes: number;
  // Why the total cannot be read, when it cannot.
  error?: string;
}

// A page's `**Time:**` paragraph read as a total: one time; a total followed by its parts ("about
// 2 hours 45: 1 hour 30 for v3, 1 hour 15 for v4"), which must add up to it; or parts alone, added.
export function statedTime(text: string): StatedTime | undefined {
  const lines = text.split("\n");
  const index = lines.findIndex((line) => line.startsWith(TIME_LINE));
  if (index === -1) return undefined;
  const end = lines.findIndex((line, at) => at > index && line.trim() === "");
  const paragraph = lines.slice(index, end === -1 ? undefined : end).join("\n");
  const found = durations(paragraph);
  const line = index + 1;
  const [first, ...parts] = found;
  if (first === undefined) {
    return {
      line,
      minutes: 0,
      error: "says no time: write it as `about 1 hour 30` or `about 45 minutes`",
    };
  }
  const sum = parts.reduce((total, part) => total + part.minutes, 0);
  if (parts.length === 0 || sum === first.minutes) return { line, minutes: first.minutes };
  if (paragraph.slice(first.end).trimStart().startsWith(":")) {
    return {
      line,
      minutes: first.minutes,
      error: `gives about ${formatMinutes(first.minutes)} in all but its parts add up to ${formatMinutes(sum)}`,
    };
  }
  return { line, minutes: first.minutes + sum };
}

// 150 -> "2 hours 30", 60 -> "1 hour", 35 -> "35 minutes", as the pages write a time.
export function formatMinutes(minutes: number): string {
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours === 0) return `${rest} minutes`;
  const unit = hours === 1 ? "hour" : "hours";
  return rest === 0 ? `${hours} ${unit}` : `${hours} ${unit} ${rest}`;
}

export function roundToFive(minutes: number): number {
  return Math.max(5, Math.round(minutes / 5) * 5);
}

// A learner's page's time problems: no `**Time:**` line, one that says no total, or one more than
// a quarter away from the rule's time.
export function timeProblems(file: string, text: string, page?: ScannedPage): Problem[] {
  const stated = statedTime(text);
  if (stated === undefined) {
    return [{ file, message: "no `**Time:**` line: say near the top how long the page takes" }];
  }
  if (stated.error !== undefined) {
    return [{ file, line: stated.line, message: `the \`**Time:**\` line ${stated.error}` }];
  }
  const measure = measurePage(file, text, page);
  const rule = ruleMinutes(measure);
  if (Math.abs(stated.minutes - rule) <= TOLERANCE * rule) return [];
  const low = Math.ceil(((1 - TOLERANCE) * rule) / 5) * 5;
  const high = Math.floor(((1 + TOLERANCE) * rule) / 5) * 5;
  const counts = [
    counted(measure.words, "word"),
    counted(measure.codeLines, "line of code", "lines of code"),
    counted(measure.checks, "check box", "check boxes"),
    counted(measure.manualChecks, "checkpoint item"),
  ].join(", ");
  return [
    {
      file,
      line: stated.line,
      message: `states about ${formatMinutes(stated.minutes)}, the rule gives about ${formatMinutes(roundToFive(rule))} (${counts}): more than a quarter apart; state between ${formatMinutes(Math.max(5, low))} and ${formatMinutes(Math.max(5, high))} (decision 0068)`,
    },
  ];
}

function counted(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString("en")} ${count === 1 ? one : many}`;
}

// The course map (docs/README.md) times each step in a row that links to the step's page. The rows
// of a page, with the pages after it that no row links to (a step's second part), add up to what
// those pages state.
export const COURSE_MAP = "docs/README.md";

export function courseMapProblems(pages: { file: string; text: string }[]): Problem[] {
  const map = pages.find((page) => page.file === COURSE_MAP);
  if (map === undefined) return [];
  const rows = new Map<string, { line: number; minutes: number }[]>();
  map.text.split("\n").forEach((line, index) => {
    if (!line.startsWith("|")) return;
    const cells = line.split("|").map((cell) => cell.trim());
    const target = /\]\(((?:day-|appendix-)[^)#]+\.md)(?:#[^)]*)?\)/.exec(cells[2] ?? "")?.[1];
    const time = durations(cells.at(-2) ?? "")[0];
    if (target === undefined || time === undefined) return;
    const file = `docs/${target}`;
    rows.set(file, [...(rows.get(file) ?? []), { line: index + 1, minutes: time.minutes }]);
  });
  const problems: Problem[] = [];
  const timed = pages
    .filter((page) => /^docs\/(?:day-|appendix-)[^/]+\.md$/.test(page.file))
    .map((page) => ({ file: page.file, stated: statedTime(page.text) }));
  timed.forEach(({ file }, at) => {
    const own = rows.get(file);
    if (own === undefined) return;
    const group = [timed[at]];
    for (const next of timed.slice(at + 1)) {
      if (rows.has(next.file) || !sameDay(file, next.file)) break;
      group.push(next);
    }
    if (group.some((page) => page?.stated === undefined || page.stated.error !== undefined)) return;
    const stated = group.reduce((total, page) => total + (page?.stated?.minutes ?? 0), 0);
    const mapped = own.reduce((total, row) => total + row.minutes, 0);
    if (stated === mapped) return;
    const names = group.map((page) => page?.file.replace(/^docs\//, "")).join(" and ");
    problems.push({
      file: COURSE_MAP,
      line: own[0]?.line ?? 1,
      message: `the course map's steps on ${names} add up to ${formatMinutes(mapped)}, the page${group.length === 1 ? " states" : "s state"} ${formatMinutes(stated)}`,
    });
  });
  return problems;
}

function sameDay(a: string, b: string): boolean {
  const day = (file: string) => /^docs\/((?:day-\d+)|appendix)/.exec(file)?.[1];
  return day(a) !== undefined && day(a) === day(b);
}

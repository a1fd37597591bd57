// Rules for the pages a learner works through (issue #45): a page fits a sitting, says how long it
// takes (within a quarter of the rule in docs-times.ts, #58), and every command that checks a
// project is written the way a learner types it in their own project's folder, the form Day 1
// defines (`pnpm --dir ~/agent-code-course check <stage> --project .`). docs:check reports each
// break as a problem at its line.

import { LEARNER_CHECK } from "./docs-lessons.ts";
import type { Problem } from "./docs-pages.ts";
import { timeProblems } from "./docs-times.ts";

// About a sitting's reading: past either, a page is split into parts (decision 0060).
export const MAX_PAGE_LINES = 2_000;
export const MAX_PAGE_WORDS = 12_000;

// The pages a learner works through: the days, their parts and challenges, the appendix.
export const LEARNER_PAGE = /^docs\/(?:day-|appendix-)[^/]+\.md$/;

// `pnpm check` with what names a stage or several after it: a command, not the tool's name.
const CHECK_COMMAND = /\bpnpm check\s+(?:day-|appendix-|--all\b|--main-line\b|--stages\b)/;
const LEARNER_FORM = new RegExp(`^${escapeRegExp(LEARNER_CHECK)} \\S+ --project \\.(?: |$)`);
const CODE_SPAN = /(`+)([\s\S]*?[^`])\1(?!`)/g;

export function learnerPageProblems(file: string, text: string): Problem[] {
  if (!LEARNER_PAGE.test(file)) return [];
  const problems: Problem[] = [];
  const lines = text.split("\n");
  if (lines.length > MAX_PAGE_LINES) {
    problems.push({
      file,
      message: `${lines.length.toLocaleString("en")} lines: a page holds at most ${MAX_PAGE_LINES.toLocaleString("en")}, about a sitting; split it into parts`,
    });
  }
  const words = text.split(/\s+/).filter(Boolean).length;
  if (words > MAX_PAGE_WORDS) {
    problems.push({
      file,
      message: `${words.toLocaleString("en")} words: a page holds at most ${MAX_PAGE_WORDS.toLocaleString("en")}, about a sitting; split it into parts`,
    });
  }
  problems.push(...timeProblems(file, text));
  for (const { line, command } of checkCommands(lines)) {
    if (LEARNER_FORM.test(command)) continue;
    problems.push({
      file,
      line,
      message: `\`${command}\` is not the learner's form: write \`${LEARNER_CHECK} <stage> --project . …\`, as Day 1 defines it`,
    });
  }
  return problems;
}

// Every `pnpm check …` command on the page, with its 1-based line: in code spans (a span may run
// over a line break) and on the lines of shell blocks. Other fenced blocks (text, diffs, code)
// show output or sources, not what to type.
function checkCommands(lines: string[]): { line: number; command: string }[] {
  const found: { line: number; command: string }[] = [];
  let fence: string | undefined;
  let shell = false;
  let paragraph: { start: number; text: string[] } | undefined;
  const flush = () => {
    if (paragraph === undefined) return;
    const text = paragraph.text.join("\n");
    for (const match of text.matchAll(CODE_SPAN)) {
      const command = (match[2] ?? "").replace(/\s+/g, " ").trim();
      if (!CHECK_COMMAND.test(command)) continue;
      const before = text.slice(0, match.index).split("\n").length - 1;
      found.push({
        line: paragraph.start + before,
        command: command.slice(command.indexOf("pnpm")),
      });
    }
    paragraph = undefined;
  };
  lines.forEach((line, index) => {
    const opening = /^\s*(```+|~~~+)\s*(\w*)/.exec(line);
    if (fence !== undefined) {
      if (opening !== null && line.trim().startsWith(fence)) fence = undefined;
      else if (shell) {
        const command = line.replace(/#.*$/, "").trim();
        if (CHECK_COMMAND.test(command)) found.push({ line: index + 1, command });
      }
      return;
    }
    if (opening !== null) {
      flush();
      fence = opening[1];
      shell = SHELL.has(opening[2] ?? "");
      return;
    }
    if (line.trim() === "") {
      flush();
      return;
    }
    paragraph ??= { start: index + 1, text: [] };
    paragraph.text.push(line);
  });
  flush();
  return found;
}

const SHELL = new Set(["sh", "bash", "shell", "console"]);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

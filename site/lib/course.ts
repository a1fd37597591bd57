// The site's navigation, in course order. COURSE is the one list to edit when a page is added;
// the sidebar, "previous / next" and the top bar are made from it. A listed page that does not
// exist yet is left out with a warning, and a page of docs/ that is not listed still gets a place
// at the end, so adding or renaming a page never breaks the build.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { githubAnchor, headingAnchors } from "@agent-code/test-kit";
import type { DefaultTheme } from "vitepress";

export interface CourseEntry {
  // A page of docs/, optionally with an anchor: "day-2.md#challenges".
  page: string;
  // Defaults to the page's title (its `# ` heading).
  text?: string;
  // List the page's `## ` sections under it.
  steps?: boolean;
}

export interface CourseGroup {
  text: string;
  entries: CourseEntry[];
  // Also every page of this folder of docs/ that no entry names, in file-name order.
  folder?: string;
  collapsed?: boolean;
}

export const COURSE: CourseGroup[] = [
  { text: "The course", entries: [{ page: "README.md", text: "The course map" }] },
  { text: "Day 1", entries: [{ page: "day-1.md", steps: true }] },
  { text: "Day 2", entries: [{ page: "day-2.md", steps: true }] },
  {
    text: "Day 3",
    entries: [
      { page: "day-3.md", steps: true },
      { page: "day-3-search.md", steps: true },
      { page: "day-3-web.md", steps: true },
    ],
  },
  { text: "Day 4", entries: [{ page: "day-4.md", steps: true }] },
  {
    text: "Day 5",
    entries: [
      { page: "day-5.md", steps: true },
      { page: "day-5-approve.md", steps: true },
      { page: "day-5-gate.md", steps: true },
      { page: "day-5-guards.md", steps: true },
      { page: "day-5-tasks.md", steps: true },
      { page: "day-5-rules.md", steps: true },
      { page: "day-5-rules-gate.md", steps: true },
    ],
  },
  {
    text: "Day 6",
    entries: [
      { page: "day-6.md", steps: true },
      { page: "day-6-rules.md", steps: true },
      { page: "day-6-compact.md", steps: true },
      { page: "day-6-memory.md", steps: true },
      { page: "day-6-sessions.md", steps: true },
    ],
  },
  {
    text: "Day 7",
    entries: [
      { page: "day-7.md", steps: true },
      { page: "day-7-hooks.md", steps: true },
      { page: "day-7-path.md", steps: true },
      { page: "day-7-loops.md", steps: true },
      { page: "day-7-commands.md", steps: true },
    ],
  },
  {
    text: "Challenges",
    entries: [
      { page: "day-1.md#challenges", text: "Day 1 challenges" },
      { page: "day-2-challenges.md", text: "Day 2 challenges" },
      { page: "day-3-challenges.md", text: "Day 3 challenges" },
      { page: "day-5-challenges.md", text: "Day 5 challenges" },
      { page: "day-6-challenges.md", text: "Day 6 challenges" },
      { page: "day-7-challenges.md", text: "Day 7 challenges" },
    ],
  },
  {
    text: "Reference",
    entries: [
      { page: "protocol.md", text: "The protocol in one page" },
      { page: "session-format.md", text: "The session log format" },
      { page: "appendix-providers.md" },
    ],
  },
  {
    text: "Guides",
    entries: [
      { page: "instructors.md" },
      { page: "python-learners.md" },
      { page: "benchmarks.md" },
    ],
  },
  {
    text: "Decisions",
    entries: [{ page: "decisions/README.md", text: "All decisions" }],
    folder: "decisions",
    collapsed: true,
  },
  { text: "About", entries: [{ page: "LICENSE.md", text: "Licence" }] },
];

export interface Navigation {
  sidebar: DefaultTheme.SidebarItem[];
  warnings: string[];
}

export function buildSidebar(docsDir: string, course: CourseGroup[] = COURSE): Navigation {
  const warnings: string[] = [];
  const listed = new Set<string>();
  const item = (entry: CourseEntry): DefaultTheme.SidebarItem[] => {
    const [page = "", anchor] = entry.page.split("#");
    const file = join(docsDir, page);
    if (!existsSync(file)) {
      warnings.push(`${entry.page}: no such page in docs/, left out of the navigation`);
      return [];
    }
    const markdown = readFileSync(file, "utf8");
    if (anchor !== undefined && !headingAnchors(markdown).has(anchor)) {
      warnings.push(`${entry.page}: the page has no such heading, left out of the navigation`);
      return [];
    }
    listed.add(page);
    const link = sitePath(entry.page);
    const text = entry.text ?? pageTitle(markdown) ?? page;
    if (!entry.steps) return [{ text, link }];
    const steps = sections(markdown).map((heading) => ({
      text: heading,
      link: `${link}#${githubAnchor(heading)}`,
    }));
    return [{ text, link, items: steps, collapsed: false }];
  };
  const sidebar = course.flatMap((group): DefaultTheme.SidebarItem[] => {
    const items = group.entries.flatMap(item);
    if (group.folder !== undefined) {
      for (const page of pagesOf(docsDir, group.folder)) {
        if (!listed.has(page)) items.push(...item({ page }));
      }
    }
    if (items.length === 0) return [];
    return [{ text: group.text, items, collapsed: group.collapsed }];
  });
  const unlisted = pagesOf(docsDir).filter((page) => !listed.has(page));
  if (unlisted.length > 0) {
    sidebar.push({ text: "More", items: unlisted.flatMap((page) => item({ page })) });
  }
  return { sidebar, warnings };
}

// "day-2.md" -> "/day-2", "README.md" -> "/", "decisions/README.md" -> "/decisions/"; an
// anchor stays.
export function sitePath(page: string): string {
  const [path = "", anchor] = page.split("#");
  const site = `/${path.replace(/(^|\/)README\.md$/, "$1").replace(/\.md$/, "")}`;
  return anchor === undefined ? site : `${site}#${anchor}`;
}

// Every Markdown page of docs/ (or of one folder of it), relative to docs/, sorted.
export function pagesOf(docsDir: string, folder = ""): string[] {
  const dir = join(docsDir, folder);
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".md"))
    .map((file) => join(folder, file).split("\\").join("/"))
    .sort();
}

function pageTitle(markdown: string): string | undefined {
  const title = /^# (.+)$/m.exec(markdown)?.[1];
  return title === undefined ? undefined : plain(title);
}

// The `## ` headings outside fenced blocks, as plain text.
function sections(markdown: string): string[] {
  const headings: string[] = [];
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? undefined : /^## (.+?)\s*$/.exec(line)?.[1];
    if (heading !== undefined) headings.push(plain(heading));
  }
  return headings;
}

function plain(markdown: string): string {
  return markdown.replace(/`([^`]*)`/g, "$1").replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
}

export interface Stage {
  stage: string;
  // Relative to the repository root: "packages/day-1".
  packagePath: string;
  adds: string;
  // Relative to the repository root: "docs/day-2.md#v1-the-real-model".
  read: string;
}

// The rows of the README's "The stages" table, so that the site lists the stages as the README
// does without a copy to keep in step.
export function readStages(readme: string): Stage[] {
  const section = readme.split(/^## /m).find((part) => part.startsWith("The stages"));
  if (section === undefined) return [];
  const [header = [], , ...rows] = section
    .split("\n")
    .filter((line) => line.startsWith("|"))
    .map((line) =>
      line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  // Columns are found by their heading, so a new column (such as "builds on") changes nothing here.
  const column = (name: string) => header.indexOf(name);
  return rows.flatMap((cells) => {
    const stage = cells[column("stage")];
    const adds = cells[column("what it adds")];
    const packagePath = linkTarget(cells[column("package")]);
    const readTarget = linkTarget(cells[column("read")]);
    if (!stage || !adds || packagePath === undefined || readTarget === undefined) return [];
    return [{ stage, packagePath, adds: plain(adds), read: readTarget }];
  });
}

function linkTarget(cell: string | undefined): string | undefined {
  return cell === undefined ? undefined : /\]\(([^)\s]+)\)/.exec(cell)?.[1];
}

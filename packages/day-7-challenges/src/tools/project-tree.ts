// project_tree: the folders and files below a folder as an indented tree.
import { type WalkEntry, walk } from "../walk.ts";
import { searchStart, withNotes } from "./glob.ts";
import { type Tool, type ToolContext, ToolError } from "./index.ts";

const MAX_TREE_ENTRIES = 200;

// The folders and files below `path`, max_depth levels deep (3 by default, 1 to 10): two spaces a
// level, folders first with `/`, each group in byte order; skipped folders shown, not opened.
export async function projectTree(
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<string> {
  const depth = args.max_depth === undefined ? 3 : args.max_depth;
  if (!Number.isInteger(depth) || (depth as number) < 1 || (depth as number) > 10) {
    throw new ToolError(`max_depth must be an integer from 1 to 10, got ${JSON.stringify(depth)}`);
  }
  const { root, start, name, isFile } = await searchStart(args, ctx);
  if (isFile) throw new ToolError(`not a directory: ${name}`);
  const children = new Map<string, WalkEntry[]>();
  const notes: string[] = [];
  const options = { maxDepth: depth as number, notes, hidden: ctx.hidden };
  for (const entry of await walk(root, start, options)) {
    const parent = entry.rel.includes("/") ? entry.rel.slice(0, entry.rel.lastIndexOf("/")) : "";
    children.set(parent, [...(children.get(parent) ?? []), entry]);
  }
  const lines: string[] = [];
  const render = (parent: string, indent: string): void => {
    const entries = children.get(parent) ?? [];
    const isFolder = (entry: WalkEntry) => entry.kind === "dir" || entry.kind === "skipped";
    const ordered = [...entries.filter(isFolder), ...entries.filter((entry) => !isFolder(entry))];
    for (const entry of ordered) {
      const base = entry.rel.slice(entry.rel.lastIndexOf("/") + 1);
      if (entry.kind === "skipped") lines.push(`${indent}${base}/ (skipped)`);
      else if (entry.kind === "dir") lines.push(`${indent}${base}/`);
      else if (entry.kind === "link") lines.push(`${indent}${base}@`);
      else lines.push(`${indent}${base}`);
      if (entry.kind === "dir") render(entry.rel, `${indent}  `);
    }
  };
  render("", "");
  if (lines.length === 0) return withNotes("(empty)", notes);
  if (lines.length <= MAX_TREE_ENTRIES) return withNotes(lines.join("\n"), notes);
  const cut = `[tree cut at ${MAX_TREE_ENTRIES} entries; lower max_depth or give a path]`;
  return withNotes(`${lines.slice(0, MAX_TREE_ENTRIES).join("\n")}\n${cut}`, notes);
}

export const projectTreeTool: Tool = {
  name: "project_tree",
  description:
    "Show the folders and files inside the working directory as a tree, folders first. Ignored (.gitignore) folders are left out; tool folders such as node_modules are shown as (skipped). At most 200 entries.",
  run: projectTree,
  readOnly: true,
  parameters: {
    type: "object",
    properties: {
      max_depth: {
        type: "integer",
        minimum: 1,
        maximum: 10,
        description: "How many levels to show (1 to 10, default 3).",
      },
      path: {
        type: "string",
        description: 'The folder to show, relative to the working directory (default ".").',
      },
    },
    additionalProperties: false,
  },
};

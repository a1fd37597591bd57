// list_files: one folder's entries, folders first, in an order that is the same everywhere.
import { readdirInside, resolveInside, SKIP_DIRS, shown } from "../fs-safety.ts";
import type { Tool, ToolContext } from "./index.ts";

const MAX_LIST_ENTRIES = 500;

// One level of a folder: folders first, then files, each group in byte order; `/` after a folder,
// `@` after a symlink. Skipped folders are not listed but named at the end, so the model knows.
export async function listFiles(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
  const dir = resolveInside(ctx.cwd, args.path === undefined ? "." : String(args.path));
  const name = shown(ctx.cwd, dir);
  const entries = await readdirInside(ctx.cwd, dir, name);
  const skipped: string[] = [];
  const dirs: string[] = [];
  const files: string[] = [];
  for (const entry of entries) {
    // What a deny rule hides is not listed: not even its name.
    if (ctx.hidden?.(name === "." ? entry.name : `${name}/${entry.name}`) === true) continue;
    if (entry.isDirectory() && SKIP_DIRS.has(entry.name)) skipped.push(`${entry.name}/`);
    else if (entry.isDirectory()) dirs.push(`${entry.name}/`);
    else if (entry.isSymbolicLink()) files.push(`${entry.name}@`);
    else files.push(entry.name);
  }
  const listed = [...dirs.sort(byteOrder), ...files.sort(byteOrder)];
  const lines = listed.slice(0, MAX_LIST_ENTRIES);
  if (listed.length > MAX_LIST_ENTRIES) lines.push(`[${listed.length - MAX_LIST_ENTRIES} more]`);
  if (skipped.length > 0) lines.push(`(skipped: ${skipped.sort(byteOrder).join(", ")})`);
  return lines.length === 0 ? "(empty)" : lines.join("\n");
}

// The same order on every OS and locale: by the names' UTF-8 bytes.
export function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

export const listFilesTool: Tool = {
  name: "list_files",
  description:
    "List one folder inside the working directory: folders first (ending in /), then files. Tool and cache folders such as .git and node_modules are skipped and named at the end.",
  run: listFiles,
  readOnly: true,
  parameters: {
    type: "object",
    properties: {
      path: {
        type: "string",
        description: 'The folder, relative to the working directory (default ".").',
      },
    },
    additionalProperties: false,
  },
};

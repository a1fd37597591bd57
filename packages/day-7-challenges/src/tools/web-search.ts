// web_search: hits from whichever search provider the environment sets up (search.ts).
import { truncate } from "../fs-safety.ts";
import { createSearchProvider, type SearchHit } from "../search.ts";
import { type Tool, type ToolContext, ToolError } from "./index.ts";

// web_search's limits: how many hits the model may ask for, and how much of each snippet it sees.
const DEFAULT_RESULTS = 5;
const MAX_RESULTS = 10;
const MAX_SNIPPET_CHARS = 300;

// The web, searched through whichever provider the environment sets up (search.ts). Hits as
// `1. Title`, the URL and the snippet, each on its own line; max_results is held to 1..10.
export async function webSearch(
  args: Record<string, unknown>,
  ctx: ToolContext,
  env: Record<string, string | undefined> = process.env,
): Promise<string> {
  const query = String(args.query).trim();
  if (query === "") throw new ToolError("query must not be empty");
  const asked = args.max_results === undefined ? DEFAULT_RESULTS : args.max_results;
  if (!Number.isInteger(asked)) {
    throw new ToolError(`max_results must be an integer, got ${JSON.stringify(asked)}`);
  }
  const count = Math.min(MAX_RESULTS, Math.max(1, asked as number));
  const provider = createSearchProvider(env);
  if (provider === undefined) {
    throw new ToolError("web_search needs a search provider: set TAVILY_API_KEY or BRAVE_API_KEY");
  }
  // The query leaves the machine: the person allows it, as a fetch.
  if (!(await ctx.ui.confirm(`Allow web_search ${JSON.stringify(query)}?`))) {
    throw new ToolError("the user rejected this call to web_search");
  }
  const hits = (await provider.search(query, count, ctx.signal)).slice(0, count);
  if (hits.length === 0) return "(no results)";
  return hits.map((hit, index) => hitLines(hit, index + 1)).join("\n");
}

function hitLines(hit: SearchHit, n: number): string {
  const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();
  const lines = [`${n}. ${oneLine(hit.title) || "(no title)"}`, `   ${hit.url}`];
  const snippet = oneLine(hit.snippet);
  if (snippet.length > MAX_SNIPPET_CHARS) {
    lines.push(`   ${truncate(snippet, MAX_SNIPPET_CHARS - 1)}…`);
  } else if (snippet !== "") {
    lines.push(`   ${snippet}`);
  }
  return lines.join("\n");
}

// Always offered, so the tool list is the same with or without a key: without one, the
// result says which variable to set.
export const webSearchTool: Tool = {
  name: "web_search",
  description:
    "Search the web. Answers up to max_results hits (default 5, at most 10), each as a numbered title, its URL and a short snippet. Read a page with web_fetch before relying on a snippet. The user approves each search.",
  run: webSearch,
  parameters: {
    type: "object",
    properties: {
      query: { type: "string", description: "What to search for." },
      max_results: {
        type: "integer",
        minimum: 1,
        maximum: 10,
        description: "How many hits to return (1 to 10, default 5).",
      },
    },
    required: ["query"],
    additionalProperties: false,
  },
};

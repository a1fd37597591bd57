// web_fetch: a public page as Markdown or text; the guard and the conversion are in web.ts.
import { checkUrl, fetchOptions, webFetch } from "../web.ts";
import { type Tool, type ToolContext, ToolError } from "./index.ts";

// A fetch sends what the model chose to a server the model chose: the person allows each one.
export async function webFetchAfterYes(
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<string> {
  // What needs no network is checked first: nobody is asked about a URL that would be refused
  // anyway, or shown a password in one.
  const url = checkUrl(String(args.url), fetchOptions(process.env));
  if (!(await ctx.ui.confirm(`Allow web_fetch ${url.href}?`))) {
    throw new ToolError("the user rejected this call to web_fetch");
  }
  return webFetch(args, ctx);
}

export const webFetchTool: Tool = {
  name: "web_fetch",
  description:
    "Fetch a public web page by its http or https URL: HTML comes back as Markdown with absolute links, text and JSON as they are; other types are refused. Addresses on this machine or a private network are refused. At most 20000 characters. The user approves each fetch.",
  run: webFetchAfterYes,
  parameters: {
    type: "object",
    properties: {
      url: { type: "string", description: "The full URL, starting with http:// or https://." },
    },
    required: ["url"],
    additionalProperties: false,
  },
};

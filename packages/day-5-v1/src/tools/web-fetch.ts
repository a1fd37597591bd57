// web_fetch: a public page as Markdown or text; the guard and the conversion are in web.ts.
import { webFetch } from "../web.ts";
import type { Tool } from "./index.ts";

export const webFetchTool: Tool = {
  name: "web_fetch",
  description:
    "Fetch a public web page by its http or https URL: HTML comes back as Markdown with absolute links, text and JSON as they are; other types are refused. Addresses on this machine or a private network are refused. At most 20000 characters.",
  run: webFetch,
  parameters: {
    type: "object",
    properties: {
      url: { type: "string", description: "The full URL, starting with http:// or https://." },
    },
    required: ["url"],
    additionalProperties: false,
  },
};

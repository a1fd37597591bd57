// echo: the first tool of the course, which repeats its text; it proves the loop works.
import type { Tool } from "./index.ts";

export function echo(args: Record<string, unknown>): string {
  return String(args.text ?? "");
}

export const echoTool: Tool = {
  name: "echo",
  description: "Repeat the given text back.",
  run: echo,
  readOnly: true,
  parameters: {
    type: "object",
    properties: { text: { type: "string", description: "The text to repeat." } },
    required: ["text"],
    additionalProperties: false,
  },
};

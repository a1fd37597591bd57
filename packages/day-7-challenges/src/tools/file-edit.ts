// file_edit: one exact replacement in a file just read, after a diff and a yes (writes.ts).
import { fileEdit } from "../writes.ts";
import type { Tool } from "./index.ts";

export const fileEditTool: Tool = {
  name: "file_edit",
  description:
    "Replace text in a file inside the working directory: old_string must match the file exactly (indentation included, no line numbers) and only once, unless replace_all is true. Read the file with read_file first; it must be unchanged since. The user sees the change as a diff and must approve it.",
  run: fileEdit,
  parameters: {
    type: "object",
    properties: {
      file_path: {
        type: "string",
        description: "The file, relative to the working directory.",
      },
      old_string: { type: "string", description: "The exact text to replace." },
      new_string: { type: "string", description: "The text to put in its place." },
      replace_all: {
        type: "boolean",
        description: "Replace every occurrence instead of exactly one (default false).",
      },
    },
    required: ["file_path", "old_string", "new_string"],
    additionalProperties: false,
  },
};

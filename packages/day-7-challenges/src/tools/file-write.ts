// file_write: a whole file written after the person saw the diff and said yes (writes.ts).
import { fileWrite } from "../writes.ts";
import type { Tool } from "./index.ts";

export const fileWriteTool: Tool = {
  name: "file_write",
  description:
    "Create a file inside the working directory, or replace all of an existing one, with the given content. An existing file must have been read with read_file first and be unchanged since. The user sees the change as a diff and must approve it; a rejection is not an error to retry.",
  run: fileWrite,
  parameters: {
    type: "object",
    properties: {
      file_path: {
        type: "string",
        description: "The file, relative to the working directory.",
      },
      content: { type: "string", description: "The whole new content of the file." },
    },
    required: ["file_path", "content"],
    additionalProperties: false,
  },
};

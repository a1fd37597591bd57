// The blocks a real response can hold besides text, tool_use and thinking: server tool calls and
// their results, MCP calls, container uploads, and types newer than this file. A step may script
// any of them, so a test can prove that a client sends back what it does not understand.

/** A block of any other type, with its fields as the step gives them. */
export interface ExtraBlock {
  type: string;
  [field: string]: unknown;
}

// Calls the service runs itself, with the id prefixes the real service uses.
const CALLS: Record<string, string> = {
  server_tool_use: "srvtoolu_",
  mcp_tool_use: "mcptoolu_",
};

// What each known type needs besides `type`; `id`, `input` and `tool_use_id` are filled in.
const REQUIRED: Record<string, string[]> = {
  server_tool_use: ["name"],
  mcp_tool_use: ["name", "server_name"],
  web_search_tool_result: ["content"],
  web_fetch_tool_result: ["content"],
  code_execution_tool_result: ["content"],
  mcp_tool_result: ["content"],
  container_upload: ["file_id"],
};

/** The types a step may script with fields checked; any other type is passed as given. */
export const EXTRA_TYPES = Object.keys(REQUIRED);

export function isResultType(type: string): boolean {
  return type !== "tool_result" && type.endsWith("_tool_result");
}

/** Checks a step's block of an extra type; the error names the step and the field. */
export function checkExtraBlock(block: Record<string, unknown>, where: string): void {
  for (const field of REQUIRED[String(block.type)] ?? []) {
    if (block[field] === undefined) throw new Error(`${where}: "${field}" is required`);
  }
  for (const field of ["name", "server_name", "file_id", "id", "tool_use_id"]) {
    if (block[field] !== undefined && typeof block[field] !== "string") {
      throw new Error(`${where}: "${field}" must be a string`);
    }
  }
  if (CALLS[String(block.type)] && block.input !== undefined) {
    const { input } = block;
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      throw new Error(`${where}: "input" must be an object`);
    }
  }
}

/**
 * Fills in the ids of one reply's extra blocks, in order: a call without `id` gets
 * `srvtoolu_<message>_<n>` (`mcptoolu_…` for MCP), a result without `tool_use_id` answers the
 * latest call before it.
 */
export function extraFiller(messageId: string): (block: ExtraBlock) => ExtraBlock {
  const message = messageId.replace(/^msg_/, "");
  let calls = 0;
  let latest: string | undefined;
  return (block) => {
    const prefix = CALLS[block.type];
    if (prefix !== undefined) {
      const id = typeof block.id === "string" ? block.id : `${prefix}${message}_${++calls}`;
      latest = id;
      return { ...block, id, input: block.input ?? {} };
    }
    if (isResultType(block.type) && block.tool_use_id === undefined && latest !== undefined) {
      return { ...block, tool_use_id: latest };
    }
    return block;
  };
}

/** Whether a block is one of the four core kinds, whose fields the kit knows. */
export function isCore<Core extends { type: string }>(block: Core | ExtraBlock): block is Core {
  return ["text", "tool_use", "thinking", "redacted_thinking"].includes(block.type);
}

/** How an extra block opens in a stream: a call with empty input, anything else whole. */
export function extraStart(block: ExtraBlock): ExtraBlock {
  return CALLS[block.type] === undefined ? block : { ...block, input: {} };
}

/** Whether the block's input streams as `input_json_delta`s, like a tool_use's. */
export function streamsInput(block: ExtraBlock): boolean {
  return CALLS[block.type] !== undefined;
}

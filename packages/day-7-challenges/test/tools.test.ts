import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { NO_UI } from "../src/diff-ui.ts";
import { ReadState } from "../src/fs-safety.ts";
import { echo } from "../src/tools/echo.ts";
import { defaultTools, type ToolContext, ToolError, ToolRegistry } from "../src/tools/index.ts";
import { systemDate } from "../src/tools/system-date.ts";

// A context for tools that read no files.
const ctx: ToolContext = {
  cwd: fileURLToPath(new URL("..", import.meta.url)),
  readState: new ReadState(),
  signal: new AbortController().signal,
  ui: NO_UI,
};

test("echo returns its text argument", () => {
  expect(echo({ text: "hi" })).toBe("hi");
  expect(echo({})).toBe("");
});

test("the registry runs a known tool and pairs the result with the call id", async () => {
  const result = await defaultTools().run(
    { id: "call_1", name: "echo", arguments: { text: "hi" } },
    ctx,
  );
  expect(result).toEqual({ toolCallId: "call_1", content: "hi", isError: false });
});

test("an unknown tool becomes an error result that names the tools there are", async () => {
  const tools = new ToolRegistry();
  tools.register({ name: "echo", description: "", run: echo });
  tools.register({
    name: "shout",
    description: "",
    run: (args) => String(args.text).toUpperCase(),
  });
  const result = await tools.run({ id: "call_2", name: "teleport", arguments: {} }, ctx);
  expect(result).toEqual({
    toolCallId: "call_2",
    content: "unknown tool: teleport (available: echo, shout)",
    isError: true,
  });
});

test.each([
  ["a string", "hi"],
  ["an array", ["hi"]],
  ["null", null],
  ["missing", undefined],
])(
  "an input that is not an object (%s) is an error result, and the tool does not run",
  async (_, input) => {
    const tools = new ToolRegistry();
    tools.register({
      name: "date",
      description: "",
      run: () => {
        throw new Error("must not run");
      },
    });
    expect(await tools.run({ id: "call_3", name: "date", arguments: input }, ctx)).toEqual({
      toolCallId: "call_3",
      content: "bad arguments for date: input must be an object",
      isError: true,
    });
  },
);

test("system_date returns the local date, time and zone", () => {
  expect(systemDate()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \S+$/);
});

test("list() gives every registered tool with its schema; system_date takes no arguments", () => {
  const tools = defaultTools().list();
  expect(tools.map((tool) => tool.name)).toEqual([
    "echo",
    "system_date",
    "read_file",
    "list_files",
    "glob",
    "grep",
    "project_tree",
    "web_fetch",
    "web_search",
    "file_write",
    "file_edit",
    "bash",
    "git_status",
    "git_diff",
    "ask_user_question",
    "bash_output",
    "kill_shell",
    "memory_write",
    "memory_recall",
    "cron_create",
    "cron_list",
    "cron_cancel",
  ]);
  expect(tools[0]?.parameters).toEqual({
    type: "object",
    properties: { text: { type: "string", description: "The text to repeat." } },
    required: ["text"],
    additionalProperties: false,
  });
  expect(tools[1]?.parameters).toBeUndefined();
});

test.each([
  [{}, 'bad arguments for echo: missing required property "text"'],
  [{ text: 42 }, 'bad arguments for echo: property "text" should be string, got integer'],
  [{ text: ["a"] }, 'bad arguments for echo: property "text" should be string, got array'],
  [{ text: null }, 'bad arguments for echo: property "text" should be string, got null'],
  [{ text: "hi", loud: true }, 'bad arguments for echo: unexpected property "loud"'],
])(
  "arguments %j that break the schema become an error result the model reads",
  async (args, content) => {
    const result = await defaultTools().run({ id: "toolu_1", name: "echo", arguments: args }, ctx);
    expect(result).toEqual({ toolCallId: "toolu_1", content, isError: true });
  },
);

test("a number property takes an integer; extra properties pass unless forbidden", async () => {
  const tools = new ToolRegistry();
  tools.register({
    name: "add",
    description: "",
    run: (args) => String(Number(args.a) + Number(args.b)),
    parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
  });
  expect(
    (await tools.run({ id: "1", name: "add", arguments: { a: 1, b: 2.5, note: "x" } }, ctx))
      .content,
  ).toBe("3.5");
  expect((await tools.run({ id: "2", name: "add", arguments: { a: "1" } }, ctx)).content).toBe(
    'bad arguments for add: property "a" should be number, got string',
  );
});

test("a ToolError is a refusal the model reads; any other throw is a bug that fails the run", async () => {
  const tools = new ToolRegistry();
  tools.register({
    name: "refuse",
    description: "",
    run: () => {
      throw new ToolError("not today");
    },
  });
  tools.register({
    name: "broken",
    description: "",
    run: async () => {
      throw new RangeError("a bug");
    },
  });
  expect(await tools.run({ id: "1", name: "refuse", arguments: {} }, ctx)).toEqual({
    toolCallId: "1",
    content: "not today",
    isError: true,
  });
  await expect(tools.run({ id: "2", name: "broken", arguments: {} }, ctx)).rejects.toThrow(
    RangeError,
  );
});

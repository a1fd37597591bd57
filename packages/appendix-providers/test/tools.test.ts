import { expect, test } from "vitest";
import { defaultTools, echo, systemDate, ToolRegistry } from "../src/tools.ts";

test("echo returns its text argument", () => {
  expect(echo({ text: "hi" })).toBe("hi");
  expect(echo({})).toBe("");
});

test("the registry runs a known tool and pairs the result with the call id", () => {
  const result = defaultTools().run({ id: "call_1", name: "echo", arguments: { text: "hi" } });
  expect(result).toEqual({ toolCallId: "call_1", content: "hi", isError: false });
});

test("an unknown tool becomes an error result that names the tools there are", () => {
  const tools = new ToolRegistry();
  tools.register({ name: "echo", description: "", run: echo });
  tools.register({
    name: "shout",
    description: "",
    run: (args) => String(args.text).toUpperCase(),
  });
  const result = tools.run({ id: "call_2", name: "read_file", arguments: {} });
  expect(result).toEqual({
    toolCallId: "call_2",
    content: "unknown tool: read_file (available: echo, shout)",
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
  (_, input) => {
    const tools = new ToolRegistry();
    tools.register({
      name: "date",
      description: "",
      run: () => {
        throw new Error("must not run");
      },
    });
    expect(tools.run({ id: "call_3", name: "date", arguments: input })).toEqual({
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
  expect(tools.map((tool) => tool.name)).toEqual(["echo", "system_date"]);
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
])("arguments %j that break the schema become an error result the model reads", (args, content) => {
  const result = defaultTools().run({ id: "toolu_1", name: "echo", arguments: args });
  expect(result).toEqual({ toolCallId: "toolu_1", content, isError: true });
});

test("a number property takes an integer; extra properties pass unless forbidden", () => {
  const tools = new ToolRegistry();
  tools.register({
    name: "add",
    description: "",
    run: (args) => String(Number(args.a) + Number(args.b)),
    parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
  });
  expect(tools.run({ id: "1", name: "add", arguments: { a: 1, b: 2.5, note: "x" } }).content).toBe(
    "3.5",
  );
  expect(tools.run({ id: "2", name: "add", arguments: { a: "1" } }).content).toBe(
    'bad arguments for add: property "a" should be number, got string',
  );
});

test("arguments a provider could not read are reported as such, and the tool does not run", () => {
  const tools = new ToolRegistry();
  let ran = false;
  tools.register({
    name: "mark",
    description: "",
    run: () => {
      ran = true;
      return "ran";
    },
  });
  const result = tools.run({
    id: "call_9",
    name: "mark",
    arguments: "{",
    argumentsError: "not valid JSON: {",
  });
  expect(result).toEqual({
    toolCallId: "call_9",
    content: "bad arguments for mark: not valid JSON: {",
    isError: true,
  });
  expect(ran).toBe(false);
  // An unknown tool is still named as unknown first.
  expect(
    tools.run({ id: "c", name: "nope", arguments: {}, argumentsError: "not valid JSON: {" })
      .content,
  ).toBe("unknown tool: nope (available: mark)");
});

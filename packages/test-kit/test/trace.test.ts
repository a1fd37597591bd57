import { expect, test } from "vitest";
import { parseArguments, parsePythonLiteral, parseTrace } from "../src/trace.ts";

test("parses the header-less trace lines of a one-shot run", () => {
  const stdout =
    'Agent Code\ncwd: /x\n\ntool_call: echo {"text":"hi"}\nobservation: hi\nfinal: echo tool returned: hi\n';
  expect(parseTrace(stdout)).toEqual([
    { kind: "tool_call", name: "echo", arguments: { text: "hi" }, rawArguments: '{"text":"hi"}' },
    { kind: "observation", text: "hi" },
    { kind: "final", text: "echo tool returned: hi" },
  ]);
});

test("JSON with spaces and a Python dict repr parse to the same arguments", () => {
  expect(parseArguments('{"text": "hi"}')).toEqual({ text: "hi" });
  expect(parseArguments("{'text': 'hi'}")).toEqual({ text: "hi" });
  expect(parseArguments("{}")).toEqual({});
  expect(parseArguments("")).toEqual({});
});

test("Python literals: nesting, escapes, True/False/None, numbers, tuples", () => {
  expect(
    parsePythonLiteral(
      "{'a': [1, -2.5, True, False, None], 'b': {\"c\": 'it\\'s'}, 'd': (1, 2), 'e': 'line\\nbreak'}",
    ),
  ).toEqual({ a: [1, -2.5, true, false, null], b: { c: "it's" }, d: [1, 2], e: "line\nbreak" });
  expect(() => parsePythonLiteral("{'a': }")).toThrow(SyntaxError);
});

test("arguments that are neither JSON nor Python stay as text", () => {
  expect(parseArguments("text=hi")).toBe("text=hi");
});

test("a final text with several lines runs to the end of stdout", () => {
  expect(parseTrace("final: first\nsecond\n\nfourth\n")).toEqual([
    { kind: "final", text: "first\nsecond\n\nfourth" },
  ]);
});

test("a multi-line observation continues until the next trace line", () => {
  expect(parseTrace("tool_call: read {}\nobservation: a\nb\nfinal: done\n")).toEqual([
    { kind: "tool_call", name: "read", arguments: {}, rawArguments: "{}" },
    { kind: "observation", text: "a\nb" },
    { kind: "final", text: "done" },
  ]);
});

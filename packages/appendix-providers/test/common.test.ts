// Reading the arguments a model wrote as JSON text (OpenAI's protocols): what parses is the input,
// whatever its type (the registry checks it is an object); what does not parse is the model's
// mistake, said in a way it can fix.
import { expect, test } from "vitest";
import { parseArguments } from "../src/providers/common.ts";

test.each([
  ['{"text":"hi"}', { text: "hi" }],
  ['  {"n": {"deep": [1]}} ', { n: { deep: [1] } }],
  ["", {}],
  ["{}", {}],
  ['["hi"]', ["hi"]],
  ["null", null],
])("JSON text %j is read as the input %j", (raw, input) => {
  expect(parseArguments(raw)).toEqual({ arguments: input });
});

test("a gateway that sends the object itself is taken at its word", () => {
  const input = { text: "hi" };
  expect(parseArguments(input).arguments).toBe(input);
});

test.each([
  ['{"text": "hi', 'not valid JSON: {"text": "hi'],
  ["text=hi", "not valid JSON: text=hi"],
  [`{"text":"${"x".repeat(80)}`, `not valid JSON: {"text":"${"x".repeat(51)}…`],
])("JSON text %j is the model's mistake: %s", (raw, problem) => {
  expect(parseArguments(raw)).toEqual({ arguments: raw, argumentsError: problem });
});

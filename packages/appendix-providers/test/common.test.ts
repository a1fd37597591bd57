// Reading the arguments a model wrote: the JSON text of OpenAI's protocols, the object of the
// Messages API. Anything that is not an object is the model's mistake, said in a way it can fix.
import { expect, test } from "vitest";
import { objectArguments, parseArguments } from "../src/providers/common.ts";

test.each([
  ['{"text":"hi"}', { arguments: { text: "hi" } }],
  ['  {"n": {"deep": [1]}} ', { arguments: { n: { deep: [1] } } }],
  ["", { arguments: {} }],
  ["{}", { arguments: {} }],
])("JSON text %j is read as arguments", (raw, expected) => {
  expect(parseArguments(raw)).toEqual(expected);
});

test.each([
  ['{"text": "hi', 'not valid JSON: {"text": "hi'],
  ["text=hi", "not valid JSON: text=hi"],
  [`{"text":"${"x".repeat(80)}`, `not valid JSON: {"text":"${"x".repeat(51)}…`],
  ['["hi"]', "expected a JSON object, got an array"],
  ['"hi"', "expected a JSON object, got string"],
  ["null", "expected a JSON object, got null"],
  ["42", "expected a JSON object, got number"],
])("JSON text %j is the model's mistake: %s", (raw, problem) => {
  expect(parseArguments(raw)).toEqual({ arguments: {}, argumentsError: problem });
});

test("an object passes as it is; anything else becomes an arguments error", () => {
  const input = { text: "hi" };
  expect(objectArguments(input).arguments).toBe(input);
  expect(objectArguments("hi")).toEqual({
    arguments: {},
    argumentsError: "expected a JSON object, got string",
  });
});

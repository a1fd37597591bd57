// What the contracts say to a learner matches the pages: trace arguments are compact JSON, as the
// CLI prints them (`tool_call: echo {"text":"hi"}`), never with a space after the colon.
import { expect, test } from "vitest";
import { contracts } from "../contracts/index.ts";

// A JSON object right after a tool's name, in a title or a judgement's message.
const ARGUMENTS = /\b[a-z_]+ (\{"[^`]*?\})(?=[`\s]|$)/g;

test("every tool call's arguments in a title or a message are written as compact JSON", () => {
  const texts = contracts.flatMap((contract) =>
    contract.scenarios.flatMap((scenario) => [
      scenario.title,
      ...scenario.judgements.map((judgement) => judgement.message),
    ]),
  );
  const found = texts.flatMap((text) => [...text.matchAll(ARGUMENTS)].map((match) => match[1]));
  expect(found.length).toBeGreaterThan(3);
  const loose = found.filter((json) => json !== JSON.stringify(JSON.parse(json ?? "")));
  expect(loose).toEqual([]);
});

// The judgements several contracts share, judged on observations built here rather than on a run,
// so each way a project can get them wrong is shown to fail.
import { expect, test } from "vitest";
import { namesEveryToolOffered } from "../contracts/shared.ts";
import type { Observed } from "../src/contract.ts";

// What a run of the unknown-tool scenario leaves: the tools its first request offered, and the
// observation the command printed for the call of `teleport`.
function unknownToolRun(offered: string[], observation: string): Observed {
  const request = { index: 0, body: { tools: offered.map((name) => ({ name })) } };
  return {
    trace: [
      { kind: "tool_call", name: "teleport", arguments: {}, rawArguments: "{}" },
      { kind: "observation", text: observation },
    ],
    requests: [request],
  } as unknown as Observed;
}

const judgement = namesEveryToolOffered("docs/day-4.md#v2", "file_edit");

test("the unknown-tool text passes when it names the offered tools in the order offered", () => {
  const offered = ["read_file", "write_file", "file_edit"];
  const text = "unknown tool: teleport (available: read_file, write_file, file_edit)";
  expect(judgement.check(unknownToolRun(offered, text))).toBe(true);
  // A project may offer its tools in its own order: the text follows the request, not a list.
  const reordered = ["file_edit", "read_file", "write_file"];
  const itsText = "unknown tool: teleport (available: file_edit, read_file, write_file)";
  expect(judgement.check(unknownToolRun(reordered, itsText))).toBe(true);
});

test("the unknown-tool text fails when the stage's new tool was not offered", () => {
  const offered = ["read_file", "write_file"];
  const text = "unknown tool: teleport (available: read_file, write_file)";
  expect(judgement.check(unknownToolRun(offered, text))).toBe(false);
});

test("the unknown-tool text fails when it leaves out a tool, reorders them or says it another way", () => {
  const offered = ["read_file", "write_file", "file_edit"];
  for (const text of [
    "unknown tool: teleport (available: read_file, file_edit)",
    "unknown tool: teleport (available: file_edit, read_file, write_file)",
    "unknown tool: teleport",
    "Unknown tool teleport. Available: read_file, write_file, file_edit",
  ]) {
    expect(judgement.check(unknownToolRun(offered, text)), text).toBe(false);
  }
});

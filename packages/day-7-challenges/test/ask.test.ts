import { expect, test } from "vitest";
import type { Choice, Ui } from "../src/diff-ui.ts";
import { ReadState } from "../src/fs-safety.ts";
import { decide, PERMISSION_MODES } from "../src/permissions.ts";
import { defaultTools } from "../src/tools/index.ts";

// A person who makes `choice` and remembers what they were asked.
function person(choice: Choice) {
  const asked: [string, string[]][] = [];
  const ui: Ui = {
    colour: false,
    print: () => {},
    confirm: async () => false,
    choose: async (prompt, options) => {
      asked.push([prompt, options]);
      return choice;
    },
  };
  return { ui, asked };
}

async function ask(args: Record<string, unknown>, choice: Choice) {
  const { ui, asked } = person(choice);
  const ctx = { cwd: ".", readState: new ReadState(), signal: new AbortController().signal, ui };
  const result = await defaultTools().run(
    { id: "toolu_1", name: "ask_user_question", arguments: args },
    ctx,
  );
  return { result, asked };
}

const ARGS = { prompt: "Which test runner?", options: ["vitest", "jest"] };

test.each([
  [{ kind: "selected", label: "jest" }, 'User selected: "jest"'],
  [{ kind: "answered", text: 'use "pnpm"' }, 'User answered: "use \\"pnpm\\""'],
  [{ kind: "skipped" }, "User skipped the question."],
] as [Choice, string][])("%j is answered %s, never as an error", async (choice, content) => {
  const { result, asked } = await ask(ARGS, choice);
  expect(result).toEqual({ toolCallId: "toolu_1", content, isError: false });
  expect(asked).toEqual([["Which test runner?", ["vitest", "jest"]]]);
});

test.each([[[]], [["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"]]])(
  "options %j are refused before the person is asked",
  async (options) => {
    const { result, asked } = await ask({ prompt: "?", options }, { kind: "skipped" });
    expect(result).toEqual({
      toolCallId: "toolu_1",
      content: "options must list 1 to 9 choices",
      isError: true,
    });
    expect(asked).toEqual([]);
  },
);

test("options that are not strings are refused", async () => {
  const { result } = await ask({ prompt: "?", options: ["a", 2] }, { kind: "skipped" });
  expect(result.content).toBe("options must be strings");
});

test.each(PERMISSION_MODES)("in %s mode the gate lets the model ask", (mode) => {
  const tool = defaultTools().get("ask_user_question");
  expect(decide({ tool, args: ARGS, mode, cwd: process.cwd() }).behavior).not.toBe("deny");
  if (mode === "plan")
    expect(decide({ tool, args: ARGS, mode, cwd: process.cwd() }).behavior).toBe("allow");
});

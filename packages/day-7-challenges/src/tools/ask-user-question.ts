// ask_user_question: the model asks the person a question with a few answers to pick from.
import { type Tool, type ToolContext, ToolError } from "./index.ts";

const MAX_OPTIONS = 9;

// Whatever the person does is an answer, not an error: a pick, their own words, or a skip.
export async function askUserQuestion(
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<string> {
  const options = args.options as unknown[];
  if (options.length < 1 || options.length > MAX_OPTIONS) {
    throw new ToolError(`options must list 1 to ${MAX_OPTIONS} choices`);
  }
  if (!options.every((option) => typeof option === "string")) {
    throw new ToolError("options must be strings");
  }
  const choice = await ctx.ui.choose(String(args.prompt), options as string[]);
  if (choice.kind === "selected") return `User selected: ${JSON.stringify(choice.label)}`;
  if (choice.kind === "answered") return `User answered: ${JSON.stringify(choice.text)}`;
  return "User skipped the question.";
}

export const askUserQuestionTool: Tool = {
  name: "ask_user_question",
  description:
    "Ask the user a question when a choice is theirs to make (a library, a name, whether to go on). Give 1 to 9 short options; the user picks one, answers in their own words, or skips.",
  run: askUserQuestion,
  parameters: {
    type: "object",
    properties: {
      prompt: { type: "string", description: "The question, in one sentence." },
      options: {
        type: "array",
        items: { type: "string" },
        description: "The answers to offer, 1 to 9.",
      },
    },
    required: ["prompt", "options"],
    additionalProperties: false,
  },
};

// Day 5, v3: ask_user_question, the model asks the person and gets the answer as its result (taught
// in docs/day-5-tasks.md). The folder of Day 3's scenarios, answers on stdin. Core scenarios are
// what the Python course's tool also does: a number picks that option, 0 skips, and neither is an
// error. The menu's lines, an answer in the person's own words, the end of input, the count of
// options, plan mode and the REPL's order of lines are conformance.
import type { Contract, Judgement, Observed } from "../src/contract.ts";
import {
  conversationOf,
  exitCode,
  judge,
  linesInOrder,
  messageText,
  resultOf,
} from "../src/judgements.ts";
import { fileTwin } from "./day-3-v1.ts";
import { type Call, offered, resultIs, turn, turns, wentOn } from "./day-4-v1.ts";
import { day5v2, gateScenario } from "./day-5-v2.ts";
import { answerWithResults, namesEveryToolOffered, scenarioOf } from "./shared.ts";

const V3 = "docs/day-5-tasks.md#v3-the-model-asks-the-human";

const TOOL = "ask_user_question";
const QUESTION = "Which test runner?";
const RUNNERS = ["vitest", "jest"];

function ask(options: unknown[]): Call {
  return [TOOL, { prompt: QUESTION, options }];
}

// What the person's answer came back as: the result of the first ask_user_question call.
function answerText(o: Observed): string {
  return resultOf(o, TOOL)?.text ?? "";
}

// An answer, a pick or a skip is no error. Loose on purpose: a protocol without is_error counts.
export function notAnError(docs: string, tool: string, why: string): Judgement {
  return judge(docs, `${why}: the ${tool} result should not go back with is_error: true`, (o) => {
    const result = resultOf(o, tool);
    return result !== undefined && result.isError !== true;
  });
}

// The menu, its answer and the observation, in that order under the tool_call.
function menuShown(answer: string): Judgement {
  return judge(
    V3,
    `expected \`tool_call: ${TOOL}\`, \`? ${QUESTION}\`, \`  1. vitest\`, \`  2. jest\`, \`  0. skip\`, \`Choice [0-2] ${answer}\` and \`observation:\` in that order`,
    (o) =>
      linesInOrder(
        o,
        `tool_call: ${TOOL}`,
        `? ${QUESTION}`,
        "  1. vitest",
        "  2. jest",
        "  0. skip",
        `Choice [0-2] ${answer}`,
        "observation: ",
      ),
  );
}

const SKIPPED = "User skipped the question.";
const OPTIONS_TEXT = "options must list 1 to 9 choices";
const TEN = Array.from({ length: 10 }, (_, n) => `option ${n + 1}`);

// The first user message of each request: in a REPL, the line that started its run.
// The prompt each request answers: its newest message the person typed (a user message with text,
// not one of tool results). Each REPL line a fresh run (Day 5) or one session for the REPL (Day 6):
// either way, the line whose run sent it.
export function promptsSent(o: Observed): string[] {
  return o.requests.map((request) => {
    const typed = conversationOf(request).filter(
      (message) => (message as { role?: string })?.role === "user" && messageText(message) !== "",
    );
    return messageText(typed.at(-1));
  });
}

// The core scenario ask-skip-text judges again, on the same run.
const askSkip = gateScenario({
  id: "ask-skip",
  title: "the same question answered 0: skipped, and no option is named",
  level: "core",
  stdin: "0\n",
  steps: turns(ask(RUNNERS)),
  judgements: [
    offered(V3, TOOL),
    judge(V3, "0 skips: the result should name neither `vitest` nor `jest`", (o) => {
      const text = answerText(o);
      return resultOf(o, TOOL) !== undefined && !text.includes("vitest") && !/\bjest\b/.test(text);
    }),
    notAnError(V3, TOOL, "a skip is an answer"),
    ...wentOn(V3),
  ],
});

export const day5v3: Contract = {
  stage: "day-5-v3",
  title: "Day 5 v3: the model asks the human",
  base: "day-5-v2",
  scenarios: [
    gateScenario({
      id: "ask-select",
      title: "ask_user_question with vitest and jest, answered 2: the model is told jest",
      level: "core",
      stdin: "2\n",
      steps: turns(ask(RUNNERS)),
      judgements: [
        offered(V3, TOOL),
        judge(
          V3,
          "the second option was picked: the result should name `jest`, not `vitest`",
          (o) => /\bjest\b/.test(answerText(o)) && !answerText(o).includes("vitest"),
        ),
        notAnError(V3, TOOL, "a pick is an answer"),
        ...wentOn(V3),
      ],
    }),
    askSkip,
    gateScenario({
      id: "ask-menu-text",
      title: "the menu: `? <prompt>`, the options numbered from 1, `0. skip`, then `Choice [0-2] `",
      level: "conformance",
      stdin: "2\n",
      steps: turns(ask(RUNNERS)),
      judgements: [menuShown("2"), ...resultIs(V3, TOOL, 'User selected: "jest"', false)],
    }),
    fileTwin(askSkip, {
      id: "ask-skip-text",
      title: "a skip's result: `User skipped the question.`",
      judgements: resultIs(V3, TOOL, SKIPPED, false),
    }),
    gateScenario({
      id: "ask-free-text",
      title: "an answer that is no option's number goes back in the person's words",
      level: "conformance",
      stdin: "use pnpm\n",
      steps: turns(ask(RUNNERS)),
      judgements: resultIs(V3, TOOL, 'User answered: "use pnpm"', false),
    }),
    gateScenario({
      id: "ask-eof",
      title: "with stdin already at its end the question is skipped, and the line is ended",
      level: "conformance",
      stdin: "",
      steps: turns(ask(RUNNERS)),
      judgements: [
        ...resultIs(V3, TOOL, SKIPPED, false),
        judge(V3, "expected `Choice [0-2] ` on a line of its own, then the observation", (o) =>
          linesInOrder(o, /^Choice \[0-2\] ?$/, "observation: "),
        ),
      ],
    }),
    gateScenario({
      id: "ask-bad-options",
      title: "no options, then ten: each refused before any menu is shown",
      level: "conformance",
      stdin: "1\n1\n",
      steps: turns(ask([]), ask(TEN)),
      judgements: [
        ...resultIs(V3, TOOL, OPTIONS_TEXT, true, 0),
        ...resultIs(V3, TOOL, OPTIONS_TEXT, true, 1),
        judge(V3, "a refused question shows no menu: no `? ` or `Choice [` line", (o) =>
          o.stdoutLines.every((line) => !line.startsWith("? ") && !line.startsWith("Choice [")),
        ),
      ],
    }),
    gateScenario({
      id: "ask-in-plan",
      title: "plan mode: the question is still asked, and the answer comes back",
      level: "conformance",
      mode: "plan",
      stdin: "2\n",
      steps: turns(ask(RUNNERS)),
      judgements: [menuShown("2"), ...resultIs(V3, TOOL, 'User selected: "jest"', false)],
    }),
    gateScenario({
      id: "ask-repl-order",
      title: "in the REPL, piped lines are used in order: a prompt, the menu's 2, a second prompt",
      level: "conformance",
      repl: true,
      stdin: "Pick a test runner\n2\nSay hello\n",
      steps: [
        turn(ask(RUNNERS)),
        answerWithResults,
        { content: [{ type: "text", text: "Hello." }] },
      ],
      judgements: [
        ...resultIs(V3, TOOL, 'User selected: "jest"', false),
        judge(
          V3,
          "expected two runs: the first line's (a question and an answer) and the third line's; the `2` answers the menu and starts no run",
          (o) =>
            promptsSent(o).join(" | ") === "Pick a test runner | Pick a test runner | Say hello",
        ),
        judge(
          V3,
          "expected `Choice [0-2] 2`, then the first run's `final:`, then `final: Hello.`",
          (o) => linesInOrder(o, "Choice [0-2] 2", "final: ", "final: Hello."),
        ),
        exitCode(V3, 0, "the end of input ends the REPL with 0"),
      ],
    }),
    // Judged on Day 2's unknown-tool run, which this stage keeps: the tools offered are this stage's.
    fileTwin(scenarioOf(day5v2, "unknown-tool"), {
      id: "unknown-tool-text",
      title: "the unknown-tool text names the tools there are, ask_user_question too",
      judgements: [namesEveryToolOffered(V3, TOOL)],
    }),
    // Day 5 v2's scenarios, but the unknown-tool text, which names this stage's longer list.
    ...day5v2.scenarios.filter((scenario) => scenario.id !== "unknown-tool-text"),
  ],
};

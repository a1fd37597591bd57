// Day 5 challenges: the answers to docs/day-5-challenges.md#challenges on top of day-5-v3. Core scenarios are
// what any answer does (a command never runs longer than --max-timeout, whether the timeout is
// refused or lowered; an "always" answer lets the same command run again without a question; a
// multi-select question names every pick); texts, the usage error and the REPL's shared memory are
// conformance. Every day-5-v3 scenario is kept, but the command question's text, which gains `/a`.
import type { Contract, Scenario } from "../src/contract.ts";
import { exitCode, fileText, judge, linesInOrder, resultOf } from "../src/judgements.ts";
import { fileTwin } from "./day-3-v1.ts";
import { absent, type Call, resultIs, turn, turns, wentOn } from "./day-4-v1.ts";
import { bash } from "./day-5-v1.ts";
import { gateScenario } from "./day-5-v2.ts";
import { day5v3 } from "./day-5-v3.ts";
import { answerWithResults } from "./shared.ts";

const TIMEOUT = "docs/day-5-challenges.md#answer-1-a-ceiling-on-timeouts";
const ALWAYS = "docs/day-5-challenges.md#answer-2-always-for-this-session";
const SEVERAL = "docs/day-5-challenges.md#answer-3-several-answers";

// The scenario with options before its own arguments, and time for a late marker to appear.
function withOptions(scenario: Scenario, options: string[], settleMs?: number): Scenario {
  const { args } = scenario;
  return {
    ...scenario,
    args: (context) => [...options, ...(typeof args === "function" ? args(context) : args)],
    ...(settleMs === undefined ? {} : { settleMs }),
  };
}

// A command that writes late.txt after 3 seconds: under a ceiling of 1 s it never does.
const LATE = "sleep 3; touch late.txt";

function logHas(docs: string, text: string, why: string) {
  return judge(docs, `${why}: log.txt should hold ${JSON.stringify(text)}`, (o) => {
    return fileText(o, "work/log.txt") === text;
  });
}

const APPEND_ONE = bash("echo one >> log.txt");
const ASK_SEVERAL: Call = [
  "ask_user_question",
  { prompt: "Which checks?", options: ["lint", "types", "tests"], multi_select: true },
];

// The core scenario multi-select-text judges again, on the same run.
const multiSelect = gateScenario({
  id: "multi-select",
  title: "multi_select with lint, types and tests, answered 1,3: both picks are named",
  level: "core",
  stdin: "1,3\n",
  steps: turns(ASK_SEVERAL),
  judgements: [
    judge(SEVERAL, "1,3 picks lint and tests: the result should name both, not types", (o) => {
      const text = resultOf(o, "ask_user_question")?.text ?? "";
      return text.includes("lint") && text.includes("tests") && !text.includes("types");
    }),
    ...wentOn(SEVERAL),
  ],
});

export const day5challenges: Contract = {
  stage: "day-5-challenges",
  title: "Day 5 challenges: a ceiling on timeouts, always for the session, several answers",
  base: "day-5-v3",
  scenarios: [
    ...day5v3.scenarios.filter((scenario) => scenario.id !== "bash-prompt-text"),
    gateScenario({
      id: "bash-prompt-text",
      title: "the command is shown, then `Run this command? [y/N/a] `",
      level: "conformance",
      stdin: "y\n",
      steps: turns(bash("printf '%s\\n' shown")),
      judgements: [
        judge(
          ALWAYS,
          "expected `tool_call: bash`, `Command: printf '%s\\n' shown`, `Run this command? [y/N/a] y` and `observation:` in that order",
          (o) =>
            linesInOrder(
              o,
              "tool_call: bash",
              "Command: printf '%s\\n' shown",
              "Run this command? [y/N/a] y",
              "observation: ",
            ),
        ),
      ],
    }),
    withOptions(
      gateScenario({
        id: "max-timeout-holds",
        title: "--max-timeout 1: a command asking for 10 s never runs for 3 s",
        level: "core",
        stdin: "y\n",
        steps: turns(bash(LATE, 10)),
        judgements: [
          absent(TIMEOUT, "work/late.txt", "the command must not run past --max-timeout 1"),
          ...wentOn(TIMEOUT),
        ],
      }),
      ["--max-timeout", "1"],
      3_000,
    ),
    withOptions(
      gateScenario({
        id: "max-timeout-default",
        title: "--max-timeout 1: a command with no timeout of its own is stopped after 1 s",
        level: "conformance",
        stdin: "y\n",
        steps: turns(bash(LATE)),
        judgements: [
          ...resultIs(
            TIMEOUT,
            "bash",
            "command timed out after 1 s and was stopped; output so far:\n(no output)",
            true,
          ),
          absent(TIMEOUT, "work/late.txt", "the default timeout comes down to the ceiling"),
        ],
      }),
      ["--max-timeout", "1"],
      3_000,
    ),
    withOptions(
      gateScenario({
        id: "max-timeout-text",
        title: "--max-timeout 5: a timeout of 10 is refused with the range, before any question",
        level: "conformance",
        stdin: "y\n",
        steps: turns(bash("echo hi", 10)),
        judgements: [
          ...resultIs(
            TIMEOUT,
            "bash",
            "bad arguments for bash: timeout must be between 1 and 5 seconds",
            true,
          ),
          judge(TIMEOUT, "the refusal comes before the question: no `Command:` line", (o) =>
            o.stdoutLines.every((line) => !line.startsWith("Command:")),
          ),
        ],
      }),
      ["--max-timeout", "5"],
    ),
    {
      id: "max-timeout-invalid",
      title: "--max-timeout 0 is a usage error: exit 2, one line, no request",
      level: "conformance",
      args: ["--max-timeout", "0", "hi"],
      judgements: [
        exitCode(TIMEOUT, 2, "a --max-timeout outside 1..600 is a usage error"),
        judge(
          TIMEOUT,
          "expected `error: --max-timeout must be an integer from 1 to 600, got 0` on stderr",
          (o) => o.stderr.trim() === "error: --max-timeout must be an integer from 1 to 600, got 0",
        ),
        judge(TIMEOUT, "a usage error sends no request", (o) => o.requests.length === 0),
      ],
    },
    gateScenario({
      id: "always-allow",
      title: "the same command twice, the first answered `a`: both run, with one answer",
      level: "core",
      stdin: "a\n",
      steps: turns(APPEND_ONE, APPEND_ONE),
      judgements: [
        logHas(ALWAYS, "one\none\n", "the second run needs no answer after an `a`"),
        ...wentOn(ALWAYS),
      ],
    }),
    gateScenario({
      id: "always-is-exact",
      title: "an `a` allows that exact command only: another one still asks",
      level: "conformance",
      stdin: "a\nn\n",
      steps: turns(APPEND_ONE, bash("echo two >> log.txt")),
      judgements: [
        logHas(ALWAYS, "one\n", "the second command is another one: it asks, and `n` stops it"),
        ...resultIs(ALWAYS, "bash", "the user rejected this command; it was not run", true, 1),
      ],
    }),
    gateScenario({
      id: "always-shown",
      title: "a command allowed for the session is still shown, marked as allowed",
      level: "conformance",
      stdin: "a\n",
      steps: turns(APPEND_ONE, APPEND_ONE),
      judgements: [
        judge(
          ALWAYS,
          "expected `Run this command? [y/N/a] a`, then `Command: echo one >> log.txt (allowed for this session)`",
          (o) =>
            linesInOrder(
              o,
              "Run this command? [y/N/a] a",
              "Command: echo one >> log.txt (allowed for this session)",
            ),
        ),
      ],
    }),
    gateScenario({
      id: "always-in-repl",
      title: "in the REPL an `a` holds for the next line's run too",
      level: "conformance",
      repl: true,
      stdin: "append one\na\nappend one again\n",
      steps: [turn(APPEND_ONE), answerWithResults, turn(APPEND_ONE), answerWithResults],
      judgements: [
        logHas(ALWAYS, "one\none\n", "a REPL is one session: its second line needs no answer"),
        exitCode(ALWAYS, 0, "the end of input ends the REPL with 0"),
      ],
    }),
    multiSelect,
    fileTwin(multiSelect, {
      id: "multi-select-text",
      title: 'several picks: `User selected: "lint", "tests"` after a `Choices` line',
      judgements: [
        ...resultIs(SEVERAL, "ask_user_question", 'User selected: "lint", "tests"', false),
        judge(SEVERAL, "expected `Choices [0-3, such as 1,2] 1,3` on stdout", (o) =>
          o.stdoutLines.includes("Choices [0-3, such as 1,2] 1,3"),
        ),
      ],
    }),
  ],
};

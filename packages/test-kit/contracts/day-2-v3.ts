// Day 2, v3: the multi-step loop and the finishing touches (DESIGN.md §3.4, §8). It keeps the tool
// round of v2, day-1's REPL under `--provider mock`, and v1's failure scenarios.
import { type Contract, keepScenarios, type Scenario } from "../src/contract.ts";
import {
  exitCode,
  finalText,
  judge,
  observations,
  oneErrorLine,
  reachedServer,
  sameJson,
  toolCalls,
  toolResults,
} from "../src/judgements.ts";
import type { RecordedRequest, Step } from "../src/server.ts";
import type { StepResult } from "../src/server-steps.ts";
import { day1 } from "./day-1.ts";
import { day2v1, NOT_THE_API_IDS } from "./day-2-v1.ts";
import { day2v2 } from "./day-2-v2.ts";
import { answerWithResults, DATE_PATTERN, lastResultTexts } from "./shared.ts";

const V3 = "docs/day-2.md#v3-the-multi-step-loop";
const STOP = "docs/day-2.md#stop-reasons";
const MISTAKES = "docs/day-2.md#model-mistakes-and-tool-bugs";
const TOUCHES = "docs/day-2.md#finishing-touches";

const NO_KEY = { ANTHROPIC_AUTH_TOKEN: undefined, ANTHROPIC_API_KEY: undefined };

const CHAIN_PROMPT =
  "Don't answer directly. First call system_date for today's date. Then call echo to repeat back what system_date returned. Then answer.";

// The second step of the chain: echo back exactly what system_date returned.
function echoTheDate(request: RecordedRequest): StepResult {
  const [date] = lastResultTexts(request);
  return {
    content: [{ type: "tool_use", id: "toolu_echo_2", name: "echo", input: { text: date ?? "" } }],
  };
}

// A model that asks for a tool at every turn, never answering.
const ALWAYS_A_TOOL: StepResult[] = [1, 2, 3, 4].map((n) => ({
  content: [
    { type: "tool_use", id: `toolu_loop_${n}`, name: "echo", input: { text: `again ${n}` } },
  ],
}));

// A response cut off by max_tokens while writing a tool call: its input is incomplete.
const TRUNCATED: StepResult = {
  content: [
    { type: "text", text: "I will echo" },
    { type: "tool_use", id: "toolu_cut_1", name: "echo", input: {} },
  ],
  stop_reason: "max_tokens",
};

// A stop_sequence reply, then one more answer a loop that wrongly goes on would ask for.
const STOP_SEQUENCE: Step[] = [
  { content: [{ type: "text", text: "Hello" }], stop_reason: "stop_sequence" },
  answerWithResults,
];

// Seed 001 checks argument names (missing, unexpected) and says types are not checked: a wrong
// type is this course's lesson, so that scenario is conformance.
function badArguments(
  id: string,
  input: Record<string, unknown>,
  text: string,
  level: Scenario["level"] = "core",
): Scenario[] {
  const steps: Step[] = [
    { content: [{ type: "tool_use", id: `toolu_${id}`, name: "echo", input }] },
    answerWithResults,
  ];
  return [
    {
      id: `bad-arguments-${id}`,
      title: `arguments that break echo's schema (${id}) come back as is_error; the run goes on`,
      level,
      args: ["echo something"],
      server: { steps },
      judgements: [
        exitCode(MISTAKES, 0, "a model's mistake is not a failed run"),
        judge(
          MISTAKES,
          "the tool should not run: its result must be sent back with is_error: true",
          (o) => {
            const results = toolResults(o.requests[1]?.body?.messages?.at(-1));
            return results.length === 1 && results[0]?.is_error === true;
          },
        ),
        judge(MISTAKES, "the run should go on to a final answer", (o) =>
          (finalText(o) ?? "").startsWith("The tools said: "),
        ),
      ],
    },
    {
      id: `bad-arguments-${id}-text`,
      title: `the bad-arguments text (${id})`,
      level: "conformance",
      args: ["echo something"],
      server: { steps },
      judgements: [
        judge(MISTAKES, `expected \`observation: ${text}\``, (o) =>
          sameJson(observations(o), [text]),
        ),
      ],
    },
  ];
}

function usageError(id: string, args: string[]): Scenario {
  return {
    id: `usage-${id}`,
    title: `usage error: ${args.slice(0, -1).join(" ")}`,
    level: "conformance",
    args,
    judgements: [exitCode(TOUCHES, 2, "a usage error"), oneErrorLine(TOUCHES)],
  };
}

// Each script holds a second reply, so a loop that wrongly goes on shows it in its trace and in a
// second request.
function stopsOn(reason: string, steps: Step[]): Scenario[] {
  return [
    {
      id: `stop-${reason}`,
      title: `stop_reason ${reason} ends the run without running any tool`,
      level: "core",
      args: ["echo hi using the echo tool"],
      server: { steps },
      judgements: [
        exitCode(STOP, 0, "a stopped run is a finished run"),
        judge(
          STOP,
          "expected exactly one request: the run must stop there",
          (o) => o.requests.length === 1,
        ),
        judge(
          STOP,
          `no tool may run after stop_reason ${reason} (no tool_call or observation line)`,
          (o) => o.trace.every((entry) => entry.kind === "final"),
        ),
        judge(
          STOP,
          "the run should still end with a final line",
          (o) => finalText(o) !== undefined,
        ),
      ],
    },
    {
      id: `stop-${reason}-text`,
      title: `the stop text for ${reason}`,
      level: "conformance",
      args: ["echo hi using the echo tool"],
      server: { steps },
      judgements: [
        judge(
          STOP,
          `expected \`final: stopped: stop_reason=${reason}\``,
          (o) => finalText(o) === `stopped: stop_reason=${reason}`,
        ),
      ],
    },
  ];
}

export const day2v3: Contract = {
  stage: "day-2-v3",
  title: "Day 2 v3: the multi-step loop",
  base: "day-2-v2",
  scenarios: [
    {
      id: "two-step-chain",
      title: "system_date, then echo of its result, then the answer: three requests",
      level: "core",
      args: [CHAIN_PROMPT],
      server: {
        steps: [
          { content: [{ type: "tool_use", id: "toolu_date_1", name: "system_date", input: {} }] },
          echoTheDate,
          answerWithResults,
        ],
      },
      judgements: [
        reachedServer(V3),
        exitCode(V3, 0, "a finished run exits 0"),
        judge(V3, "expected tool calls system_date, then echo", (o) =>
          sameJson(
            toolCalls(o).map((call) => call.name),
            ["system_date", "echo"],
          ),
        ),
        judge(V3, "echo should be called with exactly what system_date returned", (o) => {
          const [date] = observations(o);
          return (
            DATE_PATTERN.test(date ?? "") && sameJson(toolCalls(o)[1]?.arguments, { text: date })
          );
        }),
        judge(
          V3,
          "expected three requests: the loop keeps going while the model asks for tools",
          (o) => o.requests.length === 3,
        ),
        judge(
          V3,
          "the third request should hold five messages: user, assistant, results, assistant, results",
          (o) =>
            sameJson(
              (o.requests[2]?.body?.messages ?? []).map(
                (message: { role?: string }) => message.role,
              ),
              ["user", "assistant", "user", "assistant", "user"],
            ),
        ),
        judge(V3, "the final answer should come from the third response", (o) =>
          (finalText(o) ?? "").startsWith("The tools said: "),
        ),
      ],
    },
    {
      id: "max-steps",
      title: "--max-steps 2 against a model that always wants a tool: two requests, then stop",
      level: "core",
      args: ["--max-steps", "2", "echo forever"],
      server: { steps: ALWAYS_A_TOOL },
      judgements: [
        exitCode(V3, 0, "running out of steps still finishes the run"),
        judge(V3, "expected exactly 2 requests with --max-steps 2", (o) => o.requests.length === 2),
        judge(V3, "the run should still end with a final line", (o) => finalText(o) !== undefined),
      ],
    },
    {
      id: "max-steps-text",
      title: "the text for a used-up step budget",
      level: "conformance",
      args: ["--max-steps", "2", "echo forever"],
      server: { steps: ALWAYS_A_TOOL },
      judgements: [
        judge(
          V3,
          "expected `final: reached max_steps=2`",
          (o) => finalText(o) === "reached max_steps=2",
        ),
      ],
    },
    ...stopsOn("max_tokens", [TRUNCATED, answerWithResults]),
    ...stopsOn("refusal", [
      { content: [{ type: "text", text: "I can't help with that." }], stop_reason: "refusal" },
      answerWithResults,
    ]),
    // Seed 001 ends the run with a reason on every stop reason but end_turn and tool_use, so a
    // project may say `Stopped: …` here: the text as the answer is this course's reading.
    {
      id: "stop-sequence",
      title: "stop_reason stop_sequence ends the run after one request",
      level: "core",
      args: ["Say hello"],
      server: { steps: STOP_SEQUENCE },
      judgements: [
        exitCode(STOP, 0, "a finished run exits 0"),
        judge(
          STOP,
          "expected exactly one request: the run must stop there",
          (o) => o.requests.length === 1,
        ),
        judge(STOP, "no tool may run after stop_reason stop_sequence", (o) =>
          o.trace.every((entry) => entry.kind === "final"),
        ),
        judge(
          STOP,
          "the run should still end with a final line",
          (o) => finalText(o) !== undefined,
        ),
      ],
    },
    {
      id: "stop-sequence-text",
      title: "stop_reason stop_sequence gives the text as the answer",
      level: "conformance",
      args: ["Say hello"],
      server: { steps: STOP_SEQUENCE },
      judgements: [
        judge(
          STOP,
          "stop_sequence is a normal end: expected `final: Hello`",
          (o) => finalText(o) === "Hello",
        ),
      ],
    },
    ...badArguments("missing", {}, 'bad arguments for echo: missing required property "text"'),
    ...badArguments(
      "wrong-type",
      { text: 42 },
      'bad arguments for echo: property "text" should be string, got integer',
      "conformance",
    ),
    ...badArguments(
      "unexpected",
      { text: "hi", loud: true },
      'bad arguments for echo: unexpected property "loud"',
    ),
    // A prompt every mock of the course material echoes as it is; the reduction of `echo … using
    // the echo tool` is this course's mock (day-1's prompt-reduction-echo).
    {
      id: "mock-offline",
      title: "--provider mock runs offline with no key and no server",
      level: "core",
      args: ["--provider", "mock", "hi"],
      env: NO_KEY,
      judgements: [
        exitCode(TOUCHES, 0, "the mock needs nothing"),
        judge(
          TOUCHES,
          'expected `tool_call: echo {"text":"hi"}` and `observation: hi`',
          (o) =>
            sameJson(toolCalls(o)[0]?.arguments, { text: "hi" }) &&
            sameJson(observations(o), ["hi"]),
        ),
      ],
    },
    {
      id: "mock-offline-reduction",
      title: "--provider mock, offline, reduces `echo hi using the echo tool` to `hi`",
      level: "conformance",
      args: ["--provider", "mock", "echo hi using the echo tool"],
      env: NO_KEY,
      judgements: [
        exitCode(TOUCHES, 0, "the mock needs nothing"),
        judge(
          TOUCHES,
          'expected `tool_call: echo {"text":"hi"}` and `observation: hi`',
          (o) =>
            sameJson(toolCalls(o)[0]?.arguments, { text: "hi" }) &&
            sameJson(observations(o), ["hi"]),
        ),
      ],
    },
    {
      id: "header",
      title: "the header names the provider and model, and the base URL when given",
      level: "conformance",
      args: [
        "--provider",
        "mock",
        "--model",
        "some-model",
        "--base-url",
        "http://127.0.0.1:9",
        "hi",
      ],
      judgements: [
        judge(
          TOUCHES,
          "expected `provider: mock  model: some-model` (two spaces) after the cwd line",
          (o) => o.stdoutLines[2] === "provider: mock  model: some-model",
        ),
        judge(
          TOUCHES,
          "expected `base_url: http://127.0.0.1:9` on its own line, then a blank line",
          (o) => o.stdoutLines[3] === "base_url: http://127.0.0.1:9" && o.stdoutLines[4] === "",
        ),
      ],
    },
    {
      id: "api-400-text",
      title: "a 400 from the API: its own message, one line, exit 1",
      level: "conformance",
      args: ["hi"],
      server: {
        steps: [
          {
            error: {
              status: 400,
              type: "invalid_request_error",
              message: "messages: something is off",
            },
          },
        ],
      },
      judgements: [
        exitCode(V3, 1, "a failed run"),
        oneErrorLine(V3),
        judge(V3, "the error should carry the API's own message", (o) =>
          o.stderr.includes("messages: something is off"),
        ),
      ],
    },
    {
      id: "server-error-exhausted",
      title: "a 500 that retries cannot fix: one line, exit 1",
      level: "conformance",
      args: ["hi"],
      env: { AGENT_CODE_MAX_RETRIES: "1" },
      server: {
        steps: [1, 2].map(() => ({
          error: {
            status: 500,
            type: "api_error",
            message: "Internal server error",
            headers: { "retry-after-ms": "5" },
          },
        })),
      },
      judgements: [
        exitCode(V3, 1, "a failed run"),
        oneErrorLine(V3),
        judge(
          V3,
          "expected the request to be tried twice (AGENT_CODE_MAX_RETRIES=1)",
          (o) => o.requests.length === 2,
        ),
      ],
    },
    usageError("provider", ["--provider", "nope", "hi"]),
    usageError("max-steps-zero", ["--max-steps", "0", "hi"]),
    usageError("max-steps-negative", ["--max-steps", "-1", "hi"]),
    usageError("max-steps-fraction", ["--max-steps", "1.5", "hi"]),
    usageError("max-steps-text", ["--max-steps", "abc", "hi"]),
    ...keepScenarios(day2v2, [
      "system-date-round",
      "parallel-tool-calls",
      "deepseek-thinking",
      "unknown-tool",
      "unknown-tool-text",
      "unknown-blocks",
      "tool-input-not-object-answered",
      "tool-input-not-object",
      "tool-input-not-object-text",
    ]),
    ...keepScenarios(
      day1,
      [
        "repl-runs-each-line",
        "repl-runs-each-line-text",
        "repl-help-exit",
        "repl-end-of-input",
        "repl-unknown-command",
      ],
      {
        args: ["--provider", "mock"],
      },
    ),
    ...keepScenarios(day2v1, [
      "missing-key",
      "auth-failure",
      "missing-key-text",
      "auth-failure-text",
      "retry-overloaded",
      "connection-refused",
      "timeout",
      ...NOT_THE_API_IDS,
    ]),
  ],
};

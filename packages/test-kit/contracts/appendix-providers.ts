// Appendix: one loop over several provider protocols (DESIGN.md §3.6, seed 004). day-2-v3's loop
// scenarios run against every provider through the fake server's neutral steps, which it plays
// in whichever protocol a request speaks; then each protocol's own traps, `--provider auto` for
// each key, and each provider's missing key. It keeps the rest of day-2-v3's scenarios, which run
// under `auto` as deepseek (the runner sets ANTHROPIC_AUTH_TOKEN).
import { type Contract, keepScenarios, type Scenario } from "../src/contract.ts";
import {
  conversationOf,
  exitCode,
  finalText,
  judge,
  mentionsNoSecret,
  nonZeroExit,
  observations,
  offeredTools,
  oneErrorLine,
  protocolOf,
  sameJson,
  sentResults,
  toolCalls,
} from "../src/judgements.ts";
import type { RecordedRequest, Step } from "../src/server.ts";
import type { ReplyBlock, StepResult } from "../src/server-steps.ts";
import { day2v3 } from "./day-2-v3.ts";
import { answerWithResults, DATE_PATTERN, lastResultTexts } from "./shared.ts";

const WHY = "docs/appendix-providers.md#why-a-loop-should-not-know-its-vendor";
const FAMILIES = "docs/appendix-providers.md#two-protocol-families";
const NEUTRAL = "docs/appendix-providers.md#the-neutral-contract";
const CHOOSING = "docs/appendix-providers.md#choosing-a-provider";
const BREAKS = "docs/appendix-providers.md#what-breaks-most-often";

const KEY = "sk-agent-code-test-key";
const CANARY = "sk-canary-never-print-me";
const CHAIN_PROMPT =
  "Don't answer directly. First call system_date for today's date. Then call echo to repeat back what system_date returned. Then answer.";

interface Under {
  name: string;
  protocol: "messages" | "responses" | "chat";
  // The provider's key and nothing else: the runner's ANTHROPIC_AUTH_TOKEN is removed for the
  // others, so a wrong choice shows as a missing key.
  env: Record<string, string | undefined>;
  keyName: string;
}

const NO_KEYS = {
  ANTHROPIC_AUTH_TOKEN: undefined,
  ANTHROPIC_API_KEY: undefined,
  DEEPSEEK_API_KEY: undefined,
  OPENAI_API_KEY: undefined,
  OPENAI_CHAT_API_KEY: undefined,
};

const EVERY_PROVIDER: Under[] = [
  under("deepseek", "messages", "ANTHROPIC_AUTH_TOKEN"),
  under("anthropic", "messages", "ANTHROPIC_API_KEY"),
  under("openai", "responses", "OPENAI_API_KEY"),
  under("openai-chat", "chat", "OPENAI_CHAT_API_KEY"),
];

// A provider with its own key set and every other key unset.
function under(name: string, protocol: Under["protocol"], keyName: string): Under {
  return { name, protocol, env: { ...NO_KEYS, [keyName]: KEY }, keyName };
}

// The second step of the chain: echo back exactly what system_date returned.
function echoTheDate(request: RecordedRequest): StepResult {
  const [date] = lastResultTexts(request);
  return {
    content: [{ type: "tool_use", id: "call_echo_2", name: "echo", input: { text: date ?? "" } }],
  };
}

// One turn that asks for echo and system_date at once (after some text, if given), then the answer.
function echoAndDate(idPrefix: string, text?: string): Step[] {
  const said: ReplyBlock[] = text === undefined ? [] : [{ type: "text", text }];
  return [
    {
      content: [
        ...said,
        { type: "tool_use", id: `${idPrefix}_1`, name: "echo", input: { text: "hi" } },
        { type: "tool_use", id: `${idPrefix}_2`, name: "system_date", input: {} },
      ],
    },
    answerWithResults,
  ];
}

const ALWAYS_A_TOOL: StepResult[] = [1, 2, 3].map((n) => ({
  content: [
    { type: "tool_use", id: `call_loop_${n}`, name: "echo", input: { text: `again ${n}` } },
  ],
}));

function spoke(protocol: Under["protocol"]) {
  return judge(
    WHY,
    `every request should go to the ${protocol === "messages" ? "Messages API" : protocol === "responses" ? "Responses API" : "Chat Completions API"}`,
    (o) => o.requests.length > 0 && o.requests.every((request) => protocolOf(request) === protocol),
  );
}

// One day-2-v3 loop scenario for one provider: `--provider <name>` and only that provider's key.
function loopScenario(
  under: Under,
  base: Omit<Scenario, "id" | "args" | "env"> & { id: string; args: string[] },
  env: Record<string, string | undefined> = {},
): Scenario {
  return {
    ...base,
    id: `${base.id}-${under.name}`,
    title: `${under.name}: ${base.title}`,
    args: ["--provider", under.name, ...base.args],
    env: { ...under.env, ...env },
  };
}

function loopScenarios(under: Under): Scenario[] {
  return [
    loopScenario(under, {
      id: "two-step-chain",
      title: "system_date, then echo of its result, then the answer: three requests",
      level: "core",
      args: [CHAIN_PROMPT],
      server: {
        steps: [
          { content: [{ type: "tool_use", id: "call_date_1", name: "system_date", input: {} }] },
          echoTheDate,
          answerWithResults,
        ],
      },
      judgements: [
        spoke(under.protocol),
        exitCode(NEUTRAL, 0, "a finished run exits 0"),
        judge(NEUTRAL, "expected tool calls system_date, then echo", (o) =>
          sameJson(
            toolCalls(o).map((call) => call.name),
            ["system_date", "echo"],
          ),
        ),
        judge(NEUTRAL, "echo should be called with exactly what system_date returned", (o) => {
          const [date] = observations(o);
          return (
            DATE_PATTERN.test(date ?? "") && sameJson(toolCalls(o)[1]?.arguments, { text: date })
          );
        }),
        judge(
          NEUTRAL,
          "expected three requests: the loop keeps going while the model asks for tools",
          (o) => o.requests.length === 3,
        ),
        judge(NEUTRAL, "each request should hand back the result of the call before it", (o) => {
          const [date] = observations(o);
          const second = sentResults(o.requests[1]);
          const third = sentResults(o.requests[2]);
          return (
            second.length === 1 &&
            second[0]?.id === "call_date_1" &&
            second[0].text === date &&
            third.length === 1 &&
            third[0]?.id === "call_echo_2" &&
            third[0].text === date
          );
        }),
        judge(
          NEUTRAL,
          "the third request should carry the whole conversation, the first result included",
          (o) =>
            JSON.stringify(conversationOf(o.requests[2])).includes('"call_date_1"') &&
            conversationOf(o.requests[2]).length > conversationOf(o.requests[1]).length,
        ),
        judge(NEUTRAL, "the final answer should come from the third response", (o) =>
          (finalText(o) ?? "").startsWith("The tools said: "),
        ),
      ],
    }),
    loopScenario(under, {
      id: "parallel-tool-calls",
      title: "two calls in one turn: both run, both results go back in order, then one request",
      level: "core",
      args: ["Echo hi, and tell me the date."],
      server: { steps: echoAndDate("call_par") },
      judgements: [
        exitCode(NEUTRAL, 0, "a finished run exits 0"),
        judge(NEUTRAL, "both tools should run: echo, then system_date", (o) =>
          sameJson(
            toolCalls(o).map((call) => call.name),
            ["echo", "system_date"],
          ),
        ),
        judge(
          NEUTRAL,
          "the second request should hand back both results, in the order of the calls",
          (o) =>
            sameJson(
              sentResults(o.requests[1]).map((result) => result.id),
              ["call_par_1", "call_par_2"],
            ) && sentResults(o.requests[1])[0]?.text === "hi",
        ),
        judge(NEUTRAL, "expected exactly two requests", (o) => o.requests.length === 2),
      ],
    }),
    loopScenario(under, {
      id: "stop-max_tokens",
      title: "a turn cut off by the token limit ends the run; its half-written call never runs",
      level: "core",
      args: ["echo hi using the echo tool"],
      server: {
        steps: [
          {
            content: [
              { type: "text", text: "I will echo" },
              { type: "tool_use", id: "call_cut_1", name: "echo", input: {} },
            ],
            stop_reason: "max_tokens",
          },
          answerWithResults,
        ],
      },
      judgements: [
        exitCode(NEUTRAL, 0, "a stopped run is a finished run"),
        judge(NEUTRAL, "expected exactly one request: the run must stop there", (o) => {
          return o.requests.length === 1;
        }),
        judge(NEUTRAL, "no tool may run after a cut-off turn", (o) =>
          o.trace.every((entry) => entry.kind === "final"),
        ),
      ],
    }),
    loopScenario(under, {
      id: "stop-max_tokens-text",
      title: "the cut-off turn is named max_tokens, whatever the protocol called it",
      level: "conformance",
      args: ["echo hi using the echo tool"],
      server: {
        steps: [{ content: [{ type: "text", text: "I will" }], stop_reason: "max_tokens" }],
      },
      judgements: [
        judge(
          NEUTRAL,
          "expected `final: stopped: stop_reason=max_tokens`",
          (o) => finalText(o) === "stopped: stop_reason=max_tokens",
        ),
      ],
    }),
    loopScenario(under, {
      id: "unknown-tool",
      title: "an unknown tool is an error result the model reads; the run goes on",
      level: "core",
      args: ["teleport to the moon"],
      server: {
        steps: [
          {
            content: [
              {
                type: "tool_use",
                id: "call_teleport_1",
                name: "teleport",
                input: { to: "the moon" },
              },
            ],
          },
          answerWithResults,
        ],
      },
      judgements: [
        exitCode(NEUTRAL, 0, "a model's mistake is not a failed run"),
        judge(NEUTRAL, "the result should go back, naming the unknown tool", (o) => {
          const [result] = sentResults(o.requests[1]);
          return result?.id === "call_teleport_1" && result.text.includes("teleport");
        }),
        judge(NEUTRAL, "the run should go on to a final answer", (o) =>
          (finalText(o) ?? "").startsWith("The tools said: "),
        ),
      ],
    }),
    loopScenario(under, {
      id: "bad-arguments",
      title: "arguments that break echo's schema come back as an error result; the run goes on",
      level: "core",
      args: ["echo something"],
      server: {
        steps: [
          { content: [{ type: "tool_use", id: "call_bad_1", name: "echo", input: { text: 42 } }] },
          answerWithResults,
        ],
      },
      judgements: [
        exitCode(NEUTRAL, 0, "a model's mistake is not a failed run"),
        judge(NEUTRAL, "the tool should not run: the result should say what was wrong", (o) => {
          const [result] = sentResults(o.requests[1]);
          return (
            result?.id === "call_bad_1" && result.isError !== false && result.text.includes("text")
          );
        }),
        judge(NEUTRAL, "expected `observation: bad arguments for echo: …`", (o) =>
          (observations(o)[0] ?? "").startsWith("bad arguments for echo: "),
        ),
      ],
    }),
    loopScenario(under, {
      id: "max-steps",
      title: "--max-steps 2 against a model that always wants a tool: two requests, then stop",
      level: "core",
      args: ["--max-steps", "2", "echo forever"],
      server: { steps: ALWAYS_A_TOOL },
      judgements: [
        exitCode(NEUTRAL, 0, "running out of steps still finishes the run"),
        judge(NEUTRAL, "expected exactly 2 requests", (o) => o.requests.length === 2),
        judge(
          NEUTRAL,
          "expected `final: reached max_steps=2`",
          (o) => finalText(o) === "reached max_steps=2",
        ),
      ],
    }),
    loopScenario(under, {
      id: "api-400",
      title: "a 400 from the API: its own message, one error line, exit 1",
      level: "conformance",
      args: ["hi"],
      server: {
        steps: [
          {
            error: { status: 400, type: "invalid_request_error", message: "something is off" },
          },
        ],
      },
      judgements: [
        exitCode(BREAKS, 1, "a failed run"),
        oneErrorLine(BREAKS),
        judge(BREAKS, "the error should carry the API's own message", (o) =>
          o.stderr.includes("something is off"),
        ),
      ],
    }),
    loopScenario(
      under,
      {
        id: "server-error-exhausted",
        title: "a 500 that retries cannot fix: tried twice, one error line, exit 1",
        level: "conformance",
        args: ["hi"],
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
          exitCode(BREAKS, 1, "a failed run"),
          oneErrorLine(BREAKS),
          judge(
            BREAKS,
            "expected the request to be tried twice (AGENT_CODE_MAX_RETRIES=1)",
            (o) => o.requests.length === 2,
          ),
        ],
      },
      { AGENT_CODE_MAX_RETRIES: "1" },
    ),
    loopScenario(
      under,
      {
        id: "auth-failure",
        title: "a rejected key: a failed run that says so and never prints the key",
        level: "core",
        args: ["hi"],
        server: { key: "sk-the-right-key", steps: [] },
        judgements: [
          nonZeroExit(BREAKS, "the API refused the key"),
          judge(BREAKS, "stderr should say authentication failed", (o) =>
            /authenticat/i.test(o.stderr),
          ),
          judge(BREAKS, `the error should name ${under.keyName}, the variable to check`, (o) =>
            o.stderr.includes(under.keyName),
          ),
          judge(BREAKS, "the key must never be printed", (o) => mentionsNoSecret(o, CANARY)),
        ],
      },
      { [under.keyName]: CANARY },
    ),
    loopScenario(under, {
      id: "answer-html-page",
      title: "a web page where the API should be: a failed run, one error line, nothing runs",
      level: "core",
      args: ["hi"],
      server: { steps: [{ fault: "html-page" }] },
      judgements: [
        nonZeroExit(BREAKS, "what came back is not the API's answer"),
        judge(BREAKS, "nothing may run and no final answer may be printed", (o) => {
          return o.trace.length === 0;
        }),
        judge(BREAKS, "stderr should hold one line naming the base URL, not a stack trace", (o) => {
          const lines = o.stderr.split("\n").filter((line) => line.trim() !== "");
          return lines.length === 1 && lines[0]?.includes("http://127.0.0.1:") === true;
        }),
      ],
    }),
    loopScenario(
      under,
      {
        id: "missing-key",
        title: "no key for the chosen provider: a failed run naming its variable",
        level: "core",
        args: ["hi"],
        server: { steps: [] },
        judgements: [
          nonZeroExit(CHOOSING, "the run cannot start without a key"),
          judge(CHOOSING, `stderr should name ${under.keyName}`, (o) =>
            o.stderr.includes(under.keyName),
          ),
          judge(
            CHOOSING,
            "no request should be sent without a key",
            (o) => o.requests.length === 0,
          ),
        ],
      },
      NO_KEYS,
    ),
    loopScenario(
      under,
      {
        id: "missing-key-text",
        title: "the missing-key text names the provider's variable",
        level: "conformance",
        args: ["hi"],
        judgements: [
          oneErrorLine(CHOOSING),
          judge(
            CHOOSING,
            `stderr should be \`error: set ${under.keyName}, e.g. export ${under.keyName}='sk-...'\``,
            (o) =>
              o.stderr.trim() ===
              `error: set ${under.keyName}, e.g. export ${under.keyName}='sk-...'`,
          ),
        ],
      },
      NO_KEYS,
    ),
  ];
}

// The items of a Responses request's input, by type.
function inputTypes(request: RecordedRequest | undefined): string[] {
  return conversationOf(request).map((item) => {
    const { type, role } = item as { type?: string; role?: string };
    return type ?? `${role}`;
  });
}

const OPENAI = EVERY_PROVIDER[2] as Under;
const CHAT = EVERY_PROVIDER[3] as Under;

// Each protocol's own traps: where results go, arguments that are JSON text, cut-off turns,
// refusals, an empty list of calls, DeepSeek's reasoning_content.
const PROTOCOL_SCENARIOS: Scenario[] = [
  loopScenario(OPENAI, {
    id: "responses-items-in-order",
    title: "the output items go back without ids, then one function_call_output per call",
    level: "core",
    args: ["Echo hi, and tell me the date."],
    server: { steps: echoAndDate("call_r", "Both, then.") },
    judgements: [
      exitCode(FAMILIES, 0, "a finished run exits 0"),
      judge(
        FAMILIES,
        "the second input should be: user, message, function_call ×2, function_call_output ×2",
        (o) =>
          sameJson(inputTypes(o.requests[1]), [
            "user",
            "message",
            "function_call",
            "function_call",
            "function_call_output",
            "function_call_output",
          ]),
      ),
      judge(FAMILIES, "each output should name its call's call_id, in order", (o) =>
        sameJson(
          sentResults(o.requests[1]).map((result) => result.id),
          ["call_r_1", "call_r_2"],
        ),
      ),
      judge(
        FAMILIES,
        "the function_call items should go back with their arguments as JSON text",
        (o) =>
          conversationOf(o.requests[1]).some(
            (item) =>
              (item as { type?: string; arguments?: unknown }).type === "function_call" &&
              (item as { arguments?: unknown }).arguments === '{"text":"hi"}',
          ),
      ),
      judge(
        FAMILIES,
        "every request should send the whole conversation with store: false, never previous_response_id",
        (o) =>
          o.requests.every(
            (request) =>
              request.body?.store === false && request.body?.previous_response_id === undefined,
          ),
      ),
      judge(FAMILIES, "tools should be flat: {type: function, name, parameters}", (o) =>
        sameJson(offeredTools(o.requests[0]), ["echo", "system_date"]),
      ),
    ],
  }),
  loopScenario(OPENAI, {
    id: "responses-incomplete",
    title: "an incomplete response holding a half-written call: nothing runs",
    level: "core",
    args: ["echo hi"],
    server: {
      steps: [
        {
          output: [
            { type: "function_call", call_id: "call_cut", name: "echo", arguments: '{"text": "h' },
          ],
          status: "incomplete",
          incomplete_details: { reason: "max_output_tokens" },
        },
        answerWithResults,
      ],
    },
    judgements: [
      exitCode(BREAKS, 0, "a stopped run is a finished run"),
      judge(BREAKS, "no tool may run from an incomplete response", (o) =>
        o.trace.every((entry) => entry.kind === "final"),
      ),
      judge(BREAKS, "expected exactly one request", (o) => o.requests.length === 1),
      judge(
        BREAKS,
        "expected `final: stopped: stop_reason=max_tokens`",
        (o) => finalText(o) === "stopped: stop_reason=max_tokens",
      ),
    ],
  }),
  loopScenario(OPENAI, {
    id: "responses-invalid-json",
    title: "arguments that are not JSON: an error result the model reads; the run goes on",
    level: "core",
    args: ["echo hi"],
    server: {
      steps: [
        {
          output: [
            { type: "function_call", call_id: "call_j", name: "echo", arguments: "{text: hi}" },
          ],
        },
        answerWithResults,
      ],
    },
    judgements: [
      exitCode(BREAKS, 0, "a model's mistake is not a failed run"),
      judge(BREAKS, "the tool should not run; the output should say the arguments are bad", (o) => {
        const [result] = sentResults(o.requests[1]);
        return result?.id === "call_j" && /json/i.test(result.text);
      }),
      judge(BREAKS, "the run should go on to a final answer", (o) =>
        (finalText(o) ?? "").startsWith("The tools said: "),
      ),
    ],
  }),
  loopScenario(OPENAI, {
    id: "responses-refusal",
    title: "a refusal ends the run as stop_reason=refusal",
    level: "conformance",
    args: ["do something bad"],
    server: {
      steps: [
        { output: [{ type: "message", content: [{ type: "refusal", refusal: "I can't." }] }] },
      ],
    },
    judgements: [
      exitCode(BREAKS, 0, "a stopped run is a finished run"),
      judge(
        BREAKS,
        "expected `final: stopped: stop_reason=refusal`",
        (o) => finalText(o) === "stopped: stop_reason=refusal",
      ),
    ],
  }),
  loopScenario(OPENAI, {
    id: "responses-failed",
    title: "a failed response is a failed run: one error line, exit 1",
    level: "conformance",
    args: ["hi"],
    server: { steps: [{ output: [], status: "failed" }] },
    judgements: [exitCode(BREAKS, 1, "a failed run"), oneErrorLine(BREAKS)],
  }),
  loopScenario(CHAT, {
    id: "chat-tool-messages",
    title: "the assistant message with its tool_calls, then one role tool message per call",
    level: "core",
    args: ["Echo hi, and tell me the date."],
    server: { steps: echoAndDate("call_c") },
    judgements: [
      exitCode(FAMILIES, 0, "a finished run exits 0"),
      judge(FAMILIES, "the second request should hold: user, assistant, tool, tool", (o) =>
        sameJson(
          conversationOf(o.requests[1]).map((message) => (message as { role?: string }).role),
          ["user", "assistant", "tool", "tool"],
        ),
      ),
      judge(
        FAMILIES,
        "the assistant message should keep both tool_calls, arguments as text",
        (o) => {
          const assistant = conversationOf(o.requests[1])[1] as {
            tool_calls?: { id: string; function: { arguments: unknown } }[];
          };
          return (
            sameJson(
              (assistant?.tool_calls ?? []).map((call) => call.id),
              ["call_c_1", "call_c_2"],
            ) && assistant.tool_calls?.[0]?.function.arguments === '{"text":"hi"}'
          );
        },
      ),
      judge(FAMILIES, "each tool message should answer its call, in order", (o) =>
        sameJson(
          sentResults(o.requests[1]).map((result) => result.id),
          ["call_c_1", "call_c_2"],
        ),
      ),
      judge(FAMILIES, "tools should be nested: {type: function, function: {name, …}}", (o) =>
        (o.requests[0]?.body?.tools ?? []).every(
          (tool: { function?: { name?: unknown } }) => typeof tool.function?.name === "string",
        ),
      ),
    ],
  }),
  loopScenario(CHAT, {
    id: "chat-length",
    title: 'finish_reason "length" with a tool call: the cut-off call never runs',
    level: "core",
    args: ["echo hi"],
    server: {
      steps: [
        {
          message: {
            content: null,
            tool_calls: [{ id: "call_len", function: { name: "echo", arguments: '{"text":"h' } }],
          },
          finish_reason: "length",
        },
        answerWithResults,
      ],
    },
    judgements: [
      exitCode(BREAKS, 0, "a stopped run is a finished run"),
      judge(BREAKS, "no tool may run from a cut-off turn", (o) =>
        o.trace.every((entry) => entry.kind === "final"),
      ),
      judge(
        BREAKS,
        "expected `final: stopped: stop_reason=max_tokens`",
        (o) => o.requests.length === 1 && finalText(o) === "stopped: stop_reason=max_tokens",
      ),
    ],
  }),
  loopScenario(CHAT, {
    id: "chat-invalid-json",
    title: "arguments that are not JSON: an error result the model reads; the run goes on",
    level: "core",
    args: ["echo hi"],
    server: {
      steps: [
        {
          message: {
            content: null,
            tool_calls: [{ id: "call_j", function: { name: "echo", arguments: "{text: hi}" } }],
          },
        },
        answerWithResults,
      ],
    },
    judgements: [
      exitCode(BREAKS, 0, "a model's mistake is not a failed run"),
      judge(BREAKS, "the tool message should say the arguments are bad", (o) => {
        const [result] = sentResults(o.requests[1]);
        return result?.id === "call_j" && /json/i.test(result.text);
      }),
    ],
  }),
  loopScenario(CHAT, {
    id: "chat-empty-tool-calls",
    title: "an empty tool_calls list is an answer, and is not sent back empty",
    level: "core",
    args: ["hi"],
    server: {
      steps: [
        { message: { content: "Nothing to call.", tool_calls: [] }, finish_reason: "tool_calls" },
        answerWithResults,
      ],
    },
    judgements: [
      exitCode(BREAKS, 0, "a finished run exits 0"),
      judge(
        BREAKS,
        "expected one request and `final: Nothing to call.`",
        (o) => o.requests.length === 1 && finalText(o) === "Nothing to call.",
      ),
    ],
  }),
  loopScenario(CHAT, {
    id: "chat-refusal",
    title: "a refusal ends the run as stop_reason=refusal",
    level: "conformance",
    args: ["do something bad"],
    server: { steps: [{ message: { content: null, refusal: "I can't." } }] },
    judgements: [
      judge(
        BREAKS,
        "expected `final: stopped: stop_reason=refusal`",
        (o) => finalText(o) === "stopped: stop_reason=refusal",
      ),
    ],
  }),
  loopScenario(CHAT, {
    id: "chat-deepseek-reasoning",
    title: "DeepSeek's thinking mode: reasoning_content goes back on the tool-call turn",
    level: "core",
    args: ["What's today's date? Use the system_date tool."],
    server: {
      flavour: "deepseek",
      steps: [
        { content: [{ type: "tool_use", id: "call_00_ds", name: "system_date", input: {} }] },
        answerWithResults,
      ],
    },
    judgements: [
      exitCode(BREAKS, 0, "DeepSeek accepts the second request only with reasoning_content"),
      judge(BREAKS, "the assistant turn should carry reasoning_content back", (o) => {
        const assistant = conversationOf(o.requests[1])[1] as { reasoning_content?: unknown };
        return typeof assistant?.reasoning_content === "string";
      }),
      judge(BREAKS, "the run should finish with the model's answer", (o) =>
        (finalText(o) ?? "").startsWith("The tools said: "),
      ),
    ],
  }),
];

// The header's provider line names the provider the run chose.
function saysProvider(provider: string) {
  return judge(CHOOSING, `the header should say \`provider: ${provider}\``, (o) =>
    (o.stdoutLines[2] ?? "").startsWith(`provider: ${provider}  model: `),
  );
}

// `--provider auto` with one key set: the header names the choice, and the requests show it.
function autoScenario(key: string, provider: string, protocol: Under["protocol"]): Scenario {
  return {
    id: `auto-${key.toLowerCase().replaceAll("_", "-")}`,
    title: `--provider auto with only ${key} set chooses ${provider}`,
    level: "core",
    args: ["Say hello"],
    env: { ...NO_KEYS, [key]: KEY },
    server: { steps: [{ content: [{ type: "text", text: "Hello" }] }] },
    judgements: [
      exitCode(CHOOSING, 0, "a finished run exits 0"),
      spoke(protocol),
      saysProvider(provider),
    ],
  };
}

// The model a provider sends and the header names, with only these variables set.
function usesModel(
  id: string,
  provider: string,
  env: Record<string, string>,
  model: string,
): Scenario {
  return {
    id,
    title: `${provider} sends the model ${model}`,
    level: "conformance",
    args: ["--provider", provider, "Say hello"],
    env: { ...NO_KEYS, ...env },
    server: { steps: [{ content: [{ type: "text", text: "Hello" }] }] },
    judgements: [
      judge(
        CHOOSING,
        `the request and the header should name ${model}`,
        (o) =>
          o.requests[0]?.body?.model === model &&
          o.stdoutLines[2] === `provider: ${provider}  model: ${model}`,
      ),
    ],
  };
}

const CHOOSING_SCENARIOS: Scenario[] = [
  autoScenario("ANTHROPIC_API_KEY", "anthropic", "messages"),
  autoScenario("ANTHROPIC_AUTH_TOKEN", "deepseek", "messages"),
  autoScenario("DEEPSEEK_API_KEY", "deepseek", "messages"),
  autoScenario("OPENAI_API_KEY", "openai", "responses"),
  autoScenario("OPENAI_CHAT_API_KEY", "openai-chat", "chat"),
  {
    id: "auto-order",
    title: "with every key set, auto chooses anthropic first",
    level: "core",
    args: ["Say hello"],
    env: {
      ANTHROPIC_API_KEY: KEY,
      ANTHROPIC_AUTH_TOKEN: KEY,
      OPENAI_API_KEY: KEY,
      OPENAI_CHAT_API_KEY: KEY,
    },
    server: { steps: [{ content: [{ type: "text", text: "Hello" }] }] },
    judgements: [spoke("messages"), saysProvider("anthropic")],
  },
  {
    id: "auto-no-key",
    title: "with no key at all, auto runs the offline mock",
    level: "core",
    // A prompt every mock echoes as it is (day-2-v3's mock-offline).
    args: ["hi"],
    env: NO_KEYS,
    server: { steps: [] },
    judgements: [
      exitCode(CHOOSING, 0, "the mock needs nothing"),
      judge(CHOOSING, "no request should reach any server", (o) => o.requests.length === 0),
      judge(
        CHOOSING,
        'expected `tool_call: echo {"text":"hi"}` and `observation: hi`',
        (o) =>
          sameJson(toolCalls(o)[0]?.arguments, { text: "hi" }) && sameJson(observations(o), ["hi"]),
      ),
      saysProvider("mock"),
    ],
  },
  {
    id: "offline-alias",
    title: "--provider offline is the mock",
    level: "conformance",
    args: ["--provider", "offline", "echo hi using the echo tool"],
    env: { ...NO_KEYS, OPENAI_API_KEY: KEY },
    judgements: [
      exitCode(CHOOSING, 0, "the mock needs nothing"),
      saysProvider("mock"),
      judge(
        CHOOSING,
        "expected `final: echo tool returned: hi`",
        (o) => finalText(o) === "echo tool returned: hi",
      ),
    ],
  },
  usesModel("openai-default-model", "openai", { OPENAI_API_KEY: KEY }, "gpt-4.1"),
  usesModel(
    "chat-model-variable",
    "openai-chat",
    { OPENAI_CHAT_API_KEY: KEY, OPENAI_CHAT_MODEL: "gateway-model" },
    "gateway-model",
  ),
  {
    id: "chat-needs-base-url",
    title: "openai-chat without OPENAI_CHAT_BASE_URL or --base-url: one error line naming it",
    level: "conformance",
    args: ["--provider", "openai-chat", "hi"],
    env: { ...NO_KEYS, OPENAI_CHAT_API_KEY: KEY, OPENAI_CHAT_BASE_URL: undefined },
    judgements: [
      exitCode(CHOOSING, 1, "a failed run"),
      oneErrorLine(CHOOSING),
      judge(CHOOSING, "stderr should name OPENAI_CHAT_BASE_URL", (o) =>
        o.stderr.includes("OPENAI_CHAT_BASE_URL"),
      ),
    ],
  },
  {
    id: "provider-last-wins",
    title: "--provider given twice: the last one counts",
    level: "conformance",
    args: ["--provider", "deepseek", "--provider", "mock", "echo hi using the echo tool"],
    judgements: [exitCode(CHOOSING, 0, "the mock needs nothing"), saysProvider("mock")],
  },
  {
    id: "usage-provider-list",
    title: "an unknown --provider is a usage error listing the valid ones",
    level: "conformance",
    args: ["--provider", "gemini", "hi"],
    judgements: [
      exitCode(CHOOSING, 2, "a usage error"),
      oneErrorLine(CHOOSING),
      judge(CHOOSING, "the error should list openai-chat among the valid providers", (o) =>
        o.stderr.includes("openai-chat"),
      ),
    ],
  },
];

// day-2-v3's scenarios (and those it keeps) that the loop scenarios above do not repeat, here
// under `auto`, which the runner's ANTHROPIC_AUTH_TOKEN makes deepseek.
const REPEATED = [
  "two-step-chain",
  "max-steps",
  "stop-max_tokens",
  "stop-max_tokens-text",
  "bad-arguments-wrong-type",
  "api-400-text",
  "server-error-exhausted",
  "parallel-tool-calls",
  "unknown-tool",
  "missing-key",
  "missing-key-text",
  "auth-failure",
];
const KEPT_IDS = day2v3.scenarios
  .map((scenario) => scenario.id)
  .filter((id) => !REPEATED.includes(id));

export const appendixProviders: Contract = {
  stage: "appendix-providers",
  title: "Appendix: one loop, several provider protocols",
  base: "day-2-v3",
  scenarios: [
    ...EVERY_PROVIDER.flatMap(loopScenarios),
    ...PROTOCOL_SCENARIOS,
    ...CHOOSING_SCENARIOS,
    ...keepScenarios(day2v3, KEPT_IDS),
  ],
};

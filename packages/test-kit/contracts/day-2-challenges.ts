// Day 2 challenges: the four answers to docs/day-2.md#challenges (DESIGN.md §3.5). Every day-2-v3
// scenario is kept, and runs streamed when the CLI streams: the fake server answers those
// requests with server-sent events.
import { type Contract, keepScenarios, type Scenario } from "../src/contract.ts";
import {
  exitCode,
  finalText,
  judge,
  mentionsNoSecret,
  nonZeroExit,
  observations,
  oneErrorLine,
  reachedServer,
  sameJson,
  toolCalls,
  toolResults,
} from "../src/judgements.ts";
import type { RecordedRequest, Step } from "../src/server.ts";
import { day2v3 } from "./day-2-v3.ts";
import { answerWithResults, DATE_PATTERN } from "./shared.ts";

const DOTENV = "docs/day-2-challenges.md#answer-1-loading-env";
const KEY_ENV = "docs/day-2-challenges.md#answer-2-the-keys-variable";
const ZONES = "docs/day-2-challenges.md#answer-3-time-zones";
const STREAMING = "docs/day-2-challenges.md#answer-4-streaming";

const PROMPT = "Say hello in one sentence.";
const ANSWER = "Hello, I am agent-code, and I answer one word at a time.";
const FILE_KEY = "sk-from-the-dotenv-file";
const SHELL_KEY = "sk-from-the-shell";
const NAMED_KEY = "sk-from-my-own-variable";
const DEAD_URL = "http://127.0.0.1:9";

const ONE_ANSWER: Step[] = [{ content: [{ type: "text", text: ANSWER }] }];

function answered(docs: string): ReturnType<typeof judge> {
  return judge(docs, `expected \`final: ${ANSWER}\``, (o) => finalText(o) === ANSWER);
}

function everyRequestAccepted(docs: string, why: string): ReturnType<typeof judge> {
  return judge(
    docs,
    why,
    (o) => o.requests.length > 0 && o.requests.every((request) => request.verdict.accepted),
  );
}

// Started where a .env is written, with no key in the environment: only the file can give one.
const FROM_DOTENV = {
  args: [PROMPT],
  startIn: "scenario",
  server: { key: FILE_KEY, steps: ONE_ANSWER },
  env: { ANTHROPIC_AUTH_TOKEN: undefined, ANTHROPIC_API_KEY: undefined },
} satisfies Partial<Scenario>;

// The moment a `YYYY-MM-DD HH:MM:SS` wall time names in a zone `offsetHours` east of UTC.
function momentOf(text: string, offsetHours: number): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})/.exec(text);
  if (match === null) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number);
  const utc = Date.UTC(year ?? 0, (month ?? 1) - 1, day, hour, minute, second);
  return utc - offsetHours * 3_600_000;
}

function zoneSteps(timezone: string): Step[] {
  return [
    {
      content: [{ type: "tool_use", id: "toolu_zone_1", name: "system_date", input: { timezone } }],
    },
    answerWithResults,
  ];
}

const ZONE_PROMPT = "What time is it in Shanghai? Call system_date with the time zone.";
const MARS_PROMPT = "What time is it at Olympus Mons? Call system_date with its time zone.";

// A stream that breaks: an error event after the first words, the end of the connection, or an
// event that is not JSON.
function brokenStream(id: string, step: Step): Scenario[] {
  const base = {
    args: [PROMPT],
    env: { AGENT_CODE_MAX_RETRIES: "0" },
    server: { steps: [step] },
  };
  return [
    {
      ...base,
      id,
      title: `a streamed answer that breaks (${id}) is a failed run`,
      level: "core",
      judgements: [
        judge(STREAMING, "the request should ask for a stream (`stream: true`)", (o) =>
          o.requests.every((request) => request.body?.stream === true),
        ),
        nonZeroExit(STREAMING, "an answer that never finished is a failed run"),
        judge(
          STREAMING,
          "a broken stream must not print a final answer",
          (o) => finalText(o) === undefined,
        ),
      ],
    },
    {
      ...base,
      id: `${id}-text`,
      title: `a broken stream (${id}) is one error line, exit 1, like a failed request`,
      level: "conformance",
      judgements: [exitCode(STREAMING, 1, "a failed run"), oneErrorLine(STREAMING)],
    },
  ];
}

// A turn whose words come before its tool call, then the answer: the words are not the answer.
const WORDS_THEN_ECHO: Step[] = [
  {
    content: [
      { type: "text", text: "I will echo it." },
      { type: "tool_use", id: "toolu_echo_1", name: "echo", input: { text: "hi" } },
    ],
  },
  answerWithResults,
];

// An event stream is the right answer to a request that asked for one: these two scenarios, about
// an event stream nobody asked for, ask without streaming, under ids of their own.
const UNASKED_STREAM = ["answer-event-stream", "answer-event-stream-text"];

function streamed(request: RecordedRequest): boolean {
  return request.body?.stream === true;
}

export const day2challenges: Contract = {
  stage: "day-2-challenges",
  title: "Day 2 challenges: .env, --api-key-env, time zones, streaming",
  base: "day-2-v3",
  scenarios: [
    {
      ...FROM_DOTENV,
      id: "dotenv-loads",
      title: "a .env file in the directory the CLI starts in provides the key",
      level: "core",
      files: () => ({ ".env": `# agent-code's settings\nANTHROPIC_AUTH_TOKEN=${FILE_KEY}\n` }),
      judgements: [
        reachedServer(DOTENV),
        exitCode(DOTENV, 0, "the key came from .env"),
        everyRequestAccepted(DOTENV, "the requests should carry the key from .env"),
        answered(DOTENV),
        judge(DOTENV, "the key must never be printed", (o) => mentionsNoSecret(o, FILE_KEY)),
      ],
    },
    {
      ...FROM_DOTENV,
      id: "dotenv-shell-wins",
      title: "a variable set in the shell wins over the same one in .env",
      level: "core",
      files: () => ({
        ".env": `ANTHROPIC_AUTH_TOKEN=${FILE_KEY}\nANTHROPIC_BASE_URL=${DEAD_URL}\n`,
      }),
      server: { key: SHELL_KEY, steps: ONE_ANSWER },
      env: { ANTHROPIC_AUTH_TOKEN: SHELL_KEY, ANTHROPIC_API_KEY: undefined },
      judgements: [
        reachedServer(DOTENV),
        exitCode(DOTENV, 0, "the shell's variables were used"),
        everyRequestAccepted(
          DOTENV,
          "the requests should carry the shell's key, not the one in .env",
        ),
        answered(DOTENV),
      ],
    },
    {
      ...FROM_DOTENV,
      id: "dotenv-start-dir",
      title: "the .env comes from where the CLI starts, not from --cwd",
      level: "conformance",
      files: () => ({
        ".env": `ANTHROPIC_AUTH_TOKEN=${FILE_KEY}\n`,
        "project/.env": `ANTHROPIC_AUTH_TOKEN=sk-the-projects-own-key\nANTHROPIC_BASE_URL=${DEAD_URL}\n`,
      }),
      args: (context) => ["--cwd", `${context.dir}/project`, PROMPT],
      judgements: [
        exitCode(DOTENV, 0, "the start directory's .env gave the key"),
        everyRequestAccepted(DOTENV, "expected the key from the start directory's .env"),
        answered(DOTENV),
      ],
    },
    {
      ...FROM_DOTENV,
      id: "dotenv-malformed",
      title: "a malformed .env is a usage error naming the file and line, never the line",
      level: "conformance",
      files: () => ({
        ".env": "# keys\nANTHROPIC_BASE_URL=http://127.0.0.1:9\nsk-canary-pasted-on-its-own\n",
      }),
      env: { ANTHROPIC_AUTH_TOKEN: SHELL_KEY },
      judgements: [
        exitCode(DOTENV, 2, "a usage error"),
        oneErrorLine(DOTENV),
        judge(DOTENV, "the error should name the file and its line 3", (o) =>
          o.stderr.includes(`${o.context.dir}/.env:3`),
        ),
        judge(DOTENV, "the line itself must not be printed: it may be a key", (o) =>
          mentionsNoSecret(o, "sk-canary-pasted-on-its-own"),
        ),
        judge(DOTENV, "nothing should be sent", (o) => o.requests.length === 0),
      ],
    },
    {
      id: "api-key-env",
      title: "--api-key-env NAME reads the key from $NAME",
      level: "conformance",
      args: ["--api-key-env", "MY_AGENT_KEY", PROMPT],
      env: { MY_AGENT_KEY: NAMED_KEY, ANTHROPIC_AUTH_TOKEN: SHELL_KEY },
      server: { key: NAMED_KEY, steps: ONE_ANSWER },
      judgements: [
        exitCode(KEY_ENV, 0, "the named variable holds the key"),
        everyRequestAccepted(KEY_ENV, "the requests should carry the key from $MY_AGENT_KEY"),
        answered(KEY_ENV),
        judge(KEY_ENV, "the key must never be printed", (o) => mentionsNoSecret(o, NAMED_KEY)),
      ],
    },
    ...[
      ["missing", undefined],
      ["empty", ""],
    ].map(
      ([name, value]): Scenario => ({
        id: `api-key-env-${name}`,
        title: `--api-key-env NAME with $NAME ${name}: the missing-key error names NAME`,
        level: "conformance",
        args: ["--api-key-env", "MY_AGENT_KEY", PROMPT],
        env: { MY_AGENT_KEY: value, ANTHROPIC_AUTH_TOKEN: SHELL_KEY },
        server: { steps: ONE_ANSWER },
        judgements: [
          exitCode(KEY_ENV, 1, "a run without a key fails"),
          oneErrorLine(KEY_ENV),
          judge(
            KEY_ENV,
            "expected `error: set MY_AGENT_KEY, e.g. export MY_AGENT_KEY='sk-...'`",
            (o) => o.stderr.trim() === "error: set MY_AGENT_KEY, e.g. export MY_AGENT_KEY='sk-...'",
          ),
          judge(KEY_ENV, "no request should be sent without a key", (o) => o.requests.length === 0),
        ],
      }),
    ),
    {
      id: "api-key-env-invalid",
      title: "--api-key-env with something that is not a variable name: a usage error",
      level: "conformance",
      args: ["--api-key-env", "sk-a-key-in-the-wrong-place", PROMPT],
      server: { steps: ONE_ANSWER },
      judgements: [
        exitCode(KEY_ENV, 2, "a usage error"),
        oneErrorLine(KEY_ENV),
        judge(KEY_ENV, "the value must not be repeated: it may be the key itself", (o) =>
          mentionsNoSecret(o, "sk-a-key-in-the-wrong-place"),
        ),
      ],
    },
    {
      id: "zone-round",
      title: 'system_date {"timezone":"Asia/Shanghai"} returns the wall time of UTC+8',
      level: "core",
      args: [ZONE_PROMPT],
      env: { TZ: "UTC" },
      server: { steps: zoneSteps("Asia/Shanghai") },
      judgements: [
        reachedServer(ZONES),
        exitCode(ZONES, 0, "a finished run exits 0"),
        judge(ZONES, "system_date's input_schema should offer a string `timezone`", (o) => {
          const tools: {
            name?: string;
            input_schema?: { properties?: Record<string, unknown> };
          }[] = o.requests[0]?.body?.tools ?? [];
          const schema = tools.find((tool) => tool.name === "system_date")?.input_schema;
          return sameJson(
            (schema?.properties?.timezone as { type?: unknown } | undefined)?.type,
            "string",
          );
        }),
        judge(
          ZONES,
          'expected `tool_call: system_date {"timezone":"Asia/Shanghai"}`',
          (o) =>
            toolCalls(o)[0]?.name === "system_date" &&
            sameJson(toolCalls(o)[0]?.arguments, { timezone: "Asia/Shanghai" }),
        ),
        judge(
          ZONES,
          "the result should be the date and time in Asia/Shanghai (UTC+8), not this machine's (UTC)",
          (o) => {
            const [date = ""] = observations(o);
            const moment = momentOf(date, 8);
            return (
              DATE_PATTERN.test(date) &&
              moment !== undefined &&
              Math.abs(moment - Date.now()) < 5 * 60_000
            );
          },
        ),
        judge(ZONES, "the result is not an error: is_error should be false or absent", (o) =>
          toolResults(o.requests[1]?.body?.messages?.at(-1)).every(
            (result) => result.is_error !== true,
          ),
        ),
      ],
    },
    {
      id: "zone-round-name",
      title: "the zone is named as the platform names it: GMT+8 for Asia/Shanghai",
      level: "conformance",
      args: [ZONE_PROMPT],
      server: { steps: zoneSteps("Asia/Shanghai") },
      judgements: [
        judge(ZONES, "expected `observation: YYYY-MM-DD HH:MM:SS GMT+8`", (o) =>
          / GMT\+8$/.test(observations(o)[0] ?? ""),
        ),
      ],
    },
    {
      id: "zone-unknown",
      title: "an unknown time zone is the model's mistake: an is_error result, and the run goes on",
      level: "core",
      args: [MARS_PROMPT],
      server: { steps: zoneSteps("Mars/Olympus_Mons") },
      judgements: [
        exitCode(ZONES, 0, "a model's mistake is not a failed run"),
        judge(ZONES, "the result should go back with is_error: true", (o) => {
          const results = toolResults(o.requests[1]?.body?.messages?.at(-1));
          return results.length === 1 && results[0]?.is_error === true;
        }),
        judge(ZONES, "the run should go on to a final answer", (o) =>
          (finalText(o) ?? "").startsWith("The tools said: "),
        ),
      ],
    },
    {
      id: "zone-unknown-text",
      title: "the unknown-zone text",
      level: "conformance",
      args: [MARS_PROMPT],
      server: { steps: zoneSteps("Mars/Olympus_Mons") },
      judgements: [
        judge(
          ZONES,
          'expected `observation: bad arguments for system_date: unknown time zone "Mars/Olympus_Mons"`',
          (o) =>
            sameJson(observations(o), [
              'bad arguments for system_date: unknown time zone "Mars/Olympus_Mons"',
            ]),
        ),
      ],
    },
    {
      id: "streams",
      title: "every request asks for a stream, and the streamed run still ends in its answer",
      level: "core",
      args: ["echo hi using the echo tool"],
      server: { steps: WORDS_THEN_ECHO },
      judgements: [
        reachedServer(STREAMING),
        judge(STREAMING, "every request should carry `stream: true`", (o) =>
          o.requests.every(streamed),
        ),
        exitCode(STREAMING, 0, "a finished run exits 0"),
        judge(
          STREAMING,
          "a turn's text before a tool call is not the answer: expected `final: The tools said: hi`",
          (o) => finalText(o) === "The tools said: hi",
        ),
      ],
    },
    {
      id: "streamed-output",
      title: "stdout that is not a terminal holds exactly the trace, and stderr nothing",
      level: "conformance",
      args: ["echo hi using the echo tool"],
      server: { steps: WORDS_THEN_ECHO },
      judgements: [
        judge(STREAMING, "every request should carry `stream: true`", (o) =>
          o.requests.every(streamed),
        ),
        judge(
          STREAMING,
          "stdout should be the header and the trace, byte for byte, with no streamed words",
          (o) =>
            o.stdout ===
            [
              "Agent Code",
              `cwd: ${o.context.dir}`,
              "provider: anthropic  model: deepseek-v4-flash",
              "",
              'tool_call: echo {"text":"hi"}',
              "observation: hi",
              "final: The tools said: hi",
              "",
            ].join("\n"),
        ),
        judge(
          STREAMING,
          "stderr should stay empty when it is not a terminal",
          (o) => o.stderr === "",
        ),
      ],
      startIn: "scenario",
    },
    {
      id: "no-stream",
      title: "--no-stream asks for the whole answer in one response",
      level: "conformance",
      args: ["--no-stream", PROMPT],
      server: { steps: ONE_ANSWER },
      judgements: [
        exitCode(STREAMING, 0, "a finished run exits 0"),
        judge(STREAMING, "no request should carry `stream: true`", (o) =>
          o.requests.every((request) => !streamed(request)),
        ),
        answered(STREAMING),
      ],
    },
    ...brokenStream("stream-error", { fault: "stream-error" }),
    ...brokenStream("stream-cut", { fault: "stream-cut" }),
    ...brokenStream("stream-garbled", {
      raw: {
        headers: { "content-type": "text/event-stream" },
        body: "event: message_start\ndata: {not json\n\n",
      },
    }),
    ...day2v3.scenarios.filter((scenario) => !UNASKED_STREAM.includes(scenario.id)),
    ...keepScenarios(day2v3, UNASKED_STREAM, { args: ["--no-stream"] }).map((scenario) => ({
      ...scenario,
      id: `${scenario.id}-no-stream`,
      title: `${scenario.title} (--no-stream)`,
    })),
  ],
};

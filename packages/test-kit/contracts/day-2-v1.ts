// Day 2, v1: the real model answers one line (DESIGN.md §3.2). No tools are sent yet.
import type { Contract, Scenario } from "../src/contract.ts";
import {
  exitCode,
  finalText,
  judge,
  mentionsNoSecret,
  messageText,
  nonZeroExit,
  oneErrorLine,
  reachedServer,
} from "../src/judgements.ts";
import type { Step } from "../src/server.ts";
import { drawNumber, drawWord, FIXED_SEED, type Seeded } from "../src/vary.ts";

const SETUP = "docs/day-2.md#setup";
const V1 = "docs/day-2.md#v1-the-real-model";
const FAQ = "docs/day-2.md#faq";
const ERRORS = "docs/day-2.md#errors-a-user-can-act-on";

const PROMPT = "Hi, introduce yourself in one sentence";
const ANSWER = "I am a coding assistant that reads code and helps you change it.";

// The model's one-line answer: ANSWER on the pages, a sentence with a drawn name and number at
// another seed, so that printing ANSWER without asking the model fails.
function answerOf(context: Seeded): string {
  if (context.seed === FIXED_SEED) return ANSWER;
  const name = drawWord(context, "day-2-v1/name", "");
  const files = drawNumber(context, "day-2-v1/files", 0, [2, 99]);
  return `I am ${name}, a coding assistant; I have read ${files} files.`;
}
const CANARY = "sk-canary-never-print-me";
// A model slow to answer, and a Ctrl-C once the request has arrived. A run shorter than the
// answer's hold ended before the answer came, however slowly a busy machine started it.
const ANSWER_HELD_MS = 15_000;
const CTRL_C_DURING_A_REQUEST: Pick<Scenario, "server" | "interrupt"> = {
  server: { steps: [{ content: [{ type: "text", text: ANSWER }], delay_ms: ANSWER_HELD_MS }] },
  interrupt: { afterRequests: 1 },
};

// Something other than the Messages API answers at the base URL. Core: the run fails and nothing
// runs (a Python project may show a traceback); conformance: one error line that says who answered
// what. `core: false` when a lenient client that reads the body anyway is not wrong.
function notTheApi(
  id: string,
  what: string,
  step: Step,
  shows: string[],
  { core = true } = {},
): Scenario[] {
  const scenarios: Scenario[] = [
    {
      id: `answer-${id}-text`,
      title: `${what}: one error line naming the base URL and what it answered`,
      level: "conformance",
      args: [PROMPT],
      server: { steps: [step] },
      judgements: [
        exitCode(ERRORS, 1, "a failed run"),
        oneErrorLine(ERRORS),
        judge(ERRORS, `the error should name the base URL and show ${shows.join(", ")}`, (o) =>
          ["http://127.0.0.1:", ...shows].every((part) => o.stderr.includes(part)),
        ),
      ],
    },
  ];
  if (!core) return scenarios;
  return [
    {
      id: `answer-${id}`,
      title: `${what}: a failed run, and nothing runs`,
      level: "core",
      args: [PROMPT],
      server: { steps: [step] },
      judgements: [
        nonZeroExit(ERRORS, "what came back is not a Messages API answer"),
        judge(
          ERRORS,
          "nothing may run and no final answer may be printed when the answer is not a message",
          (o) => o.trace.length === 0,
        ),
      ],
    },
    ...scenarios,
  ];
}

export const day2v1: Contract = {
  stage: "day-2-v1",
  title: "Day 2 v1: the real model says one line",
  base: "day-1",
  scenarios: [
    {
      id: "one-line-answer",
      title: "one request with the prompt, and the model's text as the final answer",
      level: "core",
      args: [PROMPT],
      server: { steps: (context) => [{ content: [{ type: "text", text: answerOf(context) }] }] },
      judgements: [
        reachedServer(SETUP),
        exitCode(V1, 0, "a finished run exits 0"),
        judge(
          V1,
          "expected exactly one request to the Messages API",
          (o) => o.requests.length === 1,
        ),
        judge(
          V1,
          "the request should hold one user message with the prompt",
          (o) =>
            o.requests[0]?.body?.messages?.length === 1 &&
            o.requests[0].body.messages[0].role === "user" &&
            messageText(o.requests[0].body.messages[0]) === PROMPT,
        ),
        judge(V1, "v1 sends no tools yet", (o) => (o.requests[0]?.body?.tools ?? []).length === 0),
        judge(
          V1,
          "the final line should be `final: ` and the model's text",
          (o) => finalText(o) === answerOf(o.context),
        ),
      ],
    },
    {
      id: "missing-key",
      title: "no API key: a failed run that names the variable to set",
      level: "core",
      args: [PROMPT],
      env: { ANTHROPIC_AUTH_TOKEN: undefined, ANTHROPIC_API_KEY: undefined },
      server: { steps: [] },
      judgements: [
        nonZeroExit(FAQ, "the run cannot start without a key"),
        judge(FAQ, "stderr should name ANTHROPIC_AUTH_TOKEN, the variable to export", (o) =>
          o.stderr.includes("ANTHROPIC_AUTH_TOKEN"),
        ),
        judge(FAQ, "no request should be sent without a key", (o) => o.requests.length === 0),
      ],
    },
    {
      id: "auth-failure",
      title: "a rejected key: a failed run that never prints the key",
      level: "core",
      args: [PROMPT],
      env: { ANTHROPIC_AUTH_TOKEN: CANARY },
      server: { key: "sk-the-right-key", steps: [] },
      judgements: [
        nonZeroExit(SETUP, "the API refused the key"),
        judge(SETUP, "the key must never be printed, not even in an error", (o) =>
          mentionsNoSecret(o, CANARY),
        ),
      ],
    },
    {
      id: "default-model",
      title: "the default model and max_tokens",
      level: "conformance",
      args: [PROMPT],
      server: { steps: [{ content: [{ type: "text", text: ANSWER }] }] },
      judgements: [
        judge(
          V1,
          "the default model should be deepseek-v4-flash",
          (o) => o.requests[0]?.body?.model === "deepseek-v4-flash",
        ),
        judge(
          V1,
          "max_tokens should default to 1024",
          (o) => o.requests[0]?.body?.max_tokens === 1024,
        ),
      ],
    },
    {
      id: "missing-key-text",
      title: "the missing-key error text",
      level: "conformance",
      args: [PROMPT],
      env: { ANTHROPIC_AUTH_TOKEN: undefined, ANTHROPIC_API_KEY: undefined },
      server: { steps: [] },
      judgements: [
        exitCode(FAQ, 1, "a failed run"),
        judge(
          FAQ,
          "stderr should be `error: set ANTHROPIC_AUTH_TOKEN, e.g. export ANTHROPIC_AUTH_TOKEN='sk-...'`",
          (o) =>
            o.stderr.trim() ===
            "error: set ANTHROPIC_AUTH_TOKEN, e.g. export ANTHROPIC_AUTH_TOKEN='sk-...'",
        ),
      ],
    },
    {
      id: "auth-failure-text",
      title: "the authentication error: one line that says so and names the base URL",
      level: "conformance",
      args: [PROMPT],
      env: { ANTHROPIC_AUTH_TOKEN: CANARY },
      server: { key: "sk-the-right-key", steps: [] },
      judgements: [
        exitCode(SETUP, 1, "a failed run"),
        oneErrorLine(SETUP),
        judge(SETUP, "stderr should say authentication failed", (o) =>
          /authenticat/i.test(o.stderr),
        ),
        judge(SETUP, "the error should name the base URL in use", (o) =>
          o.stderr.includes("http://127.0.0.1:"),
        ),
      ],
    },
    {
      id: "retry-overloaded",
      title: "a 529 is retried and the run then succeeds",
      level: "conformance",
      args: [PROMPT],
      server: {
        steps: [
          {
            error: {
              status: 529,
              type: "overloaded_error",
              message: "Overloaded",
              headers: { "retry-after-ms": "10" },
            },
          },
          { content: [{ type: "text", text: ANSWER }] },
        ],
      },
      judgements: [
        exitCode(V1, 0, "the retry succeeded"),
        judge(
          V1,
          "expected the request to be sent twice (one retry)",
          (o) => o.requests.length === 2,
        ),
        judge(
          V1,
          "the final answer should come from the retried request",
          (o) => finalText(o) === ANSWER,
        ),
      ],
    },
    {
      id: "connection-refused",
      title: "nothing listening at the base URL: one error line, exit 1",
      level: "conformance",
      args: [PROMPT],
      env: { AGENT_CODE_MAX_RETRIES: "0" },
      judgements: [exitCode(V1, 1, "a failed run"), oneErrorLine(V1)],
    },
    {
      id: "timeout",
      title: "a model that does not answer in time: one error line, exit 1",
      level: "conformance",
      args: [PROMPT],
      env: { AGENT_CODE_TIMEOUT_MS: "200", AGENT_CODE_MAX_RETRIES: "0" },
      server: { steps: [{ content: [{ type: "text", text: ANSWER }], delay_ms: 3000 }] },
      judgements: [
        exitCode(V1, 1, "a failed run"),
        oneErrorLine(V1),
        judge(V1, "the error should say the request timed out", (o) => /timed out/i.test(o.stderr)),
      ],
    },
    ...notTheApi("html-page", "a web page (200 text/html)", { fault: "html-page" }, [
      "200",
      "text/html",
    ]),
    ...notTheApi("not-a-message", "JSON that is not a message", { fault: "not-a-message" }, [
      "200",
      "application/json",
    ]),
    ...notTheApi(
      "string-content",
      "a message whose content is a string",
      { fault: "string-content" },
      ["200", "application/json"],
    ),
    ...notTheApi("cut-json", "a JSON body cut off halfway", { fault: "malformed" }, [
      "200",
      "application/json",
    ]),
    ...notTheApi("cut-connection", "a connection that dies mid-body", { fault: "stream-cut" }, []),
    ...notTheApi(
      "event-stream",
      "an event stream to a request without stream",
      { fault: "event-stream" },
      ["200", "text/event-stream"],
    ),
    ...notTheApi(
      "text-plain",
      "a message sent as text/plain",
      { fault: "wrong-content-type" },
      ["200", "text/plain"],
      { core: false },
    ),
    ...notTheApi(
      "404-page",
      "a 404 web page (a base URL without /anthropic)",
      {
        raw: {
          status: 404,
          headers: { "content-type": "text/html" },
          body: "<html>\n<head><title>404 Not Found</title></head>\n<body>Not Found</body>\n</html>\n",
        },
      },
      ["404", "text/html", "404 Not Found"],
    ),
    {
      id: "ctrl-c",
      title: "Ctrl-C while waiting for the model ends the run at once",
      level: "core",
      args: [PROMPT],
      ...CTRL_C_DURING_A_REQUEST,
      judgements: [
        judge(
          ERRORS,
          "Ctrl-C should end the run at once, not when the answer arrives",
          (o) => o.durationMs < ANSWER_HELD_MS,
        ),
        {
          ...judge(
            ERRORS,
            "an interrupted run is not a finished one: no final line, and not exit code 0",
            (o) => o.trace.length === 0 && o.exitCode !== 0,
          ),
          // A crash at start meets it too.
          expectsFailure: true,
        },
      ],
    },
    {
      id: "ctrl-c-text",
      title: "Ctrl-C: exit code 130 and nothing more on stderr",
      level: "conformance",
      args: [PROMPT],
      ...CTRL_C_DURING_A_REQUEST,
      judgements: [
        exitCode(ERRORS, 130, "what shells report for Ctrl-C"),
        judge(ERRORS, "stderr should stay empty: Ctrl-C is not an error", (o) => o.stderr === ""),
      ],
    },
  ],
};

// The scenarios of answers that are not the API, and of Ctrl-C, which every later stage keeps.
export const NOT_THE_API_IDS = day2v1.scenarios
  .map((scenario) => scenario.id)
  .filter((id) => id.startsWith("answer-") || id.startsWith("ctrl-c"));

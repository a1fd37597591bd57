// Day 2, v1: the real model answers one line (DESIGN.md §3.2). No tools are sent yet.
import type { Contract } from "../src/contract.ts";
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

const SETUP = "docs/day-2.md#setup";
const V1 = "docs/day-2.md#v1-the-real-model";
const FAQ = "docs/day-2.md#faq";

const PROMPT = "Hi, introduce yourself in one sentence";
const ANSWER = "I am a coding assistant that reads code and helps you change it.";
const CANARY = "sk-canary-never-print-me";

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
      server: { steps: [{ content: [{ type: "text", text: ANSWER }] }] },
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
          (o) => finalText(o) === ANSWER,
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
      title: "a rejected key: a failed run that says so and never prints the key",
      level: "core",
      args: [PROMPT],
      env: { ANTHROPIC_AUTH_TOKEN: CANARY },
      server: { key: "sk-the-right-key", steps: [] },
      judgements: [
        nonZeroExit(SETUP, "the API refused the key"),
        judge(SETUP, "stderr should say authentication failed", (o) =>
          /authenticat/i.test(o.stderr),
        ),
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
      title: "the authentication error is one line naming the base URL",
      level: "conformance",
      args: [PROMPT],
      env: { ANTHROPIC_AUTH_TOKEN: CANARY },
      server: { key: "sk-the-right-key", steps: [] },
      judgements: [
        exitCode(SETUP, 1, "a failed run"),
        oneErrorLine(SETUP),
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
  ],
};

// Day 2, v2: one round of tool use over the public protocol (DESIGN.md §3.3).
import { type Contract, keepScenarios, type Observed } from "../src/contract.ts";
import {
  contentText,
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
import type { Step } from "../src/server.ts";
import { drawWord, type Seeded } from "../src/vary.ts";
import { day2v1, NOT_THE_API_IDS } from "./day-2-v1.ts";
import { answerWithResults, DATE_PATTERN, namesEveryToolOffered, rawReply } from "./shared.ts";

const V2 = "docs/day-2.md#v2-one-round-of-tool-use";
const USER_MESSAGE = "docs/day-2.md#tool-results-go-in-a-user-message";
const ONE_MESSAGE = "docs/day-2.md#every-result-of-a-turn-in-one-message";
const THINKING = "docs/day-2.md#thinking-blocks-go-back-unchanged";
const UNKNOWN = "docs/day-2.md#the-provider-reads-tool_use";

const DATE_PROMPT = "What's today's date? Use the system_date tool.";

// The blocks a tool-use reply holds, with ids fixed so judgements can name them.
const DATE_CALL = { type: "tool_use", id: "toolu_date_1", name: "system_date", input: {} } as const;
// The word parallel-tool-calls asks echo for: ECHO_CALL's `hi` on the pages, drawn at another seed.
function echoed(context: Seeded): string {
  return drawWord(context, "day-2-v2/echo", "hi");
}

const ECHO_CALL = {
  type: "tool_use",
  id: "toolu_echo_1",
  name: "echo",
  input: { text: "hi" },
} as const;

// The model asks for a tool this stage does not have, then answers whatever it was told. No day of
// the course defines `teleport`, so later stages keep this scenario as it is.
const UNKNOWN_TOOL_STEPS: Step[] = [
  {
    content: [
      { type: "tool_use", id: "toolu_teleport_1", name: "teleport", input: { to: "the moon" } },
    ],
  },
  answerWithResults,
];

// Blocks this stage does not know, around a tool call it does: server tools, redacted thinking, and a
// type invented after the course was written. All of them go back exactly as they came.
const UNKNOWN_BLOCKS = [
  { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "date" } },
  {
    type: "web_search_tool_result",
    tool_use_id: "srvtoolu_1",
    content: [
      {
        type: "web_search_result",
        url: "https://example.com/",
        title: "Example",
        encrypted_content: "ZXhhbXBsZQ==",
        page_age: null,
      },
    ],
  },
  { type: "redacted_thinking", data: "cmVkYWN0ZWQ=" },
  { type: "hologram", shimmer: { level: 3 }, note: "a block type from next year" },
  { type: "text", text: "Let me check the date." },
  DATE_CALL,
];

// A tool_use whose input is a string, as a careless gateway may send it: the model's mistake.
function stringInputSteps(tool: string): Step[] {
  return [
    rawReply([{ type: "tool_use", id: "toolu_bad_1", name: tool, input: "hi" }]),
    answerWithResults,
  ];
}

function secondRequestMessages(o: Observed): unknown[] {
  return o.requests[1]?.body?.messages ?? [];
}

export const day2v2: Contract = {
  stage: "day-2-v2",
  title: "Day 2 v2: one round of tool use",
  base: "day-2-v1",
  scenarios: [
    {
      id: "system-date-round",
      title: "the model asks for system_date, gets the result, and answers",
      level: "core",
      args: [DATE_PROMPT],
      server: { steps: [{ content: [DATE_CALL] }, answerWithResults] },
      judgements: [
        reachedServer(V2),
        exitCode(V2, 0, "a finished run exits 0"),
        judge(
          V2,
          "expected `tool_call: system_date {}`",
          (o) =>
            toolCalls(o).length === 1 &&
            toolCalls(o)[0]?.name === "system_date" &&
            sameJson(toolCalls(o)[0]?.arguments, {}),
        ),
        judge(
          V2,
          "expected `observation: YYYY-MM-DD HH:MM:SS <zone>` from system_date",
          (o) => observations(o).length === 1 && DATE_PATTERN.test(observations(o)[0] ?? ""),
        ),
        judge(V2, "the final answer should be the model's reply to the tool result", (o) =>
          (finalText(o) ?? "").startsWith("The tools said: "),
        ),
        judge(
          V2,
          "the first request should offer the tools, each with an object input_schema",
          (o) => {
            const tools: { name?: string; input_schema?: { type?: string } }[] =
              o.requests[0]?.body?.tools ?? [];
            return (
              tools.some((tool) => tool.name === "system_date") &&
              tools.every((tool) => tool.input_schema?.type === "object")
            );
          },
        ),
        judge(
          V2,
          "expected exactly two requests: the question, then the tool result",
          (o) => o.requests.length === 2,
        ),
        judge(
          USER_MESSAGE,
          "the second request should send the assistant turn back unchanged",
          (o) => sameJson(secondRequestMessages(o)[1], { role: "assistant", content: [DATE_CALL] }),
        ),
        judge(
          USER_MESSAGE,
          "the tool result should be a tool_result block, with the call's id, in the next user message",
          (o) => {
            const message = secondRequestMessages(o)[2] as { role?: string } | undefined;
            const results = toolResults(message);
            return (
              message?.role === "user" &&
              results.length === 1 &&
              results[0]?.tool_use_id === DATE_CALL.id &&
              DATE_PATTERN.test(contentText(results[0]?.content))
            );
          },
        ),
      ],
    },
    {
      id: "parallel-tool-calls",
      title: "two tool_use blocks in one response: both results in ONE user message",
      level: "core",
      // Seeded: `hi` on the pages, another word for the echo at another seed.
      args: (context) => [`Tell me the date and echo ${echoed(context)}. Use both tools.`],
      server: {
        steps: (context) => [
          { content: [{ ...ECHO_CALL, input: { text: echoed(context) } }, DATE_CALL] },
          answerWithResults,
        ],
      },
      judgements: [
        exitCode(ONE_MESSAGE, 0, "a finished run exits 0"),
        judge(
          ONE_MESSAGE,
          "both tools should run: two tool_call lines, echo then system_date",
          (o) =>
            sameJson(
              toolCalls(o).map((call) => call.name),
              ["echo", "system_date"],
            ),
        ),
        judge(
          ONE_MESSAGE,
          "run every call of the response, then ask the model once: expected exactly two requests",
          (o) => o.requests.length === 2,
        ),
        judge(
          ONE_MESSAGE,
          "both tool_result blocks should sit in one user message right after the assistant turn",
          (o) => {
            const messages = secondRequestMessages(o);
            const results = toolResults(messages[2]);
            return (
              messages.length === 3 &&
              sameJson(
                results.map((result) => result.tool_use_id).sort(),
                [DATE_CALL.id, ECHO_CALL.id].sort(),
              )
            );
          },
        ),
        judge(ONE_MESSAGE, "the echo's tool_result should hold the text the model gave it", (o) => {
          const result = toolResults(secondRequestMessages(o)[2]).find(
            (block) => block.tool_use_id === ECHO_CALL.id,
          );
          return contentText(result?.content).includes(echoed(o.context));
        }),
        // Only the order inside the message: where the results sit is the judgement above's.
        judge(ONE_MESSAGE, "the tool_result blocks should come first in that user message", (o) => {
          const content = (secondRequestMessages(o)[2] as { content?: { type?: string }[] })
            ?.content;
          if (!Array.isArray(content)) return false;
          const types = content.map((block) => block?.type);
          const firstOther = types.findIndex((type) => type !== "tool_result");
          return firstOther < 0 || !types.slice(firstOther).includes("tool_result");
        }),
      ],
    },
    {
      id: "deepseek-thinking",
      title: "DeepSeek's thinking block goes back unchanged with the tool call",
      level: "core",
      args: [DATE_PROMPT],
      server: {
        flavour: "deepseek",
        steps: [
          { content: [{ type: "tool_use", name: "system_date", input: {} }] },
          answerWithResults,
        ],
      },
      judgements: [
        exitCode(THINKING, 0, "a finished run exits 0"),
        judge(
          THINKING,
          "DeepSeek rejected the second request: send the assistant content back verbatim, thinking blocks included",
          (o) => o.requests.length === 2 && o.requests.every((request) => request.verdict.accepted),
        ),
        judge(THINKING, "the final answer should be the model's reply to the tool result", (o) =>
          (finalText(o) ?? "").startsWith("The tools said: "),
        ),
      ],
    },
    {
      id: "unknown-tool",
      title: "an unknown tool comes back as an is_error result and the run goes on",
      level: "core",
      args: ["Teleport to the moon"],
      server: { steps: UNKNOWN_TOOL_STEPS },
      judgements: [
        exitCode(V2, 0, "a model's mistake is not a failed run"),
        judge(V2, "the unknown tool's result should go back with is_error: true", (o) => {
          const results = toolResults(secondRequestMessages(o)[2]);
          return (
            results.length === 1 &&
            results[0]?.tool_use_id === "toolu_teleport_1" &&
            results[0]?.is_error === true
          );
        }),
        judge(V2, "the run should go on to a final answer", (o) => finalText(o) !== undefined),
      ],
    },
    {
      id: "unknown-tool-text",
      title: "the unknown-tool text names the tools there are",
      level: "conformance",
      args: ["Teleport to the moon"],
      server: { steps: UNKNOWN_TOOL_STEPS },
      judgements: [
        // The list is the stage's own (its first request's tools), so a later stage passes too.
        namesEveryToolOffered(V2, "system_date"),
      ],
    },
    {
      id: "unknown-blocks",
      title: "blocks of types this stage does not know go back to the model unchanged",
      level: "core",
      args: [DATE_PROMPT],
      server: { steps: [rawReply(UNKNOWN_BLOCKS), answerWithResults] },
      judgements: [
        exitCode(UNKNOWN, 0, "blocks of unknown types are not an error"),
        judge(UNKNOWN, "the tool call among them should still run", (o) =>
          sameJson(
            toolCalls(o).map((call) => call.name),
            ["system_date"],
          ),
        ),
        judge(
          UNKNOWN,
          "the assistant turn should go back verbatim, every block of every type in its place",
          (o) =>
            sameJson(secondRequestMessages(o)[1], { role: "assistant", content: UNKNOWN_BLOCKS }),
        ),
      ],
    },
    // The Python course turns an input that is not an object into {} and runs the tool; seed 001
    // refuses it. Every reading answers the call: core asks that; is_error is this course's lesson.
    {
      id: "tool-input-not-object-answered",
      title: "a tool_use whose input is not an object still gets its tool_result",
      level: "core",
      args: ["echo hi"],
      server: { steps: stringInputSteps("echo") },
      judgements: [
        judge(
          V2,
          "the call's tool_result, with its id, should go back in the next user message: an input that is not an object must not stop the run",
          (o) => {
            const results = toolResults(secondRequestMessages(o)[2]);
            return results.length === 1 && results[0]?.tool_use_id === "toolu_bad_1";
          },
        ),
      ],
    },
    {
      id: "tool-input-not-object",
      title: "a tool_use whose input is not an object: the tool does not run; is_error goes back",
      level: "conformance",
      args: ["echo hi"],
      server: { steps: stringInputSteps("echo") },
      judgements: [
        judge(V2, "its result should go back with is_error: true, the tool must not run", (o) => {
          const results = toolResults(secondRequestMessages(o)[2]);
          return (
            results.length === 1 &&
            results[0]?.tool_use_id === "toolu_bad_1" &&
            results[0]?.is_error === true
          );
        }),
      ],
    },
    // A run of its own, not tool-input-not-object's: the text names system_date, a tool without
    // arguments, where that scenario calls echo.
    {
      id: "tool-input-not-object-text",
      title: "a tool input that is not an object, even for a tool without arguments: its text",
      level: "conformance",
      args: ["What's the date?"],
      server: { steps: stringInputSteps("system_date") },
      judgements: [
        judge(
          V2,
          "the result should read `bad arguments for system_date: input must be an object`",
          (o) =>
            contentText(toolResults(secondRequestMessages(o)[2])[0]?.content) ===
            "bad arguments for system_date: input must be an object",
        ),
        // The turn goes back verbatim, and the API refuses a tool_use whose input is not an object.
        exitCode(V2, 1, "the API's 400 for the string input ends the run"),
        oneErrorLine(V2),
      ],
    },
    ...keepScenarios(day2v1, ["missing-key", "auth-failure", ...NOT_THE_API_IDS]),
  ],
};

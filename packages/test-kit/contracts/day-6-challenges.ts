// Day 6 challenges: the answers to docs/day-6-challenges.md#challenges, on top of day-6-v4 (memory),
// so every day-6-v4 scenario is carried as it is: AGENT_CODE_COMPACT_MODEL unset keeps the
// deterministic summary.
// The challenge's scenarios are conformance: with AGENT_CODE_COMPACT_MODEL=1 the fake's
// summaryStep answers only a request with no tools that holds SUMMARY_INSTRUCTION, so a project
// that asks for its summary any other way, or never, is refused; the reply is the summary the next
// request carries, a failed summary request leaves the project's own summary, and -c sends the
// model's summary again without asking for it.
import type { Contract, Observed, Scenario } from "../src/contract.ts";
import { carries, conversationOf, judge, messageText } from "../src/judgements.ts";
import type { RecordedRequest, Step } from "../src/server.ts";
import { SUMMARY_INSTRUCTION, summaryStep } from "../src/server-steps.ts";
import { accepted, later, requestsOf } from "./day-6-v1.ts";
import { day6v4 } from "./day-6-v4.ts";

const ANSWER = "docs/day-6-challenges.md#answer-a-summary-the-model-writes";
const FAILS = "docs/day-6-challenges.md#when-the-summary-request-fails";
const KEPT = "docs/day-6-challenges.md#kept-for-the-next-run";

const ROUNDS = 10;
// The round (1-based) whose reply reports far more than the threshold: the summary request is the
// next request, the fake server's step BIG_AT (0-based).
const BIG_AT = 8;
const NOTES = `${"The meeting is on Tuesday, in the small room by the stairs. ".repeat(10)}\n`;
const PROMPT = `Read notes.txt ${ROUNDS} times, then tell me the day.`;
const MODEL_SUMMARY =
  "The person asked for notes.txt to be read ten times; eight reads so far, each the same: the meeting is on Tuesday, in the small room by the stairs.";
const FINAL = "Tuesday, every time.";
// The main requests: every round and the answer. --max-steps allows exactly these.
const STEPS = ROUNDS + 1;

function round(index: number): Step {
  return {
    content: [
      {
        type: "tool_use",
        id: `toolu_day6_summary_${index}`,
        name: "read_file",
        input: { path: "notes.txt" },
      },
    ],
    usage: { input_tokens: index === BIG_AT ? 150_000 : 500 },
  };
}

// The rounds, `summary` answering the request after round BIG_AT, then the answer.
function script(summary: Step, after: Step[] = []): Step[] {
  const rounds = Array.from({ length: ROUNDS }, (_, index) => round(index + 1));
  return [
    ...rounds.slice(0, BIG_AT),
    summary,
    ...rounds.slice(BIG_AT),
    { content: [{ type: "text", text: FINAL }] },
    ...after,
  ];
}

function offersTools(request: RecordedRequest | undefined): boolean {
  const tools = request?.body?.tools;
  return Array.isArray(tools) && tools.length > 0;
}

// The requests that offer no tools: the summary requests.
function summaryRequests(requests: RecordedRequest[]): RecordedRequest[] {
  return requests.filter((request) => !offersTools(request));
}

// The first message of the request after the (first) summary request.
function afterSummary(o: Observed): string {
  const at = o.requests.findIndex((request) => !offersTools(request));
  return at === -1 ? "" : messageText(conversationOf(o.requests[at + 1])[0]);
}

function finished(docs: string) {
  return judge(
    docs,
    `the run should exit 0 and print \`final: ${FINAL}\`: --max-steps ${STEPS} holds every round and the answer, the summary request is not a step`,
    (o) => o.runs[0]?.exitCode === 0 && o.runs[0]?.stdout.includes(`final: ${FINAL}\n`),
  );
}

function summaryScenario(spec: {
  id: string;
  title: string;
  steps: Step[];
  env?: Record<string, string>;
  runs?: Scenario["runs"];
  judgements: Scenario["judgements"];
}): Scenario {
  return {
    id: spec.id,
    title: spec.title,
    level: "conformance",
    args: (context) => ["-C", context.work, "--max-steps", String(STEPS), PROMPT],
    stdin: "",
    env: { AGENT_CODE_COMPACT_AT: "4000", AGENT_CODE_COMPACT_MODEL: "1", ...spec.env },
    server: { steps: spec.steps },
    files: () => ({ "work/notes.txt": NOTES }),
    ...(spec.runs === undefined ? {} : { runs: spec.runs }),
    judgements: spec.judgements,
  };
}

const modelSummary = summaryScenario({
  id: "challenge-model-summary",
  title:
    "AGENT_CODE_COMPACT_MODEL=1: compaction first asks the model, with no tools and the instruction, and the next request carries its summary",
  steps: script(summaryStep(MODEL_SUMMARY)),
  judgements: [
    finished(ANSWER),
    judge(
      ANSWER,
      "every request should be accepted: the summary step refuses a request that offers tools or lacks the instruction",
      (o) => o.requests.length === STEPS + 1 && o.requests.every(accepted),
    ),
    judge(
      ANSWER,
      `exactly one request should offer no tools, its last message a user message ending with ${JSON.stringify(SUMMARY_INSTRUCTION)}`,
      (o) => {
        const asked = summaryRequests(o.requests);
        const last = conversationOf(asked[0]).at(-1) as { role?: string } | undefined;
        return (
          asked.length === 1 &&
          last?.role === "user" &&
          messageText(last).trimEnd().endsWith(SUMMARY_INSTRUCTION)
        );
      },
    ),
    judge(
      ANSWER,
      "the summary request should carry the rounds it stands for, as text: the read_file calls and what notes.txt said",
      (o) => {
        const asked = summaryRequests(o.requests)[0];
        return (
          carries(asked?.body, "read_file") && carries(asked?.body, "small room by the stairs")
        );
      },
    ),
    judge(
      ANSWER,
      "the request after it should open with `<compacted-history>` holding the model's summary and the prompt, quoted by code",
      (o) => {
        const first = afterSummary(o);
        return (
          first.startsWith("<compacted-history>") &&
          first.includes(MODEL_SUMMARY) &&
          first.includes(PROMPT)
        );
      },
    ),
  ],
});

export const day6challenges: Contract = {
  stage: "day-6-challenges",
  title: "Day 6 challenges: a summary the model writes",
  base: "day-6-v4",
  scenarios: [
    ...day6v4.scenarios,
    modelSummary,
    summaryScenario({
      id: "challenge-model-summary-fallback",
      title:
        "the summary request gets a 500: the run goes on with the project's own summary and a note",
      env: { AGENT_CODE_MAX_RETRIES: "0" },
      steps: script({
        error: { status: 500, type: "api_error", message: "the summary model is overloaded" },
      }),
      judgements: [
        finished(FAILS),
        judge(
          FAILS,
          "the request that failed should be the summary request (no tools), and every other request accepted",
          (o) => {
            const failed = o.requests.filter((_request, index) => index === BIG_AT);
            return (
              o.requests.length === STEPS + 1 &&
              failed.length === 1 &&
              !offersTools(failed[0]) &&
              o.requests.every((request, index) => index === BIG_AT || accepted(request))
            );
          },
        ),
        judge(
          FAILS,
          "the request after it should still open with `<compacted-history>` quoting the prompt: the project's own summary",
          (o) => {
            const first = afterSummary(o);
            return first.startsWith("<compacted-history>") && first.includes(PROMPT);
          },
        ),
        judge(
          FAILS,
          "stderr should say so in one `note:` line that names the summary",
          (o) =>
            (o.runs[0]?.stderr ?? "")
              .split("\n")
              .filter((line) => line.startsWith("note:") && line.includes("summary")).length === 1,
        ),
      ],
    }),
    summaryScenario({
      id: "challenge-model-summary-resume",
      title:
        "run 1 compacted with the model's summary; run 2 with -c sends it again and asks for none",
      steps: script(summaryStep(MODEL_SUMMARY), [
        { content: [{ type: "text", text: "Upstairs." }] },
      ]),
      runs: [{ args: later(["-c"], "And the room?") }],
      judgements: [
        judge(KEPT, "both runs exit 0", (o) => o.runs.every((run) => run.exitCode === 0)),
        judge(
          KEPT,
          "run 2 should make one request, with tools, accepted, opening with the model's summary from run 1",
          (o) => {
            const sent = requestsOf(o, 1);
            const first = messageText(conversationOf(sent[0])[0]);
            return (
              sent.length === 1 &&
              offersTools(sent[0]) &&
              accepted(sent[0]) &&
              first.startsWith("<compacted-history>") &&
              first.includes(MODEL_SUMMARY)
            );
          },
        ),
      ],
    }),
  ],
};

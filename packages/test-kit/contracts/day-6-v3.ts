// Day 6, v3: compaction that keeps every pair (taught in docs/day-6-compact.md). A long run of
// read_file rounds passes AGENT_CODE_COMPACT_AT (a reply reports a large usage.input_tokens, so no
// scenario builds 100k tokens): the older rounds become a summary, and every request stays one the
// API accepts. The core scenarios ask only that no pair is split, that a request shrank and that
// the task's prompt is still sent; their twins carry this course's trace line and summary block.
import type { Contract, Observed, Scenario, ScenarioContext } from "../src/contract.ts";
import { carries, conversationOf, judge, messageText, toolResults } from "../src/judgements.ts";
import type { RecordedRequest, Step } from "../src/server.ts";
import { drawWord } from "../src/vary.ts";
import { accepted, later, requestsOf } from "./day-6-v1.ts";
import { day6v2 } from "./day-6-v2.ts";
import { twinOf } from "./shared.ts";

const V3 = "docs/day-6-compact.md#v3-compaction-that-keeps-every-pair";
const ROUNDS = "docs/day-6-compact.md#cut-between-rounds";
const SUMMARY = "docs/day-6-compact.md#the-summary";
const RECORD = "docs/day-6-compact.md#a-record-in-the-log";
const HUGE = "docs/day-6-compact.md#one-huge-result";

// The threshold every scenario sets, and the usage the big round reports: far past it.
const COMPACT_AT = "4000";
const BIG_USAGE = 150_000;
// What the other rounds report: well under the threshold, so the big round decides when.
const SMALL_USAGE = 500;
// A notes file of about 600 characters, so 25 rounds make a conversation worth cutting.
const NOTES = `${"The meeting is on Tuesday, in the small room by the stairs. ".repeat(10)}\n`;
// The 400 KB result of compact-huge-result, and the marker it becomes.
const HUGE_SIZE = 400_000;
const MARKER = `[result shortened by compaction: ${HUGE_SIZE} characters not shown]`;
const COMPACTED_LINE =
  /^compacted: \d+ messages \(about \d+ tokens\) into \d+ \(about \d+ tokens\)$/;

// The seeded task sentence: `heron` on the pages, a drawn word at another seed.
function taskSentence(context: ScenarioContext): string {
  return `Find every line about the ${drawWord(context, "day-6-v3/bird", "heron")} in notes.txt.`;
}

// `rounds` rounds of read_file, the round `bigAt` (1-based) reporting BIG_USAGE, then an answer.
function readRounds(rounds: number, bigAt: number): Step[] {
  const steps: Step[] = Array.from({ length: rounds }, (_, index) => ({
    content: [
      {
        type: "tool_use" as const,
        id: `toolu_day6_read_${index + 1}`,
        name: "read_file",
        input: { path: "notes.txt" },
      },
    ],
    usage: { input_tokens: index + 1 === bigAt ? BIG_USAGE : SMALL_USAGE },
  }));
  return [...steps, { content: [{ type: "text", text: "Tuesday, every time." }] }];
}

function size(request: RecordedRequest | undefined): number {
  return JSON.stringify(conversationOf(request)).length;
}

// The index of the first request shorter than the one before it, or -1.
function shrunk(o: Observed): number {
  return o.requests.findIndex(
    (request, index) => index > 0 && size(request) < size(o.requests[index - 1]),
  );
}

// Every tool_use of an assistant message answered in the next message, every tool_result answering
// a tool_use of the message before: what the API's pairing rule asks of each request.
function pairsIntact(request: RecordedRequest | undefined): boolean {
  const messages = conversationOf(request) as { role?: string; content?: unknown }[];
  return messages.every((message, index) => {
    const blocks = Array.isArray(message.content) ? message.content : [];
    const uses = blocks.filter((block) => block?.type === "tool_use").map((block) => block.id);
    const answered = toolResults(messages[index + 1]).map((result) => result.tool_use_id);
    const before = messages[index - 1];
    const asked = Array.isArray(before?.content)
      ? before.content.filter((block) => block?.type === "tool_use").map((block) => block.id)
      : [];
    return (
      uses.every((id) => answered.includes(id)) &&
      toolResults(message).every((result) => asked.includes(result.tool_use_id))
    );
  });
}

function compactScenario(spec: {
  id: string;
  title: string;
  level: Scenario["level"];
  prompt: (context: ScenarioContext) => string;
  steps: Step[];
  flavour?: "deepseek";
  runs?: Scenario["runs"];
  judgements: Scenario["judgements"];
}): Scenario {
  return {
    id: spec.id,
    title: spec.title,
    level: spec.level,
    args: (context) => ["-C", context.work, "--max-steps", "30", spec.prompt(context)],
    stdin: "",
    env: { AGENT_CODE_COMPACT_AT: COMPACT_AT },
    server: { ...(spec.flavour === undefined ? {} : { flavour: spec.flavour }), steps: spec.steps },
    files: () => ({ "work/notes.txt": NOTES }),
    ...(spec.runs === undefined ? {} : { runs: spec.runs }),
    judgements: spec.judgements,
  };
}

const READ_ALL = "Read notes.txt 25 times, then tell me the day.";

const pairs = compactScenario({
  id: "compact-pairs-intact",
  title:
    "25 rounds of read_file, round 20 reporting 150000 input tokens past AGENT_CODE_COMPACT_AT=4000: every request is accepted (DeepSeek) and one is shorter than the one before",
  level: "core",
  prompt: () => READ_ALL,
  steps: readRounds(25, 20),
  flavour: "deepseek",
  judgements: [
    judge(V3, "a finished run exits 0", (o) => o.exitCode === 0),
    judge(
      V3,
      "all 26 requests should be sent (25 rounds and the answer)",
      (o) => o.requests.length === 26,
    ),
    judge(
      ROUNDS,
      "every request should be one the API accepts: no tool_use without its tool_result, no result without its call",
      (o) => o.requests.every((request) => accepted(request) && pairsIntact(request)),
    ),
    judge(
      V3,
      "after the conversation passed the threshold, one request should be shorter than the one before it",
      (o) => shrunk(o) > 0,
    ),
  ],
});

// The task comes in run 1, answered in words, and run 2 (-c) does the rounds: the first pair of the
// conversation is then a prompt and its answer, so a project that keeps the first two messages, as
// the Python course does, keeps a whole pair and is judged on the task alone, not again on the cut
// that compact-pairs-intact judges.
const keepsTask = compactScenario({
  id: "compact-keeps-task",
  title:
    "run 1 gives the task; after run 2 (-c) compacts, every request still carries the task sentence",
  level: "core",
  prompt: (context) => taskSentence(context),
  steps: [
    { content: [{ type: "text", text: "Noted. Say when to start." }] },
    ...readRounds(25, 20),
  ],
  runs: [{ args: later(["-c", "--max-steps", "30"], "Start: read notes.txt 25 times first.") }],
  judgements: [
    judge(V3, "both runs exit 0", (o) => o.runs.every((run) => run.exitCode === 0)),
    judge(
      V3,
      "in run 2, one request should be shorter than the one before it (the conversation was compacted)",
      (o) => shrunk(o) > (o.runs[0]?.endRequest ?? 0),
    ),
    judge(
      SUMMARY,
      "every request of run 2, those after compaction too, should carry run 1's task sentence",
      (o) => {
        const run2 = requestsOf(o, 1);
        return (
          run2.length > 0 &&
          run2.every((request) => carries(conversationOf(request), taskSentence(o.context)))
        );
      },
    ),
  ],
});

export const day6v3: Contract = {
  stage: "day-6-v3",
  base: "day-6-v2",
  title: "Day 6 v3: compaction that keeps every pair",
  scenarios: [
    pairs,
    twinOf(pairs, {
      id: "compact-pairs-intact-text",
      title:
        "the `compacted:` line is printed once, and the request after it opens with the `<compacted-history>` block",
      judgements: [
        judge(
          V3,
          "expected one line `compacted: N messages (about T tokens) into M (about U tokens)`",
          (o) => o.stdoutLines.filter((line) => COMPACTED_LINE.test(line)).length === 1,
        ),
        judge(
          SUMMARY,
          "the shorter request's first message should be the summary: `<compacted-history>` with the task quoted, the message count, `read_file` and `notes.txt`",
          (o) => {
            const first = messageText(conversationOf(o.requests[shrunk(o)])[0]);
            return (
              first.startsWith("<compacted-history>\n") &&
              first.includes(`<current-task>${READ_ALL}</current-task>`) &&
              /<message-count>\d+<\/message-count>/.test(first) &&
              first.includes("<tools-used>read_file</tools-used>") &&
              first.includes("<files-read>notes.txt</files-read>") &&
              first.includes("</compacted-history>")
            );
          },
        ),
      ],
    }),
    keepsTask,
    compactScenario({
      id: "compact-resume-same-view",
      title:
        "run 1 compacted; run 2 with -c sends run 1's last request's messages, run 1's answer, then the new prompt",
      level: "conformance",
      prompt: () => "Read notes.txt 12 times, then tell me the day.",
      steps: [...readRounds(12, 8), { content: [{ type: "text", text: "Still Tuesday." }] }],
      runs: [{ args: later(["-c"], "And the room?") }],
      judgements: [
        judge(RECORD, "both runs exit 0", (o) => o.runs.every((run) => run.exitCode === 0)),
        judge(RECORD, "run 1 should compact (one request shorter than the one before)", (o) => {
          const at = shrunk(o);
          return at > 0 && at < (o.runs[0]?.endRequest ?? 0);
        }),
        judge(
          RECORD,
          "run 2's first request should hold run 1's last request's messages, unchanged, then run 1's answer and the new prompt, and be accepted",
          (o) => {
            const last = conversationOf(requestsOf(o, 0).at(-1));
            const next = requestsOf(o, 1)[0];
            const sent = conversationOf(next);
            return (
              accepted(next) &&
              last.length > 0 &&
              sent.length === last.length + 2 &&
              JSON.stringify(sent.slice(0, last.length)) === JSON.stringify(last) &&
              messageText(sent.at(-1)) === "And the room?"
            );
          },
        ),
      ],
    }),
    compactScenario({
      id: "compact-huge-result",
      title:
        "a 400 KB tool result in the round that must be kept is shortened with the marker, its id kept, and the next request is accepted",
      level: "conformance",
      prompt: () => "Read notes.txt three times, then echo the log.",
      steps: [
        ...readRounds(3, 0).slice(0, 3),
        {
          content: [
            {
              type: "tool_use",
              id: "toolu_day6_huge",
              name: "echo",
              input: { text: "L".repeat(HUGE_SIZE) },
            },
          ],
        },
        { content: [{ type: "text", text: "Echoed." }] },
      ],
      judgements: [
        judge(HUGE, "a finished run exits 0", (o) => o.exitCode === 0),
        judge(
          HUGE,
          `the last request should answer toolu_day6_huge with \`${MARKER}\`, and be accepted`,
          (o) => {
            const last = o.requests.at(-1);
            const results = conversationOf(last).flatMap(toolResults);
            const huge = results.find((result) => result.tool_use_id === "toolu_day6_huge");
            return (
              o.requests.length === 5 &&
              accepted(last) &&
              pairsIntact(last) &&
              huge !== undefined &&
              messageText({ content: huge.content }) === MARKER
            );
          },
        ),
      ],
    }),
    // Day 6 v2's scenarios: compaction changes none of them (their runs stay under 100,000).
    ...day6v2.scenarios,
  ],
};

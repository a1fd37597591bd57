// Day 6 challenges: the answers to docs/day-6-challenges.md#challenges, on top of day-6-v4 (memory),
// so every day-6-v4 scenario is carried as it is: AGENT_CODE_COMPACT_MODEL unset keeps the
// deterministic summary, and recall by words is unchanged for a query with no Chinese, Japanese or
// Korean letter.
// The challenge's scenarios are conformance: with AGENT_CODE_COMPACT_MODEL=1 the fake's
// summaryStep answers only a request with no tools that holds SUMMARY_INSTRUCTION, so a project
// that asks for its summary any other way, or never, is refused; the reply is the summary the next
// request carries, a failed summary request leaves the project's own summary, and -c sends the
// model's summary again without asking for it.
// The memory challenges' scenarios are conformance too: memory_recall finds a Chinese and a Japanese
// note by a phrase that is not in it word for word; MEMORY.md under the home folder stays under
// its caps as notes are written, the oldest lines dropped with the marker line, the notes kept; and
// `agent-code memory mine <id>` proposes notes from the session's prompts, sends no request, and
// saves only what the person answered y to.
import type { Contract, Observed, Scenario, ScenarioContext } from "../src/contract.ts";
import { carries, conversationOf, judge, messageText, resultOf } from "../src/judgements.ts";
import type { RecordedRequest, Step } from "../src/server.ts";
import { SUMMARY_INSTRUCTION, summaryStep } from "../src/server-steps.ts";
import { accepted, later, requestsOf, sessionIdIn } from "./day-6-v1.ts";
import { day6v4 } from "./day-6-v4.ts";
import { answerWithResults } from "./shared.ts";

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

const CJK = "docs/day-6-challenges.md#answer-recall-in-chinese-and-japanese";
const TRIMMED = "docs/day-6-challenges.md#answer-memorymd-trimmed-on-write";
const MINED = "docs/day-6-challenges.md#answer-memories-mined-from-a-session";

function memoryWrite(id: string, type: string, title: string, body: string) {
  return { type: "tool_use" as const, id, name: "memory_write", input: { type, title, body } };
}

function memoryRecall(id: string, query: string) {
  return { type: "tool_use" as const, id, name: "memory_recall", input: { query } };
}

function say(text: string): Step {
  return { content: [{ type: "text", text }] };
}

// The files below the home folder's memory folder of the project, by path.
function memoryFiles(o: Observed): string[] {
  return Object.keys(o.files).filter((path) =>
    /^home\/projects\/[a-z0-9._-]+-[0-9a-f]{12}\/memory\//.test(path),
  );
}

function memoryIndexFile(o: Observed): string | undefined {
  const path = memoryFiles(o).find((file) => file.endsWith("/memory/MEMORY.md"));
  const text = path === undefined ? undefined : o.files[path];
  return typeof text === "string" ? text : undefined;
}

const DEPLOY_ZH = "我们在周五部署，从发布分支。";
const TESTS_JA = "テストは pnpm test で実行します。";

const recallCjk: Scenario = {
  id: "challenge-memory-recall-cjk",
  title:
    "two notes saved, in Chinese and in Japanese (answered y, y); memory_recall finds each by a phrase that is not in it word for word",
  level: "conformance",
  args: (context) => ["-C", context.work, "Remember these two, then find them again."],
  stdin: "y\ny\n",
  server: {
    steps: [
      {
        content: [
          memoryWrite("toolu_day6_cjk_1", "project", "部署日", DEPLOY_ZH),
          memoryWrite("toolu_day6_cjk_2", "project", "テストの実行", TESTS_JA),
        ],
      },
      {
        content: [
          // 部署周五 is not in the note; 部署 and 周五 are. テスト実行 likewise.
          memoryRecall("toolu_day6_cjk_3", "部署周五"),
          memoryRecall("toolu_day6_cjk_4", "テスト実行"),
        ],
      },
      answerWithResults,
    ],
  },
  judgements: [
    judge(CJK, "a finished run exits 0", (o) => o.exitCode === 0),
    judge(
      CJK,
      `memory_recall "部署周五" should bring back the Chinese note (${DEPLOY_ZH}) and not the Japanese one: 部署 and 周五 are pairs of its characters`,
      (o) => {
        const result = resultOf(o, "memory_recall", 0);
        return (
          result !== undefined &&
          result.isError !== true &&
          result.text.includes(DEPLOY_ZH) &&
          !result.text.includes(TESTS_JA)
        );
      },
    ),
    judge(
      CJK,
      `memory_recall "テスト実行" should bring back the Japanese note (${TESTS_JA}) and not the Chinese one`,
      (o) => {
        const result = resultOf(o, "memory_recall", 1);
        return (
          result !== undefined &&
          result.isError !== true &&
          result.text.includes(TESTS_JA) &&
          !result.text.includes(DEPLOY_ZH)
        );
      },
    ),
  ],
};

// Challenge 5: one note in run 1, then TRIM_NOTES more in run 2, whose index lines (about 430 bytes
// each) pass 25 KB long before 200 lines.
const TRIM_NOTES = 60;
const OLDEST = "Deploys go out from the kestrel branch";
const INDEX_MARKER = /^\((\d+) older memories not listed; memory_recall finds them\)$/;

function trimNote(n: number) {
  return memoryWrite(
    `toolu_day6_trim_${n}`,
    "project",
    `Note ${n} ${"界".repeat(70)}`,
    "界".repeat(100),
  );
}

const indexTrimmed: Scenario = {
  id: "challenge-memory-index-trimmed",
  title: `run 1 saves a note; run 2 saves ${TRIM_NOTES} more: MEMORY.md keeps the newest lines under 25 KB and 200 lines, ends with the marker line, and the oldest note, no longer listed, is still recalled`,
  level: "conformance",
  args: (context) => ["-C", context.work, "Remember the deploy branch."],
  stdin: "y\n",
  server: {
    steps: [
      { content: [memoryWrite("toolu_day6_trim_first", "project", OLDEST, "Run pnpm deploy.")] },
      say("Saved."),
      { content: Array.from({ length: TRIM_NOTES }, (_, n) => trimNote(n + 1)) },
      { content: [memoryRecall("toolu_day6_trim_recall", "kestrel")] },
      answerWithResults,
    ],
  },
  runs: [
    {
      args: later(["--permission-mode", "acceptEdits"], `Remember ${TRIM_NOTES} notes.`),
      stdin: "",
    },
  ],
  judgements: [
    judge(TRIMMED, "both runs exit 0", (o) => o.runs.every((run) => run.exitCode === 0)),
    judge(
      TRIMMED,
      `every note should stay: ${TRIM_NOTES + 1} topic files under home/projects/<key>/memory/`,
      (o) =>
        memoryFiles(o).filter((path) => !path.endsWith("/MEMORY.md")).length === TRIM_NOTES + 1,
    ),
    judge(
      TRIMMED,
      "MEMORY.md should be at most 25,000 bytes and 200 lines (its last newline aside), whole lines",
      (o) => {
        const index = memoryIndexFile(o);
        if (index === undefined || !index.endsWith("\n")) return false;
        const lines = index.slice(0, -1).split("\n");
        return (
          Buffer.byteLength(index) <= 25_001 &&
          lines.length <= 200 &&
          lines[0] === "# Memory Index" &&
          lines.slice(2, -1).every((line) => line.startsWith("- [Note ") && line.endsWith("界"))
        );
      },
    ),
    judge(
      TRIMMED,
      "MEMORY.md should no longer list the oldest note, and end with `(N older memories not listed; memory_recall finds them)`, N the notes left out",
      (o) => {
        const index = memoryIndexFile(o) ?? "";
        const lines = index.trimEnd().split("\n");
        const listed = lines.filter((line) => line.startsWith("- [")).length;
        const left = INDEX_MARKER.exec(lines.at(-1) ?? "")?.[1];
        return (
          index !== "" &&
          !index.includes(OLDEST) &&
          left !== undefined &&
          Number(left) === TRIM_NOTES + 1 - listed
        );
      },
    ),
    judge(
      TRIMMED,
      `memory_recall "kestrel" should still bring back the oldest note (${OLDEST})`,
      (o) => (resultOf(o, "memory_recall")?.text ?? "").includes(OLDEST),
    ),
  ],
};

// Challenge 6: run 1's prompt, typed by a person; run 2 mines it; run 3 is a fresh session.
const MINE_PROMPT =
  "Remember that deploys go out on Fridays.\nNever push to main.\nNow fix the failing date test.";
const MINED_TITLE = "Deploys go out on Fridays";

function mineArgs(context: ScenarioContext, before: { stdout: string }[]): string[] {
  return ["memory", "mine", sessionIdIn(before[0]?.stdout ?? ""), "-C", context.work];
}

const mine: Scenario = {
  id: "challenge-memory-mine",
  title:
    "`agent-code memory mine <id>` proposes a note for each line of the session's prompts that starts with remember, always or never, asks for each (y, n), sends no request, and a fresh run is shown only the yes",
  level: "conformance",
  args: (context) => ["-C", context.work, MINE_PROMPT],
  stdin: "",
  server: { steps: [say("Fixed."), say("On Fridays.")] },
  files: () => ({ "work/notes.txt": "The meeting is on Tuesday.\n" }),
  runs: [
    { args: mineArgs, stdin: "y\nn\n" },
    { args: later([], "When do deploys go out?"), stdin: "" },
  ],
  judgements: [
    judge(MINED, "all three runs exit 0", (o) => o.runs.every((run) => run.exitCode === 0)),
    judge(MINED, "`memory mine` should send no request", (o) => requestsOf(o, 1).length === 0),
    judge(
      MINED,
      `run 2 should show \`Memory (project): ${MINED_TITLE}\`, the line as typed indented, \`Save this memory? [y/N] y\`, then \`Memory (feedback): Never push to main\` and \`Save this memory? [y/N] n\``,
      (o) => {
        const lines = o.runs[1]?.stdoutLines ?? [];
        const first = lines.indexOf(`Memory (project): ${MINED_TITLE}`);
        const second = lines.indexOf("Memory (feedback): Never push to main");
        return (
          first !== -1 &&
          lines[first + 1] === "  Remember that deploys go out on Fridays." &&
          lines[first + 2] === "Save this memory? [y/N] y" &&
          second > first &&
          lines[second + 1] === "  Never push to main." &&
          lines[second + 2] === "Save this memory? [y/N] n" &&
          !lines.some((line) => line.includes("fix the failing date test"))
        );
      },
    ),
    judge(
      MINED,
      "only the note answered y should be saved: project/deploys-go-out-on-fridays.md, its body the line as typed",
      (o) => {
        const notes = memoryFiles(o).filter((path) => !path.endsWith("/MEMORY.md"));
        const text = notes.length === 1 ? o.files[notes[0] ?? ""] : undefined;
        return (
          notes[0]?.endsWith("/memory/project/deploys-go-out-on-fridays.md") === true &&
          typeof text === "string" &&
          text.endsWith("\n\nRemember that deploys go out on Fridays.\n")
        );
      },
    ),
    judge(
      MINED,
      "run 3, a fresh session, should be shown the saved note in `system`, and nothing of the one answered n",
      (o) => {
        const first = requestsOf(o, 2)[0];
        return (
          accepted(first) &&
          carries(first?.body?.system, MINED_TITLE) &&
          !carries(first?.body?.system, "push to main")
        );
      },
    ),
  ],
};

export const day6challenges: Contract = {
  stage: "day-6-challenges",
  title:
    "Day 6 challenges: a summary the model writes; recall in Chinese and Japanese, MEMORY.md under its caps, memories mined from a session",
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
    recallCjk,
    indexTrimmed,
    mine,
  ],
};

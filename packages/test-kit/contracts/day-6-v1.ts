// Day 6, v1: a conversation that survives the process (taught in docs/day-6.md). A scenario starts
// the CLI several times in one folder and one home against one server script (`runs`): what run 2
// sends shows what run 1 kept. The core scenarios are the Python course's Day 6 read with ours
// (decision 0018): judged from the requests and the exit codes, never from where the log lives, so
// a project that keeps `.agent/sessions` in its folder passes them. Their twins carry this course's
// own texts, modes and places.
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import type {
  Contract,
  Judgement,
  Observed,
  RunObserved,
  RunSpec,
  Scenario,
  ScenarioContext,
} from "../src/contract.ts";
import {
  byLogName,
  carries,
  contentText,
  conversationOf,
  judge,
  messageText,
  newestLog,
  resultOf,
  sameBody,
  toolResults,
} from "../src/judgements.ts";
import type { RecordedRequest, Step } from "../src/server.ts";
import type { StepResult } from "../src/server-steps.ts";
import { makeSessionLog, plantLock, SESSION_ID, sessionPath } from "../src/sessions.ts";
import { drawWord } from "../src/vary.ts";
import { day5v5 } from "./day-5-v5.ts";
import { answerWithResults, twinOf } from "./shared.ts";

const V1 = "docs/day-6.md#v1-the-session-log";
const RESUME = "docs/day-6.md#continue-and-resume";
const TRUST = "docs/day-6.md#a-log-you-can-trust";
const PRIVATE = "docs/day-6.md#private-by-default";

const POSIX: NodeJS.Platform[] = ["linux", "darwin"];
// An id no scenario's run writes: the pages' own example.
const OTHER_ID = "20261201-181502-3f9a1c";
// What a repaired call's result says after a Ctrl-C (the design's text).
const INTERRUPTED =
  "not run: agent-code stopped before this call finished (interrupted); check what it did before you repeat it";

function say(text: string): StepResult {
  return { content: [{ type: "text", text }] };
}

// A run's own requests, in order.
export function requestsOf(o: Observed, run: number): RecordedRequest[] {
  const spec = o.runs[run];
  return spec === undefined ? [] : o.requests.slice(spec.firstRequest, spec.endRequest);
}

function firstOf(o: Observed, run: number): RecordedRequest | undefined {
  return requestsOf(o, run)[0];
}

// The texts of a request's messages, in order: a string content, or its text blocks.
function texts(request: RecordedRequest | undefined): string[] {
  return conversationOf(request).map(messageText);
}

// Whether the request was one the real API accepts (the fake server's verdict).
export function accepted(request: RecordedRequest | undefined): boolean {
  return request?.verdict.accepted === true;
}

// The id a run printed on its `session:` line: any word, so a Python project's id reads too.
export function sessionIdIn(stdout: string): string {
  return /^session: (\S+)/m.exec(stdout)?.[1] ?? "";
}

function stderrLines(run: RunObserved | undefined): string[] {
  return (run?.stderr ?? "").split(/\r?\n/);
}

function failedRun(docs: string, run: number, why: string): Judgement {
  return {
    ...judge(docs, `run ${run + 1} should exit non-zero (${why})`, (o) => {
      const code = o.runs[run]?.exitCode;
      return code !== undefined && code !== null && code !== 0;
    }),
    expectsFailure: true,
  };
}

function runExits(docs: string, run: number, code: number, why: string): Judgement {
  return {
    ...judge(
      docs,
      `run ${run + 1} should exit ${code} (${why})`,
      (o) => o.runs[run]?.exitCode === code,
    ),
    ...(code === 0 ? {} : { expectsFailure: true }),
  };
}

function noRequestIn(docs: string, run: number, why: string): Judgement {
  return judge(
    docs,
    `run ${run + 1} should send no request (${why})`,
    (o) => requestsOf(o, run).length === 0,
  );
}

// Run `run`'s first request carries `text` in one of its messages, and the API accepts it.
function carriedInto(docs: string, run: number, text: string, what: string): Judgement {
  return judge(
    docs,
    `run ${run + 1}'s first request should carry ${what} (${JSON.stringify(text)}) and be one the API accepts`,
    (o) => accepted(firstOf(o, run)) && texts(firstOf(o, run)).some((t) => t.includes(text)),
  );
}

function stderrLine(docs: string, run: number, line: string | RegExp, shown: string): Judgement {
  return judge(docs, `expected run ${run + 1} to print \`${shown}\` on stderr`, (o) =>
    stderrLines(o.runs[run]).some((candidate) =>
      typeof line === "string" ? candidate === line : line.test(candidate),
    ),
  );
}

function nothingUnderHome(docs: string, why: string): Judgement {
  return judge(docs, `nothing should be written under the home folder (${why})`, (o) =>
    Object.keys(o.files).every((path) => path === "home" || !path.startsWith("home/")),
  );
}

// The newest session log of a live folder (between runs): the `*.jsonl` under the home folder or
// the work folder's `.agent/` whose name sorts last, as newestLog reads it after the run.
function newestLogFile(context: ScenarioContext): string | undefined {
  const found: string[] = [];
  const walk = (folder: string) => {
    if (!existsSync(folder)) return;
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      const stat = statSync(path, { throwIfNoEntry: false });
      if (stat?.isDirectory()) walk(path);
      else if (stat?.isFile() && name.endsWith(".jsonl")) found.push(path);
    }
  };
  walk(context.home);
  walk(join(context.work, ".agent"));
  return found.sort(byLogName).at(-1);
}

// Half a record with no newline, as a write cut by a crash leaves it.
const TORN = '{"seq":3,"type":"message","time":"2026-12-01T18:15:';

interface SessionScenario {
  id: string;
  title: string;
  level: Scenario["level"];
  // The first run's prompt (none for a REPL, whose lines are on stdin), and its flags before it.
  prompt?: string;
  flags?: string[];
  stdin?: string;
  // The later runs: flags and a prompt, or a function of the runs before, as `runs` takes them.
  runs?: RunSpec[];
  steps: Step[] | ((context: ScenarioContext) => Step[]);
  flavour?: "anthropic" | "deepseek";
  files?: Scenario["files"];
  homeFiles?: Scenario["homeFiles"];
  between?: Scenario["between"];
  env?: Scenario["env"];
  interrupt?: Scenario["interrupt"];
  secrets?: Scenario["secrets"];
  platforms?: NodeJS.Platform[];
  judgements: Judgement[];
}

// A later run in the work folder: `-C <work>`, its flags, then its prompt when it has one.
export function later(flags: string[] | ((before: RunObserved[]) => string[]), prompt?: string) {
  return (context: ScenarioContext, before: RunObserved[]) => [
    "-C",
    context.work,
    ...(typeof flags === "function" ? flags(before) : flags),
    ...(prompt === undefined ? [] : [prompt]),
  ];
}

function sessionScenario(spec: SessionScenario): Scenario {
  const { prompt, flags = [], flavour, steps } = spec;
  return {
    id: spec.id,
    title: spec.title,
    level: spec.level,
    args: (context) => ["-C", context.work, ...flags, ...(prompt === undefined ? [] : [prompt])],
    stdin: spec.stdin ?? "",
    server: { ...(flavour === undefined ? {} : { flavour }), steps },
    files: spec.files ?? (() => ({ "work/notes.txt": "The meeting is on Tuesday.\n" })),
    ...(spec.homeFiles === undefined ? {} : { homeFiles: spec.homeFiles }),
    ...(spec.runs === undefined ? {} : { runs: spec.runs }),
    ...(spec.between === undefined ? {} : { between: spec.between }),
    ...(spec.env === undefined ? {} : { env: spec.env }),
    ...(spec.interrupt === undefined ? {} : { interrupt: spec.interrupt }),
    ...(spec.secrets === undefined ? {} : { secrets: spec.secrets }),
    ...(spec.platforms === undefined ? {} : { platforms: spec.platforms }),
    judgements: spec.judgements,
  };
}

// The word run 1 asks the model to keep: `quokka` on the pages, a drawn one at another seed.
function keptWord(context: ScenarioContext): string {
  return drawWord(context, "day-6-v1/word", "quokka");
}
const wordPrompt = (context: ScenarioContext) => `Remember the word ${keptWord(context)}.`;
const WORD_ANSWER = "I will remember it.";
const ASK_WORD = "Which word did I give you?";

// session-continue's scenario, built per run: its prompt and judgements read the seed.
function continueScenario(): Scenario {
  const base = sessionScenario({
    id: "session-continue",
    title:
      "run 1 is asked to keep a word; run 2 with -c sends run 1's prompt and answer, then its own",
    level: "core",
    runs: [{ args: later(["-c"], ASK_WORD) }],
    steps: [
      say(WORD_ANSWER),
      (request: RecordedRequest) => say(`You said: ${texts(request)[0] ?? ""}`),
    ],
    judgements: [],
  });
  return {
    ...base,
    args: (context) => ["-C", context.work, wordPrompt(context)],
    judgements: [
      runExits(RESUME, 0, 0, "a finished run exits 0"),
      runExits(RESUME, 1, 0, "a continued run exits 0"),
      judge(
        RESUME,
        "run 2's first request should hold run 1's prompt, run 1's answer, then the new prompt, in that order, and be one the API accepts",
        (o) => {
          const request = firstOf(o, 1);
          const sent = texts(request);
          const word = keptWord(o.context);
          const prompt = sent.findIndex((t) => t.includes(`Remember the word ${word}`));
          const answer = sent.findIndex((t) => t.includes(WORD_ANSWER));
          return (
            accepted(request) &&
            prompt !== -1 &&
            answer > prompt &&
            sent.at(-1) === ASK_WORD &&
            conversationOf(request).length >= 3
          );
        },
      ),
    ],
  };
}

const sessionContinue = continueScenario();

// The folders below the home folder's `projects/` and the logs in them, with their modes.
function homeModes(o: Observed): [string, number][] {
  return Object.entries(o.modes).filter(([path]) => path.startsWith("home/projects"));
}

const ONE_ROUND: Step[] = [
  {
    content: [
      { type: "tool_use", id: "toolu_day6_read", name: "read_file", input: { path: "notes.txt" } },
    ],
  },
  answerWithResults,
];

const REPL_FIRST = "Read notes.txt and tell me the day.";
const REPL_SECOND = "And which file was it?";

// The REPL as the person types it, and one-shot runs that say the same: the byte-identical pair.
const FIRST_PROMPT = "Say one word about Tuesday.";
const SECOND_PROMPT = "Now say another.";

// Plants a valid log of two messages for the work folder, to damage, lock or leave whole.
function plantedLog(context: ScenarioContext, id = OTHER_ID): string {
  return makeSessionLog({
    id,
    cwd: context.work,
    messages: [
      { role: "user", content: "What is in notes.txt?" },
      {
        role: "assistant",
        content: [{ type: "text", text: "It says the meeting is on Tuesday." }],
      },
    ],
  });
}

// The same log with one byte of its second line (the first message) changed: `notes` for `nutes`.
function damagedLog(context: ScenarioContext): string {
  const lines = plantedLog(context).split("\n");
  lines[1] = (lines[1] ?? "").replace("notes.txt", "nutes.txt");
  return lines.join("\n");
}

const sessionTorn = sessionScenario({
  id: "session-torn-line",
  title:
    "half a record is left at the end of the log, as a crash leaves it; run 2 with -c goes on and carries run 1",
  level: "core",
  prompt: "Remember the colour teal.",
  runs: [
    { args: later(["-c"], "Which colour?") },
    { args: later(["-c"], "And what did I ask just now?") },
  ],
  between: (context, index) => {
    if (index !== 1) return;
    const log = newestLogFile(context);
    if (log !== undefined) appendFileSync(log, TORN);
  },
  steps: [say("Teal, noted."), say("Teal."), say("You asked which colour.")],
  judgements: [
    runExits(TRUST, 1, 0, "a torn last line is a crash's leftover, not a reason to stop"),
    carriedInto(TRUST, 1, "Remember the colour teal.", "run 1's prompt"),
  ],
});

const sessionInterrupted = sessionScenario({
  id: "session-interrupted-tool",
  title:
    "Ctrl-C while an approved `sleep 30` runs; run 2 with -c is accepted and holds run 1's prompt",
  level: "core",
  prompt: "Start the long job.",
  stdin: "y\n",
  interrupt: { afterFile: "work/started.txt" },
  runs: [{ args: later(["-c"], "Did it finish?") }, { args: later(["-c"], "And now?") }],
  steps: [
    {
      content: [
        {
          type: "tool_use",
          id: "toolu_day6_sleep",
          name: "bash",
          input: { command: "touch started.txt; sleep 30" },
        },
      ],
    },
    say("It was stopped."),
    say("Still stopped."),
  ],
  platforms: POSIX,
  judgements: [
    runExits(TRUST, 1, 0, "a continued run exits 0"),
    carriedInto(TRUST, 1, "Start the long job.", "run 1's prompt"),
  ],
});

const CANARY = "acme-canary-7f3a9c2e51";
// The pid a planted lock names.
const LOCK_PID = 4242;

export const day6v1: Contract = {
  stage: "day-6-v1",
  base: "day-5-v5",
  title: "Day 6 v1: a conversation that survives the process",
  scenarios: [
    sessionContinue,
    twinOf(sessionContinue, {
      id: "session-continue-private",
      title:
        "the log is under the home folder, never the project; files 0600 and folders 0700; run 2 says `session: <id> (resumed, 2 messages)`",
      judgements: [
        judge(PRIVATE, "nothing should be written under the work folder's `.agent/sessions`", (o) =>
          Object.keys(o.files).every((path) => !path.startsWith("work/.agent/sessions")),
        ),
        judge(
          PRIVATE,
          "expected one log, `home/projects/<key>/sessions/<id>.jsonl`, with the id run 1 printed",
          (o) => {
            const id = sessionIdIn(o.runs[0]?.stdout ?? "");
            return (
              SESSION_ID.test(id) &&
              Object.keys(o.files).some((path) =>
                new RegExp(`^home/projects/[a-z0-9._-]+-[0-9a-f]{12}/sessions/${id}\\.jsonl$`).test(
                  path,
                ),
              )
            );
          },
        ),
        judge(
          PRIVATE,
          "every folder under `home/projects` should be 0700 and every file 0600 (on Linux and macOS)",
          (o) =>
            process.platform === "win32" ||
            (homeModes(o).length > 0 &&
              homeModes(o).every(([path, mode]) =>
                typeof o.files[path] === "string" || (o.files[path] as { sha256?: string })?.sha256
                  ? mode === 0o600
                  : mode === 0o700,
              )),
        ),
        judge(
          RESUME,
          "expected run 2's header line `session: <run 1's id> (resumed, 2 messages)`",
          (o) => {
            const id = sessionIdIn(o.runs[0]?.stdout ?? "");
            return (o.runs[1]?.stdoutLines ?? []).includes(`session: ${id} (resumed, 2 messages)`);
          },
        ),
      ],
    }),
    sessionScenario({
      id: "session-resume-by-id",
      title: "run 2 resumes run 1 by the id on its `session:` line",
      level: "core",
      prompt: "Remember the colour teal.",
      runs: [
        {
          args: later(
            (before) => ["--resume", sessionIdIn(before[0]?.stdout ?? "")],
            "Which colour?",
          ),
        },
      ],
      steps: [say("Teal, noted."), say("Teal.")],
      judgements: [
        runExits(RESUME, 1, 0, "a resumed run exits 0"),
        carriedInto(RESUME, 1, "Remember the colour teal.", "run 1's prompt"),
        carriedInto(RESUME, 1, "Teal, noted.", "run 1's answer"),
      ],
    }),
    sessionScenario({
      id: "session-new-by-default",
      title: "run 2 without -c or --resume starts afresh: its first request holds its prompt alone",
      level: "core",
      prompt: "Remember the colour teal.",
      runs: [{ args: later([], "Which colour?") }],
      steps: [say("Teal, noted."), say("I do not know.")],
      judgements: [
        runExits(V1, 1, 0, "a new session exits 0"),
        judge(V1, "run 2's first request should hold exactly one message, its own prompt", (o) => {
          const sent = conversationOf(firstOf(o, 1));
          return sent.length === 1 && messageText(sent[0]) === "Which colour?";
        }),
      ],
    }),
    sessionScenario({
      id: "session-tool-round-carried",
      title:
        "run 1 reads a file; run 2 with -c sends that tool_use and its tool_result with the same id, and DeepSeek accepts it",
      level: "core",
      prompt: "Read notes.txt.",
      flavour: "deepseek",
      runs: [{ args: later(["-c"], "Which day was it?") }],
      steps: [...ONE_ROUND, say("Tuesday.")],
      judgements: [
        runExits(RESUME, 1, 0, "a continued run exits 0"),
        judge(
          RESUME,
          "run 2's first request should carry run 1's read_file call and its result, paired by id, and be one the API accepts",
          (o) => {
            const request = firstOf(o, 1);
            const messages = conversationOf(request) as { role?: string; content?: unknown }[];
            const uses = messages.flatMap((message) =>
              Array.isArray(message.content)
                ? message.content.filter((block) => block?.type === "tool_use")
                : [],
            );
            const results = messages.flatMap(toolResults);
            return (
              accepted(request) &&
              uses.some((use) => use.id === "toolu_day6_read") &&
              results.some(
                (result) =>
                  result.tool_use_id === "toolu_day6_read" &&
                  contentText(result.content).includes("Tuesday"),
              )
            );
          },
        ),
      ],
    }),
    sessionScenario({
      id: "session-repl-shares",
      title:
        "in the REPL, line 2's request holds line 1's whole turn: the prompt, the call, its result and the answer",
      level: "core",
      stdin: `${REPL_FIRST}\n${REPL_SECOND}\n`,
      steps: [...ONE_ROUND, say("notes.txt.")],
      judgements: [
        judge(
          V1,
          "the request for line 2 should hold line 1's prompt, its read_file call and result, its answer, then line 2, and be one the API accepts",
          (o) => {
            const request = o.requests[2];
            const sent = conversationOf(request);
            const all = texts(request);
            return (
              accepted(request) &&
              sent.length >= 5 &&
              all[0]?.includes(REPL_FIRST) === true &&
              all.at(-1) === REPL_SECOND &&
              sent.flatMap(toolResults).some((result) => result.tool_use_id === "toolu_day6_read")
            );
          },
        ),
      ],
    }),
    sessionScenario({
      id: "session-missing",
      title:
        "-c where no session was ever kept, and --resume of an id nobody wrote: each fails, and nothing is sent",
      level: "core",
      flags: ["-c"],
      prompt: "Go on.",
      runs: [{ args: later(["--resume", OTHER_ID], "Go on.") }],
      steps: [],
      judgements: [
        failedRun(RESUME, 0, "there is no session to continue"),
        failedRun(RESUME, 1, "there is no such session"),
        judge(RESUME, "no request should be sent", (o) => o.requests.length === 0),
      ],
    }),
    sessionTorn,
    twinOf(sessionTorn, {
      id: "session-torn-line-text",
      title: "the torn line is dropped with a note, and run 3 still sees run 2's prompt",
      judgements: [
        stderrLine(
          TRUST,
          1,
          new RegExp(
            `^note: session \\S+: dropped an unfinished last line \\(${TORN.length} bytes\\)$`,
          ),
          `note: session <id>: dropped an unfinished last line (${TORN.length} bytes)`,
        ),
        runExits(TRUST, 2, 0, "the log goes on after the repair"),
        carriedInto(
          TRUST,
          2,
          "Which colour?",
          "run 2's prompt, written after the torn line was cut",
        ),
      ],
    }),
    sessionInterrupted,
    twinOf(sessionInterrupted, {
      id: "session-interrupted-tool-once",
      title:
        "the call Ctrl-C cut short is answered once, by a recorded repair with the design's text",
      judgements: [
        judge(
          TRUST,
          `run 3's first request should answer the cut call exactly once, is_error, with \`${INTERRUPTED}\``,
          (o) => {
            const results = conversationOf(firstOf(o, 2)).flatMap(toolResults);
            const mine = results.filter((result) => result.tool_use_id === "toolu_day6_sleep");
            return (
              mine.length === 1 &&
              mine[0]?.is_error === true &&
              contentText(mine[0]?.content) === INTERRUPTED &&
              accepted(firstOf(o, 2))
            );
          },
        ),
        judge(
          TRUST,
          "the log should hold the repair once, as a record with `repair: interrupted`",
          (o) => {
            const text = newestLog(o)?.text ?? "";
            return (
              text.split("\n").filter((line) => line.includes('"repair":"interrupted"')).length ===
              1
            );
          },
        ),
      ],
    }),
    sessionScenario({
      id: "session-max-tokens-tool-use",
      title:
        "run 1's reply stops on max_tokens holding a tool_use; run 2 with -c is accepted all the same",
      level: "core",
      prompt: "Echo something.",
      runs: [{ args: later(["-c"], "Try again.") }],
      steps: [
        {
          content: [
            { type: "text", text: "I will echo" },
            { type: "tool_use", id: "toolu_day6_cut", name: "echo", input: {} },
          ],
          stop_reason: "max_tokens",
        },
        say("Done."),
      ],
      judgements: [
        runExits(TRUST, 1, 0, "a continued run exits 0"),
        carriedInto(TRUST, 1, "Echo something.", "run 1's prompt"),
      ],
    }),
    sessionScenario({
      id: "session-bad-flags",
      title:
        "--resume ../x, /etc/passwd, <id>/.. and -c with --resume: exit 2 each, no request, nothing under the home folder",
      level: "conformance",
      flags: ["--resume", "../x"],
      prompt: "Go on.",
      runs: [
        { args: later(["--resume", "/etc/passwd"], "Go on.") },
        { args: later(["--resume", `${OTHER_ID}/..`], "Go on.") },
        { args: later(["-c", "--resume", OTHER_ID], "Go on.") },
      ],
      steps: [],
      judgements: [
        ...[0, 1, 2, 3].map((run) => runExits(RESUME, run, 2, "a bad flag is a usage error")),
        stderrLine(
          RESUME,
          0,
          'error: --resume: "../x" is not a session id (they look like 20261201-181502-3f9a1c)',
          'error: --resume: "../x" is not a session id (they look like 20261201-181502-3f9a1c)',
        ),
        stderrLine(
          RESUME,
          3,
          "error: --continue and --resume cannot be used together",
          "error: --continue and --resume cannot be used together",
        ),
        judge(RESUME, "no request should be sent", (o) => o.requests.length === 0),
        nothingUnderHome(RESUME, "a usage error is found before anything is made"),
      ],
    }),
    sessionScenario({
      id: "session-missing-text",
      title: "-c with none and --resume of an unknown id: exit 1 with the exact lines",
      level: "conformance",
      flags: ["-c"],
      prompt: "Go on.",
      runs: [{ args: later(["--resume", OTHER_ID], "Go on.") }],
      steps: [],
      judgements: [
        runExits(RESUME, 0, 1, "there is no session to continue"),
        runExits(RESUME, 1, 1, "there is no such session"),
        judge(
          RESUME,
          "expected run 1 to print `error: no session to continue in <the work folder>`",
          (o) =>
            stderrLines(o.runs[0]).includes(`error: no session to continue in ${o.context.work}`),
        ),
        stderrLine(RESUME, 1, `error: no session ${OTHER_ID}`, `error: no session ${OTHER_ID}`),
      ],
    }),
    sessionScenario({
      id: "session-damaged-middle",
      title:
        "one byte of a planted log's second line is changed: -c exits 1 naming the line, and sends nothing",
      level: "conformance",
      flags: ["-c"],
      prompt: "Go on.",
      homeFiles: (context) => ({ [sessionPath(context.work, OTHER_ID)]: damagedLog(context) }),
      steps: [],
      judgements: [
        runExits(TRUST, 0, 1, "a damaged log is not resumed"),
        noRequestIn(TRUST, 0, "a damaged log is not resumed"),
        stderrLine(
          TRUST,
          0,
          `error: session ${OTHER_ID}: line 3 does not follow line 2 (edited or damaged); it was not resumed`,
          `error: session ${OTHER_ID}: line 3 does not follow line 2 (edited or damaged); it was not resumed`,
        ),
      ],
    }),
    sessionScenario({
      id: "session-planted-log-resumes",
      title: "a valid log in the design's format, planted under the home folder, is carried by -c",
      level: "conformance",
      flags: ["-c"],
      prompt: "Which day?",
      homeFiles: (context) => ({ [sessionPath(context.work, OTHER_ID)]: plantedLog(context) }),
      steps: [say("Tuesday.")],
      judgements: [
        runExits(RESUME, 0, 0, "a valid log resumes"),
        carriedInto(RESUME, 0, "What is in notes.txt?", "the planted log's first message"),
        judge(
          RESUME,
          `expected the header line \`session: ${OTHER_ID} (resumed, 2 messages)\``,
          (o) => o.stdoutLines.includes(`session: ${OTHER_ID} (resumed, 2 messages)`),
        ),
      ],
    }),
    sessionScenario({
      id: "session-symlinked-folder",
      title:
        "the project's sessions folder under the home is a symlink: exit 1, and nothing is written where it leads",
      level: "conformance",
      prompt: "Say hi.",
      homeFiles: (context) => {
        const key = sessionPath(context.work, OTHER_ID).split("/")[1] ?? "";
        return {
          [`projects/${key}/elsewhere/keep.txt`]: "kept\n",
          [`projects/${key}/sessions`]: { symlink: "elsewhere" },
        };
      },
      steps: [say("Hi.")],
      platforms: POSIX,
      judgements: [
        runExits(PRIVATE, 0, 1, "sessions are kept only in real folders"),
        judge(
          PRIVATE,
          "expected `error: <home>/projects/<key>/sessions is a symlink; agent-code keeps sessions only in real folders`",
          (o) =>
            stderrLines(o.runs[0]).some((line) =>
              /^error: .*\/projects\/[^/]+\/sessions is a symlink; agent-code keeps sessions only in real folders$/.test(
                line,
              ),
            ),
        ),
        judge(PRIVATE, "nothing should be written where the link leads", (o) =>
          Object.keys(o.files)
            .filter((path) => /^home\/projects\/[^/]+\/elsewhere\//.test(path))
            .every((path) => path.endsWith("/elsewhere/keep.txt")),
        ),
      ],
    }),
    sessionScenario({
      id: "session-lock",
      title:
        "a lock another agent-code holds refuses -c with no request; a lock whose process is gone is taken over with a note",
      level: "conformance",
      flags: ["-c"],
      prompt: "Which day?",
      homeFiles: (context) => ({
        [sessionPath(context.work, OTHER_ID)]: plantedLog(context),
        // A lock another machine holds: its process cannot be seen from here, so it counts as
        // live. (A live process of this machine would do as well, but `pnpm check` runs a project
        // in a PID namespace of its own, where no process of the grader's can be seen.)
        [sessionPath(context.work, OTHER_ID).replace(/\.jsonl$/, ".lock")]: plantLock(
          LOCK_PID,
          "another-machine.example",
        ),
      }),
      between: (context, index) => {
        if (index !== 1) return;
        // A process that has already ended: its pid names nobody now.
        const gone = spawnSync(process.execPath, ["-e", ""]).pid ?? 999_999;
        writeFileSync(
          join(context.home, sessionPath(context.work, OTHER_ID).replace(/\.jsonl$/, ".lock")),
          plantLock(gone, hostname()),
        );
      },
      runs: [{ args: later(["-c"], "Which day?") }],
      steps: [say("Tuesday.")],
      judgements: [
        runExits(TRUST, 0, 1, "another agent-code holds the session"),
        noRequestIn(TRUST, 0, "another agent-code holds the session"),
        stderrLine(
          TRUST,
          0,
          new RegExp(
            `^error: session ${OTHER_ID} is open in another agent-code \\(pid ${LOCK_PID}, since \\d{2}:\\d{2}:\\d{2}\\); wait for it to end, or start a new session$`,
          ),
          `error: session ${OTHER_ID} is open in another agent-code (pid ${LOCK_PID}, since HH:MM:SS); wait for it to end, or start a new session`,
        ),
        runExits(TRUST, 1, 0, "a stale lock is taken over"),
        carriedInto(TRUST, 1, "What is in notes.txt?", "the session's first message"),
        stderrLine(
          TRUST,
          1,
          new RegExp(`^note: session ${OTHER_ID}: .*lock`),
          `note: session ${OTHER_ID}: … lock …`,
        ),
      ],
    }),
    sessionScenario({
      id: "session-secret-redacted",
      title:
        "a token in agent-code's environment is read from a file: the result says [redacted:ACME_TOKEN], and the value is in no request, output or file under the home",
      level: "conformance",
      prompt: "Read config.txt.",
      files: () => ({ "work/config.txt": `token=${CANARY}\n` }),
      env: { ACME_TOKEN: CANARY },
      secrets: [CANARY],
      steps: [
        {
          content: [
            {
              type: "tool_use",
              id: "toolu_day6_cfg",
              name: "read_file",
              input: { path: "config.txt" },
            },
          ],
        },
        answerWithResults,
      ],
      judgements: [
        judge(PRIVATE, "the read_file result should say `token=[redacted:ACME_TOKEN]`", (o) =>
          (resultOf(o, "read_file")?.text ?? "").includes("token=[redacted:ACME_TOKEN]"),
        ),
        judge(PRIVATE, "no request may carry the token", (o) =>
          o.requests.every((request) => !carries(request.body, CANARY)),
        ),
      ],
    }),
    sessionScenario({
      id: "session-resume-byte-identical",
      title:
        "a REPL runs prompts 1 and 2; a one-shot runs prompt 1, then --resume prompt 2: the two requests for prompt 2 are the same bytes",
      level: "conformance",
      stdin: `${FIRST_PROMPT}\n${SECOND_PROMPT}\n`,
      runs: [
        { args: later([], FIRST_PROMPT) },
        {
          args: later(
            (before) => ["--resume", sessionIdIn(before[1]?.stdout ?? "")],
            SECOND_PROMPT,
          ),
        },
      ],
      steps: [say("Calm."), say("Quiet."), say("Calm."), say("Quiet.")],
      judgements: [
        runExits(RESUME, 2, 0, "a resumed run exits 0"),
        judge(
          RESUME,
          "the resumed run's request for prompt 2 should be byte for byte the REPL's (same system, tools and messages)",
          (o) => o.requests.length === 4 && sameBody(o.requests[1], o.requests[3]),
        ),
        carriedInto(
          RESUME,
          2,
          FIRST_PROMPT,
          "prompt 1, which the REPL's second request carried too",
        ),
      ],
    }),
    // Day 2's header with the line this stage adds: the session's id after the provider lines.
    {
      id: "header",
      title: "the header names the provider, the model, the base URL when given, then the session",
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
          V1,
          "expected `provider: mock  model: some-model` (two spaces) after the cwd line",
          (o) => o.stdoutLines[2] === "provider: mock  model: some-model",
        ),
        judge(
          V1,
          "expected `base_url: http://127.0.0.1:9` on its own line",
          (o) => o.stdoutLines[3] === "base_url: http://127.0.0.1:9",
        ),
        judge(
          V1,
          "expected `session: <id>` after the base URL, then a blank line",
          (o) =>
            SESSION_ID.test(/^session: (.*)$/.exec(o.stdoutLines[4] ?? "")?.[1] ?? "") &&
            o.stdoutLines[5] === "",
        ),
      ],
    },
    // Day 5's scenarios, but Day 2's header, which gains the session line: a session changes none
    // of the others.
    ...day5v5.scenarios.filter((scenario) => scenario.id !== "header"),
  ],
};

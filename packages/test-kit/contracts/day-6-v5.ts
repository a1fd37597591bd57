// Day 6, v5: sessions you can list, check, repair and fork (taught in docs/day-6-sessions.md). The
// `sessions` command reads the logs of the work folder without a model: each of its runs must send
// no request and print no run header. Both scenarios are conformance (the course's own command,
// which the Python course has no counterpart of): they carry this course's texts.
import type { Contract, Judgement, Observed, Scenario, ScenarioContext } from "../src/contract.ts";
import { conversationOf, judge, messageText } from "../src/judgements.ts";
import type { Step } from "../src/server.ts";
import { makeSessionLog, projectKey } from "../src/sessions.ts";
import { accepted, later, requestsOf, sessionIdIn } from "./day-6-v1.ts";
import { day6v4 } from "./day-6-v4.ts";

const V5 = "docs/day-6-sessions.md#v5-the-sessions-command";
const LIST = "docs/day-6-sessions.md#list-show-and-export";
const CHECK = "docs/day-6-sessions.md#check-and-repair";
const FORK = "docs/day-6-sessions.md#fork";

// The pages' example id, planted; no run writes it.
const PLANTED_ID = "20261201-181502-3f9a1c";
const FIRST = "What is in notes.txt?";
const SECOND = "Say one word about Tuesday.";
const ANSWER = "The meeting is on Tuesday.";
// The trace's lines that show, from a log, must print as the run printed them.
const TRACE = /^(tool_call|observation|final): /;

const say = (text: string): Step => ({ content: [{ type: "text", text }] });

// `agent-code sessions <words> -C <work>`: the subcommand first, as the design asks.
function sessions(words: string[] | ((o: { before: string[] }) => string[])) {
  return (context: ScenarioContext, before: { stdout: string }[]) => [
    "sessions",
    ...(typeof words === "function"
      ? words({ before: before.map((run) => sessionIdIn(run.stdout)) })
      : words),
    "-C",
    context.work,
  ];
}

function lines(o: Observed, run: number): string[] {
  return (o.runs[run]?.stdout ?? "").split(/\r?\n/).filter((line) => line !== "");
}

function exits(docs: string, run: number, code: number, why: string): Judgement {
  return {
    ...judge(
      docs,
      `run ${run + 1} should exit ${code} (${why})`,
      (o) => o.runs[run]?.exitCode === code,
    ),
    ...(code === 0 ? {} : { expectsFailure: true }),
  };
}

// The runs `from`..`to` (inclusive) sent nothing and printed no `Agent Code` header.
function quiet(docs: string, from: number, to: number): Judgement {
  return judge(
    docs,
    `runs ${from + 1} to ${to + 1} (the sessions command) should send no request and print no run header`,
    (o) =>
      o.runs.length > to &&
      o.runs
        .slice(from, to + 1)
        .every(
          (run, index) =>
            requestsOf(o, from + index).length === 0 &&
            !run.stdout.split(/\r?\n/).includes("Agent Code"),
        ),
  );
}

// A log of the work folder whose first message was edited by hand: `notes` became `nutes`, so
// line 3's `prev` no longer matches line 2.
function damagedLog(context: ScenarioContext): string {
  const log = makeSessionLog({
    id: PLANTED_ID,
    cwd: context.work,
    messages: [
      { role: "user", content: FIRST },
      { role: "assistant", content: [{ type: "text", text: ANSWER }] },
    ],
  });
  return log.replace("notes.txt", "nutes.txt");
}

// The home folder's session files of the work folder: name -> text.
function sessionFiles(o: Observed): Map<string, string> {
  const prefix = `home/projects/${projectKey(o.context.work)}/sessions/`;
  return new Map(
    Object.entries(o.files).flatMap(([path, state]) =>
      path.startsWith(prefix) && typeof state === "string"
        ? [[path.slice(prefix.length), state]]
        : [],
    ),
  );
}

function headerOf(text: string | undefined): Record<string, unknown> | undefined {
  try {
    return JSON.parse((text ?? "").split("\n")[0] ?? "");
  } catch {
    return undefined;
  }
}

const listShowExport: Scenario = {
  id: "sessions-list-show-export",
  title:
    "after two sessions, `sessions` lists both newest first, `show` prints the first one's trace and `export --format md` its transcript, with no request and no header",
  level: "conformance",
  args: (context) => ["-C", context.work, FIRST],
  stdin: "",
  server: {
    steps: [
      {
        content: [
          {
            type: "tool_use",
            id: "toolu_day6_read",
            name: "read_file",
            input: { path: "notes.txt" },
          },
        ],
      },
      say(ANSWER),
      say("Sunny."),
    ],
  },
  files: () => ({ "work/notes.txt": `${ANSWER}\n` }),
  runs: [
    { args: later([], SECOND) },
    { args: sessions([]) },
    { args: sessions(({ before }) => ["show", before[0] ?? ""]) },
    { args: sessions(({ before }) => ["export", before[0] ?? "", "--format", "md"]) },
  ],
  judgements: [
    exits(V5, 2, 0, "sessions lists"),
    exits(V5, 3, 0, "sessions show prints a log"),
    exits(V5, 4, 0, "sessions export prints a log"),
    quiet(V5, 2, 4),
    judge(
      LIST,
      '`sessions` should print one line a session, the second run\'s first: `<id>  YYYY-MM-DD HH:MM  N messages  "<its prompt>"`',
      (o) => {
        const [newer, older] = [
          sessionIdIn(o.runs[1]?.stdout ?? ""),
          sessionIdIn(o.runs[0]?.stdout ?? ""),
        ];
        const shape = (id: string, count: number, prompt: string) =>
          new RegExp(
            `^${id} {2}\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d {2}${count} messages {2}"${prompt.replace(/[.?]/g, "\\$&")}"$`,
          );
        const listed = lines(o, 2);
        return (
          newer !== "" &&
          older !== "" &&
          listed.length === 2 &&
          shape(newer, 2, SECOND).test(listed[0] ?? "") &&
          shape(older, 4, FIRST).test(listed[1] ?? "")
        );
      },
    ),
    judge(
      LIST,
      "`sessions show <id>` should print the trace's `tool_call:`, `observation:` and `final:` lines as run 1 printed them",
      (o) => {
        const ran = lines(o, 0).filter((line) => TRACE.test(line));
        const shown = lines(o, 3).filter((line) => TRACE.test(line));
        return ran.length === 3 && JSON.stringify(shown) === JSON.stringify(ran);
      },
    ),
    judge(
      LIST,
      "`sessions export <id> --format md` should print `# Session <id>` first, then the prompt, the call and the answer",
      (o) => {
        const md = lines(o, 4);
        const text = md.join("\n");
        return (
          md[0] === `# Session ${sessionIdIn(o.runs[0]?.stdout ?? "")}` &&
          text.includes(FIRST) &&
          text.includes("read_file") &&
          text.includes(ANSWER) &&
          !text.includes(SECOND)
        );
      },
    ),
  ],
};

const checkRepairFork: Scenario = {
  id: "sessions-check-repair-fork",
  title:
    "a hand-edited log: `check` exits 1 naming the line, `repair` writes a fresh chain and keeps the old file as .bak, `check` passes, `-c` is accepted, and `-c --fork` starts a new id whose header names its parent",
  level: "conformance",
  args: (context) => ["sessions", "check", PLANTED_ID, "-C", context.work],
  stdin: "",
  server: { steps: [say("Going on."), say("Another way, then.")] },
  files: () => ({ "work/notes.txt": `${ANSWER}\n` }),
  homeFiles: (context) => ({
    [`projects/${projectKey(context.work)}/sessions/${PLANTED_ID}.jsonl`]: damagedLog(context),
  }),
  runs: [
    { args: sessions(["repair", PLANTED_ID]) },
    { args: sessions(["check", PLANTED_ID]) },
    { args: later(["-c"], "Go on.") },
    { args: later(["-c", "--fork"], "Another way.") },
  ],
  judgements: [
    exits(CHECK, 0, 1, "check finds the edited line"),
    judge(
      CHECK,
      `\`sessions check\` should print \`${PLANTED_ID}: line 3 does not follow line 2 (edited or damaged)\``,
      (o) =>
        lines(o, 0).includes(`${PLANTED_ID}: line 3 does not follow line 2 (edited or damaged)`),
    ),
    exits(CHECK, 1, 0, "repair mends the log"),
    judge(
      CHECK,
      "`sessions repair` should end with `<id>: repaired (3 records); the old log is <id>.jsonl.bak-<stamp>`, and that file should hold the old log, byte for byte",
      (o) => {
        const last = lines(o, 1).at(-1) ?? "";
        const match = new RegExp(
          `^${PLANTED_ID}: repaired \\(3 records\\); the old log is (${PLANTED_ID}\\.jsonl\\.bak-\\d{8}-\\d{6})$`,
        ).exec(last);
        return match !== null && sessionFiles(o).get(match[1] ?? "") === damagedLog(o.context);
      },
    ),
    exits(CHECK, 2, 0, "the repaired log passes check"),
    judge(
      CHECK,
      `the second check should print \`${PLANTED_ID}: ok (2 messages, 3 records)\``,
      (o) => lines(o, 2).includes(`${PLANTED_ID}: ok (2 messages, 3 records)`),
    ),
    quiet(CHECK, 0, 2),
    exits(CHECK, 3, 0, "-c goes on with the repaired log"),
    judge(
      CHECK,
      "run 4's first request (-c) should carry the edited prompt, `What is in nutes.txt?`, and be one the API accepts",
      (o) => {
        const request = requestsOf(o, 3)[0];
        return (
          accepted(request) &&
          conversationOf(request).some((m) => messageText(m) === "What is in nutes.txt?")
        );
      },
    ),
    exits(FORK, 4, 0, "a fork runs"),
    judge(
      FORK,
      `run 5 should print \`session: <a new id> (forked from ${PLANTED_ID}, 4 messages)\`, and that log's header should hold \`"parent":{"id":"${PLANTED_ID}","seq":4}\``,
      (o) => {
        const id = sessionIdIn(o.runs[4]?.stdout ?? "");
        const header = headerOf(sessionFiles(o).get(`${id}.jsonl`));
        const parent = header?.parent as { id?: unknown; seq?: unknown } | undefined;
        return (
          id !== PLANTED_ID &&
          lines(o, 4).includes(`session: ${id} (forked from ${PLANTED_ID}, 4 messages)`) &&
          parent?.id === PLANTED_ID &&
          parent.seq === 4
        );
      },
    ),
    judge(
      FORK,
      "the fork's request should carry the parent's conversation, then the new prompt, and be accepted; the parent's log should not hold the fork's prompt",
      (o) => {
        const request = requestsOf(o, 4)[0];
        const texts = conversationOf(request).map(messageText);
        const parent = sessionFiles(o).get(`${PLANTED_ID}.jsonl`) ?? "";
        return (
          accepted(request) &&
          texts.some((text) => text.includes("What is in nutes.txt?")) &&
          texts.some((text) => text.includes("Go on.")) &&
          texts.at(-1) === "Another way." &&
          parent.includes("Go on.") &&
          !parent.includes("Another way.")
        );
      },
    ),
  ],
};

export const day6v5: Contract = {
  stage: "day-6-v5",
  base: "day-6-v4",
  title: "Day 6 v5: sessions you can list, check, repair and fork",
  scenarios: [
    listShowExport,
    checkRepairFork,
    // The scenarios of the stage before: the sessions command changes none of them.
    ...day6v4.scenarios,
  ],
};

// Day 7, v1: slash commands, the person's control plane (taught in docs/day-7.md). A line that
// starts with `/` never reaches the model. Core is what a run sends and how it exits where the
// Python course's Day 7 agrees (decision 0080): a one-shot `/help` sends nothing, a one-shot
// command writes no session file, an unknown command sends nothing. The texts, the unknown
// command's exit 2 and every REPL scenario are conformance. Day 1's `repl-help-exit` is carried
// changed: `/help` now lists the registry, so it asks for a `commands: ` line naming /help and
// /exit, not the exact Day 1 line.
import type { Contract, Judgement, Observed, Scenario } from "../src/contract.ts";
import {
  conversationOf,
  exitCode,
  fileExists,
  fileText,
  judge,
  messageText,
  resultOf,
} from "../src/judgements.ts";
import type { Step } from "../src/server.ts";
import { projectKey } from "../src/sessions.ts";
import { accepted, later, requestsOf } from "./day-6-v1.ts";
import { day6v5 } from "./day-6-v5.ts";
import { twinOf } from "./shared.ts";

const V1 = "docs/day-7.md#v1-slash-commands";
const HELP = "docs/day-7.md#help-and-an-unknown-command";
const ONE_SHOT = "docs/day-7.md#a-one-shot-command";
const WORDS = "docs/day-7.md#words-and-quotes";
const COMPACT = "docs/day-7.md#compact-now";
const CLEAR = "docs/day-7.md#clear";
const MODES = "docs/day-7.md#permissions-and-plan";
const REPL = "docs/day-1.md#the-repl-and-the-working-directory";

const COMMANDS = ["help", "exit", "context", "model", "compact", "permissions", "plan", "clear"];
const HELP_LINE = `commands: ${COMMANDS.map((name) => `/${name}`).join(", ")}`;
const MODEL = "test-model-7";
const LONG = "The answer, at some length. ".repeat(120).trim();

const say = (text: string): Step => ({ content: [{ type: "text", text }] });
const write = (id: string, file: string): Step => ({
  content: [
    { type: "tool_use", id, name: "file_write", input: { file_path: file, content: "hello\n" } },
  ],
});

function stderrLines(o: Observed, run = o.runs.length - 1): string[] {
  return (o.runs[run]?.stderr ?? "").split(/\r?\n/).filter((line) => line !== "");
}

function stdoutLines(o: Observed, run = o.runs.length - 1): string[] {
  return (o.runs[run]?.stdout ?? "").split(/\r?\n/).filter((line) => line !== "");
}

function noRequest(docs: string, what: string): Judgement {
  return judge(docs, `${what} should send no request to the model`, (o) => o.requests.length === 0);
}

function noHeader(docs: string): Judgement {
  return judge(
    docs,
    "a one-shot command should print no run header (`Agent Code`, `cwd:`, `session:` …)",
    (o) => !o.stdoutLines.includes("Agent Code"),
  );
}

// The texts a user message carries, in a request's conversation.
function userTexts(o: Observed, run: number, nth = 0): string[] {
  return conversationOf(requestsOf(o, run)[nth])
    .filter((message) => (message as { role?: unknown }).role === "user")
    .map(messageText);
}

// The home folder's session logs of the work folder: name -> text.
function sessionLogs(o: Observed): Map<string, string> {
  const prefix = `home/projects/${projectKey(o.context.work)}/sessions/`;
  return new Map(
    Object.entries(o.files).flatMap(([path, state]) =>
      path.startsWith(prefix) && path.endsWith(".jsonl") && typeof state === "string"
        ? [[path.slice(prefix.length), state]]
        : [],
    ),
  );
}

const helpNoRequest: Scenario = {
  id: "slash-help-no-request",
  title: "a one-shot `/help` runs the command and sends nothing",
  level: "core",
  args: (context) => ["-C", context.work, "/help"],
  stdin: "",
  server: { steps: [say("A model answered /help.")] },
  judgements: [exitCode(V1, 0, "a known command ran"), noRequest(V1, "`/help`")],
};

const oneShotNoSession: Scenario = {
  id: "slash-one-shot-no-session",
  title: "a one-shot `/context` sends nothing and writes no session file anywhere",
  level: "core",
  args: (context) => ["-C", context.work, "--model", MODEL, "/context"],
  stdin: "",
  server: { steps: [say("A model answered /context.")] },
  files: () => ({ "work/notes.txt": "Tuesday.\n" }),
  judgements: [
    exitCode(ONE_SHOT, 0, "a known command ran"),
    noRequest(ONE_SHOT, "`/context`"),
    judge(
      ONE_SHOT,
      "a one-shot command should write no file: no session log under the home folder or in the project",
      (o) =>
        Object.keys(o.files)
          .filter((path) => path.startsWith("home/") || path.startsWith("work/"))
          .join(",") === "work/notes.txt",
    ),
  ],
};

const unknown: Scenario = {
  id: "slash-unknown",
  title: "a one-shot unknown `/nope` sends nothing",
  level: "core",
  args: (context) => ["-C", context.work, "/nope"],
  stdin: "",
  server: { steps: [say("A model answered /nope.")] },
  judgements: [noRequest(HELP, "an unknown command")],
};

// A first word with a second `/` is a path, and the line a prompt, as Claude Code reads it; the
// Python course's `dispatch_slash` answers `Unknown command` (decision 0082).
const PATH_PROMPT = "/etc/hosts: what is this file for?";
const pathIsPrompt: Scenario = {
  id: "slash-path-is-prompt",
  title: "a one-shot prompt that starts with a path (`/etc/hosts: …`) goes to the model",
  level: "conformance",
  args: (context) => ["-C", context.work, PATH_PROMPT],
  stdin: "",
  server: { steps: [say("It maps host names to addresses.")] },
  judgements: [
    judge(
      HELP,
      "a line whose first word is a path should be sent to the model as it was typed",
      (o) => userTexts(o, 0).at(-1) === PATH_PROMPT,
    ),
    exitCode(HELP, 0, "a prompt's run ended"),
  ],
};

const helpText = twinOf(helpNoRequest, {
  id: "slash-help-no-request-text",
  title: "a one-shot `/help` prints the registry's list and one line a command, nothing else",
  judgements: [
    noHeader(ONE_SHOT),
    judge(HELP, `the first line should be \`${HELP_LINE}\``, (o) => o.stdoutLines[0] === HELP_LINE),
    judge(
      HELP,
      "then one line a command, in that order: `  /name  what it does` (two spaces before, two or more after the name)",
      (o) => {
        const lines = stdoutLines(o).slice(1);
        return (
          lines.length === COMMANDS.length &&
          lines.every((line, i) => new RegExp(`^ {2}/${COMMANDS[i]} {2,}\\S`).test(line))
        );
      },
    ),
    judge(HELP, "nothing should be written to stderr", (o) => o.stderr === ""),
  ],
});

const oneShotText = twinOf(oneShotNoSession, {
  id: "slash-one-shot-no-session-text",
  title:
    "a one-shot `/context` prints cwd, session, mode, model, rules, memory and the next request's size, nothing else",
  judgements: [
    noHeader(ONE_SHOT),
    judge(
      ONE_SHOT,
      `expected seven lines: \`cwd: <work>\`, \`session: none\`, \`mode: default\`, \`model: ${MODEL}\`, \`rules: none\`, \`memory: 0 notes\`, \`next request: about N tokens\``,
      (o) => {
        const lines = stdoutLines(o);
        const fixed = [
          `cwd: ${o.context.work}`,
          "session: none",
          "mode: default",
          `model: ${MODEL}`,
          "rules: none",
          "memory: 0 notes",
        ];
        const size = /^next request: about (\d+) tokens$/.exec(lines[6] ?? "");
        return (
          lines.length === 7 &&
          JSON.stringify(lines.slice(0, 6)) === JSON.stringify(fixed) &&
          Number(size?.[1]) > 0
        );
      },
    ),
  ],
});

const unknownText = twinOf(unknown, {
  id: "slash-unknown-text",
  title: "a one-shot unknown `/nope` says so on stderr and exits 2",
  judgements: [
    exitCode(HELP, 2, "an unknown command is a mistake in what was typed"),
    judge(
      HELP,
      "stderr should be one line, `unknown command: /nope (try /help)`, and stdout empty",
      (o) => o.stderr.trim() === "unknown command: /nope (try /help)" && o.stdout.trim() === "",
    ),
  ],
});

const QUOTED = `/model "o'brien"`;
const SWITCH = "/model: switching the model arrives on Day 8; start again with --model o'brien";
const OPEN = "/model: a quote is not closed";

const apostrophe: Scenario = {
  id: "slash-apostrophe",
  title:
    "an apostrophe inside double quotes is one word; an unclosed quote is said, exit 2 one-shot, and the REPL goes on",
  level: "conformance",
  args: (context) => ["-C", context.work, "--model", MODEL, QUOTED],
  stdin: "",
  server: { steps: [say("A model answered.")] },
  runs: [
    { args: later(["--model", MODEL], "/model o'brien") },
    { args: later(["--model", MODEL]), stdin: `/model o'brien\n${QUOTED}\n/model\n` },
  ],
  judgements: [
    judge(
      WORDS,
      `run 1 (\`${QUOTED}\`) should print \`${SWITCH}\` and exit 0`,
      (o) => o.runs[0]?.exitCode === 0 && stdoutLines(o, 0).join("\n") === SWITCH,
    ),
    {
      ...judge(
        WORDS,
        `run 2 (\`/model o'brien\`) should print \`${OPEN}\` on stderr and exit 2`,
        (o) =>
          o.runs[1]?.exitCode === 2 &&
          stderrLines(o, 1).join("\n") === OPEN &&
          stdoutLines(o, 1).length === 0,
      ),
      expectsFailure: true,
    },
    judge(
      WORDS,
      `in the REPL the open quote is said, and the next lines run: \`${SWITCH}\`, then \`model: ${MODEL}\``,
      (o) => {
        const out = stdoutLines(o, 2);
        return (
          o.runs[2]?.exitCode === 0 &&
          stderrLines(o, 2).includes(OPEN) &&
          out.at(-2) === SWITCH &&
          out.at(-1) === `model: ${MODEL}`
        );
      },
    ),
    noRequest(WORDS, "`/model`"),
  ],
};

const compactNow: Scenario = {
  id: "slash-compact-now",
  title:
    "`/compact` in the REPL: nothing at first, then the older rounds become a summary now, written as a compact record that -c sends again",
  level: "conformance",
  args: (context) => ["-C", context.work],
  stdin: "/compact\nfirst question\nsecond question\n/compact\nthird question\n",
  server: { steps: [say(LONG), say(LONG), say("Third."), say("Fourth.")] },
  runs: [{ args: later(["-c"], "fourth question") }],
  judgements: [
    exitCode(COMPACT, 0, "the REPL ends at end of input"),
    judge(
      COMPACT,
      "the first `/compact` should print `compact: nothing to compact (0 messages)`",
      (o) => stdoutLines(o, 0).includes("compact: nothing to compact (0 messages)"),
    ),
    judge(
      COMPACT,
      "the second should print `compacted: 4 messages (about N tokens) into 2 (about M tokens)`, M less than N",
      (o) =>
        stdoutLines(o, 0).some((line) => {
          const match =
            /^compacted: 4 messages \(about (\d+) tokens\) into 2 \(about (\d+) tokens\)$/.exec(
              line,
            );
          return match !== null && Number(match[2]) < Number(match[1]);
        }),
    ),
    judge(
      COMPACT,
      "the third prompt's request should open with the summary (it quotes `first question`), send the second answer, and no longer send the first prompt as a message",
      (o) => {
        const request = requestsOf(o, 0)[2];
        const texts = userTexts(o, 0, 2);
        return (
          accepted(request) &&
          (texts[0] ?? "").includes("first question") &&
          texts[0] !== "first question" &&
          !texts.includes("first question") &&
          !texts.includes("second question") &&
          texts.at(-1) === "third question"
        );
      },
    ),
    judge(
      COMPACT,
      "the session log should hold a `compact` record, and `-c` should send the summary first again",
      (o) => {
        const log = [...sessionLogs(o).values()][0] ?? "";
        const resumed = userTexts(o, 1);
        return (
          log.includes('"type":"compact"') &&
          resumed[0] === userTexts(o, 0, 2)[0] &&
          resumed.at(-1) === "fourth question"
        );
      },
    ),
  ],
};

const clear: Scenario = {
  id: "slash-clear",
  title:
    "`/clear` starts a new session: its `session:` line, a request without the old conversation, and the old log kept",
  level: "conformance",
  args: (context) => ["-C", context.work],
  stdin: "first question\n/clear\nsecond question\n",
  server: { steps: [say("First."), say("Second.")] },
  judgements: [
    exitCode(CLEAR, 0, "the REPL ends at end of input"),
    judge(
      CLEAR,
      "`/clear` should print `session: <a new id>`, after the header's `session: <id>`",
      (o) => {
        const ids = stdoutLines(o)
          .filter((line) => line.startsWith("session: "))
          .map((line) => line.slice("session: ".length));
        return ids.length === 2 && ids[0] !== ids[1];
      },
    ),
    judge(CLEAR, "the second prompt's request should carry only `second question`", (o) => {
      const texts = userTexts(o, 0, 1);
      return accepted(requestsOf(o, 0)[1]) && texts.join("|") === "second question";
    }),
    judge(
      CLEAR,
      "both logs should be on disk: the old one with `first question`, the new one with `second question` only",
      (o) => {
        const logs = sessionLogs(o);
        const ids = stdoutLines(o)
          .filter((line) => line.startsWith("session: "))
          .map((line) => line.slice("session: ".length));
        const old = logs.get(`${ids[0]}.jsonl`) ?? "";
        const fresh = logs.get(`${ids[1]}.jsonl`) ?? "";
        return (
          logs.size === 2 &&
          old.includes("first question") &&
          fresh.includes("second question") &&
          !fresh.includes("first question")
        );
      },
    ),
  ],
};

const permissionsMode: Scenario = {
  id: "slash-permissions-mode",
  title:
    "`/plan` turns a run started in acceptEdits to plan mode (a write refused), and `/permissions acceptEdits` back (a write done)",
  level: "conformance",
  args: (context) => ["-C", context.work, "--permission-mode", "acceptEdits"],
  stdin: "/plan\nwrite new.txt\n/permissions acceptEdits\nwrite other.txt\n/permissions\n",
  server: {
    steps: [
      write("toolu_day7_plan", "new.txt"),
      say("Refused."),
      write("toolu_day7_edits", "other.txt"),
      say("Written."),
    ],
  },
  judgements: [
    exitCode(MODES, 0, "the REPL ends at end of input"),
    judge(
      MODES,
      "`/plan`, `/permissions acceptEdits` and `/permissions` should print `mode: plan`, `mode: acceptEdits`, `mode: acceptEdits`",
      (o) =>
        stdoutLines(o)
          .filter((line) => line.startsWith("mode: "))
          .join("|") === "mode: plan|mode: acceptEdits|mode: acceptEdits",
    ),
    judge(
      MODES,
      "in plan mode the write should be refused: an error result, and no new.txt",
      (o) => resultOf(o, "file_write", 0)?.isError === true && !fileExists(o, "work/new.txt"),
    ),
    judge(
      MODES,
      "back in acceptEdits the write should run without a question: other.txt holds `hello`",
      (o) => fileText(o, "work/other.txt") === "hello\n",
    ),
  ],
};

// Day 1's judgement of /help asked for the exact line `commands: /help, /exit`; the registry's
// list is longer now (decision 0080), as the Python course's `/help` is.
function helpCarried(scenario: Scenario): Scenario {
  if (scenario.id !== "repl-help-exit") return scenario;
  return {
    ...scenario,
    judgements: scenario.judgements.map((judgement) =>
      judgement.message.startsWith("/help should print")
        ? judge(
            REPL,
            "/help should print a line that starts `commands: ` and names `/help` and `/exit`",
            (o) =>
              o.stdoutLines.some(
                (line) =>
                  line.startsWith("commands: ") &&
                  /(?:^|[ ,])\/help(?:,|$)/.test(line.slice(10)) &&
                  /(?:^|[ ,])\/exit(?:,|$)/.test(line.slice(10)),
              ),
          )
        : judgement,
    ),
  };
}

export const day7v1: Contract = {
  stage: "day-7-v1",
  base: "day-6-v5",
  title: "Day 7 v1: slash commands, which never reach the model",
  scenarios: [
    helpNoRequest,
    oneShotNoSession,
    unknown,
    helpText,
    oneShotText,
    unknownText,
    pathIsPrompt,
    apostrophe,
    compactNow,
    clear,
    permissionsMode,
    // Every Day 6 scenario, Day 1's /help judged as the registry now answers it.
    ...day6v5.scenarios.map(helpCarried),
  ],
};

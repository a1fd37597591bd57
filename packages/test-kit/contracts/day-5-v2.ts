// Day 5, v2: one gate for every tool call, the permission modes, and guards that read the command
// (taught in docs/day-5-gate.md). The folder of Day 3's scenarios (`-C <dir>/work`, a secret
// outside), answers on stdin. Core scenarios are what the Python course's gate also does: `rm -rf`
// and a download piped to a shell never run and never ask, plan mode runs only what reads,
// acceptEdits writes without a question but keeps the read-first check and still asks for a
// command, and a fetch asks first. Every refused command is answered y where a question could come,
// and leaves a marker file it would have made (or removed) to judge: a command that was refused
// never ran (P1). The texts, the mode names' check, bypassPermissions and the guards' harder
// spellings are conformance.
import {
  type Contract,
  type Judgement,
  keepScenarios,
  type Scenario,
  type ScenarioContext,
} from "../src/contract.ts";
import { exitCode, fileExists, judge, linesInOrder, resultOf } from "../src/judgements.ts";
import type { FileEntry } from "../src/scenario-folder.ts";
import type { Step } from "../src/server.ts";
import type { SearchHit } from "../src/web-server.ts";
import { fileScenario, fileTwin } from "./day-3-v1.ts";
import { absent, type Call, hasText, offered, resultIs, turns, wentOn } from "./day-4-v1.ts";
import { bash, day5v1, noQuestion } from "./day-5-v1.ts";

const V2 = "docs/day-5-gate.md#v2-one-gate-for-every-call";
const MODES = "docs/day-5-gate.md#modes";
const GUARDS = "docs/day-5-gate.md#guards-that-read-the-command";
const WEB = "docs/day-5-guards.md#web-tools-ask-too";

const YES = "y\n";
const NO = "n\n";

export interface GateScenario {
  id: string;
  title: string;
  level: Scenario["level"];
  // `--permission-mode <mode>` before the rest; none: the default mode, as a user starts it.
  mode?: string;
  // One answer a line, one line for each call that could ask; in a REPL, the prompts too.
  stdin: string;
  steps: Step[] | ((context: ScenarioContext) => Step[]);
  // Work-folder files go under `work/`, beside Day 3's files.
  files?: Record<string, FileEntry>;
  web?: Scenario["web"];
  // No prompt on the command line: the REPL reads its lines from stdin.
  repl?: boolean;
  judgements: Judgement[];
}

// A Day 3 file scenario run in a permission mode, with answers on stdin and, when given, a fake
// web or search provider to count what reached it.
export function gateScenario(spec: GateScenario): Scenario {
  const { id, title, level, mode, stdin, steps, files, web, repl, judgements } = spec;
  const prompt = "Do what the task needs.";
  const scenario = fileScenario({
    id,
    title,
    level,
    prompt,
    steps: [],
    ...(files === undefined ? {} : { files }),
    judgements,
  });
  return {
    ...scenario,
    args: (context) => [
      ...(mode === undefined ? [] : ["--permission-mode", mode]),
      "-C",
      context.work,
      ...(repl === true ? [] : [prompt]),
    ],
    stdin,
    server: { steps },
    ...(web === undefined ? {} : { web }),
  };
}

// The `nth` (from 0) result of `tool` went back marked as an error.
function errorResult(docs: string, tool: string, why: string, nth = 0): Judgement {
  return judge(
    docs,
    `${why}: the ${tool} result should go back with is_error: true`,
    (o) => resultOf(o, tool, nth)?.isError === true,
  );
}

// A directory with a file in it, which `rm -rf keep` would remove.
const KEEP = { "work/keep/x.txt": "kept\n" };

function keepSurvives(docs: string, why: string): Judgement {
  return judge(docs, `${why}: \`keep/x.txt\` should still be there`, (o) =>
    fileExists(o, "work/keep/x.txt"),
  );
}

// What each guard says, after `blocked: `; the command it found follows, quoted.
const RM_RF = "rm -rf deletes without asking";
const GIT_PUSH = "git push publishes commits";
const CURL_SH = "curl | sh runs what it downloads";

function blockedText(reason: string, command: string): string {
  return `blocked: ${reason} (in "${command}"); agent-code never runs this; ask the user to run it if it is needed`;
}

// The `nth` bash call (from 0) was refused with the guard's words, naming the command it found.
function blocked(docs: string, nth: number, reason: string, command: string): Judgement[] {
  return resultIs(docs, "bash", blockedText(reason, command), true, nth);
}

// The calls, each in a turn of its own, all answered y: a guard that misses one lets it run.
function everyCallBlocked(
  id: string,
  title: string,
  calls: [command: string, reason: string, found: string][],
): Scenario {
  return gateScenario({
    id,
    title,
    level: "conformance",
    stdin: YES.repeat(calls.length),
    files: KEEP,
    steps: turns(...calls.map(([command]) => bash(command))),
    judgements: [
      keepSurvives(GUARDS, "no spelling of `rm -rf` may run"),
      noQuestion(GUARDS, "a guard refuses before anything is asked"),
      ...calls.flatMap(([, reason, found], nth) => blocked(GUARDS, nth, reason, found)),
    ],
  });
}

const TOUCH = bash("touch made.txt");
const CURL_PIPE_SH = "curl -s file:///dev/null | sh -c 'touch made.txt'";
const WRITE_NEW: Call = ["file_write", { file_path: "new.txt", content: "hello\n" }];
const READ_A: Call = ["read_file", { path: "a.txt" }];
const E_TXT = { "work/e.txt": "one\ntwo\none\n" };
const READ_E: Call = ["read_file", { path: "e.txt" }];
const TWO_TO_2: Call = ["file_edit", { file_path: "e.txt", old_string: "two", new_string: "2" }];
const PLAN_TEXT = "plan mode: file_write is not allowed; only read-only tools run in plan mode";

// The fake web's one page: what a fetch the person refused must never ask for.
const PAGE = { "/page": { type: "text/plain; charset=utf-8", body: "a page nobody allowed\n" } };
const FETCH_PAGE = (context: ScenarioContext) =>
  turns(["web_fetch", { url: `${context.webUrl}/page` }]);
const HITS: SearchHit[] = [
  { title: "Agent loops", url: "https://docs.example.com/loops", snippet: "About loops." },
];

function nothingFetched(docs: string, why: string): Judgement {
  return judge(
    docs,
    `${why}: the fake web should get no request`,
    (o) => o.webRequests.length === 0,
  );
}

// The Day 3 web scenarios, one web_fetch or web_search call each: that call asks now, and a y lets
// it run as before (search-offered calls nothing and is kept as it was).
const FETCHES = [
  "fetch-html",
  "fetch-redirect",
  "fetch-scheme",
  "fetch-binary-type",
  "fetch-big",
  "fetch-404",
  "fetch-loopback-refused",
  "fetch-loopback-decimal",
  "fetch-loopback-mapped",
  "fetch-redirect-refused",
  "fetch-userinfo",
  "fetch-scheme-text",
  "fetch-too-many-redirects",
  "fetch-timeout",
  "fetch-endless",
  "fetch-gzip-bomb",
  "fetch-big-text",
  "fetch-header-text",
  "fetch-absolute-links",
  "fetch-json-raw",
  "fetch-binary-type-text",
  "fetch-404-text",
];
const SEARCHES = [
  "search-tavily",
  "search-brave",
  "search-provider-chosen",
  "search-no-provider-text",
  "search-key-rejected",
  "search-provider-down",
  "search-clamp",
];
const ASKING = new Map(
  keepScenarios(day5v1, [...FETCHES, ...SEARCHES], { stdin: YES }).map((scenario) => [
    scenario.id,
    scenario,
  ]),
);

// The core scenario guard-curl-pipe-sh-text judges again, on the same run.
const guardCurlPipeSh = gateScenario({
  id: "guard-curl-pipe-sh",
  title: "a download piped into `sh`, answered y: refused before any question, nothing made",
  level: "core",
  stdin: YES,
  steps: turns(bash(CURL_PIPE_SH)),
  judgements: [
    absent(GUARDS, "work/made.txt", "a download piped to a shell never runs"),
    errorResult(V2, "bash", "a refused call is an error the model reads"),
    noQuestion(GUARDS, "a guard refuses before anything is asked"),
  ],
});

export const day5v2: Contract = {
  stage: "day-5-v2",
  title: "Day 5 v2: one gate for every call",
  base: "day-5-v1",
  scenarios: [
    gateScenario({
      id: "guard-rm-rf",
      title: "bash `rm -rf keep`, answered y: refused before any question, keep/x.txt stays",
      level: "core",
      stdin: YES,
      files: KEEP,
      steps: turns(bash("rm -rf keep")),
      judgements: [
        offered(GUARDS, "bash"),
        keepSurvives(GUARDS, "`rm -rf` never runs, even with a y waiting"),
        errorResult(V2, "bash", "a refused call is an error the model reads"),
        noQuestion(GUARDS, "a guard refuses before anything is asked"),
        ...wentOn(GUARDS),
      ],
    }),
    guardCurlPipeSh,
    gateScenario({
      id: "plan-denies-write",
      title: "plan mode: file_write of a new file, answered y, is refused and writes nothing",
      level: "core",
      mode: "plan",
      stdin: YES,
      steps: turns(WRITE_NEW),
      judgements: [
        absent(MODES, "work/new.txt", "plan mode changes no file"),
        errorResult(MODES, "file_write", "a call plan mode refuses is an error the model reads"),
        ...wentOn(MODES),
      ],
    }),
    gateScenario({
      id: "plan-denies-bash",
      title: "plan mode: bash `touch made.txt`, answered y, is refused and never runs",
      level: "core",
      mode: "plan",
      stdin: YES,
      steps: turns(TOUCH),
      judgements: [
        absent(MODES, "work/made.txt", "plan mode runs no command"),
        errorResult(MODES, "bash", "a call plan mode refuses is an error the model reads"),
      ],
    }),
    gateScenario({
      id: "plan-allows-read",
      title: "plan mode: read_file a.txt runs, and its text reaches the model",
      level: "core",
      mode: "plan",
      stdin: "",
      steps: turns(READ_A),
      judgements: [
        judge(
          MODES,
          "a tool that only reads runs in plan mode: the result should hold `alpha`",
          (o) => (resultOf(o, "read_file")?.text ?? "").includes("alpha"),
        ),
        judge(
          MODES,
          "a file read in plan mode is no error: is_error should not be true",
          (o) =>
            resultOf(o, "read_file") !== undefined && resultOf(o, "read_file")?.isError !== true,
        ),
      ],
    }),
    gateScenario({
      id: "accept-edits-no-prompt",
      title: "acceptEdits with nothing on stdin: read e.txt, then file_edit, and the edit is made",
      level: "core",
      mode: "acceptEdits",
      stdin: "",
      files: E_TXT,
      steps: turns(READ_E, TWO_TO_2),
      judgements: [
        offered(MODES, "file_edit"),
        hasText(MODES, "work/e.txt", "one\n2\none\n", "acceptEdits edits without a yes"),
      ],
    }),
    gateScenario({
      id: "accept-edits-keeps-checks",
      title: "acceptEdits: file_edit of a file never read is still refused, the file unchanged",
      level: "core",
      mode: "acceptEdits",
      stdin: "",
      files: E_TXT,
      steps: turns(TWO_TO_2),
      judgements: [
        hasText(
          MODES,
          "work/e.txt",
          "one\ntwo\none\n",
          "acceptEdits skips the question, not the read-first check",
        ),
        ...wentOn(MODES),
      ],
    }),
    gateScenario({
      id: "accept-edits-asks-bash",
      title: "acceptEdits: bash still asks, and an n runs nothing",
      level: "core",
      mode: "acceptEdits",
      stdin: NO,
      steps: turns(TOUCH),
      judgements: [
        absent(MODES, "work/made.txt", "acceptEdits lets edits through, not commands"),
        errorResult(MODES, "bash", "a rejected command is an error the model reads"),
        ...wentOn(MODES),
      ],
    }),
    gateScenario({
      id: "web-fetch-asks",
      title: "web_fetch asks first: answered n, the fake web gets no request",
      level: "core",
      stdin: NO,
      web: { routes: PAGE },
      steps: FETCH_PAGE,
      judgements: [
        offered(WEB, "web_fetch"),
        nothingFetched(WEB, "a fetch the person refused never connects"),
        errorResult(WEB, "web_fetch", "a rejected fetch is an error the model reads"),
        ...wentOn(WEB),
      ],
    }),
    gateScenario({
      id: "mode-invalid",
      title: "`--permission-mode Plan` is a usage error, not the default mode",
      level: "conformance",
      mode: "Plan",
      stdin: YES,
      steps: turns(TOUCH),
      judgements: [
        exitCode(MODES, 2, "a usage error"),
        judge(
          MODES,
          "expected stderr to be one line: `error: unknown --permission-mode: Plan (valid: default, acceptEdits, plan, bypassPermissions)`",
          (o) =>
            o.stderr.trim() ===
            "error: unknown --permission-mode: Plan (valid: default, acceptEdits, plan, bypassPermissions)",
        ),
        judge(
          MODES,
          "a mistyped mode runs nothing: the fake model should get no request",
          (o) => o.requests.length === 0,
        ),
        absent(MODES, "work/made.txt", "a mistyped mode runs nothing"),
      ],
    }),
    gateScenario({
      id: "bypass-no-prompt",
      title:
        "bypassPermissions with nothing on stdin: bash `touch made.txt` runs without a question",
      level: "conformance",
      mode: "bypassPermissions",
      stdin: "",
      steps: turns(TOUCH),
      judgements: [
        judge(MODES, "bypassPermissions runs the command: `made.txt` should exist", (o) =>
          fileExists(o, "work/made.txt"),
        ),
        noQuestion(MODES, "bypassPermissions asks nothing"),
      ],
    }),
    gateScenario({
      id: "bypass-still-guards",
      title: "bypassPermissions: `rm -rf keep` is still refused, keep/x.txt stays",
      level: "conformance",
      mode: "bypassPermissions",
      stdin: "",
      files: KEEP,
      steps: turns(bash("rm -rf keep")),
      judgements: [
        keepSurvives(GUARDS, "no mode lifts a guard"),
        ...blocked(GUARDS, 0, RM_RF, "rm -rf keep"),
      ],
    }),
    fileTwin(guardCurlPipeSh, {
      id: "guard-curl-pipe-sh-text",
      title: "the refusal of a download piped into `sh` names the pipeline",
      judgements: blocked(GUARDS, 0, CURL_SH, CURL_PIPE_SH),
    }),
    everyCallBlocked(
      "guard-flag-orders",
      "`rm -r -f`, `rm -rvf`, `rm --recursive --force` and `git -C . push` are each refused",
      [
        ["rm -r -f keep", RM_RF, "rm -r -f keep"],
        ["rm -rvf keep", RM_RF, "rm -rvf keep"],
        ["rm --recursive --force keep", RM_RF, "rm --recursive --force keep"],
        ["git -C . push", GIT_PUSH, "git -C . push"],
      ],
    ),
    everyCallBlocked(
      "guard-in-compound",
      "`rm -rf keep` after `&&`, `;`, a newline or a pipe is refused: every command is checked",
      [
        ["echo ok && rm -rf keep", RM_RF, "rm -rf keep"],
        ["echo ok; rm -rf keep", RM_RF, "rm -rf keep"],
        ["echo ok\nrm -rf keep", RM_RF, "rm -rf keep"],
        ["echo ok | rm -rf keep", RM_RF, "rm -rf keep"],
      ],
    ),
    everyCallBlocked(
      "guard-in-substitution",
      "`rm -rf keep` inside `$(…)`, `\"$(…)\"`, backquotes, `sh -c '…'` or after `env` is refused",
      [
        ["echo $(rm -rf keep)", RM_RF, "rm -rf keep"],
        ['echo "$(rm -rf keep)"', RM_RF, "rm -rf keep"],
        ["echo `rm -rf keep`", RM_RF, "rm -rf keep"],
        ["sh -c 'rm -rf keep'", RM_RF, "sh -c 'rm -rf keep'"],
        ["env rm -rf keep", RM_RF, "env rm -rf keep"],
      ],
    ),
    gateScenario({
      id: "guard-no-false-positive",
      title:
        '`grep -c "git push" notes.md` and `echo rm -rf keep` only mention it: both asked, not blocked',
      level: "conformance",
      // grep is answered n: the scenario shows it is asked, not blocked, without needing grep
      // installed (the scenarios run with echo, printf, cat, sleep, touch, pwd, env, seq, yes, git).
      stdin: "n\ny\n",
      files: { ...KEEP, "work/notes.md": "Run git push after the review.\n" },
      steps: turns(bash('grep -c "git push" notes.md'), bash("echo rm -rf keep")),
      judgements: [
        judge(
          GUARDS,
          "both commands should be asked: a `Run this command? [y/N]` line for each",
          (o) =>
            o.stdoutLines.filter((line) => /^Run this command\? \[y\/N[^\]]*\] [yn]$/.test(line))
              .length === 2,
        ),
        judge(
          GUARDS,
          "the grep line is the person's to answer: expected the rejection, not a `blocked:` text",
          (o) => resultOf(o, "bash", 0)?.text === "the user rejected this command; it was not run",
        ),
        judge(
          GUARDS,
          "echo should have run: expected the result `rm -rf keep`",
          (o) => (resultOf(o, "bash", 1)?.text ?? "").trim() === "rm -rf keep",
        ),
        keepSurvives(GUARDS, "`echo` only prints the words"),
      ],
    }),
    gateScenario({
      id: "accept-edits-diff-shown",
      title: "acceptEdits still shows the diff under the tool_call, with no question",
      level: "conformance",
      mode: "acceptEdits",
      stdin: "",
      files: E_TXT,
      steps: turns(READ_E, TWO_TO_2),
      judgements: [
        judge(
          MODES,
          "expected `tool_call: file_edit`, `Diff for e.txt:`, `-two`, `+2` and `observation:` in that order",
          (o) =>
            linesInOrder(
              o,
              "tool_call: file_edit",
              "Diff for e.txt:",
              "-two",
              "+2",
              "observation: ",
            ),
        ),
        noQuestion(MODES, "acceptEdits shows the change without asking"),
      ],
    }),
    gateScenario({
      id: "plan-denies-text",
      title: "plan mode's refusal of file_write: its text, is_error, and no question",
      level: "conformance",
      mode: "plan",
      stdin: YES,
      steps: turns(WRITE_NEW),
      judgements: [
        ...resultIs(MODES, "file_write", PLAN_TEXT, true),
        noQuestion(MODES, "plan mode refuses before anything is asked"),
        judge(V2, "a refused call never reaches its tool: no diff should be shown", (o) =>
          o.stdoutLines.every((line) => !line.startsWith("Diff for ")),
        ),
      ],
    }),
    gateScenario({
      id: "web-fetch-rejected-text",
      title: "a rejected web_fetch's result says so, with is_error",
      level: "conformance",
      stdin: NO,
      web: { routes: PAGE },
      steps: FETCH_PAGE,
      judgements: resultIs(WEB, "web_fetch", "the user rejected this call to web_fetch", true),
    }),
    gateScenario({
      id: "web-fetch-prompt-text",
      title: "`Allow web_fetch <url>? [y/N] ` comes between the tool_call and its observation",
      level: "conformance",
      stdin: NO,
      web: { routes: PAGE },
      steps: FETCH_PAGE,
      judgements: [
        judge(
          WEB,
          "expected `tool_call: web_fetch`, `Allow web_fetch <web>/page? [y/N] n` and `observation:` in that order",
          (o) =>
            linesInOrder(
              o,
              "tool_call: web_fetch",
              `Allow web_fetch ${o.context.webUrl}/page? [y/N] n`,
              "observation: ",
            ),
        ),
      ],
    }),
    gateScenario({
      id: "web-search-asks",
      title: "web_search asks first: answered n, the search provider gets no request",
      level: "conformance",
      stdin: NO,
      web: { search: { results: HITS } },
      steps: turns(["web_search", { query: "agent loop" }]),
      judgements: [
        nothingFetched(WEB, "a search the person refused is never sent"),
        judge(WEB, 'expected the line `Allow web_search "agent loop"? [y/N] n`', (o) =>
          o.stdoutLines.includes('Allow web_search "agent loop"? [y/N] n'),
        ),
        ...resultIs(WEB, "web_search", "the user rejected this call to web_search", true),
      ],
    }),
    // Day 5 v1's scenarios; the web calls among them ask now, and get their y.
    ...day5v1.scenarios.map((scenario) => ASKING.get(scenario.id) ?? scenario),
  ],
};

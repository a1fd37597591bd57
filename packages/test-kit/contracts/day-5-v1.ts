// Day 5, v1: bash, git_status and git_diff (taught in docs/day-5.md). The folder of Day 3's
// scenarios (`-C <dir>/work`, a secret outside); every bash call is answered on stdin. Core
// scenarios are what the Python course's bash also does (a yes runs in the working directory, a no
// does not, the exit code, stderr and a timeout reach the model, git_status asks nothing) and what
// a command must never do in any project (see a key, move the next call, flood the model, outlive a
// Ctrl-C). The texts, the numbers and the leftovers a timeout or a command's end must stop are
// conformance.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  CANARY_TOKEN,
  type Contract,
  type Judgement,
  type Observed,
  type Scenario,
  type ScenarioContext,
} from "../src/contract.ts";
import {
  exitCode,
  fileExists,
  judge,
  linesInOrder,
  noStrayProcesses,
  resultOf,
  sentResults,
} from "../src/judgements.ts";
import type { FileEntry } from "../src/scenario-folder.ts";
import type { Step } from "../src/server.ts";
import type { StepResult } from "../src/server-steps.ts";
import { drawName, drawWord, type Seeded } from "../src/vary.ts";
import { TAVILY_CANARY } from "../src/web-server.ts";
import { baseFiles, fileScenario, fileTwin } from "./day-3-v1.ts";
import { absent, type Call, offered, resultIs, turn, turns, wentOn } from "./day-4-v1.ts";
import { day4v3 } from "./day-4-v3.ts";
import { answerWithResults, namesEveryToolOffered, scenarioOf } from "./shared.ts";

const V1 = "docs/day-5.md#v1-a-command-is-a-process-tree";
const ASK = "docs/day-5-approve.md#the-question-before-a-command";
const SEES = "docs/day-5.md#what-a-command-gets";
const STOP = "docs/day-5.md#stopping-the-whole-tree";
const OUTPUT = "docs/day-5.md#what-comes-back";
const GIT = "docs/day-5-approve.md#git_status-and-git_diff";

// Paths that a shell prints (`pwd`) or a process group: the same on every POSIX system, not on
// Windows, whose Git Bash shows C:\ as /c/ and has no process groups to signal.
const POSIX: NodeJS.Platform[] = ["linux", "darwin", "freebsd", "openbsd"];
const YES = "y\n";

// What the bash tool was called with: a command line, and seconds when the scenario sets them.
export function bash(command: string, timeout?: number): Call {
  return ["bash", timeout === undefined ? { command } : { command, timeout }];
}

// What bash-yes prints, joined by `-`: `hello` and `bash` on the pages, two drawn words at another
// seed (a word and a name, so never the same twice).
function seededWords(context: Seeded): [string, string] {
  return [
    drawWord(context, "day-5-v1/first", "hello"),
    drawName(context, "day-5-v1/second", "bash"),
  ];
}

// What the n-th call of bash (from 0) sent back to the model, or "" when nothing came back.
function bashResult(o: Observed, nth = 0): string {
  return resultOf(o, "bash", nth)?.text ?? "";
}

interface BashScenario
  extends Pick<
    Scenario,
    "env" | "secrets" | "settleMs" | "interrupt" | "git" | "platforms" | "stdinOpen"
  > {
  id: string;
  title: string;
  level: Scenario["level"];
  // One answer a line, one line for each call that asks.
  stdin: string;
  steps: Step[] | ((context: ScenarioContext) => Step[]);
  files?: (context: ScenarioContext) => Record<string, FileEntry>;
  judgements: Judgement[];
}

// A Day 3 file scenario whose model runs commands: answers on stdin, and whatever else the run
// needs (variables, secrets to look for, time for late markers, a Ctrl-C, a git repository).
function bashScenario(spec: BashScenario): Scenario {
  const { id, title, level, judgements, stdin, steps, files, ...extras } = spec;
  const scenario = fileScenario({
    id,
    title,
    level,
    prompt: "Run the command.",
    steps: [],
    judgements,
  });
  return {
    ...scenario,
    ...extras,
    stdin,
    server: { steps },
    ...(files === undefined ? {} : { files: (context) => ({ ...baseFiles(), ...files(context) }) }),
  };
}

// Variables no command may see, by the names a user's shell really has them under.
const CANARIES: Record<string, string> = {
  GITHUB_TOKEN: "ghp_canary-github-token-0a1b",
  MY_SECRET: "canary-my-secret-2c3d",
  DB_PASSWORD: "canary-db-password-4e5f",
  AWS_SECRET_ACCESS_KEY: "canary-aws-secret-6a7b",
  SOME_CREDENTIAL: "canary-some-credential-8c9d",
};

// A child that outlives its shell and writes late.txt two seconds on, unless it is stopped.
const LATE_CHILD = "(sleep 2; touch late.txt)";
// Long enough after the run for that child to have written its marker.
const SETTLE_MS = 3000;
// An upper bound a busy machine still keeps: the commands that must be stopped run 10 s or more.
const WITHIN_MS = 8000;

// git's texts in English, whatever the person's locale.
const GIT_ENV = { LC_ALL: "C" };

// a.txt changes after the commit, just before the model's call (`next`) arrives.
function changedThen(context: ScenarioContext, next: StepResult): Step {
  return () => {
    writeFileSync(join(context.work, "a.txt"), "changed\n");
    return next;
  };
}

// No question on stdout: the call was decided without the person (`[y/N` also catches a
// question with more answers, such as the challenges' `[y/N/a]`).
export function noQuestion(docs: string, why: string): Judgement {
  return judge(docs, `${why}: no \`[y/N]\` question should be printed`, (o) =>
    o.stdoutLines.every((line) => !line.includes("[y/N")),
  );
}

export function endedWithin(docs: string, ms: number, why: string): Judgement {
  return judge(docs, `the run should end within ${ms / 1000} s (${why})`, (o) => o.durationMs < ms);
}

function lateChildStopped(docs: string, why: string): Judgement[] {
  return [absent(docs, "work/late.txt", why), noStrayProcesses(docs)];
}

const STDERR_CALL = bash("printf 'oops-%s\\n' stderr >&2; exit 3");
const TIMEOUT_CALL = bash("sleep 10", 1);
const TOUCH_CALL = bash("touch made.txt");
const CONTROLS_CALL = bash("echo safe\r\u001b[2Kshown");
const RANGE_TEXT = "bad arguments for bash: timeout must be between 1 and 600 seconds";

// The core scenario bash-exit-code-text judges again, on the same run.
const bashExitCode = bashScenario({
  id: "bash-exit-code",
  title: "a command that fails: its exit code and its stderr reach the model",
  level: "core",
  stdin: YES,
  steps: turns(STDERR_CALL),
  judgements: [
    judge(
      OUTPUT,
      "expected the result to say `exit code 3` and hold the stderr line `oops-stderr`",
      (o) => /exit code 3/.test(bashResult(o)) && bashResult(o).includes("oops-stderr"),
    ),
    ...wentOn(OUTPUT),
  ],
});

export const day5v1: Contract = {
  stage: "day-5-v1",
  title: "Day 5 v1: a command is a process tree",
  base: "day-4-v3",
  scenarios: [
    bashScenario({
      id: "bash-yes",
      title: "bash answered y: the command runs and its output reaches the model",
      level: "core",
      stdin: YES,
      // Seeded: `hello bash` on the pages, two drawn words at another seed.
      steps: (context) => {
        const [first, second] = seededWords(context);
        return turns(bash(`printf '%s-%s\\n' ${first} ${second}`));
      },
      judgements: [
        offered(V1, "bash"),
        exitCode(V1, 0, "a finished run exits 0"),
        judge(
          V1,
          "the command's output (`hello-bash` on the pages) should reach the model in the second request",
          (o) => {
            const printed = seededWords(o.context).join("-");
            return sentResults(o.requests[1]).some((result) => result.text.includes(printed));
          },
        ),
      ],
    }),
    bashScenario({
      id: "bash-no",
      title: "bash answered n: the command does not run, and the run goes on",
      level: "core",
      stdin: "n\n",
      steps: turns(TOUCH_CALL),
      judgements: [
        offered(ASK, "bash"),
        absent(ASK, "work/made.txt", "a no runs nothing"),
        ...wentOn(ASK),
        judge(
          ASK,
          "the rejection should go back with is_error: true",
          (o) => resultOf(o, "bash")?.isError === true,
        ),
      ],
    }),
    bashExitCode,
    bashScenario({
      id: "bash-timeout",
      title: "bash `sleep 10` with a timeout of 1 s: stopped, and the model is told",
      level: "core",
      stdin: YES,
      steps: turns(TIMEOUT_CALL),
      judgements: [
        endedWithin(STOP, WITHIN_MS, "the timeout stops a 10 s command after 1 s"),
        judge(STOP, "expected the result to say the command timed out", (o) =>
          /timed out/.test(bashResult(o)),
        ),
        ...wentOn(STOP),
      ],
    }),
    bashScenario({
      id: "bash-cwd",
      title: "`pwd` prints the working directory given with -C",
      level: "core",
      platforms: POSIX,
      stdin: YES,
      steps: turns(bash("pwd")),
      judgements: [
        judge(
          SEES,
          "`pwd` should print the working directory (the folder after -C)",
          (o) => bashResult(o).trim() === o.context.work,
        ),
      ],
    }),
    bashScenario({
      id: "bash-fresh-shell",
      title:
        "`cd sub` in one call does not move the next: `pwd` still prints the working directory",
      level: "core",
      platforms: POSIX,
      stdin: "y\ny\n",
      steps: turns(bash("cd sub"), bash("pwd")),
      judgements: [
        judge(
          SEES,
          "each call starts a fresh shell in the working directory: the second call's `pwd` should print it",
          (o) => bashResult(o, 1).trim() === o.context.work,
        ),
      ],
    }),
    bashScenario({
      id: "bash-env-scrubbed",
      title: "`env` shows no key or token of the user's environment, and none reaches the model",
      level: "core",
      env: CANARIES,
      secrets: [...Object.values(CANARIES), CANARY_TOKEN, TAVILY_CANARY],
      stdin: YES,
      steps: turns(bash("env")),
      judgements: [
        judge(
          SEES,
          "`env` should have run and listed the variables a command gets, PATH among them",
          (o) => /(^|\n)PATH=/.test(bashResult(o)),
        ),
      ],
    }),
    bashScenario({
      id: "bash-output-capped",
      title:
        "`seq 1 200000` (1.3 MB): the model gets under 13,000 characters, the first lines among them",
      level: "core",
      stdin: YES,
      steps: turns(bash("seq 1 200000")),
      judgements: [
        judge(
          OUTPUT,
          "expected a result under 13,000 characters that starts `1`, `2`, `3`",
          (o) => {
            const text = bashResult(o);
            return text.length < 13_000 && text.startsWith("1\n2\n3\n");
          },
        ),
      ],
    }),
    bashScenario({
      id: "git-status-no-prompt",
      title: "git_status in a clean repository: git's own text, and no question",
      level: "core",
      git: true,
      env: GIT_ENV,
      stdin: "n\n",
      steps: turns(["git_status", {}]),
      judgements: [
        offered(GIT, "git_status"),
        judge(
          GIT,
          "expected git's own text: `On branch main`, `nothing to commit, working tree clean`",
          (o) =>
            /On branch|nothing to commit|working tree clean/.test(
              resultOf(o, "git_status")?.text ?? "",
            ),
        ),
        noQuestion(GIT, "git_status only reads"),
      ],
    }),
    bashScenario({
      id: "bash-ctrl-c",
      title: "Ctrl-C while a command runs ends the run and stops the command's whole tree",
      level: "core",
      platforms: POSIX,
      stdin: YES,
      steps: turns(bash(`${LATE_CHILD} & touch started.txt; sleep 30`)),
      interrupt: { afterFile: "work/started.txt" },
      settleMs: SETTLE_MS,
      judgements: [
        judge(STOP, "the command should have started (it makes started.txt)", (o) =>
          fileExists(o, "work/started.txt"),
        ),
        judge(
          STOP,
          "Ctrl-C should end the run: exit code 130 (or the SIGINT signal itself)",
          (o) => o.exitCode === 130 || o.signal === "SIGINT",
        ),
        endedWithin(STOP, WITHIN_MS, "at the Ctrl-C, not after the command's 30 s"),
        ...lateChildStopped(STOP, "Ctrl-C stops the command's background part too"),
      ],
    }),
    bashScenario({
      id: "bash-prompt-text",
      title:
        "the command is shown, then `Run this command? [y/N] `, between the tool_call and its observation",
      level: "conformance",
      stdin: YES,
      steps: turns(bash("printf '%s\\n' shown")),
      judgements: [
        judge(
          ASK,
          "expected `tool_call: bash`, `Command: printf '%s\\n' shown`, `Run this command? [y/N] y` and `observation:` in that order",
          (o) =>
            o.stdoutLines.includes("Command: printf '%s\\n' shown") &&
            linesInOrder(
              o,
              "tool_call: bash",
              "Command: printf",
              "Run this command? [y/N] y",
              "observation: ",
            ),
        ),
      ],
    }),
    bashScenario({
      id: "bash-rejected-text",
      title: "a rejected command's result says it was not run, with is_error",
      level: "conformance",
      stdin: "n\n",
      steps: turns(TOUCH_CALL),
      judgements: resultIs(ASK, "bash", "the user rejected this command; it was not run", true),
    }),
    bashScenario({
      id: "bash-stderr-text",
      title: "stdout, then `[stderr]` on a line of its own, then stderr",
      level: "conformance",
      stdin: YES,
      steps: turns(bash("printf out-1; printf err-2 >&2")),
      judgements: resultIs(OUTPUT, "bash", "out-1\n[stderr]\nerr-2", false),
    }),
    bashScenario({
      id: "bash-no-output-text",
      title: "a command that prints nothing: `(no output)`",
      level: "conformance",
      stdin: YES,
      steps: turns(bash("true")),
      judgements: resultIs(OUTPUT, "bash", "(no output)", false),
    }),
    fileTwin(bashExitCode, {
      id: "bash-exit-code-text",
      title: "a failed command's result starts `exit code 3`, with is_error: false",
      judgements: [
        judge(
          OUTPUT,
          "expected a result whose first line is `exit code 3`",
          (o) => bashResult(o).split("\n")[0] === "exit code 3",
        ),
        judge(
          OUTPUT,
          "an exit code is data for the model: is_error: false",
          (o) => resultOf(o, "bash")?.isError === false,
        ),
      ],
    }),
    bashScenario({
      id: "bash-timeout-keeps-output",
      title: "a command stopped by its timeout: the result keeps what it printed before",
      level: "conformance",
      stdin: YES,
      // Two seconds: `echo` must have run before the timeout, on a busy machine too.
      steps: turns(bash("echo early; sleep 10", 2)),
      judgements: [
        judge(
          STOP,
          "expected a result starting `command timed out after 2 s and was stopped; output so far:` and holding `early`",
          (o) => {
            const text = bashResult(o);
            return (
              text.startsWith("command timed out after 2 s and was stopped; output so far:") &&
              text.includes("early")
            );
          },
        ),
        judge(
          STOP,
          "a stopped command's result goes back with is_error: true",
          (o) => resultOf(o, "bash")?.isError === true,
        ),
      ],
    }),
    bashScenario({
      id: "bash-timeout-range",
      title: "timeouts of 0 and 601 s are refused before anything is asked or run",
      level: "conformance",
      stdin: "y\ny\n",
      steps: turns(bash("touch ran.txt", 0), bash("touch ran.txt", 601)),
      judgements: [
        ...resultIs(V1, "bash", RANGE_TEXT, true, 0),
        ...resultIs(V1, "bash", RANGE_TEXT, true, 1),
        absent(V1, "work/ran.txt", "a call with bad arguments runs nothing"),
        noQuestion(V1, "a call with bad arguments is refused before the question"),
      ],
    }),
    bashScenario({
      id: "bash-group-killed",
      title: "a timeout stops the command's background child too: no late.txt 3 s later",
      level: "conformance",
      platforms: POSIX,
      stdin: YES,
      steps: turns(bash(`${LATE_CHILD} & sleep 30`, 1)),
      settleMs: SETTLE_MS,
      judgements: [
        endedWithin(STOP, WITHIN_MS, "the timeout of 1 s ends the call"),
        ...lateChildStopped(STOP, "a timeout stops the whole process group"),
      ],
    }),
    bashScenario({
      id: "bash-leftover-killed",
      title: "a command that ends at once leaves a background child: it is stopped, no late.txt",
      level: "conformance",
      platforms: POSIX,
      stdin: YES,
      steps: turns(bash(`${LATE_CHILD} & echo started`)),
      settleMs: SETTLE_MS,
      judgements: [
        judge(STOP, "expected the result `started`", (o) => bashResult(o).trim() === "started"),
        ...lateChildStopped(STOP, "what a command leaves running is stopped when it ends"),
      ],
    }),
    bashScenario({
      id: "bash-flood-stopped",
      title: "`yes` is stopped after 8 MiB of output, and the model gets under 13,000 characters",
      level: "conformance",
      stdin: YES,
      // A short timeout all the same: a project that keeps all output (as the Python course's
      // subprocess.run does) would hold gigabytes after 30 s of `yes`.
      steps: turns(bash("yes", 3)),
      judgements: [
        endedWithin(OUTPUT, WITHIN_MS, "the flood is stopped, not left to run"),
        judge(
          OUTPUT,
          "expected a result under 13,000 characters holding `[command stopped: it printed more than 8388608 bytes]`",
          (o) => {
            const text = bashResult(o);
            return (
              text.length < 13_000 &&
              text.includes("[command stopped: it printed more than 8388608 bytes]")
            );
          },
        ),
        judge(
          OUTPUT,
          "a stopped command's result goes back with is_error: true",
          (o) => resultOf(o, "bash")?.isError === true,
        ),
      ],
    }),
    bashScenario({
      id: "bash-stdin-closed",
      title: "`cat` gets no input and returns at once; the next call still gets its own y",
      level: "conformance",
      stdin: "y\ny\n",
      // stdin stays open, as a terminal's does: a `cat` that inherited it would wait, not end.
      stdinOpen: true,
      steps: turns(bash("cat", 5), bash("echo second")),
      judgements: [
        ...resultIs(SEES, "bash", "(no output)", false, 0),
        judge(
          SEES,
          "the second y answers the second question: expected the result `second`",
          (o) => bashResult(o, 1).trim() === "second",
        ),
      ],
    }),
    bashScenario({
      id: "bash-no-bash-env",
      title: "BASH_ENV and ENV name a file that would run first: the shell never reads it",
      level: "conformance",
      platforms: POSIX,
      // The file runs only where the tool's shell would: in the work folder.
      files: (context) => ({
        "rc.sh": `[ "$(pwd -P)" = "${context.work}" ] && touch sourced.txt\n`,
      }),
      env: (context) => ({ BASH_ENV: join(context.dir, "rc.sh"), ENV: join(context.dir, "rc.sh") }),
      stdin: YES,
      steps: turns(bash("echo hi")),
      judgements: [
        judge(SEES, "expected the result `hi`", (o) => bashResult(o).trim() === "hi"),
        absent(SEES, "work/sourced.txt", "a command's shell reads no startup file"),
      ],
    }),
    bashScenario({
      id: "bash-utf8",
      title: "output is read as UTF-8: `€` stays, a byte that is not UTF-8 becomes U+FFFD",
      level: "conformance",
      stdin: YES,
      steps: turns(bash("printf '\\342\\202\\254\\377'")),
      judgements: [
        judge(OUTPUT, "expected `€` and then U+FFFD in the result", (o) =>
          bashResult(o).includes("€\ufffd"),
        ),
      ],
    }),
    bashScenario({
      id: "bash-controls-visible",
      title: "a carriage return and an escape in a command show as U+FFFD on the `Command:` line",
      level: "conformance",
      stdin: "n\n",
      steps: turns(CONTROLS_CALL),
      judgements: [
        judge(
          ASK,
          "expected the line `Command: echo safe\ufffd\ufffd[2Kshown`: nothing may hide part of what is approved",
          (o) =>
            o.stdoutLines.some((line) => line.startsWith("Command: ")) &&
            o.stdoutLines
              .filter((line) => line.startsWith("Command: "))
              .every((line) => line === "Command: echo safe\ufffd\ufffd[2Kshown"),
        ),
      ],
    }),
    bashScenario({
      id: "git-status-repo",
      title: "git_status after a.txt changed: git's text names it",
      level: "conformance",
      git: true,
      env: GIT_ENV,
      stdin: "n\n",
      steps: (context) => [changedThen(context, turn(["git_status", {}])), answerWithResults],
      judgements: [
        judge(GIT, "expected git's text to name the change: `modified:   a.txt`", (o) =>
          /modified: +a\.txt/.test(resultOf(o, "git_status")?.text ?? ""),
        ),
        noQuestion(GIT, "git_status only reads"),
      ],
    }),
    bashScenario({
      id: "git-diff",
      title: "git_diff after a.txt changed: the diff, with its - and + lines, and no question",
      level: "conformance",
      git: true,
      env: GIT_ENV,
      stdin: "n\n",
      steps: (context) => [changedThen(context, turn(["git_diff", {}])), answerWithResults],
      judgements: [
        offered(GIT, "git_diff"),
        judge(GIT, "expected `diff --git a/a.txt b/a.txt`, `-alpha` and `+changed`", (o) => {
          const lines = (resultOf(o, "git_diff")?.text ?? "").split("\n");
          return ["diff --git a/a.txt b/a.txt", "-alpha", "+changed"].every((line) =>
            lines.includes(line),
          );
        }),
        noQuestion(GIT, "git_diff only reads"),
      ],
    }),
    // Judged on Day 2's unknown-tool run, which this stage keeps: the tools offered are this stage's.
    fileTwin(scenarioOf(day4v3, "unknown-tool"), {
      id: "unknown-tool-text",
      title: "the unknown-tool text names the tools there are, bash too",
      judgements: [namesEveryToolOffered(V1, "bash")],
    }),
    // Day 4 v3's scenarios, but the unknown-tool text, which names this stage's longer list.
    ...day4v3.scenarios.filter((scenario) => scenario.id !== "unknown-tool-text"),
  ],
};

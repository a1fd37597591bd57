// Day 5, v4: background tasks owned by the session (taught in docs/day-5-tasks.md). The folder of
// Day 3's scenarios, answers on stdin. Core scenarios are what the Python course's background
// commands also do: the run does not wait for the command, and a no runs nothing. bash_output,
// kill_shell, the log, the limit, the texts and the tasks' deaths with the run (P12) are
// conformance: the Python course's tasks write two files, tell the model to `kill` a PID, and
// outlive the CLI.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Contract, Scenario, ScenarioContext } from "../src/contract.ts";
import {
  exitCode,
  fileExists,
  fileText,
  judge,
  noStrayProcesses,
  resultOf,
  sentResults,
} from "../src/judgements.ts";
import type { RecordedRequest, Step } from "../src/server.ts";
import { fileTwin } from "./day-3-v1.ts";
import { absent, type Call, offered, resultIs, turn, turns, wentOn } from "./day-4-v1.ts";
import { endedWithin, noQuestion } from "./day-5-v1.ts";
import { type GateScenario, gateScenario } from "./day-5-v2.ts";
import { day5v3, notAnError, promptsSent } from "./day-5-v3.ts";
import { answerWithResults, namesEveryToolOffered, scenarioOf } from "./shared.ts";

const V4 = "docs/day-5-tasks.md#v4-background-tasks";
const OWNS = "docs/day-5-tasks.md#what-a-background-task-owns";
const READING = "docs/day-5-tasks.md#reading-and-stopping-a-task";

const YES = "y\n";
// Where a process group can be watched: the marker and the stray-process sweep need POSIX.
const POSIX: NodeJS.Platform[] = ["linux", "darwin", "freebsd", "openbsd"];
// Long enough after the run for a task that outlived it to write its late marker.
const SETTLE_MS = 3000;
// How long a step waits at most for a task to get somewhere: a busy machine starts it late.
const WAIT_MS = 5000;

// bash with background: true, as the model asks for it.
function background(command: string): Call {
  return ["bash", { command, background: true }];
}

// A Day 3 file scenario run in a permission mode (gateScenario), with time after the run for late
// markers and the platforms it can run on.
function taskScenario(spec: GateScenario & Pick<Scenario, "settleMs" | "platforms">): Scenario {
  const { settleMs, platforms, ...gate } = spec;
  return {
    ...gateScenario(gate),
    ...(settleMs === undefined ? {} : { settleMs }),
    ...(platforms === undefined ? {} : { platforms }),
  };
}

// The task's id as the first result in `request` gives it: this stage's `bash_output {"id":"bg_1"}`,
// else a word such as `bg_1` or `bg-1a2b3c4d`, else the first id this stage gives.
function taskId(request: RecordedRequest): string {
  const text = sentResults(request)[0]?.text ?? "";
  return (
    /bash_output \{"id":"([^"]+)"\}/.exec(text)?.[1] ?? /\b(bg[-_][\w-]+)/.exec(text)?.[1] ?? "bg_1"
  );
}

// Waits until `ready` holds, or WAIT_MS pass: the step answers either way, and the judgements say
// what went wrong.
async function until(ready: () => boolean): Promise<void> {
  for (const end = Date.now() + WAIT_MS; Date.now() < end && !ready(); await sleep(25));
}

// A work-folder file is there: what a task writes to say it got that far.
function made(context: ScenarioContext, name: string): () => boolean {
  return () => existsSync(join(context.work, name));
}

// The model's next call, made once the task has written `marker` (and `afterMs` more have passed),
// with the id the first result named.
function onceMade(
  context: ScenarioContext,
  marker: string,
  call: (id: string) => Call,
  afterMs = 0,
): Step {
  return async (request) => {
    await until(made(context, marker));
    await sleep(afterMs);
    return turn(call(taskId(request)));
  };
}

// Long enough that a run which waits for it is plainly slower than any start, tsx under load
// included; a run that does not wait kills it (tasks die with the run), so nobody waits 12 s.
const SLOW = background("sleep 12; echo done > done.txt");
const STARTED_TEXT =
  'Started bg_1 in the background (log: .agent/bg/bg_1.log). Read its output with bash_output {"id":"bg_1"}; stop it with kill_shell {"id":"bg_1"}.';
const LIMIT_TEXT = "too many background tasks (8); stop one with kill_shell";
const UNKNOWN_TEXT = "no background task bg_9";
const LOG = "work/.agent/bg/bg_1.log";
// A child that outlives the task's shell and writes late.txt two seconds on, unless it is stopped.
const LATE_CHILD = "(sleep 2; touch late.txt)";

function outputCall(id: string): Call {
  return ["bash_output", { id }];
}

function killCall(id: string): Call {
  return ["kill_shell", { id }];
}

export const day5v4: Contract = {
  stage: "day-5-v4",
  title: "Day 5 v4: background tasks owned by the session",
  base: "day-5-v3",
  scenarios: [
    taskScenario({
      id: "bg-returns-at-once",
      title:
        "bash `sleep 12; echo done > done.txt` in the background, answered y: the run does not wait for it",
      level: "core",
      stdin: YES,
      steps: turns(SLOW),
      judgements: [
        offered(V4, "bash"),
        endedWithin(V4, 8000, "a background command goes on alone: the run does not wait its 12 s"),
        notAnError(V4, "bash", "a started command is no error"),
        ...wentOn(V4),
      ],
    }),
    taskScenario({
      id: "bg-asks",
      title: "bash `touch made.txt` in the background, answered n: the command never runs",
      level: "core",
      stdin: "n\n",
      steps: turns(background("touch made.txt")),
      // A touch that ran would have made its file well within a second.
      settleMs: 1000,
      judgements: [
        absent(V4, "work/made.txt", "a background command asks first, and a no runs nothing"),
        judge(
          V4,
          "the rejection should go back with is_error: true",
          (o) => resultOf(o, "bash")?.isError === true,
        ),
        ...wentOn(V4),
      ],
    }),
    taskScenario({
      id: "bg-started-text",
      title: "a started task's result names its id, its log, and the calls that read and stop it",
      level: "conformance",
      stdin: YES,
      steps: turns(SLOW),
      judgements: resultIs(V4, "bash", STARTED_TEXT, false),
    }),
    taskScenario({
      id: "bg-output",
      title:
        "bash_output with the id the start gave, once the task has ended: its state, then its output",
      level: "conformance",
      stdin: YES,
      // The task ends just after it makes finished.txt: a second more, and its end is known.
      steps: (context) => [
        turn(background("printf 'hello-%s\\n' bg; touch finished.txt")),
        onceMade(context, "finished.txt", outputCall, 1000),
        answerWithResults,
      ],
      judgements: [
        offered(READING, "bash_output"),
        judge(
          READING,
          "the task's output `hello-bg` should reach the model through bash_output",
          (o) => (resultOf(o, "bash_output")?.text ?? "").includes("hello-bg"),
        ),
        ...resultIs(READING, "bash_output", "bg_1: exited with code 0\nhello-bg", false),
      ],
    }),
    taskScenario({
      id: "bg-kill",
      title:
        "kill_shell stops the task and the child it started: no late.txt, though the run goes on 3 s more",
      level: "conformance",
      platforms: POSIX,
      stdin: YES,
      // The model answers 3 s after the kill: a child the kill missed writes late.txt meanwhile,
      // before the end of the run could stop it.
      steps: (context) => [
        turn(background(`${LATE_CHILD} & touch started.txt; sleep 30`)),
        onceMade(context, "started.txt", killCall),
        async (request) => {
          await sleep(SETTLE_MS);
          return answerWithResults(request);
        },
      ],
      judgements: [
        offered(READING, "kill_shell"),
        judge(READING, "the task should have started (it makes started.txt)", (o) =>
          fileExists(o, "work/started.txt"),
        ),
        absent(READING, "work/late.txt", "kill_shell stops the task's whole process group"),
        ...resultIs(READING, "kill_shell", "Stopped bg_1", false),
      ],
    }),
    taskScenario({
      id: "bg-dies-with-run",
      title: "a one-shot run ends with a task still running: the task and its child are stopped",
      level: "conformance",
      platforms: POSIX,
      stdin: YES,
      steps: turns(background(`${LATE_CHILD} & sleep 30`)),
      settleMs: SETTLE_MS,
      judgements: [
        endedWithin(OWNS, 8000, "a task does not keep the run going"),
        exitCode(OWNS, 0, "a run that leaves a task behind is still a finished run"),
        absent(OWNS, "work/late.txt", "a task belongs to the session, and dies with it"),
        noStrayProcesses(OWNS),
      ],
    }),
    taskScenario({
      id: "bg-log-file",
      title: "the log holds stdout and stderr in one file, in the order the lines came",
      level: "conformance",
      stdin: YES,
      // The model answers once the log holds the last line: the run's end stops the task.
      steps: (context) => [
        turn(background("echo a; echo b >&2; echo c")),
        async (request) => {
          await until(() => {
            const log = join(context.dir, LOG);
            return existsSync(log) && readFileSync(log, "utf8").includes("c\n");
          });
          return answerWithResults(request);
        },
      ],
      judgements: [
        judge(
          OWNS,
          'expected `.agent/bg/bg_1.log` to hold "a\\nb\\nc\\n": both streams on one file, in order',
          (o) => fileText(o, LOG) === "a\nb\nc\n",
        ),
      ],
    }),
    taskScenario({
      id: "bg-limit",
      title: "nine background starts, each answered y: eight run, the ninth is refused",
      level: "conformance",
      stdin: YES.repeat(9),
      // One turn of nine calls: nine turns would pass the default of eight steps.
      steps: [turn(...Array.from({ length: 9 }, () => background("sleep 30"))), answerWithResults],
      judgements: [
        judge(OWNS, "the first eight starts should each start a task: no error, no refusal", (o) =>
          Array.from({ length: 8 }, (_, n) => resultOf(o, "bash", n)).every(
            (result) =>
              result !== undefined && result.isError !== true && result.text !== LIMIT_TEXT,
          ),
        ),
        ...resultIs(OWNS, "bash", LIMIT_TEXT, true, 8),
      ],
    }),
    taskScenario({
      id: "bg-unknown-id",
      title: 'bash_output {"id":"bg_9"} and kill_shell {"id":"bg_9"} with no such task: refused',
      level: "conformance",
      stdin: "y\ny\n",
      steps: turns(outputCall("bg_9"), killCall("bg_9")),
      judgements: [
        ...resultIs(READING, "bash_output", UNKNOWN_TEXT, true),
        ...resultIs(READING, "kill_shell", UNKNOWN_TEXT, true),
        noQuestion(READING, "bash_output and kill_shell touch only the session's own tasks"),
      ],
    }),
    taskScenario({
      id: "bg-readonly-in-plan",
      title: "plan mode: bash_output and kill_shell run, and refuse an unknown id themselves",
      level: "conformance",
      mode: "plan",
      stdin: "y\ny\n",
      steps: turns(outputCall("bg_9"), killCall("bg_9")),
      judgements: [
        judge(
          READING,
          "plan mode lets bash_output through: its tool answers `no background task bg_9`, not the plan-mode refusal",
          (o) => resultOf(o, "bash_output")?.text === UNKNOWN_TEXT,
        ),
        judge(
          READING,
          "plan mode lets kill_shell through: its tool answers `no background task bg_9`, not the plan-mode refusal",
          (o) => resultOf(o, "kill_shell")?.text === UNKNOWN_TEXT,
        ),
        noQuestion(READING, "plan mode asks nothing"),
      ],
    }),
    taskScenario({
      id: "bg-repl-shared",
      title:
        "in the REPL, a task the first line started is still there for the second line's bash_output",
      level: "conformance",
      repl: true,
      stdin: "Start a task\ny\nRead its output\n",
      steps: (context) => {
        // Each line is a run of its own: the id the first run was given is kept for the second.
        let id = "bg_1";
        return [
          turn(background("printf 'hello-%s\\n' repl; touch printed.txt; sleep 30")),
          (request) => {
            id = taskId(request);
            return answerWithResults(request);
          },
          async () => {
            await until(made(context, "printed.txt"));
            return turn(outputCall(id));
          },
          answerWithResults,
        ];
      },
      judgements: [
        judge(
          OWNS,
          "expected two runs, one for each line: `Start a task`, then `Read its output`",
          (o) =>
            promptsSent(o).join(" | ") ===
            "Start a task | Start a task | Read its output | Read its output",
        ),
        ...resultIs(OWNS, "bash_output", "bg_1: running\nhello-repl", false),
        exitCode(OWNS, 0, "the end of input ends the REPL with 0"),
        noStrayProcesses(OWNS),
      ],
    }),
    // Judged on Day 2's unknown-tool run, which this stage keeps: the tools offered are this stage's.
    fileTwin(scenarioOf(day5v3, "unknown-tool"), {
      id: "unknown-tool-text",
      title: "the unknown-tool text names the tools there are, bash_output and kill_shell too",
      judgements: [namesEveryToolOffered(V4, "bash_output"), offered(V4, "kill_shell")],
    }),
    // Day 5 v3's scenarios, but the unknown-tool text, which names this stage's longer list.
    ...day5v3.scenarios.filter((scenario) => scenario.id !== "unknown-tool-text"),
  ],
};

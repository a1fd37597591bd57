// Day 4, v1: file_write, with a diff the person sees and a y/N question (taught in docs/day-4.md).
// The folder of Day 3's scenarios; answers come on stdin. Core scenarios are what the Python
// course's file_write also does: a yes writes, a no and the end of input do not, an existing file
// is overwritten only after a read in the same run and only as it was read, nothing outside the
// working directory changes. The texts, is_error, the echoed answer, the modes and the run going on
// after the end of input (the Python course's Typer `confirm` aborts there) are conformance.
import { chmodSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Contract, Judgement, Scenario, ScenarioContext } from "../src/contract.ts";
import {
  exitCode,
  fileText,
  finalText,
  judge,
  linesInOrder,
  offeredTools,
  resultOf,
} from "../src/judgements.ts";
import type { FileEntry } from "../src/scenario-folder.ts";
import type { RecordedRequest, Step } from "../src/server.ts";
import type { StepResult } from "../src/server-steps.ts";
import { drawName, drawNumber, drawWord, FIXED_SEED, type Seeded } from "../src/vary.ts";
import { fileScenario, fileTwin } from "./day-3-v1.ts";
import { day3v4 } from "./day-3-v4.ts";
import { answerWithResults, lastResultTexts, namesEveryToolOffered, scenarioOf } from "./shared.ts";

const V1 = "docs/day-4.md#v1-show-ask-then-write";
const INTENT = "docs/day-4.md#intent-is-not-what-lands-on-disk";
const READER = "docs/day-4.md#one-reader-for-every-line";
const ATOMIC = "docs/day-4.md#written-whole-or-not-at-all";

// One model turn that calls these tools, in order, each with an id of its own.
export type Call = [name: string, input: Record<string, unknown>];
let callIds = 0;
export function turn(...calls: Call[]): StepResult {
  return {
    content: calls.map(([name, input]) => ({
      type: "tool_use" as const,
      id: `toolu_day4_${++callIds}`,
      name,
      input,
    })),
  };
}

// A model that makes these turns (a turn is a call, or a step for one built at run time) and then
// answers with what the last tools said.
export function turns(...steps: (Call | Step)[]): Step[] {
  return [...steps.map((step) => (Array.isArray(step) ? turn(step) : step)), answerWithResults];
}

export interface WriteScenario {
  id: string;
  title: string;
  level: Scenario["level"];
  // What the person types: answers, and in a REPL the prompts. Undefined: nothing, end of input.
  stdin: string;
  steps: Step[] | ((context: ScenarioContext) => Step[]);
  files?: Record<string, FileEntry> | ((context: ScenarioContext) => Record<string, FileEntry>);
  platforms?: NodeJS.Platform[];
  // No prompt on the command line: the REPL reads its lines from stdin.
  repl?: boolean;
  judgements: Judgement[];
}

// A Day 3 file scenario (`-C <dir>/work`, a secret outside) with answers on stdin.
export function writeScenario(spec: WriteScenario): Scenario {
  const scenario = fileScenario({
    id: spec.id,
    title: spec.title,
    level: spec.level,
    prompt: "Change the files.",
    steps: [],
    ...(spec.files === undefined ? {} : { files: spec.files }),
    ...(spec.platforms === undefined ? {} : { platforms: spec.platforms }),
    judgements: spec.judgements,
  });
  return {
    ...scenario,
    ...(spec.repl === true ? { args: (context) => ["-C", context.work] } : {}),
    stdin: spec.stdin,
    server: { steps: spec.steps },
  };
}

// The model was offered the tool at all: without it every refusal would be "unknown tool".
export function offered(docs: string, tool: string): Judgement {
  return judge(docs, `the first request should offer the \`${tool}\` tool`, (o) =>
    offeredTools(o.requests[0]).includes(tool),
  );
}

// The run went on to the model's final answer after the tool's result, and exited 0.
export function wentOn(docs: string): Judgement[] {
  return [
    exitCode(docs, 0, "a refused or rejected change is not a failed run"),
    judge(docs, "the run should go on to the model's final answer", (o) =>
      (finalText(o) ?? "").startsWith("The tools said: "),
    ),
  ];
}

export function hasText(docs: string, path: string, text: string, why: string): Judgement {
  return judge(
    docs,
    `${why}: \`${path}\` should hold ${JSON.stringify(text)}`,
    (o) => fileText(o, path) === text,
  );
}

export function absent(docs: string, path: string, why: string): Judgement {
  return judge(docs, `${why}: \`${path}\` should not exist`, (o) => o.files[path] === undefined);
}

export function nothingOutside(docs: string): Judgement {
  return judge(
    docs,
    "nothing outside the working directory should change",
    (o) => o.outsideChanged.length === 0,
  );
}

// The first result of `tool` is exactly `text`, with is_error as given.
export function resultIs(docs: string, tool: string, text: string, isError: boolean, nth = 0) {
  return [
    judge(
      docs,
      `expected the ${tool} result \`${text}\``,
      (o) => resultOf(o, tool, nth)?.text === text,
    ),
    judge(
      docs,
      `that result should go back with is_error: ${isError}`,
      (o) => resultOf(o, tool, nth)?.isError === isError,
    ),
  ];
}

// No question was asked and no diff shown: a failed check asks nothing.
export function askedNothing(docs: string): Judgement {
  return judge(
    docs,
    "a refused change should show no diff and ask nothing",
    (o) => !o.stdoutLines.some((line) => /\[y\/N\]|^Diff for /.test(line)),
  );
}

const WRITE_NEW: Call = ["file_write", { file_path: "new.txt", content: "hello\n" }];

// What write-new-yes writes: WRITE_NEW on the pages, a drawn name and text at another seed.
function seededNewFile(context: Seeded): { name: string; text: string } {
  const name = `${drawName(context, "day-4-v1/new", "new")}.txt`;
  const word = drawWord(context, "day-4-v1/word", "hello");
  const count = drawNumber(context, "day-4-v1/count", 0, [2, 9]);
  return { name, text: context.seed === FIXED_SEED ? "hello\n" : `${word} x${count}\n` };
}
const READ_A: Call = ["read_file", { path: "a.txt" }];
const YES = "y\n";

// Someone else rewrites a.txt between the model's read and its write.
function changedMeanwhile(context: ScenarioContext, next: StepResult): Step {
  return () => {
    writeFileSync(join(context.work, "a.txt"), "changed meanwhile\n");
    return next;
  };
}

// The mode bits of a work-folder file, told by the model's final answer: judgements see the folder
// only as text, so the step that answers last looks at the file.
function answerWithMode(context: ScenarioContext, file: string): Step {
  return (request: RecordedRequest) => {
    const mode = (statSync(join(context.work, file)).mode & 0o777).toString(8);
    const said = lastResultTexts(request).join(" | ");
    return { content: [{ type: "text", text: `The tools said: ${said} | mode ${mode}` }] };
  };
}

const POSIX: NodeJS.Platform[] = ["linux", "darwin", "freebsd", "openbsd"];

// The core scenario write-eof-text judges again, on the same run.
const writeEof = writeScenario({
  id: "write-eof",
  title: "file_write with stdin already at its end: that is a no, nothing is written",
  level: "core",
  stdin: "",
  steps: turns(WRITE_NEW),
  // Whether the run goes on after that no is write-eof-goes-on: Typer's `confirm`, in the
  // Python course, ends the run at the end of input with `Aborted.` and exit 1.
  judgements: [
    offered(READER, "file_write"),
    absent(READER, "work/new.txt", "the end of input is a no"),
  ],
});

export const day4v1: Contract = {
  stage: "day-4-v1",
  title: "Day 4 v1: file_write, a diff and a y/N question",
  base: "day-3-v4",
  scenarios: [
    writeScenario({
      id: "write-new-yes",
      title: "file_write of a new file, answered y: the file has the content",
      level: "core",
      stdin: YES,
      // Seeded: new.txt holding `hello` on the pages, a drawn name and word at another seed.
      steps: (context) => {
        const { name, text } = seededNewFile(context);
        return turns(["file_write", { file_path: name, content: text }]);
      },
      judgements: [
        offered(V1, "file_write"),
        exitCode(V1, 0, "a finished run exits 0"),
        judge(V1, "a yes writes: the new file should hold the content the model sent", (o) => {
          const { name, text } = seededNewFile(o.context);
          return fileText(o, `work/${name}`) === text;
        }),
      ],
    }),
    writeScenario({
      id: "write-new-no",
      title: "file_write of a new file, answered n: no file, and the run goes on",
      level: "core",
      stdin: "n\n",
      steps: turns(WRITE_NEW),
      judgements: [
        offered(V1, "file_write"),
        absent(V1, "work/new.txt", "a no writes nothing"),
        ...wentOn(V1),
      ],
    }),
    writeEof,
    writeScenario({
      id: "write-unread-existing",
      title: "file_write over a file the run never read: refused, the file unchanged",
      level: "core",
      stdin: YES,
      steps: turns(["file_write", { file_path: "a.txt", content: "overwritten\n" }]),
      judgements: [
        offered(INTENT, "file_write"),
        hasText(INTENT, "work/a.txt", "alpha\n", "an existing file must be read first"),
        ...wentOn(INTENT),
      ],
    }),
    writeScenario({
      id: "write-after-read-yes",
      title: "read_file a.txt, then file_write a.txt, answered y: the new content is there",
      level: "core",
      stdin: YES,
      steps: turns(READ_A, ["file_write", { file_path: "a.txt", content: "alpha\nbeta\n" }]),
      judgements: [
        offered(V1, "file_write"),
        hasText(V1, "work/a.txt", "alpha\nbeta\n", "a file read in this run may be replaced"),
      ],
    }),
    writeScenario({
      id: "write-changed-since-read",
      title: "a.txt changes after the model read it: file_write is refused, the new text kept",
      level: "core",
      stdin: YES,
      steps: (context) =>
        turns(
          READ_A,
          changedMeanwhile(
            context,
            turn(["file_write", { file_path: "a.txt", content: "the model's text\n" }]),
          ),
        ),
      judgements: [
        offered(INTENT, "file_write"),
        hasText(INTENT, "work/a.txt", "changed meanwhile\n", "the other writer's text is kept"),
        ...wentOn(INTENT),
      ],
    }),
    writeScenario({
      id: "write-escape",
      title: "file_write to ../secret.txt and ../planted.txt, answered y: nothing outside changes",
      level: "core",
      stdin: "y\ny\n",
      steps: [
        turn(
          ["file_write", { file_path: "../secret.txt", content: "overwritten\n" }],
          ["file_write", { file_path: "../planted.txt", content: "planted\n" }],
        ),
        answerWithResults,
      ],
      judgements: [offered(V1, "file_write"), nothingOutside(V1), ...wentOn(V1)],
    }),
    writeScenario({
      id: "write-escape-symlink",
      title: "file_write through a symlinked file and a symlinked folder that lead out: refused",
      level: "core",
      platforms: POSIX,
      stdin: "y\ny\n",
      files: { "work/link.txt": { symlink: "../secret.txt" }, "work/up": { symlink: ".." } },
      steps: [
        turn(
          ["file_write", { file_path: "link.txt", content: "overwritten\n" }],
          ["file_write", { file_path: "up/planted.txt", content: "planted\n" }],
        ),
        answerWithResults,
      ],
      judgements: [offered(V1, "file_write"), nothingOutside(V1), ...wentOn(V1)],
    }),
    writeScenario({
      id: "write-diff-shown",
      title: "the diff and the question come between the tool_call and its observation",
      level: "conformance",
      stdin: YES,
      steps: turns(WRITE_NEW),
      judgements: [
        judge(
          V1,
          "expected `tool_call: file_write`, `Diff for new.txt:`, `+hello`, `Apply this change to new.txt? [y/N]` and `observation:` in that order",
          (o) =>
            linesInOrder(
              o,
              "tool_call: file_write",
              "Diff for new.txt:",
              "--- /dev/null",
              "+++ b/new.txt",
              "+hello",
              "Apply this change to new.txt? [y/N]",
              "observation: ",
            ),
        ),
      ],
    }),
    writeScenario({
      id: "write-answer-echoed",
      title: "with stdin not a terminal, the answer read is printed after the question",
      level: "conformance",
      stdin: YES,
      steps: turns(WRITE_NEW),
      judgements: [
        judge(READER, "expected the line `Apply this change to new.txt? [y/N] y`", (o) =>
          o.stdoutLines.includes("Apply this change to new.txt? [y/N] y"),
        ),
      ],
    }),
    writeScenario({
      id: "write-yes-text",
      title: "a written file's result: `Wrote 6 chars to new.txt`",
      level: "conformance",
      stdin: YES,
      steps: turns(WRITE_NEW),
      judgements: resultIs(V1, "file_write", "Wrote 6 chars to new.txt", false),
    }),
    writeScenario({
      id: "write-no-text",
      title: "a rejected change's result says so, with is_error",
      level: "conformance",
      stdin: "n\n",
      steps: turns(WRITE_NEW),
      judgements: resultIs(
        V1,
        "file_write",
        "the user rejected this change; new.txt was not changed",
        true,
      ),
    }),
    fileTwin(writeEof, {
      id: "write-eof-text",
      title: "at the end of input the question is answered no, and the line is ended",
      judgements: [
        ...resultIs(
          READER,
          "file_write",
          "the user rejected this change; new.txt was not changed",
          true,
        ),
        judge(READER, "expected the question on a line of its own, then the observation", (o) =>
          linesInOrder(o, /^Apply this change to new\.txt\? \[y\/N\] ?$/, "observation: "),
        ),
      ],
    }),
    writeScenario({
      id: "write-eof-goes-on",
      title: "after the end of input's no, the result goes back and the run goes on",
      level: "conformance",
      stdin: "",
      steps: turns(WRITE_NEW),
      judgements: [
        judge(
          READER,
          "the file_write result should go back to the model",
          (o) => resultOf(o, "file_write") !== undefined,
        ),
        ...wentOn(READER),
      ],
    }),
    writeScenario({
      id: "write-no-prompt-on-refusal",
      title: "a file never read: the refusal comes with no diff and no question",
      level: "conformance",
      stdin: YES,
      steps: turns(["file_write", { file_path: "a.txt", content: "overwritten\n" }]),
      judgements: [
        askedNothing(INTENT),
        ...resultIs(
          INTENT,
          "file_write",
          "file has not been read yet: a.txt (read it with read_file first)",
          true,
        ),
      ],
    }),
    writeScenario({
      id: "write-changed-text",
      title: "a file changed since the read: refused with its text and no question",
      level: "conformance",
      stdin: YES,
      steps: (context) =>
        turns(
          READ_A,
          changedMeanwhile(
            context,
            turn(["file_write", { file_path: "a.txt", content: "the model's text\n" }]),
          ),
        ),
      judgements: [
        askedNothing(INTENT),
        ...resultIs(
          INTENT,
          "file_write",
          "file changed since it was read: a.txt (read it again first)",
          true,
        ),
      ],
    }),
    writeScenario({
      id: "write-same-content",
      title: "file_write of what the file already holds: nothing written, nothing asked",
      level: "conformance",
      stdin: YES,
      steps: turns(READ_A, ["file_write", { file_path: "a.txt", content: "alpha\n" }]),
      judgements: [
        askedNothing(V1),
        ...resultIs(V1, "file_write", "a.txt already has this content; nothing written", false),
      ],
    }),
    writeScenario({
      id: "write-creates-folders",
      title: "file_write to deep/er/new.txt makes the missing folders",
      level: "conformance",
      stdin: YES,
      steps: turns(["file_write", { file_path: "deep/er/new.txt", content: "hello\n" }]),
      judgements: [hasText(ATOMIC, "work/deep/er/new.txt", "hello\n", "missing folders are made")],
    }),
    writeScenario({
      id: "write-mode-kept",
      title: "an executable script stays executable after file_write",
      level: "conformance",
      platforms: POSIX,
      stdin: YES,
      files: { "work/run.sh": "echo hi\n" },
      steps: (context) => [
        () => {
          chmodSync(join(context.work, "run.sh"), 0o755);
          return turn(["read_file", { path: "run.sh" }]);
        },
        turn(["file_write", { file_path: "run.sh", content: "echo bye\n" }]),
        answerWithMode(context, "run.sh"),
      ],
      judgements: [
        hasText(ATOMIC, "work/run.sh", "echo bye\n", "the script was replaced"),
        judge(ATOMIC, "the file's mode should still be 755", (o) =>
          (finalText(o) ?? "").endsWith("| mode 755"),
        ),
        judge(ATOMIC, "no temporary file should be left behind", (o) =>
          Object.keys(o.files).every((path) => !path.endsWith(".tmp")),
        ),
      ],
    }),
    writeScenario({
      id: "write-diff-plain-in-a-pipe",
      title: "no colour in a pipe, and control characters in new text cannot redraw the screen",
      level: "conformance",
      stdin: YES,
      steps: turns(["file_write", { file_path: "new.txt", content: "ok\r\u001b[2Khidden\n" }]),
      judgements: [
        judge(
          V1,
          "stdout should hold no escape character (colour or the text's own)",
          (o) => !o.stdout.includes("\u001b"),
        ),
        judge(V1, "the diff line should show the control characters as U+FFFD", (o) =>
          o.stdoutLines.includes("+ok\ufffd\ufffd[2Khidden"),
        ),
      ],
    }),
    writeScenario({
      id: "write-repl-answers-in-order",
      title: "in the REPL, piped lines are used in order: a prompt, its answer, /exit",
      level: "conformance",
      repl: true,
      stdin: "Write new.txt\ny\n/exit\n",
      steps: turns(WRITE_NEW),
      judgements: [
        hasText(READER, "work/new.txt", "hello\n", "the y after the prompt answers the question"),
        judge(
          READER,
          "expected the question with its answer, the observation, the final answer and `Bye.` in that order",
          (o) =>
            linesInOrder(
              o,
              "tool_call: file_write",
              "Apply this change to new.txt? [y/N] y",
              "observation: Wrote 6 chars to new.txt",
              "final: ",
              "Bye.",
            ),
        ),
        exitCode(READER, 0, "/exit ends the REPL with 0"),
      ],
    }),
    // Judged on Day 2's unknown-tool run, which this stage keeps: the tools offered are this stage's.
    fileTwin(scenarioOf(day3v4, "unknown-tool"), {
      id: "unknown-tool-text",
      title: "the unknown-tool text names the tools there are, file_write too",
      judgements: [namesEveryToolOffered(V1, "file_write")],
    }),
    // Day 3 v4's scenarios, but the unknown-tool text, which names this stage's longer list.
    ...day3v4.scenarios.filter((scenario) => scenario.id !== "unknown-tool-text"),
  ],
};

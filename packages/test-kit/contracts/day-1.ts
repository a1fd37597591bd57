// Day 1: the CLI, the mock echo model, one tool round, the REPL (DESIGN.md §3.0, §3.1).
import type { Contract } from "../src/contract.ts";
import {
  exitCode,
  finalText,
  judge,
  nonZeroExit,
  observations,
  oneErrorLine,
  replToolArguments,
  sameJson,
  toolCalls,
} from "../src/judgements.ts";
import { drawWord, type Seeded } from "../src/vary.ts";

const CLI = "docs/day-1.md#v1-an-echo-cli";
const MOCK = "docs/day-1.md#v2-a-mock-model";
const LOOP = "docs/day-1.md#v3-tools-and-the-loop";
const REPL = "docs/day-1.md#the-repl-and-the-working-directory";

// Lines every mock of the course material echoes as they are.
const REPL_LINES = "one\ntwo\n";

// The one-word prompt of echo-round-trip: `hi`, or a word drawn from the run's seed.
function greeting(context: Seeded): string {
  return drawWord(context, "day-1/greeting", "hi");
}

export const day1: Contract = {
  stage: "day-1",
  title: "Day 1: mock echo loop",
  scenarios: [
    {
      id: "echo-round-trip",
      title: "one prompt runs one echo tool round",
      level: "core",
      // A prompt with nothing to strip: every mock of the course material echoes it as it is.
      // Seeded: `hi` on the pages, another word at another seed.
      args: (context) => [greeting(context)],
      judgements: [
        exitCode(LOOP, 0, "a finished run exits 0"),
        judge(
          LOOP,
          "expected exactly one `tool_call: echo` line whose text is the prompt",
          (o) =>
            toolCalls(o).length === 1 &&
            toolCalls(o)[0]?.name === "echo" &&
            sameJson(toolCalls(o)[0]?.arguments, { text: greeting(o.context) }),
        ),
        judge(LOOP, "expected `observation: <the prompt>` after the tool call", (o) =>
          sameJson(observations(o), [greeting(o.context)]),
        ),
        judge(LOOP, "the last trace line should be `final: …` and mention the prompt", (o) =>
          (finalText(o) ?? "").includes(greeting(o.context)),
        ),
      ],
    },
    {
      id: "exact-output",
      title: "the header and the trace, line by line",
      level: "conformance",
      args: ["echo hi using the echo tool"],
      judgements: [
        judge(
          CLI,
          "stdout should be exactly: Agent Code / cwd: <dir> / (blank) / the three trace lines",
          (o) =>
            o.stdoutLines[0] === "Agent Code" &&
            o.stdoutLines[1]?.startsWith("cwd: ") === true &&
            sameJson(o.stdoutLines.slice(2), [
              "",
              'tool_call: echo {"text":"hi"}',
              "observation: hi",
              "final: echo tool returned: hi",
            ]),
        ),
        judge(CLI, "nothing should be written to stderr on a good run", (o) => o.stderr === ""),
      ],
    },
    {
      id: "prompt-reduction-echo",
      title: "the mock drops a leading `echo ` and a trailing `using the echo tool`",
      level: "conformance",
      args: ["echo hi using the echo tool"],
      judgements: [
        judge(MOCK, 'expected `tool_call: echo {"text":"hi"}` for this prompt', (o) =>
          sameJson(toolCalls(o)[0]?.arguments, { text: "hi" }),
        ),
      ],
    },
    {
      id: "prompt-reduction",
      title: "the mock echoes the prompt itself when there is nothing to strip",
      level: "conformance",
      args: ["Hello there!"],
      judgements: [
        judge(MOCK, 'expected `tool_call: echo {"text":"Hello there"}`', (o) =>
          sameJson(toolCalls(o)[0]?.arguments, { text: "Hello there" }),
        ),
        judge(
          MOCK,
          "expected `final: echo tool returned: Hello there`",
          (o) => finalText(o) === "echo tool returned: Hello there",
        ),
      ],
    },
    {
      id: "cwd-option",
      title: "--cwd is shown resolved in the header",
      level: "core",
      args: (context) => ["--cwd", context.dir, "hi"],
      judgements: [
        exitCode(REPL, 0, "a finished run exits 0"),
        judge(REPL, "the header should show `cwd: <the directory given to --cwd>`", (o) =>
          o.stdoutLines.includes(`cwd: ${o.context.dir}`),
        ),
      ],
    },
    {
      id: "repl-runs-each-line",
      title: "with no prompt, each line of input is a fresh run",
      level: "core",
      args: [],
      stdin: REPL_LINES,
      judgements: [
        judge(REPL, "expected one echo tool call per input line, `one` then `two`", (o) =>
          sameJson(replToolArguments(o), [{ text: "one" }, { text: "two" }]),
        ),
      ],
    },
    // How the REPL ends and what it prints around the runs is this course's (DESIGN.md §3.0): the
    // Python course prompts with Typer, which prints `>: ` and ends on `Aborted.` with exit 1.
    {
      id: "repl-runs-each-line-text",
      title: "the REPL prints the header once and no prompt, and end of input exits 0",
      level: "conformance",
      args: [],
      stdin: REPL_LINES,
      judgements: [
        exitCode(REPL, 0, "end of input ends the REPL normally"),
        judge(
          REPL,
          "the header should be printed once, not per line",
          (o) => o.stdoutLines.filter((line) => line.endsWith("Agent Code")).length === 1,
        ),
        judge(REPL, "piped input must not print a `>` prompt", (o) =>
          o.stdoutLines.every((line) => !line.startsWith(">")),
        ),
      ],
    },
    {
      id: "repl-help-exit",
      title: "REPL /help and /exit",
      level: "conformance",
      args: [],
      stdin: "/help\n/exit\necho never\n",
      judgements: [
        exitCode(REPL, 0, "/exit ends the REPL normally"),
        judge(REPL, "/help should print `commands: /help, /exit`", (o) =>
          o.stdoutLines.includes("commands: /help, /exit"),
        ),
        judge(
          REPL,
          "/exit should print `Bye.` and stop reading input",
          (o) => o.stdoutLines.at(-1) === "Bye." && replToolArguments(o).length === 0,
        ),
        judge(REPL, "piped input must not print the `> ` prompt", (o) =>
          o.stdoutLines.every((line) => !line.startsWith("> ")),
        ),
      ],
    },
    {
      id: "repl-end-of-input",
      title: "REPL end of input exits 0 silently",
      level: "conformance",
      args: [],
      stdin: "",
      judgements: [
        exitCode(REPL, 0, "end of input ends the REPL normally"),
        judge(
          REPL,
          "only the header should be printed, ending in its blank line",
          (o) =>
            o.stdoutLines[0] === "Agent Code" &&
            o.stdoutLines.at(-1) === "" &&
            o.trace.length === 0,
        ),
        judge(REPL, "nothing should be written to stderr", (o) => o.stderr === ""),
      ],
    },
    {
      id: "repl-unknown-command",
      title: "REPL unknown /command is reported and the REPL goes on",
      level: "conformance",
      args: [],
      stdin: "/nope\n\necho after\n",
      judgements: [
        exitCode(REPL, 0, "the REPL ends normally at end of input"),
        judge(REPL, "stderr should say `unknown command: /nope (try /help)`", (o) =>
          o.stderr.split("\n").includes("unknown command: /nope (try /help)"),
        ),
        judge(REPL, "the REPL should go on after an unknown command (and skip empty lines)", (o) =>
          sameJson(replToolArguments(o), [{ text: "after" }]),
        ),
      ],
    },
    {
      id: "bad-cwd-fails",
      title: "a --cwd that does not exist fails without running",
      level: "conformance",
      args: (context) => ["--cwd", `${context.dir}/missing`, "echo hi"],
      judgements: [
        nonZeroExit(REPL, "the run could not start"),
        judge(REPL, "nothing should run when --cwd is wrong", (o) => o.trace.length === 0),
      ],
    },
    {
      id: "usage-cwd-missing",
      title: "usage error: --cwd does not exist",
      level: "conformance",
      args: (context) => ["--cwd", `${context.dir}/missing`, "echo hi"],
      judgements: [exitCode(REPL, 2, "a usage error"), oneErrorLine(REPL)],
    },
    {
      id: "usage-cwd-file",
      title: "usage error: --cwd is a file",
      level: "conformance",
      args: (context) => ["--cwd", context.file, "echo hi"],
      judgements: [exitCode(REPL, 2, "a usage error"), oneErrorLine(REPL)],
    },
    {
      id: "usage-unknown-option",
      title: "usage error: an unknown option",
      level: "conformance",
      args: ["--no-such-option", "echo hi"],
      judgements: [exitCode(CLI, 2, "a usage error"), oneErrorLine(CLI)],
    },
    {
      id: "usage-missing-value",
      title: "usage error: an option without its value",
      level: "conformance",
      args: ["echo hi", "--cwd"],
      judgements: [exitCode(CLI, 2, "a usage error"), oneErrorLine(CLI)],
    },
  ],
};

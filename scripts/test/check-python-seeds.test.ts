// A Python project that follows the course texts literally where they differ from these stages
// (docs/decisions/0018-core-judgements.md): argument names checked but not types, `Stopped: …` for
// every stop reason but end_turn and tool_use, its own error, usage and REPL texts, uncaught
// exceptions, dict reprs and x-api-key. Correct by that material, it must pass every core scenario
// of each stage it implements; each broken variant must fail the scenario aimed at it. The same
// program, edited where the Python course's published code differs (PUBLISHED), is a third project:
// it fails only the four scenarios whose lesson this course teaches (docs/python-learners.md).
//
// The Python fixtures run what only they can show. Each contract scenario runs once on a Python
// program: the program of the stage that adds it, that is, the stage whose base's contract does
// not hold it (addedIds below). An inherited scenario is not run again on a later stage's program:
// the TypeScript stages' own tests already run every stage's whole contract, and each stage's
// Python program is the one before with that stage's part added, so a second run shows little and
// costs minutes. day-1 and day-2-v1 add their whole contracts (day-2-v1 keeps none of day-1's), so
// their checks run whole and still name the stage passed; every later stage runs with `--only`
// for each id it adds. The one exception is day-7-v4: Day 7 v2 to v4 add no core scenario but
// change what every tool call (hooks) and every REPL line (an input thread) passes through, so
// day-7-v4's program also runs each core scenario it carries, once (about 20 s). What stays
// pinned is each deviation: a stage's conformance notes (those among the scenarios run), the core
// scenarios a stage's course text fails on purpose (Day 6's), the published project's misses, and
// each broken variant's failure.
import { findContract } from "@agent-code/test-kit";
import { describe, expect, test } from "vitest";
import {
  failIds,
  HAS_PYTHON,
  noteIds,
  pythonProjects,
  WHOLE_CONTRACT_MS,
} from "./python-project.ts";

const AGENT_CODE = String.raw`# agent-code, read literally from the course texts, standard library only. STAGE says how far
# the project has come; each stage adds to the one before.
import argparse
import inspect
import json
import os
import re
import sys
import urllib.request
from datetime import datetime

STAGE = "day-2-v3"
LEVEL = ["day-1", "day-2-v1", "day-2-v2", "day-2-v3"].index(STAGE)


def echo(text):
    return text


def system_date():
    return datetime.now().astimezone().strftime("%Y-%m-%d %H:%M:%S %Z")


TOOLS = {
    "echo": (echo, "Repeat the given text back.",
             {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
    "system_date": (system_date, "The local date, time and time zone.",
                    {"type": "object", "properties": {}, "required": []}),
}


def run_tool(name, args):
    # The model's mistakes are caught before the tool runs; names are checked, types are not.
    if name not in TOOLS:
        return f"unknown tool {name}", True
    function = TOOLS[name][0]
    try:
        inspect.signature(function).bind(**args)
    except TypeError as exc:
        return f"bad arguments for {name}: {exc}", True
    return str(function(**args)), False


def mock(messages, tools):
    last = messages[-1]["content"]
    if isinstance(last, list):
        result = next(block["content"] for block in last if block["type"] == "tool_result")
        return {"content": [{"type": "text", "text": f"echo tool returned: {result}"}],
                "stop_reason": "end_turn"}
    text = re.sub(r"^echo\s+", "", last, flags=re.I)
    text = re.sub(r"\s+(using|with) the echo tool$", "", text, flags=re.I)
    text = re.sub(r"[.!?]+$", "", text).strip() or last
    call = {"type": "tool_use", "id": "call_echo_1", "name": "echo", "input": {"text": text}}
    return {"content": [call], "stop_reason": "tool_use"}


def anthropic(model, base_url):
    key = os.environ.get("ANTHROPIC_AUTH_TOKEN") or os.environ.get("ANTHROPIC_API_KEY")
    if not key:
        raise RuntimeError("Set ANTHROPIC_AUTH_TOKEN, e.g.: export ANTHROPIC_AUTH_TOKEN='sk-...'")
    base_url = base_url or os.environ.get("ANTHROPIC_BASE_URL", "https://api.deepseek.com/anthropic")

    def complete(messages, tools):
        body = {"model": model, "max_tokens": 1024, "messages": messages}
        if tools:
            body["tools"] = [{"name": name, "description": description, "input_schema": schema}
                             for name, (_, description, schema) in tools.items()]
        request = urllib.request.Request(
            base_url.rstrip("/") + "/v1/messages", data=json.dumps(body).encode(),
            headers={"content-type": "application/json", "x-api-key": key,
                     "anthropic-version": "2023-06-01"})
        # No retries and no handling: an HTTP error is an uncaught exception, as the SDK's are.
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.load(response)

    return complete


def create_provider(name, model, base_url):
    if name == "anthropic":
        return anthropic(model, base_url)
    if name == "mock":
        return mock
    raise ValueError(f"unknown provider: {name}")


def run_agent(prompt, complete, max_steps):
    tools = TOOLS if LEVEL >= 2 else None
    messages = [{"role": "user", "content": prompt}]
    for _ in range(max_steps):
        reply = complete(messages, tools)
        messages.append({"role": "assistant", "content": reply["content"]})
        stop = reply["stop_reason"]
        if stop == "end_turn":
            texts = [block["text"] for block in reply["content"] if block["type"] == "text"]
            print("final: " + "".join(texts))
            return
        if stop != "tool_use":
            print(f"final: Stopped: stop_reason={stop}")
            return
        results = []
        for block in reply["content"]:
            if block["type"] == "tool_use":
                print(f"tool_call: {block['name']} {block['input']}")
                content, is_error = run_tool(block["name"], block["input"])
                print(f"observation: {content}")
                results.append({"type": "tool_result", "tool_use_id": block["id"],
                                "content": content, "is_error": is_error})
        messages.append({"role": "user", "content": results})
    print(f"final: Stopped: step budget of {max_steps} used up.")


def header(options):
    print("Agent Code")
    print(f"cwd: {os.path.abspath(options.cwd)}")
    if LEVEL >= 3:
        print(f"provider: {options.provider}  model: {options.model}")
        if options.base_url:
            print(f"base URL: {options.base_url}")
    print()


def repl(complete, options):
    for line in sys.stdin:
        line = line.strip()
        if line in ("/exit", "/quit"):
            return
        if line == "/help":
            print("Commands: /help, /exit, /quit")
        elif line.startswith("/"):
            print(f"Unknown command {line}. Type /help.")
        elif line:
            run_agent(line, complete, options.max_steps)


def main():
    parser = argparse.ArgumentParser(prog="agent-code")
    parser.add_argument("prompt", nargs="?", default="")
    parser.add_argument("--cwd", "-C", default=os.getcwd())
    parser.add_argument("--provider", default="mock" if LEVEL == 0 else "anthropic")
    parser.add_argument("--model", default="deepseek-v4-flash")
    parser.add_argument("--base-url")
    parser.add_argument("--max-steps", type=int, default=8 if LEVEL >= 3 else 2)
    options = parser.parse_args()
    complete = create_provider(options.provider, options.model, options.base_url)
    header(options)
    if options.prompt:
        run_agent(options.prompt, complete, options.max_steps)
    else:
        repl(complete, options)


main()
`;

const { write, check } = pythonProjects("check-python-seeds-");

function atStage(stage: string, name = stage, edits: [string, string][] = []): string {
  return write(name.replaceAll("-", "_"), AGENT_CODE, [
    ['STAGE = "day-2-v3"', `STAGE = "${stage}"`],
    ...edits,
  ]);
}

// The scenarios a stage adds to its base's contract, in contract order. A scenario redefined under
// the same id (each new tool's `unknown-tool-text`) counts as added, and so does one the base
// dropped and this stage brings back (day-2-v3's REPL and key scenarios, which day-2-v2 lacks).
function addedIds(stage: string): string[] {
  const contract = findContract(stage);
  const base = findContract(contract?.base ?? "");
  const inherited = new Set(base?.scenarios ?? []);
  return (contract?.scenarios ?? []).filter((s) => !inherited.has(s)).map((s) => s.id);
}

// The last line of a check that `--only` narrowed to `count` scenarios.
function notAFullCheck(count: number): string {
  const scenarios = count === 1 ? "scenario" : "scenarios";
  return `not a full check (--only: ${count} ${scenarios} run): no highest stage`;
}

// Checks the scenarios `stage` adds on `command`: each passes or is one of `notes`, in the order
// check.ts prints them (the contract's). The other notes, inherited, were shown at the stage that
// added them; each must still name a scenario of this stage, so that the list cannot go stale.
// `misses` are the core scenarios the course text fails on purpose, each said where it is pinned.
// `carried` are inherited scenarios run with them (coreIdsCarried). Returns the run, for a test
// that asks why a miss failed.
async function passesWhatItAdds(
  stage: string,
  command: string,
  notes: readonly string[],
  misses: readonly string[] = [],
  carried: readonly string[] = [],
) {
  const ids = findContract(stage)?.scenarios.map((s) => s.id);
  expect(ids).toEqual(expect.arrayContaining([...notes, ...carried]));
  const runIds = [...addedIds(stage), ...carried];
  expect(runIds).toEqual(expect.arrayContaining([...misses]));
  const run = await check([stage, "--cmd", command, ...runIds.flatMap((id) => ["--only", id])]);
  if (misses.length === 0) expect(run.stdout).not.toMatch(/^FAIL/m);
  expect(failIds(run.stdoutLines)).toEqual(misses);
  expect(run.exitCode).toBe(misses.length === 0 ? 0 : 1);
  expect(noteIds(run.stdoutLines)).toEqual(notes.filter((id) => runIds.includes(id)));
  expect(run.stdoutLines.at(-1)).toBe(notAFullCheck(runIds.length));
  return run;
}

// The core scenarios `stage` inherits from its base, in contract order. A stage that adds no core
// scenario of its own but changes the code every run passes through runs these once, on the last
// program of its day (Day 7's hooks and its REPL's loop).
function coreIdsCarried(stage: string): string[] {
  const added = new Set(addedIds(stage));
  return (findContract(stage)?.scenarios ?? [])
    .filter((s) => s.level === "core" && !added.has(s.id))
    .map((s) => s.id);
}

// Its error texts for answers that are not the API and for Ctrl-C are its own: notes in every
// Day 2 stage.
const NOT_THE_API_AND_CTRL_C = [
  "answer-html-page-text",
  "answer-not-a-message-text",
  "answer-string-content-text",
  "answer-cut-json-text",
  "answer-cut-connection-text",
  "answer-event-stream-text",
  "answer-text-plain-text",
  "answer-404-page-text",
  "ctrl-c-text",
];

// The notes each stage gives: texts, knobs and readings of this repository, none of the lesson.
const NOTES: Record<string, string[]> = {
  "day-1": [
    "exact-output",
    "repl-help-exit",
    "repl-unknown-command",
    "bad-cwd-fails",
    "usage-cwd-missing",
    "usage-cwd-file",
    "usage-unknown-option",
    "usage-missing-value",
  ],
  "day-2-v1": [
    "missing-key-text",
    "auth-failure-text",
    "retry-overloaded",
    "connection-refused",
    "timeout",
    ...NOT_THE_API_AND_CTRL_C,
  ],
  "day-2-v2": ["unknown-tool-text", "tool-input-not-object-text", ...NOT_THE_API_AND_CTRL_C],
  "day-2-v3": [
    "max-steps-text",
    "stop-max_tokens-text",
    "stop-refusal-text",
    "stop-sequence-text",
    "bad-arguments-missing-text",
    "bad-arguments-wrong-type",
    "bad-arguments-wrong-type-text",
    "bad-arguments-unexpected-text",
    "header",
    "api-400-text",
    "server-error-exhausted",
    "usage-provider",
    "usage-max-steps-zero",
    "usage-max-steps-negative",
    "usage-max-steps-fraction",
    "usage-max-steps-text",
    "unknown-tool-text",
    "tool-input-not-object-text",
    "repl-help-exit",
    "repl-unknown-command",
    "missing-key-text",
    "auth-failure-text",
    "retry-overloaded",
    "connection-refused",
    "timeout",
    ...NOT_THE_API_AND_CTRL_C,
  ],
};

// Each tool result in a user message of its own, as seed 000's v3 and the published course do.
const ONE_MESSAGE_PER_RESULT: [string, string][] = [
  [
    'results.append({"type": "tool_result"',
    'messages.append({"role": "user", "content": [{"type": "tool_result"',
  ],
  ['"content": content, "is_error": is_error})', '"content": content, "is_error": is_error}]})'],
  ['messages.append({"role": "user", "content": results})', "pass"],
];

// Each a way to break the lesson, with the scenario that must catch it and the reason it gives.
const BROKEN: { name: string; edits: [string, string][]; scenario: string; message: string }[] = [
  {
    name: "no-name-check",
    edits: [["inspect.signature(function).bind(**args)", "pass"]],
    scenario: "bad-arguments-missing",
    message: "exit code should be 0 (a model's mistake is not a failed run)",
  },
  {
    name: "tools-on-any-stop",
    edits: [
      ['if stop != "tool_use":', "if not any(b['type'] == 'tool_use' for b in reply['content']):"],
    ],
    scenario: "stop-max_tokens",
    message: "no tool may run after stop_reason max_tokens (no tool_call or observation line)",
  },
  {
    name: "goes-on-after-stop-sequence",
    edits: [['if stop != "tool_use":', 'if stop not in ("tool_use", "stop_sequence"):']],
    scenario: "stop-sequence",
    message: "expected exactly one request: the run must stop there",
  },
  {
    name: "one-message-per-result",
    edits: ONE_MESSAGE_PER_RESULT,
    scenario: "parallel-tool-calls",
    message:
      "both tool_result blocks should sit in one user message right after the assistant turn",
  },
  {
    name: "no-step-budget",
    edits: [["for _ in range(max_steps):", "while True:"]],
    scenario: "max-steps",
    message: "expected exactly 2 requests with --max-steps 2",
  },
  {
    name: "key-in-the-error",
    edits: [["# No retries", "print(key, file=sys.stderr)  # No retries"]],
    scenario: "auth-failure",
    message: "the key must never be printed, not even in an error",
  },
  {
    name: "reads-only-the-first-line",
    edits: [
      [
        "            run_agent(line, complete, options.max_steps)",
        "            return run_agent(line, complete, options.max_steps)",
      ],
    ],
    scenario: "repl-runs-each-line",
    message: "expected one echo tool call per input line, `one` then `two`",
  },
  {
    name: "trusts-the-input",
    edits: [
      [
        '    try:\n        inspect.signature(function).bind(**args)\n    except TypeError as exc:\n        return f"bad arguments for {name}: {exc}", True\n',
        "",
      ],
    ],
    scenario: "tool-input-not-object-answered",
    message:
      "the call's tool_result, with its id, should go back in the next user message: an input that is not an object must not stop the run",
  },
  {
    name: "mock-needs-a-key",
    edits: [['    if name == "mock":\n        return mock\n', ""]],
    scenario: "mock-offline",
    message: "exit code should be 0 (the mock needs nothing)",
  },
];

// Where the Python course's published Day 1 and Day 2 code (origin-course.md; issue #26) reads the
// course material otherwise than the seeds: its mock strips only its own Chinese phrase; Typer's
// prompt prints `>: ` before the output and ends the REPL on `Aborted.` with exit 1; each REPL line
// prints the header again; an input that is not an object becomes {} and the tool runs; no argument
// is checked; the loop ends only when no tool is called; each result goes in a message of its own.
const PUBLISHED: [string, string][] = [
  ["def echo(text):", 'def echo(text="", **_):'],
  ["def system_date():", "def system_date(**_):"],
  [
    '    try:\n        inspect.signature(function).bind(**args)\n    except TypeError as exc:\n        return f"bad arguments for {name}: {exc}", True\n',
    "",
  ],
  [
    '    text = re.sub(r"^echo\\s+", "", last, flags=re.I)\n' +
      '    text = re.sub(r"\\s+(using|with) the echo tool$", "", text, flags=re.I)\n' +
      '    text = re.sub(r"[.!?]+$", "", text).strip() or last\n',
    '    text = last.replace("用 echo 工具说", "").strip() or last\n',
  ],
  [
    '        if stop == "end_turn":',
    '        if not any(block["type"] == "tool_use" for block in reply["content"]):',
  ],
  [
    '        if stop != "tool_use":\n            print(f"final: Stopped: stop_reason={stop}")\n            return\n',
    "",
  ],
  [
    "                print(f\"tool_call: {block['name']} {block['input']}\")\n" +
      '                content, is_error = run_tool(block["name"], block["input"])',
    '                args = block["input"] if isinstance(block["input"], dict) else {}\n' +
      "                print(f\"tool_call: {block['name']} {args}\")\n" +
      '                content, is_error = run_tool(block["name"], args)',
  ],
  ...ONE_MESSAGE_PER_RESULT,
  [
    'print(f"final: Stopped: step budget of {max_steps} used up.")',
    'print(f"final: reached max_steps={max_steps}")',
  ],
  [
    "    for line in sys.stdin:\n        line = line.strip()\n",
    "    while True:\n" +
      '        print(">: ", end="", flush=True)\n' +
      "        line = sys.stdin.readline()\n" +
      "        if not line:\n" +
      '            print("Aborted.", file=sys.stderr)\n' +
      "            sys.exit(1)\n" +
      "        line = line.strip()\n",
  ],
  [
    "            run_agent(line, complete, options.max_steps)",
    "            header(options)\n            run_agent(line, complete, options.max_steps)",
  ],
];

// Its notes: the seeds fixture's, less `max-steps-text` and `stop-sequence-text` (it prints
// `reached max_steps=N`, and the text of a reply without tool calls), plus the published course's
// readings: the mock's reduction, Typer's REPL, and {} for an input that is not an object.
const PUBLISHED_NOTES: Record<string, string[]> = {
  "day-1": [
    "exact-output",
    "prompt-reduction-echo",
    "prompt-reduction",
    "repl-runs-each-line-text",
    "repl-help-exit",
    "repl-end-of-input",
    "repl-unknown-command",
    "bad-cwd-fails",
    "usage-cwd-missing",
    "usage-cwd-file",
    "usage-unknown-option",
    "usage-missing-value",
  ],
  "day-2-v3": [
    "stop-max_tokens-text",
    "stop-refusal-text",
    "bad-arguments-missing-text",
    "bad-arguments-wrong-type",
    "bad-arguments-wrong-type-text",
    "bad-arguments-unexpected-text",
    "mock-offline-reduction",
    "header",
    "api-400-text",
    "server-error-exhausted",
    "usage-provider",
    "usage-max-steps-zero",
    "usage-max-steps-negative",
    "usage-max-steps-fraction",
    "usage-max-steps-text",
    "unknown-tool-text",
    "tool-input-not-object",
    "tool-input-not-object-text",
    "repl-runs-each-line-text",
    "repl-help-exit",
    "repl-end-of-input",
    "repl-unknown-command",
    "missing-key-text",
    "auth-failure-text",
    "retry-overloaded",
    "connection-refused",
    "timeout",
    ...NOT_THE_API_AND_CTRL_C,
  ],
};

// What a project written from the published course fails: this course's lessons, each named in
// docs/python-learners.md. Day 1 has none.
const PUBLISHED_MISSES: Record<string, string[]> = {
  "day-1": [],
  "day-2-v3": [
    "stop-max_tokens",
    "bad-arguments-missing",
    "bad-arguments-unexpected",
    "parallel-tool-calls",
  ],
};

describe.skipIf(!HAS_PYTHON)(
  "a Python project written from the course texts (needs python3)",
  () => {
    // Each adds its whole contract, so the whole check is the same scenarios, and names the stage.
    test.each(["day-1", "day-2-v1"])(
      "passes every core scenario of %s; each miss is a conformance note",
      async (stage) => {
        expect(addedIds(stage)).toEqual(findContract(stage)?.scenarios.map((s) => s.id));
        const run = await check([stage, "--cmd", atStage(stage)]);
        expect(run.stdout).not.toMatch(/^FAIL/m);
        expect(run.exitCode).toBe(0);
        expect(noteIds(run.stdoutLines)).toEqual(NOTES[stage]);
        expect(run.stdoutLines.at(-1)).toBe(`highest stage passed: ${stage}`);
      },
      WHOLE_CONTRACT_MS,
    );

    test.each([
      ["day-2-v2", "parallel-tool-calls"],
      ["day-2-v3", "stop-max_tokens"],
    ])(
      "passes every core scenario %s adds; each miss is a conformance note",
      async (stage, oneItAdds) => {
        expect(addedIds(stage)).toContain(oneItAdds);
        await passesWhatItAdds(stage, atStage(stage), NOTES[stage] ?? []);
      },
      WHOLE_CONTRACT_MS,
    );

    test(
      "the published course's project fails only this course's lessons at day-1",
      async () => {
        const run = await check(["day-1", "--cmd", atStage("day-1", "published-day-1", PUBLISHED)]);
        expect(failIds(run.stdoutLines)).toEqual(PUBLISHED_MISSES["day-1"]);
        expect(noteIds(run.stdoutLines)).toEqual(PUBLISHED_NOTES["day-1"]);
        expect(run.exitCode).toBe(0);
        expect(run.stdoutLines.at(-1)).toBe("highest stage passed: day-1");
      },
      WHOLE_CONTRACT_MS,
    );

    // The scenarios day-2-v2 and day-2-v3 add: no published project is written at day-2-v2, so
    // its scenarios (parallel-tool-calls, its miss; tool-input-not-object, its own note) would be
    // shown nowhere if they were left out here.
    test(
      "the published course's project fails only this course's lessons at day-2-v3",
      async () => {
        const ran = [...new Set([...addedIds("day-2-v2"), ...addedIds("day-2-v3")])];
        expect(addedIds("day-2-v2")).toContain("parallel-tool-calls");
        const misses = PUBLISHED_MISSES["day-2-v3"] ?? [];
        expect(ran).toEqual(expect.arrayContaining(misses));
        const command = atStage("day-2-v3", "published-day-2-v3", PUBLISHED);
        const run = await check([
          "day-2-v3",
          "--cmd",
          command,
          ...ran.flatMap((id) => ["--only", id]),
        ]);
        expect(failIds(run.stdoutLines)).toEqual(misses);
        expect(noteIds(run.stdoutLines)).toEqual(
          (PUBLISHED_NOTES["day-2-v3"] ?? []).filter((id) => ran.includes(id)),
        );
        expect(run.exitCode).toBe(1);
        expect(run.stdoutLines.at(-1)).toBe(notAFullCheck(ran.length));
      },
      WHOLE_CONTRACT_MS,
    );

    test.each(BROKEN.map((broken) => [broken.name, broken] as const))(
      "%s fails its scenario",
      async (_name, broken) => {
        const command = atStage("day-2-v3", broken.name, broken.edits);
        const run = await check(["day-2-v3", "--cmd", command, "--only", broken.scenario]);
        expect(run.exitCode).toBe(1);
        expect(run.stdout).toMatch(new RegExp(`^FAIL .*\\[${broken.scenario}\\]$`, "m"));
        expect(run.stdout).toContain(`      - ${broken.message}\n`);
        expect(run.stdoutLines.at(-1)).toBe(
          "not a full check (--only: 1 scenario run): no highest stage",
        );
      },
      30_000,
    );
  },
);

// Day 3, from the Python course's Day 3 as docs/../origin-course notes it: `fs_safety` rules
// (resolve, then relative_to the cwd; a suffix allowlist, else a NUL in the first 1024 bytes;
// 256 KiB at most; 8000 characters), tools that return `error: …` strings, so every refusal goes
// back with is_error false, and absolute paths refused like any other outside path. Added to the
// program above by edits, so the Day 2 behaviour under it is the same program's.
const DAY_3_TOOLS = String.raw`
from pathlib import Path

TEXT_SUFFIXES = {".py", ".md", ".txt", ".toml", ".json", ".js", ".ts", ".tsx", ".jsx", ".html",
                 ".css", ".yaml", ".yml", ".ini", ".cfg", ".sh", ".lock", ".gitignore", ".csv",
                 ".xml", ".rs", ".go", ".java", ".c"}
MAX_READ_BYTES = 256 * 1024
DEFAULT_MAX_CHARS = 8000
DEFAULT_SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "dist", "build", "__pycache__",
                     ".mypy_cache", ".pytest_cache", ".ruff_cache"}


def resolve_in_cwd(p):
    cwd = Path.cwd().resolve()
    target = (cwd / p).resolve()
    try:
        target.relative_to(cwd)
    except ValueError:
        raise ValueError(f"path escapes cwd: {p}")
    return target


def truncate_output(text, max_chars=DEFAULT_MAX_CHARS):
    if len(text) <= max_chars:
        return text
    return text[:max_chars] + f"\n[truncated {len(text) - max_chars} chars]"


def read_file(path):
    try:
        target = resolve_in_cwd(path)
        if target.suffix not in TEXT_SUFFIXES:
            with open(target, "rb") as handle:
                if b"\0" in handle.read(1024):
                    return f"error: binary file: {target.name}"
        size = target.stat().st_size
        if size > MAX_READ_BYTES:
            return (f"error: file too large: {size} bytes > {MAX_READ_BYTES}; "
                    "read a smaller file or use grep instead")
        return truncate_output(target.read_text(encoding="utf-8", errors="replace"))
    except Exception as exc:
        return f"error: {exc}"


def list_files(path="."):
    try:
        target = resolve_in_cwd(path)
        if not target.is_dir():
            return f"error: not a directory: {path}"
        entries = [entry for entry in target.iterdir() if entry.name not in DEFAULT_SKIP_DIRS]
        entries.sort(key=lambda entry: (not entry.is_dir(), entry.name))
        lines = [entry.name + ("/" if entry.is_dir() else "") for entry in entries]
        return truncate_output("\n".join(lines)) if lines else "(empty)"
    except Exception as exc:
        return f"error: {exc}"


if LEVEL >= 4:
    TOOLS["read_file"] = (read_file, "Read a text file inside the working directory.",
                          {"type": "object", "properties": {"path": {"type": "string"}},
                           "required": ["path"]})
    TOOLS["list_files"] = (list_files, "List one folder inside the working directory.",
                           {"type": "object",
                            "properties": {"path": {"type": "string", "default": "."}},
                            "required": []})


def run_tool(name, args):`;

const DAY_3_EDITS: [string, string][] = [
  ['STAGE = "day-2-v3"', 'STAGE = "day-3-v1"'],
  ['"day-2-v2", "day-2-v3"].index(STAGE)', '"day-2-v2", "day-2-v3", "day-3-v1"].index(STAGE)'],
  ["\n\ndef run_tool(name, args):", DAY_3_TOOLS],
  // The tools work in the directory -C names, as the origin's ToolContext carries it.
  ["    if options.prompt:\n", "    os.chdir(options.cwd)\n    if options.prompt:\n"],
];

// Day 3's notes: this course's texts and is_error, and what it adds (absolute paths inside, a
// line window, offset and limit, the skip list named); then Day 2's, but its unknown-tool text,
// which Day 3 replaces with its own.
const DAY_3_NOTES = [
  "read-escape-text",
  "read-escape-symlink-text",
  "read-missing-text",
  "read-binary-text",
  "read-absolute-inside",
  "read-offset-limit",
  "read-window-text",
  "list-skipped-text",
  "list-not-dir-text",
  "unknown-tool-text",
  ...(NOTES["day-2-v3"] ?? []).filter((id) => id !== "unknown-tool-text"),
];

// Day 3 v2, from the origin's glob, grep and project_tree: `rglob` (so a pattern without a slash
// matches at any depth), Python `re` for grep (the origin's fallback when rg is absent), the skip
// list and the ROOT .gitignore only (`gitwildmatch`, here a small translation), newest first for
// glob, `<cwd name>/` and two spaces a level for the tree. Refusals are `error: …` strings again.
const DAY_3_V2_TOOLS = String.raw`
def load_gitignore(cwd):
    rules = []
    ignore_file = cwd / ".gitignore"
    if not ignore_file.is_file():
        return rules
    for raw in ignore_file.read_text(encoding="utf-8", errors="replace").splitlines():
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        line = line[1:] if negated else line
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        anchored = "/" in line
        line = line.lstrip("/")
        regex = ""
        i = 0
        while i < len(line):
            if line.startswith("**/", i):
                regex, i = regex + "(?:.*/)?", i + 3
            elif line.startswith("**", i):
                regex, i = regex + ".*", i + 2
            elif line[i] == "*":
                regex, i = regex + "[^/]*", i + 1
            elif line[i] == "?":
                regex, i = regex + "[^/]", i + 1
            else:
                regex, i = regex + re.escape(line[i]), i + 1
        if not anchored:
            regex = "(?:.*/)?" + regex
        rules.append((re.compile(regex), negated, dir_only))
    return rules


def should_skip(path, cwd, rules):
    parts = path.relative_to(cwd).parts
    if any(part in DEFAULT_SKIP_DIRS for part in parts):
        return True
    for depth in range(1, len(parts) + 1):
        prefix = "/".join(parts[:depth])
        is_dir = depth < len(parts) or path.is_dir()
        ignored = False
        for regex, negated, dir_only in rules:
            if (is_dir or not dir_only) and regex.fullmatch(prefix):
                ignored = not negated
        if ignored:
            return True
    return False


def inside(path, cwd):
    try:
        path.resolve().relative_to(cwd)
        return True
    except ValueError:
        return False


def is_text(path):
    if path.suffix in TEXT_SUFFIXES:
        return True
    with open(path, "rb") as handle:
        return b"\0" not in handle.read(1024)


def glob_files(pattern):
    try:
        cwd = Path.cwd().resolve()
        rules = load_gitignore(cwd)
        found = [match for match in cwd.rglob(pattern)
                 if match.is_file() and inside(match, cwd) and not should_skip(match, cwd, rules)]
        found.sort(key=lambda match: match.stat().st_mtime_ns, reverse=True)
        lines = [match.relative_to(cwd).as_posix() for match in found[:200]]
        return truncate_output("\n".join(lines)) if lines else "(no matches)"
    except Exception as exc:
        return f"error: {exc}"


def grep(pattern, path=".", glob=None, ignore_case=False):
    try:
        regex = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
    except re.error as exc:
        return f"error: invalid regex: {exc}"
    try:
        cwd = Path.cwd().resolve()
        rules = load_gitignore(cwd)
        base = resolve_in_cwd(path)
        files = sorted(base.rglob(glob or "*")) if base.is_dir() else [base]
        lines = []
        for file in files:
            if (not file.is_file() or not inside(file, cwd) or should_skip(file, cwd, rules)
                    or not is_text(file) or file.stat().st_size > MAX_READ_BYTES):
                continue
            text = file.read_text(encoding="utf-8", errors="replace")
            for number, line in enumerate(text.splitlines(), start=1):
                if regex.search(line):
                    lines.append(f"{file.relative_to(cwd).as_posix()}:{number}:{line}")
        return truncate_output("\n".join(lines)) if lines else "(no matches)"
    except Exception as exc:
        return f"error: {exc}"


def project_tree(max_depth=3):
    cwd = Path.cwd().resolve()
    rules = load_gitignore(cwd)
    nodes = []

    def walk(folder, depth):
        entries = [entry for entry in folder.iterdir() if not should_skip(entry, cwd, rules)]
        entries.sort(key=lambda entry: (not entry.is_dir(), entry.name))
        for entry in entries:
            if len(nodes) > 200:
                return
            nodes.append("  " * depth + entry.name + ("/" if entry.is_dir() else ""))
            if entry.is_dir() and not entry.is_symlink() and depth < max_depth:
                walk(entry, depth + 1)

    walk(cwd, 1)
    lines = [cwd.name + "/"] + nodes[:200] + (["...[truncated]"] if len(nodes) > 200 else [])
    return truncate_output("\n".join(lines))


if LEVEL >= 5:
    TOOLS["glob"] = (glob_files, "Find files by glob pattern in the working directory.",
                     {"type": "object", "properties": {"pattern": {"type": "string"}},
                      "required": ["pattern"]})
    TOOLS["grep"] = (grep, "Search file contents with a Python regular expression.",
                     {"type": "object",
                      "properties": {"pattern": {"type": "string"},
                                     "path": {"type": "string", "default": "."},
                                     "glob": {"type": "string"},
                                     "ignore_case": {"type": "boolean", "default": False}},
                      "required": ["pattern"]})
    TOOLS["project_tree"] = (project_tree, "Show the working directory as a tree.",
                             {"type": "object",
                              "properties": {"max_depth": {"type": "integer", "default": 3}},
                              "required": []})


def run_tool(name, args):`;

const DAY_3_V2_EDITS: [string, string][] = [
  ...DAY_3_EDITS,
  ['STAGE = "day-3-v1"', 'STAGE = "day-3-v2"'],
  ['"day-3-v1"].index(STAGE)', '"day-3-v1", "day-3-v2"].index(STAGE)'],
  ["\n\ndef run_tool(name, args):", DAY_3_V2_TOOLS],
];

// Day 3 v2's notes: nested .gitignore files (the origin reads the root one only), this course's
// caps, markers, regex text and tree layout, the tree's `path`; then Day 3 v1's, whose
// unknown-tool text this stage's replaces. (Ctrl-C during a match passes: Python's
// KeyboardInterrupt ends it by SIGINT, which a shell reports as 130.)
const DAY_3_V2_NOTES = [
  "glob-nested-gitignore",
  "glob-cap",
  "grep-invalid-regex-text",
  "grep-long-line",
  "tree-text",
  "tree-cap",
  "unknown-tool-text",
  ...DAY_3_NOTES.filter((id) => id !== "unknown-tool-text"),
];

// Day 3 v3, from the origin's web_fetch: the same checks before the request (length, scheme, no
// user name, a dot in the host), urllib following redirects, an HTTP error as text, the body read
// (here up to 10 MiB and one byte, the origin's limit) and refused when over, HTML to text without
// scripts and styles (html.parser standing in for html2text), text/JSON/XML as they are, other
// types refused, 20,000 characters. No address guard: the origin has none.
const DAY_3_V3_TOOLS = String.raw`
import html.parser
import urllib.error
import urllib.parse

MAX_FETCH_BYTES = 10 * 1024 * 1024
FETCH_USER_AGENT = "agent-code/0.1 (+https://example.com/agent-code)"


class PageText(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts = []
        self.hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.hidden += 1
        elif tag in ("p", "br", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6"):
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self.hidden:
            self.hidden -= 1

    def handle_data(self, data):
        if not self.hidden:
            self.parts.append(data)


def web_fetch(url):
    if len(url) > 2000:
        return "error: url too long"
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return f"error: only http and https are supported: {url}"
    if parts.username or parts.password:
        return "error: credentials in URLs are not allowed"
    if "." not in (parts.hostname or ""):
        return "error: hostname must contain a dot"
    request = urllib.request.Request(url, headers={"User-Agent": FETCH_USER_AGENT})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            body = response.read(MAX_FETCH_BYTES + 1)
            content_type = response.headers.get("content-type", "")
            charset = response.headers.get_content_charset() or "utf-8"
    except urllib.error.HTTPError as exc:
        return f"error: HTTP {exc.code} {exc.reason}"
    except Exception as exc:
        return f"error: {exc}"
    if len(body) > MAX_FETCH_BYTES:
        return f"error: response too large: over {MAX_FETCH_BYTES} bytes"
    mime = content_type.split(";")[0].strip().lower()
    text = body.decode(charset, errors="replace")
    if mime in ("text/html", "application/xhtml+xml"):
        parser = PageText()
        parser.feed(text)
        text = "".join(parser.parts).strip()
    elif not (mime.startswith("text/") or "json" in mime or "xml" in mime):
        return f"error: unsupported content-type: {mime}"
    return truncate_output(text, 20000)


if LEVEL >= 6:
    TOOLS["web_fetch"] = (web_fetch, "Fetch a web page and return it as text.",
                          {"type": "object", "properties": {"url": {"type": "string"}},
                           "required": ["url"]})


def run_tool(name, args):`;

const DAY_3_V3_EDITS: [string, string][] = [
  ...DAY_3_V2_EDITS,
  ['STAGE = "day-3-v2"', 'STAGE = "day-3-v3"'],
  ['"day-3-v1", "day-3-v2"].index(STAGE)', '"day-3-v1", "day-3-v2", "day-3-v3"].index(STAGE)'],
  ["\n\ndef run_tool(name, args):", DAY_3_V3_TOOLS],
];

// Day 3 v3's notes: every conformance scenario it adds. The origin fetches loopback (and, after a
// redirect, 0.0.0.0), reads an endless body up to its limit, does not ask for gzip, follows ten
// redirects, waits 30 s, and has texts and a result layout of its own.
const DAY_3_V3_NOTES = (findContract("day-3-v3")?.scenarios ?? [])
  .filter((scenario) => scenario.level === "conformance" && scenario.id.startsWith("fetch-"))
  .map((scenario) => scenario.id);

// Day 3 v4's web_search as the origin writes it: DuckDuckGo's HTML page, the `result__a` anchors,
// `/l/?uddg=` links unwrapped, 1 to 10 hits as `- title` and the URL. One change: the page's
// address may be moved by AGENT_CODE_SEARCH_BASE_URL, which the check points at the fake web, so
// this test never leaves 127.0.0.1 (the origin's own project would go to DuckDuckGo).
const DAY_3_V4_TOOLS = String.raw`
def web_search(query, max_results=5):
    import html
    import urllib.parse
    try:
        count = max(1, min(10, int(max_results)))
    except (TypeError, ValueError):
        count = 5
    base = os.environ.get("AGENT_CODE_SEARCH_BASE_URL", "https://html.duckduckgo.com")
    url = base.rstrip("/") + "/html/?q=" + urllib.parse.quote_plus(query)
    request = urllib.request.Request(url, headers={"User-Agent": "agent-code/0.1"})
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            page = response.read().decode("utf-8", errors="replace")
    except Exception as exc:
        return f"error: {exc}"
    hits = []
    anchors = re.findall(r'<a[^>]*class="result__a"[^>]*href="([^"]+)"[^>]*>(.*?)</a>', page, re.S)
    for href, title in anchors[:count]:
        link = html.unescape(href)
        if "uddg=" in link:
            link = urllib.parse.parse_qs(urllib.parse.urlparse(link).query).get("uddg", [link])[0]
        hits.append("- " + html.unescape(re.sub(r"<[^>]+>", "", title)).strip() + "\n  " + link)
    return "\n".join(hits) if hits else "(no results)"


if LEVEL >= 7:
    TOOLS["web_search"] = (web_search, "Search the web with DuckDuckGo.",
                           {"type": "object",
                            "properties": {"query": {"type": "string"},
                                           "max_results": {"type": "integer", "default": 5}},
                            "required": ["query"]})


def run_tool(name, args):`;

const DAY_3_V4_EDITS: [string, string][] = [
  ...DAY_3_V3_EDITS,
  ['STAGE = "day-3-v3"', 'STAGE = "day-3-v4"'],
  ['"day-3-v2", "day-3-v3"].index(STAGE)', '"day-3-v2", "day-3-v3", "day-3-v4"].index(STAGE)'],
  ["\n\ndef run_tool(name, args):", DAY_3_V4_TOOLS],
];

// Day 3 v4's notes: every provider scenario (the origin scrapes, so none of its requests or texts
// match) and this stage's unknown-tool text; then Day 3 v3's and v2's, but their unknown-tool text.
const DAY_3_V4_NOTES = [
  "search-tavily",
  "search-brave",
  "search-provider-chosen",
  "search-no-provider-text",
  "search-key-rejected",
  "search-provider-down",
  "search-clamp",
  "unknown-tool-text",
  ...DAY_3_V3_NOTES,
  ...DAY_3_V2_NOTES.filter((id) => id !== "unknown-tool-text"),
];

describe.skipIf(!HAS_PYTHON)(
  "a Python Day 3 written from the origin course (needs python3)",
  () => {
    test(
      "passes every core scenario day-3-v1 adds; each miss is a conformance note",
      async () => {
        const added = addedIds("day-3-v1");
        expect(added).toContain("read-escape-parent");
        expect(added).not.toContain("two-step-chain");
        await passesWhatItAdds("day-3-v1", write("day_3_v1", AGENT_CODE, DAY_3_EDITS), DAY_3_NOTES);
      },
      WHOLE_CONTRACT_MS,
    );

    test(
      "passes every core scenario day-3-v2 adds; each miss is a conformance note",
      async () => {
        expect(addedIds("day-3-v2")).toContain("grep-basic");
        const command = write("day_3_v2", AGENT_CODE, DAY_3_V2_EDITS);
        await passesWhatItAdds("day-3-v2", command, DAY_3_V2_NOTES);
      },
      WHOLE_CONTRACT_MS,
    );

    test(
      "passes every core scenario day-3-v3 adds; each miss is a conformance note",
      async () => {
        expect(addedIds("day-3-v3")).toContain("fetch-html");
        const command = write("day_3_v3", AGENT_CODE, DAY_3_V3_EDITS);
        await passesWhatItAdds("day-3-v3", command, [...DAY_3_V3_NOTES, "unknown-tool-text"]);
      },
      WHOLE_CONTRACT_MS,
    );

    test(
      "passes every core scenario day-3-v4 adds; each miss is a conformance note",
      async () => {
        expect(addedIds("day-3-v4")).toContain("search-tavily");
        const command = write("day_3_v4", AGENT_CODE, DAY_3_V4_EDITS);
        await passesWhatItAdds("day-3-v4", command, DAY_3_V4_NOTES);
      },
      WHOLE_CONTRACT_MS,
    );

    test("without the realpath check (spelling only), a symlink that leads out fails", async () => {
      const command = write("day_3_v1_spelling_only", AGENT_CODE, [
        ...DAY_3_EDITS,
        ["    target = (cwd / p).resolve()", "    target = Path(os.path.normpath(cwd / p))"],
      ]);
      const run = await check(["day-3-v1", "--cmd", command, "--only", "read-escape-symlink"]);
      expect(run.exitCode).toBe(1);
      expect(run.stdout).toContain(
        "      - no request may carry the secret outside the working directory\n",
      );
    }, 30_000);
  },
);

// Day 4 from the origin's safe edit: file_write and file_edit behind an interceptor that resolves
// the path, checks a read happened (ReadFileState keeps mtime_ns, never a hash) and the mtime has
// not grown, dry-runs an edit, and only then prints `Diff for <p>:` (difflib, a/ and b/ headers)
// and asks `Apply this edit to <p>? [y/N]` on stdin (the REPL's stream; end of input is no).
// `file_history.backup` copies the old bytes to .agent/history/<rel>/<UTC stamp> and swallows its
// failures. Refusals are `error: …` with is_error false, as on Day 3.
const DAY_4_TOOLS = String.raw`
import difflib
import shutil
from datetime import timezone

READ_STATE = {}
_read_file_day_3 = read_file


def read_file(path):
    result = _read_file_day_3(path)
    if not result.startswith("error:"):
        target = resolve_in_cwd(path)
        READ_STATE[str(target)] = (target.stat().st_mtime_ns, len(result))
    return result


TOOLS["read_file"] = (read_file,) + TOOLS["read_file"][1:]


def render_diff(rel, old, new):
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        fromfile=f"a/{rel}", tofile=f"b/{rel}"))


def confirm_edit(rel):
    print(f"Apply this edit to {rel}? [y/N] ", end="", flush=True)
    answer = sys.stdin.readline()
    print()
    return answer.strip().lower() in ("y", "yes")


def backup(target, old_bytes):
    try:
        rel = target.relative_to(Path.cwd().resolve())
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S.%f")[:-3] + "Z"
        folder = Path.cwd() / ".agent" / "history" / rel
        folder.mkdir(parents=True, exist_ok=True)
        (folder / stamp).write_bytes(old_bytes)
    except Exception:
        pass


def apply_single_replace(content, old, new, replace_all):
    if old == "":
        return None, "old_string must not be empty."
    if old == new:
        return None, "old_string and new_string are exactly the same."
    count = content.count(old)
    if count == 0:
        return None, "string to replace not found in file."
    if count > 1 and not replace_all:
        return None, f"found {count} matches for old_string. Use replace_all=True to replace all."
    return content.replace(old, new) if replace_all else content.replace(old, new, 1), None


def check_read(target):
    if str(target) not in READ_STATE:
        return f"error: file has not been read yet. Read {target.name} first before editing."
    if target.stat().st_mtime_ns > READ_STATE[str(target)][0]:
        return f"error: file was modified after read. Read {target.name} again before editing."
    return None


def file_write(file_path, content):
    target = resolve_in_cwd(file_path)
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        backup(target, target.read_bytes())
    target.write_text(content, encoding="utf-8")
    READ_STATE[str(target)] = (target.stat().st_mtime_ns, len(content))
    return f"Wrote {len(content)} chars to {file_path}"


def file_edit(file_path, old_string, new_string, replace_all=False):
    target = resolve_in_cwd(file_path)
    old_bytes = target.read_bytes()
    updated, error = apply_single_replace(old_bytes.decode("utf-8"), old_string, new_string,
                                          replace_all)
    if error:
        return f"error: {error}"
    backup(target, old_bytes)
    target.write_text(updated, encoding="utf-8")
    READ_STATE[str(target)] = (target.stat().st_mtime_ns, len(updated))
    return f"Edited {file_path}: replaced {len(old_string)} chars with {len(new_string)} chars"


def guarded_write(name, args):
    # The interceptor: every check before the diff; a failed one asks nothing.
    try:
        target = resolve_in_cwd(args["file_path"])
    except ValueError as exc:
        return f"error: {exc}", False
    rel = str(target.relative_to(Path.cwd().resolve()))
    old = target.read_text(encoding="utf-8") if target.exists() else ""
    if name == "file_write":
        new = args["content"]
        if target.exists():
            problem = check_read(target)
            if problem:
                return problem, False
    else:
        if not target.exists():
            return f"error: file not found: {args['file_path']}", False
        problem = check_read(target)
        if problem:
            return problem, False
        new, error = apply_single_replace(old, args["old_string"], args["new_string"],
                                          args.get("replace_all", False))
        if error:
            return f"error: {error}", False
    print(f"\nDiff for {rel}:")
    print(render_diff(rel, old, new), end="")
    if not confirm_edit(rel):
        return "error: edit rejected by user", True
    return str(TOOLS[name][0](**args)), False


if LEVEL >= 8:
    TOOLS["file_write"] = (file_write, "Write a whole file; read it first if it exists.",
                           {"type": "object",
                            "properties": {"file_path": {"type": "string"},
                                           "content": {"type": "string"}},
                            "required": ["file_path", "content"]})
if LEVEL >= 9:
    TOOLS["file_edit"] = (file_edit, "Replace one exact, unique string in a file you read.",
                          {"type": "object",
                           "properties": {"file_path": {"type": "string"},
                                          "old_string": {"type": "string"},
                                          "new_string": {"type": "string"},
                                          "replace_all": {"type": "boolean", "default": False}},
                           "required": ["file_path", "old_string", "new_string"]})


def run_tool(name, args):`;

const DAY_4_EDITS: [string, string][] = [
  ...DAY_3_V4_EDITS,
  ['STAGE = "day-3-v4"', 'STAGE = "day-4-v1"'],
  [
    '"day-3-v3", "day-3-v4"].index(STAGE)',
    '"day-3-v3", "day-3-v4", "day-4-v1", "day-4-v2", "day-4-v3"].index(STAGE)',
  ],
  ["\n\ndef run_tool(name, args):", DAY_4_TOOLS],
  [
    "    return str(function(**args)), False",
    '    if name in ("file_write", "file_edit"):\n        return guarded_write(name, args)\n    return str(function(**args)), False',
  ],
];

// Day 4's notes: this course's texts, is_error, the diff's place and the echoed answer, the hash
// rule's edge cases (a touch is no conflict), CRLF files, backups' cap, .gitignore, untouchable
// history and a failed backup that stops the write; then the stage before's, but its unknown-tool
// text, which each stage with a new tool replaces with its own.
const DAY_4_V1_NOTES = [
  "write-diff-shown",
  "write-answer-echoed",
  "write-no-text",
  "write-eof-text",
  "write-no-prompt-on-refusal",
  "write-changed-text",
  "write-same-content",
  "write-diff-plain-in-a-pipe",
  "write-repl-answers-in-order",
  "unknown-tool-text",
  ...DAY_3_V4_NOTES.filter((id) => id !== "unknown-tool-text"),
];
const DAY_4_V2_NOTES = [
  "edit-yes-text",
  "edit-replace-all-text",
  "edit-unread-text",
  "edit-not-found-text",
  "edit-ambiguous-text",
  "edit-empty-and-same-text",
  "edit-changed-text",
  "edit-touch-no-conflict",
  "edit-crlf",
  "unknown-tool-text",
  ...DAY_4_V1_NOTES.filter((id) => id !== "unknown-tool-text"),
];
// day-4-v3 adds no tool: day-4-v2's unknown-tool text stays.
const DAY_4_V3_NOTES = [
  "backup-gitignore",
  "backup-prune-20",
  "history-untouchable",
  "backup-failed-blocks-write",
  ...DAY_4_V2_NOTES,
];

const atDay4 = (stage: string): [string, string][] => [
  ...DAY_4_EDITS,
  ['STAGE = "day-4-v1"', `STAGE = "${stage}"`],
];

// The question as the Python course's published package asks it: Typer's `confirm` raises Abort
// at the end of input, printed `Aborted.` on stderr with exit 1, so the run ends there. Nothing
// is written (write-eof passes); that the run goes on is this course's choice, a note.
const TYPER_CONFIRM: [string, string] = [
  "    answer = sys.stdin.readline()\n    print()\n",
  "    answer = sys.stdin.readline()\n" +
    "    if not answer:\n" +
    '        print("Aborted.", file=sys.stderr)\n' +
    "        sys.exit(1)\n" +
    "    print()\n",
];
const TYPER_NOTES = DAY_4_V1_NOTES.flatMap((id) =>
  id === "write-eof-text" ? [id, "write-eof-goes-on"] : [id],
);

describe.skipIf(!HAS_PYTHON)(
  "a Python Day 4 written from the origin course (needs python3)",
  () => {
    test.each([
      ["day-4-v1", DAY_4_V1_NOTES, "write-unread-existing"],
      ["day-4-v2", DAY_4_V2_NOTES, "edit-crlf"],
      ["day-4-v3", DAY_4_V3_NOTES, "backup-failed-blocks-write"],
    ] as const)(
      "passes every core scenario %s adds; each miss is a conformance note",
      async (stage, notes, oneItAdds) => {
        expect(addedIds(stage)).toContain(oneItAdds);
        const command = write(stage.replaceAll("-", "_"), AGENT_CODE, atDay4(stage));
        await passesWhatItAdds(stage, command, notes);
      },
      WHOLE_CONTRACT_MS,
    );

    test(
      "with Typer's confirm, which aborts at the end of input, every core scenario day-4-v1 adds passes",
      async () => {
        const command = write("day_4_v1_typer", AGENT_CODE, [...atDay4("day-4-v1"), TYPER_CONFIRM]);
        await passesWhatItAdds("day-4-v1", command, TYPER_NOTES);
      },
      WHOLE_CONTRACT_MS,
    );

    test("with Typer's confirm, day-4-v3 and day-5-v5 keep write-eof in core and its going on a note", async () => {
      const command = write("day_4_v3_typer", AGENT_CODE, [...atDay4("day-4-v3"), TYPER_CONFIRM]);
      for (const stage of ["day-4-v3", "day-5-v5"]) {
        const levels = findContract(stage)?.scenarios.filter((s) => s.id.startsWith("write-eof"));
        expect(levels?.map((s) => `${s.id} ${s.level}`)).toEqual([
          "write-eof core",
          "write-eof-text conformance",
          "write-eof-goes-on conformance",
        ]);
      }
      const only = ["--only", "write-eof", "--only", "write-eof-goes-on"];
      const run = await check(["day-4-v3", "--cmd", command, ...only]);
      expect(run.stdout).not.toMatch(/^FAIL/m);
      expect(run.exitCode).toBe(0);
      expect(noteIds(run.stdoutLines)).toEqual(["write-eof-goes-on"]);
    }, 60_000);

    test("a question that writes at the end of input: write-eof fails", async () => {
      const command = write("day_4_v1_writes_at_eof", AGENT_CODE, [
        ...atDay4("day-4-v1"),
        [
          '    return answer.strip().lower() in ("y", "yes")\n\n\ndef backup(',
          '    return not answer or answer.strip().lower() in ("y", "yes")\n\n\ndef backup(',
        ],
      ]);
      const run = await check(["day-4-v1", "--cmd", command, "--only", "write-eof"]);
      expect(run.exitCode).toBe(1);
      expect(failIds(run.stdoutLines)).toEqual(["write-eof"]);
      expect(run.stdout).toContain("the end of input is a no: `work/new.txt` should not exist");
    }, 30_000);

    test("without the read check, an existing file never read is overwritten: the scenario fails", async () => {
      const command = write("day_4_v1_no_read_check", AGENT_CODE, [
        ...atDay4("day-4-v1"),
        ["def check_read(target):\n", "def check_read(target):\n    return None\n"],
      ]);
      const run = await check(["day-4-v1", "--cmd", command, "--only", "write-unread-existing"]);
      expect(run.exitCode).toBe(1);
      expect(failIds(run.stdoutLines)).toEqual(["write-unread-existing"]);
    }, 30_000);
  },
);

// Day 5 from the origin's bash and permission engine. bash_runner.run_sync: `shell=True` in the
// cwd, the environment cut to PATH, HOME, USER and SHELL, all output captured (bytes decoded with
// `errors="replace"`), stdout then `[stderr]` and stderr, 12,000 characters, `exit code N` first
// when it fails, `(no output)`, and on a timeout only the shell is killed. Before a command, the
// loop prints `Command: <cmd>` and `timeout: Ns  cwd: <cwd>` and asks `Run this command? [y/N]` on
// the REPL's stdin (end of input is no, as on Day 4); git_status and git_diff run fixed commands
// without asking. v2 puts decide_permission in front of every call, in the origin's order, with
// its regexes; v3 answers ask_user_question with the origin's numbered menu; v4 starts a command
// with `background` as bg_manager.start_background does: Popen with stdout and stderr in
// `.bg/bg-<8 hex>.out` and `.err`, stdin inherited, a daemon thread that closes both files once it
// ends, no timeout, and a result that names the id, both files, the PID, and `cat` and `kill`.
const DAY_5_TOOLS = String.raw`
import resource
import subprocess
import threading
import uuid

# Not the origin's: a seatbelt for the machine that runs these tests. capture_output keeps a whole
# flood in memory (bash-flood-stopped runs yes for 30 s: about a gigabyte a second).
try:
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, resource.getrlimit(resource.RLIMIT_AS)[1]))
except (ValueError, OSError):
    pass

MINIMAL_ENV = {
    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    "HOME": os.environ.get("HOME", ""),
    "USER": os.environ.get("USER", ""),
    "SHELL": os.environ.get("SHELL", "/bin/bash"),
}


def run_sync(command, timeout=30):
    try:
        proc = subprocess.run(command, shell=True, cwd=Path.cwd(), env=MINIMAL_ENV,
                              capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"error: command timed out after {timeout}s"
    output = proc.stdout.decode("utf-8", errors="replace")
    stderr = proc.stderr.decode("utf-8", errors="replace")
    if stderr.strip():
        output += "\n[stderr]\n" + stderr
    output = truncate_output(output.strip(), 12000)
    if proc.returncode != 0:
        return f"exit code {proc.returncode}\n{output}"
    return output or "(no output)"


def start_background(command):
    # Nothing stops the command but the hint's kill: it outlives the CLI.
    bg_id = f"bg-{uuid.uuid4().hex[:8]}"
    bg_dir = Path.cwd() / ".bg"
    bg_dir.mkdir(parents=True, exist_ok=True)
    out = open(bg_dir / f"{bg_id}.out", "w")
    err = open(bg_dir / f"{bg_id}.err", "w")
    proc = subprocess.Popen(command, shell=True, cwd=Path.cwd(), env=MINIMAL_ENV, stdout=out,
                            stderr=err)

    def wait_and_close():
        proc.wait()
        out.close()
        err.close()

    threading.Thread(target=wait_and_close, daemon=True).start()
    return (f"Command running in background with ID: {bg_id}.\n"
            f"Output is being written to: .bg/{bg_id}.out\n"
            f"Stderr is being written to: .bg/{bg_id}.err\n"
            f"PID: {proc.pid}\n\n"
            f"Started in background with ID: {bg_id}. "
            f"Output: .bg/{bg_id}.out, Stderr: .bg/{bg_id}.err. "
            f'Use bash("cat .bg/{bg_id}.out") to check output, bash("kill {proc.pid}") to stop.')


def bash(command, timeout=30, background=False):
    timeout = int(timeout)
    if background:
        if LEVEL < 14:
            return "error: background mode not implemented yet (coming in v4)"
        return start_background(command)
    return run_sync(command, timeout)


def git_status():
    return run_sync("git status", 10)


def git_diff():
    return run_sync("git diff", 10)


def ask_user_question(prompt, options):
    # The loop answers it (ask_first); the tool itself only says so, as the origin's does.
    return "error: ask_user_question must be handled by the harness, not executed directly"


def confirm(question):
    print(f"{question} [y/N] ", end="", flush=True)
    answer = sys.stdin.readline()
    print()
    return answer.strip().lower() in ("y", "yes")


def prompt_single_choice(question, labels):
    # typer.prompt("Choice", default="0"): empty is 0; what is not an option's number skips.
    print(f"\n? {question}")
    for number, label in enumerate(labels, 1):
        print(f"  {number}. {label}")
    print("  0. Skip / Other")
    print("Choice [0]: ", end="", flush=True)
    answer = sys.stdin.readline().strip() or "0"
    print()
    if not answer.isdigit() or not 1 <= int(answer) <= len(labels):
        return None
    return labels[int(answer) - 1]


MODE = "default"
ASK_TOOLS = {"ask_user_question", "web_fetch", "web_search"}
READONLY_TOOLS = {"read_file", "list_files", "glob", "grep", "project_tree", "git_status",
                  "git_diff", "system_date", "echo"}
# Searched anywhere in the command, case-insensitive: "rm -r -f" passes, a grep for "git push" not.
DANGEROUS_PATTERNS = [
    (r"rm\s+-rf", "rm -rf is destructive"),
    (r"rm\s+-fr", "rm -fr is destructive"),
    (r"\bsudo\b", "sudo grants root access"),
    (r"chmod\s+-R", "chmod -R is recursive permission change"),
    (r"(curl|wget).*\|.*(sh|bash|zsh)\b", "downloaded script execution may execute untrusted code"),
    (r"git\s+push\s+.*--force", "git push --force overwrites remote history"),
    (r"git\s+push\s+-f", "git push -f overwrites remote history"),
    (r"\bgit\s+push\b", "git push publishes local changes to a remote"),
    (r"git\s+reset\s+--hard", "git reset --hard discards uncommitted changes"),
]


def decide_permission(name, args, mode):
    if LEVEL < 12:
        # v1 has no engine: its interceptor asks before a write or a command, and only then.
        return ("ask" if name in ("bash", "file_write", "file_edit") else "allow"), None
    if name in ASK_TOOLS:
        return "ask", None
    if mode == "plan":
        if name in READONLY_TOOLS:
            return "allow", None
        return "deny", f"plan mode: {name} is not allowed. Only read-only tools can run in plan mode."
    if name in READONLY_TOOLS:
        return "allow", None
    if name == "bash":
        for pattern, reason in DANGEROUS_PATTERNS:
            if re.search(pattern, args.get("command", ""), re.IGNORECASE):
                return "deny", f"Dangerous command blocked: {reason}"
    if mode == "acceptEdits" and name in ("file_write", "file_edit"):
        return "allow", None
    return "ask", None


def ask_first(name, args):
    # The ask branch for everything but the file tools: a result ends the call, None runs it.
    if name == "bash":
        print(f"\nCommand: {args['command']}")
        print(f"timeout: {args.get('timeout', 30)}s  cwd: {Path.cwd()}")
        if not confirm("Run this command?"):
            return "error: command rejected by user", True
    elif name in ("web_fetch", "web_search"):
        if not confirm(f"Allow {name}: {args.get('url') or args.get('query') or args}?"):
            return "error: tool use rejected by user", True
    elif name == "ask_user_question":
        options = args["options"] if isinstance(args["options"], list) else []
        picked = prompt_single_choice(args["prompt"], [str(option) for option in options])
        if picked is None:
            return "User skipped the question.", False
        return f'User selected: "{picked}"', False
    return None


if LEVEL >= 11:
    TOOLS["git_status"] = (git_status, "Run git status in the working directory.",
                           {"type": "object", "properties": {}, "required": []})
    TOOLS["git_diff"] = (git_diff, "Run git diff to see unstaged changes.",
                         {"type": "object", "properties": {}, "required": []})
    TOOLS["bash"] = (bash, "Run a shell command; each call is a fresh shell, so avoid cd.",
                     {"type": "object",
                      "properties": {"command": {"type": "string"},
                                     "timeout": {"type": "integer", "default": 30},
                                     "background": {"type": "boolean", "default": False}},
                      "required": ["command"]})
if LEVEL >= 13:
    TOOLS["ask_user_question"] = (ask_user_question, "Ask the user a single-choice question.",
                                  {"type": "object",
                                   "properties": {"prompt": {"type": "string"},
                                                  "options": {"type": "array",
                                                              "items": {"type": "string"}}},
                                   "required": ["prompt", "options"]})


def run_tool(name, args):`;

const DAY_5_EDITS: [string, string][] = [
  ...DAY_4_EDITS,
  ['STAGE = "day-4-v1"', 'STAGE = "day-5-v1"'],
  [
    '"day-4-v2", "day-4-v3"].index(STAGE)',
    '"day-4-v2", "day-4-v3", "day-5-v1", "day-5-v2", "day-5-v3", "day-5-v4", "day-5-v5"].index(STAGE)',
  ],
  ["\n\ndef run_tool(name, args):", DAY_5_TOOLS],
  // One gate for every call; the file tools' checks run first, and acceptEdits skips only the UI.
  [
    '    if name in ("file_write", "file_edit"):\n        return guarded_write(name, args)\n',
    "    behavior, message = decide_permission(name, args, MODE)\n" +
      '    if behavior == "deny":\n' +
      '        return f"error: {message}", True\n' +
      '    if name in ("file_write", "file_edit"):\n' +
      '        return guarded_write(name, args, ask=behavior == "ask")\n' +
      '    if behavior == "ask" and (answer := ask_first(name, args)) is not None:\n' +
      "        return answer\n",
  ],
  ["def guarded_write(name, args):", "def guarded_write(name, args, ask=True):"],
  [
    '    print(f"\\nDiff for {rel}:")',
    '    if not ask:\n        return str(TOOLS[name][0](**args)), False\n    print(f"\\nDiff for {rel}:")',
  ],
  [
    "    options = parser.parse_args()\n",
    "    if LEVEL >= 12:\n" +
      "        # default, acceptEdits or plan, unchecked: any other word is the default mode.\n" +
      '        parser.add_argument("--permission-mode", default="default")\n' +
      "    options = parser.parse_args()\n" +
      "    global MODE\n" +
      '    MODE = getattr(options, "permission_mode", "default")\n',
  ],
];

// Day 5 v1's notes: this course's texts and its numbers (a timeout's range, the output kept
// when a command is stopped), what the origin's subprocess.run does not do (wait for a leftover
// child that holds its pipes, cap a flood while reading: bash-flood-stopped ends in the seatbelt's
// MemoryError, close a command's stdin, show controls in `Command:`); then Day 4's, but its
// unknown-tool text. bash-group-killed and bash-ctrl-c pass: the origin kills only the shell, but
// its leftovers share the program's process group, which the checker stops when the program ends.
const DAY_5_V1_NOTES = [
  "bash-prompt-text",
  "bash-rejected-text",
  "bash-timeout-keeps-output",
  "bash-timeout-range",
  "bash-leftover-killed",
  "bash-flood-stopped",
  "bash-stdin-closed",
  "bash-controls-visible",
  "unknown-tool-text",
  ...DAY_4_V3_NOTES.filter((id) => id !== "unknown-tool-text"),
];
// Day 5 v2's notes: modes are not checked (`Plan` and `bypassPermissions` are the default mode),
// the regexes miss `rm -r -f` and `git -C . push` and deny `grep -c "git push"`, acceptEdits
// shows no diff, and the texts (the guards' and plan mode's, `Allow web_fetch: <url>?`); then
// v1's, among them the Day 3 web scenarios v2 asks before (answered y, they pass or note as on
// Day 3).
const DAY_5_V2_NOTES = [
  "mode-invalid",
  "bypass-no-prompt",
  "bypass-still-guards",
  "guard-curl-pipe-sh-text",
  "guard-flag-orders",
  "guard-in-compound",
  "guard-in-substitution",
  "guard-no-false-positive",
  "accept-edits-diff-shown",
  "plan-denies-text",
  "web-fetch-rejected-text",
  "web-fetch-prompt-text",
  "web-search-asks",
  ...DAY_5_V1_NOTES,
];
// Day 5 v3's notes: the origin's menu (`0. Skip / Other`, `Choice [0]: `), free text and a bad
// option list skipped, no count of options checked; then v2's, but its unknown-tool text.
const DAY_5_V3_NOTES = [
  "ask-menu-text",
  "ask-free-text",
  "ask-eof",
  "ask-bad-options",
  "ask-in-plan",
  "ask-repl-order",
  "unknown-tool-text",
  ...DAY_5_V2_NOTES.filter((id) => id !== "unknown-tool-text"),
];
// Day 5 v4's notes: the origin's started text; no bash_output or kill_shell (the model is told to
// `cat` a file and `kill` a PID), so neither reads, stops, refuses an unknown id, runs in plan mode
// or serves the REPL's next line, nor does the unknown-tool text name them; `.bg/bg-<hex>.out` and
// `.err` instead of one log in `.agent/bg/`; no limit of eight. Then v3's, but its unknown-tool
// text. bg-dies-with-run passes: the origin's tasks outlive its CLI, but they share the program's
// process group, which the checker stops when the program ends, as for bash-group-killed.
const DAY_5_V4_NOTES = [
  "bg-started-text",
  "bg-output",
  "bg-kill",
  "bg-log-file",
  "bg-limit",
  "bg-unknown-id",
  "bg-readonly-in-plan",
  "bg-repl-shared",
  "unknown-tool-text",
  ...DAY_5_V3_NOTES.filter((id) => id !== "unknown-tool-text"),
];

// Day 5 v5's notes: the origin course has no rules, settings files or trust, so every scenario v5
// adds is a note (its argparse refuses `--allow` and `--deny` with exit 2; it reads no settings
// file); then v4's. Its core scenarios are v4's, which the same project passes.
const DAY_5_V5_NOTES = [
  "rule-allow-runs",
  "rule-prefix-boundary",
  "rule-compound-and",
  "rule-compound-semicolon",
  "rule-compound-pipe",
  "rule-compound-newline",
  "rule-compound-subshell",
  "rule-compound-substitution",
  "rule-compound-backquote",
  "rule-redirect-outside",
  "rule-cd-outside",
  "rule-deny-beats-allow",
  "rule-deny-subst",
  "rule-deny-basename",
  "rule-deny-wrapper",
  "rule-ask-beats-allow",
  "rule-bare-deny-hides-tool",
  "rule-read-deny",
  "rule-edit-deny",
  "rule-webfetch-domain",
  "settings-untrusted-allow-ignored",
  "settings-trusted-allow",
  "settings-invalid-rule",
  "settings-unknown-key",
  "settings-bad-json",
  "settings-default-mode",
  "settings-project-cannot-bypass",
  ...DAY_5_V4_NOTES,
];

const atDay5 = (stage: string): [string, string][] => [
  ...DAY_5_EDITS,
  ['STAGE = "day-5-v1"', `STAGE = "${stage}"`],
];

describe.skipIf(!HAS_PYTHON)(
  "a Python Day 5 written from the origin course (needs python3)",
  () => {
    test.each([
      ["day-5-v1", DAY_5_V1_NOTES, "bash-no"],
      ["day-5-v2", DAY_5_V2_NOTES, "guard-rm-rf"],
      ["day-5-v3", DAY_5_V3_NOTES, "ask-select"],
      ["day-5-v4", DAY_5_V4_NOTES, "bg-returns-at-once"],
      ["day-5-v5", DAY_5_V5_NOTES, "rule-allow-runs"],
    ] as const)(
      "passes every core scenario %s adds; each miss is a conformance note",
      async (stage, notes, oneItAdds) => {
        expect(addedIds(stage)).toContain(oneItAdds);
        const command = write(stage.replaceAll("-", "_"), AGENT_CODE, atDay5(stage));
        await passesWhatItAdds(stage, command, notes);
      },
      WHOLE_CONTRACT_MS,
    );

    test("a command run whatever the answer: the scenario that answers n fails", async () => {
      const command = write("day_5_v1_runs_anyway", AGENT_CODE, [
        ...atDay5("day-5-v1"),
        [
          '        if not confirm("Run this command?"):\n            return "error: command rejected by user", True\n',
          '        confirm("Run this command?")\n',
        ],
      ]);
      const run = await check(["day-5-v1", "--cmd", command, "--only", "bash-no"]);
      expect(run.exitCode).toBe(1);
      expect(failIds(run.stdoutLines)).toEqual(["bash-no"]);
    }, 30_000);

    test("a background start that waits for its command: the scenario that times the run fails", async () => {
      const command = write("day_5_v4_waits", AGENT_CODE, [
        ...atDay5("day-5-v4"),
        [
          "    threading.Thread(target=wait_and_close, daemon=True).start()",
          "    wait_and_close()",
        ],
      ]);
      const run = await check(["day-5-v4", "--cmd", command, "--only", "bg-returns-at-once"]);
      expect(run.exitCode).toBe(1);
      expect(failIds(run.stdoutLines)).toEqual(["bg-returns-at-once"]);
      expect(run.stdout).toContain(
        "      - the run should end within 8 s (a background command goes on alone: the run does not wait its 12 s)\n",
      );
    }, 30_000);
  },
);

// Day 6 from the origin's session.py and project_memory.py. v1: `Session.create`, `load_latest`
// (newest by mtime) and `load_id`, each log `.agent/sessions/<abs cwd with / : \ as _>/<uuid4
// hex[:12]>.jsonl` in the project, one `{"role", "content", "timestamp"}` a line; `history` skips
// a line that is not JSON. The loop starts from the history and the new prompt, writes the prompt
// at once, each assistant turn and its results after the round, and the last assistant turn at
// the end; `-c` wins over `--resume`, either fails with exit 1 when nothing is found; the header
// says `session: <id>`, `(resumed)` after it; the REPL keeps one session and reads it again for
// each line. v2: `AGENT.md` of the cwd (symlinks followed), cut at 50 KB, in `<project-rules>`
// after `_SYSTEM_CORE`, built once and sent as `system` in every request, one-shot and REPL alike.
const DAY_6_SESSION = String.raw`
from datetime import timezone


def _sanitize_cwd(cwd):
    return str(cwd).replace("/", "_").replace(":", "_").replace("\\", "_")


def _sessions_dir(cwd):
    folder = cwd / ".agent" / "sessions" / _sanitize_cwd(cwd)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class Session:
    def __init__(self, session_id, path, resumed=False):
        self.id = session_id
        self.path = path
        self.resumed = resumed

    @classmethod
    def create(cls, cwd):
        session_id = uuid.uuid4().hex[:12]
        return cls(session_id, _sessions_dir(cwd) / f"{session_id}.jsonl")

    @classmethod
    def load_latest(cls, cwd):
        logs = sorted(_sessions_dir(cwd).glob("*.jsonl"), key=lambda log: log.stat().st_mtime)
        return cls(logs[-1].stem, logs[-1], resumed=True) if logs else None

    @classmethod
    def load_id(cls, cwd, session_id):
        path = _sessions_dir(cwd) / f"{session_id}.jsonl"
        return cls(session_id, path, resumed=True) if path.exists() else None

    def history(self):
        messages = []
        if not self.path.exists():
            return messages
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                data = json.loads(line)
            except json.JSONDecodeError:
                continue
            messages.append({"role": data["role"], "content": data["content"]})
        return messages

    def append_messages(self, messages):
        with open(self.path, "a", encoding="utf-8") as handle:
            for message in messages:
                record = {"role": message["role"], "content": message["content"],
                          "timestamp": datetime.now(timezone.utc).isoformat()}
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def open_session(options):
    cwd = Path(options.cwd).resolve()
    if options.continue_session:
        session = Session.load_latest(cwd)
        if session is None:
            print("No previous session found in this directory.", file=sys.stderr)
            sys.exit(1)
    elif options.resume:
        session = Session.load_id(cwd, options.resume)
        if session is None:
            print(f"Session not found: {options.resume}", file=sys.stderr)
            sys.exit(1)
    else:
        session = Session.create(cwd)
    return session


MAX_AGENT_MD_BYTES = 50 * 1024
_SYSTEM_CORE = ("You are agent-code, a coding agent running in a CLI harness. You can read, search "
                "and edit files in the working directory, fetch and search the web, and run shell "
                "commands through your tools. Use a tool when the task needs one; otherwise answer "
                "directly.")


def load_agent_md(cwd):
    path = cwd / "AGENT.md"
    if not path.exists():
        return ""
    data = path.read_text(encoding="utf-8", errors="replace").encode("utf-8")
    if len(data) > MAX_AGENT_MD_BYTES:
        return data[:MAX_AGENT_MD_BYTES].decode("utf-8", errors="ignore") + "\n...[truncated]"
    return data.decode("utf-8")


def build_system_prompt(cwd):
    rules = load_agent_md(cwd).strip()
    if not rules:
        return _SYSTEM_CORE
    return f"{_SYSTEM_CORE}\n\n<project-rules>\n{rules}\n</project-rules>"


def run_tool(name, args):`;

const DAY_6_EDITS: [string, string][] = [
  ...atDay5("day-5-v5"),
  ['STAGE = "day-5-v5"', 'STAGE = "day-6-v1"'],
  [
    '"day-5-v4", "day-5-v5"].index(STAGE)',
    '"day-5-v4", "day-5-v5", "day-6-v1", "day-6-v2"].index(STAGE)',
  ],
  ["\n\ndef run_tool(name, args):", DAY_6_SESSION],
  ["def mock(messages, tools):", "def mock(messages, tools, system=None):"],
  [
    '    def complete(messages, tools):\n        body = {"model": model, "max_tokens": 1024, "messages": messages}\n',
    '    def complete(messages, tools, system=None):\n        body = {"model": model, "max_tokens": 1024, "messages": messages}\n' +
      "        if system:\n" +
      '            body["system"] = system\n',
  ],
  [
    'def run_agent(prompt, complete, max_steps):\n    tools = TOOLS if LEVEL >= 2 else None\n    messages = [{"role": "user", "content": prompt}]\n',
    "def run_agent(prompt, complete, max_steps, session=None, system=None):\n" +
      "    tools = TOOLS if LEVEL >= 2 else None\n" +
      "    history = session.history() if session else []\n" +
      '    messages = history + [{"role": "user", "content": prompt}]\n' +
      "    if session:\n" +
      "        session.append_messages(messages[-1:])\n",
  ],
  [
    "        reply = complete(messages, tools)\n",
    "        reply = complete(messages, tools, system)\n",
  ],
  [
    '            print("final: " + "".join(texts))\n            return\n',
    '            print("final: " + "".join(texts))\n' +
      "            if session:\n" +
      "                session.append_messages(messages[-1:])\n" +
      "            return\n",
  ],
  [
    '            print(f"final: Stopped: stop_reason={stop}")\n            return\n',
    '            print(f"final: Stopped: stop_reason={stop}")\n' +
      "            if session:\n" +
      "                session.append_messages(messages[-1:])\n" +
      "            return\n",
  ],
  [
    '        messages.append({"role": "user", "content": results})\n',
    '        messages.append({"role": "user", "content": results})\n' +
      "        if session:\n" +
      "            session.append_messages(messages[-2:])\n",
  ],
  ["def header(options):", "def header(options, session=None):"],
  [
    "    print()\n\n\ndef repl(complete, options):",
    "    if session:\n" +
      '        print(f"session: {session.id}" + (" (resumed)" if session.resumed else ""))\n' +
      "    print()\n\n\ndef repl(complete, options, session=None, system=None):",
  ],
  [
    "            run_agent(line, complete, options.max_steps)",
    "            run_agent(line, complete, options.max_steps, session, system)",
  ],
  [
    "    options = parser.parse_args()\n    global MODE\n",
    '    parser.add_argument("--resume")\n' +
      '    parser.add_argument("--continue", "-c", dest="continue_session", action="store_true")\n' +
      "    options = parser.parse_args()\n    global MODE\n",
  ],
  [
    "    header(options)\n    os.chdir(options.cwd)\n",
    "    session = open_session(options)\n" +
      "    system = build_system_prompt(Path(options.cwd).resolve()) if LEVEL >= 17 else None\n" +
      "    header(options, session)\n    os.chdir(options.cwd)\n",
  ],
  [
    "        run_agent(options.prompt, complete, options.max_steps)",
    "        run_agent(options.prompt, complete, options.max_steps, session, system)",
  ],
  ["        repl(complete, options)", "        repl(complete, options, session, system)"],
];

const atDay6 = (stage: string): [string, string][] => [
  ...DAY_6_EDITS,
  ['STAGE = "day-6-v1"', `STAGE = "${stage}"`],
];

// Day 6 v1's notes: the log is in the project (`.agent/sessions`) with the origin's id, modes and
// texts; `-c` wins over `--resume`, whose id is not checked (exit 1, not a usage error); no lock, no
// repair record, no redaction; the header's `session:` line without its count;
// the torn line is skipped but the next append is glued to it, so run 3 loses run 2's prompt; a
// log planted in this course's place is not found. The REPL's request and the resumed one are the
// same bytes (session-resume-byte-identical passes): both send the log as it was read.
const DAY_6_V1_NOTES = [
  "session-continue-private",
  "session-torn-line-text",
  "session-interrupted-tool-once",
  "session-bad-flags",
  "session-missing-text",
  "session-damaged-middle",
  "session-planted-log-resumes",
  "session-symlinked-folder",
  "session-lock",
  "session-secret-redacted",
  "header",
];
// What the origin's loop, read literally, fails on purpose, as the published course fails
// parallel-tool-calls (PUBLISHED_MISSES): a reply cut by max_tokens while it holds a tool_use ends
// the run, and the last assistant turn is written as it came, its call without a result; the next
// `-c` sends it, and the API answers 400 (`tool_use ids were found without tool_result blocks`),
// which urllib raises. docs/python-learners.md names it; the test below shows its remedy passing.
// session-interrupted-tool passes as the origin writes: Ctrl-C loses the whole round (it is written
// only after its tools ran), so no call is left unanswered, and the next prompt follows the first
// as a second user message, which the API accepts.
const DAY_6_V1_MISSES = ["session-max-tokens-tool-use"];
// Day 6 v2's notes: no `source` attribute and no `rules:` header line, a cut at 50 KB without this
// course's marker, and a symlinked AGENT.md followed out of the project.
const DAY_6_V2_NOTES = ["rules-reach-model-text", "rules-capped-text", "rules-unsafe-files"];

// Day 6 v3 from the origin's compact_basic.py: before each model call, a conversation of more than
// 40 messages keeps its first 2 and its last 8 by index, with one user message between them, a
// `<compacted-history>` block worked out from the messages left out (their count, the tool calls,
// the tools used, the files read and edited, the last 20 commands at 80 characters, a
// `<conclusions>` placeholder for Day 11, an earlier block nested as `<previous-summary>`), and
// prints `compacted: N messages remaining`. The loop goes on with the compacted list; the log is
// not touched, so each run works the summary out again from the whole history.
const DAY_6_COMPACT = String.raw`
COMPACT_THRESHOLD = 40
COMPACT_KEEP = 8
COMPACTED_TAG = "<compacted-history>"


def _tool_uses(message):
    content = message["content"]
    if not isinstance(content, list):
        return []
    return [block for block in content
            if isinstance(block, dict) and block.get("type") == "tool_use"]


def summarize(messages):
    tools_used, files_read, files_edited, commands = [], [], [], []
    tool_calls = 0
    previous = ""
    for message in messages:
        if isinstance(message["content"], str) and message["content"].startswith(COMPACTED_TAG):
            previous = message["content"]
        for block in _tool_uses(message):
            tool_calls += 1
            name = block.get("name", "")
            args = block.get("input") if isinstance(block.get("input"), dict) else {}
            if name not in tools_used:
                tools_used.append(name)
            if name == "read_file" and str(args.get("path")) not in files_read:
                files_read.append(str(args.get("path")))
            if name in ("file_write", "file_edit") and str(args.get("file_path")) not in files_edited:
                files_edited.append(str(args.get("file_path")))
            if name == "bash":
                commands.append(str(args.get("command", "")))
    lines = [COMPACTED_TAG,
             f"<message-count>{len(messages)}</message-count>",
             f"<tool-calls>{tool_calls}</tool-calls>",
             f"<tools-used>{', '.join(tools_used)}</tools-used>",
             f"<files-read>{', '.join(files_read)}</files-read>",
             f"<files-edited>{', '.join(files_edited)}</files-edited>",
             "<commands-run>",
             *[f"- {command[:80]}" for command in commands[-20:]],
             "</commands-run>",
             "<conclusions>(not written yet: Day 11 asks the model for them)</conclusions>"]
    if previous:
        lines += ["<previous-summary>", previous, "</previous-summary>"]
    lines.append("</compacted-history>")
    return "\n".join(lines)


def compact(messages, keep=COMPACT_KEEP):
    if len(messages) <= COMPACT_THRESHOLD:
        return messages
    head, start = 2, len(messages) - keep
    summary = {"role": "user", "content": summarize(messages[head:start])}
    compacted = messages[:head] + [summary] + messages[start:]
    print(f"compacted: {len(compacted)} messages remaining")
    return compacted


def run_tool(name, args):`;

const DAY_6_V3_EDITS: [string, string][] = [
  ...DAY_6_EDITS,
  ['STAGE = "day-6-v1"', 'STAGE = "day-6-v3"'],
  ['"day-6-v1", "day-6-v2"].index(STAGE)', '"day-6-v1", "day-6-v2", "day-6-v3"].index(STAGE)'],
  ["\n\ndef run_tool(name, args):", DAY_6_COMPACT],
  [
    "        reply = complete(messages, tools, system)\n",
    "        if LEVEL >= 18:\n" +
      "            messages = compact(messages)\n" +
      "        reply = complete(messages, tools, system)\n",
  ],
];

// Day 6 v3's notes: its own `compacted:` line and summary fields (no quoted task); a trigger that
// counts messages (more than 40), so the 25 messages of compact-resume-same-view's run 1 are never
// compacted and AGENT_CODE_COMPACT_AT and the reply's usage are not read; no result is shortened.
const DAY_6_V3_NOTES = [
  "compact-pairs-intact-text",
  "compact-resume-same-view",
  "compact-huge-result",
];
// What the origin's cut fails on purpose, as the published course fails parallel-tool-calls: at
// the 21st call (41 messages) it keeps messages 0 and 1, the prompt and the first round's
// tool_use, and puts the summary where that call's results were, so the request is refused (400,
// `tool_use ids were found without tool_result blocks`) and urllib's exception ends the run.
// compact-keeps-task gives its task in a run of its own, answered in words, so the same cut keeps
// a whole pair there and the task is judged alone: the program passes it.
// docs/python-learners.md names the miss; the test after it shows the page's fix passing it.
const DAY_6_V3_MISSES = ["compact-pairs-intact"];

// The fix docs/python-learners.md gives, from the page's rule (cut between rounds): a cut falls
// only before an assistant turn or before a prompt, so the head gives up message 1 when message 2
// holds its results, and the tail starts one message earlier when it would open on results.
const CUT_BETWEEN_ROUNDS: [string, string] = [
  "\n\ndef compact(messages, keep=COMPACT_KEEP):\n" +
    "    if len(messages) <= COMPACT_THRESHOLD:\n" +
    "        return messages\n" +
    "    head, start = 2, len(messages) - keep\n",
  "\n\ndef _starts_round(message):\n" +
    '    content = message["content"]\n' +
    '    return message["role"] == "assistant" or not (isinstance(content, list) and any(\n' +
    '        isinstance(block, dict) and block.get("type") == "tool_result" for block in content))\n' +
    "\n\ndef compact(messages, keep=COMPACT_KEEP):\n" +
    "    if len(messages) <= COMPACT_THRESHOLD:\n" +
    "        return messages\n" +
    "    head, start = 2, len(messages) - keep\n" +
    "    while head > 1 and not _starts_round(messages[head]):\n" +
    "        head -= 1\n" +
    "    while start > head and not _starts_round(messages[start]):\n" +
    "        start -= 1\n",
];

// The remedy docs/python-learners.md gives: when a run stops with calls unanswered, write an
// is_error result for each after the assistant turn.
const ANSWER_THE_CUT_CALL: [string, string] = [
  '            print(f"final: Stopped: stop_reason={stop}")\n' +
    "            if session:\n" +
    "                session.append_messages(messages[-1:])\n",
  '            print(f"final: Stopped: stop_reason={stop}")\n' +
    "            if session:\n" +
    '                cut = [{"type": "tool_result", "tool_use_id": block["id"], "is_error": True,\n' +
    '                        "content": f"not run: the reply stopped on {stop}"}\n' +
    '                       for block in reply["content"] if block["type"] == "tool_use"]\n' +
    '                answers = [{"role": "user", "content": cut}] if cut else []\n' +
    "                session.append_messages(messages[-1:] + answers)\n",
];

// Day 6 v4 from the origin's memdir package: a note is `.agent/memory/<type>/<slug>.md` in the
// project, the frontmatter `type` and `title` and then the body; the slug keeps ASCII `[a-z0-9-]`
// (at most 64), else `mem-` and 8 hex digits of the title's sha1, `-1`, `-2` on a clash. Each save
// appends `- [title](type/file.md) — <the body's first 60 characters>` to `.agent/memory/MEMORY.md`
// (made with `# Memory Index`) and answers `Memory saved: [type] title -> path`. memory_recall
// scores each note by the share of the query's words found in its title and body, ignoring case,
// newest first among equals, and makes no folder. memory_recall is read-only; memory_write is a
// low-risk write, run unasked but in plan mode. The system prompt, still built once at the start,
// is the core, then `<project-rules>`, then the index (200 lines, 25 KB) in `<project-memory>`.
const DAY_6_MEMDIR = String.raw`
import hashlib

MEMORY_TYPES = ("user", "feedback", "project", "reference")
MEMORY_INDEX = "MEMORY.md"
MAX_INDEX_LINES = 200
MAX_INDEX_BYTES = 25 * 1024
LOW_RISK_WRITES = {"memory_write"}


def memory_dir(cwd=None):
    return Path(cwd or Path.cwd()) / ".agent" / "memory"


def make_slug(title):
    slug = re.sub(r"[^a-z0-9-]+", "-", title.strip().lower())
    slug = re.sub(r"-+", "-", slug).strip("-")[:64].strip("-")
    if not slug:
        slug = "mem-" + hashlib.sha1(title.encode("utf-8")).hexdigest()[:8]
    return slug


def memory_write(type, title, body):
    if type not in MEMORY_TYPES:
        return f"error: unknown memory type: {type} (one of {', '.join(MEMORY_TYPES)})"
    folder = memory_dir() / type
    folder.mkdir(parents=True, exist_ok=True)
    slug = make_slug(title)
    path = folder / f"{slug}.md"
    counter = 1
    while path.exists():
        path = folder / f"{slug}-{counter}.md"
        counter += 1
    path.write_text(f"---\ntype: {type}\ntitle: {title}\n---\n\n{body}\n", encoding="utf-8")
    index = memory_dir() / MEMORY_INDEX
    if not index.exists():
        index.write_text("# Memory Index\n\n", encoding="utf-8")
    summary = " ".join(body.split())[:60]
    with open(index, "a", encoding="utf-8") as handle:
        handle.write(f"- [{title}]({type}/{path.name}) — {summary}\n")
    return f"Memory saved: [{type}] {title} -> {path}"


def _read_memory(path):
    text = path.read_text(encoding="utf-8", errors="replace")
    meta, body = {}, text
    if text.startswith("---\n") and "\n---\n" in text[4:]:
        head, body = text[4:].split("\n---\n", 1)
        for line in head.splitlines():
            key, _, value = line.partition(":")
            meta[key.strip()] = value.strip()
    return meta, body.strip()


def memory_recall(query, top_k=5):
    keywords = query.lower().split()
    root = memory_dir()
    found = []
    for kind in MEMORY_TYPES:
        folder = root / kind
        if not keywords or not folder.is_dir():
            continue
        for path in folder.glob("*.md"):
            meta, body = _read_memory(path)
            title = meta.get("title", path.stem)
            text = f"{title}\n{body}".lower()
            score = sum(1 for word in keywords if word in text) / len(keywords)
            if score > 0:
                found.append((score, path.stat().st_mtime, meta.get("type", kind), title, path, body))
    found.sort(key=lambda item: (item[0], item[1]), reverse=True)
    if not found:
        return "(no matching memories found)"
    blocks = []
    for _, _, kind, title, path, body in found[:int(top_k)]:
        snippet = " ".join(body.split())[:200]
        blocks.append(f"## [{kind}] {title}\n  file: {path}\n  {snippet}")
    return "\n\n".join(blocks)


def load_memory_index(cwd):
    index = memory_dir(cwd) / MEMORY_INDEX
    if not index.is_file():
        return ""
    lines = index.read_text(encoding="utf-8", errors="replace").splitlines()[:MAX_INDEX_LINES]
    data = "\n".join(lines).encode("utf-8")[:MAX_INDEX_BYTES]
    return data.decode("utf-8", errors="ignore")


if LEVEL >= 19:
    READONLY_TOOLS.add("memory_recall")
    TOOLS["memory_write"] = (memory_write, "Save a memory for later sessions of this project.",
                             {"type": "object",
                              "properties": {"type": {"type": "string", "enum": list(MEMORY_TYPES)},
                                             "title": {"type": "string"},
                                             "body": {"type": "string"}},
                              "required": ["type", "title", "body"]})
    TOOLS["memory_recall"] = (memory_recall, "Find saved memories by keywords.",
                              {"type": "object",
                               "properties": {"query": {"type": "string"},
                                              "top_k": {"type": "integer", "default": 5}},
                               "required": ["query"]})


def run_tool(name, args):`;

const DAY_6_V4_EDITS: [string, string][] = [
  ...DAY_6_V3_EDITS,
  ['STAGE = "day-6-v3"', 'STAGE = "day-6-v4"'],
  ['"day-6-v2", "day-6-v3"].index(STAGE)', '"day-6-v2", "day-6-v3", "day-6-v4"].index(STAGE)'],
  ["\n\ndef run_tool(name, args):", DAY_6_MEMDIR],
  [
    '    if name in READONLY_TOOLS:\n        return "allow", None\n    if name == "bash":\n',
    '    if name in READONLY_TOOLS:\n        return "allow", None\n' +
      "    if name in LOW_RISK_WRITES:\n" +
      '        return "allow", None\n' +
      '    if name == "bash":\n',
  ],
  [
    "    rules = load_agent_md(cwd).strip()\n" +
      "    if not rules:\n" +
      "        return _SYSTEM_CORE\n" +
      '    return f"{_SYSTEM_CORE}\\n\\n<project-rules>\\n{rules}\\n</project-rules>"\n',
    "    parts = [_SYSTEM_CORE]\n" +
      "    rules = load_agent_md(cwd).strip()\n" +
      "    if rules:\n" +
      '        parts.append(f"<project-rules>\\n{rules}\\n</project-rules>")\n' +
      '    memory = load_memory_index(cwd).strip() if LEVEL >= 19 else ""\n' +
      "    if memory:\n" +
      '        parts.append(f"<project-memory>\\n{memory}\\n</project-memory>")\n' +
      '    return "\\n\\n".join(parts)\n',
  ],
];

// Day 6 v4's notes: memory_write is a low-risk write the origin runs unasked, so there is no
// question, and `n` saves the note all the same; its own result line (the whole path), notes and
// MEMORY.md in the project's `.agent/memory`, the frontmatter without `created` and the title
// unquoted, the index appended to on each save, and no frame sentence before `<project-memory>`;
// no title is checked (a newline or `](x)` is saved), the index is sent as written (no entities),
// and it is read from the project, so a planted `.agent/memory/MEMORY.md` is sent. The three core
// scenarios pass: they judge only the requests and the exit codes.
const DAY_6_V4_NOTES = ["memory-next-session-text", "memory-asks", "memory-injection"];

describe.skipIf(!HAS_PYTHON)(
  "a Python Day 6 written from the origin course (needs python3)",
  () => {
    test.each([
      ["day-6-v1", DAY_6_V1_NOTES, DAY_6_V1_MISSES, "session-continue"],
      ["day-6-v2", DAY_6_V2_NOTES, [], "rules-reach-model"],
    ] as const)(
      "passes every core scenario %s adds but its pinned misses; each other miss is a conformance note",
      async (stage, notes, misses, oneItAdds) => {
        expect(addedIds(stage)).toContain(oneItAdds);
        const command = write(stage.replaceAll("-", "_"), AGENT_CODE, atDay6(stage));
        await passesWhatItAdds(stage, command, notes, misses);
      },
      WHOLE_CONTRACT_MS,
    );

    test("answering the cut call when the run stops: session-max-tokens-tool-use passes", async () => {
      const command = write("day_6_v1_answers_the_cut_call", AGENT_CODE, [
        ...atDay6("day-6-v1"),
        ANSWER_THE_CUT_CALL,
      ]);
      const only = ["--only", "session-max-tokens-tool-use"];
      const run = await check(["day-6-v1", "--cmd", command, ...only]);
      expect(run.stdoutLines).toContain(
        "PASS  run 1's reply stops on max_tokens holding a tool_use; run 2 with -c is accepted all the same  [session-max-tokens-tool-use]",
      );
      expect(run.exitCode).toBe(0);
    }, 30_000);

    // The origin's Day 6 snapshot: its one-shot branch calls run_once without the system prompt.
    test("the system prompt only in the REPL, as the snapshot's cli.py: rules-reach-model fails", async () => {
      const command = write("day_6_v2_rules_only_in_the_repl", AGENT_CODE, [
        ...atDay6("day-6-v2"),
        [
          "        run_agent(options.prompt, complete, options.max_steps, session, system)",
          "        run_agent(options.prompt, complete, options.max_steps, session)",
        ],
      ]);
      const run = await check(["day-6-v2", "--cmd", command, "--only", "rules-reach-model"]);
      expect(run.exitCode).toBe(1);
      expect(failIds(run.stdoutLines)).toEqual(["rules-reach-model"]);
    }, 30_000);

    test(
      "passes every core scenario day-6-v3 adds but its pinned misses; each other miss is a conformance note",
      async () => {
        expect(addedIds("day-6-v3")).toContain("compact-keeps-task");
        const command = write("day_6_v3", AGENT_CODE, DAY_6_V3_EDITS);
        const run = await passesWhatItAdds("day-6-v3", command, DAY_6_V3_NOTES, DAY_6_V3_MISSES);
        expect(run.stdout).toContain(
          "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_day6_read_1.",
        );
      },
      WHOLE_CONTRACT_MS,
    );

    test("cutting only between rounds, as the page does: the pinned miss of day-6-v3 passes", async () => {
      const command = write("day_6_v3_cuts_between_rounds", AGENT_CODE, [
        ...DAY_6_V3_EDITS,
        CUT_BETWEEN_ROUNDS,
      ]);
      const only = DAY_6_V3_MISSES.flatMap((id) => ["--only", id]);
      const run = await check(["day-6-v3", "--cmd", command, ...only]);
      const passed = run.stdoutLines
        .filter((line) => line.startsWith("PASS  "))
        .map((line) => line.replace(/.*\[(.*)\]$/, "$1"));
      expect(passed).toEqual(DAY_6_V3_MISSES);
      expect(run.exitCode).toBe(0);
    }, 30_000);

    test(
      "passes every core scenario day-6-v4 adds; each miss is a conformance note",
      async () => {
        expect(addedIds("day-6-v4")).toContain("memory-next-session");
        const command = write("day_6_v4", AGENT_CODE, DAY_6_V4_EDITS);
        await passesWhatItAdds("day-6-v4", command, DAY_6_V4_NOTES);
      },
      WHOLE_CONTRACT_MS,
    );

    // The same slip of the snapshot's cli.py at v4: a one-shot run 2 is sent no memory index.
    test("the system prompt only in the REPL, as the snapshot's cli.py: memory-next-session fails", async () => {
      const command = write("day_6_v4_memory_only_in_the_repl", AGENT_CODE, [
        ...DAY_6_V4_EDITS,
        [
          "        run_agent(options.prompt, complete, options.max_steps, session, system)",
          "        run_agent(options.prompt, complete, options.max_steps, session)",
        ],
      ]);
      const run = await check(["day-6-v4", "--cmd", command, "--only", "memory-next-session"]);
      expect(run.exitCode).toBe(1);
      expect(failIds(run.stdoutLines)).toEqual(["memory-next-session"]);
      expect(run.stdout).toContain(
        "run 2's first request should carry the saved memory's title (in `system` or a message)",
      );
    }, 30_000);
  },
);

// Day 7 v1 from the origin's slash.py: a registry of commands by name, each with a description and
// a handler given a snapshot of the run (cwd, mode, model, provider, session id), answering a
// message, or a prompt to send to the model. `dispatch_slash` splits the line after its `/` with
// shlex (an open quote answers `Invalid command syntax: …`), an empty one is not a command, and an
// unknown name answers `Unknown command: /x`; every answer is printed on stdout and exits 0.
// `/help` lists the registry sorted under a heading, `/model` and `/context` show the run, and
// `/compact`, `/permissions` and `/plan` only say what to do (start again with
// --permission-mode; the approval loop is Day 8's). The cli's `run_user_input` sends every line,
// one-shot or REPL, through the registry first: a one-shot command is answered before the header,
// the provider, a new session or a request. A session is opened only for `-c` or `--resume`
// before that; a new one is made when a prompt goes to the model (one-shot) or the REPL starts.
// The REPL's `/exit` says `Bye.`; `/quit` is now an unknown command.
const DAY_7_SLASH = String.raw`
import shlex
from dataclasses import dataclass


@dataclass
class SlashContext:
    cwd: Path
    permission_mode: str
    model: str
    provider: str
    session_id: str = None


@dataclass
class SlashResult:
    handled: bool = True
    should_query: bool = False
    prompt: str = ""
    message: str = ""


SLASH_COMMANDS = {}


def register(name, description, handler):
    SLASH_COMMANDS[name] = (description, handler)


def dispatch_slash(line, ctx):
    if not line.startswith("/"):
        return SlashResult(handled=False)
    try:
        words = shlex.split(line[1:].strip())
    except ValueError as exc:
        return SlashResult(message=f"Invalid command syntax: {exc}")
    if not words:
        return SlashResult(handled=False)
    name, args = words[0], words[1:]
    if name not in SLASH_COMMANDS:
        return SlashResult(message=f"Unknown command: /{name}")
    return SLASH_COMMANDS[name][1](args, ctx)


def slash_help(args, ctx):
    lines = ["Available commands:"]
    for name in sorted(SLASH_COMMANDS):
        lines.append(f"  /{name}  {SLASH_COMMANDS[name][0]}")
    return SlashResult(message="\n".join(lines))


def slash_model(args, ctx):
    if args:
        return SlashResult(message=f"The model cannot change while running. Now: {ctx.provider}/{ctx.model}")
    return SlashResult(message=f"provider: {ctx.provider}  model: {ctx.model}")


def slash_context(args, ctx):
    return SlashResult(message=f"cwd: {ctx.cwd}\nsession: {ctx.session_id or '(none)'}\n"
                               f"permission: {ctx.permission_mode}\nmodel: {ctx.provider}/{ctx.model}")


def slash_compact(args, ctx):
    return SlashResult(message="compact: only automatic for now; the loop compacts when the "
                               "messages pass the threshold.")


RESTART = "Modes do not switch inside the REPL yet. Start again with --permission-mode {}."


def slash_permissions(args, ctx):
    modes = ["default", "acceptEdits", "plan"]
    if not args:
        return SlashResult(message=f"permission mode: {ctx.permission_mode}\navailable: {', '.join(modes)}")
    if args[0] not in modes:
        return SlashResult(message=f"Unknown mode: {args[0]}. Use: {', '.join(modes)}")
    return SlashResult(message=RESTART.format(args[0]))


def slash_plan(args, ctx):
    if args and args[0] == "off":
        return SlashResult(message=RESTART.format("default"))
    if ctx.permission_mode == "plan":
        return SlashResult(message="Already in plan mode. Approving a plan arrives on Day 8.")
    return SlashResult(message="For plan mode, start again with --permission-mode plan. "
                               "Approving a plan arrives on Day 8.")


register("help", "list the slash commands", slash_help)
register("model", "show the provider and model", slash_model)
register("context", "show the session, cwd and permission mode", slash_context)
register("compact", "say how compaction works", slash_compact)
register("permissions", "show the permission mode (default/acceptEdits/plan)", slash_permissions)
register("plan", "say how to enter plan mode", slash_plan)


def header(options, session=None):`;

const DAY_7_V1_EDITS: [string, string][] = [
  ...DAY_6_V4_EDITS,
  ['STAGE = "day-6-v4"', 'STAGE = "day-7-v1"'],
  ['"day-6-v3", "day-6-v4"].index(STAGE)', '"day-6-v3", "day-6-v4", "day-7-v1"].index(STAGE)'],
  ["\n\ndef header(options, session=None):", DAY_7_SLASH],
  [
    "def repl(complete, options, session=None, system=None):\n" +
      "    for line in sys.stdin:\n" +
      "        line = line.strip()\n" +
      '        if line in ("/exit", "/quit"):\n' +
      "            return\n" +
      '        if line == "/help":\n' +
      '            print("Commands: /help, /exit, /quit")\n' +
      '        elif line.startswith("/"):\n' +
      '            print(f"Unknown command {line}. Type /help.")\n' +
      "        elif line:\n" +
      "            run_agent(line, complete, options.max_steps, session, system)\n",
    "def repl(run_user_input):\n" +
      '    print("Type /help for the commands, /exit to leave.")\n' +
      "    for line in sys.stdin:\n" +
      "        line = line.strip()\n" +
      '        if line == "/exit":\n' +
      '            print("Bye.")\n' +
      "            return\n" +
      "        if line:\n" +
      "            run_user_input(line)\n",
  ],
  [
    "    complete = create_provider(options.provider, options.model, options.base_url)\n" +
      "    session = open_session(options)\n" +
      "    system = build_system_prompt(Path(options.cwd).resolve()) if LEVEL >= 17 else None\n" +
      "    header(options, session)\n" +
      "    os.chdir(options.cwd)\n" +
      "    if options.prompt:\n" +
      "        run_agent(options.prompt, complete, options.max_steps, session, system)\n" +
      "    else:\n" +
      "        repl(complete, options, session, system)\n",
    "    cwd = Path(options.cwd).resolve()\n" +
      "    session = open_session(options) if options.continue_session or options.resume else None\n" +
      "    system = build_system_prompt(cwd)\n" +
      "    started = False\n" +
      "\n" +
      "    def start():\n" +
      "        nonlocal session, started\n" +
      "        if session is None:\n" +
      "            session = Session.create(cwd)\n" +
      "        if not started:\n" +
      "            header(options, session)\n" +
      "            os.chdir(options.cwd)\n" +
      "            started = True\n" +
      "\n" +
      "    def run_user_input(line):\n" +
      "        context = SlashContext(cwd, MODE, options.model, options.provider,\n" +
      "                               session.id if session else None)\n" +
      "        result = dispatch_slash(line, context)\n" +
      "        if result.handled:\n" +
      "            if result.message:\n" +
      "                print(result.message)\n" +
      "            if not result.should_query:\n" +
      "                return\n" +
      "            line = result.prompt\n" +
      "        start()\n" +
      "        complete = create_provider(options.provider, options.model, options.base_url)\n" +
      "        run_agent(line, complete, options.max_steps, session, system)\n" +
      "\n" +
      "    if options.prompt.strip():\n" +
      "        run_user_input(options.prompt.strip())\n" +
      "    else:\n" +
      "        start()\n" +
      "        repl(run_user_input)\n",
  ],
];

// Day 7 v1's notes: the origin's texts (`Available commands:` and `  /name  what it does`, sorted,
// no `/exit` or `/clear` among them; `/context` as `cwd:`, `session: (none)`, `permission:` and
// `model: provider/model`; `Unknown command: /nope` on stdout and exit 0); `/model o'brien` says
// `Invalid command syntax: No closing quotation` and exits 0; `/compact` only says how compaction
// works, `/permissions` and `/plan` say to start again with --permission-mode, and there is no
// `/clear`. Day 1's `repl-help-exit` asks for a `commands: ` line naming `/help` and `/exit`,
// which the origin's list under its heading never prints.
const DAY_7_V1_NOTES = [
  "slash-help-no-request-text",
  "slash-one-shot-no-session-text",
  "slash-unknown-text",
  // Its dispatch_slash takes every line that starts with `/`: a path is an unknown command.
  "slash-path-is-prompt",
  "slash-apostrophe",
  "slash-compact-now",
  "slash-clear",
  "slash-permissions-mode",
  "repl-help-exit",
];

// Day 7 v2 from the origin's hooks.py: a `hooks.json` in the working folder, read at every tool
// call, `{"hooks": {"PreToolUse": [entry], "PostToolUse": [entry]}}` or the bare map; an entry is
// `{matcher, run}` or `{matcher, hooks: [{type: "command", command}]}`, its matcher `*`, a tool's
// name or names joined by `|`. A command runs with the shell in the working folder, the whole
// environment and 30 s, its stdin one JSON object (event, tool name and input, result, cwd); exit
// 0 is success, and its output is stdout, or stderr when stdout is empty. PreToolUse runs once the
// gate has allowed or asked (a deny never reaches it), before the preview and the question; the
// first hook that fails blocks the call with an `is_error` result. PostToolUse runs after a result
// that is not an error (a tool's own `error: …` text counts as success) and prints a line the model
// never sees. Not JSON: a warning, and no hooks. The stage's bug fix: a file tool given an empty
// `file_path` or a folder says so as an error instead of raising.
const DAY_7_HOOKS = String.raw`
HOOK_TIMEOUT = 30


def load_hooks(cwd):
    path = Path(cwd) / "hooks.json"
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        print(f"warning: hooks.json is not valid JSON, no hooks loaded: {exc}", file=sys.stderr)
        return {}
    return data.get("hooks", data)


def hook_matches(matcher, tool_name):
    return matcher == "*" or tool_name in str(matcher).split("|")


def hook_commands(entry):
    if "run" in entry:
        return [entry["run"]]
    return [hook["command"] for hook in entry.get("hooks", []) if hook.get("type") == "command"]


def _run_hook_command(command, payload):
    try:
        proc = subprocess.run(command, shell=True, cwd=Path.cwd(), input=json.dumps(payload),
                              capture_output=True, text=True, timeout=HOOK_TIMEOUT)
    except subprocess.TimeoutExpired:
        return False, f"timed out after {HOOK_TIMEOUT}s"
    return proc.returncode == 0, proc.stdout.strip() or proc.stderr.strip()


def run_hooks(event, tool_name, tool_input, tool_result=None):
    for entry in load_hooks(Path.cwd()).get(event, []):
        if not hook_matches(entry.get("matcher", "*"), tool_name):
            continue
        for command in hook_commands(entry):
            payload = {"event": event, "tool_name": tool_name, "tool_input": tool_input,
                       "tool_result": tool_result, "cwd": str(Path.cwd())}
            ok, output = _run_hook_command(command, payload)
            yield command, ok, output


def pre_tool_use(name, args):
    for command, ok, output in run_hooks("PreToolUse", name, args):
        if not ok:
            return f"tool blocked by PreToolUse hook:\n  [hook] {command}: {output}"
    return None


def post_tool_use(name, args, result):
    for command, ok, output in run_hooks("PostToolUse", name, args, result):
        print(f"hook: PostToolUse {name} " + ("ok" if ok else f"warning: {command}: {output}"))


def run_tool(name, args):`;

const DAY_7_V2_EDITS: [string, string][] = [
  ...DAY_7_V1_EDITS,
  ['STAGE = "day-7-v1"', 'STAGE = "day-7-v2"'],
  ['"day-6-v4", "day-7-v1"].index(STAGE)', '"day-6-v4", "day-7-v1", "day-7-v2"].index(STAGE)'],
  ["\n\ndef run_tool(name, args):", DAY_7_HOOKS],
  [
    '    if name in ("file_write", "file_edit"):\n' +
      '        return guarded_write(name, args, ask=behavior == "ask")\n' +
      '    if behavior == "ask" and (answer := ask_first(name, args)) is not None:\n' +
      "        return answer\n" +
      "    return str(function(**args)), False\n",
    "    blocked = pre_tool_use(name, args)\n" +
      "    if blocked:\n" +
      "        return blocked, True\n" +
      "    content, is_error = call_tool(name, function, args, behavior)\n" +
      "    if not is_error:\n" +
      "        post_tool_use(name, args, content)\n" +
      "    return content, is_error\n" +
      "\n" +
      "\n" +
      "def call_tool(name, function, args, behavior):\n" +
      '    if name in ("file_write", "file_edit"):\n' +
      '        return guarded_write(name, args, ask=behavior == "ask")\n' +
      '    if behavior == "ask" and (answer := ask_first(name, args)) is not None:\n' +
      "        return answer\n" +
      "    return str(function(**args)), False\n",
  ],
  [
    "    # The interceptor: every check before the diff; a failed one asks nothing.\n" +
      "    try:\n" +
      '        target = resolve_in_cwd(args["file_path"])\n' +
      "    except ValueError as exc:\n" +
      '        return f"error: {exc}", False\n',
    "    # The interceptor: every check before the diff; a failed one asks nothing.\n" +
      '    if not args["file_path"]:\n' +
      "        return \"error: missing required argument 'file_path'\", True\n" +
      "    try:\n" +
      '        target = resolve_in_cwd(args["file_path"])\n' +
      "    except ValueError as exc:\n" +
      '        return f"error: {exc}", False\n' +
      "    if target.is_dir():\n" +
      "        return f\"error: path is a directory: {args['file_path']}\", True\n",
  ],
];

// Day 7 v4 from the origin's scheduler.py and cron_tools.py: a job (12 hex digits of id, the
// slash command or prompt it sends, every N seconds, a label, when it last ran and was made) is
// kept in the project's `.agent/cron.json` as `{"jobs": [...]}`, written in place at each change.
// The REPL's scheduler loads them when it starts and a daemon thread ticks every second, only
// queueing each job that is due (N seconds after it last ran, or was made). The REPL becomes an
// input thread and a main loop that polls every 0.5 s, runs the queued jobs first (`cron: running
// scheduled job → …`, then the text as if typed) and then a typed line. The text does not say how
// a question asked during a run reads its answer; this input thread reads a line only once the
// loop is done with the last one, so the answer is the next line, as in Day 6's REPL. A one-shot
// run starts no scheduler: its tools and `/loop` only write the file. `cron_create` (every_seconds
// made an int outside any try), `cron_list` and `cron_cancel`; `cron_list` is read-only and the
// other two join the low-risk writes, so none asks. `/loop add <text> --every N|Ns|Nm|Nh [--label
// L]`, `/loop list` and `/loop cancel <id>` go through the same shlex split as every command.
const DAY_7_CRON = String.raw`
import queue
import time
from dataclasses import asdict, dataclass


@dataclass
class CronJob:
    id: str
    slash: str
    every_seconds: int
    label: str = ""
    last_run_at: float = None
    created_at: float = 0.0


class CronScheduler:
    def __init__(self, cwd):
        self.path = Path(cwd) / ".agent" / "cron.json"
        self.lock = threading.Lock()
        self.due = queue.Queue()
        self.jobs = self._load_jobs()

    def _load_jobs(self):
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            return []
        return [CronJob(**job) for job in data.get("jobs", [])]

    def _save_jobs(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        jobs = [asdict(job) for job in self.jobs]
        self.path.write_text(json.dumps({"jobs": jobs}, indent=2), encoding="utf-8")

    def add(self, slash, every_seconds, label=""):
        job = CronJob(uuid.uuid4().hex[:12], slash, every_seconds, label, None, time.time())
        with self.lock:
            self.jobs.append(job)
            self._save_jobs()
        return job

    def cancel(self, job_id):
        with self.lock:
            kept = [job for job in self.jobs if job.id != job_id]
            if len(kept) == len(self.jobs):
                return False
            self.jobs = kept
            self._save_jobs()
        return True

    def start(self):
        threading.Thread(target=self._tick, daemon=True).start()

    def _tick(self):
        while True:
            time.sleep(1)
            now = time.time()
            with self.lock:
                due = [job for job in self.jobs
                       if now - (job.last_run_at or job.created_at) >= job.every_seconds]
                for job in due:
                    job.last_run_at = now
                    self.due.put(job)
                if due:
                    self._save_jobs()


_SCHEDULER = None


def get_scheduler(cwd=None):
    global _SCHEDULER
    if _SCHEDULER is None:
        _SCHEDULER = CronScheduler(cwd or Path.cwd())
    return _SCHEDULER


def describe_job(job):
    label = f"  [{job.label}]" if job.label else ""
    return f"{job.id}  every {job.every_seconds}s  {job.slash}{label}"


def cron_create(slash, every_seconds, label=""):
    every_seconds = int(every_seconds)
    job = get_scheduler().add(slash, every_seconds, label)
    return f"Cron job created: {job.id} — every {every_seconds}s: {slash}"


def cron_list():
    jobs = get_scheduler().jobs
    return "\n".join(describe_job(job) for job in jobs) if jobs else "No cron jobs."


def cron_cancel(id):
    if get_scheduler().cancel(id):
        return f"Cron job cancelled: {id}"
    return f"error: job not found: {id}"


READONLY_TOOLS.add("cron_list")
LOW_RISK_WRITES.update({"cron_create", "cron_cancel"})
TOOLS["cron_create"] = (cron_create, "Run a slash command or prompt every N seconds in the REPL.",
                        {"type": "object",
                         "properties": {"slash": {"type": "string"},
                                        "every_seconds": {"type": "integer"},
                                        "label": {"type": "string"}},
                         "required": ["slash", "every_seconds"]})
TOOLS["cron_list"] = (cron_list, "List the scheduled jobs.",
                      {"type": "object", "properties": {}, "required": []})
TOOLS["cron_cancel"] = (cron_cancel, "Cancel a scheduled job by its id.",
                        {"type": "object", "properties": {"id": {"type": "string"}},
                         "required": ["id"]})


def run_tool(name, args):`;

const DAY_7_LOOP = String.raw`
LOOP_USAGE = ("Usage: /loop add <slash or prompt> --every <N|Ns|Nm|Nh> [--label L] | /loop list | "
              "/loop cancel <id>")


def parse_every(text):
    match = re.fullmatch(r"(\d+)([smh]?)", text)
    if not match:
        raise ValueError(f"Invalid interval: {text}. Use N, Ns, Nm or Nh.")
    return int(match.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[match.group(2)]


def slash_loop(args, ctx):
    scheduler = get_scheduler(ctx.cwd)
    if not args or args == ["list"]:
        return SlashResult(message=cron_list())
    if args[0] == "cancel" and len(args) == 2:
        return SlashResult(message=cron_cancel(args[1]))
    if args[0] != "add":
        return SlashResult(message=LOOP_USAGE)
    words, every, label = [], None, ""
    rest = iter(args[1:])
    for word in rest:
        if word == "--every":
            every = next(rest, None)
        elif word == "--label":
            label = next(rest, "")
        else:
            words.append(word)
    if not words or every is None:
        return SlashResult(message=LOOP_USAGE)
    try:
        seconds = parse_every(every)
    except ValueError as exc:
        return SlashResult(message=str(exc))
    job = scheduler.add(" ".join(words), seconds, label)
    return SlashResult(message=f"Cron job created: {job.id} — every {seconds}s: {job.slash}")


register("loop", "run a command or prompt on a timer (add … --every 5m, list, cancel)", slash_loop)


def header(options, session=None):`;

const DAY_7_V4_EDITS: [string, string][] = [
  ...DAY_7_V2_EDITS,
  ['STAGE = "day-7-v2"', 'STAGE = "day-7-v4"'],
  [
    '"day-7-v1", "day-7-v2"].index(STAGE)',
    '"day-7-v1", "day-7-v2", "day-7-v3", "day-7-v4"].index(STAGE)',
  ],
  ["\n\ndef run_tool(name, args):", DAY_7_CRON],
  ["\n\ndef header(options, session=None):", DAY_7_LOOP],
  [
    "def repl(run_user_input):\n" +
      '    print("Type /help for the commands, /exit to leave.")\n' +
      "    for line in sys.stdin:\n" +
      "        line = line.strip()\n" +
      '        if line == "/exit":\n' +
      '            print("Bye.")\n' +
      "            return\n" +
      "        if line:\n" +
      "            run_user_input(line)\n",
    "def repl(run_user_input, scheduler):\n" +
      '    print("Type /help for the commands, /exit to leave.")\n' +
      "    lines = queue.Queue()\n" +
      "    wanted = threading.Event()\n" +
      "\n" +
      "    def read_lines():\n" +
      "        while True:\n" +
      "            wanted.wait()\n" +
      "            wanted.clear()\n" +
      "            line = sys.stdin.readline()\n" +
      "            lines.put(line)\n" +
      "            if not line:\n" +
      "                return\n" +
      "\n" +
      "    threading.Thread(target=read_lines, daemon=True).start()\n" +
      "    scheduler.start()\n" +
      "    wanted.set()\n" +
      "    while True:\n" +
      "        while not scheduler.due.empty():\n" +
      "            job = scheduler.due.get()\n" +
      '            print(f"cron: running scheduled job → {job.slash}")\n' +
      "            run_user_input(job.slash)\n" +
      "        try:\n" +
      "            line = lines.get(timeout=0.5)\n" +
      "        except queue.Empty:\n" +
      "            continue\n" +
      "        if not line:\n" +
      "            return\n" +
      "        line = line.strip()\n" +
      '        if line == "/exit":\n' +
      '            print("Bye.")\n' +
      "            return\n" +
      "        if line:\n" +
      "            run_user_input(line)\n" +
      "        wanted.set()\n",
  ],
  ["        repl(run_user_input)\n", "        repl(run_user_input, get_scheduler(cwd))\n"],
];

// Day 7 v2's notes. Every hook of these scenarios is in a settings file (the person's, or a
// project's `.agent/settings.json`), and the origin reads only a `hooks.json` in the working
// folder, so no hook runs: each bash or file_write call is asked about (bypassPermissions is the
// default mode for it) and the empty stdin says no. Nothing is written, the run exits 0, and what
// misses is the result's text (`blocked by …`, `hook failed …`, `hook timed out …`), the
// PostToolUse hook's file and the hook's environment file. `--deny` is an unknown option (exit 2),
// `hooks approve` a prompt and a word too many (exit 2, no approval file, no note); of
// hook-settings-write-refused only its bash judgement misses (the person's no, not a refusal to
// approve hooks); and a settings file is never read, so `permisions` stops nothing (as in
// day-5-v5). hook-never-allows passes: no hook runs to answer allow, and the question is asked as
// ever.
const DAY_7_V2_NOTES = [
  "hook-pre-blocks",
  "hook-pre-crash-blocks",
  "hook-pre-timeout-group-killed",
  "hook-post-runs",
  "hook-deny-skips",
  "hook-env-scrubbed",
  "hook-untrusted-ignored",
  "hook-changed-needs-approval",
  "hook-settings-write-refused",
  "settings-unknown-key",
];

// Day 7 v4's notes. `/loop add don't stop: say the time --every 1s` is split by shlex, which
// answers `Invalid command syntax: No closing quotation`: no job starts, no request comes, and the
// REPL waits for the `/exit` that the scenario types only after a request, until the checker stops
// it at its 20 s timeout. cron_create is a low-risk write: it runs unasked, so the `n` meant for
// the question is the next prompt, past the fake server's script (its 500 is a stack trace); plan
// mode's denial reads `error: plan mode: …`; a one-shot run writes the job to `.agent/cron.json`.
// The jobs live in that file, not in the session, and a REPL that sent nothing wrote no session, so
// `-c` says `No previous session found in this directory.` and exits 1. A planted
// `.agent/cron.json` is listed, and its job fires within a second (made at time 0), before the
// person's: the repository sends a prompt. `/help` lists `/loop` under its heading.
const DAY_7_V4_NOTES = [
  "loop-fires",
  "loop-asks",
  "loop-plan-denied",
  "loop-one-shot-refused",
  "loop-paused-on-resume",
  "loop-repo-file-ignored",
  "slash-help-no-request-text",
];
// Day 7 v4 adds no core scenario, but its program changes what every tool call (hooks) and every
// REPL line (the input thread) passes through, so it runs every core scenario it carries: each
// passes but Day 6's two, which the course text fails on purpose (pinned there).
const DAY_7_V4_MISSES = [...DAY_6_V3_MISSES, ...DAY_6_V1_MISSES];

// The judgements a scenario missed, as the block under its NOTE or FAIL line lists them.
function missesOf(stdoutLines: string[], id: string): string[] {
  const start = stdoutLines.findIndex((line) => line.endsWith(`[${id}]`));
  expect(start).toBeGreaterThan(-1);
  const block = stdoutLines.slice(start + 1);
  const end = block.findIndex((line) => !line.startsWith("      "));
  return block
    .slice(0, end === -1 ? undefined : end)
    .filter((line) => line.startsWith("      - "))
    .map((line) => line.slice(8));
}

describe.skipIf(!HAS_PYTHON)(
  "a Python Day 7 written from the origin course (needs python3)",
  () => {
    test(
      "passes every core scenario day-7-v1 adds; each miss is a conformance note",
      async () => {
        expect(addedIds("day-7-v1")).toEqual(
          expect.arrayContaining(["slash-help-no-request", "repl-help-exit"]),
        );
        const command = write("day_7_v1", AGENT_CODE, DAY_7_V1_EDITS);
        await passesWhatItAdds("day-7-v1", command, DAY_7_V1_NOTES);
      },
      WHOLE_CONTRACT_MS,
    );

    // Of Day 1's REPL scenario, carried with its `/help` judgement loosened, only that judgement
    // misses: the REPL exits 0, prints no prompt, and `/exit` says `Bye.` and stops reading.
    test("repl-help-exit misses only its `commands: ` line: the origin's /help lists under a heading", async () => {
      const command = write("day_7_v1_repl_help", AGENT_CODE, DAY_7_V1_EDITS);
      const run = await check(["day-7-v1", "--cmd", command, "--only", "repl-help-exit"]);
      expect(run.exitCode).toBe(0);
      const note = run.stdoutLines.findIndex((line) => line.endsWith("[repl-help-exit]"));
      const misses = run.stdoutLines
        .slice(note + 1)
        .filter((line) => line.startsWith("      - "))
        .map((line) => line.slice(8));
      expect(run.stdoutLines[note]).toMatch(/^NOTE {2}/);
      expect(misses).toEqual([
        "/help should print a line that starts `commands: ` and names `/help` and `/exit`",
      ]);
    }, 30_000);

    // The Day 6 cli, which sends a one-shot prompt to the model as it is: each core scenario fails.
    test("a one-shot `/…` not routed through the registry: the three core scenarios fail", async () => {
      const command = write("day_7_v1_one_shot_not_routed", AGENT_CODE, [
        ...DAY_7_V1_EDITS,
        [
          "        run_user_input(options.prompt.strip())\n",
          "        start()\n" +
            "        complete = create_provider(options.provider, options.model, options.base_url)\n" +
            "        run_agent(options.prompt, complete, options.max_steps, session, system)\n",
        ],
      ]);
      const core = ["slash-help-no-request", "slash-one-shot-no-session", "slash-unknown"];
      const run = await check([
        "day-7-v1",
        "--cmd",
        command,
        ...core.flatMap((id) => ["--only", id]),
      ]);
      expect(failIds(run.stdoutLines)).toEqual(core);
      expect(run.stdout).toContain("`/help` should send no request to the model");
      expect(run.exitCode).toBe(1);
    }, 30_000);

    test(
      "passes every core scenario day-7-v2 adds (none); each miss is a conformance note",
      async () => {
        expect(addedIds("day-7-v2")).toContain("hook-pre-blocks");
        const command = write("day_7_v2", AGENT_CODE, DAY_7_V2_EDITS);
        await passesWhatItAdds("day-7-v2", command, DAY_7_V2_NOTES);
      },
      WHOLE_CONTRACT_MS,
    );

    // day-7-v3 changes how agent-code is started, which no scenario sees: it has no program here.
    test(
      "passes every core scenario of day-7-v4 but Day 6's pinned two; each miss of what it adds is a conformance note",
      async () => {
        expect(addedIds("day-7-v3")).toEqual([]);
        const carried = coreIdsCarried("day-7-v4");
        expect(carried).toEqual(
          expect.arrayContaining(["slash-unknown", "bash-no", "repl-runs-each-line"]),
        );
        const command = write("day_7_v4", AGENT_CODE, DAY_7_V4_EDITS);
        const run = await passesWhatItAdds(
          "day-7-v4",
          command,
          DAY_7_V4_NOTES,
          DAY_7_V4_MISSES,
          carried,
        );
        expect(missesOf(run.stdoutLines, "loop-fires")).toEqual([
          "the run did not finish in time and was stopped",
        ]);
        expect(missesOf(run.stdoutLines, "loop-repo-file-ignored")).toEqual([
          "`/loop list` should print `no loops`: no project file holds a loop",
          "the first request should be the person's loop (`[loop loop_1, every 1s] say hi`), and no request should carry the planted job",
        ]);
      },
      WHOLE_CONTRACT_MS,
    );
  },
);

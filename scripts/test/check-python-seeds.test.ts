// A Python project that follows the course texts literally where they differ from these stages
// (docs/decisions/0018-core-judgements.md): argument names checked but not types, `Stopped: …` for
// every stop reason but end_turn and tool_use, its own error, usage and REPL texts, uncaught
// exceptions, dict reprs and x-api-key. Correct by that material, it must pass every core scenario
// of each stage it implements; each broken variant must fail the scenario aimed at it.
import { describe, expect, test } from "vitest";
import { HAS_PYTHON, noteIds, pythonProjects, WHOLE_CONTRACT_MS } from "./python-project.ts";

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


def repl(complete, max_steps):
    for line in sys.stdin:
        line = line.strip()
        if line in ("/exit", "/quit"):
            return
        if line == "/help":
            print("Commands: /help, /exit, /quit")
        elif line.startswith("/"):
            print(f"Unknown command {line}. Type /help.")
        elif line:
            run_agent(line, complete, max_steps)


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
    print("Agent Code")
    print(f"cwd: {os.path.abspath(options.cwd)}")
    if LEVEL >= 3:
        print(f"provider: {options.provider}  model: {options.model}")
        if options.base_url:
            print(f"base URL: {options.base_url}")
    print()
    if options.prompt:
        run_agent(options.prompt, complete, options.max_steps)
    else:
        repl(complete, options.max_steps)


main()
`;

const { write, check } = pythonProjects("check-python-seeds-");

function atStage(stage: string, name = stage, edits: [string, string][] = []): string {
  return write(name.replaceAll("-", "_"), AGENT_CODE, [
    ['STAGE = "day-2-v3"', `STAGE = "${stage}"`],
    ...edits,
  ]);
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
    edits: [
      [
        'results.append({"type": "tool_result"',
        'messages.append({"role": "user", "content": [{"type": "tool_result"',
      ],
      [
        '"content": content, "is_error": is_error})',
        '"content": content, "is_error": is_error}]})',
      ],
      ['messages.append({"role": "user", "content": results})', "pass"],
    ],
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
        "            run_agent(line, complete, max_steps)",
        "            return run_agent(line, complete, max_steps)",
      ],
    ],
    scenario: "repl-runs-each-line",
    message: "expected one echo tool call per input line, `one` then `two`",
  },
];

describe.skipIf(!HAS_PYTHON)(
  "a Python project written from the course texts (needs python3)",
  () => {
    test.each(Object.entries(NOTES))(
      "passes every core scenario of %s; each miss is a conformance note",
      async (stage, notes) => {
        const run = await check([stage, "--cmd", atStage(stage)]);
        expect(run.stdout).not.toMatch(/^FAIL/m);
        expect(run.exitCode).toBe(0);
        expect(noteIds(run.stdoutLines)).toEqual(notes);
        expect(run.stdoutLines.at(-1)).toBe(`highest stage passed: ${stage}`);
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

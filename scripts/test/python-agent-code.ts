// A learner's agent-code in Python, Day 2 v3, with the standard library only: trace arguments as
// dict reprs, x-api-key, a traceback when the key is missing. The Python project tests and the
// class-grading test run it.
export const AGENT_CODE = String.raw`# agent-code, Day 2 v3, in Python with the standard library only.
import argparse
import json
import os
import re
import sys
import time
import urllib.error
import urllib.request

TOOLS = [
    {
        "name": "echo",
        "description": "Repeat the given text back.",
        "input_schema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
            "additionalProperties": False,
        },
    },
    {
        "name": "system_date",
        "description": "Return the current local date, time and time zone.",
        "input_schema": {"type": "object", "properties": {}},
    },
]
JSON_TYPES = {str: "string", bool: "boolean", int: "integer", float: "number", list: "array",
              dict: "object", type(None): "null"}


class ApiError(Exception):
    pass


def run_tool(name, args):
    tool = next((tool for tool in TOOLS if tool["name"] == name), None)
    if tool is None:
        names = ", ".join(tool["name"] for tool in TOOLS)
        return f"unknown tool: {name} (available: {names})", True
    problem = bad_arguments(args, tool["input_schema"])
    if problem:
        return f"bad arguments for {name}: {problem}", True
    if name == "echo":
        return args["text"], False
    return time.strftime("%Y-%m-%d %H:%M:%S %Z"), False


def bad_arguments(args, schema):
    for name in schema.get("required", []):
        if name not in args:
            return f'missing required property "{name}"'
    for name, value in args.items():
        expected = schema["properties"].get(name)
        if expected is None:
            if schema.get("additionalProperties") is False:
                return f'unexpected property "{name}"'
            continue
        got = JSON_TYPES.get(type(value), "object")
        if got != expected["type"]:
            return f'property "{name}" should be {expected["type"]}, got {got}'
    return None


def mock(messages):
    content = messages[-1]["content"]
    if isinstance(content, list):
        text = f"echo tool returned: {content[0]['content']}"
        return {"content": [{"type": "text", "text": text}], "stop_reason": "end_turn"}
    text = re.sub(r"^echo ", "", content, flags=re.I)
    text = re.sub(r"(using|with) the echo tool$", "", text, flags=re.I)
    text = re.sub(r"[.,;:!?]+$", "", text).strip() or content
    call = {"type": "tool_use", "id": "call_echo_1", "name": "echo", "input": {"text": text}}
    return {"content": [call], "stop_reason": "tool_use"}


def anthropic(options):
    base_url = options.base_url or os.environ.get("ANTHROPIC_BASE_URL") or "https://api.deepseek.com/anthropic"
    timeout = int(os.environ.get("AGENT_CODE_TIMEOUT_MS", "60000")) / 1000

    def complete(messages):
        # No key is a traceback here: the checker judges the exit code and the variable it names.
        key = os.environ.get("ANTHROPIC_API_KEY") or os.environ["ANTHROPIC_AUTH_TOKEN"]
        body = {"model": options.model, "max_tokens": 1024, "messages": messages, "tools": TOOLS}
        request = urllib.request.Request(
            base_url.rstrip("/") + "/v1/messages",
            data=json.dumps(body).encode(),
            headers={"content-type": "application/json", "x-api-key": key,
                     "anthropic-version": "2023-06-01"},
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return json.load(response)
        except urllib.error.HTTPError as error:
            if error.code in (401, 403):
                raise ApiError(f"authentication failed at {base_url} ({error.code})")
            raise ApiError(f"{base_url} answered {error.code}: {error.read().decode()}")
        except OSError as error:
            raise ApiError(f"could not reach {base_url}: {error}")

    return complete


def run_agent(prompt, complete, max_steps):
    messages = [{"role": "user", "content": prompt}]
    for _ in range(max_steps):
        reply = complete(messages)
        messages.append({"role": "assistant", "content": reply["content"]})
        calls = [block for block in reply["content"] if block["type"] == "tool_use"]
        stop = reply.get("stop_reason") or "end_turn"
        if stop != "tool_use" or not calls:
            if stop in ("end_turn", "stop_sequence", "tool_use"):
                texts = [block["text"] for block in reply["content"] if block["type"] == "text"]
                print("final: " + "\n".join(texts))
            else:
                print(f"final: stopped: stop_reason={stop}")
            return
        results = []
        for call in calls:
            print(f"tool_call: {call['name']} {call['input']!r}")
            text, is_error = run_tool(call["name"], call["input"])
            print(f"observation: {text}")
            results.append({"type": "tool_result", "tool_use_id": call["id"], "content": text,
                            "is_error": is_error})
        messages.append({"role": "user", "content": results})
    print(f"final: reached max_steps={max_steps}")


def repl(complete, max_steps):
    for raw in sys.stdin:
        line = raw.strip()
        if line == "/exit":
            print("Bye.")
            return
        if line == "/help":
            print("commands: /help, /exit")
        elif line.startswith("/"):
            print(f"unknown command: {line.split()[0]} (try /help)", file=sys.stderr)
        elif line:
            run_agent(line, complete, max_steps)


def positive(value):
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value}")
    return int(value)


def main():
    parser = argparse.ArgumentParser(prog="agent-code")
    parser.add_argument("prompt", nargs="*")
    parser.add_argument("-C", "--cwd", default=".")
    parser.add_argument("--provider", choices=["anthropic", "mock"], default="anthropic")
    parser.add_argument("--model", default="deepseek-v4-flash")
    parser.add_argument("--base-url")
    parser.add_argument("--max-steps", type=positive, default=8)
    options = parser.parse_args()
    print("Agent Code")
    print(f"cwd: {os.path.abspath(options.cwd)}")
    print(f"provider: {options.provider}  model: {options.model}")
    if options.base_url:
        print(f"base_url: {options.base_url}")
    print()
    complete = mock if options.provider == "mock" else anthropic(options)
    try:
        if options.prompt:
            run_agent(" ".join(options.prompt), complete, options.max_steps)
        else:
            repl(complete, options.max_steps)
    except ApiError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


sys.exit(main())
`;

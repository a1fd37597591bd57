// A learner's project in another language: a small Python agent-code (standard library only,
// trace arguments as dict reprs, x-api-key, a traceback when the key is missing) passes day-2-v3,
// and two broken variants of it fail the scenario that teaches the point.
import { describe, expect, test } from "vitest";
import { AGENT_CODE } from "./python-agent-code.ts";
import { HAS_PYTHON, noteIds, pythonProjects, WHOLE_CONTRACT_MS } from "./python-project.ts";

const { write, check } = pythonProjects("check-python-");

// The program with one edit (text it holds exactly once, and what it becomes).
function pythonProject(name: string, edit?: [string, string]): string {
  return write(name, AGENT_CODE, edit === undefined ? [] : [edit]);
}

describe.skipIf(!HAS_PYTHON)("a Python project (needs python3)", () => {
  test(
    "passes every core scenario of day-2-v3; the misses are conformance notes",
    async () => {
      const run = await check(["day-2-v3", "--cmd", pythonProject("agent_code")]);
      expect(run.exitCode).toBe(0);
      expect(run.stdout).not.toMatch(/^FAIL/m);
      // No retries (AGENT_CODE_MAX_RETRIES is this repository's knob), argparse's usage errors, the
      // tracebacks for a missing key, an answer that is not the API and Ctrl-C, and a crash on a
      // tool input that is not an object: texts of this repository, not the lesson.
      expect(noteIds(run.stdoutLines)).toEqual([
        "server-error-exhausted",
        "usage-provider",
        "usage-max-steps-zero",
        "usage-max-steps-negative",
        "usage-max-steps-fraction",
        "usage-max-steps-text",
        "tool-input-not-object-text",
        "missing-key-text",
        "retry-overloaded",
        "answer-html-page-text",
        "answer-not-a-message-text",
        "answer-string-content-text",
        "answer-cut-json-text",
        "answer-cut-connection-text",
        "answer-event-stream-text",
        "answer-text-plain-text",
        "answer-404-page-text",
        "ctrl-c-text",
      ]);
      expect(run.stdoutLines.at(-1)).toBe("highest stage passed: day-2-v3");
    },
    WHOLE_CONTRACT_MS,
  );

  test("dropping the thinking blocks fails deepseek-thinking with DeepSeek's 400", async () => {
    const command = pythonProject("drops_thinking", [
      'messages.append({"role": "assistant", "content": reply["content"]})',
      'messages.append({"role": "assistant", "content": [b for b in reply["content"] if b["type"] != "thinking"]})',
    ]);
    const run = await check(["day-2-v3", "--cmd", command, "--only", "deepseek-thinking"]);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain(
      // After a 400 the judgement on what was sent leads, then the exit code it caused.
      "FAIL  DeepSeek's thinking block goes back unchanged with the tool call  [deepseek-thinking]\n" +
        "      - DeepSeek rejected the second request: send the assistant content back verbatim, thinking blocks included\n" +
        "      - exit code should be 0 (a finished run exits 0)\n",
    );
    expect(run.stdout).toContain(
      "      the API rejected a request (400): The `content[].thinking` in the thinking mode must be passed back to the API.\n",
    );
    expect(run.stdoutLines.at(-1)).toBe(
      "not a full check (--only: 1 scenario run): no highest stage",
    );
  }, 30_000);

  test("running the tools of a reply cut off by max_tokens fails stop-max_tokens", async () => {
    const command = pythonProject("runs_truncated_calls", [
      'if stop != "tool_use" or not calls:',
      "if not calls:",
    ]);
    const run = await check(["day-2-v3", "--cmd", command, "--only", "stop-max_tokens"]);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toMatch(/^FAIL .*\[stop-max_tokens\]$/m);
    expect(run.stdout).toContain(
      "      - no tool may run after stop_reason max_tokens (no tool_call or observation line)\n",
    );
  }, 30_000);
});

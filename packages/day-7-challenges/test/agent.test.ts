import { existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { reply, ScriptedProvider, text, thinking, toolUse } from "@agent-code/test-kit";
import { expect, test } from "vitest";
import { runAgent, view } from "../src/agent.ts";
import { type Message, MockProvider, type ModelProvider } from "../src/model.ts";
import type { RecordMeta } from "../src/session.ts";
import { defaultTools, type ToolContext, ToolRegistry } from "../src/tools/index.ts";

// These runs read no files: the package's own folder is as good a boundary as any.
const cwd = fileURLToPath(new URL("..", import.meta.url));

test("one echo round with the mock model: trace and final answer", async () => {
  const result = await runAgent("echo hi using the echo tool", new MockProvider(), defaultTools(), {
    cwd,
  });
  expect(result.trace).toEqual([
    'tool_call: echo {"text":"hi"}',
    "observation: hi",
    "final: echo tool returned: hi",
  ]);
  expect(result.final).toBe("echo tool returned: hi");
});

test("the tool result goes back as a tool_result block in the next user message", async () => {
  const provider = new ScriptedProvider([
    reply([toolUse("echo", { text: "hi" }, "toolu_1")]),
    reply([text("done")]),
  ]);
  const result = await runAgent("echo hi", provider, defaultTools(), { cwd });
  provider.assertDone();
  expect(provider.requests[1]?.messages).toEqual([
    { role: "user", content: "echo hi" },
    { role: "assistant", content: [toolUse("echo", { text: "hi" }, "toolu_1")] },
    {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "hi", is_error: false }],
    },
  ]);
  expect(result.messages.at(-1)).toEqual({ role: "assistant", content: [text("done")] });
});

test("sends every tool_result of a turn in one user message, then asks the model once", async () => {
  const provider = new ScriptedProvider([
    reply([toolUse("echo", { text: "a" }, "toolu_a"), toolUse("system_date", {}, "toolu_b")]),
    reply([text("both")]),
  ]);
  await runAgent("two tools", provider, defaultTools(), { cwd });
  provider.assertDone();
  const messages = provider.requests[1]?.messages ?? [];
  expect(messages).toHaveLength(3);
  expect(messages[2]).toMatchObject({
    role: "user",
    content: [
      { type: "tool_result", tool_use_id: "toolu_a", content: "a", is_error: false },
      { type: "tool_result", tool_use_id: "toolu_b", is_error: false },
    ],
  });
});

test("thinking blocks go back unchanged, signatures included", async () => {
  const blocks = [thinking("The user wants the date."), toolUse("system_date", {}, "toolu_1")];
  const provider = new ScriptedProvider([reply(blocks), reply([text("Today.")])]);
  await runAgent("date?", provider, defaultTools(), { cwd });
  expect(provider.requests[1]?.messages[1]).toEqual({ role: "assistant", content: blocks });
});

test("the run's system prompt goes with every model call, unchanged", async () => {
  const scripted = new ScriptedProvider([
    reply([toolUse("echo", { text: "a" }, "toolu_1")]),
    reply([toolUse("echo", { text: "b" }, "toolu_2")]),
    reply([text("done")]),
  ]);
  const systems: (string | undefined)[] = [];
  const provider: ModelProvider = {
    complete: (messages, tools, options) => {
      systems.push(options?.system);
      return scripted.complete(messages, tools);
    },
  };
  await runAgent("echo twice", provider, defaultTools(), { cwd, system: "Rules: be brief." });
  scripted.assertDone();
  expect(systems).toEqual(["Rules: be brief.", "Rules: be brief.", "Rules: be brief."]);
});

test("an unknown tool is an is_error result the model reads; the run goes on", async () => {
  const provider = new ScriptedProvider([
    reply([toolUse("teleport", { to: "x" }, "toolu_1")]),
    reply([text("I cannot teleport.")]),
  ]);
  const result = await runAgent("go to x", provider, defaultTools(), { cwd });
  expect(result.trace).toEqual([
    'tool_call: teleport {"to":"x"}',
    "observation: unknown tool: teleport (available: echo, system_date, read_file, list_files, glob, grep, project_tree, web_fetch, web_search, file_write, file_edit, bash, git_status, git_diff, ask_user_question, bash_output, kill_shell, memory_write, memory_recall, cron_create, cron_list, cron_cancel)",
    "final: I cannot teleport.",
  ]);
  expect(provider.requests[1]?.messages[2]).toEqual({
    role: "user",
    content: [
      {
        type: "tool_result",
        tool_use_id: "toolu_1",
        content:
          "unknown tool: teleport (available: echo, system_date, read_file, list_files, glob, grep, project_tree, web_fetch, web_search, file_write, file_edit, bash, git_status, git_diff, ask_user_question, bash_output, kill_shell, memory_write, memory_recall, cron_create, cron_list, cron_cancel)",
        is_error: true,
      },
    ],
  });
});

test("the tools go to the model with their schemas", async () => {
  const provider = new ScriptedProvider([reply([text("no tools needed")])]);
  const result = await runAgent("hello", provider, defaultTools(), { cwd });
  expect(result.trace).toEqual(["final: no tools needed"]);
  expect(provider.requests[0]?.tools.map((tool) => tool.name)).toEqual([
    "echo",
    "system_date",
    "read_file",
    "list_files",
    "glob",
    "grep",
    "project_tree",
    "web_fetch",
    "web_search",
    "file_write",
    "file_edit",
    "bash",
    "git_status",
    "git_diff",
    "ask_user_question",
    "bash_output",
    "kill_shell",
    "memory_write",
    "memory_recall",
    "cron_create",
    "cron_list",
    "cron_cancel",
  ]);
});

test("the loop runs model -> tools -> model until a response has no tool calls", async () => {
  const provider = new ScriptedProvider([
    reply([toolUse("system_date", {}, "toolu_1")]),
    (request) => {
      const results = request.messages.at(-1) as { content: { content: string }[] };
      return reply([toolUse("echo", { text: results.content[0]?.content }, "toolu_2")]);
    },
    reply([text("done")]),
  ]);
  const result = await runAgent("chain", provider, defaultTools(), { cwd });
  provider.assertDone();
  expect(result.trace.map((line) => line.split(" ")[0])).toEqual([
    "tool_call:",
    "observation:",
    "tool_call:",
    "observation:",
    "final:",
  ]);
  expect(result.trace[1]?.slice("observation: ".length)).toBe(
    result.trace[3]?.slice("observation: ".length),
  );
  expect(
    provider.requests[2]?.messages.map((message) => (message as { role: string }).role),
  ).toEqual(["user", "assistant", "user", "assistant", "user"]);
});

test("maxSteps caps the model calls and says so in the final line", async () => {
  const provider = new ScriptedProvider([
    reply([toolUse("echo", { text: "1" })]),
    reply([toolUse("echo", { text: "2" })]),
  ]);
  const result = await runAgent("forever", provider, defaultTools(), { cwd, maxSteps: 2 });
  provider.assertDone();
  expect(result.final).toBe("reached max_steps=2");
  expect(result.trace.at(-1)).toBe("final: reached max_steps=2");
});

test.each([
  "max_tokens",
  "refusal",
  "pause_turn",
  "model_context_window_exceeded",
  "something_new",
])("stop_reason %s ends the run and runs none of the response's tools", async (stopReason) => {
  const provider = new ScriptedProvider([
    reply([text("I will echo"), toolUse("echo", {}, "toolu_cut")], { stopReason }),
  ]);
  const result = await runAgent("echo", provider, defaultTools(), { cwd });
  provider.assertDone();
  expect(result.trace).toEqual([`final: stopped: stop_reason=${stopReason}`]);
});

test("stop_sequence is a normal end: the text is the answer", async () => {
  const provider = new ScriptedProvider([reply([text("Hello")], { stopReason: "stop_sequence" })]);
  const result = await runAgent("hi", provider, defaultTools(), { cwd });
  expect(result.trace).toEqual(["final: Hello"]);
});

test("a tool that throws is a bug: the run fails with the tool's own error and stack", async () => {
  const tools = defaultTools();
  tools.register({
    name: "explode",
    description: "A test-only tool with a bug.",
    run: function explodingTool() {
      throw new TypeError("cannot read properties of undefined");
    },
  });
  const provider = new ScriptedProvider([
    reply([toolUse("explode", {}, "toolu_1")]),
    reply([text("never")]),
  ]);
  const error = await runAgent("boom", provider, tools, { cwd }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TypeError);
  expect((error as Error).stack).toContain("explodingTool");
  expect(provider.requests).toHaveLength(1);
});

test("a refusal (a path outside the working directory) is an is_error result; the run goes on", async () => {
  const provider = new ScriptedProvider([
    reply([toolUse("read_file", { path: "../secret.txt" }, "toolu_1")]),
    reply([text("That file is outside.")]),
  ]);
  const result = await runAgent("read it", provider, defaultTools(), { cwd });
  expect(result.trace).toEqual([
    'tool_call: read_file {"path":"../secret.txt"}',
    "observation: path escapes the working directory: ../secret.txt",
    "final: That file is outside.",
  ]);
  expect(provider.requests[1]?.messages[2]).toEqual({
    role: "user",
    content: [
      {
        type: "tool_result",
        tool_use_id: "toolu_1",
        content: "path escapes the working directory: ../secret.txt",
        is_error: true,
      },
    ],
  });
});

test("each run gets its own context: what one run read, the next has not", async () => {
  const seen: ToolContext[] = [];
  const tools = defaultTools();
  tools.register({
    name: "peek",
    description: "A test-only tool that keeps its context.",
    run: (_args, ctx) => {
      seen.push(ctx);
      return "ok";
    },
  });
  for (const prompt of ["first", "second"]) {
    const provider = new ScriptedProvider([
      reply([toolUse("peek", {}, "toolu_1")]),
      reply([text("done")]),
    ]);
    await runAgent(prompt, provider, tools, { cwd });
  }
  expect(seen.map((ctx) => ctx.cwd)).toEqual([cwd, cwd]);
  expect(seen[0]?.readState).not.toBe(seen[1]?.readState);
});

test("the trace shows a result's control characters as U+FFFD; the model gets them as they are", async () => {
  const tools = defaultTools();
  tools.register({ name: "raw", description: "", run: () => "a\u001b[2Jb\u0007\tc\nd" });
  const provider = new ScriptedProvider([
    reply([toolUse("raw", {}, "toolu_1")]),
    reply([text("done")]),
  ]);
  const result = await runAgent("raw", provider, tools, { cwd });
  expect(result.trace[1]).toBe("observation: a\ufffd[2Jb\ufffd\tc\nd");
  expect(JSON.stringify(provider.requests[1]?.messages[2])).toContain(
    JSON.stringify("a\u001b[2Jb\u0007\tc\nd"),
  );
});

test("onTrace hears each line as it happens: the question comes after its tool_call line", async () => {
  const heard: string[] = [];
  const heardAtQuestion: string[][] = [];
  const provider = new ScriptedProvider([
    reply([toolUse("file_write", { file_path: "never-written.txt", content: "x" }, "toolu_1")]),
    reply([text("done")]),
  ]);
  const result = await runAgent("write it", provider, defaultTools(), {
    cwd,
    onTrace: (line) => heard.push(line),
    ui: {
      colour: false,
      print: () => {},
      choose: async () => ({ kind: "skipped" as const }),
      confirm: async () => {
        heardAtQuestion.push([...heard]);
        return false;
      },
    },
  });
  expect(heardAtQuestion).toEqual([
    ['tool_call: file_write {"file_path":"never-written.txt","content":"x"}'],
  ]);
  expect(heard).toEqual(result.trace);
  expect(result.trace[1]).toBe(
    "observation: the user rejected this change; never-written.txt was not changed",
  );
});

test("the trace shows C1 and bidi controls as U+FFFD, and escapes them in a call's arguments", async () => {
  const tools = defaultTools();
  tools.register({ name: "raw", description: "", run: () => "a\u009bb\u202ec\u2066d" });
  const provider = new ScriptedProvider([
    reply([toolUse("raw", { path: "x\u202etxt.exe\u0085" }, "toolu_1")]),
    reply([text("done")]),
  ]);
  const result = await runAgent("raw", provider, tools, { cwd });
  expect(result.trace[0]).toBe('tool_call: raw {"path":"x\\u202etxt.exe\\u0085"}');
  expect(result.trace[1]).toBe("observation: a\ufffdb\ufffdc\ufffdd");
});

test("a final answer's escape sequences and bidi controls reach the trace as U+FFFD, not raw", async () => {
  // A screen clear, a clipboard write (OSC 52), a title change and a right-to-left override.
  const said = "ok\u001b[2J\u001b]52;c;cm0gLXJm\u0007\u001b]0;title\u0007 exe.\u202etxt\tend\ntwo";
  const provider = new ScriptedProvider([reply([text(said)])]);
  const result = await runAgent("say it", provider, defaultTools(), { cwd });
  expect(result.trace).toEqual([
    "final: ok\ufffd[2J\ufffd]52;c;cm0gLXJm\ufffd\ufffd]0;title\ufffd exe.\ufffdtxt\tend\ntwo",
  ]);
  // Only what is printed changes: the answer and the conversation keep the model's text.
  expect(result.final).toBe(said);
  expect(result.messages.at(-1)).toEqual({ role: "assistant", content: [text(said)] });
});

test("a write into .git is asked about in bypassPermissions, the reason just before the question", async () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-code-gate-"));
  mkdirSync(join(dir, ".git"));
  const person = asker(false);
  const provider = new ScriptedProvider([
    reply([toolUse("file_write", { file_path: ".git/config", content: "x\n" }, "toolu_1")]),
    reply([text("done")]),
  ]);
  const result = await runAgent("write", provider, defaultTools(), {
    cwd: dir,
    ui: person.ui,
    permissionMode: "bypassPermissions",
  });
  expect(person.asked).toEqual(["Apply this change to .git/config?"]);
  expect(person.shown.at(-1)).toBe(
    "  needs approval: .git/config (a protected path: git runs what it holds)",
  );
  expect(result.trace[1]).toBe(
    "observation: the user rejected this change; .git/config was not changed",
  );
  expect(existsSync(join(dir, ".git/config"))).toBe(false);
});

// A person who answers every question with `answer` and counts the questions.
function asker(answer: boolean) {
  const asked: string[] = [];
  const shown: string[] = [];
  return {
    asked,
    shown,
    ui: {
      colour: false,
      print: (line: string) => shown.push(line),
      choose: async () => ({ kind: "skipped" as const }),
      confirm: async (question: string) => {
        asked.push(question);
        return answer;
      },
    },
  };
}

test("a call the gate denies never reaches the tool nor the person", async () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-code-gate-"));
  const person = asker(true);
  const provider = new ScriptedProvider([
    reply([toolUse("file_write", { file_path: "a.txt", content: "x" }, "toolu_1")]),
    reply([text("done")]),
  ]);
  const result = await runAgent("write", provider, defaultTools(), {
    cwd: dir,
    ui: person.ui,
    permissionMode: "plan",
  });
  expect(result.trace[1]).toBe(
    "observation: plan mode: file_write is not allowed; only read-only tools run in plan mode",
  );
  expect(provider.requests[1]?.messages[2]).toMatchObject({
    content: [{ type: "tool_result", tool_use_id: "toolu_1", is_error: true }],
  });
  expect(person.asked).toEqual([]);
  expect(existsSync(join(dir, "a.txt"))).toBe(false);
});

test("a call the gate allows runs its checks and shows its diff, and is not asked", async () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-code-gate-"));
  const person = asker(false);
  const provider = new ScriptedProvider([
    reply([toolUse("file_write", { file_path: "a.txt", content: "x\n" }, "toolu_1")]),
    reply([text("done")]),
  ]);
  await runAgent("write", provider, defaultTools(), {
    cwd: dir,
    ui: person.ui,
    permissionMode: "acceptEdits",
  });
  expect(person.asked).toEqual([]);
  expect(person.shown).toContain("+x");
  expect(readFileSync(join(dir, "a.txt"), "utf8")).toBe("x\n");
});

// What a run recorded, in order, as the session log would write it.
function recorder() {
  const records: [Message, RecordMeta][] = [];
  return { records, record: (message: Message, meta: RecordMeta) => records.push([message, meta]) };
}

const INTERRUPTED = (reason: string) =>
  `not run: agent-code stopped before this call finished (${reason}); check what it did before you repeat it`;

test("a run starts from its history and records each message, the assistant turn before its tool runs", async () => {
  const { records, record } = recorder();
  const seenByTool: number[] = [];
  const tools = new ToolRegistry();
  tools.register({
    name: "look",
    description: "",
    run: () => {
      seenByTool.push(records.length);
      return "seen";
    },
  });
  const history: Message[] = [
    { role: "user", content: "one" },
    { role: "assistant", content: [text("two")] },
  ];
  const provider = new ScriptedProvider([
    reply([toolUse("look", {}, "toolu_1")]),
    reply([text("done")]),
  ]);
  await runAgent("three", provider, tools, { cwd, history, record });
  provider.assertDone();
  expect(provider.requests[0]?.messages).toEqual([...history, { role: "user", content: "three" }]);
  // The prompt and the assistant turn were written when the tool ran.
  expect(seenByTool).toEqual([2]);
  expect(records.map(([message, meta]) => [message.role, meta])).toEqual([
    ["user", {}],
    ["assistant", { stop: "tool_use" }],
    ["user", {}],
    ["assistant", { stop: "end_turn" }],
  ]);
  expect(history).toHaveLength(2);
});

test("a max_tokens reply holding a call records its repair, and the next request alternates", async () => {
  const { records, record } = recorder();
  const provider = new ScriptedProvider([
    reply([toolUse("echo", { text: "x" }, "toolu_1")], { stopReason: "max_tokens" }),
  ]);
  const result = await runAgent("go", provider, defaultTools(), { cwd, record });
  expect(result.final).toBe("stopped: stop_reason=max_tokens");
  expect(records.at(-1)).toEqual([
    {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_1",
          content: INTERRUPTED("max_tokens"),
          is_error: true,
        },
      ],
    },
    { repair: "max_tokens" },
  ]);
  // The next prompt joins the repair's user message, results first.
  const next = new ScriptedProvider([reply([text("ok")])]);
  await runAgent("again", next, defaultTools(), {
    cwd,
    history: records.map(([message]) => message),
  });
  const sent = (next.requests[0]?.messages ?? []) as Message[];
  expect(sent.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
  expect(sent[2]?.content).toEqual([
    expect.objectContaining({ type: "tool_result", tool_use_id: "toolu_1" }),
    { type: "text", text: "again" },
  ]);
});

test("a tool's bug records the repair for its call, then fails the run", async () => {
  const { records, record } = recorder();
  const tools = new ToolRegistry();
  tools.register({
    name: "broken",
    description: "",
    run: () => {
      throw new TypeError("boom");
    },
  });
  const provider = new ScriptedProvider([reply([toolUse("broken", {}, "toolu_1")])]);
  await expect(runAgent("go", provider, tools, { cwd, record })).rejects.toThrow("boom");
  expect(records.at(-1)?.[1]).toEqual({ repair: "tool_bug" });
  expect(JSON.stringify(records.at(-1)?.[0])).toContain(INTERRUPTED("tool_bug"));
  expect(records).toHaveLength(3);
});

test("a run that ends well records no repair", async () => {
  const { records, record } = recorder();
  await runAgent("echo hi", new MockProvider(), defaultTools(), { cwd, record });
  expect(records.some(([, meta]) => meta.repair !== undefined)).toBe(false);
  expect(records).toHaveLength(4);
});

test("the view merges messages of one role, results first, and leaves the log's messages alone", () => {
  const results: Message = {
    role: "user",
    content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "x" }],
  };
  const log: Message[] = [
    { role: "user", content: "one" },
    { role: "assistant", content: [toolUse("echo", {}, "toolu_1")] },
    { role: "user", content: "an early prompt" },
    results,
    { role: "user", content: "two" },
  ];
  const merged = view(log);
  expect(merged).toHaveLength(3);
  expect(merged[2]).toEqual({
    role: "user",
    content: [
      { type: "tool_result", tool_use_id: "toolu_1", content: "x" },
      { type: "text", text: "an early prompt" },
      { type: "text", text: "two" },
    ],
  });
  expect(log[2]).toEqual({ role: "user", content: "an early prompt" });
  expect(view([{ role: "user", content: "only" }])).toEqual([{ role: "user", content: "only" }]);
});

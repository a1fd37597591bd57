// The agent loop: ask the model, run the tools it asks for, hand the results back, ask again,
// until the model answers without tools or the step budget runs out.
import type Anthropic from "@anthropic-ai/sdk";
import { NO_UI, type Ui } from "./diff-ui.ts";
import { ReadState } from "./fs-safety.ts";
import type { Message, ModelProvider, ModelResponse, ToolResult } from "./model.ts";
import { decide, deniedOutright, hiddenBy, NO_RULES, type PermissionMode } from "./permissions.ts";
import type { Rules } from "./settings.ts";
import type { BackgroundTasks } from "./shell.ts";
import type { ToolContext, ToolRegistry } from "./tools/index.ts";

export interface AgentResult {
  final: string;
  trace: string[];
  messages: Message[];
}

export interface AgentOptions {
  // The working directory the tools may read: the run's boundary.
  cwd: string;
  // The most model calls one run may make, so a model that keeps asking for tools cannot loop
  // forever.
  maxSteps?: number;
  // Stops the run's tools when aborted.
  signal?: AbortSignal;
  // Called with each trace line as it happens, so a diff and its question sit under their call.
  onTrace?: (line: string) => void;
  // The person a tool shows a change to and asks (by default nobody: every question is no).
  ui?: Ui;
  // What may run without a question (permissions.ts); read at every call.
  permissionMode?: PermissionMode;
  // The session's background tasks; without them, bash cannot start one.
  tasks?: BackgroundTasks;
  // The person's allow, ask and deny rules (settings.ts), checked at every call.
  rules?: Rules;
  // The folder of the person's own settings file, which the gate protects (permissions.ts).
  home?: string;
  // The system prompt (rules.ts), the same in every model call of this run.
  system?: string;
}

export async function runAgent(
  prompt: string,
  provider: ModelProvider,
  tools: ToolRegistry,
  {
    cwd,
    maxSteps = 8,
    signal = new AbortController().signal,
    onTrace = () => {},
    ui = NO_UI,
    permissionMode = "default",
    tasks,
    rules = NO_RULES,
    home,
    system,
  }: AgentOptions,
): Promise<AgentResult> {
  const messages: Message[] = [{ role: "user", content: prompt }];
  const trace: string[] = [];
  const emit = (line: string) => {
    trace.push(line);
    onTrace(line);
  };
  // What a Read deny keeps from every tool that reads.
  const hidden = hiddenBy(rules);
  // One context per run: what this run read is not what an earlier run (a REPL line) read.
  const ctx: ToolContext = {
    cwd,
    readState: new ReadState(),
    signal,
    ui,
    ...(tasks === undefined ? {} : { tasks }),
    ...(hidden === undefined ? {} : { hidden }),
  };
  // A tool the rules deny outright is not offered: the model does not plan around it.
  const offered = tools.list().filter((tool) => !deniedOutright(tool.name, rules));

  for (let step = 0; step < maxSteps; step++) {
    const response = await provider.complete(messages, offered, { system });
    // The assistant turn goes back exactly as it came, thinking blocks included.
    messages.push({ role: "assistant", content: response.assistantContent });

    // Only a tool_use stop runs tools: a response cut off by max_tokens may hold a half-written
    // call, and one that was refused must not act.
    if (response.stopReason !== "tool_use" || response.toolCalls.length === 0) {
      const final = finalText(response);
      emit(`final: ${printable(final)}`);
      return { final, trace, messages };
    }

    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const call of response.toolCalls) {
      emit(`tool_call: ${printable(call.name)} ${shownArguments(call.arguments)}`);
      // One gate for every call: a deny never reaches the tool, nor the person; an allow
      // still runs the tool's own checks and shows its preview, with the question answered.
      const tool = tools.get(call.name);
      const decision = decide({
        tool,
        args: call.arguments,
        mode: permissionMode,
        cwd,
        rules,
        home,
      });
      let result: ToolResult;
      if (decision.behavior === "deny") {
        result = { toolCallId: call.id, content: decision.reason, isError: true };
      } else if (decision.behavior === "allow") {
        result = await tools.run(call, { ...ctx, ui: approved(ui) });
      } else if (tool?.readOnly === true) {
        // A tool that only reads never asks on its own: an ask rule makes the gate ask for it.
        const yes = await ui.confirm(`Allow ${call.name} ${shownArguments(call.arguments)}?`);
        result = yes
          ? await tools.run(call, ctx)
          : {
              toolCallId: call.id,
              content: `the user rejected this call to ${call.name}`,
              isError: true,
            };
      } else {
        result = await tools.run(call, withNotes(ctx, decision.needs));
      }
      emit(`observation: ${printable(result.content)}`);
      results.push({
        type: "tool_result",
        tool_use_id: result.toolCallId,
        content: result.content,
        is_error: result.isError,
      });
    }
    // Every result of the turn in ONE user message right after it. One message per result is
    // merged by Anthropic but rejected by DeepSeek; asking the model between results is a 400.
    messages.push({ role: "user", content: results });
  }

  const final = `reached max_steps=${maxSteps}`;
  emit(`final: ${final}`);
  return { final, trace, messages };
}

// The person's Ui with every question answered yes: for a call the gate already allowed.
function approved(ui: Ui): Ui {
  return {
    colour: ui.colour,
    print: (line) => ui.print(line),
    confirm: async () => true,
    choose: (prompt, options) => ui.choose(prompt, options),
  };
}

// The context with the gate's lines printed just before the tool's question: what needs the
// person's yes, and why.
function withNotes(ctx: ToolContext, lines: string[] | undefined): ToolContext {
  if (lines === undefined) return ctx;
  const { ui } = ctx;
  const confirm = async (question: string) => {
    for (const line of lines) ui.print(printable(line));
    return ui.confirm(question);
  };
  return {
    ...ctx,
    ui: {
      colour: ui.colour,
      print: (line) => ui.print(line),
      confirm,
      choose: (prompt, options) => ui.choose(prompt, options),
    },
  };
}

// A file's control characters would move the terminal's cursor or ring its bell, and a bidi
// control (U+202E) would show its text backwards: the trace shows C0 (but newlines and tabs), C1
// and bidi controls as U+FFFD. The model gets the text as it is.
function printable(text: string): string {
  return text.replace(UNPRINTABLE, "\ufffd");
}

const UNPRINTABLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

// A call's arguments as JSON, which escapes C0 already; C1 and bidi controls are escaped too (as
// \u202e, still JSON), so a path in the arguments cannot hide or reorder the line.
function shownArguments(args: unknown): string {
  return JSON.stringify(args).replace(
    UNPRINTABLE,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

// end_turn and stop_sequence are answers; any other reason (max_tokens, refusal, pause_turn,
// model_context_window_exceeded, one not invented yet) ends the run and says why.
function finalText(response: ModelResponse): string {
  if (["end_turn", "stop_sequence", "tool_use"].includes(response.stopReason)) {
    return response.text ?? "";
  }
  return `stopped: stop_reason=${response.stopReason}`;
}

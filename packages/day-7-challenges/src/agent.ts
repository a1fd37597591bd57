// The agent loop: ask the model, run the tools it asks for, hand the results back, ask again,
// until the model answers without tools or the step budget runs out.
import type Anthropic from "@anthropic-ai/sdk";
import {
  type Compacted,
  compact,
  DEFAULT_COMPACT_AT,
  estimateTokens,
  shouldCompact,
} from "./compact.ts";
import { NO_UI, type Ui } from "./diff-ui.ts";
import { ReadState } from "./fs-safety.ts";
import type { Hooks } from "./hooks.ts";
import type { Loops } from "./loops.ts";
import type { Message, ModelProvider, ModelResponse, ToolResult } from "./model.ts";
import { decide, deniedOutright, hiddenBy, NO_RULES, type PermissionMode } from "./permissions.ts";
import { type RecordMeta, type RepairReason, repairMessage, unansweredCalls } from "./session.ts";
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
  // The folder of the person's own settings file, which the gate protects (permissions.ts), and
  // where memory_write keeps the project's notes (memory.ts).
  home?: string;
  // The conversation so far (a resumed session, the REPL's earlier lines), before the prompt.
  history?: Message[];
  // Called with each message as it joins the conversation: the session log writes it at once.
  record?: (message: Message, meta: RecordMeta) => void;
  // What this session read: a REPL's lines share it, as the model saw those reads.
  readState?: ReadState;
  // The system prompt (rules.ts), the same in every model call of this run.
  system?: string;
  // The estimated request size, in tokens, at which older rounds become a summary (0: never).
  compactAt?: number;
  // Called when the conversation was compacted: the session log writes its compact record.
  onCompact?: (compacted: Compacted) => void;
  // The hooks loaded at start (hooks.ts): PreToolUse between the gate and the question,
  // PostToolUse after the tool.
  hooks?: Hooks;
  // The REPL's loops, for cron_create, cron_list and cron_cancel (none in a one-shot run).
  loops?: Loops;
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
    history = [],
    record = () => {},
    readState = new ReadState(),
    system,
    compactAt = DEFAULT_COMPACT_AT,
    onCompact = () => {},
    hooks,
    loops,
  }: AgentOptions,
): Promise<AgentResult> {
  const asked: Message = { role: "user", content: prompt };
  record(asked, {});
  // The conversation as recorded (what a resumed run reads back) and the view a request sends.
  const conversation = [...history, asked];
  let messages = view(conversation);
  // What the last reply said its request cost, and an estimate of what was added since.
  let lastUsage: number | undefined;
  let addedSince = estimateTokens(messages);
  const push = (message: Message, meta: RecordMeta) => {
    conversation.push(message);
    messages.push(message);
    addedSince += estimateTokens(message);
    record(message, meta);
  };
  const trace: string[] = [];
  const emit = (line: string) => {
    trace.push(line);
    onTrace(line);
  };
  // What a Read deny keeps from every tool that reads.
  const hidden = hiddenBy(rules);
  const ctx: ToolContext = {
    cwd,
    readState,
    signal,
    ui,
    ...(tasks === undefined ? {} : { tasks }),
    ...(hidden === undefined ? {} : { hidden }),
    ...(home === undefined ? {} : { home }),
    ...(loops === undefined ? {} : { loops }),
  };
  // A tool the rules deny outright is not offered: the model does not plan around it.
  const offered = tools.list().filter((tool) => !deniedOutright(tool.name, rules));

  // Why a call of the last turn may be left without a result when the run ends: the finally below
  // answers it, so the log never holds a tool_use the API would refuse to see unanswered.
  let reason: RepairReason = "interrupted";
  try {
    for (let step = 0; step < maxSteps; step++) {
      // Before each call: a request that would pass the threshold sends a summary of the older
      // rounds instead of them. The log keeps every message and a record of the cut.
      if (shouldCompact({ lastUsage, addedSince, threshold: compactAt })) {
        const compacted = compact(conversation, { threshold: compactAt });
        if (compacted !== null) {
          const shrunk = view(compacted.messages);
          emit(
            `compacted: ${messages.length} messages (about ${compacted.tokens.before} tokens) into ${shrunk.length} (about ${compacted.tokens.after} tokens)`,
          );
          conversation.splice(0, conversation.length, ...compacted.messages);
          messages = shrunk;
          lastUsage = undefined;
          addedSince = compacted.tokens.after;
          onCompact(compacted);
        }
      }
      const response = await provider.complete(messages, offered, { system });
      if (response.usage !== undefined) {
        lastUsage = response.usage.input_tokens;
        addedSince = 0;
      }
      // The assistant turn goes back exactly as it came, thinking blocks included. It is recorded
      // before its tools run: a Ctrl-C during a tool must not lose it.
      push(
        { role: "assistant", content: response.assistantContent },
        {
          stop: response.stopReason,
          ...(response.usage === undefined ? {} : { usage: response.usage }),
        },
      );

      // Only a tool_use stop runs tools: a response cut off by max_tokens may hold a half-written
      // call, and one that was refused must not act.
      if (response.stopReason !== "tool_use" || response.toolCalls.length === 0) {
        reason = response.stopReason === "max_tokens" ? "max_tokens" : "stop_reason";
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
        // A PreToolUse hook runs only for a call the gate let on, and before any question: what
        // it blocks is never asked about. It can block; it cannot allow.
        const blocked = decision.behavior === "deny" ? undefined : await hooks?.pre(call, signal);
        if (decision.behavior === "deny") {
          result = { toolCallId: call.id, content: decision.reason, isError: true };
        } else if (blocked !== undefined) {
          result = { toolCallId: call.id, content: blocked, isError: true };
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
        // A PostToolUse hook's notes follow the result the model reads (decision 0087).
        if (decision.behavior !== "deny" && blocked === undefined) {
          const notes = (await hooks?.post(call, result, signal)) ?? [];
          if (notes.length > 0) {
            result = { ...result, content: [result.content, ...notes].join("\n\n") };
          }
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
      push({ role: "user", content: results }, {});
    }

    const final = `reached max_steps=${maxSteps}`;
    emit(`final: ${final}`);
    return { final, trace, messages };
  } catch (error) {
    // A stopped run is an interruption; anything else thrown here is a tool's bug.
    if (!signal.aborted) reason = "tool_bug";
    throw error;
  } finally {
    const open = unansweredCalls(messages);
    if (open.length > 0) push(repairMessage(open, reason), { repair: reason });
  }
}

// The messages a request sends: consecutive messages of one role merged into one, tool results
// first, so the roles alternate after a run that ended early (max_steps, Ctrl-C, an API error)
// and a new prompt follows its results in the same user message.
export function view(messages: Message[]): Message[] {
  const out: Message[] = [];
  for (const message of messages) {
    const last = out.at(-1);
    if (last === undefined || last.role !== message.role) {
      out.push(message);
      continue;
    }
    const blocks = [...asBlocks(last.content), ...asBlocks(message.content)];
    const results = blocks.filter((block) => block.type === "tool_result");
    const rest = blocks.filter((block) => block.type !== "tool_result");
    out[out.length - 1] = { role: message.role, content: [...results, ...rest] } as Message;
  }
  return out;
}

function asBlocks(content: Message["content"]): Exclude<Message["content"], string> {
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
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
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, "\ufffd");
}

const UNPRINTABLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

// A call's arguments as JSON, which escapes C0 already; C1 and bidi controls are escaped too (as
// \u202e, still JSON), so a path in the arguments cannot hide or reorder the line.
export function shownArguments(args: unknown): string {
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

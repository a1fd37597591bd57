// Slash commands: the person's control plane. A line that starts with `/` never reaches the model:
// it is split into words by Day 5's reader, looked up in a registry that cli.ts builds, and run
// here. The texts and exit codes are decision 0080's; what it left open, decision 0082's.
import { printable, view } from "./agent.ts";
import { compact, DEFAULT_COMPACT_AT, estimateTokens } from "./compact.ts";
import { ReadState } from "./fs-safety.ts";
import { formatEvery, LoopError, type Loops, loopLine, parseEvery } from "./loops.ts";
import { readMemories } from "./memory.ts";
import type { Message } from "./model.ts";
import { PERMISSION_MODES, type PermissionMode } from "./permissions.ts";
import { buildSystemPrompt, loadRules, rulesLine } from "./rules.ts";
import { SessionLog } from "./session.ts";
import { splitWords } from "./shell-words.ts";
import type { ToolRegistry } from "./tools/index.ts";

// What a command reads and changes: cli.ts's session fits it as it is. A one-shot `/x` gets one
// with no log and no history.
export interface SlashSession {
  cwd: string;
  home: string;
  model: string;
  tools: ToolRegistry;
  compactAt: number;
  permissionMode: PermissionMode;
  log: SessionLog | undefined;
  history: Message[];
  readState: ReadState;
  // The REPL's loops (loops.ts); a one-shot run has none.
  loops?: Loops | undefined;
}

export interface SlashContext {
  session: SlashSession;
  // A one-shot `agent-code "/x"`: no session is open, and none may be made.
  oneShot: boolean;
  // The commands, for /help.
  commands: readonly SlashCommand[];
  // /clear's new log, for the Ctrl-C handler that repairs the open one.
  onNewLog: (log: SessionLog | undefined) => void;
}

export interface SlashResult {
  // Printed on stdout, as it is.
  message?: string;
  // End the REPL (a one-shot run ends anyway).
  exit?: boolean;
}

export interface SlashCommand {
  name: string;
  description: string;
  // The command takes free text: it gets the rest of the line as it was typed, one argument, not
  // split into words (so `/loop add don't stop --every 5m` needs no quotes).
  freeText?: boolean;
  run(args: string[], ctx: SlashContext): SlashResult | Promise<SlashResult>;
}

// A mistake in what was typed: `/<name>: <message>` on stderr; exit 2 in a one-shot run.
export class SlashError extends Error {}

// The registry: built in cli.ts, one a process, in the order /help lists.
export class SlashCommands {
  #commands = new Map<string, SlashCommand>();

  constructor(commands: SlashCommand[] = []) {
    for (const command of commands) this.register(command);
  }

  register(command: SlashCommand): void {
    if (this.#commands.has(command.name)) throw new Error(`/${command.name} is registered twice`);
    this.#commands.set(command.name, command);
  }

  get(name: string): SlashCommand | undefined {
    return this.#commands.get(name);
  }

  list(): SlashCommand[] {
    return [...this.#commands.values()];
  }
}

// A command is `/` and a name as the line's first word; a first word with another `/` is a path, so
// `/etc/hosts: what is this?` is a prompt.
export function isSlash(line: string): boolean {
  return /^\/[^\s/]*(?:\s|$)/.test(line);
}

export interface Printer {
  out: (line: string) => void;
  err: (line: string) => void;
}

// Runs one `/…` line: 0 when the command ran, 2 when the line was a mistake (an unknown command,
// an unclosed quote, a bad argument); `exit` when the REPL should end.
export async function dispatch(
  line: string,
  commands: SlashCommands,
  ctx: Omit<SlashContext, "commands">,
  print: Printer,
): Promise<{ code: number; exit: boolean }> {
  // A command that takes free text is found by the line's first word, before any quote is read.
  const [first = "", rest = ""] = line.trim().split(/\s+(.*)/s);
  const free = commands.get(first.slice(1));
  const { words, unclosed } =
    free?.freeText === true ? { words: [first, rest], unclosed: false } : splitWords(line);
  const typed = printable(words[0] ?? line.trim());
  const command = commands.get(typed.slice(1));
  if (command === undefined) {
    print.err(`unknown command: ${typed} (try /help)`);
    return { code: 2, exit: false };
  }
  if (unclosed) {
    print.err(`/${command.name}: a quote is not closed`);
    return { code: 2, exit: false };
  }
  try {
    const result = await command.run(words.slice(1), { ...ctx, commands: commands.list() });
    if (result.message !== undefined) print.out(result.message);
    return { code: 0, exit: result.exit === true };
  } catch (error) {
    if (!(error instanceof SlashError)) throw error;
    print.err(`/${command.name}: ${error.message}`);
    return { code: 2, exit: false };
  }
}

// A one-shot `agent-code "/x"`, run before anything is opened or read: its exit code.
export async function runOneShot(
  line: string,
  commands: SlashCommands,
  session: Omit<SlashSession, "log" | "history" | "readState">,
  print: Printer,
): Promise<number> {
  const alone = { ...session, log: undefined, history: [], readState: new ReadState() };
  const ctx = { session: alone, oneShot: true, onNewLog: () => {} };
  return (await dispatch(line, commands, ctx, print)).code;
}

function noArguments(args: string[], hint = ""): void {
  if (args.length > 0) throw new SlashError(`takes no arguments${hint}`);
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

// A command that works on the conversation: a one-shot run has none.
function inRepl(ctx: SlashContext): void {
  if (ctx.oneShot) throw new SlashError("works in the REPL only (a one-shot run opens no session)");
}

function sessionLine(session: SlashSession): string {
  return `session: ${session.log?.id ?? "none"}`;
}

function modeLine(mode: PermissionMode): string {
  return `mode: ${mode}`;
}

const help: SlashCommand = {
  name: "help",
  description: "list these commands",
  run(args, { commands }) {
    noArguments(args);
    const names = commands.map((command) => `/${command.name}`);
    const width = Math.max(...names.map((name) => name.length));
    const lines = commands.map(
      (command, i) => `  ${(names[i] ?? "").padEnd(width)}  ${command.description}`,
    );
    return { message: [`commands: ${names.join(", ")}`, ...lines].join("\n") };
  },
};

const exit: SlashCommand = {
  name: "exit",
  description: "leave agent-code",
  run(args) {
    noArguments(args);
    return { message: "Bye.", exit: true };
  },
};

// What the next request would hold: read now, as the next prompt would read it.
const context: SlashCommand = {
  name: "context",
  description: "what the next request holds: folder, session, mode, model, rules, memory, size",
  async run(args, { session }) {
    noArguments(args);
    const rules = await loadRules({ cwd: session.cwd, home: session.home });
    let memory: string;
    try {
      memory = plural(readMemories(session.home, session.cwd).length, "note");
    } catch {
      memory = "cannot be read";
    }
    const tools = session.tools
      .list()
      .map(({ name, description, parameters }) => ({ name, description, parameters }));
    const tokens =
      estimateTokens(buildSystemPrompt(rules)) +
      estimateTokens(tools) +
      estimateTokens(view(session.history));
    return {
      message: [
        `cwd: ${session.cwd}`,
        sessionLine(session),
        modeLine(session.permissionMode),
        `model: ${session.model}`,
        rulesLine(rules.files) ?? "rules: none",
        `memory: ${memory}`,
        `next request: about ${tokens} tokens`,
      ].join("\n"),
    };
  },
};

// Shows the model; switching it mid-session arrives with Day 8's runtime state.
const model: SlashCommand = {
  name: "model",
  description: "show the model (switching it arrives on Day 8)",
  run(args, { session }) {
    if (args.length > 1) throw new SlashError("takes one model name");
    const [name] = args;
    if (name === undefined) return { message: `model: ${session.model}` };
    return {
      message: `/model: switching the model arrives on Day 8; start again with --model ${printable(name)}`,
    };
  },
};

// Day 6's compaction, asked for: every round but the last becomes the summary, whatever the
// threshold, and the log gets its compact record so -c sends the same view.
const compactNow: SlashCommand = {
  name: "compact",
  description: "summarize the older rounds now, keeping the last",
  run(args, ctx) {
    noArguments(args);
    inRepl(ctx);
    const { session } = ctx;
    const threshold = session.compactAt > 0 ? session.compactAt : DEFAULT_COMPACT_AT;
    const compacted = compact(session.history, { threshold, keep: 0 });
    if (compacted === null) {
      return {
        message: `compact: nothing to compact (${plural(session.history.length, "message")})`,
      };
    }
    const before = view(session.history).length;
    session.history.splice(0, session.history.length, ...compacted.messages);
    session.log?.compact({
      summary: compacted.summary,
      kept: compacted.messages.length - 1,
      shortened: compacted.shortened,
      tokens: compacted.tokens,
    });
    session.log?.finish();
    const after = view(compacted.messages).length;
    return {
      message: `compacted: ${before} messages (about ${compacted.tokens.before} tokens) into ${after} (about ${compacted.tokens.after} tokens)`,
    };
  },
};

function modeOf(word: string): PermissionMode {
  if (!(PERMISSION_MODES as readonly string[]).includes(word)) {
    throw new SlashError(
      `unknown mode: ${printable(word)} (valid: ${PERMISSION_MODES.join(", ")})`,
    );
  }
  return word as PermissionMode;
}

// The mode for the rest of this process; the session's log keeps the one it started with.
const permissions: SlashCommand = {
  name: "permissions",
  description: "show the permission mode, or change it for this process",
  run(args, { session }) {
    if (args.length > 1) throw new SlashError(`takes one mode (${PERMISSION_MODES.join(", ")})`);
    const [word] = args;
    if (word !== undefined) session.permissionMode = modeOf(word);
    return { message: modeLine(session.permissionMode) };
  },
};

const plan: SlashCommand = {
  name: "plan",
  description: "plan mode for this process: tools that change nothing, no questions",
  run(args, { session }) {
    noArguments(args, " (/permissions default leaves plan mode)");
    session.permissionMode = "plan";
    return { message: modeLine(session.permissionMode) };
  },
};

// A new conversation: a new log (its file made at its first message), the old one left on disk.
const clear: SlashCommand = {
  name: "clear",
  description: "start a new session; the old one stays on disk",
  run(args, ctx) {
    noArguments(args);
    inRepl(ctx);
    const { session } = ctx;
    const old = session.log;
    old?.finish();
    old?.close();
    // With --no-session there is no log, and /clear starts none.
    session.log =
      old === undefined ? undefined : SessionLog.create({ home: session.home, cwd: session.cwd });
    ctx.onNewLog(session.log);
    // The REPL's loops go on; the new log holds them, so its -c lists them.
    session.loops?.recordEach();
    session.history.splice(0);
    session.readState = new ReadState();
    return { message: sessionLine(session) };
  },
};

const LOOP_USAGE =
  "usage: /loop add <prompt> --every 5m [--label L] | /loop list | /loop cancel <id> | /loop resume <id>";

// `/loop add <prompt> --every 5m [--label L]`: the options are read from the end of the line, each
// once; everything before them is the prompt, as typed.
export function loopArguments(text: string): { prompt: string; every?: string; label?: string } {
  const options: { every?: string; label?: string } = {};
  let prompt = text;
  for (;;) {
    const match = /(?:^|\s)--(every|label)\s+(\S+)\s*$/.exec(prompt);
    const name = match?.[1] as "every" | "label" | undefined;
    if (match === null || name === undefined || options[name] !== undefined) break;
    options[name] = match[2] ?? "";
    prompt = prompt.slice(0, match.index);
  }
  return { prompt: prompt.trim(), ...options };
}

function loopsOf(ctx: SlashContext): Loops {
  inRepl(ctx);
  const { loops } = ctx.session;
  if (loops === undefined) throw new SlashError("works in the REPL only");
  return loops;
}

function loopStep<T>(step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (error instanceof LoopError) throw new SlashError(printable(error.message));
    throw error;
  }
}

// The person's side of loops: they start one without a question, since they typed it.
const loop: SlashCommand = {
  name: "loop",
  description: "send a prompt again on a timer: add <prompt> --every 5m, list, cancel, resume",
  freeText: true,
  run([text = ""], ctx) {
    const [verb = "", rest = ""] = text.trim().split(/\s+(.*)/s);
    const loops = loopsOf(ctx);
    if (verb === "" || verb === "list") {
      if (rest.trim() !== "") throw new SlashError("list takes no arguments");
      const all = loops.list();
      return { message: all.length === 0 ? "no loops" : all.map(loopLine).join("\n") };
    }
    if (verb === "add") {
      const { prompt, every, label } = loopArguments(rest);
      if (every === undefined) throw new SlashError(`--every is missing (${LOOP_USAGE})`);
      const seconds = parseEvery(every);
      if (seconds === undefined) {
        throw new SlashError(`--every takes 90s, 5m or 1h, got ${printable(every)}`);
      }
      const added = loopStep(() => loops.add(prompt, seconds, label));
      return { message: `added ${added.id}: every ${formatEvery(added.every)}: ${added.prompt}` };
    }
    if (verb === "cancel" || verb === "resume") {
      const id = rest.trim();
      if (id === "" || /\s/.test(id)) throw new SlashError(`${verb} takes one loop id`);
      if (verb === "cancel") {
        return { message: `cancelled ${loopStep(() => loops.cancel(id)).id}` };
      }
      const resumed = loopStep(() => loops.resume(id));
      return { message: `resumed ${resumed.id}: every ${formatEvery(resumed.every)}` };
    }
    throw new SlashError(`unknown: ${printable(verb)} (${LOOP_USAGE})`);
  },
};

// The built-ins, in the order /help lists them.
export function builtInCommands(): SlashCommand[] {
  return [help, exit, context, model, compactNow, permissions, plan, clear, loop];
}

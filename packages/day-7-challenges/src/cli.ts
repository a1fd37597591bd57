#!/usr/bin/env node
// agent-code's command line: reads argv, prints the header and the trace, runs the REPL. Every
// error is caught once, here, and becomes one `error:` line on stderr and an exit code.
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { createInterface, type Interface } from "node:readline";
import { cac } from "cac";
import { runAgent } from "./agent.ts";
import { CompactError, compactAtFromEnv } from "./compact.ts";
import { type LineSource, Prompter, type Ui, wantsColour } from "./diff-ui.ts";
import { ReadState } from "./fs-safety.ts";
import { Hooks } from "./hooks.ts";
import { HOOKS_USAGE, HooksUsageError, hooksCommand } from "./hooks-command.ts";
import {
  LoopFloorError,
  Loops,
  loopFloorFromEnv,
  loopMaxFromEnv,
  loopPrompt,
  pausedNote,
} from "./loops.ts";
import {
  ApiError,
  createProvider,
  DEFAULT_MODEL,
  type Message,
  type ModelProvider,
  PROVIDERS,
} from "./model.ts";
import { PERMISSION_MODES, type PermissionMode } from "./permissions.ts";
import { secretValues } from "./redact.ts";
import { buildSystemPrompt, type LoadedRules, loadRules, rulesLine } from "./rules.ts";
import { SESSION_ID, SessionError, SessionLog } from "./session.ts";
import {
  askStdin,
  SESSIONS_USAGE,
  SessionsUsageError,
  sessionsCommand,
} from "./sessions-command.ts";
import { agentHome, loadSettings, type Rules, SettingsError } from "./settings.ts";
import { BackgroundTasks, stopAllCommands } from "./shell.ts";
import { builtInCommands, dispatch, isSlash, runOneShot, SlashCommands } from "./slash.ts";
import { defaultTools, type ToolRegistry } from "./tools/index.ts";

// A mistake in how the command was called: exit code 2, like the argv errors cac reports.
class UsageError extends Error {}

interface Session {
  cwd: string;
  provider: ModelProvider;
  tools: ToolRegistry;
  providerName: string;
  model: string;
  baseURL: string | undefined;
  maxSteps: number;
  // AGENT_CODE_COMPACT_AT: the request size, in estimated tokens, that starts a compaction.
  compactAt: number;
  permissionMode: PermissionMode;
  rules: Rules;
  home: string;
  tasks: BackgroundTasks;
  input: StdinLines;
  ui: Ui;
  // Where the conversation is written; undefined with --no-session.
  log: SessionLog | undefined;
  // The conversation so far: what a resumed log held, then every message of this process's runs.
  history: Message[];
  readState: ReadState;
  // AGENT.md as the header read it, for the first prompt; each later prompt reads it again.
  agentRules: LoadedRules | undefined;
  // The rules notes already printed, so a REPL says each once.
  notesShown: Set<string>;
  hooks: Hooks;
  // The REPL's loops (loops.ts); a one-shot run has none, and cron_create says so.
  loops: Loops | undefined;
}

interface Options {
  cwd?: unknown;
  provider?: unknown;
  model?: unknown;
  baseUrl?: unknown;
  maxSteps?: unknown;
  permissionMode?: unknown;
  allow?: unknown;
  deny?: unknown;
  continue?: unknown;
  resume?: unknown;
  fork?: unknown;
  session?: unknown;
}

// Which session a run writes: a new one, the project's latest, a named one, or none.
type SessionChoice =
  | { kind: "new" }
  | { kind: "none" }
  | { kind: "continue"; fork?: boolean }
  | { kind: "resume"; id: string; fork?: boolean };

// The log being written, for the signal handlers: a Ctrl-C must still record the repair.
let openLog: SessionLog | undefined;

export async function main(argv: string[]): Promise<number> {
  // `sessions` as the first word is the command that reads the logs (a prompt that begins with
  // the word is one quoted argument, so it never lands here).
  const args = argv[2] === "--" ? argv.slice(3) : argv.slice(2);
  if (args[0] === "sessions") return runSessions(args.slice(1));
  if (args[0] === "hooks") return runHooks(args.slice(1));
  const cli = cac("agent-code");
  cli
    .command("[...prompt]", "Run one prompt; with no prompt, start a REPL")
    .option("-C, --cwd <dir>", "Working directory (default: the current directory)")
    .option("--provider <name>", `Model provider: ${PROVIDERS.join(" or ")} (default: anthropic)`)
    .option("--model <name>", `Model name (default: ${DEFAULT_MODEL})`)
    .option(
      "--base-url <url>",
      "Messages API base URL (default: ANTHROPIC_BASE_URL, else DeepSeek)",
    )
    .option("--max-steps <n>", "The most model calls in one run (default: 8)")
    .option(
      "--permission-mode <mode>",
      `What runs without a question: ${PERMISSION_MODES.join(", ")} (default: default)`,
    )
    .option("--allow <rule>", 'Run what the rule names without a question, as "Bash(npm test:*)"')
    .option("--deny <rule>", 'Refuse what the rule names, as "Read(.env)" (both repeatable)')
    .option("-c, --continue", "Go on with this folder's latest session")
    .option("--resume <id>", "Go on with the session of that id (or its last 6 hex digits)")
    .option("--fork", "With -c or --resume: a new session that starts from that one's view")
    .option("--no-session", "Write no session log")
    .action(async (words: unknown[], options: Options) => {
      const cwd = resolveCwd(options.cwd);
      const providerName = providerOption(options.provider);
      const maxSteps = maxStepsOption(options.maxSteps);
      const choice = sessionOption(options, argv);
      const tools = defaultTools({ secrets: secretValues(process.env) });
      const home = agentHome(process.env);
      // The user's file, the project's and the flags; what a project may not decide is noted.
      const settings = loadSettings({
        cwd,
        home,
        allow: listOption(options.allow),
        deny: listOption(options.deny),
        toolNames: tools.list().map((tool) => tool.name),
      });
      for (const note of settings.notes) console.error(note);
      const permissionMode =
        permissionModeOption(options.permissionMode) ?? settings.mode ?? "default";
      const model = options.model === undefined ? DEFAULT_MODEL : String(options.model);
      const baseURL = options.baseUrl === undefined ? undefined : String(options.baseUrl);
      const compactAt = compactAtFromEnv(process.env);
      const loopFloor = loopFloorFromEnv(process.env);
      const loopMax = loopMaxFromEnv(process.env);
      const prompt = words.map(String).join(" ").trim();
      // The slash commands. A one-shot `/x` runs before a provider is made or a log opened: no
      // key needed, no header, no request.
      const commands = new SlashCommands(builtInCommands());
      if (isSlash(prompt)) {
        const session = { cwd, home, model, tools, compactAt, permissionMode };
        return await runOneShot(prompt, commands, session, PRINT);
      }
      const input = new StdinLines();
      const interactive = process.stdin.isTTY === true;
      const provider = createProvider(providerName, model, baseURL);
      // Opened once the run can start: a usage error or a missing key leaves nothing behind.
      const log = openSession(choice, { home, cwd });
      openLog = log;
      for (const note of log?.notes ?? []) console.error(note);
      // The person's AGENT.md and the project's, read before the header that names them.
      const agentRules = await loadRules({ cwd, home });
      const session = {
        cwd,
        provider,
        tools,
        providerName,
        model,
        baseURL,
        maxSteps,
        compactAt,
        permissionMode,
        rules: settings.rules,
        home,
        tasks: new BackgroundTasks(),
        input,
        ui: new Prompter(
          input,
          process.stdout,
          !interactive,
          wantsColour(process.stdout, process.env),
        ),
        log,
        history: log?.messages() ?? [],
        readState: new ReadState(),
        agentRules,
        notesShown: new Set<string>(),
        // Loaded once, here: a hook written during the run waits for the next start.
        hooks: new Hooks(settings.hooks, {
          cwd,
          ...(log === undefined ? {} : { sessionId: log.id }),
        }),
        loops: undefined as Loops | undefined,
      };
      // Loops belong to a REPL: its log records them, and a resumed one lists its own as paused.
      // Nothing else is read for them (no project file).
      if (prompt === "") {
        const loops = new Loops({
          floor: loopFloor,
          max: loopMax,
          record: (record) => session.log?.loop(record),
        });
        const paused = pausedNote(loops.restore(log?.loopRecords() ?? []));
        if (paused !== undefined) console.error(paused);
        session.loops = loops;
      }
      printNotes(session, agentRules.notes);
      printHeader(session);
      try {
        if (prompt === "") return await repl(session, commands);
        await runOnce(prompt, session);
        return 0;
      } finally {
        input.close();
        session.loops?.stopAll();
        // Background tasks belong to the session: a one-shot run, or a REPL, takes them along.
        session.tasks.stopAll();
        // /clear may have opened another.
        session.log?.close();
        openLog = undefined;
      }
    });
  // The sessions command is dispatched before cac: its help points there.
  cli.help((sections) => [
    ...sections,
    { title: "Sessions", body: `  ${SESSIONS_USAGE.replace("usage: ", "$ ")}` },
    { title: "Hooks", body: `  ${HOOKS_USAGE.replace("usage: ", "$ ")}` },
  ]);

  try {
    // `pnpm start -- -C dir "hi"` passes its `--` on: a leading one does not end the options here.
    cli.parse(argv[2] === "--" ? [...argv.slice(0, 2), ...argv.slice(3)] : argv, { run: false });
    // Only runMatchedCommand() checks for unknown options, missing values and unused args.
    return (await cli.runMatchedCommand()) ?? 0;
  } catch (error) {
    return reportError(error);
  }
}

// mri hands values over already converted (`-C 123` arrives as a number), so convert back.
function resolveCwd(value: unknown): string {
  const cwd = resolve(value === undefined ? process.cwd() : String(value));
  const stat = statSync(cwd, { throwIfNoEntry: false });
  if (!stat) throw new UsageError(`--cwd does not exist: ${cwd}`);
  if (!stat.isDirectory()) throw new UsageError(`--cwd is not a directory: ${cwd}`);
  return cwd;
}

function providerOption(value: unknown): string {
  const name = value === undefined ? "anthropic" : String(value);
  if (!(PROVIDERS as readonly string[]).includes(name)) {
    throw new UsageError(`unknown --provider: ${name} (valid: ${PROVIDERS.join(", ")})`);
  }
  return name;
}

// mri has already turned the text into a number (`0x10` is 16): check what it became.
function maxStepsOption(value: unknown): number {
  if (value === undefined) return 8;
  const steps = Number(value);
  if (!Number.isInteger(steps) || steps < 1) {
    throw new UsageError(`--max-steps must be a positive integer, got ${String(value)}`);
  }
  return steps;
}

// An unknown mode is a mistake, never a silent default: `Plan` must not mean "ask as usual".
function permissionModeOption(value: unknown): PermissionMode | undefined {
  if (value === undefined) return undefined;
  const mode = String(value);
  if (!(PERMISSION_MODES as readonly string[]).includes(mode)) {
    throw new UsageError(
      `unknown --permission-mode: ${mode} (valid: ${PERMISSION_MODES.join(", ")})`,
    );
  }
  return mode as PermissionMode;
}

// -c, --resume and --no-session, checked before anything is opened or sent. An id is checked
// before it becomes part of a path: `../x` never reaches the file system.
function sessionOption(options: Options, argv: string[]): SessionChoice {
  const resume = options.resume === undefined ? undefined : typed(argv, "--resume");
  const continuing = options.continue === true;
  if (continuing && resume !== undefined) {
    throw new UsageError("--continue and --resume cannot be used together");
  }
  const fork = options.fork === true;
  if (fork && !continuing && resume === undefined) {
    throw new UsageError("--fork needs -c or --resume <id>: the session to start from");
  }
  if (options.session === false) {
    if (continuing) throw new UsageError("--no-session and --continue cannot be used together");
    if (resume !== undefined) {
      throw new UsageError("--no-session and --resume cannot be used together");
    }
    return { kind: "none" };
  }
  if (continuing) return { kind: "continue", fork };
  if (resume === undefined) return { kind: "new" };
  if (!SESSION_ID.test(resume) && !/^[0-9a-f]{6}$/.test(resume)) {
    throw new UsageError(
      `--resume: ${JSON.stringify(resume)} is not a session id (they look like 20261201-181502-3f9a1c)`,
    );
  }
  return { kind: "resume", id: resume, fork };
}

// An option's value as typed: mri has made `--resume 001234` the number 1234, which no String()
// turns back. The last one counts, as in mri.
function typed(argv: string[], name: string): string {
  let value = "";
  for (const [index, arg] of argv.entries()) {
    if (arg === name) value = argv[index + 1] ?? "";
    if (arg.startsWith(`${name}=`)) value = arg.slice(name.length + 1);
  }
  return value;
}

function openSession(
  choice: SessionChoice,
  where: { home: string; cwd: string },
): SessionLog | undefined {
  if (choice.kind === "none") return undefined;
  if (choice.kind !== "new" && choice.fork === true) {
    return SessionLog.fork(where, choice.kind === "resume" ? choice.id : undefined);
  }
  if (choice.kind === "continue") return SessionLog.latest(where);
  if (choice.kind === "resume") return SessionLog.open(where, choice.id);
  return SessionLog.create(where);
}

// A repeated option arrives as a list, a single one as a value, an absent one as undefined.
function listOption(value: unknown): string[] {
  return value === undefined ? [] : [value].flat().map(String);
}

function printHeader(session: Session): void {
  console.log("Agent Code");
  console.log(`cwd: ${session.cwd}`);
  console.log(`provider: ${session.providerName}  model: ${session.model}`);
  if (session.baseURL !== undefined) console.log(`base_url: ${session.baseURL}`);
  const { log } = session;
  if (log === undefined) {
    console.log("session: none");
  } else if (log.parent !== undefined) {
    const count = session.history.length;
    const messages = `${count} ${count === 1 ? "message" : "messages"}`;
    console.log(`session: ${log.id} (forked from ${log.parent.id}, ${messages})`);
  } else if (log.resumed) {
    const count = session.history.length;
    console.log(`session: ${log.id} (resumed, ${count} ${count === 1 ? "message" : "messages"})`);
  } else {
    console.log(`session: ${log.id}`);
  }
  const rules = rulesLine(session.agentRules?.files ?? []);
  if (rules !== undefined) console.log(rules);
  console.log("");
}

function printNotes(session: Session, notes: string[]): void {
  for (const note of notes) {
    if (!session.notesShown.has(note)) console.error(note);
    session.notesShown.add(note);
  }
}

// The system prompt of one prompt, built once and sent with every model call of its run. The first
// prompt takes what the header read; a later REPL line reads AGENT.md again, so an edit counts.
async function systemPrompt(session: Session): Promise<string> {
  const rules = session.agentRules ?? (await loadRules({ cwd: session.cwd, home: session.home }));
  session.agentRules = undefined;
  printNotes(session, rules.notes);
  return buildSystemPrompt(rules);
}

// The trace is printed as it happens: a diff and its question appear under their tool_call. Each
// message is written to the log as it joins the conversation, and kept for the REPL's next line.
async function runOnce(prompt: string, session: Session): Promise<void> {
  const { log, history } = session;
  const system = await systemPrompt(session);
  try {
    await runAgent(prompt, session.provider, session.tools, {
      system,
      history: [...history],
      record: (message, meta) => {
        history.push(message);
        log?.append(message, meta);
      },
      // A compaction replaces the older messages, in the log's view and the REPL's next line.
      compactAt: session.compactAt,
      onCompact: (compacted) => {
        history.splice(0, history.length, ...compacted.messages);
        log?.compact({
          summary: compacted.summary,
          kept: compacted.messages.length - 1,
          shortened: compacted.shortened,
          tokens: compacted.tokens,
        });
      },
      readState: session.readState,
      cwd: session.cwd,
      maxSteps: session.maxSteps,
      permissionMode: session.permissionMode,
      rules: session.rules,
      home: session.home,
      tasks: session.tasks,
      hooks: session.hooks,
      ...(session.loops === undefined ? {} : { loops: session.loops }),
      onTrace: (line) => console.log(line),
      ui: session.ui,
    });
  } finally {
    log?.finish();
  }
}

// The one reader of stdin. The REPL's lines and the answers to questions both come from it, so
// piped input is used in order: a prompt, its `y`, the next prompt. Opened at the first line
// wanted, so a one-shot run that asks nothing never touches stdin.
class StdinLines implements LineSource {
  #rl: Interface | undefined;
  #lines: AsyncIterator<string> | undefined;
  // The line the REPL waits for while a loop may come due: the next reader (the REPL, or a
  // question a loop's run asks) takes it.
  #ahead: Promise<string | undefined> | undefined;
  #arrived = false;

  next(): Promise<string | undefined> {
    const ahead = this.#ahead;
    this.#ahead = undefined;
    return ahead ?? this.#read();
  }

  // The next line, without taking it.
  ahead(): Promise<string | undefined> {
    if (this.#ahead === undefined) {
      this.#arrived = false;
      this.#ahead = this.#read();
      void this.#ahead.then(() => {
        this.#arrived = true;
      });
    }
    return this.#ahead;
  }

  // A line (or the end of input) is there for the next reader.
  get waiting(): boolean {
    return this.#ahead !== undefined && this.#arrived;
  }

  async #read(): Promise<string | undefined> {
    if (this.#lines === undefined) {
      // With an output, a terminal shows what is typed: readline takes over the echo.
      this.#rl = createInterface({
        input: process.stdin,
        output: process.stdout,
        terminal: process.stdin.isTTY === true,
      });
      // A terminal's readline reads Ctrl-C as a key: hand it on as the signal it stands for.
      this.#rl.on("SIGINT", () => process.kill(process.pid, "SIGINT"));
      // Node 20 loses piped lines that arrive before the iterator exists: take it at once.
      this.#lines = this.#rl[Symbol.asyncIterator]();
    }
    const result = await this.#lines.next();
    return result.done === true ? undefined : result.value;
  }

  close(): void {
    this.#rl?.close();
  }
}

const PRINT = {
  out: (line: string) => console.log(line),
  err: (line: string) => console.error(line),
};

// Waits for the REPL's next line or a due loop, whichever comes first. A line typed by then goes
// first: a loop fires only while the REPL is idle.
async function nextInput(session: Session): Promise<"line" | "loop"> {
  const { input, loops } = session;
  const line = input.ahead().then(() => "line" as const);
  if (loops === undefined) return line;
  const woke = await Promise.race([line, loops.whenDue().then(() => "loop" as const)]);
  if (woke === "line") return woke;
  // One turn of the event loop, for a line that is already in the pipe.
  await new Promise((resolve) => setImmediate(resolve));
  return input.waiting ? "line" : "loop";
}

// A line's run, or a loop's: a failed call ends that run, not the session.
async function runLine(line: string, session: Session): Promise<void> {
  await runOnce(line, session).catch((error: unknown) => {
    if (!(error instanceof ApiError)) throw error;
    console.error(`error: ${error.message}`);
  });
}

// One session for every line: each line's run starts from the conversation so far; a `/` line is
// a command, which never reaches the model. While it waits for a line, a due loop sends its
// prompt, marked as the loop's.
async function repl(session: Session, commands: SlashCommands): Promise<number> {
  const interactive = process.stdin.isTTY === true;
  const prompt = () => interactive && process.stdout.write("> ");

  prompt();
  for (;;) {
    if ((await nextInput(session)) === "loop") {
      const due = session.loops?.takeDue();
      if (due !== undefined) {
        const marked = loopPrompt(due);
        console.log(marked);
        await runLine(marked, session);
        prompt();
      }
      continue;
    }
    const raw = await session.input.next();
    if (raw === undefined) break;
    const line = raw.trim();
    if (isSlash(line)) {
      const onNewLog = (log: SessionLog | undefined) => {
        openLog = log;
      };
      const ran = await dispatch(line, commands, { session, oneShot: false, onNewLog }, PRINT);
      if (ran.exit) return 0;
    } else if (line !== "") {
      await runLine(line, session);
    }
    prompt();
  }
  return 0;
}

// `agent-code sessions …`: no request, no header; the same errors and exit codes as a run.
async function runSessions(args: string[]): Promise<number> {
  try {
    return await sessionsCommand(args, {
      home: agentHome(process.env),
      resolveCwd: (dir) => resolveCwd(dir),
      out: (line) => console.log(line),
      err: (line) => console.error(line),
      ask: askStdin,
    });
  } catch (error) {
    if (error instanceof SessionsUsageError) {
      console.error(`error: ${error.message}`);
      console.error(SESSIONS_USAGE);
      return 2;
    }
    return reportError(error);
  }
}

// `agent-code hooks …`: the person's side of a project's hooks; no request, no header.
async function runHooks(args: string[]): Promise<number> {
  try {
    return await hooksCommand(args, {
      home: agentHome(process.env),
      resolveCwd: (dir) => resolveCwd(dir),
      toolNames: defaultTools({ secrets: [] })
        .list()
        .map((tool) => tool.name),
      out: (line) => console.log(line),
      err: (line) => console.error(line),
      ask: askStdin,
    });
  } catch (error) {
    if (error instanceof HooksUsageError) {
      console.error(`error: ${error.message}`);
      console.error(HOOKS_USAGE);
      return 2;
    }
    return reportError(error);
  }
}

function reportError(error: unknown): number {
  if (error instanceof Error && error.name === "CACError") {
    console.error(`error: ${error.message} (see agent-code --help)`);
    return 2;
  }
  if (error instanceof UsageError || error instanceof SettingsError) {
    console.error(`error: ${error.message}`);
    return 2;
  }
  if (
    error instanceof ApiError ||
    error instanceof SessionError ||
    error instanceof CompactError ||
    error instanceof LoopFloorError
  ) {
    console.error(`error: ${error.message}`);
    return 1;
  }
  // Anything else is a bug in agent-code itself: show where it happened.
  console.error(error);
  return 1;
}

// Ctrl-C stops the run at once, mid-request too, with the code shells give it (128 + SIGINT's 2).
// A command runs in its own process group, which the terminal's Ctrl-C does not reach: every live
// one is killed first. So on any other way out: a kill, a closed terminal, the end of the run.
// The log gets its repair first, synchronously: the calls the model asked for and never saw
// answered are recorded as interrupted, so the next -c is a conversation the API accepts.
function stopped(code: number): void {
  stopAllCommands();
  try {
    openLog?.repairUnanswered("interrupted");
    openLog?.finish();
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
  }
  process.exit(code);
}
process.on("SIGINT", () => stopped(130));
process.on("SIGTERM", () => stopped(143));
process.on("SIGHUP", () => stopped(129));
process.on("exit", () => {
  stopAllCommands();
  // The lock goes with the process, however it ends.
  openLog?.close();
});
process.exitCode = await main(process.argv);

// agent-code's command line: reads argv, prints the header and the trace, runs the REPL. Every
// error is caught once, here, and becomes one `error:` line on stderr and an exit code.
import { readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { clearScreenDown, createInterface, cursorTo, moveCursor } from "node:readline";
import { cac } from "cac";
import { runAgent } from "./agent.ts";
import { ApiError, createProvider, DEFAULT_MODEL, type ModelProvider, PROVIDERS } from "./model.ts";
import { defaultTools, type ToolRegistry } from "./tools.ts";

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
}

interface Options {
  cwd?: unknown;
  provider?: unknown;
  model?: unknown;
  baseUrl?: unknown;
  maxSteps?: unknown;
  apiKeyEnv?: unknown;
  stream?: unknown;
}

export async function main(argv: string[]): Promise<number> {
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
      "--api-key-env <name>",
      "The variable that holds the API key (default: ANTHROPIC_AUTH_TOKEN, else ANTHROPIC_API_KEY)",
    )
    .option("--no-stream", "Wait for each whole answer (default: stream it as it arrives)")
    .action(async (words: unknown[], options: Options) => {
      loadDotEnv(process.cwd());
      const cwd = resolveCwd(options.cwd);
      const providerName = providerOption(options.provider);
      const maxSteps = maxStepsOption(options.maxSteps);
      const apiKeyEnv = apiKeyEnvOption(options.apiKeyEnv);
      const model = options.model === undefined ? DEFAULT_MODEL : String(options.model);
      const baseURL = options.baseUrl === undefined ? undefined : String(options.baseUrl);
      const session = {
        cwd,
        provider: createProvider(providerName, model, baseURL, {
          apiKeyEnv,
          stream: options.stream !== false,
        }),
        tools: defaultTools(),
        providerName,
        model,
        baseURL,
        maxSteps,
      };
      printHeader(session);
      const prompt = words.map(String).join(" ").trim();
      if (prompt === "") return repl(session);
      await runOnce(prompt, session);
      return 0;
    });
  // cac gives a --no-x option the default `true` (x is on) and says so after the text, where it
  // reads as if --no-stream were on: the text above says the default instead.
  cli.help((sections) =>
    sections.map((section) => ({
      ...section,
      body: section.body.replace(/ \(default: true\)/g, ""),
    })),
  );

  try {
    // `pnpm start -- -C dir "hi"` passes its `--` on: a leading one does not end the options here.
    cli.parse(argv[2] === "--" ? [...argv.slice(0, 2), ...argv.slice(3)] : argv, { run: false });
    // Only runMatchedCommand() checks for unknown options, missing values and unused args.
    return (await cli.runMatchedCommand()) ?? 0;
  } catch (error) {
    return reportError(error);
  }
}

// `.env` in the directory agent-code was started in, not --cwd's: the project the agent works on
// may have a .env of its own, which is not agent-code's. Node's own loader reads it and never
// overwrites a variable the shell already set. Node skips lines it cannot read without a word, so
// each line is checked first; the error names the line by number, as it may hold a key.
function loadDotEnv(dir: string): void {
  const file = join(dir, ".env");
  if (!statSync(file, { throwIfNoEntry: false })?.isFile()) return;
  const line = malformedLine(readFileSync(file, "utf8"));
  if (line !== undefined) {
    throw new UsageError(`${file}:${line}: expected NAME=value, a # comment or a blank line`);
  }
  process.loadEnvFile(file);
}

// The number of the first line that is not blank, a # comment or NAME=value (`export` allowed); a
// quoted value may run over several lines, but its quote must close.
function malformedLine(text: string): number | undefined {
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const line = (lines[index] ?? "").trim();
    if (line === "" || line.startsWith("#")) continue;
    const value = /^(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*\s*=\s*(.*)$/.exec(line)?.[1];
    if (value === undefined) return index + 1;
    const quote = value[0];
    if (quote !== '"' && quote !== "'" && quote !== "`") continue;
    let end = index;
    let rest = value.slice(1);
    while (!rest.includes(quote)) {
      end++;
      if (end >= lines.length) return index + 1;
      rest = lines[end] ?? "";
    }
    index = end;
  }
  return undefined;
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

// The name of the variable that holds the key. Anything else is refused without being repeated:
// it may be the key itself, typed in the wrong place.
function apiKeyEnvOption(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(String(value))) {
    throw new UsageError(
      "--api-key-env takes the name of an environment variable (letters, digits and _, not starting with a digit), not the key",
    );
  }
  return String(value);
}

function printHeader(session: Session): void {
  console.log("Agent Code");
  console.log(`cwd: ${session.cwd}`);
  console.log(`provider: ${session.providerName}  model: ${session.model}`);
  if (session.baseURL !== undefined) console.log(`base_url: ${session.baseURL}`);
  console.log("");
}

// Each trace line goes to stdout as the loop makes it, so stdout ends up holding what it would
// have held had the run printed its trace at the end. A turn's words go only to the preview.
async function runOnce(prompt: string, session: Session): Promise<void> {
  const preview = process.stderr.isTTY ? livePreview(process.stderr) : undefined;
  try {
    await runAgent(prompt, session.provider, session.tools, {
      maxSteps: session.maxSteps,
      onText: preview?.show,
      onTrace: (line) => {
        preview?.clear();
        console.log(line);
      },
    });
  } finally {
    preview?.clear();
  }
}

interface Preview {
  show(text: string): void;
  clear(): void;
}

// On a terminal, the words of the turn in progress, on stderr as they arrive, erased when the turn
// ends. A turn's text arrives before anyone knows whether a tool call follows, so it is not yet
// the answer: the answer is the `final:` line that follows.
function livePreview(stream: NodeJS.WriteStream): Preview {
  let shown = "";
  return {
    show(text) {
      // Tabs would make the width unknowable and other control characters could drive the
      // terminal: neither reaches it.
      const printable = text.replaceAll("\t", " ").replace(/(?!\n)\p{Cc}/gu, "");
      stream.write(printable);
      shown += printable;
    },
    clear() {
      if (shown === "") return;
      // Back up to the row the preview started on (a line of its own), then erase to the end.
      moveCursor(stream, 0, 1 - rowsOf(shown, stream.columns || 80));
      cursorTo(stream, 0);
      clearScreenDown(stream);
      shown = "";
    },
  };
}

// How many rows of a terminal `columns` wide the text takes: each line wraps at the edge, and
// East Asian characters and emoji take two columns, combining marks none.
function rowsOf(text: string, columns: number): number {
  let rows = 0;
  for (const line of text.split("\n")) {
    let width = 0;
    for (const char of line) {
      if (/[\p{Mn}\p{Me}\u200d]/u.test(char)) continue;
      width += WIDE.test(char) ? 2 : 1;
    }
    rows += Math.max(1, Math.ceil(width / columns));
  }
  return rows;
}

const WIDE =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Emoji_Presentation}\u3000-\u303f\uff01-\uff60\uffe0-\uffe6]/u;

// Each line is a fresh one-shot run: no history is kept between lines.
async function repl(session: Session): Promise<number> {
  const interactive = process.stdin.isTTY === true;
  // On a terminal readline takes over the echo and shows what is typed on its output: without
  // one, nothing a person types would appear.
  const rl = createInterface({
    input: process.stdin,
    output: process.stdout,
    terminal: interactive,
  });
  // A terminal's readline reads Ctrl-C as a key: hand it on as the signal it stands for.
  rl.on("SIGINT", () => process.kill(process.pid, "SIGINT"));
  // Node 20 loses piped lines that arrive before the iterator exists: take it before any await.
  const lines = rl[Symbol.asyncIterator]();
  const prompt = () => interactive && process.stdout.write("> ");

  prompt();
  for await (const raw of lines) {
    const line = raw.trim();
    if (line === "/exit") {
      console.log("Bye.");
      rl.close();
      return 0;
    }
    if (line === "/help") {
      console.log("commands: /help, /exit");
    } else if (line.startsWith("/")) {
      console.error(`unknown command: ${line.split(/\s/)[0]} (try /help)`);
    } else if (line !== "") {
      // A failed call ends that line's run, not the session.
      await runOnce(line, session).catch((error: unknown) => {
        if (!(error instanceof ApiError)) throw error;
        console.error(`error: ${error.message}`);
      });
    }
    prompt();
  }
  return 0;
}

function reportError(error: unknown): number {
  if (error instanceof Error && error.name === "CACError") {
    console.error(`error: ${error.message} (see agent-code --help)`);
    return 2;
  }
  if (error instanceof UsageError) {
    console.error(`error: ${error.message}`);
    return 2;
  }
  if (error instanceof ApiError) {
    console.error(`error: ${error.message}`);
    return 1;
  }
  // Anything else is a bug in agent-code itself: show where it happened.
  console.error(error);
  return 1;
}

// Ctrl-C stops the run at once, mid-request too, with the code shells give it (128 + SIGINT's 2).
process.on("SIGINT", () => process.exit(130));
process.exitCode = await main(process.argv);

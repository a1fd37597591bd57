// Terminal replays for the docs: each stage's acceptance runs, run offline through its contract
// (the fake server or the mock) against its bundle, and written down as a terminal shows them,
// with what differs from run to run (the clock, the directory, the port) normalised.
import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { findContract, runScenario, type Wire } from "@agent-code/test-kit";
import { stageDir } from "./command.ts";
import { wireOf } from "./docs-wire.ts";

// Per stage, the contract scenarios that show its lesson working.
export const REPLAYS: Record<string, string[]> = {
  "day-1": ["exact-output", "repl-help-exit"],
  "day-2-v1": ["one-line-answer", "answer-404-page-text", "answer-html-page-text"],
  "day-2-v2": ["system-date-round", "parallel-tool-calls"],
  "day-2-v3": ["two-step-chain", "mock-offline-reduction", "max-steps", "stop-max_tokens"],
  "day-2-challenges": ["zone-unknown", "streams"],
  "day-3-v1": ["read-escape-parent", "read-offset-limit", "list-files"],
  "day-3-v2": ["grep-basic"],
  "day-3-v3": ["fetch-html", "fetch-redirect-refused"],
  "day-3-v4": ["search-tavily"],
  "day-3-challenges": ["hex-preview", "grep-runaway"],
  "day-4-v1": ["write-after-read-yes"],
  "day-4-v2": ["edit-yes"],
  "day-5-v1": ["bash-yes"],
  "day-5-v2": ["guard-rm-rf"],
  "day-5-v3": ["ask-select"],
  "day-5-v4": ["bg-started-text"],
  "day-5-v5": ["rule-compound-and"],
  "day-6-v1": ["session-planted-log-resumes", "session-damaged-middle"],
  "day-6-v2": ["rules-reach-model"],
  "day-6-v3": ["compact-pairs-intact-text"],
  "day-6-v4": ["memory-next-session-text"],
  "day-6-v5": ["sessions-list-show-export", "sessions-check-repair-fork"],
  "day-7-v1": ["slash-help-no-request-text"],
  "day-7-v2": ["hook-pre-crash-blocks"],
  "day-7-v4": ["loop-paused-on-resume"],
  "day-7-v5": ["command-no-shadow"],
  "day-7-challenges": ["challenge-loop-cron"],
  // The same prompt through every provider, then `auto` with no key.
  "appendix-providers": [
    "two-step-chain-deepseek",
    "two-step-chain-anthropic",
    "two-step-chain-openai",
    "two-step-chain-openai-chat",
    "auto-no-key",
  ],
};

const COMMAND = ["node", "dist/agent-code.mjs"];

// day-2-v3 holds v3 and its finishing touches, and the `provider:` header line is one of the
// touches: the replays the page shows in "v3: the multi-step loop", before that section, leave it
// out, as a project at that step prints it.
const BEFORE_PROVIDER_LINE = new Set([
  "day-2-v3/two-step-chain",
  "day-2-v3/max-steps",
  "day-2-v3/stop-max_tokens",
]);

// The README's normalisation table lists these; keep the two in step. A zone is a short name
// (UTC, CET) with an optional offset (GMT+8, GMT-3:30): `\S+` would eat a closing `"}` too.
const NORMALISE: { pattern: RegExp; replacement: string }[] = [
  {
    pattern: /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [A-Za-z]+(?:[+-]\d{1,2}(?::\d{2})?)?/g,
    replacement: "2026-05-20 14:32:00 UTC",
  },
  { pattern: /127\.0\.0\.1:\d+/g, replacement: "127.0.0.1:PORT" },
  // A Day 3 scenario's working directory, <its temporary folder>/work.
  { pattern: /\/[^\s'"]*agent-code-scenario-[A-Za-z0-9]+\/work/g, replacement: "/your/project" },
  // A scenario's home folder (AGENT_CODE_HOME), <its temporary folder>/home.
  { pattern: /\/[^\s'"]*agent-code-scenario-[A-Za-z0-9]+\/home/g, replacement: "~/.agent-code" },
  // A Day 6 session id: the UTC time it began and six random hex digits.
  { pattern: /\b\d{8}-\d{6}-[0-9a-f]{6}\b/g, replacement: "20261201-181502-3f9a1c" },
  // A project's folder under the home: its name, then a hash of the folder's real path.
  { pattern: /(projects\/[a-z0-9._-]+)-[0-9a-f]{12}\b/g, replacement: "$1-1a2b3c4d5e6f" },
  // A session's times as the sessions command prints them: a header's `created`, and the time a
  // `sessions list` line says the log was written to last.
  {
    pattern: /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?Z/g,
    replacement: "2026-12-01T18:15:02.000Z",
  },
  { pattern: /\b\d{4}-\d{2}-\d{2} \d{2}:\d{2}(?= {2}\d)/g, replacement: "2026-12-01 18:15" },
  // The stamp of the old log `sessions repair` keeps beside the mended one.
  { pattern: /(?<=\.jsonl\.bak-)\d{8}-\d{6}\b/g, replacement: "20261201-181530" },
];
const PROJECT_DIR = "/your/project";

// Replays of long runs, shortened for reading (their wires stay whole): a line past 100 columns
// ends in `…`, and a round shown again unchanged, its call and its observation, is one line that
// says how many times it came.
const SHORTENED = new Set(["day-6-v3/compact-pairs-intact-text"]);
// Wires of long runs that keep only the requests a page shows (first and last, counted from 1):
// the whole run of compact-pairs-intact-text is 26 requests and 769 KB, where the page shows the
// last request before the compaction and the first after it.
const WIRE_WINDOWS: Record<string, [number, number]> = {
  "day-6-v3/compact-pairs-intact-text": [20, 21],
};
const COLUMNS = 100;

// "day-2-v3/two-step-chain" for every replay, in course order.
export function replayIds(): string[] {
  return Object.entries(REPLAYS).flatMap(([stage, ids]) => ids.map((id) => `${stage}/${id}`));
}

// docs/replays/day-2-v3-two-step-chain.txt for "day-2-v3/two-step-chain".
export function replayFile(id: string): string {
  return `docs/replays/${id.replace("/", "-")}.txt`;
}

// The replay's text, without a final newline, and its wire when the run sent a model request.
// Throws when the run does not pass its scenario's judgements: a replay of a broken run would
// teach the wrong thing.
export async function runReplay(id: string): Promise<{ text: string; wire?: Wire }> {
  const [stage = "", scenarioId = ""] = id.split("/");
  const scenario = findContract(stage)?.scenarios.find((candidate) => candidate.id === scenarioId);
  if (scenario === undefined) throw new Error(`no scenario ${scenarioId} in ${stage}'s contract`);
  const cwd = stageDir(stage);
  if (!existsSync(join(cwd, COMMAND[1] ?? ""))) {
    throw new Error(`replay ${id}: ${stage} has no bundle; run \`pnpm turbo run build\` first`);
  }
  const result = await runScenario(scenario, { command: COMMAND, cwd });
  if (!result.passed) {
    const why = result.failures.map((failure) => failure.message).join("; ");
    throw new Error(`replay ${id}: the run fails its scenario (${why}); rebuild the stages`);
  }
  // Each run as typed, then what it printed: a scenario of several runs shows them all, each
  // with its own input.
  const inputs = [scenario.stdin, ...(scenario.runs ?? []).map((spec) => spec.stdin)];
  const output = (result.runs ?? [result.run]).flatMap((run, index) => {
    const args = run.command.slice(COMMAND.length).map(shellQuote);
    const command = [...stdinPipe(inputs[index]), "agent-code", ...args].join(" ");
    const stdout = BEFORE_PROVIDER_LINE.has(id)
      ? run.stdout.replace(/^provider: .*\n/m, "")
      : run.stdout;
    const shown = [`$ ${command}`, stdout.replace(/\n$/, "")];
    if (run.stderr !== "") shown.push(run.stderr.replace(/\n$/, ""));
    return shown;
  });
  const directories = [cwd, realpathSync(cwd)];
  const full = normalise(output.join("\n"), directories);
  const text = SHORTENED.has(id) ? shortenRun(full) : full;
  const wire = wireOf(
    id,
    replayFile(id),
    result.requests,
    result.responses,
    (json) => normalise(json, directories),
    WIRE_WINDOWS[id],
  );
  return wire === undefined ? { text } : { text, wire };
}

export function normalise(text: string, directories: string[]): string {
  let result = text;
  // The longest first, so a directory inside another is not half replaced.
  for (const directory of [...directories].sort((a, b) => b.length - a.length)) {
    result = result.split(directory).join(PROJECT_DIR);
  }
  for (const { pattern, replacement } of NORMALISE) result = result.replace(pattern, replacement);
  return result;
}

// A long run as a page shows it: lines cut at COLUMNS, and a round (a tool_call line and its
// observation line) that repeats the round shown just before it counted instead of shown again.
export function shortenRun(text: string): string {
  const lines = text
    .split("\n")
    .map((line) => (line.length <= COLUMNS ? line : `${line.slice(0, COLUMNS - 1)}…`));
  const out: string[] = [];
  let shown: string | undefined;
  let repeats = 0;
  const flush = () => {
    if (repeats > 0) out.push(`[… the same round ${repeats} more time${repeats === 1 ? "" : "s"}]`);
    repeats = 0;
  };
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? "";
    const next = lines[index + 1];
    if (line.startsWith("tool_call: ") && next?.startsWith("observation: ")) {
      const round = `${line}\n${next}`;
      index += 1;
      if (round === shown) {
        repeats += 1;
        continue;
      }
      flush();
      out.push(line, next);
      shown = round;
      continue;
    }
    flush();
    shown = undefined;
    out.push(line);
  }
  flush();
  return out.join("\n");
}

// Piped input shown the way a reader would type it: printf '%s\n' /help /exit | agent-code
function stdinPipe(stdin: string | undefined): string[] {
  if (stdin === undefined || stdin === "") return [];
  const lines = stdin.replace(/\n$/, "").split("\n");
  return ["printf", "'%s\\n'", ...lines.map(shellQuote), "|"];
}

// As a person would type it: bare when safe, else in single quotes, or in double quotes when it
// holds a single quote and nothing a shell expands inside double quotes.
export function shellQuote(arg: string): string {
  if (/^[\w@%+=:,./-]+$/.test(arg)) return arg;
  if (!arg.includes("'")) return `'${arg}'`;
  if (!/["$`\\!]/.test(arg)) return `"${arg}"`;
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

// Stage contracts and the one runner that judges a CLI against them. A contract is data: scenarios
// to run and judgements over what came out. The stage's own tests and `pnpm check` both call
// runContract, so a learner's project is held to exactly what the reference answer is held to.
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { findContract } from "../contracts/index.ts";
import { commitFolder, hasGit } from "./git-folder.ts";
import { leakedSecrets, printedKeys } from "./leaks.ts";
import { sweepStrayProcesses } from "./processes.ts";
import { type CliRun, runCli, splitCommand } from "./run-cli.ts";
import {
  changedPaths,
  type FileEntry,
  type FileState,
  outsideOf,
  readFolder,
  writeFiles,
} from "./scenario-folder.ts";
import {
  type FakeServer,
  type RecordedRequest,
  type RecordedResponse,
  type Step,
  startFakeServer,
} from "./server.ts";
import { FIXED_SEED } from "./vary.ts";
import {
  startFakeWeb,
  TAVILY_CANARY,
  type WebRequest,
  type WebRoutes,
  type WebSearch,
} from "./web-server.ts";

// core: what the lesson teaches, true of any correct project in any language.
// conformance: this repository's own texts and knobs.
export type Level = "core" | "conformance";

export interface ScenarioContext {
  // A fresh directory for this run (a realpath, so `cwd:` lines compare equal), holding one file.
  dir: string;
  file: string;
  // The work folder, `<dir>/work`: where a CLI with file tools starts (`startIn: "work"`, or
  // `-C` to it). The rest of `dir` is outside it, for what a tool must not reach.
  work: string;
  // The folder of agent-code's user settings, `<dir>/home`, given to the command as
  // AGENT_CODE_HOME: empty but for the scenario's `homeFiles`, so no run reads the settings of
  // whoever runs the tests.
  home: string;
  // The fake server's base URL, when the scenario has a server.
  serverUrl?: string;
  // The fake web's base URL, when the scenario has a web.
  webUrl?: string;
  // The run's seed: a scenario draws its words, numbers and file names from it (src/vary.ts), and
  // judges by drawing them again. Reading it marks the result `seeded`.
  seed: number;
}

// What one run of the command printed and how it ended, as runCli reports it: `signal` is the one
// that ended it, when one did (a Python program ends this way on Ctrl-C).
export type RunOutput = Pick<
  CliRun,
  "trace" | "stdout" | "stdoutLines" | "stderr" | "exitCode" | "signal" | "durationMs"
>;

function outputOf(run: CliRun): RunOutput {
  const { trace, stdout, stdoutLines, stderr, exitCode, signal, durationMs } = run;
  return { trace, stdout, stdoutLines, stderr, exitCode, signal, durationMs };
}

// The last run's output, then what the whole scenario showed.
export interface Observed extends RunOutput {
  requests: RecordedRequest[];
  context: ScenarioContext;
  // The scenario's folder as the run left it: path relative to `context.dir` (with `/`) -> its
  // text, or a hash for bytes and big files, or a link's target. No `node_modules`.
  files: Record<string, FileState>;
  // The permission bits (`mode & 0o7777`) of every file and folder of `files`' reading, folders
  // included, by the same paths: 0o600 for a private file (POSIX; on Windows what Node reports).
  modes: Record<string, number>;
  // The paths (relative to `context.dir`) outside the work folder that the run changed, added or
  // removed. The home folder (AGENT_CODE_HOME) is not among them: it is agent-code's own, where
  // Day 5 reads the user's settings and Day 6 keeps sessions; a judgement about it reads `files`.
  outsideChanged: string[];
  // What the fake web received, in order (empty without a web).
  webRequests: WebRequest[];
  // True when the command exited but left a process holding its output open, which was stopped.
  leftRunning: boolean;
  // What the processes still working in the scenario's folder after the run (and its settleMs)
  // were running, such as "sleep 30"; the runner stopped them. Found on Linux only: elsewhere [].
  strayProcesses: string[];
  // Every run of the command, in order: one, or one more for each of the scenario's `runs`. The
  // fields above (trace, stdout, stderr, exit code, signal, duration, leftRunning) are the last
  // run's; the requests, the folder and the stray processes are the whole scenario's.
  runs: RunObserved[];
}

/** What one run of a scenario's command showed. */
export interface RunObserved extends RunOutput {
  // The command line of this run (the docs' replays show each run of a scenario of several).
  command: string[];
  // The requests this run sent: `observed.requests` from index `firstRequest` up to, not
  // including, `endRequest` (equal when it sent none).
  firstRequest: number;
  endRequest: number;
}

/**
 * A later run of a scenario's command, in the same folder and home, against the same server script
 * (its request numbers go on from the run before). Its arguments may be built from the runs before
 * it: a session id that run 1 printed, say.
 */
export interface RunSpec {
  args: string[] | ((context: ScenarioContext, before: RunObserved[]) => string[]);
  stdin?: string;
  stdinOpen?: boolean;
  stdinLines?: StdinLine[];
  // Variables for this run, over the scenario's own.
  env?: EnvOverrides | ((context: ScenarioContext) => EnvOverrides);
  // Ctrl-C, as the scenario's `interrupt`, with `afterRequests` counted from this run's start.
  interrupt?: Scenario["interrupt"];
}

export interface Judgement {
  // What went wrong, in a learner's words; shown only when check() returns false.
  message: string;
  // A docs link such as "docs/day-2.md#stop-reasons".
  docs: string;
  check: (observed: Observed) => boolean;
  // The judgement wants the run to fail (exit 1, or any non-zero exit): a program that crashes at
  // start meets it too, so it proves nothing about a project on its own (the check's headline).
  expectsFailure?: boolean;
}

// A scenario whose run should succeed: none of its judgements wants a failed run.
export function isPositive(scenario: Scenario): boolean {
  return !scenario.judgements.some((judgement) => judgement.expectsFailure === true);
}

/**
 * A line typed later, after `stdin`: `afterRequests` once the server has that many requests of
 * this run, then `afterMs` after the line before it was written (after the start for the first).
 * `line` gets its `\n`.
 */
export interface StdinLine {
  line: string;
  afterRequests?: number;
  afterMs?: number;
}

// Variables over the caller's: one set to undefined is removed.
export type EnvOverrides = Record<string, string | undefined>;

export interface Scenario {
  // Stable: graders keep results by it. A renamed scenario keeps its old ids in `aliases`.
  id: string;
  aliases?: string[];
  title: string;
  level: Level;
  // CLI arguments, the prompt last.
  args: string[] | ((context: ScenarioContext) => string[]);
  stdin?: string;
  // Keep stdin open until the command exits (runCli's stdinOpen), for what reads it.
  stdinOpen?: boolean;
  // Lines typed while the command runs, after `stdin`: a REPL that must stay open while a loop of
  // its own fires. Stdin ends after the last (unless stdinOpen).
  stdinLines?: StdinLine[];
  // Variables for the command, given or built per run (a path in the scenario's folder).
  env?: EnvOverrides | ((context: ScenarioContext) => EnvOverrides);
  // Without a server the CLI's ANTHROPIC_BASE_URL (and OPENAI_BASE_URL, OPENAI_CHAT_BASE_URL)
  // point at a dead loopback port.
  // Steps may be built per run, once the folder and the web exist (a URL, an absolute path, a
  // step that changes a file before it answers).
  server?: {
    flavour?: "anthropic" | "deepseek";
    key?: string;
    steps: Step[] | ((context: ScenarioContext) => Step[]);
  };
  // A fake web for this run (context.webUrl): pages, redirects, faults and search providers.
  // Routes may be built per run, to name the web's own URL.
  web?: {
    routes?: WebRoutes | ((context: ScenarioContext) => WebRoutes);
    search?: WebSearch;
  };
  // Files written into the scenario's directory before the run: path (below it, `/`) -> text,
  // bytes, `{ symlink: target }` or `{ text, mtime }`. Work-folder files go under `work/`.
  files?: (context: ScenarioContext) => Record<string, FileEntry>;
  // Files written below the home folder (context.home), as `files` takes them: `settings.json` is
  // the user's settings file. Built per run when it names a path of the run (a trusted folder).
  homeFiles?: Record<string, FileEntry> | ((context: ScenarioContext) => Record<string, FileEntry>);
  // The platforms (process.platform) the scenario can run on; elsewhere it is skipped, never
  // failed (a symlink on Windows needs a privilege).
  platforms?: NodeJS.Platform[];
  // "scenario" starts the CLI in the scenario's directory instead of the project's, for what a
  // CLI reads from the directory it was started in (a .env file); "work" in the work folder. The
  // command is made to start from there: see commandFrom.
  startIn?: "project" | "scenario" | "work";
  // Ctrl-C: SIGINT to the command's process group once the server has `afterRequests` requests
  // and the file `afterFile` (relative to the scenario's folder: "work/started.txt") exists, each
  // when given, and `afterMs` after that (for a tool that runs after the answer: a busy machine may
  // start it late, so a scenario must hold whether the Ctrl-C comes before the tool or during it).
  interrupt?: { afterRequests?: number; afterFile?: string; afterMs?: number };
  // How long to wait after the command exits before the folder is read back and left processes
  // are looked for: a process the run should have stopped would write its late marker by then.
  settleMs?: number;
  // Values that must reach neither stdout, stderr nor any request the fake server received (the
  // scenario sets the variables that hold them through `env`); one that does fails the scenario.
  secrets?: string[] | ((context: ScenarioContext) => string[]);
  // Makes the work folder a git repository with one commit of its files (src/git-folder.ts).
  git?: boolean;
  // Runs of the command after the first (the scenario's own args, stdin, env and interrupt), in
  // order, in the same folder and home against the same server script: a session continued, a
  // memory saved and found again. Each starts once the one before it has exited (and settled).
  runs?: RunSpec[];
  // Called before each later run, with its index in `observed.runs` (1 for the second run): to
  // change a file between runs, as a person or a crash would.
  between?: (context: ScenarioContext, index: number) => void;
  judgements: Judgement[];
}

export interface Contract {
  stage: string;
  title: string;
  // The stage this one is a complete copy of, which stage-diff, stage-stats and the docs' diffs
  // compare it with; none for the first stage. Two stages may share a base.
  base?: string;
  scenarios: Scenario[];
}

export interface RunContractOptions {
  command: string | string[];
  cwd?: string;
  timeoutMs?: number;
  only?: string[];
  levels?: Level[];
  // How many scenarios run at once (1 by default); results stay in contract order.
  concurrency?: number;
  // A second pool beside the first, for the scenarios `holds` picks: those that wait on purpose
  // (budget.ts's declaredWaitMs: a settle, a Ctrl-C's delay, a slow step). A wait needs no CPU,
  // so it need not take a slot from the runs that start a program.
  waitingPool?: { concurrency: number; holds: (scenario: Scenario) => boolean };
  // Called as each scenario finishes, in the order they finish.
  onScenario?: (result: ScenarioResult) => void;
  // Aborting kills the running commands and starts no more scenarios.
  signal?: AbortSignal;
  // Runs shared between scenarios: give one map to every run with the same command, directory
  // and timeout. A scenario then runs the command only when no scenario with the same inputs has
  // (see runKey): a later stage's copy of a scenario, or the conformance twin of a core one, is
  // judged on the run that already happened.
  sharedRuns?: SharedRuns;
  // Which of the caller's variables the command inherits (runCli's `inherit`): all but the leaky
  // ones when not given. `pnpm check` passes an allowlist.
  inheritEnv?: (name: string) => boolean;
  // Variables for every run of the command, under the scenario's own (a stage's tests give the
  // bundle a compile cache).
  env?: EnvOverrides;
  // The seed seeded scenarios draw from (src/vary.ts); FIXED_SEED when not given. Runs at two
  // seeds never share: give each seed its own `sharedRuns`.
  seed?: number;
}

/** Runs by their inputs (runKey), for RunContractOptions.sharedRuns. */
export type SharedRuns = Map<string, Promise<ScenarioRun>>;

/** What one run of the command showed, before any judgement. */
export interface ScenarioRun {
  run: CliRun;
  observed: Observed;
  responses: RecordedResponse[];
  env: EnvOverrides;
  // The scenario's secrets, as built for this run.
  secrets?: string[];
  // Whether the scenario has read the run's seed so far (building its inputs, or judging).
  readSeed: () => boolean;
}

export interface ScenarioResult {
  id: string;
  title: string;
  level: Level;
  passed: boolean;
  failures: { message: string; docs: string }[];
  // The fake server's 400 text, when the CLI sent something the real service would reject.
  serverText?: string;
  timedOut: boolean;
  // Why the scenario did not run here (its platforms); a skipped scenario counts as passed.
  skipped?: string;
  // What a learner should know that no judgement decides (a process left running).
  notes?: string[];
  // The scenario drew from the seed: at another seed it asks for other words and numbers.
  seeded?: boolean;
  run: CliRun;
  // Every run of a scenario of several (`runs`), in order, the last being `run`'s.
  runs?: RunObserved[];
  requests: RecordedRequest[];
  // What the fake server sent back, by request (the docs' wire views show it).
  responses: RecordedResponse[];
}

export interface ContractResult {
  stage: string;
  // Every core scenario that ran passed.
  passed: boolean;
  // Every scenario that ran passed, conformance included.
  strictPassed: boolean;
  scenarios: ScenarioResult[];
}

const DEAD_URL = "http://127.0.0.1:9";
const WORK = "work";
const HOME = "home";
// Every scenario runs with a key, and no scenario may print one: this value is easy to spot.
export const CANARY_TOKEN = "sk-agent-code-canary-7d1f";
// Every run's command gets its scenario's folder in this variable: a wrapper around the command
// (pnpm check's sandbox) lets the program reach that folder and hides the rest of the OS's temp.
export const SCENARIO_DIR_VARIABLE = "AGENT_CODE_SCENARIO_DIR";
const LEFT_RUNNING =
  "the command exited but left a process running that held its output open; the runner stopped it";

export async function runContract(
  stage: string | Contract,
  options: RunContractOptions,
): Promise<ContractResult> {
  const contract = typeof stage === "string" ? findContract(stage) : stage;
  if (contract === undefined) throw new Error(`no contract for stage: ${String(stage)}`);
  const scenarios = contract.scenarios.filter(
    (scenario) =>
      (options.only === undefined || options.only.includes(scenario.id)) &&
      (options.levels === undefined || options.levels.includes(scenario.level)),
  );
  const results = await runAll(scenarios, options);
  const core = results.filter((result) => result.level === "core");
  return {
    stage: contract.stage,
    passed: core.every((result) => result.passed),
    strictPassed: results.every((result) => result.passed),
    scenarios: results,
  };
}

// Small pools: the workers of a pool share one queue, and each result keeps its scenario's slot.
// Scenarios that wait on purpose get a pool of their own when the options ask for one.
async function runAll(
  scenarios: Scenario[],
  options: RunContractOptions,
): Promise<ScenarioResult[]> {
  const slots: (ScenarioResult | undefined)[] = scenarios.map(() => undefined);
  const entries = [...scenarios.entries()];
  const { waitingPool } = options;
  const waiting = entries.filter(([, scenario]) => waitingPool?.holds(scenario) === true);
  const rest = entries.filter((entry) => !waiting.includes(entry));
  async function pool(queue: [number, Scenario][], size: number): Promise<void> {
    const next = queue.values();
    async function worker(): Promise<void> {
      for (const [index, scenario] of next) {
        if (options.signal?.aborted) return;
        const result = await runScenario(scenario, options);
        slots[index] = result;
        options.onScenario?.(result);
      }
    }
    const workers = Math.max(1, Math.min(size, queue.length));
    await Promise.all(Array.from({ length: workers }, worker));
  }
  await Promise.all([
    pool(waiting, waitingPool?.concurrency ?? 1),
    pool(rest, options.concurrency ?? 1),
  ]);
  return slots.filter((result) => result !== undefined);
}

export async function runScenario(
  scenario: Scenario,
  options: RunContractOptions,
): Promise<ScenarioResult> {
  const { platforms } = scenario;
  if (platforms !== undefined && !platforms.includes(process.platform)) {
    return skipped(scenario, `runs only on ${platforms.join(", ")}, not ${process.platform}`);
  }
  if (scenario.git === true && !hasGit()) return skipped(scenario, "needs git, not found on PATH");
  const shared = options.sharedRuns;
  if (shared === undefined) return judgeRun(scenario, await observe(scenario, options));
  const key = runKey(scenario);
  let run = shared.get(key);
  if (run === undefined) {
    run = observe(scenario, options);
    shared.set(key, run);
  }
  return judgeRun(scenario, await run);
}

/**
 * What makes two scenarios' runs the same: their inputs, where a function or bytes among them is the
 * same input only when it is the same object. A function may answer each run differently, so two
 * functions are never compared by what they return; a twin built from its core scenario
 * (`{ ...core, id, level, judgements }`) holds the very same ones and shares its run.
 */
export function runKey(scenario: Scenario): string {
  // A scenario is a constant: its key is worked out once (the budget and the plans ask for the
  // keys of the same carried scenarios at every stage, and a key holds the scenario's files).
  const known = runKeys.get(scenario);
  if (known !== undefined) return known;
  const key = runKeyOf(scenario);
  runKeys.set(scenario, key);
  return key;
}

const runKeys = new WeakMap<Scenario, string>();

function runKeyOf(scenario: Scenario): string {
  const { args, stdin, stdinOpen, stdinLines, env, server, web, files, startIn } = scenario;
  const { interrupt, settleMs, secrets, git, homeFiles, runs, between } = scenario;
  const inputs = {
    args,
    stdin,
    stdinOpen,
    stdinLines,
    env,
    server,
    web,
    files,
    homeFiles,
    startIn,
    interrupt,
    settleMs,
    secrets,
    git,
    runs,
    between,
  };
  return JSON.stringify(inputs, (_name, value) => {
    if (typeof value === "function" || value instanceof Uint8Array) {
      return { input: inputId(value as object) };
    }
    // An env value of undefined unsets the variable, which is not the same as leaving it out.
    return value === undefined ? { undefined: true } : value;
  });
}

const inputIds = new WeakMap<object, number>();
let inputsSeen = 0;

function inputId(value: object): number {
  let id = inputIds.get(value);
  if (id === undefined) {
    inputsSeen += 1;
    id = inputsSeen;
    inputIds.set(value, id);
  }
  return id;
}

/** A scenario's world, set up and waiting for a command: its folder, its servers, its inputs. */
export interface PreparedScenario {
  context: ScenarioContext;
  server?: FakeServer;
  web?: Awaited<ReturnType<typeof startFakeWeb>>;
  // The scenario's CLI arguments, built for this folder.
  args: string[];
  // The server's script, built for this folder.
  steps: Step[];
  // Every variable the command gets from the scenario, over what it inherits.
  env: EnvOverrides;
  // The folder the command starts in; none: the project's.
  startDir?: string;
  // Whether building the inputs read the seed.
  readSeed: () => boolean;
  // Stops the servers and removes the folder.
  close: () => Promise<void>;
}

/**
 * Sets up what a scenario's command meets: a fresh folder with its files (and home, and git), the
 * fake server with its script, the fake web with its routes, the variables and the arguments. The
 * contract's runs use it, and so does `pnpm course-model`, which leaves a person to run the command.
 */
export async function prepareScenario(
  scenario: Scenario,
  options: { seed?: number; env?: EnvOverrides; key?: string } = {},
): Promise<PreparedScenario> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "agent-code-scenario-")));
  const server = scenario.server
    ? await startFakeServer({ flavour: scenario.server.flavour, key: scenario.server.key })
    : undefined;
  const web = scenario.web
    ? await startFakeWeb(scenario.web.search ? { search: scenario.web.search } : {})
    : undefined;
  const close = async () => {
    await server?.close();
    await web?.close();
    rmSync(dir, { recursive: true, force: true });
  };
  const seed = options.seed ?? FIXED_SEED;
  let readSeed = false;
  const context: ScenarioContext = {
    dir,
    file: join(dir, "not-a-directory.txt"),
    work: join(dir, WORK),
    home: join(dir, HOME),
    ...(server === undefined ? {} : { serverUrl: server.url }),
    ...(web === undefined ? {} : { webUrl: web.url }),
    get seed() {
      readSeed = true;
      return seed;
    },
  };
  try {
    writeFileSync(context.file, "agent-code contract scenario\n");
    mkdirSync(context.work);
    mkdirSync(context.home);
    writeFiles(dir, scenario.files?.(context) ?? {});
    const { homeFiles } = scenario;
    writeFiles(
      context.home,
      typeof homeFiles === "function" ? homeFiles(context) : (homeFiles ?? {}),
    );
    if (scenario.git === true) commitFolder(context.work);
    const script = scenario.server?.steps;
    const steps = typeof script === "function" ? script(context) : (script ?? []);
    server?.script(steps);
    const routes = scenario.web?.routes;
    web?.routes(typeof routes === "function" ? routes(context) : (routes ?? {}));
    const args = typeof scenario.args === "function" ? scenario.args(context) : scenario.args;
    const env = {
      ANTHROPIC_BASE_URL: server?.url ?? DEAD_URL,
      // The same server answers the OpenAI protocols; their SDK's base URLs end in /v1.
      OPENAI_BASE_URL: `${server?.url ?? DEAD_URL}/v1`,
      OPENAI_CHAT_BASE_URL: `${server?.url ?? DEAD_URL}/v1`,
      ANTHROPIC_AUTH_TOKEN: options.key ?? CANARY_TOKEN,
      // The web tools' knobs: the fake web is on loopback, which a fetch guard refuses unless
      // told; search goes to the fake web (or a dead port), with a canary key.
      AGENT_CODE_ALLOW_LOCAL_FETCH: "1",
      AGENT_CODE_SEARCH_BASE_URL: web?.url ?? DEAD_URL,
      TAVILY_API_KEY: TAVILY_CANARY,
      // Never HOME itself: a command such as `uv run` keeps its cache there.
      AGENT_CODE_HOME: context.home,
      ...options.env,
      ...(typeof scenario.env === "function" ? scenario.env(context) : scenario.env),
      [SCENARIO_DIR_VARIABLE]: dir,
    };
    const startDir = { scenario: dir, work: context.work, project: undefined }[
      scenario.startIn ?? "project"
    ];
    return {
      context,
      ...(server === undefined ? {} : { server }),
      ...(web === undefined ? {} : { web }),
      args,
      steps,
      env,
      ...(startDir === undefined ? {} : { startDir }),
      readSeed: () => readSeed,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

async function observe(scenario: Scenario, options: RunContractOptions): Promise<ScenarioRun> {
  const prepared = await prepareScenario(scenario, {
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  try {
    const { startDir } = prepared;
    const command = startDir ? commandFrom(options.command, options.cwd) : options.command;
    return await observePrepared(scenario, prepared, (inputs, interrupt) =>
      runCli(command, inputs.args, {
        cwd: startDir ?? options.cwd,
        stdin: inputs.stdin,
        stdinOpen: inputs.stdinOpen,
        ...(inputs.stdinFeed === undefined ? {} : { stdinFeed: inputs.stdinFeed }),
        timeoutMs: options.timeoutMs,
        signal: options.signal,
        env: inputs.env,
        ...(options.inheritEnv === undefined ? {} : { inherit: options.inheritEnv }),
        ...(interrupt === undefined ? {} : { interrupt }),
      }),
    );
  } finally {
    await prepared.close();
  }
}

/** What one run of the command is given: its arguments, its stdin, its variables. */
export interface RunInputs {
  args: string[];
  stdin?: string;
  stdinOpen?: boolean;
  // The scenario's stdinLines, each yielded when it is due.
  stdinFeed?: AsyncIterable<string>;
  env: EnvOverrides;
}

/**
 * Runs a command in a prepared scenario and reads back what it showed: `start` starts one run of
 * it (with the run's Ctrl-C, when it has one), once, then once for each of the scenario's later
 * `runs`. The folder and servers stay for the caller to close. `pnpm course-model`'s test runs the
 * line it prints this way, and judges it with judgeRun.
 */
export async function observePrepared(
  scenario: Scenario,
  prepared: PreparedScenario,
  start: (inputs: RunInputs, interrupt?: Promise<void>) => Promise<CliRun>,
): Promise<ScenarioRun> {
  const { context, server, web, env } = prepared;
  const { dir } = context;
  // Each run's own, aborted as the run ends: its typed lines and its Ctrl-C wait no longer, and
  // hold nothing of the next run's.
  let finished: AbortController | undefined;
  try {
    // The home folder is agent-code's own, as ~/.agent-code is: what the CLI keeps there is no
    // tool reaching out of the work folder.
    const outsideBefore = outsideOf(readFolder(dir), WORK, HOME);
    const specs: (RunSpec & { first?: true })[] = [
      {
        args: prepared.args,
        ...(scenario.stdin === undefined ? {} : { stdin: scenario.stdin }),
        ...(scenario.stdinOpen === undefined ? {} : { stdinOpen: scenario.stdinOpen }),
        ...(scenario.stdinLines === undefined ? {} : { stdinLines: scenario.stdinLines }),
        ...(scenario.interrupt === undefined ? {} : { interrupt: scenario.interrupt }),
        first: true,
      },
      ...(scenario.runs ?? []),
    ];
    const runs: RunObserved[] = [];
    const strayProcesses: string[] = [];
    let run: CliRun | undefined;
    for (const [index, spec] of specs.entries()) {
      if (index > 0) scenario.between?.(context, index);
      finished = new AbortController();
      const firstRequest = server?.requests().length ?? 0;
      const own = typeof spec.env === "function" ? spec.env(context) : spec.env;
      const inputs: RunInputs = {
        args: typeof spec.args === "function" ? spec.args(context, runs) : spec.args,
        ...(spec.stdin === undefined ? {} : { stdin: spec.stdin }),
        ...(spec.stdinOpen === undefined ? {} : { stdinOpen: spec.stdinOpen }),
        ...(spec.stdinLines === undefined
          ? {}
          : { stdinFeed: typedLines(spec.stdinLines, server, finished.signal, firstRequest) }),
        env: { ...env, ...own, [SCENARIO_DIR_VARIABLE]: dir },
      };
      const { interrupt } = spec;
      run = await start(
        inputs,
        interrupt === undefined
          ? undefined
          : interruptWhen(interrupt, server, dir, finished.signal, firstRequest),
      );
      finished.abort();
      await sleep(scenario.settleMs ?? 0);
      strayProcesses.push(...sweepStrayProcesses(dir));
      runs.push({
        ...outputOf(run),
        command: run.command,
        firstRequest,
        endRequest: server?.requests().length ?? 0,
      });
      // A run that had to be stopped ends the scenario: the next would judge a half-done folder.
      if (run.timedOut) break;
    }
    if (run === undefined) throw new Error("a scenario runs its command at least once");
    const observed: Observed = {
      ...outputOf(run),
      requests: server?.requests() ?? [],
      context,
      files: {},
      modes: {},
      outsideChanged: [],
      webRequests: web?.requests() ?? [],
      leftRunning: run.leftRunning === true,
      strayProcesses,
      runs,
    };
    // Read back before anything closes: a step may still be writing when the server stops.
    const left = readFolder(dir, observed.modes);
    observed.files = left;
    observed.outsideChanged = changedPaths(outsideBefore, outsideOf(left, WORK, HOME));
    const { secrets } = scenario;
    return {
      run,
      observed,
      responses: server?.responses() ?? [],
      env,
      readSeed: prepared.readSeed,
      ...(secrets === undefined
        ? {}
        : { secrets: typeof secrets === "function" ? secrets(context) : secrets }),
    };
  } finally {
    finished?.abort();
  }
}

// Judgements read what the run showed, never the scenario's directory, which is gone by now.
export function judgeRun(
  scenario: Scenario,
  { run, observed, responses, env, secrets, readSeed }: ScenarioRun,
): ScenarioResult {
  const { requests } = observed;
  const failures = run.timedOut
    ? [{ message: "the run did not finish in time and was stopped", docs: "" }]
    : scenario.judgements
        .filter((judgement) => !safeCheck(judgement, observed))
        .map(({ message, docs }) => ({ message, docs }));
  failures.push(...printedKeys(env, observed));
  failures.push(...leakedSecrets(secrets ?? [], env, observed));
  const rejected = requests.find((request) => !request.verdict.accepted);
  const notes = run.leftRunning ? [LEFT_RUNNING] : [];
  if (observed.strayProcesses.length > 0) notes.push(strayNote(observed.strayProcesses));
  // A failing scenario says so among its failures too, where a learner reads.
  if (failures.length > 0 && run.leftRunning) failures.push({ message: LEFT_RUNNING, docs: "" });
  return {
    id: scenario.id,
    title: scenario.title,
    level: scenario.level,
    passed: failures.length === 0,
    failures,
    ...(rejected && !rejected.verdict.accepted ? { serverText: rejected.verdict.message } : {}),
    timedOut: run.timedOut,
    ...(notes.length > 0 ? { notes } : {}),
    ...(readSeed() ? { seeded: true } : {}),
    run,
    ...(observed.runs.length > 1 ? { runs: observed.runs } : {}),
    requests,
    responses,
  };
}

// A scenario that cannot run on this platform passes, saying why it did not run.
function skipped(scenario: Scenario, why: string): ScenarioResult {
  const run: CliRun = {
    command: [],
    stdout: "",
    stdoutLines: [],
    stderr: "",
    exitCode: null,
    signal: null,
    durationMs: 0,
    timedOut: false,
    trace: [],
  };
  return {
    id: scenario.id,
    title: scenario.title,
    level: scenario.level,
    passed: true,
    failures: [],
    timedOut: false,
    skipped: why,
    run,
    requests: [],
    responses: [],
  };
}

// The command as it runs in `cwd`, made to start from any directory: a word that names a path
// below cwd (`src/cli.ts`, `dist/agent-code.mjs`) becomes absolute, and so does the module after
// `--import` (`node --import tsx`), which Node would otherwise look for where it starts. A command
// that finds its project by the directory it starts in (`uv run`) must name it itself.
export function commandFrom(command: string | string[], cwd = process.cwd()): string[] {
  const words = typeof command === "string" ? splitCommand(command) : command;
  return words.map((word, index) => {
    if (index > 0 && words[index - 1] === "--import" && !/^[./]/.test(word)) {
      try {
        return pathToFileURL(createRequire(join(cwd, "package.json")).resolve(word)).href;
      } catch {
        return word;
      }
    }
    const pathLike = /[\\/]/.test(word) || /\.[cm]?[jt]s$/.test(word);
    if (!pathLike || isAbsolute(word) || word.startsWith("-")) return word;
    return existsSync(resolve(cwd, word)) ? resolve(cwd, word) : word;
  });
}

// Resolves when the scenario's Ctrl-C is due: once the server has its requests (never without a
// server), then once its file exists, then `afterMs` later. Never, once the run has ended.
async function interruptWhen(
  { afterRequests, afterFile, afterMs = 0 }: NonNullable<Scenario["interrupt"]>,
  server: FakeServer | undefined,
  dir: string,
  signal: AbortSignal,
  // The requests the server had when the run started: `afterRequests` counts from there.
  before = 0,
): Promise<void> {
  const ended = endOf(signal);
  // As the request arrives, not at a poll that a busy machine could make late.
  if (afterRequests !== undefined) {
    await Promise.race([server?.whenRequests(before + afterRequests) ?? ended, ended]);
  }
  if (afterFile !== undefined) await until(() => existsSync(join(dir, afterFile)), signal);
  if (afterMs > 0) await Promise.race([sleep(afterMs), ended]);
  // The run ended first: nothing to interrupt.
  if (signal.aborted) await new Promise(() => {});
}

// Resolves when the run ends (the signal aborts), at once if it already has.
function endOf(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

// A scenario's stdinLines, each yielded when it is due (interruptWhen's waits); none once the run
// has ended.
async function* typedLines(
  lines: StdinLine[],
  server: FakeServer | undefined,
  signal: AbortSignal,
  before: number,
): AsyncGenerator<string> {
  const ended = endOf(signal);
  for (const { line, afterRequests, afterMs = 0 } of lines) {
    // Typed as the request arrives, and the request answered only once the line is written (the
    // feed asks for the next line after writing this one): the line is in the REPL's pipe before
    // the reply. Were it written as the reply went out, a REPL whose turn took longer than a
    // loop's interval (a busy machine, a slow disk) could find the loop due and the pipe empty.
    // A line typed `afterMs` later holds nothing.
    let typed = () => {};
    const written = new Promise<void>((resolve) => {
      typed = resolve;
    });
    // A run that ends before the line is typed holds no answer.
    void ended.then(typed);
    try {
      if (afterRequests !== undefined) {
        const hold = afterMs === 0 ? written : undefined;
        await Promise.race([server?.whenRequests(before + afterRequests, hold) ?? ended, ended]);
      }
      await interruptWhen({ afterMs }, server, "", signal, before);
      yield `${line}\n`;
    } finally {
      typed();
    }
  }
}

async function until(ready: () => boolean, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    if (ready()) return;
    await sleep(20);
  }
  // The run ended first: nothing to interrupt.
  await new Promise(() => {});
}

function strayNote(commands: string[]): string {
  const count = commands.length === 1 ? "a process" : `${commands.length} processes`;
  return `the run left ${count} working in the scenario's folder after it ended; the runner stopped ${commands.length === 1 ? "it" : "them"}: ${commands.join("; ")}`;
}

// A judgement that throws (say, on output of an unexpected shape) is a failed judgement.
function safeCheck(judgement: Judgement, observed: Observed): boolean {
  try {
    return judgement.check(observed);
  } catch {
    return false;
  }
}

// A later stage keeps an earlier stage's scenarios; `args` go before each one's own (e.g.
// `--provider mock` for day-1's REPL scenarios in a stage whose default provider needs a key), and
// `stdin` before its input (`y\n` where a tool the scenario calls now asks first).
export function keepScenarios(
  contract: Contract,
  ids: string[],
  options: { args?: string[]; stdin?: string } = {},
): Scenario[] {
  return ids.map((id) => {
    const scenario = contract.scenarios.find((candidate) => candidate.id === id);
    if (scenario === undefined) throw new Error(`${contract.stage} has no scenario ${id}`);
    const extra = options.args ?? [];
    // Unchanged, it stays the same object: a run keyed by the scenario itself is shared too.
    if (extra.length === 0 && options.stdin === undefined) return scenario;
    const { args } = scenario;
    return {
      ...scenario,
      ...(extra.length === 0
        ? {}
        : {
            args:
              typeof args === "function"
                ? (context: ScenarioContext) => [...extra, ...args(context)]
                : [...extra, ...args],
          }),
      ...(options.stdin === undefined ? {} : { stdin: options.stdin + (scenario.stdin ?? "") }),
    };
  });
}

// Runs stage contracts against a learner's command and keeps the facts `pnpm check` reports,
// as text or as JSON (scripts/lib/check-schema.json describes that document).
import { execFileSync } from "node:child_process";
import { availableParallelism } from "node:os";
import {
  type CliRun,
  type Contract,
  declaredWaitMs,
  type EnvOverrides,
  FIXED_SEED,
  findContract,
  runContract,
  runKey,
  type Scenario,
  type ScenarioResult,
  type SharedRuns,
} from "@agent-code/test-kit";
import { batteryOf } from "@agent-code/test-kit/battery";
import { type CourseRevision, courseRevision } from "./check-course.ts";
import { inheritFilter } from "./check-env.ts";
import { evidenceWanted, judgeHeadline } from "./check-headline.ts";
import { directInterpreter } from "./check-project.ts";
import { sandboxCommand, unsandboxed } from "./check-sandbox.ts";
import { isMainLine, UsageError } from "./command.ts";

export interface CheckSettings {
  stages: string[];
  project: string;
  command: string[];
  strict: boolean;
  only: string[] | undefined;
  timeoutMs: number;
  // The caller's variables the command gets beyond the allowlist (--pass-env).
  passEnv?: string[];
  // What seeded scenarios draw their words and names from (--seed); FIXED_SEED when not given.
  seed?: number;
  // Set when the check runs the course's own code because no --project was given inside the
  // course: the command that checks the learner's project instead.
  courseCode?: string;
  // --battery: the stage's bypass battery runs instead of its contract (decision 0069).
  battery?: boolean;
  // Variables every run of the command gets (a Python fallback's PYTHONPATH).
  env?: EnvOverrides;
}

// pass; fail (decides the stage); note (a conformance miss, which decides only with --strict).
export type Verdict = "pass" | "fail" | "note";

export interface ScenarioReport {
  // Stable across course revisions; a renamed scenario lists its old ids in `aliases`.
  id: string;
  aliases: string[];
  title: string;
  level: "core" | "conformance";
  verdict: Verdict;
  timedOut: boolean;
  failures: { message: string; docs: string | null }[];
  serverText: string | null;
  // The last lines the command wrote to stderr, when it missed: a crash shows why.
  stderrTail: string[] | null;
  // The lines of stderr that say what went wrong: each error's first line and the frames in the
  // project's own files, rather than the bottom of a stack.
  stderrExcerpt?: string[] | null;
  // How long the run it was judged on took (a run shared with another scenario counts for each).
  durationMs?: number;
  // It drew its words, numbers or file names from the report's seed.
  seeded?: boolean;
  // Set aside for the headline: a later stage of the main line replaced or dropped it, and this
  // project does what the later stage asks instead (decision 0056).
  outgrown?: boolean;
}

export interface StageReport {
  stage: string;
  title: string;
  passed: boolean;
  // How many scenarios of each level ran and passed.
  counts: Record<"core" | "conformance", { passed: number; total: number }>;
  scenarios: ScenarioReport[];
  // A stage of the main line (day-1, day-N-vK); false for challenges and appendices.
  mainLine?: boolean;
  // The headline's judgement: every deciding scenario passed once the outgrown ones are set aside.
  reached?: boolean;
  durationMs?: number;
  // In a brief report (check:class's copy), what `scenarios` no longer holds in full: the ids that
  // passed, the notes, and the misses an earlier stage of the report shows.
  passedIds?: string[];
  notedIds?: string[];
  failedAboveIds?: string[];
}

// The first deciding miss above the headline, in course order: what to work on next.
export interface NextToFix {
  stage: string;
  id: string;
  title: string;
  // Its first failed judgement, in a learner's words.
  message: string;
  docs: string | null;
}

export interface CheckReport {
  version: 5;
  // The revision of this course that judged the project, and when the check started.
  course: CourseRevision;
  checkedAt: string;
  project: string;
  // The learner's commit: `git rev-parse HEAD` in the project; null outside a git repository.
  projectCommit?: string | null;
  // The seed the seeded scenarios drew from (--seed replays it); null when the check stopped
  // before it read one.
  seed?: number | null;
  command: string[];
  strict: boolean;
  // false when --only left scenarios out: no stage was checked whole, so none is "passed".
  complete: boolean;
  // Set when the stage's bypass battery ran instead of its contract (--battery); complete is false.
  battery?: true;
  stages: StageReport[];
  // The headline: the highest main-line stage reached; never a challenge or appendix stage.
  highestStagePassed: string | null;
  // Optional stages (challenges, appendices) that passed, shown apart from the headline.
  optionalPassed?: string[];
  nextToFix?: NextToFix | null;
  // Set, with no stages, when the project's sources did not build (a file that does not parse, an
  // import of a file that is not there) and nothing ran.
  buildError?: string;
  // Set when every run of the program ended before it printed a line, with a failed exit: the
  // line of its stderr that says why. Nothing was reached.
  startError?: string;
  // Set, with no stages, when the check stopped before judging anything: a usage error (exit 2),
  // an interruption (130), a failure of the check itself.
  error?: string;
  // Set when the program ran without the sandbox on this machine: why, and what it could reach.
  unsandboxed?: string;
  // check:class's copy of the report, with the runs that passed named rather than shown.
  brief?: true;
}

// What the text and JSON outputs are told as the check goes; scenarios arrive in contract order.
export interface CheckOutput {
  start(settings: CheckSettings): void;
  // Before anything of the stages: the program did not start (CheckReport's startError).
  startError?(message: string): void;
  stage(stage: string, title: string): void;
  scenario(stage: string, scenario: ScenarioReport): void;
  stageDone(report: StageReport): void;
  done(report: CheckReport): void;
}

// A start costs CPU (a bundle about 0.2 s, tsx about a second): one scenario per core, at least
// two (scenarios also wait on retries and timeouts), at most four (a check should not take over a
// machine).
const CONCURRENCY = Math.min(4, Math.max(2, availableParallelism()));
// Scenarios that wait on purpose (a settle, a Ctrl-C's delay, a slow answer: seconds each) run in
// a pool of their own beside those: their waits need no CPU.
const WAITING_POOL = {
  concurrency: 4,
  holds: (scenario: Scenario) => declaredWaitMs(scenario) > 0,
};

// Every stage of the settings in turn; undefined when `signal` stopped the check (Ctrl-C).
export async function runCheck(
  settings: CheckSettings,
  output: CheckOutput,
  signal?: AbortSignal,
): Promise<CheckReport | undefined> {
  const checkedAt = new Date().toISOString();
  output.start(settings);
  const stages: StageReport[] = [];
  // Later stages keep many of their base's scenarios unchanged, and a conformance scenario often
  // judges the same run as a core one: each distinct run happens once a check.
  const sharedRuns: SharedRuns = new Map();
  // The program runs in a sandbox where it can have one (check-sandbox.ts), python3 as the
  // interpreter a shim would start; reports keep its command as given.
  const inherit = inheritFilter(settings.passEnv);
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => inherit(name)));
  const direct = directInterpreter(settings.command, settings.project, env);
  const sandboxed = { ...settings, command: sandboxCommand(direct, settings.project) };
  // Until a run shows that the program starts, what the stages print waits: a program that never
  // does is said to first (startError).
  const gate = gated(output);
  const runs = new Set<CliRun>();
  const watch = (result: ScenarioResult) => {
    if (result.skipped !== undefined) return;
    runs.add(result.run);
    if (started(result.run)) gate.open();
  };
  const ahead = settings.stages.length > 1 ? runAhead(sandboxed, sharedRuns, signal) : undefined;
  let stageStart = performance.now();
  try {
    for (const stage of settings.stages) {
      await ahead?.ready(stage);
      if (ahead?.failure !== undefined) throw ahead.failure;
      if (ahead?.spawnError !== undefined) throw cannotStart(settings, ahead.spawnError);
      const report = await checkStage(stage, sandboxed, gate.output, sharedRuns, watch, signal);
      if (report === undefined) return undefined;
      // The stages' runs share one pool: a stage's time is what it took after the one before.
      if (ahead !== undefined) {
        const now = performance.now();
        report.durationMs = Math.round(now - stageStart);
        stageStart = now;
      }
      gate.output.stageDone(report);
      stages.push(report);
    }
    const startError = startFailure([...runs]);
    if (startError !== undefined) output.startError?.(startError);
    gate.open();
    const complete = settings.only === undefined && settings.battery !== true;
    const evidence: StageReport[] | undefined =
      complete && startError === undefined ? [] : undefined;
    // Misses a later stage changed, that stage not in the check: its versions of them run, shown
    // nowhere but in what is set aside as outgrown (decision 0070).
    for (let wanted = evidenceOf(stages, evidence, settings.strict); wanted.size > 0; ) {
      for (const [stage, ids] of wanted) {
        const part = await checkStage(
          stage,
          { ...sandboxed, only: ids },
          QUIET,
          sharedRuns,
          () => {},
          signal,
        );
        if (part === undefined) return undefined;
        const known = evidence?.find((report) => report.stage === stage);
        if (known === undefined) evidence?.push(part);
        else known.scenarios.push(...part.scenarios);
      }
      wanted = evidenceOf(stages, evidence, settings.strict);
    }
    const headline = judgeHeadline(stages, settings.strict, { evidence: evidence ?? [] });
    const report: CheckReport = {
      version: 5,
      course: courseRevision(),
      checkedAt,
      project: settings.project,
      projectCommit: projectCommit(settings.project),
      seed: settings.seed ?? FIXED_SEED,
      command: settings.command,
      strict: settings.strict,
      complete,
      ...(settings.battery === true ? { battery: true as const } : {}),
      stages,
      highestStagePassed: complete ? headline.highestStagePassed : null,
      optionalPassed: headline.optionalPassed,
      nextToFix: complete ? headline.nextToFix : null,
      ...(startError === undefined ? {} : { startError }),
      ...(unsandboxed() === undefined ? {} : { unsandboxed: unsandboxed() }),
    };
    output.done(report);
    return report;
  } finally {
    // An interrupted check still shows what it judged.
    gate.open();
  }
}

// What an evidence run tells the output: nothing.
const QUIET: CheckOutput = {
  start() {},
  stage() {},
  scenario() {},
  stageDone() {},
  done() {},
};

// The scenarios of later stages still to run as evidence, once the headline judged what ran.
function evidenceOf(
  stages: StageReport[],
  evidence: StageReport[] | undefined,
  strict: boolean,
): Map<string, string[]> {
  if (evidence === undefined) return new Map();
  judgeHeadline(stages, strict, { evidence });
  return evidenceWanted(stages, evidence, strict);
}

// With several stages, every distinct run of them all goes into one pool at the start, so that no
// stage waits for the slowest run of the one before; each stage is then judged from those runs, in
// course order, once its own are done. Stops at the first run that cannot be spawned.
function runAhead(
  settings: CheckSettings,
  sharedRuns: SharedRuns,
  signal?: AbortSignal,
): { ready: (stage: string) => Promise<void>; spawnError?: string; failure?: unknown } {
  const unique = new Map<string, Scenario>();
  const keysOf = new Map<string, string[]>();
  for (const stage of settings.stages) {
    const keys = chosen(contractOf(stage), settings.only).map((scenario) => {
      const key = runKey(scenario);
      if (!unique.has(key)) unique.set(key, scenario);
      return key;
    });
    keysOf.set(stage, keys);
  }
  const done = new Map<string, () => void>();
  const finished = new Map<string, Promise<void>>();
  for (const key of unique.keys()) {
    finished.set(key, new Promise((resolve) => done.set(key, resolve)));
  }
  const keys = [...unique.keys()];
  const noStart = new AbortController();
  const state: { ready: (stage: string) => Promise<void>; spawnError?: string; failure?: unknown } =
    {
      ready: (stage) =>
        Promise.all((keysOf.get(stage) ?? []).map((key) => finished.get(key))).then(() => {}),
    };
  // Each run under an id of its own (its place in `keys`): ids repeat across stages, inputs do not.
  const batch: Contract = {
    stage: "check",
    title: "every run of the check",
    scenarios: [...unique.values()].map((scenario, index) => ({ ...scenario, id: String(index) })),
  };
  void runContract(batch, {
    ...runOptions(settings, sharedRuns),
    signal: signal ? AbortSignal.any([signal, noStart.signal]) : noStart.signal,
    onScenario(result) {
      if (result.run.spawnError !== undefined && state.spawnError === undefined) {
        state.spawnError = result.run.spawnError;
        noStart.abort();
      }
      done.get(keys[Number(result.id)] ?? "")?.();
    },
  })
    .catch((error: unknown) => {
      state.failure = error;
    })
    .finally(() => {
      for (const resolve of done.values()) resolve();
    });
  return state;
}

// What every runContract of a check shares.
function runOptions(settings: CheckSettings, sharedRuns: SharedRuns) {
  return {
    command: settings.command,
    cwd: settings.project,
    timeoutMs: settings.timeoutMs,
    only: settings.only,
    concurrency: CONCURRENCY,
    waitingPool: WAITING_POOL,
    sharedRuns,
    inheritEnv: inheritFilter(settings.passEnv),
    ...(settings.env === undefined ? {} : { env: settings.env }),
    ...(settings.seed === undefined ? {} : { seed: settings.seed }),
  };
}

function contractOf(stage: string): Contract {
  const contract = findContract(stage);
  if (contract === undefined) throw new Error(`no contract for stage: ${stage}`);
  return contract;
}

function chosen(contract: Contract, only: string[] | undefined): Scenario[] {
  return contract.scenarios.filter((scenario) => only === undefined || only.includes(scenario.id));
}

function cannotStart(settings: CheckSettings, spawnError: string): UsageError {
  return new UsageError(`cannot start \`${settings.command.join(" ")}\`: ${spawnError}`);
}

// A run shows the program started when it printed a line, exited 0, or ran until it was stopped.
function started(run: CliRun): boolean {
  return run.stdout.trim() !== "" || run.exitCode === 0 || run.timedOut;
}

// The output's stages, scenarios and stage ends held back until `open`, then passed on in order.
function gated(output: CheckOutput): { output: CheckOutput; open: () => void } {
  let held: (() => void)[] | undefined = [];
  const later = (call: () => void): void => {
    if (held === undefined) call();
    else held.push(call);
  };
  return {
    output: {
      ...output,
      stage: (stage, title) => later(() => output.stage(stage, title)),
      scenario: (stage, scenario) => later(() => output.scenario(stage, scenario)),
      stageDone: (report) => later(() => output.stageDone(report)),
    },
    open() {
      const calls = held ?? [];
      held = undefined;
      for (const call of calls) call();
    },
  };
}

// A program that never started: every run ended with a failure and nothing on stdout (an import
// that fails, a throw at the top of cli.ts). Its cause is the line of stderr most runs lead with.
export function startFailure(runs: CliRun[]): string | undefined {
  if (runs.length === 0 || runs.some(started)) return undefined;
  const counts = new Map<string, number>();
  for (const run of runs) {
    const line = causeLine(run.stderr);
    counts.set(line, (counts.get(line) ?? 0) + 1);
  }
  const [cause] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? [""];
  return cause;
}

// Where Node shows the line that threw: `file:///…/cli.ts:3` or `node:internal/…:314`, the line
// itself, then a caret under it.
const LOCATION = /^(file:\/\/|node:|\/|[A-Za-z]:\\)\S*:\d+$/;
const CARET = /^\s*\^+\s*$/;
const NAMED_ERROR = /^([\w$.]*(Error|Exception)\b|error\b)/i;
const CAUSE_CHARS = 300;

// The line that says why a run failed: an error's own line (`Error: boom`, Python's last line
// `ModuleNotFoundError: …`, `error: …`), else the first line that is not a frame, a source line
// Node quotes or its caret; "it printed nothing" when stderr is empty.
export function causeLine(stderr: string): string {
  const lines = stderr.split("\n").filter((line) => line.trim() !== "");
  const quoted = new Set(lines.flatMap((line, index) => (LOCATION.test(line) ? [index + 1] : [])));
  const plain = lines.filter(
    (line, index) =>
      !/^\s/.test(line) &&
      !LOCATION.test(line) &&
      !CARET.test(line) &&
      !quoted.has(index) &&
      !line.startsWith("Traceback ") &&
      !/^Node\.js v\d/.test(line),
  );
  const line = plain.find((one) => NAMED_ERROR.test(one)) ?? plain[0];
  if (line === undefined) return "it printed nothing on stderr either";
  return line.length > CAUSE_CHARS ? `${line.slice(0, CAUSE_CHARS)}…` : line;
}

async function checkStage(
  stage: string,
  settings: CheckSettings,
  output: CheckOutput,
  sharedRuns: SharedRuns,
  watch: (result: ScenarioResult) => void,
  signal?: AbortSignal,
): Promise<StageReport | undefined> {
  const contract = settings.battery === true ? batteryOf(stage) : contractOf(stage);
  if (contract === undefined) throw new Error(`no battery for stage: ${stage}`);
  output.stage(stage, contract.title);
  const started = performance.now();
  // A command that cannot start fails every scenario the same way: stop at the first one.
  const noStart = new AbortController();
  const stop = signal ? AbortSignal.any([signal, noStart.signal]) : noStart.signal;
  let spawnError: string | undefined;
  // Results arrive as scenarios finish; they are passed on in contract order.
  const pending = contract.scenarios
    .filter((scenario) => settings.only === undefined || settings.only.includes(scenario.id))
    .map((scenario) => scenario.id);
  const finished = new Map<string, ScenarioReport>();
  const aliases = new Map(contract.scenarios.map((scenario) => [scenario.id, scenario.aliases]));

  const result = await runContract(contract, {
    ...runOptions(settings, sharedRuns),
    signal: stop,
    onScenario(scenario) {
      if (stop.aborted) return;
      if (scenario.run.spawnError !== undefined) {
        spawnError = scenario.run.spawnError;
        noStart.abort();
        return;
      }
      watch(scenario);
      finished.set(scenario.id, scenarioReport(scenario, stage, settings, aliases));
      for (const id of [...pending]) {
        const next = finished.get(id);
        if (next === undefined) break;
        output.scenario(stage, next);
        pending.shift();
      }
    },
  });
  if (spawnError !== undefined) throw cannotStart(settings, spawnError);
  if (signal?.aborted) return undefined;
  const scenarios = result.scenarios.map((scenario) =>
    scenarioReport(scenario, stage, settings, aliases),
  );
  return {
    stage: contract.stage,
    title: contract.title,
    passed: settings.strict ? result.strictPassed : result.passed,
    counts: { core: count(scenarios, "core"), conformance: count(scenarios, "conformance") },
    scenarios,
    mainLine: isMainLine(contract.stage),
    durationMs: Math.round(performance.now() - started),
  };
}

function count(scenarios: ScenarioReport[], level: ScenarioReport["level"]) {
  const of = scenarios.filter((scenario) => scenario.level === level);
  return {
    passed: of.filter((scenario) => scenario.verdict === "pass").length,
    total: of.length,
  };
}

function scenarioReport(
  result: ScenarioResult,
  stage: string,
  settings: Pick<CheckSettings, "strict" | "project" | "command">,
  aliases: Map<string, string[] | undefined>,
): ScenarioReport {
  const decides = settings.strict || result.level === "core";
  const judged = result.failures.map(({ message, docs }) => ({ message, docs: docs || null }));
  const stderr = result.passed ? "" : result.run.stderr;
  const args = result.run.command.slice(settings.command.length);
  const failures = [
    ...causes(stderr, args, stage, judged[0]?.docs ?? null),
    // A 400 stops the run, so the exit code and the trace miss too: what was sent says why.
    ...(result.serverText === undefined ? judged : causeFirst(judged)),
  ];
  return {
    id: result.id,
    aliases: aliases.get(result.id) ?? [],
    title: result.title,
    level: result.level,
    verdict: result.passed ? "pass" : decides ? "fail" : "note",
    timedOut: result.timedOut,
    failures,
    serverText: result.serverText ?? null,
    stderrTail: result.passed ? null : stderrTail(result.run.stderr),
    stderrExcerpt: result.passed ? null : stderrExcerpt(result.run.stderr, settings.project),
    durationMs: Math.round(result.run.durationMs),
    ...(result.seeded === true ? { seeded: true } : {}),
    outgrown: false,
  };
}

const STDERR_LINES = 5;

function stderrTail(stderr: string): string[] | null {
  const lines = stderr.split("\n").filter((line) => line.trim() !== "");
  return lines.length === 0 ? null : lines.slice(-STDERR_LINES);
}

// A stack frame: Node's `    at fn (file:line:col)`, Python's `  File "x.py", line 3, in f`.
const FRAME = /^\s+(at |File ")/;
const FOREIGN_FRAME = /node:|node_modules|site-packages|<frozen |\(native\)|^\s+at (async )?[^(]*$/;

// Without a stack, stderr's last lines; with one, each error's first line and the frames in the
// project's own files, which say what went wrong where the bottom frames (`at ModuleJob.run`) do not.
export function stderrExcerpt(stderr: string, project: string): string[] | null {
  const lines = stderr.split("\n").filter((line) => line.trim() !== "");
  if (!lines.some((line) => FRAME.test(line))) return stderrTail(stderr);
  const kept = lines.filter((line, index) => {
    if (FRAME.test(line)) return line.includes(project) && !FOREIGN_FRAME.test(line);
    if (line.startsWith("Traceback ")) return false;
    // An error's first line sits right above its frames; Python's last line names the error.
    const next = lines[index + 1];
    return (
      line.startsWith("error: ") ||
      (next !== undefined && FRAME.test(next)) ||
      (index === lines.length - 1 && /^\w+(Error|Exception)\b/.test(line))
    );
  });
  // Python prints the caller first: the frame nearest the error is the last of the project's.
  const own = kept.filter((line) => FRAME.test(line));
  const frames = new Set(
    lines.some((line) => line.startsWith("Traceback")) ? own.slice(-2) : own.slice(0, 2),
  );
  return kept.filter((line) => !FRAME.test(line) || frames.has(line)).slice(0, STDERR_LINES);
}

// Where the course teaches a failure as one `error:` line rather than a stack.
const ERROR_LINE_DOCS: Record<string, string> = {
  "day-1": "docs/day-1.md#v1-an-echo-cli",
};
const ERROR_LINE_DOCS_LATER = "docs/day-2.md#errors-a-user-can-act-on";

// What stderr says about a miss before any judgement does: an option the CLI did not take, or a
// crash where a user's mistake should have been one `error:` line.
function causes(
  stderr: string,
  args: string[],
  stage: string,
  docs: string | null,
): { message: string; docs: string | null }[] {
  const found: { message: string; docs: string | null }[] = [];
  const unknown = /(?:unknown option|unrecognized arguments?):? [`'"]?(-[^\s`'",]+)/i.exec(
    stderr,
  )?.[1];
  if (unknown !== undefined) {
    const passed = args.find((arg) => arg.startsWith("-") && sameOption(arg, unknown));
    const options = args.filter((arg) => arg.startsWith("-")).join(" ");
    found.push({
      message:
        passed === undefined
          ? `the CLI did not take an option the scenario passed (${options}): it said unknown option ${unknown}`
          : `the CLI did not take ${passed.split("=")[0]}, which the scenario passed: it said unknown option ${unknown}`,
      docs,
    });
  }
  if (stderr.split("\n").some((line) => FRAME.test(line)) && !/^error: /m.test(stderr)) {
    found.push({
      message:
        "the run ended in a stack trace: a failure a user can act on should be one `error: …` line",
      docs: ERROR_LINE_DOCS[stage] ?? ERROR_LINE_DOCS_LATER,
    });
  }
  return found;
}

// `--max-steps` and cac's `--maxSteps` are one option.
function sameOption(a: string, b: string): boolean {
  const bare = (option: string) => option.split("=")[0]?.replace(/-/g, "").toLowerCase();
  return bare(a) === bare(b);
}

// The judgements on what was sent before those on how the run ended, which follow from them.
const OUTCOME =
  /^(exit code should|expected `|the final answer|the last trace line|stdout should|nothing should be written)|tool_call lines?\b/;

function causeFirst<T extends { message: string }>(failures: T[]): T[] {
  return [
    ...failures.filter((failure) => !OUTCOME.test(failure.message)),
    ...failures.filter((failure) => OUTCOME.test(failure.message)),
  ];
}

// The learner's commit. git runs with no variable of the grader's beyond PATH, and reads no
// index, so a project's own git configuration has nothing to run.
export function projectCommit(project: string): string | null {
  try {
    const out = execFileSync("git", ["rev-parse", "--verify", "--quiet", "HEAD"], {
      cwd: project,
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", GIT_CONFIG_NOSYSTEM: "1", LC_ALL: "C" },
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 10_000,
    }).trim();
    return /^[0-9a-f]{40,64}$/.test(out) ? out : null;
  } catch {
    return null;
  }
}

// `pnpm check:class <dir-of-projects>`: every project in a folder checked on its own (each says
// how it starts in agent-code.check.json), several at once, then one table: learner, headline
// stage, points, core scenarios passed per stage, the first failing core scenarios above the
// headline. A project that cannot be checked gets its error in the table; the others go on
// (decisions 0039 and 0058).
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, isAbsolute, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { findContract, runCli, splitCommand } from "@agent-code/test-kit";
import {
  classFiles,
  classJunitXml,
  classMarkdown,
  feedbackMarkdown,
  pointStages,
  pointsCsv,
  standing,
} from "./check-class-output.ts";
import { type CourseRevision, courseRevision } from "./check-course.ts";
import { installFailure, installLog, installProject } from "./check-install.ts";
import { printable } from "./check-junit.ts";
import { commandStart, missingProgram, readProjectFile } from "./check-project.ts";
import { briefReport } from "./check-report.ts";
import type { CheckReport, NextToFix } from "./check-run.ts";
import { giveToProgram, HIDE_VARIABLE, SANDBOX_VARIABLE, unsandboxed } from "./check-sandbox.ts";
import { isMainLine, ROOT, STAGES, UsageError } from "./command.ts";

const CHECK = fileURLToPath(new URL("../check.ts", import.meta.url));

export interface ClassSettings {
  dir: string;
  // The stages every project is checked on, in course order: every stage for --all.
  stages: string[];
  // The seed every project's seeded scenarios draw from: the same words for every learner.
  seed: number;
  // What stdout gets: a line per learner (text), or class.xml (junit).
  reporter?: "text" | "junit";
  out: string;
  // Extra arguments for every project's check (--timeout-ms, --pass-env, --strict, --cmd,
  // --seed).
  checkArgs: string[];
  // How many projects are checked at once.
  jobs: number;
  // How long one project's whole check may take.
  projectTimeoutMs: number;
  // The options of every check that a learner's own check needs to be asked the same (--strict,
  // --cmd), for the command each feedback page gives.
  options?: string[];
  // Each learner's whole check report in reports/, every scenario; by default a brief one.
  verbose?: boolean;
  // Install each project from its lock file, in the sandbox, before its check (--install).
  install?: boolean;
}

export interface LearnerRow {
  learner: string;
  project: string;
  // The check's exit code: 0 a stage passed, 1 none did, 2 not checked (see error).
  exitCode: number | null;
  // Why the project was not checked (a timeout, an interruption, a usage error of the grader's):
  // the check's error line; null when it was. Such a row has no points, never 0.
  error: string | null;
  // The headline: the highest stage of the main line whose core passed, or null.
  highestStagePassed: string | null;
  // The learner's commit that was checked, when the check's report names it.
  commit: string | null;
  // One point per main-line stage checked, up to and including the headline (decision 0058);
  // none awarded (null) when the project was not checked.
  points: { awarded: number | null; available: number };
  // Per stage checked: its own contract passed, reached once outgrown misses are set aside (the
  // headline's judgement), core scenarios passed of those run, and how long it took.
  stages: {
    stage: string;
    passed: boolean;
    reached: boolean;
    core: { passed: number; total: number };
    // Core misses set aside: a later stage changed them, and the project does what it asks.
    outgrown?: number;
    durationMs: number;
  }[];
  // Failing core scenarios of the main line above the headline, as stage/id, each id once.
  failingCore: string[];
  nextToFix: NextToFix | null;
  // The project was checked, but its sources do not build: esbuild's line, and nothing ran.
  buildError: string | null;
  // The project was checked, but its program never started: the line of stderr that says why.
  startError?: string | null;
  // Set when this learner's code ran without the sandbox (their check's report says so, or the
  // class's checks ran on a machine without one): why, and what it could then reach.
  unsandboxed?: string;
}

export interface ClassReport {
  version: 4;
  course: CourseRevision;
  checkedAt: string;
  dir: string;
  stages: string[];
  // The seed every project's check drew from (pnpm check --seed repeats one learner's); null when
  // combined from reports none of which holds one.
  seed: number | null;
  // The options every check had beyond its stages, project and seed (--strict, --cmd): a learner's
  // own check needs them to be asked the same.
  options?: string[];
  // The rows, by learner name whatever order the checks finished in.
  learners: LearnerRow[];
  // Set when learner code ran without the sandbox (decision 0064): on this machine, or, in a class
  // combined from reports, in the checks whose reports say so (the rows' own `unsandboxed` say
  // whose): why, and what it could then read and write.
  unsandboxed?: string;
}

// What one project's check gave: a child process's exit, its JSON on stdout, its error on stderr.
export interface ProjectRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export interface ClassHooks {
  // A line as each project starts and ends (stderr, in the command).
  progress?: (line: string) => void;
  // Stops the class: running checks get SIGINT, the rest are not started (Ctrl-C).
  signal?: AbortSignal;
  // One project's check; by default `pnpm check --json` in a process of its own.
  check?: (project: string, settings: ClassSettings, signal?: AbortSignal) => Promise<ProjectRun>;
  // Called with class.md's text once the files are written, whether or not the class finished.
  written?: (markdown: string) => void;
}

// What check:class writes under --out; the only names --force replaces.
export const GRADE_FILES = ["class.json", "class.md", "class.xml", "points.csv", "reports"];

// Without --out: a folder beside the class's, never inside this repository.
export function defaultOut(dir: string): string {
  const out = join(dirname(dir), `${basename(dir)}-grades`);
  if (inside(ROOT, out)) {
    throw new UsageError(`the grades would go inside the course repository (${out}): pass --out`);
  }
  return out;
}

// Grades already in `out` stay unless the caller says to replace them.
export function refuseOverwrite(out: string, force: boolean): void {
  const found = GRADE_FILES.filter((name) => existsSync(join(out, name)));
  if (found.length > 0 && !force) {
    throw new UsageError(
      `${out} already holds grades (${found.join(", ")}): pass --force to replace them`,
    );
  }
}

function inside(parent: string, path: string): boolean {
  const rel = relative(parent, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

// The learners' projects: the folder's subfolders, by name.
export function projectsIn(dir: string): string[] {
  const names = readdirSync(dir)
    .filter((name) => !name.startsWith("."))
    .filter((name) => statSync(join(dir, name)).isDirectory())
    .sort();
  if (names.length === 0) throw new UsageError(`no project folders in ${dir}`);
  return names.map((name) => join(dir, name));
}

export async function gradeClass(
  settings: ClassSettings,
  hooks: ClassHooks = {},
): Promise<ClassReport> {
  const progress = hooks.progress ?? (() => {});
  const check = hooks.check ?? spawnCheck;
  const projects = projectsIn(settings.dir);
  const report: ClassReport = {
    version: 4,
    course: courseRevision(),
    checkedAt: new Date().toISOString(),
    dir: settings.dir,
    stages: settings.stages,
    seed: settings.seed,
    options: settings.options ?? [],
    learners: [],
    ...(unsandboxed() === undefined ? {} : { unsandboxed: unsandboxed() }),
  };
  for (const name of GRADE_FILES)
    rmSync(join(settings.out, name), { recursive: true, force: true });
  mkdirSync(join(settings.out, "reports"), { recursive: true });
  // Each project's files, by name under --out: written once every check has ended, from what the
  // checks gave back, so that nothing a learner's code did to the folder meanwhile stays.
  const files = new Map<string, string>();
  const rows: (LearnerRow | undefined)[] = projects.map(() => undefined);
  let next = 0;
  const worker = async () => {
    while (next < projects.length && hooks.signal?.aborted !== true) {
      const index = next++;
      const project = projects[index] ?? "";
      // A learner's folder name and error line are shown as text, never as a terminal's controls.
      const tag = printable(`[${index + 1}/${projects.length}] ${basename(project)}`);
      progress(`${tag}: checking`);
      const started = performance.now();
      const row = await gradeProject(project, settings, report, check, hooks.signal, files);
      rows[index] = row;
      const seconds = Math.round((performance.now() - started) / 1000);
      progress(printable(`${tag}: ${row.error ?? standing(row)} (${seconds} s)`));
    }
  };
  // Whatever stops the class (Ctrl-C, a failure of the grader itself), what was graded is written.
  try {
    await Promise.all(Array.from({ length: Math.min(settings.jobs, projects.length) }, worker));
  } finally {
    report.learners = projects.map(
      (project, index) =>
        rows[index] ??
        failedRow(project, "not checked: check:class stopped before this project", report.stages),
    );
    // A check may say it ran without the sandbox where this process has one (another setting).
    if (report.unsandboxed === undefined) {
      const why = rowsUnsandboxed(report.learners);
      if (why !== undefined) report.unsandboxed = why;
    }
    const markdown = classMarkdown(report);
    writeGrades(settings.out, files);
    writeFileSync(join(settings.out, "class.json"), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(settings.out, "class.md"), markdown);
    writeFileSync(join(settings.out, "points.csv"), pointsCsv(report));
    writeFileSync(join(settings.out, "class.xml"), classJunitXml(report));
    hooks.written?.(markdown);
  }
  return report;
}

// The grades folder's files anew: whatever is there by their names (a file, a link) goes first.
function writeGrades(out: string, files: Map<string, string>): void {
  for (const name of GRADE_FILES) rmSync(join(out, name), { recursive: true, force: true });
  mkdirSync(join(out, "reports"), { recursive: true });
  for (const [name, text] of files) writeFileSync(join(out, name), text);
}

// One project's install and check, each in a process of its own: whatever they do, the class goes
// on. Its files go into `files`.
async function gradeProject(
  project: string,
  settings: ClassSettings,
  classReport: ClassReport,
  check: NonNullable<ClassHooks["check"]>,
  signal: AbortSignal | undefined,
  files: Map<string, string>,
): Promise<LearnerRow> {
  const learner = basename(project);
  // As root the learner's code runs as another uid, which must read and write its own folder.
  const handed = handOver(project);
  const missing = handed ?? missingCommand(project, settings.checkArgs);
  const installs =
    missing === undefined && settings.install === true
      ? await installProject(project, {
          hide: [settings.out],
          passEnv: passEnvOf(settings),
          signal,
        })
      : [];
  if (installs.length > 0)
    files.set(join("reports", `${learner}.install.log`), installLog(installs));
  const failed = installFailure(installs);
  const context = { ...settings, stages: classReport.stages, files };
  const checked =
    missing !== undefined || failed !== undefined
      ? failedRow(project, missing ?? `not checked: ${failed}`, classReport.stages)
      : rowFrom(learner, project, await check(project, settings, signal), context);
  // Its check says when its program ran without the sandbox; the install ran as this process would.
  const why = checked.unsandboxed ?? classReport.unsandboxed;
  const row = why === undefined ? checked : { ...checked, unsandboxed: why };
  // Beside the project's report, what the learner reads first.
  files.set(join("reports", `${learner}.md`), feedbackMarkdown(row, classReport));
  return row;
}

// undefined once the project belongs to the uid its code runs as (or nothing had to change hands);
// else why it cannot be checked.
function handOver(project: string): string | undefined {
  try {
    giveToProgram(project);
    return undefined;
  } catch (error) {
    return `not checked: ${error instanceof Error ? error.message : String(error)}`;
  }
}

// --pass-env's names among the checks' arguments.
function passEnvOf(settings: ClassSettings): string[] {
  return settings.checkArgs.flatMap((arg, index) =>
    settings.checkArgs[index - 1] === "--pass-env" ? [arg] : [],
  );
}

function spawnCheck(
  project: string,
  settings: ClassSettings,
  signal?: AbortSignal,
): Promise<ProjectRun> {
  return runCli(
    [process.execPath, "--import", "tsx", CHECK],
    [
      ...(settings.stages.length === STAGES.length
        ? ["--all"]
        : ["--stages", settings.stages.join(",")]),
      "--json",
      "--project",
      project,
      ...settings.checkArgs,
    ],
    {
      cwd: ROOT,
      timeoutMs: settings.projectTimeoutMs,
      env: {
        // The class writes one summary; a table per project would bury it.
        GITHUB_STEP_SUMMARY: undefined,
        // The grades are hidden from the learners' programs, and a sandbox turned off for the
        // class is off for each check (runCli keeps AGENT_CODE_* variables from a child).
        [HIDE_VARIABLE]: settings.out,
        [SANDBOX_VARIABLE]: process.env[SANDBOX_VARIABLE],
      },
      // A Ctrl-C reaches each check, which stops the commands it started and exits 130.
      ...(signal === undefined ? {} : { interrupt: aborted(signal) }),
    },
  );
}

function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((done) => signal.addEventListener("abort", () => done(), { once: true }));
}

// A program the project starts with that is not on PATH, `uv` say (unless its file lets it run
// with python3 -m instead): one line naming it, before a check that would fail every scenario for
// a reason that is not the learner's code.
function missingCommand(project: string, checkArgs: string[]): string | undefined {
  const cmd = checkArgs.indexOf("--cmd");
  if (cmd !== -1) return missingProgram(project, splitCommand(checkArgs[cmd + 1] ?? ""));
  try {
    const start = readProjectFile(project);
    if (start === undefined || !("command" in start)) return undefined;
    return missingProgram(project, commandStart(project, start).command);
  } catch {
    // A malformed project file: the check itself says what is wrong with it.
    return undefined;
  }
}

function failedRow(project: string, error: string, stages: string[], learner = basename(project)) {
  const row: LearnerRow = {
    learner,
    project,
    exitCode: null,
    error,
    highestStagePassed: null,
    commit: null,
    points: { awarded: null, available: pointStages(stages).length },
    stages: [],
    failingCore: [],
    nextToFix: null,
    buildError: null,
    startError: null,
  };
  return row;
}

// What a row is made from besides the check: the class's stages, how long a check may take (for
// the reason a timed-out one gives), and the files under --out its report goes into.
type RowContext = Pick<ClassSettings, "stages" | "projectTimeoutMs" | "verbose"> & {
  files: Map<string, string>;
};

// A learner's row from their check: its JSON report, or why there is none. The report is kept
// under reports/ (brief unless verbose).
function rowFrom(
  learner: string,
  project: string,
  run: ProjectRun,
  context: RowContext,
): LearnerRow {
  const { stages } = context;
  let report: CheckReport | undefined;
  try {
    report = JSON.parse(run.stdout);
  } catch {
    report = undefined;
  }
  // A check that stopped before judging (exit 2) still writes its JSON, with the error in it.
  if (report === undefined || run.timedOut || report.error !== undefined) {
    const line = run.stderr.split("\n").find((text) => text.startsWith("error: "));
    const why = report?.error ?? line?.replace(/^error: /, "") ?? `check exited ${run.exitCode}`;
    const row = failedRow(
      project,
      run.timedOut
        ? `not checked: the check took longer than ${context.projectTimeoutMs} ms`
        : `not checked: ${why}`,
      stages,
      learner,
    );
    const open = report?.unsandboxed;
    return { ...row, exitCode: run.exitCode, ...(open === undefined ? {} : { unsandboxed: open }) };
  }
  const kept = context.verbose === true ? report : briefReport(report);
  context.files.set(
    join("reports", `${learner}.json`),
    context.verbose === true ? run.stdout : `${JSON.stringify(kept)}\n`,
  );
  const headline = report.highestStagePassed;
  const scored = pointStages(stages);
  const order = (stage: string | null) => (stage === null ? -1 : STAGES.indexOf(stage));
  const failing = failingAbove(report, order(headline));
  // Optional stages score only when nothing of the main line was checked: each that passed.
  const earned = (stage: string) =>
    isMainLine(stage)
      ? order(stage) <= order(headline)
      : report.stages.some((checked) => checked.stage === stage && checked.passed);
  const startError = report.startError ?? null;
  return {
    learner,
    project,
    exitCode: run.exitCode,
    error: null,
    highestStagePassed: headline,
    commit: report.projectCommit ?? null,
    points: {
      awarded: scored.filter(earned).length,
      available: scored.length,
    },
    stages: report.stages.map((stage) => ({
      stage: stage.stage,
      passed: stage.passed,
      reached: stage.reached ?? stage.passed,
      core: stage.counts.core,
      outgrown: stage.scenarios.filter(
        (scenario) => scenario.level === "core" && scenario.outgrown === true,
      ).length,
      durationMs: stage.durationMs ?? 0,
    })),
    failingCore: failing.map((miss) => `${miss.stage}/${miss.id}`),
    // The check's own choice: it orders misses by the stage that taught them. Sources that do not
    // build, or a program that does not start, come before any scenario.
    nextToFix:
      report.buildError !== undefined
        ? {
            stage: stages[0] ?? "",
            id: "src/cli.ts",
            title: "src/cli.ts does not build, so no scenario ran",
            message: report.buildError,
            docs: null,
          }
        : startError !== null
          ? {
              stage: report.stages[0]?.stage ?? stages[0] ?? "",
              id: "start",
              title: "the program does not start, so no scenario reached anything",
              message: startError,
              docs: null,
            }
          : (report.nextToFix ?? null),
    buildError: report.buildError ?? null,
    startError,
    ...(report.unsandboxed === undefined ? {} : { unsandboxed: report.unsandboxed }),
  };
}

// Why learner code ran without the sandbox, from the rows that say so, each reason once.
function rowsUnsandboxed(rows: LearnerRow[]): string | undefined {
  const whys = [...new Set(rows.flatMap((row) => row.unsandboxed ?? []))];
  return whys.length === 0 ? undefined : whys.join("; ");
}

// The core misses of the main line above the headline, in course order, each scenario once
// (a kept scenario fails in every stage that keeps it): what the learner has left to do, never an
// outgrown scenario below the headline or an optional stage's.
function failingAbove(report: CheckReport, headline: number): NextToFix[] {
  const seen = new Set<string>();
  const misses: NextToFix[] = [];
  for (const stage of report.stages) {
    if (stage.mainLine !== true || STAGES.indexOf(stage.stage) <= headline) continue;
    for (const scenario of stage.scenarios) {
      if (scenario.level !== "core" || scenario.verdict !== "fail" || scenario.outgrown) continue;
      if (seen.has(scenario.id)) continue;
      seen.add(scenario.id);
      const [first] = scenario.failures;
      misses.push({
        stage: stage.stage,
        id: scenario.id,
        title: scenario.title,
        message: first?.message ?? (scenario.timedOut ? "the run did not finish in time" : ""),
        docs: scenario.failures.find((failure) => failure.docs !== null)?.docs ?? null,
      });
    }
  }
  return misses;
}

export interface CombineSettings {
  // A folder of `pnpm check --json` reports, one `<learner>.json` a learner.
  dir: string;
  out: string;
  // The class: a learner named here without a report was not checked (their job never wrote one).
  learners?: string[];
  reporter?: "text" | "junit";
  verbose?: boolean;
}

// `check:class combine`: the class's files from reports each learner's check wrote elsewhere (a CI
// job a learner, decision 0065), the same rows, points and pages as a class graded here. Every
// report must come from this course's revision, at one seed and on one list of stages, the class's
// (those of most reports); one that does not, or holds no judgement, is a learner not checked.
export function combineClass(
  settings: CombineSettings,
  hooks: Pick<ClassHooks, "written"> = {},
): ClassReport {
  const files = readdirSync(settings.dir).filter((name) => name.endsWith(".json"));
  const names = [
    ...new Set([
      ...files.map((name) => name.slice(0, -".json".length)),
      ...(settings.learners ?? []),
    ]),
  ].sort();
  if (names.length === 0) throw new UsageError(`no reports (<learner>.json) in ${settings.dir}`);
  const read = new Map(names.map((name) => [name, readReport(join(settings.dir, `${name}.json`))]));
  // The class's seed, stages and time come only from reports this course's check could have written.
  const judged = [...read.values()].flatMap(({ report, problem }) =>
    report === undefined || problem !== undefined || report.error !== undefined ? [] : [report],
  );
  const seed = mostCommon(judged.map((report) => report.seed ?? null));
  const stages =
    mostCommon(
      judged
        .filter((report) => report.stages.length > 0)
        .map((report) => report.stages.map((stage) => stage.stage).join(",")),
    )
      ?.split(",")
      .filter(Boolean) ?? [];
  const course = courseRevision();
  const report: ClassReport = {
    version: 4,
    course,
    checkedAt: judged.map((one) => one.checkedAt).sort()[0] ?? new Date().toISOString(),
    dir: settings.dir,
    stages,
    seed,
    options: judged.some((one) => one.strict) ? ["--strict"] : [],
    learners: [],
  };
  const written = new Map<string, string>();
  const context = { stages, projectTimeoutMs: 0, verbose: settings.verbose, files: written };
  report.learners = names.map((learner) => {
    const row = combinedRow(learner, read.get(learner) ?? {}, report, context);
    written.set(join("reports", `${learner}.md`), feedbackMarkdown(row, report));
    return row;
  });
  // Whose checks ran their code without the sandbox, and why, as their reports say.
  const why = rowsUnsandboxed(report.learners);
  if (why !== undefined) report.unsandboxed = why;
  writeGrades(settings.out, written);
  for (const [name, text] of classFiles(report)) writeFileSync(join(settings.out, name), text);
  hooks.written?.(classMarkdown(report));
  return report;
}

// A learner's row from the report their check wrote, or why there is none.
function combinedRow(
  learner: string,
  { text, report, problem }: ReadReport,
  classReport: ClassReport,
  context: RowContext,
): LearnerRow {
  const notChecked = (why: string, project = learner) =>
    failedRow(project, `not checked: ${why}`, classReport.stages, learner);
  if (text === undefined)
    return notChecked("no report from this learner's check (its job never wrote one)");
  if (report === undefined) {
    return notChecked(`${learner}.json is not a check's report (its check did not finish)`);
  }
  // Nothing of a report the course's check could not have written is shown, not even why.
  if (problem !== undefined) {
    return notChecked(`${learner}.json is not a report this course's check wrote: ${problem}`);
  }
  const why = unlike(report, classReport);
  const run = { exitCode: null, stdout: text, stderr: "", timedOut: false };
  const row =
    why !== null ? notChecked(why, report.project) : rowFrom(learner, report.project, run, context);
  return report.unsandboxed === undefined ? row : { ...row, unsandboxed: report.unsandboxed };
}

// A learner's report as read: its text, the report when it is a check's, and why its fields are
// not a check's when they are not.
interface ReadReport {
  text?: string;
  report?: CheckReport;
  problem?: string;
}

function readReport(path: string): ReadReport {
  if (!existsSync(path)) return {};
  const text = readFileSync(path, "utf8");
  let report: unknown;
  try {
    report = JSON.parse(text);
  } catch {
    return { text };
  }
  if (!isRecord(report) || !Array.isArray(report.stages)) return { text };
  const problem = malformed(report);
  return {
    text,
    report: report as unknown as CheckReport,
    ...(problem === null ? {} : { problem }),
  };
}

// What goes from a learner's report into the class's files must be what this course's check
// writes: stages of the course, scenarios of their stage's contract, counts, a time, commits and
// texts. A report that holds anything else (edited, or forged by the learner's own code in their
// job) is not graded. Why, naming the field and never its value; null when every field is right.
function malformed(report: Record<string, unknown>): string | null {
  const { course } = report;
  if (typeof report.checkedAt !== "string" || !ISO_TIME.test(report.checkedAt)) {
    return "checkedAt is not a time";
  }
  if (!isRecord(course) || !(course.commit === null || isCommit(course.commit))) {
    return "course.commit is not a commit";
  }
  if (!(report.projectCommit === undefined || report.projectCommit === null)) {
    if (!isCommit(report.projectCommit)) return "projectCommit is not a commit";
  }
  const seed = report.seed;
  if (!(seed === undefined || seed === null || (Number.isSafeInteger(seed) && Number(seed) >= 0))) {
    return "seed is not a whole number";
  }
  if (typeof report.project !== "string") return "project is not a folder";
  for (const key of ["buildError", "startError", "error", "unsandboxed"]) {
    if (report[key] !== undefined && typeof report[key] !== "string") return `${key} is not a text`;
  }
  const checked: string[] = [];
  for (const [index, stage] of (report.stages as unknown[]).entries()) {
    const problem = stageProblem(stage);
    if (problem !== null) return `stages[${index}]${problem}`;
    checked.push(String((stage as Record<string, unknown>).stage));
  }
  const headline = report.highestStagePassed;
  if (headline !== null) {
    if (typeof headline !== "string" || !checked.includes(headline) || !isMainLine(headline)) {
      return "highestStagePassed is not a main-line stage it checked";
    }
  }
  const optional = report.optionalPassed;
  if (optional !== undefined && !(Array.isArray(optional) && optional.every(isStage))) {
    return "optionalPassed is not a list of stages";
  }
  const next = report.nextToFix;
  if (next !== undefined && next !== null) {
    if (!isRecord(next) || !isStage(next.stage))
      return "nextToFix.stage is not a stage of the course";
    if (!isScenarioOf(next.stage, next.id)) {
      return `nextToFix.id is not a scenario of ${next.stage}`;
    }
    if (typeof next.title !== "string" || typeof next.message !== "string") {
      return "nextToFix's title or message is not a text";
    }
    if (!(next.docs === null || typeof next.docs === "string"))
      return "nextToFix.docs is not a text";
  }
  return null;
}

// What is wrong with one stage of a report, after its place (`.stage is …`); null when nothing.
function stageProblem(stage: unknown): string | null {
  if (!isRecord(stage)) return " is not a stage";
  if (!isStage(stage.stage)) return ".stage is not a stage of the course";
  if (typeof stage.passed !== "boolean") return ".passed is not true or false";
  for (const key of ["reached", "mainLine"]) {
    if (stage[key] !== undefined && typeof stage[key] !== "boolean") {
      return `.${key} is not true or false`;
    }
  }
  if (!(stage.durationMs === undefined || isCount(stage.durationMs)))
    return ".durationMs is not a time";
  const counts = stage.counts;
  if (!isRecord(counts) || !isTally(counts.core) || !isTally(counts.conformance)) {
    return ".counts are not counts";
  }
  if (!Array.isArray(stage.scenarios)) return ".scenarios is not a list";
  for (const [index, scenario] of stage.scenarios.entries()) {
    const at = `.scenarios[${index}]`;
    if (!isRecord(scenario)) return `${at} is not a scenario`;
    if (!isScenarioOf(stage.stage, scenario.id))
      return `${at}.id is not a scenario of ${stage.stage}`;
    if (scenario.level !== "core" && scenario.level !== "conformance") {
      return `${at}.level is not core or conformance`;
    }
    if (!["pass", "fail", "note"].includes(String(scenario.verdict))) {
      return `${at}.verdict is not pass, fail or note`;
    }
    if (typeof scenario.title !== "string") return `${at}.title is not a text`;
    for (const key of ["outgrown", "timedOut"]) {
      if (scenario[key] !== undefined && typeof scenario[key] !== "boolean") {
        return `${at}.${key} is not true or false`;
      }
    }
    const failures = scenario.failures;
    const failure = (one: unknown) =>
      isRecord(one) &&
      typeof one.message === "string" &&
      (one.docs === null || typeof one.docs === "string");
    if (!Array.isArray(failures) || !failures.every(failure)) {
      return `${at}.failures are not judgements`;
    }
  }
  return null;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isCommit(value: unknown): boolean {
  return typeof value === "string" && /^[0-9a-f]{7,64}$/.test(value);
}

function isCount(value: unknown): boolean {
  return typeof value === "number" && Number.isFinite(value) && value >= 0;
}

function isTally(value: unknown): boolean {
  return (
    isRecord(value) &&
    Number.isSafeInteger(value.passed) &&
    Number.isSafeInteger(value.total) &&
    Number(value.passed) >= 0 &&
    Number(value.passed) <= Number(value.total)
  );
}

function isStage(value: unknown): value is string {
  return typeof value === "string" && STAGES.includes(value);
}

// A scenario id (or an old id it keeps as an alias) of the stage's contract.
function isScenarioOf(stage: string, id: unknown): boolean {
  let ids = SCENARIO_IDS.get(stage);
  if (ids === undefined) {
    const scenarios = findContract(stage)?.scenarios ?? [];
    ids = new Set(scenarios.flatMap((scenario) => [scenario.id, ...(scenario.aliases ?? [])]));
    SCENARIO_IDS.set(stage, ids);
  }
  return typeof id === "string" && ids.has(id);
}

const SCENARIO_IDS = new Map<string, Set<string>>();

// Why a learner's report cannot be graded with the class: the pages' own seed, another seed, other
// stages or another revision of the course; null when it can. A report that stopped before judging
// says why itself.
function unlike(own: CheckReport, classReport: ClassReport): string | null {
  if (own.error !== undefined) return own.error;
  if (own.seed === 0) {
    return "checked at seed 0, whose words the pages show and a project can print without doing the work: check it again at the class's seed";
  }
  if ((own.seed ?? null) !== classReport.seed) {
    return `checked at seed ${own.seed}, not at the class's seed ${classReport.seed}`;
  }
  const stages = own.stages.map((stage) => stage.stage);
  if (stages.length > 0 && stages.join(",") !== classReport.stages.join(",")) {
    return `checked on ${stages.join(",")}, not on the class's stages ${classReport.stages.join(",")}`;
  }
  const [theirs, ours] = [own.course.commit, classReport.course.commit];
  if (theirs !== null && ours !== null && theirs !== ours) {
    return `checked by the course at ${theirs.slice(0, 12)}, not at this checkout's ${ours.slice(0, 12)}`;
  }
  return null;
}

// The value most of the list holds (the first of equals); null for an empty list.
function mostCommon<T>(values: T[]): T | null {
  const counts = new Map<T, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  let best: T | null = null;
  let most = 0;
  for (const [value, count] of counts) {
    if (count > most) {
      best = value;
      most = count;
    }
  }
  return best;
}

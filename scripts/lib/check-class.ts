// `pnpm check:class <dir-of-projects>`: every project in a folder checked on its own (each says
// how it starts in agent-code.check.json), several at once, then one table: learner, headline
// stage, points, core scenarios passed per stage, the first failing core scenarios above the
// headline. A project that cannot be checked gets its error in the table; the others go on
// (decisions 0039 and 0058).
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli, splitCommand } from "@agent-code/test-kit";
import {
  classJunitXml,
  classMarkdown,
  feedbackMarkdown,
  pointStages,
  pointsCsv,
} from "./check-class-output.ts";
import { type CourseRevision, courseRevision } from "./check-course.ts";
import { readProjectFile } from "./check-project.ts";
import type { CheckReport, NextToFix } from "./check-run.ts";
import { findProgram, isMainLine, ROOT, STAGES, UsageError } from "./command.ts";

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
}

export interface LearnerRow {
  learner: string;
  project: string;
  // The check's exit code: 0 a stage passed, 1 none did, 2 not checked (see error).
  exitCode: number | null;
  // Why the project was not checked: the check's error line; null when it was.
  error: string | null;
  // The headline: the highest stage of the main line whose core passed, or null.
  highestStagePassed: string | null;
  // The learner's commit that was checked, when the check's report names it.
  commit: string | null;
  // One point per main-line stage checked, up to and including the headline (decision 0058).
  points: { awarded: number; available: number };
  // Per stage checked: its own contract passed, reached once outgrown misses are set aside (the
  // headline's judgement), core scenarios passed of those run, and how long it took.
  stages: {
    stage: string;
    passed: boolean;
    reached: boolean;
    core: { passed: number; total: number };
    durationMs: number;
  }[];
  // Failing core scenarios of the main line above the headline, as stage/id, each id once.
  failingCore: string[];
  nextToFix: NextToFix | null;
  // The project was checked, but its sources do not parse: esbuild's line, and nothing ran.
  buildError: string | null;
}

export interface ClassReport {
  version: 3;
  course: CourseRevision;
  checkedAt: string;
  dir: string;
  stages: string[];
  // The seed every project's check drew from (pnpm check --seed repeats one learner's).
  seed: number;
  // The rows, by learner name whatever order the checks finished in.
  learners: LearnerRow[];
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
    version: 3,
    course: courseRevision(),
    checkedAt: new Date().toISOString(),
    dir: settings.dir,
    stages: settings.stages,
    seed: settings.seed,
    learners: [],
  };
  for (const name of GRADE_FILES)
    rmSync(join(settings.out, name), { recursive: true, force: true });
  mkdirSync(join(settings.out, "reports"), { recursive: true });
  const rows: (LearnerRow | undefined)[] = projects.map(() => undefined);
  let next = 0;
  const worker = async () => {
    while (next < projects.length && hooks.signal?.aborted !== true) {
      const index = next++;
      const project = projects[index] ?? "";
      const tag = `[${index + 1}/${projects.length}] ${basename(project)}`;
      progress(`${tag}: checking`);
      const started = performance.now();
      const row = await gradeProject(project, settings, report, check, hooks.signal);
      rows[index] = row;
      const seconds = Math.round((performance.now() - started) / 1000);
      progress(`${tag}: ${row.error ?? row.highestStagePassed ?? "none"} (${seconds} s)`);
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
    const markdown = classMarkdown(report);
    writeFileSync(join(settings.out, "class.json"), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(settings.out, "class.md"), markdown);
    writeFileSync(join(settings.out, "points.csv"), pointsCsv(report));
    writeFileSync(join(settings.out, "class.xml"), classJunitXml(report));
    hooks.written?.(markdown);
  }
  return report;
}

// One project's check in a process of its own: whatever it does, the class goes on.
async function gradeProject(
  project: string,
  settings: ClassSettings,
  classReport: ClassReport,
  check: NonNullable<ClassHooks["check"]>,
  signal: AbortSignal | undefined,
): Promise<LearnerRow> {
  const learner = basename(project);
  const missing = missingProgram(project, settings.checkArgs);
  const row =
    missing !== undefined
      ? failedRow(project, missing, classReport.stages)
      : rowFrom(project, settings, await check(project, settings, signal), classReport.stages);
  // Beside the project's report (written by rowFrom), what the learner reads first.
  writeFileSync(join(settings.out, "reports", `${learner}.md`), feedbackMarkdown(row, classReport));
  return row;
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
      // The class writes one summary; a table per project would bury it.
      env: { GITHUB_STEP_SUMMARY: undefined },
      // A Ctrl-C reaches each check, which stops the commands it started and exits 130.
      ...(signal === undefined ? {} : { interrupt: aborted(signal) }),
    },
  );
}

function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((done) => signal.addEventListener("abort", () => done(), { once: true }));
}

// A program the project starts with that is not on PATH, `uv` say: one line naming it, before
// a check that would fail every scenario for a reason that is not the learner's code.
function missingProgram(project: string, checkArgs: string[]): string | undefined {
  const cmd = checkArgs.indexOf("--cmd");
  let command: string[] | undefined;
  if (cmd !== -1) {
    command = splitCommand(checkArgs[cmd + 1] ?? "");
  } else {
    try {
      const start = readProjectFile(project);
      if (start !== undefined && "command" in start) command = start.command;
    } catch {
      // A malformed project file: the check itself says what is wrong with it.
    }
  }
  const [program] = command ?? [];
  if (program === undefined || program.includes("/") || program.includes("\\")) return undefined;
  if (findProgram(program, project)) return undefined;
  const starts = `the project starts with \`${(command ?? []).join(" ")}\``;
  return program === "uv"
    ? `not checked: uv is not installed (${starts}): install it (https://docs.astral.sh/uv/getting-started/installation/), then run uv sync in ${project}`
    : `not checked: ${program} is not on PATH (${starts})`;
}

function failedRow(project: string, error: string, stages: string[]): LearnerRow {
  return {
    learner: basename(project),
    project,
    exitCode: null,
    error,
    highestStagePassed: null,
    commit: null,
    points: { awarded: 0, available: pointStages(stages).length },
    stages: [],
    failingCore: [],
    nextToFix: null,
    buildError: null,
  };
}

function rowFrom(
  project: string,
  settings: ClassSettings,
  run: ProjectRun,
  stages: string[],
): LearnerRow {
  const learner = basename(project);
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
        ? `not checked: the check took longer than ${settings.projectTimeoutMs} ms`
        : `not checked: ${why}`,
      stages,
    );
    return { ...row, exitCode: run.exitCode };
  }
  writeFileSync(join(settings.out, "reports", `${learner}.json`), run.stdout);
  const headline = report.highestStagePassed;
  const scored = pointStages(stages);
  const order = (stage: string | null) => (stage === null ? -1 : STAGES.indexOf(stage));
  const failing = failingAbove(report, order(headline));
  // Optional stages score only when nothing of the main line was checked: each that passed.
  const earned = (stage: string) =>
    isMainLine(stage)
      ? order(stage) <= order(headline)
      : report.stages.some((checked) => checked.stage === stage && checked.passed);
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
      durationMs: stage.durationMs ?? 0,
    })),
    failingCore: failing.map((miss) => `${miss.stage}/${miss.id}`),
    // The check's own choice: it orders misses by the stage that taught them. Sources that do not
    // parse come before any scenario.
    nextToFix:
      report.buildError === undefined
        ? (report.nextToFix ?? null)
        : {
            stage: stages[0] ?? "",
            id: "src/cli.ts",
            title: "src/cli.ts does not build, so no scenario ran",
            message: report.buildError,
            docs: null,
          },
    buildError: report.buildError ?? null,
  };
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

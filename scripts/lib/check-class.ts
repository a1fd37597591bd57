// `pnpm check:class <dir-of-projects>`: every project in a folder checked on its own (each says
// how it starts in agent-code.check.json), then one table: learner, highest stage passed, core
// scenarios passed per stage, failing core scenarios. A project that cannot be checked gets its
// error in the table; the others go on (decision 0039).
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "@agent-code/test-kit";
import { type CourseRevision, courseRevision } from "./check-course.ts";
import type { CheckReport } from "./check-run.ts";
import { ROOT, STAGES, UsageError } from "./command.ts";

const CHECK = fileURLToPath(new URL("../check.ts", import.meta.url));

export interface ClassSettings {
  dir: string;
  // One stage, or every stage (--all) when undefined.
  stage: string | undefined;
  out: string;
  // Extra arguments for every project's check (--timeout-ms, --pass-env, --strict).
  checkArgs: string[];
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
  highestStagePassed: string | null;
  stages: { stage: string; passed: boolean; core: { passed: number; total: number } }[];
  // Failing core scenarios, as stage/id.
  failingCore: string[];
}

export interface ClassReport {
  version: 1;
  course: CourseRevision;
  checkedAt: string;
  dir: string;
  stages: string[];
  learners: LearnerRow[];
}

// Without --out: a folder beside the class's, never inside this repository.
export function defaultOut(dir: string): string {
  const out = join(dirname(dir), `${basename(dir)}-grades`);
  if (inside(ROOT, out)) {
    throw new UsageError(`the grades would go inside the course repository (${out}): pass --out`);
  }
  return out;
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
  progress: (line: string) => void = () => {},
): Promise<ClassReport> {
  const checkedAt = new Date().toISOString();
  mkdirSync(join(settings.out, "reports"), { recursive: true });
  const learners: LearnerRow[] = [];
  for (const project of projectsIn(settings.dir)) {
    const row = await gradeProject(project, settings);
    learners.push(row);
    progress(
      `${row.learner}: ${row.error ?? `highest stage passed: ${row.highestStagePassed ?? "none"}`}`,
    );
  }
  const report: ClassReport = {
    version: 1,
    course: courseRevision(),
    checkedAt,
    dir: settings.dir,
    stages: settings.stage === undefined ? STAGES : [settings.stage],
    learners,
  };
  writeFileSync(join(settings.out, "class.json"), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(settings.out, "class.md"), classMarkdown(report));
  return report;
}

// One project's check in a process of its own: whatever it does, the class goes on.
async function gradeProject(project: string, settings: ClassSettings): Promise<LearnerRow> {
  const learner = basename(project);
  const row: LearnerRow = {
    learner,
    project,
    exitCode: null,
    error: null,
    highestStagePassed: null,
    stages: [],
    failingCore: [],
  };
  const run = await runCli(
    [process.execPath, "--import", "tsx", CHECK],
    [
      ...(settings.stage === undefined ? ["--all"] : [settings.stage]),
      "--json",
      "--project",
      project,
      ...settings.checkArgs,
    ],
    { cwd: ROOT, timeoutMs: settings.projectTimeoutMs },
  );
  row.exitCode = run.exitCode;
  let report: CheckReport | undefined;
  try {
    report = JSON.parse(run.stdout);
  } catch {
    report = undefined;
  }
  if (report === undefined || run.timedOut) {
    const line = run.stderr.split("\n").find((text) => text.startsWith("error: "));
    row.error = run.timedOut
      ? `not checked: the check took longer than ${settings.projectTimeoutMs} ms`
      : `not checked: ${line?.replace(/^error: /, "") ?? `check exited ${run.exitCode}`}`;
    return row;
  }
  writeFileSync(join(settings.out, "reports", `${learner}.json`), run.stdout);
  row.highestStagePassed = report.highestStagePassed;
  row.stages = report.stages.map((stage) => ({
    stage: stage.stage,
    passed: stage.passed,
    core: stage.counts.core,
  }));
  row.failingCore = report.stages.flatMap((stage) =>
    stage.scenarios
      .filter((scenario) => scenario.level === "core" && scenario.verdict !== "pass")
      .map((scenario) => `${stage.stage}/${scenario.id}`),
  );
  return row;
}

export function classMarkdown(report: ClassReport): string {
  const header = ["learner", "highest stage passed", ...report.stages, "failing core scenarios"];
  const lines = [
    `# Class report: ${cell(report.dir)}`,
    "",
    `Checked ${report.checkedAt} by the course at ${report.course.commit ?? "(no git commit)"} (version ${report.course.version}). A stage's column is its core scenarios passed of those run.`,
    "",
    `| ${header.join(" | ")} |`,
    `| ${header.map(() => "---").join(" | ")} |`,
  ];
  for (const row of report.learners) {
    const stages = report.stages.map((name) => {
      const stage = row.stages.find((candidate) => candidate.stage === name);
      return stage === undefined ? "-" : `${stage.core.passed}/${stage.core.total}`;
    });
    const failing =
      row.error !== null
        ? cell(row.error)
        : row.failingCore.map((id) => `\`${id}\``).join(", ") || "none";
    const highest = row.error !== null ? "not checked" : (row.highestStagePassed ?? "none");
    lines.push(`| ${[cell(row.learner), highest, ...stages, failing].join(" | ")} |`);
  }
  return `${lines.join("\n")}\n`;
}

function cell(value: string): string {
  return value.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

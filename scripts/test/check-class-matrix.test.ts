// The matrix workflow docs/instructors.md gives for grading a class on CI, run job by job as the
// page writes it: `plan` draws the seed and lists the learners, `check` runs once a learner in a
// workspace of its own laid out as its checkout steps lay it out, and `combine` gathers the reports
// as the artifact steps would and writes the class's files and the step summary. Checkouts, setup
// and installs are read, not run (they fetch); the artifact steps are copies.
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "@agent-code/test-kit";
import { parse, type TestSuites } from "junit2json";
import { afterAll, expect, test } from "vitest";
import type { ClassReport } from "../lib/check-class.ts";
import { ROOT, STAGES } from "../lib/command.ts";
import { crashingProject, typescriptProject, unbundledProject } from "./class-fixtures.ts";

const root = mkdtempSync(join(tmpdir(), "check-class-matrix-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// Two learners' checks of two stages, one after the other, then the combining: minutes on a busy
// machine.
const MATRIX_MS = 600_000;

interface Step {
  name: string;
  lines: string[];
}

interface Job {
  name: string;
  lines: string[];
  steps: Step[];
}

// The workflow block of the page: its top-level env and its jobs, each with its steps.
function workflow(): { text: string; env: Record<string, string>; jobs: Job[] } {
  const page = readFileSync(join(ROOT, "docs", "instructors.md"), "utf8");
  const start = page.indexOf("```yaml\n# .github/workflows/grade-class.yml\n");
  if (start < 0) throw new Error("docs/instructors.md has no grade-class.yml block");
  const text = page.slice(start + "```yaml\n".length, page.indexOf("\n```", start + 1));
  const lines = text.split("\n");
  const jobs: Job[] = [];
  for (const line of lines.slice(lines.indexOf("jobs:") + 1)) {
    const job = line.match(/^ {2}([\w-]+):$/);
    if (job) jobs.push({ name: job[1] ?? "", lines: [], steps: [] });
    const current = jobs.at(-1);
    if (current === undefined) continue;
    current.lines.push(line);
    const step = line.match(/^ {6}- (?:name|uses): (.*)$/);
    if (step) current.steps.push({ name: step[1] ?? "", lines: [] });
    current.steps.at(-1)?.lines.push(line);
  }
  return { text, env: mapping(lines, "env", 0), jobs };
}

// The `key:` block at `indent` spaces among `lines`: its `NAME: value` lines, comments dropped.
function mapping(lines: string[], key: string, indent: number): Record<string, string> {
  const at = lines.indexOf(`${" ".repeat(indent)}${key}:`);
  if (at < 0) return {};
  const values: Record<string, string> = {};
  for (const line of lines.slice(at + 1)) {
    const entry = line.match(new RegExp(`^ {${indent + 2}}([\\w-]+): (.*?)(?: #.*)?$`));
    if (!entry) break;
    values[entry[1] ?? ""] = entry[2] ?? "";
  }
  return values;
}

function job(jobs: Job[], name: string): Job {
  const found = jobs.find((one) => one.name === name);
  if (found === undefined) throw new Error(`the workflow has no job ${name}`);
  return found;
}

function step(of: Job, name: string): Step {
  const found = of.steps.find((one) => one.name === name);
  if (found === undefined) throw new Error(`${of.name} has no step ${name}`);
  return found;
}

// A step's `run: |` script, dedented.
function script(of: Step): string {
  const at = of.lines.findIndex((line) => /^ +run: \|$/.test(line));
  if (at < 0) throw new Error(`step has no run: | block: ${of.name}`);
  const indent = (of.lines[at] ?? "").search(/\S/);
  const body = of.lines.slice(at + 1).filter((line) => line.search(/\S/) > indent || line === "");
  const margin = Math.min(...body.filter(Boolean).map((line) => line.search(/\S/)));
  return `${body.map((line) => line.slice(margin)).join("\n")}\n`;
}

// `${{ … }}` as GitHub Actions would fill it in, from what this run of the workflow knows.
function resolve(text: string, known: Record<string, string>): string {
  return text.replace(/\$\{\{ (.+?) \}\}/g, (_, name: string) => {
    const value = known[name];
    if (value === undefined) throw new Error(`the test does not know \${{ ${name} }}`);
    return value;
  });
}

function expression(name: string): string {
  return `\${{ ${name} }}`;
}

function bash(text: string, cwd: string, env: Record<string, string | undefined>) {
  return runCli(["bash", "--noprofile", "--norc", "-e", "-c", text], [], {
    cwd,
    env: { INIT_CWD: undefined, GITHUB_STEP_SUMMARY: undefined, ...env },
    timeoutMs: MATRIX_MS,
  });
}

// The class: ada finished Day 2; fay's program throws before it prints; gus imports a file he
// never added; omar's job never got as far as its check.
const LEARNERS = "ada fay gus omar";
const PROJECTS: Record<string, (dir: string) => void> = {
  ada: (dir) => typescriptProject(dir, { stage: "day-2-v3", installed: true }),
  fay: crashingProject,
  gus: unbundledProject,
};

test(
  "the matrix workflow's jobs, run as its steps are written: a check per learner, then the class",
  async () => {
    const { text, env, jobs } = workflow();
    expect(jobs.map((one) => one.name)).toEqual(["plan", "check", "combine"]);
    const [plan, check, combine] = [job(jobs, "plan"), job(jobs, "check"), job(jobs, "combine")];
    // Every checkout leaves no token behind for a learner's code to read.
    const checkouts = text.split(/\n(?= {6}- )/).filter((one) => one.includes("actions/checkout"));
    expect(checkouts).toHaveLength(3);
    for (const one of checkouts) expect(one).toMatch(/^ +persist-credentials: false\b/m);
    // A learner's install runs outside the sandbox, on their job's runner: none of their lifecycle
    // scripts runs there (the course's own install is the course's).
    const install = script(step(job(jobs, "check"), "Install"));
    expect(install.match(/pnpm --dir project install.*/g)).toEqual([
      "pnpm --dir project install --frozen-lockfile --ignore-scripts",
    ]);
    // The stages are the course's; the revision pins every job to one course.
    const stages = env.STAGES?.split(",") ?? [];
    expect(stages.length).toBeGreaterThan(0);
    for (const stage of stages) expect(STAGES).toContain(stage);
    expect(env.COURSE_REVISION).toMatch(/^[0-9a-f]{40}$/);

    // plan: the learners as the matrix, one seed for all.
    const output = join(root, "plan-output");
    const planned = await bash(script(step(plan, "Plan")), root, {
      LEARNERS,
      GITHUB_OUTPUT: output,
    });
    expect(planned.exitCode, planned.stderr).toBe(0);
    const outputs = Object.fromEntries(
      readFileSync(output, "utf8")
        .trimEnd()
        .split("\n")
        .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
    );
    expect(JSON.parse(outputs.learners ?? "")).toEqual(LEARNERS.split(" "));
    const seed = Number(outputs.seed);
    expect(Number.isInteger(seed) && seed >= 1 && seed <= 999_999).toBe(true);
    expect(mapping(plan.lines, "outputs", 4)).toEqual({
      learners: expression("steps.plan.outputs.learners"),
      seed: expression("steps.plan.outputs.seed"),
    });

    // check: a job a learner, the matrix from plan, run whatever the others did.
    expect(check.lines).toContain("    needs: plan");
    expect(mapping(check.lines, "matrix", 6)).toEqual({
      learner: expression("fromJSON(needs.plan.outputs.learners)"),
    });
    expect(mapping(check.lines, "strategy", 4)["fail-fast"]).toBe("false");
    const upload = step(check, "Keep the report");
    expect(upload.lines).toContain("        if: always()");
    const artifacts = join(root, "artifacts");
    const exits: Record<string, number | null> = {};
    for (const learner of Object.keys(PROJECTS)) {
      const known = { "matrix.learner": learner, "needs.plan.outputs.seed": String(seed) };
      const workspace = join(root, `check-${learner}`);
      mkdirSync(workspace);
      symlinkSync(ROOT, join(workspace, "course"), "dir");
      PROJECTS[learner]?.(join(workspace, "project"));
      const jobEnv = Object.fromEntries(
        Object.entries(mapping(check.lines, "env", 4)).map(([name, value]) => [
          name,
          resolve(value, known),
        ]),
      );
      expect(jobEnv).toEqual({ LEARNER: learner, SEED: String(seed) });
      const run = await bash(script(step(check, "Check")), workspace, {
        ...env,
        ...jobEnv,
        GITHUB_WORKSPACE: workspace,
      });
      exits[learner] = run.exitCode;
      const kept = mapping(upload.lines, "with", 8);
      cpSync(join(workspace, kept.path ?? ""), join(artifacts, resolve(kept.name ?? "", known)), {
        recursive: true,
      });
    }
    // A learner's job is red when their project reached no stage; the report is kept either way.
    expect(exits).toEqual({ ada: 0, fay: 1, gus: 1 });

    // combine: after every check, whatever they did; the reports gathered into one folder.
    expect(combine.lines).toContain("    needs: check");
    expect(combine.lines).toContain("    if: always()");
    const workspace = join(root, "combine");
    mkdirSync(workspace);
    symlinkSync(ROOT, join(workspace, "course"), "dir");
    const gather = mapping(step(combine, "Gather the reports").lines, "with", 8);
    expect(gather["merge-multiple"]).toBe("true");
    const pattern = new RegExp(`^${(gather.pattern ?? "").replace("*", ".*")}$`);
    for (const name of readdirSync(artifacts).filter((one) => pattern.test(one))) {
      cpSync(join(artifacts, name), join(workspace, gather.path ?? ""), { recursive: true });
    }
    const summary = join(workspace, "summary.md");
    const combined = await bash(script(step(combine, "Combine")), workspace, {
      LEARNERS,
      GITHUB_WORKSPACE: workspace,
      GITHUB_STEP_SUMMARY: summary,
    });
    // omar was not checked: the class says so in its exit code.
    expect(combined.exitCode, combined.stderr).toBe(1);
    const grades = join(
      workspace,
      mapping(step(combine, "Keep the grades").lines, "with", 8).path ?? "",
    );
    for (const file of ["class.md", "class.json", "class.xml", "points.csv"]) {
      expect(existsSync(join(grades, file))).toBe(true);
    }
    const report: ClassReport = JSON.parse(readFileSync(join(grades, "class.json"), "utf8"));
    expect(report.seed).toBe(seed);
    expect(report.stages).toEqual(stages);
    expect(
      report.learners.map((row) => [row.learner, row.highestStagePassed, row.points.awarded]),
    ).toEqual([
      ["ada", "day-2-v2", 2],
      ["fay", null, 0],
      ["gus", null, 0],
      ["omar", null, null],
    ]);
    expect(combined.stdoutLines).toEqual([
      "ada: highest stage passed: day-2-v2",
      "fay: does not start: Error: ENOENT: no such file or directory, open 'agent-code.settings.json'",
      'gus: does not build: src/tools.ts:3:28: Could not resolve "./system-date.ts"',
      "omar: not checked: no report from this learner's check (its job never wrote one)",
      `class report: ${join(grades, "class.md")} and class.json`,
    ]);
    expect(readFileSync(join(grades, "points.csv"), "utf8").split("\n")).toContain(
      "omar,not checked,,2,no report from this learner's check (its job never wrote one)",
    );
    const xml = (await parse(readFileSync(join(grades, "class.xml"), "utf8"))) as TestSuites;
    expect(xml).toMatchObject({ tests: 5, failures: 0, errors: 3 });
    // The step summary is the class table; each learner has a page, the cause on its first line.
    expect(readFileSync(summary, "utf8")).toBe(readFileSync(join(grades, "class.md"), "utf8"));
    expect(readFileSync(join(grades, "reports", "fay.md"), "utf8").split("\n")[0]).toBe(
      "# agent-code check, fay: does not start (0 of 2 points): Error: ENOENT: no such file or directory, open 'agent-code.settings.json'",
    );
    const ada = JSON.parse(readFileSync(join(grades, "reports", "ada.json"), "utf8"));
    expect(ada.brief).toBe(true);
  },
  MATRIX_MS,
);

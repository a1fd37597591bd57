// The CI workflow docs/instructors.md gives a class repository, run as a script: its Check step,
// as written, on fixture projects laid out the way its checkout steps lay them out, so the recipe
// cannot rot; and the command of its GitHub Classroom grader the same way. The Install step is
// read, not run: it installs pnpm globally and fetches packages.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findContract, runCli } from "@agent-code/test-kit";
import { parse, type TestSuites } from "junit2json";
import { afterAll, expect, test } from "vitest";
import { ROOT } from "../lib/command.ts";
import { pythonProject, typescriptProject } from "./class-fixtures.ts";
import { HAS_PYTHON } from "./python-project.ts";

const dir = mkdtempSync(join(tmpdir(), "check-workflow-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Step {
  name: string;
  lines: string[];
}

// The workflow block of the page, as its steps: each `- name:` or `- uses:` with its lines.
function workflow(): { text: string; steps: Step[] } {
  const page = readFileSync(join(ROOT, "docs", "instructors.md"), "utf8");
  const start = page.indexOf("```yaml\n# .github/workflows/agent-code-check.yml\n");
  if (start < 0) throw new Error("docs/instructors.md has no agent-code-check.yml block");
  const text = page.slice(start + "```yaml\n".length, page.indexOf("\n```", start + 1));
  const steps: Step[] = [];
  for (const line of text.split("\n")) {
    const item = line.match(/^ {6}- (?:name|uses): (.*)$/);
    if (item) steps.push({ name: item[1] ?? "", lines: [] });
    steps.at(-1)?.lines.push(line);
  }
  return { text, steps };
}

// A step's `run: |` script, dedented.
function script(step: Step | undefined): string {
  const lines = step?.lines ?? [];
  const at = lines.findIndex((line) => /^ +run: \|$/.test(line));
  if (at < 0) throw new Error(`step has no run: | block: ${step?.name}`);
  const indent = (lines[at] ?? "").search(/\S/);
  const body = lines.slice(at + 1).filter((line) => line.search(/\S/) > indent || line === "");
  const margin = Math.min(...body.filter(Boolean).map((line) => line.search(/\S/)));
  return `${body.map((line) => line.slice(margin)).join("\n")}\n`;
}

function value(text: string, key: string): string {
  return text.match(new RegExp(`^ +${key}: (\\S+)`, "m"))?.[1] ?? "";
}

test("the workflow lays out, installs and publishes what its Check step uses", () => {
  const { text, steps } = workflow();
  expect(steps.map((step) => step.name)).toEqual([
    "Check out the learner's project",
    "Check out the course",
    "actions/setup-node@v4",
    "astral-sh/setup-uv@v6 # for Python projects; harmless for the others",
    "Install",
    "Check",
    "Publish the report",
  ]);
  const [learner, course] = steps;
  expect(value(learner?.lines.join("\n") ?? "", "path")).toBe("project");
  expect(value(course?.lines.join("\n") ?? "", "path")).toBe("course");
  // The pinned pnpm is this repository's, and installs follow the lock files.
  const packageManager = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"))
    .packageManager as string;
  const install = script(steps[4]);
  expect(install).toContain(`npm install -g ${packageManager}\n`);
  expect(install).toContain("pnpm --dir course install --frozen-lockfile\n");
  // The learner's install runs outside the sandbox, so none of their lifecycle scripts runs.
  expect(install.match(/pnpm --dir project install.*/g)).toEqual([
    "pnpm --dir project install --frozen-lockfile --ignore-scripts",
  ]);
  // What Check writes is what Publish uploads, even after a failed check.
  expect(script(steps[5])).toContain("> agent-code-check.xml");
  expect(value(steps[6]?.lines.join("\n") ?? "", "path")).toBe("agent-code-check.xml");
  expect(steps[6]?.lines).toContain("        if: always()");
  expect(value(text, "STAGE")).toMatch(/^day-/);
});

// The job's layout: the course (this checkout) in course/, the learner's project in project/.
async function runCheckStep(name: string, makeProject: (dir: string) => void) {
  const workspace = join(dir, name);
  mkdirSync(workspace);
  symlinkSync(ROOT, join(workspace, "course"), "dir");
  makeProject(join(workspace, "project"));
  const summary = join(workspace, "summary.md");
  const run = await runCli(
    ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script(workflow().steps[5])],
    [],
    {
      cwd: workspace,
      // The assignment's stage is the workflow's; day-1 keeps this test quick.
      env: {
        STAGE: "day-1",
        GITHUB_WORKSPACE: workspace,
        GITHUB_ACTIONS: "true",
        GITHUB_STEP_SUMMARY: summary,
      },
      timeoutMs: 120_000,
    },
  );
  const xml = (await parse(readFileSync(join(workspace, "agent-code-check.xml"), "utf8"))) as
    | TestSuites
    | undefined;
  return { run, xml, summary: readFileSync(summary, "utf8") };
}

const SCENARIOS = findContract("day-1")?.scenarios ?? [];

test("a TypeScript project that passes: exit 0, a test case per scenario, a green table", async () => {
  const { run, xml, summary } = await runCheckStep("typescript", (project) =>
    typescriptProject(project, { stage: "day-1", installed: true }),
  );
  expect(run.exitCode).toBe(0);
  const [suite] = xml?.testsuite ?? [];
  expect(suite?.testcase).toHaveLength(SCENARIOS.length);
  expect(suite?.failures).toBe(0);
  expect(summary).toContain("highest stage passed: **day-1**");
  expect(summary).toMatch(/^\| day-1 \| yes \| (\d+)\/\1 \|/m);
}, 120_000);

test.skipIf(!HAS_PYTHON)(
  "a Python project with a bug, no flags: judged, the step fails when a core scenario does",
  async () => {
    // The Python agent-code is a Day 2 program, which day-1 judges on day-2-v1's versions of the
    // scenarios that lesson changed (decision 0070): a bug in its final line fails those too.
    const { run, xml, summary } = await runCheckStep("python", (project) => {
      pythonProject(project);
      const file = join(project, "agent_code.py");
      const text = readFileSync(file, "utf8");
      writeFileSync(file, text.replace('print("final: " + ', 'print("answer: " + '));
    });
    const [suite] = xml?.testsuite ?? [];
    expect(suite?.testcase).toHaveLength(SCENARIOS.length);
    const failed = (suite?.testcase ?? []).filter((testCase) => testCase.failure !== undefined);
    expect(failed.length).toBeGreaterThan(0);
    expect(run.exitCode).toBe(1);
    expect(summary).toContain("highest stage passed: **none**");
    expect((suite?.properties ?? []).find((property) => property.name === "command")?.value).toBe(
      "python3 agent_code.py",
    );
  },
  120_000,
);

// The Classroom grader's command, as the page writes it, in the same layout: Classroom awards the
// points on exit 0, which the check gives exactly when the stage's core scenarios pass.
test("the Classroom grader's command: exit 0 for a project at its stage, 1 for one with a bug", async () => {
  const page = readFileSync(join(ROOT, "docs", "instructors.md"), "utf8");
  const command = page.match(/^ {4}command: (pnpm --dir course check .*)$/m)?.[1];
  expect(command).toMatch(
    /^pnpm --dir course check day-2-v3 --project "\$GITHUB_WORKSPACE\/project"$/,
  );
  const grade = async (name: string, edit?: [string, string]) => {
    const workspace = join(dir, name);
    mkdirSync(workspace);
    symlinkSync(ROOT, join(workspace, "course"), "dir");
    typescriptProject(join(workspace, "project"), {
      stage: "day-2-v3",
      installed: true,
      ...(edit === undefined ? {} : { edit }),
    });
    const run = await runCli(["bash", "--noprofile", "--norc", "-c", command ?? ""], [], {
      cwd: workspace,
      env: { GITHUB_WORKSPACE: workspace, GITHUB_STEP_SUMMARY: undefined, INIT_CWD: undefined },
      timeoutMs: 120_000,
    });
    return [run.exitCode, run.stdoutLines.at(-1)];
  };
  expect(await grade("classroom-pass")).toEqual([0, "highest stage passed: day-2-v3"]);
  // Each tool_result in a user message of its own: parallel-tool-calls fails, and so does the step.
  const bug: [string, string] = [
    'messages.push({ role: "user", content: results });',
    'for (const r of results) messages.push({ role: "user", content: [r] });',
  ];
  expect(await grade("classroom-bug", bug)).toEqual([1, "highest stage passed: none"]);
}, 240_000);

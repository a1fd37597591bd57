// pnpm check:class on a mixed class, TypeScript and Python, with no per-project flags: the table
// it writes matches each project's verdicts, and a project that cannot be checked stops nothing.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "@agent-code/test-kit";
import { afterAll, describe, expect, test } from "vitest";
import { classSettings } from "../check-class.ts";
import type { ClassReport } from "../lib/check-class.ts";
import type { CheckReport } from "../lib/check-run.ts";
import { ROOT, UsageError } from "../lib/command.ts";
import { writeClass } from "./class-fixtures.ts";
import { HAS_PYTHON, PYTHON } from "./python-project.ts";

const SCRIPT = fileURLToPath(new URL("../check-class.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "check-class-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Four projects, one stage each (day-2-v2, smaller than day-2-v3): minutes on a busy machine.
const CLASS_MS = 600_000;
// The Python project's `python3` is found first in its interpreter's own folder, not through a
// version manager's shim that takes seconds a start (decision 0038).
const PATH =
  PYTHON !== undefined && isAbsolute(PYTHON)
    ? `${dirname(PYTHON)}${delimiter}${process.env.PATH ?? ""}`
    : process.env.PATH;

describe.skipIf(!HAS_PYTHON)("a mixed class (needs python3)", () => {
  test(
    "one command grades every project; the table matches the verdicts",
    async () => {
      const projects = join(dir, "projects");
      mkdirSync(projects);
      writeClass(projects, { python: true });
      const out = join(dir, "grades");
      const run = await runCli(
        ["node", "--import", "tsx", SCRIPT],
        ["projects", "--stage", "day-2-v2", "--out", "grades", "--jobs", "2"],
        { env: { INIT_CWD: dir, PATH }, timeoutMs: CLASS_MS },
      );
      // dana was never installed: not checked, and said so; the others were all checked.
      expect(run.exitCode).toBe(1);
      expect(run.stdoutLines).toEqual([
        "ada: highest stage passed: day-2-v2",
        "brian: highest stage passed: none",
        "chen: highest stage passed: day-2-v2",
        `dana: not checked: run pnpm install in ${join(projects, "dana")} first`,
        `class report: ${join(out, "class.md")} and class.json`,
      ]);
      const report: ClassReport = JSON.parse(readFileSync(join(out, "class.json"), "utf8"));
      expect(report.learners.map((row) => row.learner)).toEqual(["ada", "brian", "chen", "dana"]);
      // Every row is what that project's own report says.
      for (const row of report.learners.slice(0, 3)) {
        const own: CheckReport = JSON.parse(
          readFileSync(join(out, "reports", `${row.learner}.json`), "utf8"),
        );
        const [stage] = own.stages;
        expect(row.highestStagePassed).toBe(own.highestStagePassed);
        expect(row.stages).toEqual([
          { stage: "day-2-v2", passed: stage?.passed, core: stage?.counts.core },
        ]);
        expect(row.failingCore).toEqual(
          (stage?.scenarios ?? [])
            .filter((scenario) => scenario.level === "core" && scenario.verdict !== "pass")
            .map((scenario) => `day-2-v2/${scenario.id}`),
        );
      }
      const [ada, brian, chen, dana] = report.learners;
      expect(ada?.failingCore).toEqual([]);
      expect(chen?.failingCore).toEqual([]);
      expect(brian?.failingCore).toContain("day-2-v2/parallel-tool-calls");
      expect(dana?.error).toBe(`not checked: run pnpm install in ${join(projects, "dana")} first`);
      // A progress line as each starts and ends, on stderr; the table keeps the names' order.
      const progress = run.stderr.split("\n").filter((line) => line.startsWith("["));
      expect(progress.filter((line) => line.endsWith(": checking"))).toHaveLength(4);
      const ends = progress.filter((line) => !line.endsWith(": checking"));
      expect(ends.map((line) => line.replace(/\(\d+ s\)$/, "(N s)")).sort()).toEqual([
        "[1/4] ada: day-2-v2 (N s)",
        "[2/4] brian: none (N s)",
        "[3/4] chen: day-2-v2 (N s)",
        `[4/4] dana: not checked: run pnpm install in ${join(projects, "dana")} first (N s)`,
      ]);
      // brian's feedback names the first core scenario he fails, with its hint and page.
      expect(brian?.nextToFix?.id).toBe(brian?.failingCore[0]?.replace("day-2-v2/", ""));
      const feedback = readFileSync(join(out, "reports", "brian.md"), "utf8");
      expect(feedback).toContain(`day-2-v2, \`${brian?.nextToFix?.id}\``);
      expect(feedback).toContain("**Highest stage passed: none** (0 of 1 points).");
      expect(readFileSync(join(out, "points.csv"), "utf8")).toBe(
        [
          "learner,highest_stage_passed,points_awarded,points_available",
          "ada,day-2-v2,1,1",
          "brian,none,0,1",
          "chen,day-2-v2,1,1",
          "dana,not checked,0,1",
          "",
        ].join("\n"),
      );

      const table = readFileSync(join(out, "class.md"), "utf8").split("\n");
      const core = ada?.stages[0]?.core.total;
      expect(table).toContain(`| ada | day-2-v2 | 1/1 | ${core}/${core} | none |`);
      expect(table).toContain(`| chen | day-2-v2 | 1/1 | ${core}/${core} | none |`);
      const brianCore = brian?.stages[0]?.core;
      const failing = brian?.failingCore ?? [];
      const named = failing
        .slice(0, 3)
        .map((id) => `\`${id}\``)
        .join(", ");
      expect(table).toContain(
        `| brian | none | 0/1 | ${brianCore?.passed}/${brianCore?.total} | ${failing.length > 3 ? `${named} and ${failing.length - 3} more` : named} |`,
      );
      expect(table).toContain(
        `| dana | not checked | - | - | not checked: run pnpm install in ${join(projects, "dana")} first |`,
      );
    },
    CLASS_MS,
  );
});

test("settings: the grades go beside the class by default, never into this repository", () => {
  const settings = classSettings([".", "--stage", "day-1"], dir);
  expect(settings.out).toBe(`${dir}-grades`);
  expect(settings.stage).toBe("day-1");
  const error = (argv: string[], callerDir = dir) => {
    try {
      classSettings(argv, callerDir);
    } catch (caught) {
      if (caught instanceof UsageError) return caught.message;
      throw caught;
    }
    return "";
  };
  expect(error(["packages/day-1"], ROOT)).toBe(
    `the grades would go inside the course repository (${join(ROOT, "packages", "day-1-grades")}): pass --out`,
  );
  expect(error(["no-such-folder"])).toBe(
    `folder of projects not found: ${join(dir, "no-such-folder")}`,
  );
  expect(error([])).toMatch(/^give one folder of projects/);
  expect(error([".", "--stage", "day-9"])).toMatch(/^unknown stage: day-9/);
  expect(error([".", "--jobs", "0"])).toBe("--jobs must be a positive whole number: 0");
  expect(error([".", "--cmd", " "])).toBe(
    "--cmd is empty: give the command that starts every project",
  );
});

test("settings: --jobs, --cmd for every project, and grades kept unless --force", () => {
  expect(classSettings(["."], dir).jobs).toBe(availableParallelism());
  const settings = classSettings([".", "--jobs", "3", "--cmd", "uv run agent-code"], dir);
  expect(settings.jobs).toBe(3);
  expect(settings.checkArgs).toEqual(["--cmd", "uv run agent-code"]);
  const out = join(dir, "kept-grades");
  mkdirSync(out);
  writeFileSync(join(out, "class.json"), "{}\n");
  expect(() => classSettings([".", "--out", out], dir)).toThrow(
    new UsageError(`${out} already holds grades (class.json): pass --force to replace them`),
  );
  expect(classSettings([".", "--out", out, "--force"], dir).out).toBe(out);
});

// The instructors' walk-through (docs/instructors.md), every command of it run as written on a class
// of seven, TypeScript and Python, with no per-project flags: the headline and next thing to fix of
// each, the table, points and pages that match each project's own report, the two projects that
// reach nothing with their cause first, and each page's command run as the learner would run it;
// then the settings check:class takes.
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { runCli } from "@agent-code/test-kit";
import { afterAll, describe, expect, test } from "vitest";
import { classSettings } from "../check-class.ts";
import type { ClassReport } from "../lib/check-class.ts";
import type { CheckReport } from "../lib/check-run.ts";
import { ROOT, UsageError } from "../lib/command.ts";
import { writeClass } from "./class-fixtures.ts";
import { HAS_PYTHON, PYTHON } from "./python-project.ts";

const dir = mkdtempSync(join(tmpdir(), "check-class-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Seven projects, two stages each (Day 2 v1 and v2, smaller than day-2-v3): minutes on a busy
// machine.
const CLASS_MS = 600_000;
// The Python project's `python3` is found first in its interpreter's own folder, not through a
// version manager's shim that takes seconds a start (decision 0038).
const PATH =
  PYTHON !== undefined && isAbsolute(PYTHON)
    ? `${dirname(PYTHON)}${delimiter}${process.env.PATH ?? ""}`
    : process.env.PATH;

// The class (issues #44 and #57), graded on Day 2 v1 and v2 at one seed: what an instructor should
// read for each. ada has outgrown Day 2 v1's answer without tools; brian has one bug; chen writes
// Python; dana's sources do not parse; eve's echo answers the pages' `hi` whatever it is asked;
// fay's program throws before it prints a line; gus imports a file he never added.
const SEED = 2026;
const STAGES_GRADED = ["day-2-v1", "day-2-v2"];
const EXPECTED = {
  ada: { headline: "day-2-v2", next: null },
  brian: { headline: "day-2-v1", next: "day-2-v2/parallel-tool-calls" },
  chen: { headline: "day-2-v2", next: null },
  dana: { headline: null, next: "day-2-v1/src/cli.ts" },
  eve: { headline: "day-2-v1", next: "day-2-v2/parallel-tool-calls" },
  fay: { headline: null, next: "day-2-v1/start" },
  gus: { headline: null, next: "day-2-v1/src/cli.ts" },
};

// The walk-through of docs/instructors.md: its code blocks in page order, with their languages.
function walkThrough(): { lang: string; text: string }[] {
  const page = readFileSync(join(ROOT, "docs", "instructors.md"), "utf8");
  const from = page.indexOf("### Grading a class, step by step");
  const section = page.slice(from, page.indexOf("\n### ", from + 1));
  return [...section.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map((match) => ({
    lang: match[1] ?? "",
    text: match[2] ?? "",
  }));
}

// A shell script of the page, run as an instructor would run it: HOME is a folder that holds the
// class (~/class/projects) and this course (~/agent-code-course).
function shell(script: string, home: string, cwd: string, path = PATH) {
  return runCli(["bash", "--noprofile", "--norc", "-e", "-c", script], [], {
    cwd,
    env: { HOME: home, PATH: path, INIT_CWD: undefined, GITHUB_STEP_SUMMARY: undefined },
    timeoutMs: CLASS_MS,
  });
}

describe.skipIf(!HAS_PYTHON)(
  "the instructors' walk-through on a class of seven (needs python3)",
  () => {
    test(
      "every command of the page runs; each learner gets the headline and next step expected",
      async () => {
        const blocks = walkThrough();
        expect(blocks.map((block) => block.lang)).toEqual(["sh", "text", "sh"]);
        const [grade, printed, closer] = blocks;
        const home = join(dir, "home");
        const projects = join(home, "class", "projects");
        mkdirSync(projects, { recursive: true });
        writeClass(projects, { python: true });
        symlinkSync(ROOT, join(home, "agent-code-course"), "dir");

        // Step 2 installs each project that has a lock file, in the sandbox, then grades. An
        // install fetches from the network: ada's lock file meets a pnpm stand-in on PATH, which
        // notes in her folder (the one it may write) what it was asked, and passes every other
        // command on to pnpm. (Its folder holds nothing else: the sandbox lets it back read-only.)
        writeFileSync(join(projects, "ada", "pnpm-lock.yaml"), "lockfileVersion: '9.0'\n");
        const bin = join(dir, "stand-ins");
        mkdirSync(bin);
        const pnpm = execFileSync("sh", ["-c", "command -v pnpm"], { encoding: "utf8" }).trim();
        writeFileSync(
          join(bin, "pnpm"),
          `#!/bin/sh\nif [ "$1" = install ]; then echo "pnpm $* (in $PWD)" >> installs.log; exit 0; fi\nexec '${pnpm}' "$@"\n`,
        );
        chmodSync(join(bin, "pnpm"), 0o755);
        expect(grade?.text).toContain(
          `--install --stages ${STAGES_GRADED.join(",")} --seed ${SEED}`,
        );
        const run = await shell(grade?.text ?? "", home, home, `${bin}${delimiter}${PATH}`);
        const out = join(home, "class", "projects-grades");
        // ada's install ran in her folder, from her lock file, and its log is beside her report;
        // the others have no lock file, so nothing to install.
        expect(readFileSync(join(projects, "ada", "installs.log"), "utf8")).toBe(
          `pnpm install --frozen-lockfile (in ${join(projects, "ada")})\n`,
        );
        expect(readFileSync(join(out, "reports", "ada.install.log"), "utf8")).toBe(
          "$ pnpm install --frozen-lockfile  (exit 0)\n\n",
        );
        for (const learner of ["brian", "chen", "dana", "eve", "fay", "gus"]) {
          expect(existsSync(join(out, "reports", `${learner}.install.log`))).toBe(false);
        }
        // Every project was checked: dana's and gus's sources were judged (they do not build), and
        // fay's program was (it does not start).
        expect(run.exitCode).toBe(0);
        expect(run.stdoutLines).toEqual([
          ...(printed?.text ?? "").trimEnd().split("\n"),
          `class report: ${join(out, "class.md")} and class.json`,
        ]);
        const report: ClassReport = JSON.parse(readFileSync(join(out, "class.json"), "utf8"));
        expect(report.seed).toBe(SEED);
        expect(report.stages).toEqual(STAGES_GRADED);
        const seen = Object.fromEntries(
          report.learners.map((row) => [
            row.learner,
            {
              headline: row.highestStagePassed,
              next: row.nextToFix ? `${row.nextToFix.stage}/${row.nextToFix.id}` : null,
            },
          ]),
        );
        expect(seen).toEqual(EXPECTED);
        const [ada, brian, chen, dana, eve, fay, gus] = report.learners;
        // Every row is what that project's own report says, at the class's seed.
        for (const row of [ada, brian, chen, eve]) {
          const own: CheckReport = JSON.parse(
            readFileSync(join(out, "reports", `${row?.learner}.json`), "utf8"),
          );
          expect(own.seed).toBe(SEED);
          expect(row?.highestStagePassed).toBe(own.highestStagePassed);
          expect(row?.nextToFix).toEqual(own.nextToFix);
        }
        // ada's Day 2 v1 misses (v1 sends no tools) are outgrown, not failing.
        expect(ada?.failingCore).toEqual([]);
        expect(chen?.failingCore).toEqual([]);
        // brian and eve miss the same scenario for different reasons, and each is told which.
        expect(brian?.nextToFix?.message).toBe(
          "both tool_result blocks should sit in one user message right after the assistant turn",
        );
        expect(eve?.nextToFix?.message).toBe(
          "the echo's tool_result should hold the text the model gave it",
        );
        expect(dana?.error).toBeNull();
        expect(dana?.buildError).toMatch(/^src[/]agent\.ts:\d+:\d+: /);
        // gus's import of a file that is not there is a build failure too, quoting esbuild, and
        // fay's program never printed a line: the line of stderr that says why, not a frame.
        expect(gus?.buildError).toMatch(
          /^src[/]tools\.ts:\d+:\d+: Could not resolve "\.\/system-date\.ts"$/,
        );
        expect(fay?.startError).toBe(
          "Error: ENOENT: no such file or directory, open 'agent-code.settings.json'",
        );
        for (const row of [dana, fay, gus]) {
          expect(row?.points).toEqual({ awarded: 0, available: 2 });
          expect(row?.highestStagePassed).toBeNull();
        }
        const fayReport: CheckReport = JSON.parse(
          readFileSync(join(out, "reports", "fay.json"), "utf8"),
        );
        expect(fayReport.startError).toBe(fay?.startError);
        // A progress line as each starts and ends, on stderr; the table keeps the names' order.
        const progress = run.stderr.split("\n").filter((line) => line.startsWith("["));
        expect(progress.filter((line) => line.endsWith(": checking"))).toHaveLength(7);
        const ends = progress.filter((line) => !line.endsWith(": checking"));
        expect(ends.map((line) => line.replace(/\(\d+ s\)$/, "(N s)")).sort()).toEqual([
          "[1/7] ada: day-2-v2 (N s)",
          "[2/7] brian: day-2-v1 (N s)",
          "[3/7] chen: day-2-v2 (N s)",
          "[4/7] dana: does not build (N s)",
          "[5/7] eve: day-2-v1 (N s)",
          "[6/7] fay: does not start (N s)",
          "[7/7] gus: does not build (N s)",
        ]);
        // The feedback pages: each says where the learner stands, or why nothing was reached, on
        // its first line; brian's names his scenario and its page; ada's says what she outgrew.
        const feedback = (learner: string) =>
          readFileSync(join(out, "reports", `${learner}.md`), "utf8");
        const firstLine = (learner: string) => feedback(learner).split("\n")[0];
        expect(firstLine("brian")).toBe(
          "# agent-code check, brian: highest stage passed day-2-v1 (1 of 2 points)",
        );
        expect(firstLine("dana")).toBe(
          `# agent-code check, dana: does not build (0 of 2 points): ${dana?.buildError}`,
        );
        expect(firstLine("fay")).toBe(
          `# agent-code check, fay: does not start (0 of 2 points): ${fay?.startError}`,
        );
        expect(firstLine("gus")).toBe(
          `# agent-code check, gus: does not build (0 of 2 points): ${gus?.buildError}`,
        );
        expect(feedback("brian")).toContain("day-2-v2, `parallel-tool-calls`");
        expect(feedback("ada")).toMatch(
          /^\| day-2-v1 \| \d+ of (\d+) passed, 1 outgrown \| reached \|$/m,
        );
        expect(feedback("ada")).toContain(
          "Outgrown: a later stage changed the scenario, and your project does what that stage asks.",
        );
        expect(readFileSync(join(out, "points.csv"), "utf8")).toBe(
          [
            "learner,highest_stage_passed,points_awarded,points_available,note",
            "ada,day-2-v2,2,2,",
            "brian,day-2-v1,1,2,",
            "chen,day-2-v2,2,2,",
            `dana,does not build,0,2,"${dana?.buildError?.replaceAll('"', '""')}"`,
            "eve,day-2-v1,1,2,",
            `fay,does not start,0,2,"${fay?.startError}"`,
            `gus,does not build,0,2,"${gus?.buildError?.replaceAll('"', '""')}"`,
            "",
          ].join("\n"),
        );
        // A table that fits a screen: a line per learner, the cause where nothing was reached.
        const table = readFileSync(join(out, "class.md"), "utf8");
        expect(table).toContain(`seed ${SEED} for every`);
        for (const line of table.split("\n")) expect(line.length).toBeLessThanOrEqual(100);
        const row = (learner: string) =>
          table.split("\n").find((line) => line.startsWith(`| ${learner} |`));
        expect(row("ada")).toBe("| ada | day-2-v2 | 2/2 | none |");
        expect(row("eve")).toBe("| eve | day-2-v1 | 1/2 | `day-2-v2/parallel-tool-calls` |");
        expect(row("dana")).toBe(`| dana | does not build | 0/2 | ${dana?.buildError} |`);
        expect(row("fay")).toMatch(/^\| fay \| does not start \| 0\/2 \| Error: ENOENT: /);
        // Each learner's report is brief: what passed by id, each miss once.
        for (const row of report.learners) {
          const size = statSync(join(out, "reports", `${row.learner}.json`)).size;
          expect(size).toBeLessThan(200_000);
        }

        // The command each page gives, run in the learner's folder as the page says: it checks
        // the class's stages at the class's seed, and eve reads what her row reads.
        const replay = feedback("eve").match(/^```sh\n(.*)\n```$/m)?.[1] ?? "";
        expect(replay).toBe(
          `pnpm --dir ${ROOT} check --stages ${STAGES_GRADED.join(",")} --project . --seed ${SEED}`,
        );
        const again = await shell(replay, home, join(projects, "eve"));
        expect(again.exitCode, again.stderr).toBe(0);
        expect(again.stdoutLines[0]).toBe(`project: ${join(projects, "eve")}`);
        expect(again.stdoutLines).toContain(
          `seed: ${SEED} (--seed ${SEED} asks the same words and file names again)`,
        );
        expect(again.stdoutLines.at(-1)).toBe("highest stage passed: day-2-v1");

        // Step 3: eve at the class's seed fails, at the pages' seed passes.
        const [atClass, atPages] = (closer?.text ?? "").trimEnd().split("\n");
        const course = join(home, "agent-code-course");
        const failing = await shell(atClass ?? "", home, course);
        expect(failing.exitCode).toBe(1);
        expect(failing.stdout).toContain("FAIL  two tool_use blocks in one response");
        expect(failing.stdout).toContain(
          "      - the echo's tool_result should hold the text the model gave it",
        );
        expect(failing.stdoutLines[2]).toBe(
          `seed: ${SEED} (--seed ${SEED} asks the same words and file names again)`,
        );
        const passing = await shell(atPages ?? "", home, course);
        expect(passing.stdout).toContain("PASS  two tool_use blocks in one response");
        expect(passing.exitCode).toBe(0);
      },
      CLASS_MS,
    );
  },
);

test("settings: the grades go beside the class by default, never into this repository", () => {
  const settings = classSettings([".", "--stage", "day-1"], dir);
  expect(settings.out).toBe(`${dir}-grades`);
  expect(settings.stages).toEqual(["day-1"]);
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
  // The pages' own words are never what a class is graded on.
  expect(error([".", "--seed", "0"])).toBe(
    "--seed 0 asks the words the pages show, which a project can print without doing the work: grade at another seed (leave out --seed for a new one)",
  );
  expect(classSettings([".", "--seed", "7"], dir).seed).toBe(7);
});

test("settings: --jobs, --cmd for every project, and grades kept unless --force", () => {
  expect(classSettings(["."], dir).jobs).toBe(availableParallelism());
  const settings = classSettings([".", "--jobs", "3", "--cmd", "uv run agent-code"], dir);
  expect(settings.jobs).toBe(3);
  expect(settings.checkArgs).toEqual([
    "--seed",
    String(settings.seed),
    "--cmd",
    "uv run agent-code",
  ]);
  const out = join(dir, "kept-grades");
  mkdirSync(out);
  writeFileSync(join(out, "class.json"), "{}\n");
  expect(() => classSettings([".", "--out", out], dir)).toThrow(
    new UsageError(`${out} already holds grades (class.json): pass --force to replace them`),
  );
  expect(classSettings([".", "--out", out, "--force"], dir).out).toBe(out);
});

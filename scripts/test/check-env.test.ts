// What a learner's program sees of the grader's environment under `pnpm check`: an allowlist, the
// scenario's own variables, and what --pass-env names; never a token the grader happens to hold.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "@agent-code/test-kit";
import { afterAll, expect, test } from "vitest";
import { inheritFilter, passEnvOption } from "../lib/check-env.ts";
import { ROOT, UsageError } from "../lib/command.ts";

const SCRIPT = fileURLToPath(new URL("../check.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "check-env-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECRET = "ghp_grader-secret-5c2e";

// A "project" that writes the environment it was given to a file, then does what day-1's
// echo-round-trip asks, so the check has something to judge.
function dumpingProject(): { command: string; seen: () => Record<string, string> } {
  const out = join(dir, "env.json");
  const program = join(dir, "dump-env.mjs");
  writeFileSync(
    program,
    [
      'import { writeFileSync } from "node:fs";',
      `writeFileSync(${JSON.stringify(out)}, JSON.stringify(process.env));`,
      'process.stdout.write("model: mock\\n");',
    ].join("\n"),
  );
  return {
    command: `node ${program}`,
    seen: () => JSON.parse(readFileSync(out, "utf8")),
  };
}

test("a secret in the grader's environment never reaches the project; --pass-env lets one through", async () => {
  const project = dumpingProject();
  const run = await runCli(
    ["node", "--import", "tsx", SCRIPT],
    [
      "day-1",
      "--cmd",
      project.command,
      "--only",
      "echo-round-trip",
      "--pass-env",
      "COURSE_DATASET_DIR",
      // Its own folder, the one a sandboxed program may write.
      "--project",
      dir,
    ],
    {
      env: {
        INIT_CWD: ROOT,
        GITHUB_TOKEN: SECRET,
        NPM_TOKEN: SECRET,
        AWS_SECRET_ACCESS_KEY: SECRET,
        COURSE_DATASET_DIR: "/data/course",
        LC_ALL: "C.UTF-8",
      },
      timeoutMs: 30_000,
    },
  );
  expect(run.stderr).toBe("");
  const seen = project.seen();
  expect(Object.values(seen)).not.toContain(SECRET);
  expect(seen.GITHUB_TOKEN).toBeUndefined();
  // What a process needs to run is there, and so are the scenario's own variables.
  expect(seen.PATH).toBe(process.env.PATH);
  expect(seen.LC_ALL).toBe("C.UTF-8");
  expect(seen.TZ).toBe("UTC");
  expect(seen.ANTHROPIC_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(seen.COURSE_DATASET_DIR).toBe("/data/course");
  // Nothing else of the grader's: every name is allowlisted, passed, or the scenario's.
  // The runner sets the web tools' defaults itself (the fake web, the loopback opt-in, a canary
  // key) and the run's own empty home folder for agent-code's settings.
  const own =
    /^(ANTHROPIC_|OPENAI_|NO_PROXY$|no_proxy$|NO_COLOR$|TZ$|AGENT_CODE_ALLOW_LOCAL_FETCH$|AGENT_CODE_SEARCH_BASE_URL$|AGENT_CODE_HOME$|TAVILY_API_KEY$)/;
  const allowed = inheritFilter(["COURSE_DATASET_DIR"]);
  expect(Object.keys(seen).filter((name) => !allowed(name) && !own.test(name))).toEqual([]);
}, 30_000);

test("the allowlist: essentials and locale categories in, tokens and lookalikes out", () => {
  const allowed = inheritFilter(["MY_TOOL_HOME"]);
  for (const name of ["PATH", "HOME", "LANG", "LC_CTYPE", "TMPDIR", "TERM", "SystemRoot"]) {
    expect(allowed(name), name).toBe(true);
  }
  for (const name of ["GITHUB_TOKEN", "PATH_EXTRA", "HOMEBREW_GITHUB_API_TOKEN", "LC_", "CI"]) {
    expect(allowed(name), name).toBe(false);
  }
  expect(allowed("MY_TOOL_HOME")).toBe(true);
  expect(() => passEnvOption(["NOT A NAME"])).toThrow(UsageError);
  expect(passEnvOption(undefined)).toEqual([]);
});

// The forms the pages teach for running a stage in another directory, typed as a learner types
// them in a stage's folder: pnpm passes `--` on to the script, and takes a `-C` before it for its
// own --dir, so each stage must skip a leading `--`. What pnpm does with the forms is pnpm's, the
// same for every stage: it is shown once, through `pnpm start` of the newest stage. That each
// stage skips the `--` it is handed is shown on its bundle, the same code without pnpm and tsx
// around it (a `pnpm start` costs ten times a bundle's run; decision 0049).
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "@agent-code/test-kit";
import { afterAll, expect, test } from "vitest";
import { STAGES, stageDir } from "../lib/command.ts";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "pnpm-start-")));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// day-2-v1 and day-2-v2 have no mock provider: their run fails to reach a dead loopback port, which
// still shows the prompt was run rather than a REPL started. Day 1 has only the mock.
const NO_MOCK = new Set(["day-2-v1", "day-2-v2"]);

const FORMS = [
  ["--", "-C", dir],
  ["--cwd", dir],
];

// The newest main-line stage, the one the README's `pnpm agent-code` runs.
const NEWEST = STAGES.filter((stage) => /^day-\d+(-v\d+)?$/.test(stage)).at(-1) as string;

async function runsInDir(stage: string, command: string[], form: string[]): Promise<void> {
  const offline = !NO_MOCK.has(stage);
  const mock = stage === "day-1" || !offline ? [] : ["--provider", "mock"];
  const prompt = offline ? "echo hi using the echo tool" : "hi";
  // A `--` must come first; the other options may follow it or the form.
  const run = await runCli(command, [...form, ...mock, prompt], {
    cwd: stageDir(stage),
    // From Day 6 a run keeps its session under AGENT_CODE_HOME: the test's folder, not the tester's.
    env: {
      ANTHROPIC_AUTH_TOKEN: "test-key",
      ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
      AGENT_CODE_HOME: join(dir, ".agent-code-home"),
    },
    timeoutMs: 60_000,
  });
  const header = run.stdoutLines.indexOf("Agent Code");
  expect(run.stdoutLines[header + 1]).toBe(`cwd: ${dir}`);
  if (offline) {
    expect(run.exitCode).toBe(0);
    expect(run.stdoutLines).toContain("final: echo tool returned: hi");
  } else {
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/error: could not connect to http:\/\/127\.0\.0\.1:9/);
  }
}

test.each(FORMS.map((form) => [NEWEST, form.join(" ")] as const))(
  "%s: pnpm start %s hi runs the prompt in that directory",
  async (stage, form) => {
    await runsInDir(stage, ["pnpm", "start"], form.split(" "));
  },
  60_000,
);

test.each(STAGES.flatMap((stage) => FORMS.map((form) => [stage, form.join(" ")] as const)))(
  "%s: its bundle, handed %s hi as pnpm hands it on, runs the prompt in that directory",
  async (stage, form) => {
    await runsInDir(stage, ["node", "dist/agent-code.mjs"], form.split(" "));
  },
  30_000,
);

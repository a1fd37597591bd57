// The forms the pages teach for running a stage in another directory, typed as a learner types
// them in a stage's folder: pnpm passes `--` on to the script, and takes a `-C` before it for its
// own --dir, so each stage must skip a leading `--`.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "@agent-code/test-kit";
import { afterAll, expect, test } from "vitest";
import { STAGES, stageDir } from "../lib/command.ts";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "pnpm-start-")));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// day-2-v1 and day-2-v2 have no mock provider: their run fails to reach a dead loopback port, which
// still shows the prompt was run rather than a REPL started.
const MOCK = new Set(["day-2-v3", "day-2-challenges", "appendix-providers"]);

const FORMS = [
  ["--", "-C", dir],
  ["--cwd", dir],
];

test.each(STAGES.flatMap((stage) => FORMS.map((form) => [stage, form.join(" ")] as const)))(
  "%s: pnpm start %s hi runs the prompt in that directory",
  async (stage, form) => {
    const before = form.split(" ");
    const mock = MOCK.has(stage) ? ["--provider", "mock"] : [];
    const prompt = stage === "day-1" || MOCK.has(stage) ? "echo hi using the echo tool" : "hi";
    // A `--` must come first; the other options may follow it or the form.
    const args = ["start", ...before, ...mock, prompt];
    const run = await runCli(["pnpm"], args, {
      cwd: stageDir(stage),
      env: { ANTHROPIC_AUTH_TOKEN: "test-key", ANTHROPIC_BASE_URL: "http://127.0.0.1:9" },
      timeoutMs: 60_000,
    });
    const header = run.stdoutLines.indexOf("Agent Code");
    expect(run.stdoutLines[header + 1]).toBe(`cwd: ${dir}`);
    if (stage === "day-1" || MOCK.has(stage)) {
      expect(run.exitCode).toBe(0);
      expect(run.stdoutLines).toContain("final: echo tool returned: hi");
    } else {
      expect(run.exitCode).toBe(1);
      expect(run.stderr).toMatch(/error: could not connect to http:\/\/127\.0\.0\.1:9/);
    }
  },
  60_000,
);

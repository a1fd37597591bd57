// A learner's program cannot read what its ancestors hold: a project that reads every ancestor's
// `/proc/<pid>/environ` (and every other process's it can see) finds no canary of the grader's.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "@agent-code/test-kit";
import { afterAll, describe, expect, test } from "vitest";
import { chooseSandbox, SANDBOX_VARIABLE, sandboxCommand } from "../lib/check-sandbox.ts";
import { ROOT } from "../lib/command.ts";

const SCRIPT = fileURLToPath(new URL("../check.ts", import.meta.url));
const CANARY = "grader-canary-5b1e-never-readable";
const dir = mkdtempSync(join(tmpdir(), "check-sandbox-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Walks PPid up to 1, then every pid it can see, and prints each variable that holds the canary's
// name, as a learner's code trying its luck would; the last line says how many it read.
const SNOOP = `
import { readdirSync, readFileSync } from "node:fs";
const pids = [];
for (let pid = process.pid; pid > 0; ) {
  pids.push(pid);
  const status = readFileSync(\`/proc/\${pid}/status\`, "utf8");
  pid = Number(/^PPid:\\s+(\\d+)/m.exec(status)?.[1] ?? 0);
}
pids.push(...readdirSync("/proc").filter((name) => /^\\d+$/.test(name)).map(Number));
let read = 0;
for (const pid of new Set(pids)) {
  try {
    const environ = readFileSync(\`/proc/\${pid}/environ\`, "utf8");
    read++;
    for (const entry of environ.split("\\0")) {
      if (entry.startsWith("GRADER_CANARY=")) console.error(\`found in \${pid}: \${entry}\`);
    }
  } catch {}
}
console.error(\`read \${read} environ files\`);
process.exit(1);
`;

function check(project: string, sandbox: "on" | "off") {
  return runCli(
    ["node", "--import", "tsx", SCRIPT],
    [
      "day-1",
      "--only",
      "echo-round-trip",
      "--project",
      project,
      "--cmd",
      "node snoop.mjs",
      "--json",
    ],
    {
      env: {
        INIT_CWD: ROOT,
        GRADER_CANARY: CANARY,
        [SANDBOX_VARIABLE]: sandbox === "off" ? "off" : undefined,
      },
      timeoutMs: 60_000,
    },
  );
}

describe.skipIf(process.platform !== "linux" || chooseSandbox().prefix === undefined)(
  "the sandbox",
  () => {
    const project = join(dir, "snoop");

    test("a learner's program reads no ancestor's environment, and finds the canary without the sandbox", async () => {
      mkdirSync(project, { recursive: true });
      writeFileSync(join(project, "snoop.mjs"), SNOOP);

      const [sandboxed, open] = await Promise.all([check(project, "on"), check(project, "off")]);

      // Without the sandbox the snoop finds it: the test sees what it guards against.
      expect(open.stderr).toContain(`${SANDBOX_VARIABLE}=off`);
      expect(`${open.stdout}${open.stderr}`).toContain(`GRADER_CANARY=${CANARY}`);

      expect(sandboxed.stderr).toBe("");
      const report = JSON.parse(sandboxed.stdout);
      const [scenario] = report.stages[0].scenarios;
      // It ran, and read what it could: its own environment and PID 1's.
      expect(scenario.stderrTail.at(-1)).toMatch(/^read [1-9]\d* environ files$/);
      expect(`${sandboxed.stdout}${sandboxed.stderr}`).not.toContain(CANARY);
    }, 120_000);
  },
);

test("a program that cannot be found is left as it is, so the runner's error names it", () => {
  const command = ["no-such-agent-code-program", "--flag"];
  expect(sandboxCommand(command, dir, { note: () => {} })).toEqual(command);
});

test("AGENT_CODE_CHECK_SANDBOX=off, or another platform, runs without it and says what is open", () => {
  const off = chooseSandbox({ env: { [SANDBOX_VARIABLE]: "off" } });
  expect(off.prefix).toBeUndefined();
  expect(off.why).toMatch(/environment of `pnpm check` and of every process above it/);
  expect(chooseSandbox({ platform: "darwin" }).why).toContain("it needs Linux");
});

test("the Actions recipe checks out without leaving the job's token in .git/config", () => {
  const page = readFileSync(join(ROOT, "docs", "instructors.md"), "utf8");
  const start = page.indexOf("```yaml\n# .github/workflows/agent-code-check.yml\n");
  const recipe = page.slice(start, page.indexOf("\n```", start + 1));
  const checkouts = recipe
    .split(/\n(?= {6}- )/)
    .filter((step) => step.includes("actions/checkout"));
  expect(checkouts.length).toBe(2);
  for (const step of checkouts) expect(step).toMatch(/^ +persist-credentials: false\b/m);
});

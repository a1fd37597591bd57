// `agent-code memory mine <id>` through the real CLI (the bundle; `pnpm build` first): the mistakes
// a person can make, each one `error:` line and its exit code, with nothing sent and nothing
// written. The command's work is judged by the contract's challenge-memory-mine.
import { fileURLToPath } from "node:url";
import { type Observed, runScenario } from "@agent-code/test-kit";
import { expect, test } from "vitest";

const packageDir = fileURLToPath(new URL("..", import.meta.url));

async function observe(args: (work: string) => string[]): Promise<Observed> {
  let seen: Observed | undefined;
  await runScenario(
    {
      id: "memory-mine",
      title: "agent-code memory mine, called wrongly",
      level: "conformance",
      args: (c) => args(c.work),
      stdin: "y\ny\n",
      server: { steps: [{ content: [{ type: "text", text: "never" }] }] },
      judgements: [
        {
          message: "observed",
          docs: "docs/day-6-challenges.md",
          check: (o) => {
            seen = o;
            return true;
          },
        },
      ],
    },
    { command: ["node", "dist/agent-code.mjs"], cwd: packageDir, timeoutMs: 20_000 },
  );
  if (seen === undefined) throw new Error("the scenario did not run");
  return seen;
}

test.each([
  {
    args: (work: string) => ["memory", "mine", "../x", "-C", work],
    code: 2,
    error: 'error: memory mine: "../x" is not a session id (they look like 20261201-181502-3f9a1c)',
  },
  {
    args: (work: string) => ["memory", "mine", "001234", "-C", work],
    code: 2,
    error:
      'error: memory mine: "001234" is not a session id (they look like 20261201-181502-3f9a1c)',
  },
  {
    args: (work: string) => ["memory", "-C", work],
    code: 2,
    error: "error: memory takes a command: agent-code memory mine <session id>",
  },
  {
    args: (work: string) => ["memory", "forget", "-C", work],
    code: 2,
    error: "error: memory takes a command: agent-code memory mine <session id>",
  },
])("$error: exit $code, no request, nothing written", async ({ args, code, error }) => {
  const seen = await observe(args);
  expect(seen.exitCode).toBe(code);
  expect(seen.stderr).toBe(`${error}\n`);
  expect(seen.stdout).toBe("");
  expect(seen.requests).toEqual([]);
  expect(Object.keys(seen.files).filter((path) => path.startsWith("home/projects"))).toEqual([]);
});

test("a session that is not in the project: exit 1, no request, no memory folder", async () => {
  const seen = await observe((work) => ["memory", "mine", "20261201-181502-3f9a1c", "-C", work]);
  expect(seen.exitCode).toBe(1);
  expect(seen.stderr).toMatch(/^error: no session 20261201-181502-3f9a1c in \/.*\/work\n$/);
  expect(seen.requests).toEqual([]);
  expect(Object.keys(seen.files).filter((path) => path.includes("/memory/"))).toEqual([]);
});

test("a prompt that starts with the word is a prompt, not the command", async () => {
  const seen = await observe((work) => ["-C", work, "memory leaks in the parser"]);
  expect(seen.exitCode).toBe(0);
  expect(seen.requests).toHaveLength(1);
  expect(seen.stdout).toContain("final: never\n");
});

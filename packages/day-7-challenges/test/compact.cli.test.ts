// Compaction through the real CLI (the bundle; `pnpm build` first) against the fake server: a bad
// AGENT_CODE_COMPACT_AT stops the run before anything is sent or written, and a REPL that compacted
// on its first line sends the compacted view again on its second, with one compact record logged.
import { fileURLToPath } from "node:url";
import { type Observed, runScenario, type Scenario, type Step } from "@agent-code/test-kit";
import { expect, test } from "vitest";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const BUNDLE = ["node", "dist/agent-code.mjs"];

async function observe(
  scenario: Omit<Scenario, "id" | "title" | "level" | "judgements">,
): Promise<Observed> {
  let seen: Observed | undefined;
  const result = await runScenario(
    {
      id: "compact",
      title: "compaction",
      level: "conformance",
      judgements: [
        {
          message: "observed",
          docs: "docs/day-6-compact.md",
          check: (o) => {
            seen = o;
            return true;
          },
        },
      ],
      ...scenario,
    },
    { command: BUNDLE, cwd: packageDir, timeoutMs: 20_000 },
  );
  expect(result.serverText).toBeUndefined();
  if (seen === undefined) throw new Error("the scenario did not run");
  return seen;
}

const say = (text: string): Step => ({ content: [{ type: "text", text }] });
const homeFiles = (o: Observed) =>
  Object.entries(o.files).filter(([path]) => path.startsWith("home/"));

test.each(["1e5", "-1", "lots"])(
  "AGENT_CODE_COMPACT_AT=%s: the design's error, exit 1, no request, no session",
  async (value) => {
    const o = await observe({
      args: (c) => ["-C", c.work, "hello"],
      env: { AGENT_CODE_COMPACT_AT: value },
      server: { steps: [say("never")] },
    });
    expect(o.exitCode).toBe(1);
    expect(o.stderr).toBe(`error: AGENT_CODE_COMPACT_AT must be a whole number, got "${value}"\n`);
    expect(o.requests).toEqual([]);
    expect(homeFiles(o).filter(([path]) => path.endsWith(".jsonl"))).toEqual([]);
  },
);

test("a REPL compacts once, and its next line starts from the compacted view", async () => {
  const rounds: Step[] = Array.from({ length: 12 }, (_, index) => ({
    content: [
      { type: "tool_use", id: `toolu_${index + 1}`, name: "read_file", input: { path: "n.txt" } },
    ],
    usage: { input_tokens: index === 7 ? 150_000 : 500 },
  }));
  const o = await observe({
    args: (c) => ["-C", c.work, "--max-steps", "30"],
    stdin: "Read n.txt twelve times.\nAnd now?\n",
    env: { AGENT_CODE_COMPACT_AT: "4000" },
    files: () => ({ "work/n.txt": `${"A line about the small room. ".repeat(20)}\n` }),
    server: { steps: [...rounds, say("Done."), say("Nothing more.")] },
  });
  expect(o.exitCode).toBe(0);
  expect(o.stdoutLines.filter((line) => line.startsWith("compacted: "))).toHaveLength(1);
  expect(o.requests).toHaveLength(14);
  const messages = (index: number) => o.requests[index]?.body?.messages as unknown[];
  // Request 9 (after round 8's usage) is the compacted one, shorter than request 8.
  expect(JSON.stringify(messages(8)).length).toBeLessThan(JSON.stringify(messages(7)).length);
  expect(o.requests.every((request) => request.verdict.accepted)).toBe(true);
  // Line 2 sends line 1's last request, its answer, then the new line.
  const last = messages(12);
  const next = messages(13);
  expect(next.slice(0, last.length)).toEqual(last);
  expect(next.slice(last.length)).toEqual([
    { role: "assistant", content: [{ type: "text", text: "Done." }] },
    { role: "user", content: "And now?" },
  ]);
  const log = homeFiles(o).find(([path]) => path.endsWith(".jsonl"));
  const written = String(log?.[1])
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
  const compacts = written.filter((record) => record.type === "compact");
  expect(compacts).toHaveLength(1);
  // Every message is still in the file: the prompt, 12 rounds, the answer, line 2 and its answer.
  expect(written.filter((record) => record.type === "message")).toHaveLength(1 + 24 + 1 + 2);
  expect(compacts[0].summary).toContain("<current-task>Read n.txt twelve times.</current-task>");
});

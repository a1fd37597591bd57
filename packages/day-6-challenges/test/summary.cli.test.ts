// The model-written summary's switch through the real CLI (the bundle; `pnpm build` first): a bad
// AGENT_CODE_COMPACT_MODEL stops the run before anything is sent or written, as a bad
// AGENT_CODE_COMPACT_AT does. The summary itself is judged by the contract's challenge scenarios.
import { fileURLToPath } from "node:url";
import { type Observed, runScenario } from "@agent-code/test-kit";
import { expect, test } from "vitest";

const packageDir = fileURLToPath(new URL("..", import.meta.url));

test.each(["yes", "2", "true"])(
  "AGENT_CODE_COMPACT_MODEL=%s: one error line, exit 1, no request, no session",
  async (value) => {
    let seen: Observed | undefined;
    await runScenario(
      {
        id: "compact-model",
        title: "a bad AGENT_CODE_COMPACT_MODEL",
        level: "conformance",
        args: (c) => ["-C", c.work, "hello"],
        env: { AGENT_CODE_COMPACT_MODEL: value },
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
    expect(seen.exitCode).toBe(1);
    expect(seen.stderr).toBe(`error: AGENT_CODE_COMPACT_MODEL must be 1 or 0, got "${value}"\n`);
    expect(seen.requests).toEqual([]);
    expect(Object.keys(seen.files).filter((path) => path.endsWith(".jsonl"))).toEqual([]);
  },
);

// `agent-code sessions` and `--fork` through the real CLI (the bundle; `pnpm build` first) against
// the fake server, in a home folder of the scenario's own: the first word dispatches, a prompt that
// begins with it is a prompt, no subcommand sends a request or prints the header, and usage errors
// are exit 2.
import { fileURLToPath } from "node:url";
import { type Observed, runScenario, type Scenario, type Step } from "@agent-code/test-kit";
import { expect, test } from "vitest";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const BUNDLE = ["node", "dist/agent-code.mjs"];
const USAGE =
  "usage: agent-code sessions [list | show <id> | check [<id> | --all] | repair <id> | export <id> [--format md|json] | rm <id> [--yes]] [-C <dir>]";

async function observe(
  scenario: Omit<Scenario, "id" | "title" | "level" | "judgements">,
): Promise<Observed> {
  let seen: Observed | undefined;
  await runScenario(
    {
      id: "sessions",
      title: "the sessions command",
      level: "conformance",
      judgements: [
        {
          message: "observed",
          docs: "docs/day-6-sessions.md",
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
  if (seen === undefined) throw new Error("the scenario did not run");
  return seen;
}

const say = (text: string): Step => ({ content: [{ type: "text", text }] });
const lines = (text: string | undefined) => (text ?? "").split("\n").filter((l) => l !== "");

test("`sessions` as the first word lists without a request or a header; a prompt that starts with it is a prompt", async () => {
  const o = await observe({
    args: (c) => ["-C", c.work, "Remember teal."],
    server: { steps: [say("Noted."), say("They are.")] },
    runs: [
      { args: (c) => ["sessions", "-C", c.work] },
      { args: (c) => ["-C", c.work, "sessions are slow"] },
      { args: (c) => ["sessions", "list", "-C", c.work] },
      { args: (c) => ["sessions", "prune", "-C", c.work] },
      { args: (c) => ["sessions", "show", "../x", "-C", c.work] },
      { args: (c) => ["-C", c.work, "--fork", "go on"] },
      { args: (c) => ["-C", c.work, "--no-session", "--fork", "go on"] },
    ],
  });
  const [first, list, prompt, listed, unknown, badId, fork, noSession] = o.runs;
  expect(o.requests).toHaveLength(2);
  expect(list?.exitCode).toBe(0);
  expect(list?.stdout).not.toContain("Agent Code");
  expect(lines(list?.stdout)).toEqual([
    expect.stringMatching(
      /^\d{8}-\d{6}-[0-9a-f]{6} {2}\S+ \S+ {2}2 messages {2}"Remember teal\."$/,
    ),
  ]);
  expect(first?.endRequest).toBe(1);
  expect(prompt?.stdout).toContain("Agent Code");
  expect(JSON.stringify(o.requests[1]?.body)).toContain("sessions are slow");
  expect(lines(listed?.stdout)[0]).toContain('"sessions are slow"');
  expect(unknown?.exitCode).toBe(2);
  expect(lines(unknown?.stderr)).toEqual(["error: unknown sessions command: prune", USAGE]);
  expect(badId?.exitCode).toBe(2);
  expect(lines(badId?.stderr)[0]).toBe(
    'error: sessions show: "../x" is not a session id (they look like 20261201-181502-3f9a1c)',
  );
  for (const alone of [fork, noSession]) {
    expect(alone?.exitCode).toBe(2);
    expect(lines(alone?.stderr)).toEqual([
      "error: --fork needs -c or --resume <id>: the session to start from",
    ]);
  }
});

test("-c --fork starts a new session from the latest one's view; its header names the parent", async () => {
  const o = await observe({
    args: (c) => ["-C", c.work, "Remember teal."],
    server: { steps: [say("Noted."), say("Teal, from the fork.")] },
    runs: [{ args: (c) => ["-C", c.work, "-c", "--fork", "Which colour?"] }],
  });
  const parent = /^session: (\S+)$/m.exec(o.runs[0]?.stdout ?? "")?.[1];
  const forkLine = lines(o.runs[1]?.stdout).find((line) => line.startsWith("session: "));
  expect(forkLine).toMatch(
    new RegExp(`^session: \\d{8}-\\d{6}-[0-9a-f]{6} \\(forked from ${parent}, 2 messages\\)$`),
  );
  const fork = forkLine?.split(" ")[1];
  expect(fork).not.toBe(parent);
  // The second request carries run 1's prompt and answer, then the new prompt.
  const sent = JSON.stringify(o.requests[1]?.body);
  expect(sent).toContain("Remember teal.");
  expect(sent).toContain("Which colour?");
  expect(o.requests[1]?.verdict.accepted).toBe(true);
  const logs = Object.entries(o.files).filter(([path]) => path.endsWith(".jsonl"));
  const header = (id: string | undefined) =>
    JSON.parse(
      String(logs.find(([path]) => path.endsWith(`${id}.jsonl`))?.[1]).split("\n")[0] ?? "",
    );
  expect(header(fork)).toMatchObject({ parent: { id: parent, seq: 2 } });
  // The parent is as run 1 left it: two messages, no fork's prompt.
  const parentText = String(logs.find(([path]) => path.endsWith(`${parent}.jsonl`))?.[1]);
  expect(parentText.trimEnd().split("\n")).toHaveLength(3);
});

// A scenario whose command runs several times in one folder and home, against one server script
// (Day 6's sessions need it): each later run sees what the runs before it left and printed, the
// server's requests number on across runs, `between` changes a file before a run, and each run's
// output is kept apart.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { declaredWaitMs } from "../src/budget.ts";
import { type Observed, runKey, runScenario, type Scenario } from "../src/contract.ts";
import { judge, newestLog, sameBody } from "../src/judgements.ts";

const dir = mkdtempSync(join(tmpdir(), "scenario-runs-"));

// A CLI that keeps a count in its folder (its first argument), sends one request with the rest of
// its arguments and its stdin, and prints the count, the folder's note, and the model's answer. It
// logs each run's prompt to a private file under AGENT_CODE_HOME, as a session log would be.
const cli = join(dir, "runs-cli.mjs");
writeFileSync(
  cli,
  `
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
const [work, ...words] = process.argv.slice(2);
const countFile = join(work, "count.txt");
const count = existsSync(countFile) ? Number(readFileSync(countFile, "utf8")) + 1 : 1;
writeFileSync(countFile, String(count));
// Read as a stream: readFileSync(0) on a pipe Node has made non-blocking can fail with EAGAIN.
let stdin = "";
if (!process.stdin.isTTY) for await (const chunk of process.stdin) stdin += chunk;
stdin = stdin.trim();
const response = await fetch(process.env.ANTHROPIC_BASE_URL + "/v1/messages", {
  method: "POST",
  headers: {
    "content-type": "application/json",
    "x-api-key": process.env.ANTHROPIC_AUTH_TOKEN,
    "anthropic-version": "2023-06-01",
  },
  body: JSON.stringify({
    model: "deepseek-chat",
    max_tokens: 100,
    messages: [{ role: "user", content: [...words, stdin].filter(Boolean).join(" ") }],
  }),
});
const body = await response.json();
const note = existsSync(join(work, "note.txt")) ? readFileSync(join(work, "note.txt"), "utf8") : "none";
console.log("session: s" + count);
console.log("note: " + note);
console.log("final: " + body.content[0].text);
if (process.env.RUN_SECRET) console.error("oops " + process.env.RUN_SECRET);
const logs = join(process.env.AGENT_CODE_HOME, "projects", "p", "sessions");
mkdirSync(logs, { recursive: true, mode: 0o700 });
const log = { prompt: words.join(" "), stored: process.env.STORED_SECRET ?? "" };
writeFileSync(join(logs, "2026120" + count + "-000000-abcdef.jsonl"), JSON.stringify(log) + "\\n", { mode: 0o600 });
if (words.includes("wait")) await new Promise((resolve) => setTimeout(resolve, 30000));
`,
);

// A server step that answers with one line of text.
function answer(words: string) {
  return { content: [{ type: "text" as const, text: words }] };
}

function capture(scenario: Omit<Scenario, "judgements" | "id" | "title" | "level">) {
  let seen: Observed | undefined;
  const full: Scenario = {
    id: "runs",
    title: "runs",
    level: "core",
    ...scenario,
    judgements: [
      judge("", "captures what it saw", (observed) => {
        seen = observed;
        return true;
      }),
    ],
  };
  return { scenario: full, observed: () => seen };
}

test("later runs share the folder and the script; their arguments read the runs before", async () => {
  const { scenario, observed } = capture({
    args: (context) => [context.work, "first"],
    server: { steps: [answer("one"), answer("two"), answer("three")] },
    runs: [
      {
        args: (context, before) => [
          context.work,
          "resume",
          /^session: (\S+)$/m.exec(before[0]?.stdout ?? "")?.[1] ?? "?",
        ],
      },
      { args: (context) => [context.work, "third"], stdin: "typed" },
    ],
    between: (context, index) => writeFileSync(join(context.work, "note.txt"), `before ${index}`),
  });
  const result = await runScenario(scenario, { command: ["node", cli] });
  expect(result.failures).toEqual([]);
  const seen = observed();
  expect(seen?.runs.map((run) => run.stdoutLines)).toEqual([
    ["session: s1", "note: none", "final: one"],
    ["session: s2", "note: before 1", "final: two"],
    ["session: s3", "note: before 2", "final: three"],
  ]);
  // Each run keeps its own command line, and the result lists the runs (the docs' replays show
  // them all).
  expect(seen?.runs.map((run) => run.command.slice(2).at(-1))).toEqual(["first", "s1", "third"]);
  expect(result.runs?.map((run) => run.stdoutLines[0])).toEqual([
    "session: s1",
    "session: s2",
    "session: s3",
  ]);
  // Request numbers go on across runs, and each run knows its own.
  expect(seen?.runs.map((run) => [run.firstRequest, run.endRequest])).toEqual([
    [0, 1],
    [1, 2],
    [2, 3],
  ]);
  expect(seen?.requests.map((request) => request.body.messages[0].content)).toEqual([
    "first",
    "resume s1",
    "third typed",
  ]);
  // The fields of one run are the last run's; the folder is as the last run left it.
  expect(seen?.stdoutLines).toEqual(["session: s3", "note: before 2", "final: three"]);
  expect(seen?.exitCode).toBe(0);
  expect(seen?.files["work/count.txt"]).toBe("3");
}, 30_000);

test("a secret only an earlier run printed still fails the scenario", async () => {
  const { scenario } = capture({
    args: (context) => [context.work, "first"],
    server: { steps: [answer("one"), answer("two")] },
    env: { RUN_SECRET: "canary-run-secret-1f2e" },
    runs: [{ args: (context) => [context.work, "second"], env: { RUN_SECRET: "" } }],
    secrets: ["canary-run-secret-1f2e"],
  });
  const result = await runScenario(scenario, { command: ["node", cli] });
  expect(result.passed).toBe(false);
  expect(result.failures.map((failure) => failure.message)).toEqual([
    "the value of a secret variable reached the output or a request: RUN_SECRET (in stderr)",
  ]);
}, 30_000);

test("a later run's Ctrl-C counts its requests from that run's start", async () => {
  const { scenario, observed } = capture({
    args: (context) => [context.work, "first"],
    server: { steps: [answer("one"), answer("two")] },
    // Were the first run's request counted, the Ctrl-C would come before the second run asked.
    runs: [{ args: (context) => [context.work, "wait"], interrupt: { afterRequests: 1 } }],
  });
  const result = await runScenario(scenario, { command: ["node", cli] });
  expect(result.failures).toEqual([]);
  const [, second] = observed()?.runs ?? [];
  expect([second?.firstRequest, second?.endRequest]).toEqual([1, 2]);
  expect(second?.exitCode === 130 || second?.signal === "SIGINT").toBe(true);
}, 30_000);

test("runs and between are inputs of the run: a scenario without them never shares its run", () => {
  const base: Scenario = { id: "a", title: "a", level: "core", args: ["x"], judgements: [] };
  const runs = [{ args: ["y"] }];
  expect(runKey({ ...base, runs })).not.toBe(runKey(base));
  expect(runKey({ ...base, runs })).toBe(runKey({ ...base, runs }));
  expect(runKey({ ...base, between: () => {} })).not.toBe(runKey(base));
});

test("each run settles, and each run's Ctrl-C waits its own delay", () => {
  const base: Scenario = { id: "a", title: "a", level: "core", args: ["x"], judgements: [] };
  expect(declaredWaitMs({ ...base, settleMs: 100 })).toBe(100);
  expect(
    declaredWaitMs({
      ...base,
      settleMs: 100,
      interrupt: { afterMs: 50 },
      runs: [{ args: ["y"], interrupt: { afterRequests: 1, afterMs: 30 } }, { args: ["z"] }],
    }),
  ).toBe(100 * 3 + 50 + 30);
});

test("what a run keeps under home: modes read back, the newest log found, a stored secret caught", async () => {
  const { scenario, observed } = capture({
    args: (context) => [context.work, "same"],
    server: { steps: [answer("one"), answer("two")] },
    env: { STORED_SECRET: "canary-stored-secret-3c4d" },
    runs: [{ args: (context) => [context.work, "same"] }],
    secrets: ["canary-stored-secret-3c4d"],
  });
  const result = await runScenario(scenario, { command: ["node", cli] });
  // Only the file under home holds it: no output, no request.
  expect(result.failures.map((failure) => failure.message)).toEqual([
    "the value of a secret variable reached the output or a request: STORED_SECRET (in home/projects/p/sessions/20261201-000000-abcdef.jsonl, home/projects/p/sessions/20261202-000000-abcdef.jsonl)",
  ]);
  const seen = observed();
  expect(newestLog(seen as Observed)?.path).toBe(
    "home/projects/p/sessions/20261202-000000-abcdef.jsonl",
  );
  if (process.platform !== "win32") {
    expect(seen?.modes["home/projects/p/sessions"]).toBe(0o700);
    expect(seen?.modes["home/projects/p/sessions/20261202-000000-abcdef.jsonl"]).toBe(0o600);
  }
  // The two runs sent the same prompt: the same body; a different one is not.
  const [first, second] = seen?.requests ?? [];
  expect(sameBody(first, second)).toBe(true);
  expect(sameBody(first, { ...second, body: { ...second?.body, max_tokens: 99 } } as never)).toBe(
    false,
  );
  expect(sameBody(first, undefined)).toBe(false);
}, 30_000);

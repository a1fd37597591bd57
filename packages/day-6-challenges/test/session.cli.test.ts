// The session log through the real CLI (the bundle; `pnpm build` first) against the fake server:
// a Ctrl-C during a tool, a REPL and a resumed run sending the same bytes, a lock, a symlinked
// folder, a secret, and the usage errors that leave nothing behind.
import { hostname } from "node:os";
import { fileURLToPath } from "node:url";
import {
  makeSessionLog,
  type Observed,
  plantLock,
  projectKey,
  runScenario,
  type Scenario,
  type Step,
} from "@agent-code/test-kit";
import { expect, test, vi } from "vitest";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
// Each test starts the CLI once to three times: on a busy machine that takes longer than Vitest's
// 5 s default, and what is judged is what the runs did, never how long they took.
vi.setConfig({ testTimeout: 30_000 });
const BUNDLE = ["node", "dist/agent-code.mjs"];
const ID = "20261201-181502-3f9a1c";
const CANARY = "canary-5f0c2e91d7";

// Runs a scenario (its judgements are all `true`) and hands back what it observed.
async function observe(
  scenario: Omit<Scenario, "id" | "title" | "level" | "judgements">,
): Promise<Observed> {
  let seen: Observed | undefined;
  const result = await runScenario(
    {
      id: "session",
      title: "the session log",
      level: "conformance",
      judgements: [
        {
          message: "observed",
          docs: "docs/day-6.md",
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
const records = (text: string) =>
  text
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
const homeFiles = (o: Observed) =>
  Object.entries(o.files).filter(([path]) => path.startsWith("home/"));

test("a Ctrl-C during a tool writes the assistant turn and one repair, and -c is then accepted", async () => {
  const o = await observe({
    args: (c) => ["--permission-mode", "bypassPermissions", "-C", c.work, "wait for it"],
    server: {
      steps: [
        {
          content: [
            { type: "tool_use", name: "bash", input: { command: "touch started; sleep 30" } },
          ],
        },
        say("it was stopped"),
      ],
    },
    interrupt: { afterFile: "work/started", afterMs: 200 },
    runs: [{ args: (c) => ["-C", c.work, "-c", "go on"] }],
  });
  expect(o.runs.map((run) => run.exitCode)).toEqual([130, 0]);
  // Written by the Ctrl-C itself: opening the log found nothing left to repair.
  expect(o.runs[1]?.stderr).toBe("");
  expect(o.runs[1]?.stdoutLines).toContain(
    `session: ${/session: (\S+)/.exec(o.runs[0]?.stdout ?? "")?.[1]} (resumed, 3 messages)`,
  );
  const sent = o.requests[1]?.body.messages;
  expect(sent.map((message: { role: string }) => message.role)).toEqual([
    "user",
    "assistant",
    "user",
  ]);
  expect(sent[2].content).toEqual([
    {
      type: "tool_result",
      tool_use_id: sent[1].content[0].id,
      content:
        "not run: agent-code stopped before this call finished (interrupted); check what it did before you repeat it",
      is_error: true,
    },
    { type: "text", text: "go on" },
  ]);
  const log = homeFiles(o).find(([path]) => path.endsWith(".jsonl"));
  const written = records(String(log?.[1]));
  expect(written.filter((record) => record.repair !== undefined)).toHaveLength(1);
  expect(written.map((record) => record.message?.role ?? record.type)).toEqual([
    "session",
    "user",
    "assistant",
    "user",
    "user",
    "assistant",
  ]);
});

test("a resumed session sends the same bytes a REPL sent for its second prompt", async () => {
  const steps = [say("one"), say("two")];
  const repl = await observe({
    args: (c) => ["-C", c.work],
    stdin: "first prompt\nsecond prompt\n",
    server: { steps },
  });
  const resumed = await observe({
    args: (c) => ["-C", c.work, "first prompt"],
    server: { steps },
    runs: [{ args: (c) => ["-C", c.work, "-c", "second prompt"] }],
  });
  expect(repl.requests).toHaveLength(2);
  expect(resumed.requests).toHaveLength(2);
  expect(resumed.requests[1]?.body.messages).toHaveLength(3);
  expect(JSON.stringify(resumed.requests[1]?.body)).toBe(JSON.stringify(repl.requests[1]?.body));
});

test("a run without flags starts a new session: one message sent, files 0600, folders 0700", async () => {
  const o = await observe({
    args: (c) => ["-C", c.work, "first"],
    server: { steps: [say("one"), say("two")] },
    runs: [{ args: (c) => ["-C", c.work, "second"] }],
  });
  expect(o.requests[1]?.body.messages).toEqual([{ role: "user", content: "second" }]);
  const ids = o.runs.map((run) => /^session: (\S+)$/m.exec(run.stdout)?.[1]);
  expect(ids[0]).toMatch(/^\d{8}-\d{6}-[0-9a-f]{6}$/);
  expect(ids[1]).not.toBe(ids[0]);
  expect(o.files["work/.agent/sessions"]).toBeUndefined();
  const key = projectKey(o.context.work);
  if (process.platform !== "win32") {
    for (const folder of ["projects", `projects/${key}`, `projects/${key}/sessions`]) {
      expect(o.modes[`home/${folder}`]).toBe(0o700);
    }
    expect(o.modes[`home/projects/${key}/sessions/${ids[0]}.jsonl`]).toBe(0o600);
  }
  // No lock is left behind.
  expect(homeFiles(o).map(([path]) => path.endsWith(".lock"))).not.toContain(true);
});

test("a session open in a live agent-code is refused before any request", async () => {
  const o = await observe({
    args: (c) => ["-C", c.work, "--resume", ID, "go on"],
    homeFiles: (c) => {
      const folder = `projects/${projectKey(c.work)}/sessions`;
      return {
        [`${folder}/${ID}.jsonl`]: makeSessionLog({
          id: ID,
          cwd: c.work,
          messages: [{ role: "user", content: "one" }],
        }),
        [`${folder}/${ID}.lock`]: plantLock(
          process.pid,
          hostname(),
          new Date("2026-12-01T18:15:02.123Z"),
        ),
      };
    },
    server: { steps: [say("never")] },
  });
  expect(o.exitCode).toBe(1);
  expect(o.stderr).toBe(
    `error: session ${ID} is open in another agent-code (pid ${process.pid}, since 18:15:02); wait for it to end, or start a new session\n`,
  );
  expect(o.requests).toEqual([]);
});

test.runIf(process.platform !== "win32")(
  "a symlinked sessions folder stops the run, and nothing is written where it points",
  async () => {
    const o = await observe({
      args: (c) => ["-C", c.work, "hello"],
      homeFiles: (c) => ({
        [`projects/${projectKey(c.work)}/elsewhere/.keep`]: "",
        [`projects/${projectKey(c.work)}/sessions`]: { symlink: "elsewhere" },
      }),
      server: { steps: [say("never")] },
    });
    const folder = `${o.context.home}/projects/${projectKey(o.context.work)}`;
    expect(o.exitCode).toBe(1);
    expect(o.stderr).toBe(
      `error: ${folder}/sessions is a symlink; agent-code keeps sessions only in real folders\n`,
    );
    expect(o.requests).toEqual([]);
    expect(homeFiles(o).map(([path]) => path)).toEqual([
      `home/projects/${projectKey(o.context.work)}/elsewhere/.keep`,
      `home/projects/${projectKey(o.context.work)}/sessions`,
    ]);
  },
);

test("a credential's value read from a file reaches no request, no output and no session file", async () => {
  const o = await observe({
    args: (c) => ["-C", c.work, "read config.txt"],
    env: { ACME_TOKEN: CANARY },
    files: () => ({ "work/config.txt": `token=${CANARY}\n` }),
    secrets: [CANARY],
    server: {
      steps: [
        { content: [{ type: "tool_use", name: "read_file", input: { path: "config.txt" } }] },
        say("done"),
      ],
    },
  });
  expect(o.exitCode).toBe(0);
  expect(o.stdoutLines).toContain("observation: token=[redacted:ACME_TOKEN]");
  expect(JSON.stringify(o.requests[1]?.body)).toContain("token=[redacted:ACME_TOKEN]");
  const files = homeFiles(o);
  expect(files.length).toBeGreaterThan(0);
  expect(files.filter(([, text]) => JSON.stringify(text).includes(CANARY))).toEqual([]);
});

test.each([
  [["-c", "--resume", ID], "error: --continue and --resume cannot be used together"],
  [
    ["--resume", "../x"],
    'error: --resume: "../x" is not a session id (they look like 20261201-181502-3f9a1c)',
  ],
  [
    ["--resume", `${ID}/..`],
    `error: --resume: "${ID}/.." is not a session id (they look like 20261201-181502-3f9a1c)`,
  ],
  [["--no-session", "-c"], "error: --no-session and --continue cannot be used together"],
])(
  "%j is a usage error: exit 2, no request, nothing under the home folder",
  async (flags, line) => {
    const o = await observe({
      args: (c) => ["-C", c.work, ...flags, "hello"],
      server: { steps: [say("never")] },
    });
    expect(o.exitCode).toBe(2);
    expect(o.stderr).toBe(`${line}\n`);
    expect(o.requests).toEqual([]);
    expect(homeFiles(o)).toEqual([]);
  },
);

test("-c with no session, and an unknown id, end with exit 1 before any request", async () => {
  const none = await observe({
    args: (c) => ["-C", c.work, "-c", "hello"],
    server: { steps: [say("never")] },
  });
  expect(none.stderr).toBe(`error: no session to continue in ${none.context.work}\n`);
  const unknown = await observe({
    args: (c) => ["-C", c.work, "--resume", ID, "hello"],
    server: { steps: [say("never")] },
  });
  expect(unknown.stderr).toBe(`error: no session ${ID}\n`);
  // Six digits are an id's end as typed, not the number 1234.
  const digits = await observe({
    args: (c) => ["-C", c.work, "--resume", "001234", "hello"],
    server: { steps: [say("never")] },
  });
  expect(digits.stderr).toBe("error: no session 001234\n");
  for (const o of [none, unknown, digits]) {
    expect(o.exitCode).toBe(1);
    expect(o.requests).toEqual([]);
    expect(homeFiles(o)).toEqual([]);
  }
});

test("--no-session writes nothing and says so in the header", async () => {
  const o = await observe({
    args: (c) => ["-C", c.work, "--no-session", "hello"],
    server: { steps: [say("hi")] },
  });
  expect(o.exitCode).toBe(0);
  expect(o.stdoutLines).toContain("session: none");
  expect(homeFiles(o)).toEqual([]);
});

test("a REPL line may edit what an earlier line read; a resumed session has read nothing yet", async () => {
  const edit = (to: string): Step => ({
    content: [
      {
        type: "tool_use",
        name: "file_edit",
        input: { file_path: "a.txt", old_string: "one", new_string: to },
      },
    ],
  });
  const o = await observe({
    args: (c) => ["-C", c.work, "--permission-mode", "acceptEdits"],
    stdin: "read a.txt\nchange it\n",
    files: () => ({ "work/a.txt": "one\n" }),
    server: {
      steps: [
        { content: [{ type: "tool_use", name: "read_file", input: { path: "a.txt" } }] },
        say("read"),
        edit("two"),
        say("changed"),
        edit("three"),
        say("refused"),
      ],
    },
    runs: [{ args: (c) => ["-C", c.work, "--permission-mode", "acceptEdits", "-c", "again"] }],
  });
  expect(o.runs.map((run) => run.exitCode)).toEqual([0, 0]);
  expect(o.runs[0]?.stdoutLines).toContain("observation: Edited a.txt: 1 replacement");
  expect(o.runs[1]?.stdoutLines).toContain(
    "observation: file has not been read yet: a.txt (read it with read_file first)",
  );
  expect(o.files["work/a.txt"]).toBe("two\n");
});

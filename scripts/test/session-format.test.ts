// The published session format (docs/session-format.md and its JSON Schema, issue #59) against the
// logs that exist: every record the day-6-v1 bundle writes, against the mock provider and against
// the fake server (a tool round, then a max_tokens turn holding a call, so a repair is written),
// and every record test-kit's makeSessionLog plants, validate against the schema with their chain
// intact; records broken one way each do not, so the schema can fail.
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  chainHash,
  makeSessionLog,
  projectKey,
  runCli,
  SESSION_ID,
  startFakeServer,
} from "@agent-code/test-kit";
import { expect, onTestFinished, test } from "vitest";
import { ROOT, stageDir } from "../lib/command.ts";
import { type Schema, schemaErrors } from "./json-schema.ts";

const SCHEMA = JSON.parse(
  readFileSync(join(ROOT, "docs", "session-format.schema.json"), "utf8"),
) as Schema;
const BUNDLE = ["node", join(stageDir("day-6-v1"), "dist", "agent-code.mjs")];
const ID = "20261201-181502-3f9a1c";
const REPAIR_TEXT =
  "not run: agent-code stopped before this call finished (max_tokens); check what it did before you repeat it";

// A home folder and a project folder of the test's own, gone when it ends.
function folders(): { home: string; work: string } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "session-format-")));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  const work = join(root, "app");
  mkdirSync(work);
  return { home: join(root, "home"), work };
}

// Runs the day-6-v1 bundle with only the variables given (never the real home).
async function agentCode(args: string[], home: string, env: Record<string, string> = {}) {
  const run = await runCli(BUNDLE, args, {
    env: { AGENT_CODE_HOME: home, HOME: home, ...env },
    timeoutMs: 20_000,
  });
  expect(run.stderr).toBe("");
  expect(run.exitCode).toBe(0);
  return run;
}

// The log a run named in its header, read from where the page says logs live.
function logOf(stdout: string, home: string, work: string): string {
  const id = /^session: (\S+)/m.exec(stdout)?.[1] ?? "";
  expect(id).toMatch(SESSION_ID);
  const folder = join(home, "projects", projectKey(work), "sessions");
  expect(statSync(folder).mode & 0o777).toBe(0o700);
  const path = join(folder, `${id}.jsonl`);
  expect(statSync(path).mode & 0o777).toBe(0o600);
  return readFileSync(path, "utf8");
}

// Each line of a log: ended by a newline, one JSON object, valid against the schema.
function records(text: string): Record<string, unknown>[] {
  expect(text.endsWith("\n")).toBe(true);
  return text
    .slice(0, -1)
    .split("\n")
    .map((line, index) => {
      const record = JSON.parse(line) as Record<string, unknown>;
      expect(schemaErrors(record, SCHEMA), `line ${index + 1}`).toEqual([]);
      return record;
    });
}

// Where the chain breaks, as a reader would say it: `seq` is the line's place from 0, and `prev`
// is null on line 1 and the hash of the line before on every other.
function chainBreaks(text: string): string[] {
  const lines = text.slice(0, -1).split("\n");
  return lines.flatMap((line, index) => {
    const record = JSON.parse(line) as { seq?: unknown; prev?: unknown };
    const prev = index === 0 ? null : chainHash(lines[index - 1] ?? "");
    return record.seq === index && record.prev === prev
      ? []
      : [`line ${index + 1} does not follow line ${index}`];
  });
}

test("every record of a log the day-6-v1 bundle writes with the mock provider, resumed once, validates, and the chain holds", async () => {
  const { home, work } = folders();
  const first = await agentCode(
    ["--provider", "mock", "-C", work, "echo hi using the echo tool"],
    home,
  );
  await agentCode(["--provider", "mock", "-C", work, "-c", "echo again using the echo tool"], home);
  const text = logOf(first.stdout, home, work);
  const written = records(text);
  expect(chainBreaks(text)).toEqual([]);
  expect(written.map((record) => record.type)).toEqual(["session", ...Array(8).fill("message")]);
  expect(written[0]).toMatchObject({ v: 1, cwd: work, by: "agent-code day-6-v1", prev: null });
  expect(written.map((record) => record.stop)).toEqual([
    undefined,
    undefined,
    "tool_use",
    undefined,
    "end_turn",
    undefined,
    "tool_use",
    undefined,
    "end_turn",
  ]);
});

test("every record of a log the bundle writes against the fake server, a tool round then a max_tokens turn holding a call, validates; the repair is recorded", async () => {
  const { home, work } = folders();
  writeFileSync(join(work, "notes.txt"), "buy milk\n");
  const server = await startFakeServer({
    script: [
      {
        content: [
          { type: "thinking", thinking: "The file will say." },
          { type: "text", text: "I'll read it." },
          { type: "tool_use", name: "read_file", input: { path: "notes.txt" } },
        ],
      },
      {
        content: [{ type: "tool_use", name: "file_write", input: { path: "todo.txt" } }],
        stop_reason: "max_tokens",
      },
    ],
  });
  onTestFinished(() => server.close());
  const run = await agentCode(["-C", work, "what does the list say?"], home, {
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_AUTH_TOKEN: "sk-test",
    NO_PROXY: "127.0.0.1",
  });
  const text = logOf(run.stdout, home, work);
  const written = records(text);
  expect(chainBreaks(text)).toEqual([]);
  expect(written).toHaveLength(6);
  // The assistant turns are kept as they came: the signed thinking block too, with its usage.
  expect(written[2]).toMatchObject({
    stop: "tool_use",
    usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number) },
  });
  expect(JSON.stringify(written[2])).toContain('"signature":"');
  expect(written[4]).toMatchObject({ stop: "max_tokens" });
  expect(written[5]).toMatchObject({
    repair: "max_tokens",
    message: {
      role: "user",
      content: [{ type: "tool_result", content: REPAIR_TEXT, is_error: true }],
    },
  });
});

test("a fork's log, as the day-6-v5 bundle writes it, validates: its header names the parent and its last seq", async () => {
  const { home, work } = folders();
  const fork = ["node", join(stageDir("day-6-v5"), "dist", "agent-code.mjs")];
  const env = { AGENT_CODE_HOME: home, HOME: home };
  const first = await runCli(
    fork,
    ["--provider", "mock", "-C", work, "echo hi using the echo tool"],
    { env, timeoutMs: 20_000 },
  );
  const second = await runCli(
    fork,
    ["--provider", "mock", "-C", work, "-c", "--fork", "echo again using the echo tool"],
    { env, timeoutMs: 20_000 },
  );
  expect([first.exitCode, second.exitCode, second.stderr]).toEqual([0, 0, ""]);
  const parent = /^session: (\S+)/m.exec(first.stdout)?.[1];
  const text = logOf(second.stdout, home, work);
  const written = records(text);
  expect(chainBreaks(text)).toEqual([]);
  expect(written[0]).toMatchObject({ by: "agent-code day-6-v5", parent: { id: parent, seq: 4 } });
  expect(written).toHaveLength(9);
  // The schema can fail the field: a parent without its seq, or with a field it does not have.
  const header = written[0] ?? {};
  expect(schemaErrors({ ...header, parent: { id: parent } }, SCHEMA)).toContain(
    "$: matches none of oneOf",
  );
  expect(schemaErrors({ ...header, parent: { id: parent, seq: 4, at: 1 } }, SCHEMA)).toContain(
    "$: matches none of oneOf",
  );
});

test("every record makeSessionLog plants validates, and its chain holds", () => {
  const text = makeSessionLog({
    id: ID,
    cwd: "/home/me/app",
    messages: [
      { role: "user", content: "read notes.txt" },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "notes.txt" } },
        ],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "hi", is_error: false }],
      },
      { role: "assistant", content: [{ type: "text", text: "It says hi." }] },
    ],
  });
  expect(records(text)).toHaveLength(5);
  expect(chainBreaks(text)).toEqual([]);
  // The checker above can fail: one changed byte in line 2 is found at line 3.
  expect(chainBreaks(text.replace("read notes.txt", "read notes.TXT"))).toEqual([
    "line 3 does not follow line 2",
  ]);
});

test("a record of an unknown type, without prev, of format 2 or with a repair reason not in the list fails the schema", () => {
  const [header, message] = makeSessionLog({
    id: ID,
    cwd: "/home/me/app",
    messages: [{ role: "user", content: "hi" }],
  })
    .slice(0, -1)
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const { prev: _, ...unchained } = message ?? {};
  const broken = {
    "an unknown type": { ...message, type: "compact" },
    "no prev": unchained,
    "format 2": { ...header, v: 2 },
    "a repair reason not in the list": { ...message, repair: "crashed" },
    "a header with a prev": { ...header, prev: "0123456789abcdef" },
    "a field the format does not have": { ...message, stop_reason: "end_turn" },
    "a role that is not user or assistant": { ...message, message: { role: "tool", content: "" } },
  };
  for (const [what, record] of Object.entries(broken)) {
    expect(schemaErrors(record, SCHEMA), what).toContain("$: matches none of oneOf");
  }
  expect(schemaErrors({ ...header, v: 2 }, SCHEMA)).toContain("$.v: expected 1");
  expect(schemaErrors({ ...message, repair: "crashed" }, SCHEMA)).toContain(
    "$.repair: expected one of interrupted,max_tokens,tool_bug,stop_reason",
  );
});

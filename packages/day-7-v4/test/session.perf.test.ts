// The design's targets for a long session (a 10,000-message, ~20 MB log), at three times each: the
// bundle's first request within 1.8 s of CPU from its start (CPU, not the wall clock, so a busy
// machine does not fail it; docs/benchmarks.md keeps the wall-clock figures), the whole read
// within 1.05 s and the hash chain within 180 ms, each the fastest of three. The request itself shows the log was
// read whole: every message, in order, then the new prompt.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { makeSessionLog, sessionPath } from "@agent-code/test-kit";
import { expect, test } from "vitest";
import { chainHash, readLog } from "../src/session.ts";

const bundle = fileURLToPath(new URL("../dist/agent-code.mjs", import.meta.url));
const CPU_PROBE = fileURLToPath(new URL("./first-request-cpu.mjs", import.meta.url));
const ID = "20261201-181502-3f9a1c";
const MESSAGES = 10_000;

// 10,000 messages of about 2 KB each, prompts and answers in turn.
function longLog(cwd: string): string {
  const filler = "lorem ipsum dolor sit amet ".repeat(75);
  const messages = Array.from({ length: MESSAGES }, (_, index) =>
    index % 2 === 0
      ? { role: "user" as const, content: `prompt ${index}: ${filler}` }
      : {
          role: "assistant" as const,
          content: [{ type: "text", text: `answer ${index}: ${filler}` }],
        },
  );
  return makeSessionLog({ id: ID, cwd, messages });
}

// The least CPU time of `times` runs of `work`, in milliseconds: CPU, not the wall clock, so a
// busy machine does not fail the test (the CI run of ad8a355 saw the chain take 320 ms of wall
// clock under load).
function fastest(times: number, work: () => void): number {
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < times; run++) {
    const start = process.cpuUsage();
    work();
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

test("a 10,000-message log is read and its chain checked within three times the targets", () => {
  const text = longLog("/home/me/app");
  const bytes = Buffer.from(text);
  expect(bytes.length).toBeGreaterThan(19_000_000);
  let messages = 0;
  const read = fastest(3, () => {
    messages = readLog(bytes, ID).messages.length;
  });
  expect(messages).toBe(MESSAGES);
  const lines = text.split("\n").slice(0, -1);
  const chain = fastest(3, () => {
    for (const line of lines) chainHash(line);
  });
  expect(read, `read + chain + view took ${read.toFixed(0)} ms`).toBeLessThan(1050);
  expect(chain, `the chain took ${chain.toFixed(0)} ms`).toBeLessThan(180);
}, 60_000);

test("--resume of a 10,000-message log sends its first request within 1.8 s of the start", async () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "session-perf-")));
  const work = join(dir, "work");
  const home = join(dir, "home");
  mkdirSync(work);
  const file = join(home, sessionPath(work, ID));
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, longLog(work), { mode: 0o600 });

  let arrived: number | undefined;
  let sent: { messages: { role: string; content: unknown }[] } | undefined;
  const server = createServer((req: IncomingMessage, res) => {
    arrived ??= performance.now();
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      sent = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: "msg_1",
          type: "message",
          role: "assistant",
          model: "deepseek-v4-flash",
          content: [{ type: "text", text: "ok" }],
          stop_reason: "end_turn",
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const child = spawn(
      process.execPath,
      ["--import", CPU_PROBE, bundle, "-C", work, "--resume", ID, "next"],
      {
        env: {
          PATH: process.env.PATH,
          ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
          ANTHROPIC_AUTH_TOKEN: "sk-perf-test-key",
          AGENT_CODE_HOME: home,
          // The resume is what is timed: a 20 MB log would be compacted first (compact.test.ts
          // times that), and the request would then not show the whole log was read.
          AGENT_CODE_COMPACT_AT: "0",
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code, stderr).toBe(0);
    expect(sent?.messages).toHaveLength(MESSAGES + 1);
    expect(sent?.messages.at(-1)).toEqual({ role: "user", content: "next" });
    expect(JSON.stringify(sent?.messages[0])).toContain("prompt 0: lorem");
    expect(arrived).toBeDefined();
    const cpu = Number(/^first-request-cpu-ms (\d+)$/m.exec(stderr)?.[1] ?? Number.NaN);
    expect(cpu, `the first request came after ${cpu} ms of CPU`).toBeLessThan(1800);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}, 60_000);

// `pnpm bench:sessions [--runs N]`: the Day 6 design's session targets measured on day-6-v5, for
// docs/benchmarks.md. A benchmark to read, not a timed test (the stage's tests assert three times
// each target in CPU time): each figure is the best of N runs (default 3), since a shared machine's
// load only ever adds time. Everything happens in a temporary folder, with AGENT_CODE_HOME there.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { makeSessionLog, sessionPath } from "@agent-code/test-kit";
import { ensureStageBundle } from "@agent-code/test-kit/stage-bundle";
import { compact } from "../packages/day-6-v5/src/compact.ts";
import type { Message } from "../packages/day-6-v5/src/model.ts";
import { latestId } from "../packages/day-6-v5/src/session.ts";
import { stageDir, UsageError } from "./lib/command.ts";

const STAGE = "day-6-v5";
const ID = "20261201-181502-3f9a1c";

function line(what: string, figure: string, target: string, met: boolean): string {
  return `${what.padEnd(52)} ${figure.padStart(9)}   target ${target.padEnd(7)} ${met ? "met" : "MISSED"}`;
}

function best(values: number[]): number {
  return Math.min(...values);
}

// A session's id, one a minute from 2026-12-01, so names and times both sort.
function idOf(index: number): string {
  const time = new Date(Date.UTC(2026, 11, 1, 0, index));
  const stamp = time.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${stamp}-${index.toString(16).padStart(6, "0")}`;
}

// Milliseconds from the bundle's start to its first request, resuming a 10,000-message log.
async function resumeToRequest(bundle: string, work: string, home: string): Promise<number> {
  let started = 0;
  let arrived = 0;
  const server = createServer((req, res) => {
    arrived ||= performance.now();
    req.resume();
    req.on("end", () => {
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
    started = performance.now();
    const child = spawn(process.execPath, [bundle, "-C", work, "--resume", ID, "next"], {
      env: {
        PATH: process.env.PATH,
        ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
        ANTHROPIC_AUTH_TOKEN: "sk-bench-key",
        AGENT_CODE_HOME: home,
        AGENT_CODE_COMPACT_AT: "0",
      },
      stdio: "ignore",
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    if (code !== 0 || arrived === 0) throw new Error(`the resume exited ${code} without a request`);
    return arrived - started;
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { runs: { type: "string", default: "3" } } });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) {
    throw new UsageError(`--runs must be a positive integer, got ${values.runs}`);
  }
  const dir = stageDir(STAGE);
  ensureStageBundle(dir);
  const bundle = join(dir, "dist", "agent-code.mjs");
  const root = realpathSync(mkdtempSync(join(tmpdir(), "bench-sessions-")));
  try {
    // A 10,000-message log of about 20 MB, as the stage's perf test plants it.
    const long = { work: join(root, "long"), home: join(root, "long-home") };
    mkdirSync(long.work);
    const filler = "lorem ipsum dolor sit amet ".repeat(75);
    const messages = Array.from({ length: 10_000 }, (_, index) =>
      index % 2 === 0
        ? { role: "user" as const, content: `prompt ${index}: ${filler}` }
        : { role: "assistant" as const, content: [{ type: "text", text: filler }] },
    );
    const file = join(long.home, sessionPath(long.work, ID));
    mkdirSync(join(file, ".."), { recursive: true, mode: 0o700 });
    writeFileSync(file, makeSessionLog({ id: ID, cwd: long.work, messages }), { mode: 0o600 });
    const resume: number[] = [];
    for (let run = 0; run < runs; run++)
      resume.push(await resumeToRequest(bundle, long.work, long.home));

    // 1,000 sessions of 40 messages each in one project.
    const many = { cwd: join(root, "many"), home: join(root, "many-home") };
    mkdirSync(many.cwd);
    const short = "lorem ipsum dolor sit amet ".repeat(20);
    for (let index = 0; index < 1_000; index++) {
      const id = idOf(index);
      const path = join(many.home, sessionPath(many.cwd, id));
      if (index === 0) mkdirSync(join(path, ".."), { recursive: true, mode: 0o700 });
      const turns = Array.from({ length: 40 }, (_, turn) =>
        turn % 2 === 0
          ? { role: "user" as const, content: `task ${index}: ${short}` }
          : { role: "assistant" as const, content: [{ type: "text", text: short }] },
      );
      writeFileSync(path, makeSessionLog({ id, cwd: many.cwd, messages: turns }), { mode: 0o600 });
      const time = new Date(Date.UTC(2026, 11, 1, 0, index));
      utimesSync(path, time, time);
    }
    const list: number[] = [];
    for (let run = 0; run < runs; run++) {
      const started = performance.now();
      const done = spawnSync(process.execPath, [bundle, "sessions", "list", "-C", many.cwd], {
        env: { PATH: process.env.PATH, AGENT_CODE_HOME: many.home },
        encoding: "utf8",
      });
      list.push(performance.now() - started);
      if (done.status !== 0 || done.stdout.split("\n").length !== 1_001) {
        throw new Error(`sessions list exited ${done.status}: ${done.stderr}`);
      }
    }
    const newest: number[] = [];
    for (let run = 0; run < runs; run++) {
      const started = performance.now();
      latestId(many);
      newest.push(performance.now() - started);
    }

    // Compaction of 10,000 messages, CPU, as compact.test.ts builds them.
    const view: Message[] = [{ role: "user", content: "read every file" }];
    for (let round = 0; round < 5_000; round++) {
      const id = `toolu_${round}`;
      view.push({
        role: "assistant",
        content: [{ type: "tool_use", id, name: "read_file", input: { path: `src/f${round}.ts` } }],
      });
      view.push({
        role: "user",
        content: [{ type: "tool_result", tool_use_id: id, content: "x".repeat(300) }],
      });
    }
    const compaction: number[] = [];
    for (let run = 0; run < runs; run++) {
      const fresh = structuredClone(view);
      const start = process.cpuUsage();
      compact(fresh, { threshold: 100_000 });
      const used = process.cpuUsage(start);
      compaction.push((used.user + used.system) / 1000);
    }

    const ms = (value: number) => `${value.toFixed(0)} ms`;
    console.log(`${STAGE}, best of ${runs} (node ${process.version})`);
    console.log(
      line(
        "--resume of 10,000 messages: start to first request",
        ms(best(resume)),
        "600 ms",
        best(resume) <= 600,
      ),
    );
    console.log(
      line(
        "sessions list over 1,000 sessions (the whole command)",
        ms(best(list)),
        "1 s",
        best(list) <= 1000,
      ),
    );
    console.log(
      line(
        "-c among 1,000 sessions: finding the newest",
        `${best(newest).toFixed(1)} ms`,
        "50 ms",
        best(newest) <= 50,
      ),
    );
    console.log(
      line(
        "compaction of 10,000 messages (CPU)",
        ms(best(compaction)),
        "50 ms",
        best(compaction) <= 50,
      ),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

try {
  await main();
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  console.error(`error: ${error.message}`);
  process.exitCode = 2;
}

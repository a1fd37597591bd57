// The design's targets for many sessions, at three times each, in CPU time (process.cpuUsage, not
// the wall clock, so a busy machine does not fail them; `pnpm bench:sessions` prints the figures):
// `sessions list` over 1,000 sessions within 3 s, and finding the newest of 1,000 for `-c` within
// 150 ms, with readdir and stat only, which the second test shows by making every log a FIFO: a
// finder that opened one would wait for a writer forever.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeSessionLog } from "@agent-code/test-kit";
import { expect, test } from "vitest";
import { latestId, sessionsFolder } from "../src/session.ts";
import { sessionsCommand } from "../src/sessions-command.ts";

const SESSIONS = 1_000;

function place() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "sessions-perf-")));
  const cwd = join(dir, "app");
  mkdirSync(cwd);
  const where = { home: join(dir, "home"), cwd };
  const folder = sessionsFolder(where.home, cwd);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  return { where, folder };
}

// The i-th session's id: one a minute, so names and times both sort.
function idOf(index: number): string {
  const time = new Date(Date.UTC(2026, 11, 1, 0, index));
  const stamp = time.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${stamp}-${index.toString(16).padStart(6, "0")}`;
}

// CPU milliseconds (user and system) that `work` took in this process.
async function cpuMs(work: () => unknown): Promise<number> {
  const start = process.cpuUsage();
  await work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

test("sessions list over 1,000 sessions takes less than 3 s of CPU, newest first", async () => {
  const { where, folder } = place();
  const filler = "lorem ipsum dolor sit amet ".repeat(20);
  for (let index = 0; index < SESSIONS; index++) {
    const id = idOf(index);
    const messages = Array.from({ length: 40 }, (_, turn) =>
      turn % 2 === 0
        ? { role: "user" as const, content: `task ${index}, prompt ${turn}: ${filler}` }
        : { role: "assistant" as const, content: [{ type: "text", text: filler }] },
    );
    const path = join(folder, `${id}.jsonl`);
    writeFileSync(path, makeSessionLog({ id, cwd: where.cwd, messages }), { mode: 0o600 });
    const time = new Date(Date.UTC(2026, 11, 1, 0, index));
    utimesSync(path, time, time);
  }
  const out: string[] = [];
  const io = {
    home: where.home,
    resolveCwd: () => where.cwd,
    out: (line: string) => out.push(line),
    err: () => {},
    ask: async () => undefined,
  };
  const used = await cpuMs(() => sessionsCommand(["list"], io));
  expect(out).toHaveLength(SESSIONS);
  expect(out[0]).toMatch(
    new RegExp(
      `^${idOf(SESSIONS - 1)} {2}2026-12-01 16:39 {2}40 messages {2}"task 999, prompt 38: lorem`,
    ),
  );
  expect(out.at(-1)?.startsWith(`${idOf(0)}  2026-12-01 00:00  40 messages`)).toBe(true);
  expect(used, `sessions list took ${used.toFixed(0)} ms of CPU`).toBeLessThan(3000);
}, 60_000);

test.skipIf(process.platform === "win32")(
  "-c finds the newest of 1,000 sessions within 150 ms of CPU, opening none of them",
  async () => {
    const { where, folder } = place();
    const names = Array.from({ length: SESSIONS }, (_, index) =>
      join(folder, `${idOf(index)}.jsonl`),
    );
    const made = spawnSync("mkfifo", names);
    expect(made.status, String(made.stderr)).toBe(0);
    // The oldest by name is the newest by time: the finder goes by the time.
    const newest = new Date(Date.UTC(2027, 0, 1));
    utimesSync(names[0] ?? "", newest, newest);
    let found = "";
    const used = await cpuMs(() => {
      found = latestId(where);
    });
    expect(found).toBe(idOf(0));
    expect(used, `finding the newest took ${used.toFixed(0)} ms of CPU`).toBeLessThan(150);
  },
  30_000,
);

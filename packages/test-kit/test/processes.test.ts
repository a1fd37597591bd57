// Processes a run leaves behind in its scenario's folder: found through /proc on Linux, stopped,
// named in a note, and judged only where a scenario asks; `settleMs` gives a late one time to
// show what it would have done.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { expect, test } from "vitest";
import { type Observed, runScenario, type Scenario } from "../src/contract.ts";
import { fileExists, judge, noStrayProcesses } from "../src/judgements.ts";
import { sweepStrayProcesses } from "../src/processes.ts";

const linux = process.platform === "linux";
const dir = mkdtempSync(join(tmpdir(), "processes-cli-"));

function fakeCli(name: string, body: string): string[] {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, body);
  return ["node", file];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// A process in a session of its own, out of reach of any group kill, as a tool's command is.
function detached(command: string, args: string[], cwd: string): number {
  const child = spawn(command, args, { cwd, detached: true, stdio: "ignore" });
  child.unref();
  if (child.pid === undefined) throw new Error(`could not start ${command}`);
  return child.pid;
}

async function until(ready: () => boolean): Promise<void> {
  for (let waited = 0; waited < 5000 && !ready(); waited += 20) await sleep(20);
}

test.skipIf(!linux)(
  "the sweep stops what works in the folder, and only that",
  async () => {
    const inside = realpathSync(mkdtempSync(join(tmpdir(), "sweep-in-")));
    const outside = realpathSync(mkdtempSync(join(tmpdir(), "sweep-out-")));
    mkdirSync(join(inside, "sub"));
    const stray = detached("sleep", ["30"], inside);
    const deeper = detached("sleep", ["31"], join(inside, "sub"));
    const bystander = detached("sleep", ["32"], outside);
    try {
      expect(sweepStrayProcesses(inside)).toEqual(["sleep 30", "sleep 31"]);
      await until(() => !alive(stray) && !alive(deeper));
      expect([alive(stray), alive(deeper), alive(bystander)]).toEqual([false, false, true]);
      expect(sweepStrayProcesses(inside)).toEqual([]);
    } finally {
      process.kill(bystander, "SIGKILL");
    }
  },
  30_000,
);

// A stopped process keeps a SIGTERM pending until it runs again: it stands for one the CLI killed
// as it exited, which a busy kernel has not yet run to its end.
test.skipIf(!linux)(
  "the sweep does not name a process already signalled to die, and still ends it",
  async () => {
    const inside = realpathSync(mkdtempSync(join(tmpdir(), "sweep-dying-")));
    const doomed = detached("sleep", ["33"], inside);
    const frozen = detached("sleep", ["34"], inside);
    for (const pid of [doomed, frozen]) process.kill(pid, "SIGSTOP");
    const stopped = (pid: number) =>
      /^\d+ \(.*\) T/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
    await until(() => stopped(doomed) && stopped(frozen));
    expect([stopped(doomed), stopped(frozen)]).toEqual([true, true]);
    process.kill(doomed, "SIGTERM");
    expect(readFileSync(`/proc/${doomed}/status`, "utf8")).toMatch(/^ShdPnd:\s*0*4000$/m);
    expect(sweepStrayProcesses(inside)).toEqual(["sleep 34"]);
    await until(() => !alive(doomed) && !alive(frozen));
    expect([alive(doomed), alive(frozen)]).toEqual([false, false]);
  },
  30_000,
);

test.skipIf(linux)("elsewhere than on Linux the sweep finds nothing", () => {
  expect(sweepStrayProcesses(dir)).toEqual([]);
});

// Starts `sh -c "sleep <s>; touch late.txt"` detached in the work folder, then exits at once.
const LEAVES_A_LATE_WRITER = `
import { spawn } from "node:child_process";
const [work, seconds] = process.argv.slice(2);
spawn("sh", ["-c", "sleep " + seconds + "; touch late.txt"], { cwd: work, detached: true, stdio: "ignore" }).unref();
console.log("final: left one behind");
`;

function leaving(seconds: string, extra: Partial<Scenario> = {}): Scenario {
  return {
    id: "leaves",
    title: "leaves a process behind",
    level: "core",
    args: (context) => [context.work, seconds],
    judgements: [noStrayProcesses("docs/day-5.md#x")],
    ...extra,
  };
}

test.skipIf(!linux)(
  "a process left in the folder fails noStrayProcesses and is named in a note",
  async () => {
    const cli = fakeCli("leaves", LEAVES_A_LATE_WRITER);
    const result = await runScenario(leaving("30"), { command: cli });
    expect(result.failures).toEqual([
      {
        message: "no process the run started should still be running once the run is over",
        docs: "docs/day-5.md#x",
      },
    ]);
    // The shell and its child; the child is named `sleep 30` once it has exec'd, and as the shell
    // that forked it before then: the sweep may come in between on a busy machine.
    expect(result.notes).toHaveLength(1);
    expect(result.notes?.[0]).toMatch(
      /^the run left 2 processes working in the scenario's folder after it ended; the runner stopped them: sh -c sleep 30; touch late\.txt; (?:sleep 30|sh -c sleep 30; touch late\.txt)$/,
    );
    // Without the judgement the scenario passes; the note stays.
    const unjudged = await runScenario(leaving("30", { judgements: [] }), { command: cli });
    expect(unjudged.passed).toBe(true);
    expect(unjudged.notes?.[0]).toMatch(/^the run left 2 processes/);
  },
  30_000,
);

test.skipIf(!linux)(
  "settleMs waits before the folder is read: a late marker is seen, then the writer is gone",
  async () => {
    const cli = fakeCli("leaves-briefly", LEAVES_A_LATE_WRITER);
    let seen: Observed | undefined;
    const keep = judge("", "keeps what it saw", (o) => {
      seen = o;
      return true;
    });
    await runScenario(leaving("0.3", { judgements: [keep] }), { command: cli });
    // Read at once, the writer was still asleep: stopped before it wrote.
    expect(seen && fileExists(seen, "work/late.txt")).toBe(false);
    expect(seen?.strayProcesses.length).toBeGreaterThan(0);
    await runScenario(leaving("0.3", { judgements: [keep], settleMs: 1500 }), { command: cli });
    expect(seen && fileExists(seen, "work/late.txt")).toBe(true);
    expect(seen?.strayProcesses).toEqual([]);
  },
  30_000,
);

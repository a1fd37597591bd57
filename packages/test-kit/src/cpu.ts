// CPU time as Linux counts it, for the suite's benchmark (`pnpm bench:test`): what a process used
// itself, and what its children used once it waited for them. Elsewhere these answer null.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface CpuSeconds {
  user: number;
  system: number;
}

// The CPU time of this process's children that have ended (and of theirs, which they waited for):
// fields 16 and 17 of /proc/self/stat, in clock ticks.
export function childCpuSeconds(
  stat: string | null = readProcStat(),
  ticks = clockTicks(),
): CpuSeconds | null {
  if (stat === null) return null;
  // The command name (field 2) is in parentheses and may hold spaces: count from after it.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const user = Number(fields[13]);
  const system = Number(fields[14]);
  if (!Number.isFinite(user) || !Number.isFinite(system)) return null;
  return { user: user / ticks, system: system / ticks };
}

// The CPU time of the process itself: fields 14 and 15 of its stat, in clock ticks.
export function ownCpuSeconds(stat: string, ticks = clockTicks()): CpuSeconds | null {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const user = Number(fields[11]);
  const system = Number(fields[12]);
  if (!Number.isFinite(user) || !Number.isFinite(system)) return null;
  return { user: user / ticks, system: system / ticks };
}

function readProcStat(): string | null {
  try {
    return readFileSync("/proc/self/stat", "utf8");
  } catch {
    return null;
  }
}

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    const answer = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout);
    ticksPerSecond = Number.isInteger(answer) && answer > 0 ? answer : 100;
  }
  return ticksPerSecond;
}

// What a stage's contract cost, as its test file saw it: written to
// `.test-results/contract-cpu.json` when the contract's tests are done, and summed by bench:test.
export interface ContractCpu {
  stage: string;
  // Contract scenarios judged, and the CLI runs they took (a twin is judged on another's run).
  scenarios: number;
  runs: number;
  // CPU seconds of the CLI processes the file started, and of the test process itself: the
  // runner, its judgements and the fake servers, which live in it.
  cli: number;
  test: number;
}

export const CONTRACT_CPU_FILE = join(".test-results", "contract-cpu.json");

// Starts counting now; `write` records what was used since, under `packageDir`. Nothing is
// written where Linux's figures are missing.
export function contractCpuMeter(packageDir: string, stage: string) {
  const self = process.cpuUsage();
  const children = childCpuSeconds();
  let scenarios = 0;
  return {
    scenario(): void {
      scenarios += 1;
    },
    write(runs: number): ContractCpu | null {
      const childrenNow = childCpuSeconds();
      if (children === null || childrenNow === null || scenarios === 0) return null;
      const used = process.cpuUsage(self);
      const record: ContractCpu = {
        stage,
        scenarios,
        runs,
        cli: childrenNow.user + childrenNow.system - children.user - children.system,
        test: (used.user + used.system) / 1e6,
      };
      mkdirSync(join(packageDir, ".test-results"), { recursive: true });
      writeFileSync(join(packageDir, CONTRACT_CPU_FILE), `${JSON.stringify(record, null, 2)}\n`);
      return record;
    },
  };
}

// Processes a run left behind in its scenario's folder. A command that starts a session of its own
// (a tool that runs commands detached, so it can kill their whole group) escapes the runner's group
// kill; on Linux /proc tells where each process works, and those working in the folder are stopped.
import { readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
import { sep } from "node:path";

interface Found {
  pid: number;
  command: string;
}

/**
 * Stops (SIGKILL) every process of this user whose working directory is `dir` (a realpath) or
 * below it, the caller aside, and says what each was running ("sleep 30"), by pid. One already
 * signalled to die (the CLI killed it as it exited, and the kernel has not run it since) is killed
 * too but not named: on a busy machine it can outlive the CLI by a few milliseconds. Elsewhere than
 * on Linux it finds nothing.
 */
export function sweepStrayProcesses(dir: string): string[] {
  if (process.platform !== "linux") return [];
  const found = new Map<number, Found>();
  // Each one is frozen as it is found, so none can start another between two passes; the passes
  // end when one finds nothing new, and only then do they all die.
  for (let pass = 0; pass < 20; pass++) {
    const fresh = processesIn(dir).filter((candidate) => !found.has(candidate.pid));
    if (fresh.length === 0) break;
    for (const stray of fresh) {
      found.set(stray.pid, stray);
      signal(stray.pid, "SIGSTOP");
    }
  }
  const named = [...found.values()].filter((stray) => !dying(stray.pid));
  for (const pid of found.keys()) signal(pid, "SIGKILL");
  return named.sort((a, b) => a.pid - b.pid).map((stray) => stray.command);
}

// Signals 1 to 15 end a process that neither blocks, ignores nor catches them; SIGKILL (9) ends
// it whatever it does.
const ENDING = Array.from({ length: 15 }, (_, index) => 1n << BigInt(index)).reduce(
  (a, b) => a | b,
);
const SIGKILL_BIT = 1n << 8n;

// True when the process has a signal pending that will end it: `SigPnd` (its own) or `ShdPnd`
// (its group's) in /proc/<pid>/status, less what it blocks, ignores or catches.
function dying(pid: number): boolean {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return true;
  }
  const mask = (field: string) => {
    const hex = new RegExp(`^${field}:\\s*([0-9a-f]+)$`, "m").exec(status)?.[1];
    return hex === undefined ? 0n : BigInt(`0x${hex}`);
  };
  const pending = mask("SigPnd") | mask("ShdPnd");
  if ((pending & SIGKILL_BIT) !== 0n) return true;
  const spared = mask("SigBlk") | mask("SigIgn") | mask("SigCgt");
  return (pending & ENDING & ~spared) !== 0n;
}

function processesIn(dir: string): Found[] {
  const uid = process.getuid?.();
  const found: Found[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    try {
      if (statSync(`/proc/${name}`).uid !== uid) continue;
      // A process that has exited has no working directory: readlink throws and it is passed by.
      const cwd = readlinkSync(`/proc/${name}/cwd`);
      if (cwd !== dir && !cwd.startsWith(`${dir}${sep}`)) continue;
      found.push({ pid, command: commandOf(name) });
    } catch {
      // Gone since the listing, or not ours to read.
    }
  }
  return found;
}

// The process's arguments joined by spaces, else its name in brackets, as ps shows one.
function commandOf(pid: string): string {
  const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0$/, "");
  if (args !== "") return args.split("\0").join(" ");
  return `[${readFileSync(`/proc/${pid}/comm`, "utf8").trim()}]`;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

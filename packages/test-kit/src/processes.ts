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
 * below it, the caller aside, and says what each was running ("sleep 30"), by pid. Elsewhere than
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
  for (const pid of found.keys()) signal(pid, "SIGKILL");
  return [...found.values()].sort((a, b) => a.pid - b.pid).map((stray) => stray.command);
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

// A second process that swaps a name between two things in a loop, for the race tests of the file
// tools: "check, then use" fails only when the name changes between the check and the use, and a
// process of its own changes it at any moment, as an attacker's would, not at points the test picks.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";

export interface Swapper {
  // How many times the name changed hands; more than a few, or the race was never run.
  stop(): Promise<number>;
}

// The child's loop: `target` becomes a hard-to-miss copy of each of `sources` in turn, each put in
// place by one rename (so the name always exists), until its stdin closes. It says "ready" once the
// loop runs, and prints the count of swaps when it ends.
const LOOP = `
const fs = require("node:fs");
const [target, pauseMs, ...sources] = JSON.parse(process.argv[1]);
const pause = new Int32Array(new SharedArrayBuffer(4));
let swaps = 0;
let stop = false;
process.stdin.on("end", () => { stop = true; });
process.stdin.resume();
const aside = target + ".swap";
function one() {
  for (let i = 0; i < 50 && !stop; i++) {
    const source = sources[swaps % sources.length];
    fs.rmSync(aside, { recursive: true, force: true });
    if (source.kind === "link") fs.symlinkSync(source.to, aside);
    else if (source.kind === "dir") { fs.mkdirSync(aside); for (const [n, t] of Object.entries(source.files)) fs.writeFileSync(aside + "/" + n, t); }
    else fs.writeFileSync(aside, source.text);
    fs.rmSync(target + ".old", { recursive: true, force: true });
    try { fs.renameSync(aside, target); } catch { fs.renameSync(target, target + ".old"); fs.renameSync(aside, target); }
    swaps++;
    Atomics.wait(pause, 0, 0, pauseMs);
  }
  if (stop) { process.stdout.write(String(swaps)); return; }
  setImmediate(one);
}
process.stdout.write("ready\\n");
one();
`;

// What the name may be: a symlink, a file with this text, or a folder with these files.
export type SwapSource =
  | { kind: "link"; to: string }
  | { kind: "file"; text: string }
  | { kind: "dir"; files: Record<string, string> };

// Starts the swapping process and resolves once it runs. Each state lasts `pauseMs` at least, so
// a tool call sees each of them whole sometimes, and a swap in the middle other times.
export async function startSwapper(
  target: string,
  sources: SwapSource[],
  pauseMs = 0.3,
): Promise<Swapper> {
  const child: ChildProcess = spawn(
    process.execPath,
    ["-e", LOOP, JSON.stringify([target, pauseMs, ...sources])],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  let out = "";
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    out += chunk;
  });
  while (!out.includes("ready\n")) {
    await once(child.stdout ?? child, "data");
  }
  return {
    async stop() {
      const ended = once(child, "exit");
      child.stdin?.end();
      await ended;
      return Number(out.slice(out.indexOf("ready\n") + "ready\n".length));
    },
  };
}

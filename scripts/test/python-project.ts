// What the Python project tests share: python3 or a skip, a program written with edits, and
// `pnpm check` run the way pnpm runs it, from the directory of those programs.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "@agent-code/test-kit";
import { afterAll } from "vitest";

const SCRIPT = fileURLToPath(new URL("../check.ts", import.meta.url));

// The interpreter `python3` names, as an absolute path, asked for once. A version manager's shim
// (pyenv's is a shell script) can take seconds to start each run, and these tests start Python
// hundreds of times: through the shim, a Day 3 fixture's contract took minutes instead of seconds.
export const PYTHON = pythonExecutable();
export const HAS_PYTHON = PYTHON !== undefined;
if (!HAS_PYTHON) console.warn("python3 is not installed: the Python project tests are skipped");

function pythonExecutable(): string | undefined {
  const asked = spawnSync("python3", ["-c", "import sys; print(sys.executable)"], {
    encoding: "utf8",
  });
  if (asked.status !== 0) return undefined;
  const path = asked.stdout.trim();
  // A path with a space would be split by --cmd: keep the name, and the shim's cost, then.
  return path === "" || /\s/.test(path) ? "python3" : path;
}

// A directory for one test file's programs, removed when the file's tests are done.
// A whole contract is about sixty runs of Python, two at a time: minutes, not one spawn's 30 s.
export const WHOLE_CONTRACT_MS = 300_000;

export function pythonProjects(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // Writes `source` with its edits (text it holds exactly once, and what that becomes) and
  // returns the command that runs it.
  function write(name: string, source: string, edits: [string, string][] = []): string {
    let text = source;
    for (const [from, to] of edits) {
      if (text.split(from).length !== 2) throw new Error(`the program must hold once: ${from}`);
      text = text.replace(from, () => to);
    }
    const file = join(dir, `${name}.py`);
    writeFileSync(file, text);
    return `${PYTHON} ${file}`;
  }

  function check(args: string[]) {
    return runCli(["node", "--import", "tsx", SCRIPT], args, {
      env: { INIT_CWD: dir },
      timeoutMs: WHOLE_CONTRACT_MS,
    });
  }

  return { write, check };
}

// The ids of the NOTE lines of a check's output, in order.
export function noteIds(stdoutLines: string[]): string[] {
  return idsOf(stdoutLines, "NOTE  ");
}

// The ids of the FAIL lines of a check's output, in order.
export function failIds(stdoutLines: string[]): string[] {
  return idsOf(stdoutLines, "FAIL  ");
}

function idsOf(stdoutLines: string[], verdict: string): string[] {
  return stdoutLines
    .filter((line) => line.startsWith(verdict))
    .map((line) => line.replace(/.*\[(.*)\]$/, "$1"));
}

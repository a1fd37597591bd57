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

export const HAS_PYTHON = spawnSync("python3", ["--version"]).status === 0;
if (!HAS_PYTHON) console.warn("python3 is not installed: the Python project tests are skipped");

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
    return `python3 ${file}`;
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

// The REPL in a real terminal: a pseudo-terminal (Python's pty module, so no native module is
// needed), typed at as a person would. What is typed shows on the screen before the run's trace,
// which it does only when readline has an output to echo to. Skipped without python3 and pty.
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const hasPty =
  process.platform !== "win32" &&
  spawnSync("python3", ["-c", "import pty, select"], { stdio: "ignore" }).status === 0;

// Runs argv in a pseudo-terminal; for each [text, keys] waits until the screen shows `text` after
// what was matched before, then types `keys`. Prints the screen and the exit code as JSON.
const DRIVER = `
import json, os, pty, select, sys, time
argv, plan = json.loads(sys.argv[1]), json.loads(sys.argv[2])
pid, fd = pty.fork()
if pid == 0:
    os.execvp(argv[0], argv)
out, pos = b"", 0
def read(timeout):
    global out
    ready, _, _ = select.select([fd], [], [], timeout)
    if not ready:
        return None
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        chunk = b""
    out += chunk
    return chunk
def finish(error):
    if error:
        os.kill(pid, 9)
    _, status = os.waitpid(pid, 0)
    print(json.dumps({"screen": out.decode("utf-8", "replace"), "code": os.waitstatus_to_exitcode(status), "error": error}))
    sys.exit(0)
for text, keys in plan:
    deadline = time.monotonic() + 25
    while out.find(text.encode(), pos) == -1:
        left = deadline - time.monotonic()
        chunk = read(left) if left > 0 else None
        if not chunk:
            finish("waited in vain for " + repr(text))
    pos = out.find(text.encode(), pos) + len(text.encode())
    os.write(fd, keys.encode())
deadline = time.monotonic() + 25
while time.monotonic() < deadline and read(deadline - time.monotonic()):
    pass
finish(None)
`;

function inTerminal(
  plan: [string, string][],
): Promise<{ screen: string; code: number; error: string | null }> {
  const argv = [process.execPath, "dist/agent-code.mjs"];
  return new Promise((resolve, reject) => {
    const child = spawn("python3", ["-c", DRIVER, JSON.stringify(argv), JSON.stringify(plan)], {
      cwd: packageDir,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let stdout = "";
    child.stdout.on("data", (data) => {
      stdout += data;
    });
    child.on("error", reject);
    child.on("close", () => resolve(JSON.parse(stdout)));
  });
}

test.skipIf(!hasPty)(
  "what a person types shows on the screen, then its run",
  async () => {
    const { screen, code, error } = await inTerminal([
      ["> ", "echo zzq\r"],
      ["final: ", "/exit\r"],
    ]);
    expect(error).toBeNull();
    expect(code).toBe(0);
    const lines = screen.split(/\r?\n/).map((line) => line.replace(/\r/g, ""));
    const typed = lines.findIndex((line) => line.endsWith("> echo zzq"));
    const call = lines.indexOf('tool_call: echo {"text":"zzq"}');
    expect(typed).toBeGreaterThanOrEqual(0);
    expect(call).toBeGreaterThan(typed);
  },
  60_000,
);

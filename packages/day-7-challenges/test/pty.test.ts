// A real terminal: the REPL run in a pseudo-terminal (Python's pty module drives it, so no native
// module is needed), typed at like a person would. One line reads and edits a file after a `y`, the
// next refuses an edit after an `n`, then /exit. The file, its backup and the screen are checked.
// Skipped where there is no python3 with pty (Windows, a machine without Python).
import { spawn, spawnSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Step, startFakeServer } from "@agent-code/test-kit";
import { afterAll, expect, test } from "vitest";

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

const base = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-code-pty-")));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function call(id: string, name: string, input: Record<string, unknown>) {
  return { content: [{ type: "tool_use" as const, id, name, input }] };
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv) {
  return new Promise<string>((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.on("data", (data) => {
      stdout += data;
    });
    child.on("error", reject);
    child.on("close", () => resolve(stdout));
  });
}

interface Screen {
  screen: string;
  code: number;
  error: string | null;
}

// The REPL in a pseudo-terminal, in a fresh work folder holding a.txt, against a fake server with
// `script`; `plan` is what to wait for and what to type then.
async function session(
  name: string,
  script: Step[],
  plan: [string, string][],
): Promise<Screen & { work: string; requests: number }> {
  const work = path.join(base, name);
  mkdirSync(work, { recursive: true });
  writeFileSync(path.join(work, "a.txt"), "alpha\n");
  const server = await startFakeServer({ script });
  try {
    const { NO_COLOR: _, ...inherited } = process.env;
    const env = {
      ...inherited,
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_AUTH_TOKEN: "sk-pty-test",
      // The session log goes to a home of the test's own, never the tester's ~/.agent-code.
      AGENT_CODE_HOME: path.join(base, `${name}-home`),
      TERM: "xterm",
    };
    const argv = ["node", path.join(packageDir, "dist/agent-code.mjs"), "-C", work];
    const output = await run(
      "python3",
      ["-c", DRIVER, JSON.stringify(argv), JSON.stringify(plan)],
      env,
    );
    return { ...(JSON.parse(output) as Screen), work, requests: server.requests().length };
  } finally {
    await server.close();
  }
}

// The screen's lines without colour, and whether lines starting with `starts` come in that order.
function inOrder(screen: string, starts: string[]): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are the point
  const lines = screen.replace(/\u001b\[[0-9;]*m/g, "").split(/\r?\n/);
  let at = -1;
  for (const start of starts) {
    at = lines.findIndex((line, index) => index > at && line.startsWith(start));
    if (at === -1) return false;
  }
  return true;
}

const READ = call("toolu_1", "read_file", { path: "a.txt" });
const ALPHA_TO_OMEGA = call("toolu_2", "file_edit", {
  file_path: "a.txt",
  old_string: "alpha",
  new_string: "omega",
});

test.skipIf(!hasPty)(
  "in a terminal: read, edit after y, refuse after n, exit; the file, its backup, the screen",
  async () => {
    const result = await session(
      "yes-no",
      [
        READ,
        ALPHA_TO_OMEGA,
        { content: [{ type: "text", text: "first done" }] },
        call("toolu_3", "read_file", { path: "a.txt" }),
        call("toolu_4", "file_edit", {
          file_path: "a.txt",
          old_string: "omega",
          new_string: "zeta",
        }),
        { content: [{ type: "text", text: "second done" }] },
      ],
      [
        ["> ", "change alpha to omega\r"],
        ["[y/N] ", "y\r"],
        ["> ", "change omega to zeta\r"],
        ["[y/N] ", "n\r"],
        ["> ", "/exit\r"],
        ["Bye.", ""],
      ],
    );
    expect(result.error, result.screen).toBeNull();
    expect(result.code).toBe(0);
    expect(result.requests).toBe(6);
    // On a terminal the diff has colour, and what the person types is on the screen once.
    expect(result.screen).toContain("\u001b[32m+omega\u001b[39m");
    expect(
      inOrder(result.screen, [
        "> change alpha to omega",
        "tool_call: file_edit",
        "Apply this change to a.txt? [y/N] y",
        "observation: Edited a.txt: 1 replacement",
        "> change omega to zeta",
        "tool_call: file_edit",
        "Apply this change to a.txt? [y/N] n",
        "observation: the user rejected this change; a.txt was not changed",
        "> /exit",
        "Bye.",
      ]),
      result.screen,
    ).toBe(true);
    expect(readFileSync(path.join(result.work, "a.txt"), "utf8")).toBe("omega\n");
    const folder = path.join(result.work, ".agent", "history", "a.txt");
    const copies = readdirSync(folder);
    expect(copies).toHaveLength(1);
    expect(readFileSync(path.join(folder, copies[0] as string), "utf8")).toBe("alpha\n");
  },
  90_000,
);

test.skipIf(!hasPty)(
  "in a terminal, Ctrl-C at the question exits 130 and writes nothing",
  async () => {
    const result = await session(
      "ctrl-c",
      [READ, ALPHA_TO_OMEGA, { content: [{ type: "text", text: "never asked for" }] }],
      [
        ["> ", "change alpha to omega\r"],
        ["[y/N] ", "\u0003"],
      ],
    );
    expect(result.error, result.screen).toBeNull();
    expect(result.code).toBe(130);
    expect(result.requests).toBe(2);
    expect(readFileSync(path.join(result.work, "a.txt"), "utf8")).toBe("alpha\n");
    expect(readdirSync(result.work)).toEqual(["a.txt"]);
  },
  90_000,
);

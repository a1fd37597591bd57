// Ctrl-C in a terminal REPL: readline takes it as a key press, not as a signal, so each stage must
// hand it on. Runs every model-facing stage's bundle under a pseudo-terminal (util-linux `script`)
// while a request waits, types Ctrl-C, and expects exit code 130 while the answer is still held:
// the answer is held longer than the test may run, so exiting at all shows Ctrl-C ended it.
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { startFakeServer } from "@agent-code/test-kit";
import { expect, onTestFinished, test } from "vitest";
import { stageDir } from "../lib/command.ts";

const HAS_SCRIPT = process.platform === "linux" && spawnSync("script", ["--version"]).status === 0;
if (!HAS_SCRIPT)
  console.warn("util-linux script is not available: the terminal Ctrl-C test is skipped");

test.skipIf(!HAS_SCRIPT).each(["day-2-v1", "day-2-v2", "day-2-v3", "day-2-challenges"])(
  "%s: Ctrl-C typed in the REPL during a request exits 130 at once",
  async (stage) => {
    const server = await startFakeServer({
      script: [{ content: [{ type: "text", text: "late" }], delay_ms: 600_000 }],
    });
    const started = performance.now();
    const bundle = join(stageDir(stage), "dist", "agent-code.mjs");
    const child = spawn("script", ["-qec", `node ${bundle}`, "/dev/null"], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TERM: "dumb",
        ANTHROPIC_BASE_URL: server.url,
        ANTHROPIC_AUTH_TOKEN: "sk-test",
        NO_PROXY: "127.0.0.1",
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    // A stage that ignores Ctrl-C would wait on: the test's timeout fails it, and this ends it.
    onTestFinished(() => {
      child.kill("SIGKILL");
    });
    child.stdin.write("what time is it\r");
    while (server.requests().length === 0 && performance.now() - started < 25_000) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(server.requests()).toHaveLength(1);
    child.stdin.write("\x03");
    const code = await exited;
    child.stdin.destroy();
    await server.close();
    expect(code).toBe(130);
  },
  30_000,
);

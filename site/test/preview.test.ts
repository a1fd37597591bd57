// `pnpm docs:preview` serves the built site: vitepress preview has to load the .ts config, which
// plain node cannot, so it runs through tsx like docs:dev and docs:build. Needs `pnpm docs:build`
// first (the package's `test` script runs it).
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "@agent-code/test-kit";
import { expect, test } from "vitest";
import { DIST } from "./support.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

// A port free a moment ago; preview fails loudly (--strictPort) rather than pick another.
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === "object" && address !== null ? address.port : 0;
}

test("pnpm docs:preview from the root serves the built course", async () => {
  if (!existsSync(join(DIST, "index.html"))) {
    throw new Error(`no built site in ${DIST}: run pnpm docs:build first`);
  }
  const port = await freePort();
  const stop = new AbortController();
  const run = runCli(["pnpm", "docs:preview", "--port", String(port), "--strictPort"], [], {
    cwd: ROOT,
    signal: stop.signal,
    timeoutMs: 60_000,
  });
  let body = "";
  for (let tries = 0; tries < 200 && body === ""; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    body = await fetch(`http://127.0.0.1:${port}/day-2.html`)
      .then((response) => (response.ok ? response.text() : ""))
      .catch(() => "");
  }
  stop.abort();
  const ended = await run;
  expect(ended.stderr).not.toContain("Unknown file extension");
  expect(body).toContain("Day 2: a real model and tool calling");
}, 90_000);

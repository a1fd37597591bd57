// What the browser suite needs: the built site served on 127.0.0.1, and Debian's Chromium driven
// through playwright-core (no browser is ever downloaded).
import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import type { Wire, WireExchange } from "@agent-code/test-kit";
import { type Browser, chromium } from "playwright-core";

export const DIST = fileURLToPath(new URL("../.vitepress/dist", import.meta.url));
export const SCREENSHOTS = fileURLToPath(new URL("../.screenshots", import.meta.url));

const INSTALL_HINT =
  "install Debian's Chromium (as root: apt-get update && apt-get install -y chromium) or set CHROMIUM_PATH";

// The browser to drive, or why there is none. Outside CI a missing browser skips the suite with
// that hint; in CI (CI=true) it fails the run.
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const path = env.CHROMIUM_PATH || "/usr/bin/chromium";
  return existsSync(path) ? path : undefined;
}

export function missingBrowserMessage(env: NodeJS.ProcessEnv = process.env): string {
  return `no Chromium at ${env.CHROMIUM_PATH || "/usr/bin/chromium"}: ${INSTALL_HINT}`;
}

export async function launchChromium(executablePath: string): Promise<Browser> {
  // playwright gives every launch a fresh profile of its own (--user-data-dir in a temporary
  // folder, removed on close); these flags keep Chromium off the network and quiet.
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".woff2": "font/woff2",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
};

export interface StaticSite {
  origin: string;
  close(): Promise<void>;
}

// Serves `dir` the way a static host serves a VitePress build: "/day-2" finds day-2.html,
// "/decisions/" finds decisions/index.html, anything else is the site's 404 page with status 404.
export async function serveSite(dir: string): Promise<StaticSite> {
  const server: Server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname);
    const file = resolveFile(dir, path);
    if (file === undefined) {
      response.writeHead(404, { "content-type": TYPES[".html"] });
      response.end(readFileSync(join(dir, "404.html")));
      return;
    }
    response.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    response.end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function resolveFile(dir: string, path: string): string | undefined {
  const safe = normalize(path).replace(/^(\.\.[/\\])+/, "");
  const candidates = [safe, `${safe}.html`, join(safe, "index.html")];
  for (const candidate of candidates) {
    const full = join(dir, candidate);
    if (full.startsWith(dir) && existsSync(full) && statSync(full).isFile()) return full;
  }
  return undefined;
}

// What a stored wire holds, read straight from its JSON (not through lib/wire.ts, which the tests
// check against it): the tool call ids it mentions, the first thing the user typed, and the last
// words the model answered.
export function storedToolIds(wire: Wire): string[] {
  const ids = new Set<string>();
  walk(
    wire.exchanges.map((exchange) => [exchange.request.body, responseOf(exchange)]),
    (node) => {
      const { type, role } = node;
      const id =
        type === "tool_use"
          ? node.id
          : type === "tool_result"
            ? node.tool_use_id
            : type === "function_call" || type === "function_call_output"
              ? node.call_id
              : type === "function"
                ? node.id
                : role === "tool"
                  ? node.tool_call_id
                  : undefined;
      if (typeof id === "string") ids.add(id);
    },
  );
  return [...ids].sort();
}

export function firstUserText(wire: Wire): string {
  const body = (wire.exchanges[0]?.request.body ?? {}) as Record<string, unknown>;
  const conversation = (body.messages ?? body.input ?? []) as {
    role?: string;
    content?: unknown;
  }[];
  const content = conversation.find((message) => message.role === "user")?.content;
  if (typeof content === "string") return content;
  return texts(content)[0] ?? "";
}

export function finalAnswerText(wire: Wire): string {
  const last = wire.exchanges.at(-1);
  return last === undefined ? "" : (texts(responseOf(last)).at(-1) ?? "");
}

function responseOf(exchange: WireExchange): unknown {
  const { response } = exchange;
  return "message" in response ? response.message : response.body;
}

// The text blocks of any of the three APIs, and a chat message's string content, in order.
function texts(value: unknown): string[] {
  const found: string[] = [];
  walk(value, (node) => {
    const textBlock = node.type === "text" || node.type === "output_text";
    if (textBlock && typeof node.text === "string") found.push(node.text);
    else if (node.role === "assistant" && typeof node.content === "string")
      found.push(node.content);
  });
  return found;
}

function walk(value: unknown, visit: (node: Record<string, unknown>) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item, visit);
  } else if (typeof value === "object" && value !== null) {
    visit(value as Record<string, unknown>);
    for (const item of Object.values(value)) walk(item, visit);
  }
}

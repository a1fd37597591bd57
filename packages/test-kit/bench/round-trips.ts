// Benchmark, not a test: sequential round trips through the real SDKs (Anthropic's for the Messages
// API, OpenAI's for Responses and Chat) against the fake server.
//
// By default the server runs in a process of its own, the `fake-server` command, as it does in
// every test: the CLI under test is one process, the server is another. `--in-process` starts the
// server inside this process instead, so one event loop does the client's work and the server's
// in turn, and one RSS figure covers the server, the clients and the SDKs together.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { startFakeServer } from "../src/server.ts";
import { startFakeWeb } from "../src/web-server.ts";

const ROUND_TRIPS = 1000;
const WARM_UP = 200;
const PARAMS = {
  model: "deepseek-v4-flash",
  max_tokens: 1024,
  messages: [{ role: "user" as const, content: "What is the weather in Paris?" }],
};
const RESPONSES_PARAMS = { model: "gpt-4.1", input: "What is the weather in Paris?" };
const CHAT_PARAMS = {
  model: "gpt-4.1",
  messages: [{ role: "user" as const, content: "What is the weather in Paris?" }],
};
// A page of about 4 KiB, the size of a small documentation page.
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Fixture Title</title></head><body>${'<p>Some text of a page, with a <a href="/next">link</a>.</p>\n'.repeat(64)}</body></html>`;
const REPLY = {
  content: [
    { type: "text" as const, text: "Let me check the weather in Paris for you." },
    { type: "tool_use" as const, name: "get_weather", input: { city: "Paris", unit: "celsius" } },
  ],
};

// What the benchmark needs of a server, wherever it runs.
interface BenchServer {
  url: string;
  /** Its process id when it runs apart from this one. */
  pid?: number;
  script(steps: unknown[]): Promise<void>;
  close(): Promise<void>;
}

interface Clients {
  anthropic: Anthropic;
  openai: OpenAI;
}

interface Figures {
  median: number;
  p99: number;
  /** This process's CPU time a round trip. */
  cpu: number;
  /** The server's, when it runs apart and the system tells. */
  serverCpu?: number;
}

// Each round trip, and the request body it sends, so the floor server can be given the same answer.
const CALLS: {
  name: string;
  path: string;
  body: object;
  call(c: Clients, url: string): Promise<unknown>;
}[] = [
  {
    name: "messages, non-streaming",
    path: "/v1/messages",
    body: PARAMS,
    call: (c) => c.anthropic.messages.create(PARAMS),
  },
  {
    name: "messages, streaming",
    path: "/v1/messages",
    body: { ...PARAMS, stream: true },
    call: (c) => c.anthropic.messages.stream(PARAMS).finalMessage(),
  },
  {
    name: "responses, non-streaming",
    path: "/v1/responses",
    body: RESPONSES_PARAMS,
    call: (c) => c.openai.responses.create(RESPONSES_PARAMS),
  },
  {
    name: "responses, streaming",
    path: "/v1/responses",
    body: { ...RESPONSES_PARAMS, stream: true },
    call: (c) => c.openai.responses.stream(RESPONSES_PARAMS).finalResponse(),
  },
  {
    name: "chat, non-streaming",
    path: "/v1/chat/completions",
    body: CHAT_PARAMS,
    call: (c) => c.openai.chat.completions.create(CHAT_PARAMS),
  },
  {
    name: "chat, streaming",
    path: "/v1/chat/completions",
    body: { ...CHAT_PARAMS, stream: true },
    call: (c) => c.openai.chat.completions.stream(CHAT_PARAMS).finalChatCompletion(),
  },
];

const { values } = parseArgs({
  options: { "in-process": { type: "boolean" }, "web-only": { type: "boolean" } },
});
const inProcess = values["in-process"] === true;
// --web-only: the page fetch alone, without the SDKs' round trips.
const calls = values["web-only"] === true ? [] : CALLS;
const fake = inProcess ? await inProcessServer() : await separateServer(["src/server-cli.ts"]);
const floorFile = inProcess ? undefined : await cannedAnswers(fake);
const floor =
  floorFile === undefined ? undefined : await separateServer(["bench/canned-server.ts", floorFile]);
const startRss = process.memoryUsage().rss;
let peakRss = startRss;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 5);

const results: { name: string; fake: Figures; floor?: Figures }[] = [];
for (const { name, call } of calls) {
  const [onFake, onFloor] = await measure(floor ? [fake, floor] : [fake], call);
  results.push({ name, fake: onFake as Figures, ...(onFloor ? { floor: onFloor } : {}) });
}
const serverPeak = fake.pid === undefined ? undefined : peakRssOf(fake.pid);
await fake.close();
await floor?.close();
if (floorFile) await rm(dirname(floorFile), { recursive: true, force: true });
results.push(await measureWeb());
clearInterval(sampler);

const where = inProcess ? "the fake server in this process" : "each server in its own process";
console.log(
  `${ROUND_TRIPS} sequential round trips each, after ${WARM_UP} warm-up ones, ${where} (Node ${process.version})`,
);
for (const { name, fake: f, floor: base } of results) {
  const serverCpu = f.serverCpu === undefined ? "" : `, ${f.serverCpu.toFixed(2)} ms in the server`;
  console.log(
    `${`${name}:`.padEnd(26)} median ${f.median.toFixed(2)} ms, p99 ${f.p99.toFixed(2)} ms, CPU ${f.cpu.toFixed(2)} ms a call in the client${serverCpu}`,
  );
  if (base) {
    const share = f.median - base.median;
    console.log(
      `${"".padEnd(26)} floor ${base.median.toFixed(2)} ms median, CPU ${base.cpu.toFixed(2)} ms a call in the client${base.serverCpu === undefined ? "" : `, ${base.serverCpu.toFixed(2)} ms in the server`}: the fake adds ${share.toFixed(2)} ms`,
    );
  }
}
const rssText = `RSS: ${mib(startRss)} MiB at start, ${mib(peakRss)} MiB at peak`;
if (inProcess) console.log(`${rssText} (server, clients and SDKs in one process)`);
else {
  const serverText = serverPeak === undefined ? "not measured here" : `${mib(serverPeak)} MiB`;
  console.log(`${rssText} (clients and SDKs); the fake server's peak: ${serverText}`);
}

// Wall-clock quantiles, and the CPU time (user + system) per round trip of this process and, when
// a server runs apart, of the server's: on a busy machine the wall clock mostly measures the wait
// for a core, the CPU time does not. With two servers the calls alternate between them, so both
// meet the client's code equally warmed up.
async function measure(
  servers: BenchServer[],
  call: (c: Clients, url: string) => Promise<unknown>,
): Promise<Figures[]> {
  const runs = servers.map((server) => ({
    server,
    clients: {
      anthropic: new Anthropic({ baseURL: server.url, apiKey: "bench", maxRetries: 0 }),
      openai: new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "bench", maxRetries: 0 }),
    },
    times: [] as number[],
    cpu: 0,
  }));
  for (const { server } of runs) {
    await server.script(Array.from({ length: WARM_UP + ROUND_TRIPS }, () => REPLY));
  }
  for (let i = 0; i < WARM_UP; i++) for (const run of runs) await call(run.clients, run.server.url);
  const serverBefore = runs.map(({ server }) => cpuOf(server.pid));
  for (let i = 0; i < ROUND_TRIPS; i++) {
    for (const run of runs) {
      const cpuBefore = process.cpuUsage();
      const began = performance.now();
      await call(run.clients, run.server.url);
      run.times.push(performance.now() - began);
      const { user, system } = process.cpuUsage(cpuBefore);
      run.cpu += (user + system) / 1000;
    }
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }
  return runs.map(({ server, times, cpu }, index) => {
    const before = serverBefore[index];
    const after = cpuOf(server.pid);
    times.sort((x, y) => x - y);
    return {
      median: quantile(times, 0.5),
      p99: quantile(times, 0.99),
      cpu: cpu / ROUND_TRIPS,
      ...(before === undefined || after === undefined
        ? {}
        : { serverCpu: (after - before) / ROUND_TRIPS }),
    };
  });
}

async function inProcessServer(): Promise<BenchServer> {
  const server = await startFakeServer();
  return {
    url: server.url,
    async script(steps) {
      server.reset();
      server.script(steps as never);
    },
    close: () => server.close(),
  };
}

// A fetch of a web page, as a web_fetch tool makes it: the fake web (`fake-server --web`, or in
// this process with --in-process) against a floor that serves the same bytes.
async function measureWeb(): Promise<{ name: string; fake: Figures; floor?: Figures }> {
  const name = "web page (4 KiB HTML)";
  const routes = { "/page": { type: "text/html; charset=utf-8", body: PAGE } };
  const fetchPage = async (_c: Clients, url: string) => (await fetch(`${url}/page`)).text();
  if (inProcess) {
    const web = await startFakeWeb({ routes });
    const server = { url: web.url, script: async () => {}, close: () => web.close() };
    const [onFake] = await measure([server], fetchPage);
    await server.close();
    return { name, fake: onFake as Figures };
  }
  const dir = await mkdtemp(join(tmpdir(), "agent-code-bench-"));
  await writeFile(join(dir, "web.json"), JSON.stringify({ routes }));
  const answers = { "/page get": { contentType: routes["/page"].type, body: PAGE } };
  await writeFile(join(dir, "answers.json"), JSON.stringify(answers));
  const web = await separateServer(["src/server-cli.ts", "--web", join(dir, "web.json")]);
  const webFloor = await separateServer(["bench/canned-server.ts", join(dir, "answers.json")]);
  // The floor must serve the very bytes the fake does, or the difference means nothing.
  for (const server of [web, webFloor]) {
    const text = await fetchPage(undefined as never, server.url);
    if (text !== PAGE) throw new Error(`${server.url}/page did not serve the page`);
  }
  const [onFake, onFloor] = await measure([web, webFloor], fetchPage);
  await web.close();
  await webFloor.close();
  await rm(dir, { recursive: true, force: true });
  return { name, fake: onFake as Figures, ...(onFloor ? { floor: onFloor } : {}) };
}

// A server command (the `fake-server` one, as a learner starts it, or the floor's) under tsx; it
// prints its URL, then serves until SIGTERM. Paths are the test-kit's.
async function separateServer(args: string[]): Promise<BenchServer> {
  const [script = "", ...rest] = args;
  const path = fileURLToPath(new URL(`../${script}`, import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", path, ...rest], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const isFake = script === "src/server-cli.ts" && !rest.includes("--web");
  const { url, controlUrl } = await listening(child, isFake);
  const control = async (name: string, body: unknown) => {
    const response = await fetch(`${controlUrl}/${name}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${name}: ${response.status} ${await response.text()}`);
  };
  return {
    url,
    ...(child.pid === undefined ? {} : { pid: child.pid }),
    async script(steps) {
      if (!isFake) return;
      await control("reset", {});
      await control("script", steps);
    },
    async close() {
      child.kill("SIGTERM");
      if (child.exitCode === null) await once(child, "exit");
    },
  };
}

// The fake's answer to each request of CALLS, byte for byte, in a file for the floor server.
async function cannedAnswers(server: BenchServer): Promise<string> {
  await server.script(CALLS.map(() => REPLY));
  const answers: Record<string, { contentType: string; body: string }> = {};
  for (const { path, body } of CALLS) {
    const response = await fetch(`${server.url}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "anthropic-version": "2023-06-01",
        authorization: "Bearer bench",
      },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${path}: ${response.status} ${text}`);
    const kind = "stream" in body ? "sse" : "json";
    answers[`${path} ${kind}`] = {
      contentType: response.headers.get("content-type") ?? "application/json",
      body: text,
    };
  }
  const file = join(await mkdtemp(join(tmpdir(), "agent-code-bench-")), "answers.json");
  await writeFile(file, JSON.stringify(answers));
  return file;
}

// Where a server listens, and (the fake's) where its control routes are, from what it printed.
async function listening(
  child: ChildProcess,
  withControl: boolean,
): Promise<{ url: string; controlUrl: string }> {
  let output = "";
  for await (const chunk of child.stdout ?? []) {
    output += String(chunk);
    const url = /^listening on (\S+)$/m.exec(output)?.[1];
    const controlUrl = /^control: (\S+)$/m.exec(output)?.[1] ?? "";
    if (url !== undefined && (controlUrl !== "" || !withControl)) return { url, controlUrl };
  }
  throw new Error(`a server exited before it listened (exit code ${child.exitCode})`);
}

// Linux's per-process counters; elsewhere the server's figures are left out.
function cpuOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime, in clock ticks (100 a second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

function peakRssOf(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kib = /^VmHWM:\s+(\d+) kB/m.exec(status)?.[1];
    return kib === undefined ? undefined : Number(kib) * 1024;
  } catch {
    return undefined;
  }
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

function mib(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(0);
}

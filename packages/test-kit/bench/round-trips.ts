// Benchmark, not a test: sequential round trips through the real SDKs (Anthropic's for the Messages
// API, OpenAI's for Responses and Chat) against an in-process fake server, so the memory figure
// covers the server, the clients and the SDKs together.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { startFakeServer } from "../src/server.ts";

const ROUND_TRIPS = 1000;
const WARM_UP = 50;
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
const REPLY = {
  content: [
    { type: "text" as const, text: "Let me check the weather in Paris for you." },
    { type: "tool_use" as const, name: "get_weather", input: { city: "Paris", unit: "celsius" } },
  ],
};

const server = await startFakeServer();
const client = new Anthropic({
  baseURL: server.url,
  apiKey: "bench",
  maxRetries: 0,
  timeout: 10_000,
});
const openai = new OpenAI({
  baseURL: `${server.url}/v1`,
  apiKey: "bench",
  maxRetries: 0,
  timeout: 10_000,
});
const startRss = process.memoryUsage().rss;
let peakRss = startRss;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 5);

const results = {
  "messages, non-streaming": await measure(() => client.messages.create(PARAMS)),
  "messages, streaming": await measure(() => client.messages.stream(PARAMS).finalMessage()),
  "responses, non-streaming": await measure(() => openai.responses.create(RESPONSES_PARAMS)),
  "responses, streaming": await measure(() =>
    openai.responses.stream(RESPONSES_PARAMS).finalResponse(),
  ),
  "chat, non-streaming": await measure(() => openai.chat.completions.create(CHAT_PARAMS)),
  "chat, streaming": await measure(() =>
    openai.chat.completions.stream(CHAT_PARAMS).finalChatCompletion(),
  ),
};
clearInterval(sampler);
await server.close();

console.log(
  `${ROUND_TRIPS} sequential round trips each, after ${WARM_UP} warm-up ones (Node ${process.version})`,
);
for (const [name, { median, p99, cpu }] of Object.entries(results)) {
  console.log(
    `${`${name}:`.padEnd(26)} median ${median.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, CPU ${cpu.toFixed(2)} ms a call`,
  );
}
console.log(
  `RSS: ${mib(startRss)} MiB at start, ${mib(peakRss)} MiB at peak (server, client and SDK in one process)`,
);

// Wall-clock quantiles, and the CPU time (user + system) of the whole process per round trip:
// on a busy machine the wall clock mostly measures the wait for a core, the CPU time does not.
async function measure(
  call: () => Promise<unknown>,
): Promise<{ median: number; p99: number; cpu: number }> {
  server.reset();
  server.script(Array.from({ length: WARM_UP + ROUND_TRIPS }, () => REPLY));
  for (let i = 0; i < WARM_UP; i++) await call();
  const times: number[] = [];
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < ROUND_TRIPS; i++) {
    const began = performance.now();
    await call();
    times.push(performance.now() - began);
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }
  const { user, system } = process.cpuUsage(cpuBefore);
  times.sort((a, b) => a - b);
  const cpu = (user + system) / 1000 / ROUND_TRIPS;
  return { median: quantile(times, 0.5), p99: quantile(times, 0.99), cpu };
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

function mib(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(0);
}

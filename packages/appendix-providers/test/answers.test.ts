// Every provider against answers that are not its API (a web page, another service's JSON, a proxy's
// error page, a body cut off, a refused connection, a timeout): each becomes one ApiError that says
// where and what, never a TypeError from deep inside an SDK.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, expect, test } from "vitest";
import { ApiError, createProvider } from "../src/model.ts";

const KEYS = ["ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "OPENAI_CHAT_API_KEY"];
const saved = Object.fromEntries(
  [...KEYS, "AGENT_CODE_MAX_RETRIES", "AGENT_CODE_TIMEOUT_MS"].map((name) => [
    name,
    process.env[name],
  ]),
);

// What the stand-in server answers, by path: /<kind>/... whatever the SDK appends.
const ANSWERS: Record<string, { status: number; type: string; body: string; cut?: boolean }> = {
  html: { status: 200, type: "text/html", body: "<!doctype html><title>Welcome</title>" },
  other: { status: 200, type: "application/json", body: '{"ok":true}' },
  proxy: { status: 502, type: "text/html", body: "<html><h1>502 Bad Gateway</h1></html>" },
  cut: { status: 200, type: "application/json", body: '{"id":"x","content":[{"ty', cut: true },
};

let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const kind = req.url?.split("/")[1] ?? "";
    const answer = ANSWERS[kind];
    if (kind === "slow") return;
    if (answer === undefined) return res.writeHead(404).end();
    res.writeHead(answer.status, {
      "content-type": answer.type,
      ...(answer.cut ? { "content-length": "500" } : {}),
    });
    if (answer.cut) {
      res.write(answer.body);
      setTimeout(() => res.destroy(), 10);
      return;
    }
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

beforeEach(() => {
  for (const key of KEYS) process.env[key] = "sk-canary-never-print-me";
  process.env.AGENT_CODE_MAX_RETRIES = "0";
  delete process.env.AGENT_CODE_TIMEOUT_MS;
});

const PROVIDERS = [
  ["deepseek", "Messages API (DeepSeek's ends in /anthropic)"],
  ["openai", "Responses API (OpenAI's ends in /v1)"],
  ["openai-chat", "Chat Completions API (OpenAI's ends in /v1)"],
] as const;

async function failure(provider: string, baseURL: string): Promise<ApiError> {
  const error = await createProvider(provider, "m", baseURL)
    .complete([{ role: "user", content: "hi" }])
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).message).not.toContain("sk-canary");
  return error as ApiError;
}

test.each(PROVIDERS)("%s: a web page at the base URL", async (provider, api) => {
  const { message } = await failure(provider, `${url}/html`);
  expect(message).toBe(
    `${url}/html answered 200 text/html "<!doctype html><title>Welcome</title>", which is not the ${api.split(" (")[0]}: check the base URL (${api.split(" (")[1]} and any proxy in between`,
  );
});

test.each(PROVIDERS)("%s: JSON that is not this API's reply", async (provider, api) => {
  const { message } = await failure(provider, `${url}/other`);
  expect(message).toContain(
    `answered 200 application/json "{"ok":true}", which is not the ${api.split(" (")[0]}: `,
  );
});

test.each(PROVIDERS)("%s: a proxy's error page", async (provider, api) => {
  const { message } = await failure(provider, `${url}/proxy`);
  expect(message).toMatch(/answered 502 text\/html ".*502 Bad Gateway.*", which is not the /);
  expect(message).toContain(api.split(" (")[0]);
});

test.each(PROVIDERS)("%s: a body cut off halfway", async (provider) => {
  const { message } = await failure(provider, `${url}/cut`);
  expect(message).toMatch(
    /^(http:\/\/127\.0\.0\.1:\d+\/cut broke off its answer|could not connect)/,
  );
});

test.each(PROVIDERS)("%s: a timeout names the limit's variable", async (provider) => {
  process.env.AGENT_CODE_TIMEOUT_MS = "100";
  const { message } = await failure(provider, `${url}/slow`);
  expect(message).toBe(`request to ${url}/slow timed out; AGENT_CODE_TIMEOUT_MS sets the limit`);
});

test.each(PROVIDERS)("%s: nothing listening", async (provider) => {
  const { message } = await failure(provider, "http://127.0.0.1:9");
  expect(message).toMatch(/^could not connect to http:\/\/127\.0\.0\.1:9: /);
});

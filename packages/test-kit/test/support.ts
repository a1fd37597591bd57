// Test-only helpers the test files share: fake servers, SDK clients and request bodies.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Anthropic, { APIError, type ClientOptions } from "@anthropic-ai/sdk";
import OpenAI, { APIError as OpenAIAPIError, type ClientOptions as OpenAIOptions } from "openai";
import { onTestFinished } from "vitest";
import { type ToolUseBlock, toolUse } from "../src/builders.ts";
import { type Observed, runScenario, type Scenario, type ScenarioResult } from "../src/contract.ts";
import { judge } from "../src/judgements.ts";
import { type FakeServer, type FakeServerOptions, startFakeServer } from "../src/server.ts";

export type Body = Record<string, unknown>;

export const DEEPSEEK_THINKING =
  "The `content[].thinking` in the thinking mode must be passed back to the API.";

// A fake server that closes when the test finishes.
export async function start(options?: FakeServerOptions): Promise<FakeServer> {
  const server = await startFakeServer(options);
  onTestFinished(() => server.close());
  return server;
}

// An SDK client pointed at the server; no retries unless the options ask for them.
export function clientFor(server: FakeServer, options: ClientOptions = {}): Anthropic {
  return new Anthropic({
    baseURL: server.url,
    apiKey: "test-key",
    maxRetries: 0,
    timeout: 5000,
    ...options,
  });
}

// The error the promise rejects with; fails the test if it resolves.
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the promise to reject");
}

// As rejection(), for an SDK call expected to fail with an API error; any other error is rethrown.
export async function apiRejection(promise: Promise<unknown>): Promise<APIError> {
  const error = await rejection(promise);
  if (error instanceof APIError) return error;
  throw error;
}

export function request(messages: unknown, extra: Body = {}): Body {
  return { model: "claude-sonnet-5", max_tokens: 2048, messages, ...extra };
}

export function user<Content>(content: Content) {
  return { role: "user" as const, content };
}

export function assistant<Content>(content: Content) {
  return { role: "assistant" as const, content };
}

// A call of the read_file tool with the given id.
export function readFileCall(id: string, path = "notes.txt"): ToolUseBlock {
  return toolUse("read_file", { path }, id);
}

export function toolResult(id: string, content: unknown = "hello") {
  return { type: "tool_result", tool_use_id: id, content };
}

// The service's rule-2 text for tool_use ids left without results, after `<location>: ` if given.
export function missingResults(ids: string, location?: string): string {
  const message = `\`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${ids}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
  return location === undefined ? message : `${location}: ${message}`;
}

// An OpenAI SDK client pointed at the server's `/v1`; no retries unless the options ask for them.
export function openAIFor(server: FakeServer, options: OpenAIOptions = {}): OpenAI {
  return new OpenAI({
    baseURL: `${server.url}/v1`,
    apiKey: "sk-test-key",
    maxRetries: 0,
    timeout: 5000,
    ...options,
  });
}

// As apiRejection(), for the OpenAI SDK.
export async function openAIRejection(promise: Promise<unknown>): Promise<OpenAIAPIError> {
  const error = await rejection(promise);
  if (error instanceof OpenAIAPIError) return error;
  throw error;
}

// The read_file tool as the OpenAI SDK's runTools() takes it, running `run` on the parsed arguments.
export function runnableReadFile(run: (args: { path: string }) => string) {
  return {
    type: "function" as const,
    function: {
      name: "read_file",
      description: "Read a file",
      parameters: { type: "object", properties: { path: { type: "string" } } },
      parse: (text: string) => JSON.parse(text) as { path: string },
      function: run,
    },
  };
}

// A fake CLI: the script written to `dir`, run as `node <file>`.
export function fakeCli(dir: string, name: string, body: string): string[] {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, body);
  return ["node", file];
}

// Runs one scenario and hands back its result and what its judgements saw.
export async function runAndSee(
  command: string[],
  scenario: Partial<Scenario>,
): Promise<{ result: ScenarioResult; observed: Observed }> {
  let seen: Observed | undefined;
  const result = await runScenario(
    {
      id: "s",
      title: "s",
      level: "core",
      args: [],
      ...scenario,
      judgements: [
        ...(scenario.judgements ?? []),
        judge("", "keeps what it saw", (o) => {
          seen = o;
          return true;
        }),
      ],
    },
    { command },
  );
  if (seen === undefined) throw new Error("no judgement ran");
  return { result, observed: seen };
}

// Property-based fuzzing of a stage's AnthropicProvider and loop through the fake server: whatever
// the server answers (valid messages with any mix of blocks, broken ones, cut bodies, the wrong
// content type, any status with or without the API's error envelope), a run either finishes with a
// `final:` line or fails with one ApiError; nothing else escapes, and the key is never shown.
// day-2-v3 asks with plain requests, day-2-challenges with streams.

import * as challengesAgent from "@agent-code/day-2-challenges/src/agent.ts";
import * as challengesModel from "@agent-code/day-2-challenges/src/model.ts";
import * as challengesTools from "@agent-code/day-2-challenges/src/tools.ts";
import * as v3Agent from "@agent-code/day-2-v3/src/agent.ts";
import * as v3Model from "@agent-code/day-2-v3/src/model.ts";
import * as v3Tools from "@agent-code/day-2-v3/src/tools.ts";
import { FAULTS, type FakeServer, type StepResult, startFakeServer } from "@agent-code/test-kit";
import fc from "fast-check";

export const CANARY = "sk-fuzz-canary-never-shown-3c9a";

export interface FuzzReport {
  runs: number;
  ms: number;
  seed: number;
  // How the runs ended (a final line, or an ApiError), and how many sent tool results back.
  finished: number;
  apiErrors: number;
  multiTurn: number;
  // fast-check's report of the shrunk counterexample, when the property failed.
  failure?: string;
}

// Counterexamples the fuzzer found, kept as fixed cases (`pnpm test` runs every one).
export const REGRESSIONS: { name: string; steps: StepResult[] }[] = [
  {
    // Found against day-2-v3 before #17: `response.content` of null is not iterable.
    name: "200 application/json whose body is null",
    steps: [
      { raw: { status: 200, headers: { "content-type": "application/json" }, body: "null" } },
    ],
  },
];

// A stage to fuzz: one run of its loop against a base URL, and how to know its ApiError.
interface Target {
  run(baseURL: string): Promise<{ trace: string[] }>;
  isApiError(error: unknown): error is Error;
}

const PROMPT = "echo hi, then tell me the date";

export const TARGETS = {
  "day-2-v3": {
    run: (baseURL) =>
      v3Agent.runAgent(
        PROMPT,
        new v3Model.AnthropicProvider({ model: "fuzz-model", baseURL }),
        v3Tools.defaultTools(),
        { maxSteps: 4 },
      ),
    isApiError: (error) => error instanceof v3Model.ApiError,
  },
  "day-2-challenges": {
    run: (baseURL) =>
      challengesAgent.runAgent(
        PROMPT,
        new challengesModel.AnthropicProvider({ model: "fuzz-model", baseURL }),
        challengesTools.defaultTools(),
        { maxSteps: 4, onText: () => {} },
      ),
    isApiError: (error) => error instanceof challengesModel.ApiError,
  },
} satisfies Record<string, Target>;

export type FuzzStage = keyof typeof TARGETS;

// Runs the property `runs` times against one fake server, with a clean environment for the provider.
export async function fuzz(options: {
  runs: number;
  seed?: number;
  stage?: FuzzStage;
}): Promise<FuzzReport> {
  const target = TARGETS[options.stage ?? "day-2-v3"];
  const server = await startFakeServer();
  const restore = useFuzzEnvironment();
  const started = performance.now();
  const tally = { finished: 0, apiErrors: 0, multiTurn: 0 };
  try {
    const details = await fc.check(
      fc.asyncProperty(scriptArbitrary(), async (steps) => {
        const ending = await holds(server, steps, target);
        tally[ending] += 1;
        if (server.requests().length > 1) tally.multiTurn += 1;
        return true;
      }),
      { numRuns: options.runs, ...(options.seed === undefined ? {} : { seed: options.seed }) },
    );
    return {
      runs: details.numRuns,
      ms: Math.round(performance.now() - started),
      seed: details.seed,
      ...tally,
      ...(details.failed
        ? { failure: `${fc.defaultReportMessage(details)}\n${String(details.errorInstance)}` }
        : {}),
    };
  } finally {
    restore();
    await server.close();
  }
}

// One case, for the fixed regressions: throws, naming what escaped, when the property fails.
export async function checkCase(steps: StepResult[], stage: FuzzStage = "day-2-v3"): Promise<void> {
  const server = await startFakeServer();
  const restore = useFuzzEnvironment();
  try {
    await holds(server, steps, TARGETS[stage]);
  } finally {
    restore();
    await server.close();
  }
}

// The property: returns how the run ended, or throws with what went wrong.
async function holds(
  server: FakeServer,
  steps: StepResult[],
  target: Target,
): Promise<"finished" | "apiErrors"> {
  server.reset();
  server.script(steps);
  let outcome: { trace: string[] } | { error: unknown };
  try {
    outcome = await target.run(server.url);
  } catch (error) {
    outcome = { error };
  }
  if ("trace" in outcome) {
    const text = outcome.trace.join("\n");
    if (!outcome.trace.at(-1)?.startsWith("final: ")) throw new Error(`no final line: ${text}`);
    if (text.includes(CANARY)) throw new Error("the key appeared in the trace");
    return "finished";
  }
  const { error } = outcome;
  if (!target.isApiError(error)) throw new Error(`escaped: ${String(error)}`, { cause: error });
  if (error.message.includes(CANARY)) throw new Error("the key appeared in an ApiError");
  // The API's own error text is shown as it is; everything else fits on one line.
  const ownLines = envelopeMessages(steps).some((text) => error.message.includes(text));
  if (error.message.includes("\n") && !ownLines) {
    throw new Error(`an ApiError of several lines: ${JSON.stringify(error.message)}`);
  }
  return "apiErrors";
}

function useFuzzEnvironment(): () => void {
  const names = [
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "AGENT_CODE_TIMEOUT_MS",
    "AGENT_CODE_MAX_RETRIES",
  ];
  const saved = names.map((name) => [name, process.env[name]] as const);
  for (const name of names) delete process.env[name];
  Object.assign(process.env, {
    ANTHROPIC_AUTH_TOKEN: CANARY,
    AGENT_CODE_TIMEOUT_MS: "5000",
    AGENT_CODE_MAX_RETRIES: "0",
  });
  return () => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}

// The error texts a script's envelopes carry, which an ApiError may quote as they are.
function envelopeMessages(steps: StepResult[]): string[] {
  return steps.flatMap((step) => {
    if ("error" in step) return [step.error.message];
    if (!("raw" in step)) return [];
    try {
      const message = JSON.parse(step.raw.body ?? "")?.error?.message;
      return typeof message === "string" ? [message] : [];
    } catch {
      return [];
    }
  });
}

// --- generators -------------------------------------------------------------------------------

// The stop reason a real service would send for the blocks: tool_use when one calls a tool.
const DERIVED = "(derived)";
const STOP_REASONS = [
  "end_turn",
  "tool_use",
  "max_tokens",
  "stop_sequence",
  "refusal",
  "pause_turn",
  "model_context_window_exceeded",
];
const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/vnd.api+json",
  "text/plain",
  "text/html; charset=utf-8",
  "text/event-stream",
  "application/octet-stream",
];
// One to four answers, often followed by a plain text answer, so that runs whose tools ran can
// also finish.
function scriptArbitrary(): fc.Arbitrary<StepResult[]> {
  return fc
    .tuple(fc.array(stepArbitrary(), { minLength: 1, maxLength: 4 }), fc.boolean())
    .map(([steps, answer]) =>
      answer ? [...steps, { content: [{ type: "text" as const, text: "done" }] }] : steps,
    );
}

function stepArbitrary(): fc.Arbitrary<StepResult> {
  return fc.oneof(
    { weight: 3, arbitrary: messageArbitrary().map((message) => rawJson(200, message)) },
    { weight: 2, arbitrary: replyStepArbitrary() },
    { weight: 2, arbitrary: brokenMessageArbitrary().map((value) => rawJson(200, value)) },
    { weight: 1, arbitrary: truncatedArbitrary() },
    { weight: 1, arbitrary: wrongTypeArbitrary() },
    { weight: 1, arbitrary: statusArbitrary() },
    { weight: 1, arbitrary: fc.constantFrom(...FAULTS).map((fault) => ({ fault })) },
  );
}

// A valid message with a random mix of blocks, known and unknown, and a random stop reason.
function messageArbitrary(): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .record({
      id: fc.constant("msg_fuzz"),
      type: fc.constant("message"),
      role: fc.constant("assistant"),
      model: fc.constant("fuzz-model"),
      content: fc.array(blockArbitrary(), { maxLength: 5 }),
      stop_reason: fc.oneof(
        { weight: 4, arbitrary: fc.constant(DERIVED) },
        { weight: 2, arbitrary: fc.constantFrom(...STOP_REASONS) },
        { weight: 1, arbitrary: fc.oneof(fc.string(), fc.constant(null)) },
      ),
      stop_sequence: fc.constant(null),
      usage: fc.constant({ input_tokens: 10, output_tokens: 10 }),
    })
    .map((message) => {
      if (message.stop_reason !== DERIVED) return message;
      const calls = message.content.some((block) => block.type === "tool_use");
      return { ...message, stop_reason: calls ? "tool_use" : "end_turn" };
    });
}

function blockArbitrary(): fc.Arbitrary<Record<string, unknown>> {
  return fc.oneof(
    fc.record({ type: fc.constant("text"), text: fc.string() }),
    fc.record({
      type: fc.constant("tool_use"),
      id: fc.nat(999_999).map((n) => `toolu_f${n}`),
      name: fc.constantFrom("echo", "system_date", "read_file"),
      input: fc.oneof(
        fc.record({ text: fc.string() }),
        fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 })),
        fc.jsonValue({ maxDepth: 2 }),
      ),
    }),
    fc.record({ type: fc.constant("thinking"), thinking: fc.string(), signature: fc.string() }),
    fc.record({ type: fc.constant("redacted_thinking"), data: fc.string() }),
    fc
      .tuple(
        fc.oneof(fc.constantFrom("server_tool_use", "web_search_tool_result"), fc.string()),
        fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 })),
      )
      .map(([type, fields]) => ({ ...fields, type })),
  );
}

// The fake server's own reply steps, so that runs also go on for several turns.
function replyStepArbitrary(): fc.Arbitrary<StepResult> {
  const block = fc.oneof(
    fc.record({ type: fc.constant("text" as const), text: fc.string() }),
    fc.record({
      type: fc.constant("tool_use" as const),
      name: fc.constantFrom("echo", "system_date", "read_file"),
      input: fc.oneof(
        fc.record({ text: fc.string() }),
        fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 })),
      ),
    }),
  );
  return fc.record(
    {
      content: fc.array(block, { maxLength: 3 }),
      stop_reason: fc.constantFrom(...STOP_REASONS),
    },
    { requiredKeys: ["content"] },
  );
}

// A valid message with one field, one block or one block's field set to any JSON value, or gone.
function brokenMessageArbitrary(): fc.Arbitrary<unknown> {
  const anything = fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined });
  return fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc
      .tuple(
        messageArbitrary(),
        fc.constantFrom("id", "type", "role", "content", "stop_reason"),
        anything,
      )
      .map(([message, field, value]) => ({ ...message, [field]: value })),
    fc
      .tuple(
        messageArbitrary().filter((message) => (message.content as unknown[]).length > 0),
        fc.nat(),
        fc.constantFrom("", "type", "text", "id", "name", "input"),
        anything,
      )
      .map(([message, at, field, value]) => {
        const content = [...(message.content as Record<string, unknown>[])];
        const index = at % content.length;
        content[index] = field === "" ? (value as never) : { ...content[index], [field]: value };
        return { ...message, content };
      }),
  );
}

// A message's JSON cut off at any point, as application/json.
function truncatedArbitrary(): fc.Arbitrary<StepResult> {
  return fc.tuple(messageArbitrary(), fc.nat()).map(([message, at]) => {
    const json = JSON.stringify(message);
    return raw(200, "application/json", json.slice(0, at % json.length));
  });
}

// A valid message under any content type, or none.
function wrongTypeArbitrary(): fc.Arbitrary<StepResult> {
  return fc
    .tuple(messageArbitrary(), fc.option(fc.constantFrom(...CONTENT_TYPES), { nil: undefined }))
    .map(([message, type]) => raw(200, type, JSON.stringify(message)));
}

// Any status from 200 to 599, with the API's error envelope, other JSON or any text.
function statusArbitrary(): fc.Arbitrary<StepResult> {
  const envelope = fc
    .record({ type: fc.string(), message: fc.string() })
    .map((error) => JSON.stringify({ type: "error", error }));
  const body = fc.oneof(
    envelope,
    fc.jsonValue().map((value) => JSON.stringify(value)),
    fc.string(),
  );
  return fc
    .tuple(fc.integer({ min: 200, max: 599 }), fc.option(fc.constantFrom(...CONTENT_TYPES)), body)
    .map(([status, type, text]) => raw(status, type ?? undefined, text));
}

function rawJson(status: number, value: unknown): StepResult {
  return raw(status, "application/json", JSON.stringify(value) ?? "");
}

function raw(status: number, type: string | undefined, body: string): StepResult {
  return { raw: { status, headers: type === undefined ? {} : { "content-type": type }, body } };
}

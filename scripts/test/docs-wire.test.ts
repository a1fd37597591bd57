// The wire kept beside each replay (issue #46): the fake server hands back what it sent, a stream
// adds up to the very message the same step sends unstreamed (for the Messages API, Responses and
// Chat Completions), and every stored wire is the run of its replay, with no key, port or machine
// path in it.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  CANARY_TOKEN,
  type RecordedResponse,
  startFakeServer,
  type Wire,
  type WireExchange,
} from "@agent-code/test-kit";
import { expect, test } from "vitest";
import { ROOT } from "../lib/command.ts";
import { replayIds } from "../lib/docs-replays.ts";
import { addUp, layoutJson, parseEvents, wireExcerpt, wireFile } from "../lib/docs-wire.ts";

const TWO_CALLS = {
  content: [
    { type: "text" as const, text: "Let me read both files." },
    { type: "tool_use" as const, name: "read_file", input: { path: "a.txt" } },
    { type: "tool_use" as const, name: "read_file", input: { path: "b.txt" } },
  ],
};
const READ_FILE = {
  name: "read_file",
  description: "Read a file",
  parameters: { type: "object", properties: { path: { type: "string" } } },
};
// One request per API, as a client sends it: the step above answers each.
const BODIES = {
  messages: {
    path: "/v1/messages",
    body: {
      model: "deepseek-v4-flash",
      max_tokens: 1024,
      messages: [{ role: "user", content: "What is in a.txt and b.txt?" }],
      tools: [
        {
          name: READ_FILE.name,
          description: READ_FILE.description,
          input_schema: READ_FILE.parameters,
        },
      ],
    },
  },
  responses: {
    path: "/v1/responses",
    body: {
      model: "gpt-4.1",
      input: "What is in a.txt and b.txt?",
      tools: [{ type: "function", strict: false, ...READ_FILE }],
    },
  },
  chat: {
    path: "/v1/chat/completions",
    body: {
      model: "gpt-4.1",
      messages: [{ role: "user", content: "What is in a.txt and b.txt?" }],
      tools: [{ type: "function", function: READ_FILE }],
    },
  },
} as const;

// What the server sent for one request of `api`, streamed or not.
async function sent(api: keyof typeof BODIES, stream: boolean): Promise<RecordedResponse> {
  const server = await startFakeServer({ script: [TWO_CALLS] });
  try {
    const { path, body } = BODIES[api];
    const response = await fetch(`${server.url}${path}`, {
      method: "POST",
      headers: {
        authorization: "Bearer sk-test",
        "x-api-key": "sk-test",
        "anthropic-version": "2023-06-01",
        "content-type": "application/json",
      },
      body: JSON.stringify({ ...body, ...(stream ? { stream: true } : {}) }),
    });
    const text = await response.text();
    await expect.poll(() => server.responses().length).toBe(1);
    const [recorded] = server.responses();
    expect(recorded?.body).toBe(text);
    return recorded as RecordedResponse;
  } finally {
    await server.close();
  }
}

test.each(["messages", "responses", "chat"] as const)(
  "%s: the server records what it sent, and a stream adds up to the unstreamed reply",
  async (api) => {
    const whole = await sent(api, false);
    expect(whole).toMatchObject({ index: 0, status: 200, contentType: "application/json" });
    const streamed = await sent(api, true);
    expect(streamed.contentType).toContain("text/event-stream");
    const events = parseEvents(streamed.body);
    expect(events.length).toBeGreaterThan(3);
    if (api === "chat") expect(events.at(-1)).toEqual({ event: null, data: "[DONE]" });
    else expect(events.every((event) => event.event !== null)).toBe(true);
    const unstreamed = JSON.parse(whole.body);
    const built = addUp(api, events) as Record<string, unknown>;
    if (api === "chat") {
      // A chunk's object is chat.completion.chunk and it carries no logprobs or refusal fields;
      // the message, the tool calls and the finish reason are what a client rebuilds.
      expect(built.choices).toEqual([
        {
          index: 0,
          message: {
            role: "assistant",
            content: unstreamed.choices[0].message.content,
            tool_calls: unstreamed.choices[0].message.tool_calls,
          },
          finish_reason: unstreamed.choices[0].finish_reason,
        },
      ]);
    } else {
      expect(built).toEqual(unstreamed);
    }
  },
  30_000,
);

const stored = readdirSync(join(ROOT, "docs/replays"))
  .filter((name) => name.endsWith(".wire.json"))
  .map((name) => ({
    name,
    wire: JSON.parse(readFileSync(join(ROOT, "docs/replays", name), "utf8")) as Wire,
  }));

test("every stored wire belongs to a replay, names it, and holds no key, port or machine path", () => {
  expect(stored.length).toBeGreaterThanOrEqual(25);
  const ids = replayIds();
  for (const { name, wire } of stored) {
    const id = `${wire.stage}/${wire.scenario}`;
    expect(ids, name).toContain(id);
    expect(`docs/replays/${name}`).toBe(wireFile(id));
    expect(wire.replay).toBe(wireFile(id).replace(/\.wire\.json$/, ".txt"));
    expect(wire.sources).toMatch(/^sha256:[0-9a-f]{64}$/);
    const text = JSON.stringify(wire);
    for (const secret of [CANARY_TOKEN, "sk-test", "x-api-key", "authorization", ROOT, "/tmp/"]) {
      expect(text, `${name} holds ${secret}`).not.toContain(secret);
    }
    expect(text.match(/127\.0\.0\.1:\d+/g) ?? [], name).toEqual([]);
  }
});

// The first tool a run's trace shows is the first tool_use the model sent: the wire is the run of
// the replay beside it, not some other run.
test("each stored wire's first tool call is the replay's first tool_call line", () => {
  let compared = 0;
  for (const { name, wire } of stored) {
    const replay = readFileSync(join(ROOT, wire.replay), "utf8");
    const line = /^tool_call: (\S+)/m.exec(replay)?.[1];
    // A run with no tool_call line may still have been asked for one (a reply cut at max_tokens).
    if (line === undefined) continue;
    expect(wire.exchanges.flatMap(toolNames)[0], name).toBe(line);
    compared += 1;
  }
  expect(compared).toBeGreaterThan(20);
});

// The tool names a response asks for, whatever its API.
function toolNames({ api, response }: WireExchange): string[] {
  // biome-ignore lint/suspicious/noExplicitAny: a stored response, read field by field.
  const message: any = "message" in response ? response.message : response.body;
  if (api === "responses") {
    return (message?.output ?? [])
      .filter((item: { type: string }) => item.type === "function_call")
      .map((item: { name: string }) => item.name);
  }
  if (api === "chat") {
    return (message?.choices?.[0]?.message?.tool_calls ?? []).map(
      (call: { function: { name: string } }) => call.function.name,
    );
  }
  return (message?.content ?? [])
    .filter((block: { type: string }) => block.type === "tool_use")
    .map((block: { name: string }) => block.name);
}

test("a wire block's JSON is the stored part, laid out within 100 columns", () => {
  for (const id of replayIds()) {
    const file = join(ROOT, wireFile(id));
    // A replay whose run asked no model has no wire.
    if (!existsSync(file)) continue;
    const wire = JSON.parse(readFileSync(file, "utf8")) as Wire;
    for (const [index, exchange] of wire.exchanges.entries()) {
      const number = (wire.kept?.first ?? 1) + index;
      const list = exchange.api === "responses" ? "request.input" : "request.messages";
      for (const path of ["request", list, "response"]) {
        const part = wireExcerpt(wire, number, path);
        const text = layoutJson(part);
        expect(JSON.parse(text)).toEqual(part);
        // A line is longer only where one string alone is (a long tool result).
        for (const line of text.split("\n")) {
          if (line.length > 100) expect(line.trimStart()).toMatch(/^("[^"]*": )?"/);
        }
      }
      const { response } = exchange;
      expect(wireExcerpt(wire, number, "response")).toBe(
        "message" in response ? response.message : response.body,
      );
    }
  }
});

test("a long run's wire keeps the requests its page shows, numbered as the run sent them", () => {
  const id = "day-6-v3/compact-pairs-intact-text";
  const wire = JSON.parse(readFileSync(join(ROOT, wireFile(id)), "utf8")) as Wire;
  expect(wire.kept).toEqual({ first: 20, of: 26 });
  expect(wire.exchanges).toHaveLength(2);
  // Request 20 is the last before the compaction, request 21 the first after it.
  const opening = (number: number) =>
    JSON.stringify(wireExcerpt(wire, number, "request.messages.0"));
  expect(opening(20)).not.toContain("<compacted-history>");
  expect(opening(21)).toContain("<compacted-history>");
  expect(() => wireExcerpt(wire, 19, "request")).toThrow(
    "the stored wire keeps requests 20 to 21 of 26, not 19",
  );
});

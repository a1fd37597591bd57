// The stored wires of docs/replays read into the site's one view of a run, for each API the
// course speaks, and the Markdown renderer putting that view under the replays that have one.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Wire } from "@agent-code/test-kit";
import { createMarkdownRenderer, disposeMdItInstance } from "vitepress";
import { describe, expect, test } from "vitest";
import { markdownOptions } from "../lib/markdown.ts";
import { readWire, type WireItem, type WireStep, wireSteps } from "../lib/wire.ts";
import { finalAnswerText } from "./support.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const DOCS = join(ROOT, "docs");

function stored(name: string): Wire {
  return JSON.parse(readFileSync(join(DOCS, "replays", `${name}.wire.json`), "utf8")) as Wire;
}

const answerText = (step: WireStep | undefined) =>
  (step?.answer ?? []).filter((item) => item.kind === "text").map((item) => item.text);

const toolIds = (steps: WireStep[], kind: "tool_call" | "tool_result") =>
  new Set(
    steps.flatMap((step) =>
      [...step.sent, ...step.answer].filter((item) => item.kind === kind).map((item) => item.id),
    ),
  );

describe("a run's wire, step by step", () => {
  const cases = [
    { api: "messages", name: "day-2-v2-system-date-round", streamed: false, calls: 1 },
    { api: "messages", name: "day-2-v2-parallel-tool-calls", streamed: false, calls: 2 },
    { api: "messages", name: "day-2-challenges-streams", streamed: true, calls: 1 },
    { api: "messages", name: "day-4-v2-edit-yes", streamed: false, calls: 1 },
    {
      api: "responses",
      name: "appendix-providers-two-step-chain-openai",
      streamed: false,
      calls: 1,
    },
    {
      api: "chat",
      name: "appendix-providers-two-step-chain-openai-chat",
      streamed: false,
      calls: 1,
    },
  ];

  test.each(cases)("$api: $name", ({ api, name, streamed, calls }) => {
    const wire = stored(name);
    const steps = wireSteps(wire);
    expect(steps).toHaveLength(wire.exchanges.length);
    expect(steps.length).toBeGreaterThan(1);
    expect(steps.map((step) => step.api)).toEqual(steps.map(() => api));
    expect(steps.map((step) => step.streamed)).toEqual(steps.map(() => streamed));
    if (streamed) {
      expect(steps.map((step) => step.events)).toEqual(
        wire.exchanges.map(({ response }) => ("events" in response ? response.events.length : 0)),
      );
    }
    expect(steps.map((step) => step.status)).toEqual(steps.map(() => 200));

    // The first request is all new; the second adds the model's turn and then the tool results.
    const [first, second] = steps as [WireStep, WireStep];
    expect(first.newFrom).toBe(0);
    expect(first.sent.map((item) => [item.role, item.kind])).toContainEqual(["user", "text"]);
    const added = second.sent.slice(second.newFrom);
    expect(second.sent.slice(0, second.newFrom)).toEqual(first.sent);
    const toolCalls = (items: WireItem[]) =>
      items
        .filter((item) => item.kind === "tool_call")
        .map(({ id, name, input }) => ({ id, name, input }));
    expect(toolCalls(added)).toEqual(toolCalls(first.answer));
    expect(toolCalls(added)).toHaveLength(calls);
    const results = added.filter((item) => item.kind === "tool_result");
    expect(results).toHaveLength(calls);
    expect(added.at(-1)?.kind).toBe("tool_result");
    // Each API's own shape: the Messages API holds every result of a round in one user message;
    // Chat sends a tool message a result, Responses an item a result.
    const role = { messages: "user", chat: "tool", responses: "function_call_output" }[api];
    expect(results.map((item) => item.role)).toEqual(results.map(() => role));
    const places = new Set(results.map((item) => item.message));
    expect(places.size).toBe(api === "messages" ? 1 : calls);

    // Every call has its result, matched by id.
    expect(toolIds(steps, "tool_result")).toEqual(toolIds(steps, "tool_call"));
    expect(toolIds(steps, "tool_call").size).toBeGreaterThan(0);

    // The model stops to call a tool, then at last answers in words.
    expect(first.stop).toMatch(/^(tool_use|tool_calls|completed)$/);
    expect(steps.at(-1)?.stop).toMatch(/^(end_turn|stop|completed)$/);
    const text = finalAnswerText(wire);
    expect(text).not.toBe("");
    expect(answerText(steps.at(-1)).at(-1)).toBe(text);
    expect(steps.at(-1)?.request).toBe(wire.exchanges.at(-1)?.request);
  });

  test("a tool call's input is the object its JSON arguments encode (OpenAI)", () => {
    const steps = wireSteps(stored("appendix-providers-two-step-chain-openai-chat"));
    const echo = steps[1]?.answer.find((item) => item.kind === "tool_call");
    expect(echo).toEqual({
      role: "assistant",
      kind: "tool_call",
      id: "call_echo_2",
      name: "echo",
      input: { text: "2026-05-20 14:32:00 UTC" },
    });
  });

  test("an HTTP error is the answer, marked as one", () => {
    const [step, ...rest] = wireSteps(stored("day-2-v1-answer-404-page-text"));
    expect(rest).toEqual([]);
    expect(step?.status).toBe(404);
    expect(step?.stop).toBeUndefined();
    expect(step?.answer).toEqual([
      expect.objectContaining({
        kind: "text",
        isError: true,
        text: expect.stringContaining("404"),
      }),
    ]);
    const error = wireSteps({
      ...stored("day-2-v1-one-line-answer"),
      exchanges: [
        {
          api: "messages",
          request: { method: "POST", path: "/v1/messages", body: { messages: [] } },
          response: {
            status: 529,
            body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
          },
        },
      ],
    });
    expect(error[0]?.answer).toEqual([
      { role: "assistant", kind: "text", text: "overloaded_error: Overloaded", isError: true },
    ]);
  });

  test("a system prompt is the first item, and not new on the next request", () => {
    const wire = stored("day-2-v2-system-date-round");
    const withSystem: Wire = {
      ...wire,
      exchanges: wire.exchanges.map((exchange) => ({
        ...exchange,
        request: {
          ...exchange.request,
          body: { ...(exchange.request.body as object), system: "Be brief." },
        },
      })),
    };
    const [first, second] = wireSteps(withSystem);
    expect(first?.sent[0]).toEqual({ role: "system", message: 0, kind: "text", text: "Be brief." });
    expect(second?.newFrom).toBe(2);
  });

  test("a wire that keeps part of a run marks nothing new in its first request, and news after it", () => {
    const wire = stored("day-6-v3-compact-pairs-intact-text");
    expect(wire.kept).toEqual({ first: 20, of: 26 });
    const [before, after] = wireSteps(wire);
    expect(before?.newFrom).toBe(before?.sent.length);
    // The compaction replaced the conversation's start: after the system prompt, request 21 is new
    // from its first message, the summary.
    expect(after?.sent[0]?.role).toBe("system");
    expect(after?.newFrom).toBe(1);
    expect(JSON.stringify(after?.sent[1])).toContain("<compacted-history>");
  });

  test("readWire finds the file, or none; a wire of an unknown version is refused by name", () => {
    expect(readWire(DOCS, "day-2-v2", "system-date-round")?.exchanges).toHaveLength(2);
    expect(readWire(DOCS, "day-1", "exact-output")).toBeUndefined();
    const future = { ...stored("day-2-v2-system-date-round"), version: 2 } as unknown as Wire;
    expect(() => wireSteps(future)).toThrow(
      /docs\/replays\/day-2-v2-system-date-round\.wire\.json: wire version 2 is unknown/,
    );
  });
});

describe("the Markdown renderer and the wires", () => {
  async function render(markdown: string): Promise<string> {
    disposeMdItInstance();
    const options = { root: ROOT, docsDir: DOCS, repository: undefined, rewrites: {} };
    const md = await createMarkdownRenderer(DOCS, markdownOptions(options));
    return md.render(markdown, { path: join(DOCS, "day-2.md"), realPath: join(DOCS, "day-2.md") });
  }

  const replay = (name: string) =>
    `<!-- replay: ${name} -->\n\`\`\`text\n$ agent-code hi\n\`\`\`\n`;

  test("a replay with a stored wire is followed by the wire view; one without gets none", async () => {
    const html = await render(replay("day-2-v2/system-date-round"));
    const match = /<WireView wire="([^"]*)" \/>/.exec(html);
    expect(html.indexOf("<WireView")).toBeGreaterThan(html.indexOf("language-console"));
    const data = JSON.parse(decodeURIComponent(match?.[1] ?? "{}"));
    expect(data).toMatchObject({ version: 1, stage: "day-2-v2", scenario: "system-date-round" });
    expect(data.steps).toEqual(
      JSON.parse(JSON.stringify(wireSteps(stored("day-2-v2-system-date-round")))),
    );
    expect(match?.[1]).not.toMatch(/["<>{}]/);

    expect(await render(replay("day-1/exact-output"))).not.toContain("<WireView");
    expect(await render("```text\n$ agent-code hi\n```\n")).not.toContain("<WireView");
  });
});

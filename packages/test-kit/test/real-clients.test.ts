// Clients nobody here wrote, against the fake server unchanged: the Vercel AI SDK's Anthropic
// provider and the official SDK's helpers. Each works as against the real service and sees the
// real 400 for a request the real service rejects.
import { createAnthropic } from "@ai-sdk/anthropic";
import { betaTool } from "@anthropic-ai/sdk/helpers/beta/json-schema";
import { APICallError, generateText, jsonSchema, stepCountIs, streamText, tool } from "ai";
import { describe, expect, test } from "vitest";
import { apiRejection, clientFor, rejection, start } from "./support.ts";

const LIMIT_TEXT =
  "max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for claude-haiku-4-5";

function aiProvider(url: string) {
  // The AI SDK's base URL ends in /v1; it appends /messages.
  return createAnthropic({ baseURL: `${url}/v1`, apiKey: "test-key" });
}

const weatherSchema = {
  type: "object" as const,
  properties: { city: { type: "string" as const } },
  required: ["city"],
  additionalProperties: false,
};

describe("the Vercel AI SDK's Anthropic provider", () => {
  test("generateText gets the scripted answer", async () => {
    const server = await start({ script: [{ content: [{ type: "text", text: "Hello there." }] }] });
    const result = await generateText({
      model: aiProvider(server.url)("claude-sonnet-4-6"),
      prompt: "Say hello.",
      maxRetries: 0,
    });
    expect(result.text).toBe("Hello there.");
    expect(result.finishReason).toBe("stop");
    const [request] = server.requests();
    expect(request?.verdict).toEqual({ accepted: true });
    expect(request?.headers["anthropic-version"]).toBe("2023-06-01");
  });

  test("streamText rebuilds the streamed answer", async () => {
    const text = "Streaming works, piece by piece, as the deltas arrive.";
    const server = await start({ script: [{ content: [{ type: "text", text }] }] });
    const result = streamText({
      model: aiProvider(server.url)("claude-sonnet-4-6"),
      prompt: "Stream something.",
      maxRetries: 0,
    });
    let joined = "";
    for await (const delta of result.textStream) joined += delta;
    expect(joined).toBe(text);
    expect(await result.finishReason).toBe("stop");
    expect(server.requests()[0]?.body.stream).toBe(true);
  });

  test("a tool round: the call runs and its result goes back paired", async () => {
    const server = await start({
      script: [
        { content: [{ type: "tool_use", name: "weather", input: { city: "Paris" } }] },
        { content: [{ type: "text", text: "It is sunny in Paris." }] },
      ],
    });
    const seen: string[] = [];
    const result = await generateText({
      model: aiProvider(server.url)("claude-sonnet-4-6"),
      prompt: "Weather in Paris?",
      tools: {
        weather: tool({
          description: "The weather in a city.",
          inputSchema: jsonSchema<{ city: string }>(weatherSchema),
          execute: async ({ city }) => {
            seen.push(city);
            return `sunny in ${city}`;
          },
        }),
      },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    expect(seen).toEqual(["Paris"]);
    expect(result.text).toBe("It is sunny in Paris.");
    const second = server.requests()[1];
    expect(second?.verdict).toEqual({ accepted: true });
    expect(second?.body.messages.at(-1).content[0]).toMatchObject({
      type: "tool_result",
      tool_use_id: "toolu_1",
    });
  });

  test("a request the real service rejects gets its 400", async () => {
    // The provider caps maxOutputTokens itself, so the budget is what breaks a rule here.
    const server = await start({ script: [{ content: [{ type: "text", text: "unused" }] }] });
    const error = await rejection(
      generateText({
        model: aiProvider(server.url)("claude-sonnet-4-6"),
        prompt: "Think a little.",
        providerOptions: { anthropic: { thinking: { type: "enabled", budgetTokens: 500 } } },
        maxRetries: 0,
      }),
    );
    expect(APICallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      statusCode: 400,
      message: "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
    });
    expect(server.requests()[0]?.verdict).toMatchObject({ accepted: false, status: 400 });
  });
});

describe("the official SDK's helpers", () => {
  const weather = betaTool({
    name: "weather",
    description: "The weather in a city.",
    inputSchema: weatherSchema,
    run: ({ city }) => `sunny in ${city}`,
  });

  test("toolRunner runs a tool round to the final answer, threads declined", async () => {
    const server = await start({
      script: [
        { content: [{ type: "tool_use", name: "weather", input: { city: "Oslo" } }] },
        { content: [{ type: "text", text: "Sunny in Oslo." }] },
      ],
    });
    const final = await clientFor(server).beta.messages.toolRunner({
      model: "claude-haiku-4-5",
      max_tokens: 1024,
      messages: [{ role: "user", content: "Weather in Oslo?" }],
      tools: [weather],
    });
    expect(final.content).toEqual([{ type: "text", text: "Sunny in Oslo." }]);
    // The runner asks for a thread; the server declines it the way the service does, and the
    // runner resends the whole conversation without one.
    const verdicts = server
      .requests()
      .map((r) => [r.body.thread?.type ?? null, r.verdict.accepted]);
    expect(verdicts).toEqual([
      ["create", false],
      [null, true],
      [null, true],
    ]);
    expect(server.requests()[0]?.verdict).toMatchObject({ status: 400 });
    const last = server.requests()[2]?.body;
    expect(last.messages.map((m: { role: string }) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
    ]);
    expect(last.messages[2].content[0]).toMatchObject({
      type: "tool_result",
      tool_use_id: "toolu_1",
      content: "sunny in Oslo",
    });
  });

  test("toolRunner sees the real 400 for a request the service rejects", async () => {
    const server = await start({ script: [] });
    const error = await apiRejection(
      clientFor(server)
        .beta.messages.toolRunner({
          model: "claude-haiku-4-5",
          max_tokens: 100000,
          messages: [{ role: "user", content: "Weather in Oslo?" }],
          tools: [weather],
        })
        .runUntilDone(),
    );
    expect(error).toMatchObject({ status: 400, apiMessage: LIMIT_TEXT });
    // The declined thread first, then the whole request unthreaded, which breaks the limit.
    expect(server.requests().map((r) => r.verdict.accepted)).toEqual([false, false]);
  });

  test("messages.stream() rebuilds a reply with a server tool call and its result", async () => {
    const content = [
      { type: "text", text: "Let me search." },
      { type: "server_tool_use", name: "web_search", input: { query: "fake servers" } },
      {
        type: "web_search_tool_result",
        content: [{ type: "web_search_result", url: "https://example.com", title: "Example" }],
      },
      { type: "text", text: "Found one." },
    ];
    const server = await start({ script: [{ content }] });
    const stream = clientFor(server).messages.stream({
      model: "claude-haiku-4-5",
      max_tokens: 1024,
      messages: [{ role: "user", content: "Search for fake servers." }],
    });
    const final = await stream.finalMessage();
    expect(final.content).toEqual([
      { type: "text", text: "Let me search." },
      {
        type: "server_tool_use",
        id: "srvtoolu_1_1",
        name: "web_search",
        input: { query: "fake servers" },
      },
      { ...content[2], tool_use_id: "srvtoolu_1_1" },
      { type: "text", text: "Found one." },
    ]);
    expect(server.requests()[0]?.headers["x-stainless-helper-method"]).toBe("stream");
  });

  test("messages.stream() sees the real 400 for a request the service rejects", async () => {
    const server = await start({ script: [] });
    const stream = clientFor(server).messages.stream({
      model: "claude-haiku-4-5",
      max_tokens: 100000,
      messages: [{ role: "user", content: "hi" }],
    });
    const error = await apiRejection(stream.finalMessage());
    expect(error).toMatchObject({ status: 400, apiMessage: LIMIT_TEXT });
  });
});

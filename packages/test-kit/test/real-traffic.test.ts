// What today's real clients send and what the real service answers: versions and betas, extra
// inputs, every block a response can hold, the other endpoints, and rules 17, 18, 20 and the
// model's output limit.
import { describe, expect, test } from "vitest";
import { validateRequest } from "../src/validator.ts";
import {
  apiRejection,
  assistant,
  type Body,
  clientFor,
  request,
  start,
  toolResult,
  user,
} from "./support.ts";

const OLD = { version: "2023-06-01" };
const NEW = { version: "2026-10-21" };
const MID_SYSTEM = "mid-conversation-system-2026-04-07";

// What a current agent CLI sends on its first request (reference §3, observed against a loopback
// server): the headers, the path and the body.
const CLI_BETAS =
  "claude-code-20250219,context-1m-2025-08-07,interleaved-thinking-2025-05-14,thinking-token-count-2026-05-13,context-management-2025-06-27,prompt-caching-scope-2026-01-05,mid-conversation-system-2026-04-07,effort-2025-11-24";
const CLI_BODY = {
  model: "claude-sonnet-4-6",
  max_tokens: 64000,
  stream: true,
  system: [
    {
      type: "text",
      text: "You are an agent.",
      cache_control: { type: "ephemeral", scope: "global" },
    },
  ],
  messages: [
    { role: "user", content: [{ type: "text", text: "Say hi." }] },
    { role: "system", content: "The user's working directory is /tmp." },
    { role: "user", content: "Go on." },
  ],
  tools: [
    {
      name: "Bash",
      description: "Run a command.",
      input_schema: { type: "object", properties: { command: { type: "string" } } },
    },
  ],
  thinking: { type: "adaptive" },
  context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
  output_config: { effort: "high" },
  metadata: { user_id: "user_abc_account_def_session_ghi" },
};

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

function extra(location: string) {
  return { status: 400, location, message: `${location}: Extra inputs are not permitted` };
}

describe("versions and betas", () => {
  const withSystem = request([user("hi"), { role: "system", content: "Be brief." }, user("go")]);

  test("a mid-conversation system message needs API 2026-10-21 or its beta", () => {
    expect(validateRequest(withSystem, NEW)).toBeNull();
    expect(validateRequest(withSystem, { ...OLD, betas: [MID_SYSTEM] })).toBeNull();
    expect(validateRequest(withSystem, OLD)).toEqual({
      status: 400,
      location: "messages.1.role",
      message: "messages.1.role: Input should be 'user' or 'assistant'",
    });
    expect(validateRequest(withSystem, { ...NEW, flavour: "deepseek" })).toMatchObject({
      location: "messages.1.role",
    });
  });

  test("a system message holds a string or text blocks, and takes no part in the turns", () => {
    const blocks = request([
      user("hi"),
      { role: "system", content: [{ type: "text", text: "Be brief." }] },
      assistant("Hello."),
    ]);
    expect(validateRequest(blocks, NEW)).toBeNull();
    const image = request([
      user("hi"),
      { role: "system", content: [{ type: "image", source: {} }] },
      user("go"),
    ]);
    expect(validateRequest(image, NEW)).toMatchObject({
      message: "messages.1.content.0.type: Input should be 'text'",
    });
  });

  test("fields the current SDK and the agent CLI send are accepted and ignored", () => {
    const body = request([user("hi")], {
      thinking: { type: "adaptive" },
      output_config: { effort: "high" },
      metadata: { user_id: "u1" },
      service_tier: "auto",
      container: "container_1",
    });
    expect(validateRequest(body, NEW)).toBeNull();
    const betaOnly = request([user("hi")], {
      context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
      mcp_servers: [{ type: "url", url: "https://example.com/mcp", name: "docs" }],
    });
    const betas = ["context-management-2025-06-27", "mcp-client-2025-11-20"];
    expect(validateRequest(betaOnly, { ...NEW, betas })).toBeNull();
  });

  test("an unknown field at any depth is an extra input, named where it is", () => {
    const cases: [Body, string][] = [
      [request([user("hi")], { response_format: { type: "json" } }), "response_format"],
      [
        request([
          user("read it"),
          assistant([{ type: "tool_use", id: "toolu_1", name: "r", input: {}, text: "x" }]),
          user([toolResult("toolu_1")]),
        ]),
        "messages.1.content.0.tool_use.text",
      ],
      [
        request([user("hi")], {
          system: [
            { type: "text", text: "a" },
            { type: "text", text: "b", cache_control: { type: "ephemeral", scope: "global" } },
          ],
        }),
        "system.1.cache_control.ephemeral.scope",
      ],
      [
        request([user("hi")], {
          tools: [{ name: "r", input_schema: { type: "object" }, arguments: {} }],
        }),
        "tools.0.custom.arguments",
      ],
      [
        request([user("hi")], { thinking: { type: "enabled", budget_tokens: 1024, level: 1 } }),
        "thinking.enabled.level",
      ],
    ];
    for (const [body, location] of cases)
      expect(validateRequest(body, NEW)).toEqual(extra(location));
  });

  test("a beta-only field without its beta header is an extra input", () => {
    const body = request([user("hi")], { context_management: { edits: [] } });
    expect(validateRequest(body, NEW)).toEqual(extra("context_management"));
    expect(validateRequest(body, { ...NEW, betas: ["effort-2025-11-24"] })).toEqual(
      extra("context_management"),
    );
    expect(validateRequest(body, { ...NEW, betas: ["context-management-2025-06-27"] })).toBeNull();
    const scoped = request([user("hi")], {
      system: [{ type: "text", text: "a", cache_control: { type: "ephemeral", scope: "global" } }],
    });
    expect(
      validateRequest(scoped, { ...NEW, betas: ["prompt-caching-scope-2026-01-05"] }),
    ).toBeNull();
  });

  test("sampling fields pass on API versions before 2026-10-21 only", () => {
    const body = request([user("hi")], { temperature: 0.2, top_p: 0.9, top_k: 40 });
    expect(validateRequest(body, OLD)).toBeNull();
    expect(validateRequest(body, NEW)).toEqual(extra("temperature"));
  });

  test("the DeepSeek flavour ignores unknown fields, as DeepSeek does", () => {
    const body = request([user("hi")], {
      response_format: {},
      foo: 1,
      thinking: { type: "disabled" },
    });
    expect(validateRequest(body, { ...NEW, flavour: "deepseek" })).toBeNull();
  });

  test("the agent CLI's first request passes, on ?beta=true, after its HEAD /", async () => {
    const server = await start({
      key: "sk-cli",
      script: [{ content: [{ type: "text", text: "hi" }] }],
    });
    const head = await fetch(`${server.url}/`, { method: "HEAD" });
    expect(head.status).toBe(200);
    const response = await post(`${server.url}/v1/messages?beta=true`, CLI_BODY, {
      authorization: "Bearer sk-cli",
      "anthropic-version": "2023-06-01",
      "anthropic-beta": CLI_BETAS,
      "x-app": "cli",
      accept: "application/json",
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(response.text).toContain("event: message_stop");
    expect(server.requests().map((r) => [r.method, r.path, r.verdict.accepted])).toEqual([
      ["HEAD", "/", true],
      ["POST", "/v1/messages", true],
    ]);
  });

  test("the CLI's request without its betas gets the real 400s", async () => {
    const server = await start();
    const withoutBetas = await post(`${server.url}/v1/messages`, CLI_BODY, {
      "anthropic-version": "2023-06-01",
    });
    expect(withoutBetas.status).toBe(400);
    expect(JSON.parse(withoutBetas.text).error.message).toBe(
      "messages.1.role: Input should be 'user' or 'assistant'",
    );
    const onlySystem = await post(`${server.url}/v1/messages`, CLI_BODY, {
      "anthropic-version": "2023-06-01",
      "anthropic-beta": MID_SYSTEM,
    });
    expect(JSON.parse(onlySystem.text).error.message).toBe(
      "context_management: Extra inputs are not permitted",
    );
  });
});

describe("blocks a real response can hold", () => {
  const SEARCH = [
    { type: "server_tool_use", name: "web_search", input: { query: "weather" } },
    { type: "web_search_tool_result", content: [] },
    { type: "text", text: "Sunny." },
  ];

  test("steps script server tool, MCP and unknown blocks, in JSON and SSE alike", async () => {
    const content = [
      ...SEARCH,
      {
        type: "web_fetch_tool_result",
        tool_use_id: "srvtoolu_x",
        content: { type: "web_fetch_result" },
      },
      { type: "code_execution_tool_result", tool_use_id: "srvtoolu_y", content: { stdout: "" } },
      { type: "container_upload", file_id: "file_1" },
      { type: "mcp_tool_use", name: "lookup", server_name: "docs", input: { q: 1 } },
      { type: "mcp_tool_result", content: [{ type: "text", text: "found" }], is_error: false },
      { type: "brand_new_block", anything: { nested: [1, 2] } },
    ];
    const server = await start({ script: [{ content }, { content }] });
    const client = clientFor(server);
    const params = { model: "claude-haiku-4-5", max_tokens: 100, messages: [user("go")] };
    const plain = await client.messages.create(params);
    // MCP blocks are a beta's: the beta stream helper is the one that rebuilds their input.
    const streamed = await client.beta.messages.stream(params).finalMessage();
    expect(plain.content).toEqual([
      { ...SEARCH[0], id: "srvtoolu_1_1" },
      { ...SEARCH[1], tool_use_id: "srvtoolu_1_1" },
      SEARCH[2],
      content[3],
      content[4],
      content[5],
      { ...content[6], id: "mcptoolu_1_2" },
      { ...content[7], tool_use_id: "mcptoolu_1_2" },
      content[8],
    ]);
    // The stream's message is msg_2, so its filled-in ids say 2 where the first reply's say 1.
    const renumbered = JSON.stringify(plain.content).replaceAll("toolu_1_", "toolu_2_");
    expect(streamed.content).toEqual(JSON.parse(renumbered));
  });

  test("a bad step block names its field; an unknown type is passed as given", async () => {
    const server = await start();
    expect(() => server.script([{ content: [{ type: "server_tool_use", input: {} }] }])).toThrow(
      'step 1: content[0]: "name" is required',
    );
    expect(() => server.script([{ content: [{ type: "container_upload", file_id: 3 }] }])).toThrow(
      'step 1: content[0]: "file_id" must be a string',
    );
    expect(() => server.script([{ content: [{ type: "x", whatever: true }] }])).not.toThrow();
  });

  test("server blocks sent back in an assistant turn pass; an unanswered call does not", () => {
    const call = { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} };
    const result = { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] };
    const back = (blocks: unknown[]) =>
      request([user("weather?"), assistant(blocks), user("thanks")]);
    expect(validateRequest(back([call, result, { type: "text", text: "Sunny." }]))).toBeNull();
    expect(
      validateRequest(
        back([
          { type: "brand_new_block", x: 1 },
          { type: "text", text: "ok" },
        ]),
      ),
    ).toBeNull();
    expect(validateRequest(back([call, { type: "text", text: "Sunny." }]))).toMatchObject({
      location: "messages.1",
      message: expect.stringContaining("srvtoolu_1"),
    });
    expect(validateRequest(back([{ ...result, tool_use_id: "srvtoolu_9" }]))).toEqual({
      status: 400,
      location: "messages.1.content.0",
      message:
        "messages.1.content.0: unexpected `tool_use_id` found in `web_search_tool_result` blocks: srvtoolu_9. Each `web_search_tool_result` block must have a corresponding `server_tool_use` block before it.",
    });
    // A final assistant turn may end on a call still running (pause_turn, sent back to continue).
    expect(validateRequest(request([user("weather?"), assistant([call])]))).toBeNull();
  });
});

describe("the other endpoints", () => {
  test("count_tokens estimates input tokens and validates like messages, without max_tokens", async () => {
    const server = await start();
    const client = clientFor(server);
    const body = { model: "claude-haiku-4-5", messages: [user("How many tokens is this?")] };
    const count = await client.messages.countTokens(body);
    expect(count.input_tokens).toBeGreaterThan(1);
    const error = await apiRejection(
      client.messages.countTokens({ ...body, max_tokens: 10 } as typeof body),
    );
    expect(error).toMatchObject({
      status: 400,
      apiMessage: "max_tokens: Extra inputs are not permitted",
    });
    expect(server.requests().map((r) => [r.path, r.verdict.accepted])).toEqual([
      ["/v1/messages/count_tokens", true],
      ["/v1/messages/count_tokens", false],
    ]);
  });

  test("the model list pages like the real one; one model, or the real 404", async () => {
    const models = ["m-a", "m-b", "m-c", "m-d", "m-e"].map((id) => ({ id }));
    const server = await start({ models });
    const client = clientFor(server);
    const all: string[] = [];
    for await (const model of client.models.list({ limit: 2 })) all.push(model.id);
    expect(all).toEqual(["m-a", "m-b", "m-c", "m-d", "m-e"]);
    const page = await (await fetch(`${server.url}/v1/models?limit=2&after_id=m-b`)).json();
    expect(page).toMatchObject({ has_more: true, first_id: "m-c", last_id: "m-d" });
    expect((await client.models.retrieve("m-c")).type).toBe("model");
    const missing = await apiRejection(client.models.retrieve("m-z"));
    expect(missing).toMatchObject({
      status: 404,
      type: "not_found_error",
      apiMessage: "model: m-z",
    });
    const bad = await fetch(`${server.url}/v1/models?limit=0`);
    expect(bad.status).toBe(400);
  });

  test("GET / answers 200; a body over 32 MB gets the real 413", async () => {
    const server = await start();
    const root = await fetch(`${server.url}/`);
    expect([root.status, await root.json()]).toEqual([200, {}]);
    const huge = await post(`${server.url}/v1/messages`, "x".repeat(32 * 1024 * 1024 + 1));
    expect(huge.status).toBe(413);
    expect(JSON.parse(huge.text).error).toEqual({
      type: "request_too_large",
      message: "Request exceeds the maximum allowed number of bytes.",
    });
    // 32 MB through a socket: seconds on a quiet machine, far more beside a busy one.
  }, 120_000);
});

describe("rules 17, 18 and the model's output limit", () => {
  const thinkingOn = (budget: number, extraFields: Body = {}) =>
    request([user("hi")], { thinking: { type: "enabled", budget_tokens: budget }, ...extraFields });

  test("the thinking budget is at least 1024 and below max_tokens (rule 17)", () => {
    expect(validateRequest(thinkingOn(1000), NEW)).toEqual({
      status: 400,
      location: "thinking.enabled.budget_tokens",
      message: "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
    });
    expect(validateRequest(thinkingOn(2048), NEW)).toEqual({
      status: 400,
      message:
        "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size",
    });
    expect(validateRequest(thinkingOn(2047), NEW)).toBeNull();
  });

  test("manual thinking may not be forced to use a tool; adaptive may (rule 18)", () => {
    const tools = [{ name: "r", input_schema: { type: "object" } }];
    const forced = { tools, tool_choice: { type: "any" } };
    expect(validateRequest(thinkingOn(1024, forced), NEW)).toEqual({
      status: 400,
      message: "Thinking may not be enabled when tool_choice forces tool use.",
    });
    const adaptive = request([user("hi")], { thinking: { type: "adaptive" }, ...forced });
    expect(validateRequest(adaptive, NEW)).toBeNull();
  });

  test("max_tokens above the model's limit, from the server's table, which a test can replace", async () => {
    const body = request([user("hi")], { model: "claude-3-5-sonnet-20240620", max_tokens: 10000 });
    expect(validateRequest(body, NEW)).toEqual({
      status: 400,
      location: "max_tokens",
      message:
        "max_tokens: 10000 > 4096, which is the maximum allowed number of output tokens for claude-3-5-sonnet-20240620",
    });
    expect(
      validateRequest(request([user("hi")], { model: "unlisted", max_tokens: 10 ** 6 })),
    ).toBeNull();
    const server = await start({
      models: [{ id: "tiny", max_tokens: 5 }],
      script: [{ content: [{ type: "text", text: "ok" }] }],
    });
    const error = await apiRejection(
      clientFor(server).messages.create({ model: "tiny", max_tokens: 6, messages: [user("hi")] }),
    );
    expect(error.apiMessage).toBe(
      "max_tokens: 6 > 5, which is the maximum allowed number of output tokens for tiny",
    );
    expect(validateRequest(body, { ...NEW, flavour: "deepseek" })).not.toEqual(
      expect.objectContaining({ location: "max_tokens" }),
    );
  });
});

describe("message threads", () => {
  test("a request with `thread` is declined the way the service declines an unthreadable one", async () => {
    const server = await start();
    const response = await post(
      `${server.url}/v1/messages`,
      request([user("hi")], { thread: { type: "create" } }),
      {
        "anthropic-beta": "message-threads-2026-08-12",
      },
    );
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text).error).toMatchObject({
      type: "invalid_request_error",
      details: { error_code: "thread_unsupported_request", unsupported: [] },
    });
    // DeepSeek ignores the field, so a threaded second turn is an orphan result there.
    expect(
      validateRequest(request([user([toolResult("toolu_1")])], { thread: { type: "continue" } }), {
        flavour: "deepseek",
      }),
    ).toMatchObject({ message: expect.stringContaining("unexpected `tool_use_id`") });
  });
});

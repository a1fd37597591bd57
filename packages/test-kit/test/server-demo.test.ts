// The instructors' live demo: a script that replays for every new conversation (--loop), the
// requests as readable text (?pretty), and the bug the demo shows: each tool_result in its own
// user message is merged by Anthropic's API but refused by DeepSeek's.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { expect, onTestFinished, test } from "vitest";
import { type Flavour, startFakeServer } from "../src/server.ts";

const SCRIPT = [
  {
    content: [
      { type: "tool_use" as const, name: "echo", input: { text: "hi" } },
      { type: "tool_use" as const, name: "system_date", input: {} },
    ],
  },
  { content: [{ type: "text" as const, text: "Done." }] },
];

// biome-ignore lint/suspicious/noExplicitAny: replies are read loosely here.
type Reply = any;

function client(url: string) {
  return async (messages: unknown[]): Promise<[number, Reply]> => {
    const res = await fetch(`${url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 256, messages }),
    });
    return [res.status, await res.json()];
  };
}

const USER = { role: "user", content: "Tell me the date and echo hi." };

// The conversation with the bug: the assistant turn sent back, then one user message per result.
async function splitConversation(flavour: Flavour) {
  const server = await startFakeServer({ flavour, loop: true, script: SCRIPT });
  onTestFinished(() => server.close());
  const post = client(server.url);
  const [, first] = await post([USER]);
  const ids: string[] = first.content
    .filter((block: { type: string }) => block.type === "tool_use")
    .map((block: { id: string }) => block.id);
  const results = ids.map((id) => ({
    role: "user",
    content: [{ type: "tool_result", tool_use_id: id, content: "x" }],
  }));
  const second = await post([USER, { role: "assistant", content: first.content }, ...results]);
  return { server, post, second, ids };
}

test("Anthropic merges consecutive user turns: the split results pass there", async () => {
  const { second } = await splitConversation("anthropic");
  expect(second[0]).toBe(200);
  expect(second[1].content).toEqual([{ type: "text", text: "Done." }]);
});

test("DeepSeek refuses them with a 400 naming the tool_use left without its result", async () => {
  const { second, ids } = await splitConversation("deepseek");
  expect(second[0]).toBe(400);
  expect(second[1].error.message).toBe(
    `messages.1: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${ids[1]}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
  );
});

test("--loop: a new conversation starts the script over, even after a run that broke off", async () => {
  const { server, post } = await splitConversation("deepseek");
  // The 400 used no step; without loop the next conversation would get step 2, "Done.".
  const [status, again] = await post([USER]);
  expect(status).toBe(200);
  expect(again.content.map((block: { type: string }) => block.type)).toEqual([
    "thinking",
    "tool_use",
    "tool_use",
  ]);
  // A finished conversation, then another: the script runs out and starts over.
  const plain = await startFakeServer({ loop: true, script: SCRIPT });
  onTestFinished(() => plain.close());
  const postPlain = client(plain.url);
  for (let run = 0; run < 2; run += 1) {
    const [, asks] = await postPlain([USER]);
    expect(asks.stop_reason).toBe("tool_use");
    const [, done] = await postPlain([
      USER,
      { role: "assistant", content: asks.content },
      {
        role: "user",
        content: asks.content.map((block: { id: string }) => ({
          type: "tool_result",
          tool_use_id: block.id,
          content: "x",
        })),
      },
    ]);
    expect(done.content).toEqual([{ type: "text", text: "Done." }]);
  }
  // Without loop, the same second conversation meets the empty script.
  const once_ = await startFakeServer({ script: SCRIPT.slice(0, 1) });
  onTestFinished(() => once_.close());
  await client(once_.url)([USER]);
  expect((await client(once_.url)([USER]))[0]).toBe(500);
  expect(server.requests()).toHaveLength(3);
});

test("?pretty: one line per message, blocks by type, the verdict per request", async () => {
  const { server } = await splitConversation("deepseek");
  const res = await fetch(`${server.controlUrl}/requests?pretty`);
  expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
  const lines = (await res.text()).split("\n");
  const sent = server.requests()[1]?.body.messages[1].content ?? [];
  const [echoId, dateId] = sent.slice(1).map((block: { id: string }) => block.id);
  expect(lines.slice(0, 3)).toEqual([
    "request 1: POST /v1/messages (accepted)",
    `  [0] user: "Tell me the date and echo hi."`,
    "",
  ]);
  expect(lines[3]).toMatch(/^request 2: POST \/v1\/messages \(rejected 400: messages\.1: /);
  expect(lines.slice(4, 8)).toEqual([
    `  [0] user: "Tell me the date and echo hi."`,
    `  [1] assistant: thinking (signed), tool_use echo {"text":"hi"} (${echoId}), tool_use system_date {} (${dateId})`,
    `  [2] user: tool_result for ${echoId} "x"`,
    `  [3] user: tool_result for ${dateId} "x"`,
  ]);
  // The JSON view is unchanged.
  const json = await (await fetch(`${server.controlUrl}/requests`)).json();
  expect(json).toHaveLength(2);
});

test("the fake-server command takes --loop", async () => {
  const dir = await mkdtemp(join(tmpdir(), "fake-server-loop-"));
  const file = join(dir, "script.json");
  await writeFile(file, JSON.stringify(SCRIPT.slice(0, 1)));
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "src/server-cli.ts", "--script", file, "--loop"],
    {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  onTestFinished(() => {
    if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
  });
  const [line] = (await once(createInterface({ input: child.stdout }), "line")) as [string];
  const url = line.replace("listening on ", "");
  const post = client(url);
  // A one-step script, three conversations: each gets the step.
  for (let run = 0; run < 3; run += 1) expect((await post([USER]))[0]).toBe(200);
}, 30_000);

// Compaction (src/compact.ts): a cut only between rounds, the last whole round always kept, a huge
// result shortened with its marker, the summary's fields, the compact record read back as the same
// view, and 10,000 messages compacted within three times the design's 50 ms of CPU.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reply, ScriptedProvider, text, toolUse } from "@agent-code/test-kit";
import { expect, test } from "vitest";
import { runAgent, view } from "../src/agent.ts";
import {
  compact,
  compactAtFromEnv,
  estimateTokens,
  shortenedMarker,
  shouldCompact,
  summarize,
} from "../src/compact.ts";
import type { Message } from "../src/model.ts";
import { readLog, SessionLog } from "../src/session.ts";
import { defaultTools } from "../src/tools/index.ts";

function call(id: string, name: string, input: Record<string, unknown>): Message {
  return { role: "assistant", content: [{ type: "tool_use", id, name, input }] };
}

function result(id: string, content: string, isError = false): Message {
  return {
    role: "user",
    content: [{ type: "tool_result", tool_use_id: id, content, is_error: isError }],
  };
}

// A prompt, then `rounds` rounds of read_file with a result of `size` characters.
function conversation(rounds: number, size = 200, prompt = "read every file"): Message[] {
  const messages: Message[] = [{ role: "user", content: prompt }];
  for (let round = 0; round < rounds; round++) {
    messages.push(call(`toolu_${round}`, "read_file", { path: `src/f${round}.ts` }));
    messages.push(result(`toolu_${round}`, "x".repeat(size)));
  }
  return messages;
}

// Every tool_use answered in the next message, every tool_result answering the one before it,
// roles alternating, a user message first.
function pairsIntact(messages: Message[]): boolean {
  const sent = view(messages);
  if (sent[0]?.role !== "user") return false;
  return sent.every((message, index) => {
    const blocks = typeof message.content === "string" ? [] : message.content;
    const next = sent[index + 1];
    const before = sent[index - 1];
    if (index > 0 && before?.role === message.role) return false;
    const nextBlocks = next === undefined || typeof next.content === "string" ? [] : next.content;
    const beforeBlocks =
      before === undefined || typeof before.content === "string" ? [] : before.content;
    return blocks.every((block) => {
      if (block.type === "tool_use") {
        return nextBlocks.some((b) => b.type === "tool_result" && b.tool_use_id === block.id);
      }
      if (block.type === "tool_result") {
        return beforeBlocks.some((b) => b.type === "tool_use" && b.id === block.tool_use_id);
      }
      return true;
    });
  });
}

test("no threshold ever splits a tool_use from its result, and the summary comes first", () => {
  const messages = conversation(25);
  let compacted = 0;
  for (let threshold = 1; threshold < 6000; threshold += 37) {
    const out = compact(messages, { threshold });
    if (out === null) continue;
    compacted += 1;
    expect(pairsIntact(out.messages), `threshold ${threshold}`).toBe(true);
    expect(out.messages[0]).toEqual({ role: "user", content: out.summary });
    expect(out.messages.slice(1)).toEqual(messages.slice(out.from));
  }
  expect(compacted).toBeGreaterThan(100);
});

test("the kept tail fits a quarter of the threshold, and is never less than the last round", () => {
  const messages = conversation(25);
  const tiny = compact(messages, { threshold: 1 });
  expect(tiny?.messages.slice(1)).toEqual(messages.slice(-2));
  expect(tiny?.from).toBe(messages.length - 2);
  const out = compact(messages, { threshold: 4000 });
  expect(out).not.toBeNull();
  const tail = estimateTokens(out?.messages.slice(1));
  expect(tail).toBeLessThanOrEqual(1000);
  // One more round would not have fitted.
  expect(estimateTokens(messages.slice((out?.from ?? 0) - 2))).toBeGreaterThan(1000);
});

test("nothing before the last round: no compaction", () => {
  expect(compact(conversation(1), { threshold: 1 })).toBeNull();
  expect(compact([{ role: "user", content: "hi" }], { threshold: 1 })).toBeNull();
});

test("a huge result in the kept tail is shortened to the marker, its id kept", () => {
  const messages = conversation(3);
  messages.push(call("toolu_big", "read_file", { path: "big.log" }));
  messages.push(result("toolu_big", "y".repeat(400_000)));
  const out = compact(messages, { threshold: 4000 });
  expect(out?.shortened).toEqual(["toolu_big"]);
  expect(out?.messages.at(-1)).toEqual(
    result("toolu_big", "[result shortened by compaction: 400000 characters not shown]"),
  );
  expect(shortenedMarker(48210)).toBe(
    "[result shortened by compaction: 48210 characters not shown]",
  );
  expect(pairsIntact(out?.messages ?? [])).toBe(true);
  // The messages given are not changed.
  expect(messages.at(-1)).toEqual(result("toolu_big", "y".repeat(400_000)));
});

test("a huge round right after an earlier summary is shortened under that summary", () => {
  const earlier = compact(conversation(12), { threshold: 2000 });
  const summary = earlier?.messages[0] as Message;
  expect(String(summary.content)).toMatch(/^<compacted-history>/);
  const messages: Message[] = [
    summary,
    call("toolu_big", "read_file", { path: "big.log" }),
    result("toolu_big", "y".repeat(400_000)),
  ];
  const out = compact(messages, { threshold: 4000 });
  // Nothing to summarize again: the summary stays as it was, and the round's result is cut.
  expect(out?.from).toBe(1);
  expect(out?.summary).toBe(summary.content);
  expect(out?.shortened).toEqual(["toolu_big"]);
  expect(out?.messages).toEqual([
    summary,
    call("toolu_big", "read_file", { path: "big.log" }),
    result("toolu_big", shortenedMarker(400_000)),
  ]);
  // A last round under the threshold is left as it is.
  expect(
    compact(messages.slice(0, 2).concat(result("toolu_big", "y")), { threshold: 4000 }),
  ).toBeNull();
});

test("the summary quotes the current task and lists prompts, tools, files and commands", () => {
  const dropped: Message[] = [
    { role: "user", content: "add a --json flag" },
    call("t1", "read_file", { path: "src/cli.ts" }),
    result("t1", "code"),
    call("t2", "file_edit", { file_path: "src/cli.ts", old_string: "a", new_string: "b" }),
    result("t2", "edited"),
    { role: "user", content: "fix the failing date test in src/date.ts" },
    call("t3", "bash", { command: "pnpm test" }),
    result("t3", "exit code 1\nFAIL", false),
    call("t4", "read_file", { path: "src/date.ts" }),
    result("t4", "no such file", true),
    call("t5", "bash", { command: "pnpm   test" }),
    result("t5", "ok"),
  ];
  expect(summarize(dropped)).toBe(
    [
      "<compacted-history>",
      "  <current-task>fix the failing date test in src/date.ts</current-task>",
      "  <earlier-prompts>- add a --json flag (2 rounds)</earlier-prompts>",
      "  <message-count>12</message-count>",
      "  <tools-used>bash, file_edit, read_file</tools-used>",
      "  <files-read>src/cli.ts</files-read>",
      "  <files-edited>src/cli.ts</files-edited>",
      "  <commands-run>pnpm test (exit code 1), pnpm test (exit code 0)</commands-run>",
      "</compacted-history>",
    ].join("\n"),
  );
  // A kept prompt is the current task; a second compaction carries the first summary.
  const first = summarize(dropped);
  const again = summarize(
    [{ role: "user", content: first }, call("t6", "glob", {}), result("t6", "")],
    [{ role: "user", content: "now the docs" }],
  );
  expect(again).toContain("<current-task>now the docs</current-task>");
  expect(again).toContain("<message-count>2</message-count>");
  expect(again).toContain("<previous-summary><current-task>fix the failing date test");
  // Long prompts and commands are cut to 120 characters.
  const long = summarize([
    { role: "user", content: "p".repeat(300) },
    call("t7", "bash", { command: "c".repeat(300) }),
    result("t7", ""),
    { role: "user", content: "now" },
  ]);
  expect(long).toContain(`<earlier-prompts>- ${"p".repeat(119)}… (1 round)</earlier-prompts>`);
  expect(long).toContain(`<commands-run>${"c".repeat(119)}… (exit code 0)</commands-run>`);
  expect(long).not.toContain("<conclusions>");
});

test("the threshold: a whole number, 0 turns it off, anything else is the design's error", () => {
  expect(compactAtFromEnv({})).toBe(100_000);
  expect(compactAtFromEnv({ AGENT_CODE_COMPACT_AT: "4000" })).toBe(4000);
  expect(compactAtFromEnv({ AGENT_CODE_COMPACT_AT: "0" })).toBe(0);
  for (const bad of ["1e5", "-1", "4.5", "lots"]) {
    expect(() => compactAtFromEnv({ AGENT_CODE_COMPACT_AT: bad })).toThrow(
      `AGENT_CODE_COMPACT_AT must be a whole number, got "${bad}"`,
    );
  }
  expect(shouldCompact({ lastUsage: 150_000, addedSince: 10, threshold: 4000 })).toBe(true);
  expect(shouldCompact({ lastUsage: 3000, addedSince: 999, threshold: 4000 })).toBe(false);
  expect(shouldCompact({ lastUsage: undefined, addedSince: 4000, threshold: 4000 })).toBe(true);
  expect(shouldCompact({ lastUsage: 150_000, addedSince: 10, threshold: 0 })).toBe(false);
});

test("the agent compacts before the call, says so, and the request is shorter", async () => {
  const steps = Array.from({ length: 6 }, (_, round) =>
    reply([toolUse("echo", { text: "z".repeat(400) }, `toolu_${round}`)]),
  );
  const provider = new ScriptedProvider([...steps, reply([text("done")])]);
  const seen: number[] = [];
  const result = await runAgent("the seeded task sentence", provider, defaultTools(), {
    cwd: tmpdir(),
    maxSteps: 10,
    compactAt: 1000,
    onCompact: (compacted) => seen.push(compacted.from),
  });
  provider.assertDone();
  const line = result.trace.find((entry) => entry.startsWith("compacted: "));
  expect(line).toMatch(
    /^compacted: \d+ messages \(about \d+ tokens\) into \d+ \(about \d+ tokens\)$/,
  );
  expect(seen.length).toBeGreaterThan(0);
  const sizes = provider.requests.map((request) => JSON.stringify(request.messages).length);
  expect(sizes.some((size, index) => index > 0 && size < (sizes[index - 1] ?? 0))).toBe(true);
  for (const request of provider.requests) {
    expect(pairsIntact(request.messages as Message[])).toBe(true);
    expect(JSON.stringify(request.messages)).toContain("the seeded task sentence");
  }
});

test("the compact record reads back as the same view, and the file keeps every message", () => {
  const home = mkdtempSync(join(tmpdir(), "compact-home-"));
  const cwd = mkdtempSync(join(tmpdir(), "compact-work-"));
  const log = SessionLog.create({ home, cwd });
  const messages = conversation(6);
  messages.push(call("toolu_big", "read_file", { path: "big.log" }));
  messages.push(result("toolu_big", "y".repeat(40_000)));
  for (const message of messages) log.append(message);
  const out = compact(log.messages(), { threshold: 4000 });
  if (out === null) throw new Error("expected a compaction");
  log.compact({
    summary: out.summary,
    kept: out.messages.length - 1,
    shortened: out.shortened,
    tokens: out.tokens,
  });
  log.append({ role: "user", content: "next" });
  expect(log.messages()).toEqual([...out.messages, { role: "user", content: "next" }]);
  log.finish();
  log.close();
  const lines = readFileSync(log.path, "utf8").trimEnd().split("\n");
  const record = JSON.parse(lines.at(-2) ?? "{}");
  expect(record).toMatchObject({
    type: "compact",
    from: out.from + 1,
    summary: out.summary,
    tokens: out.tokens,
    shortened: ["toolu_big"],
  });
  expect(lines).toHaveLength(1 + messages.length + 2);
  const read = readLog(readFileSync(log.path), log.id);
  expect(read.messages).toEqual([...out.messages, { role: "user", content: "next" }]);
  const again = SessionLog.open({ home, cwd }, log.id);
  expect(again.messages()).toEqual(read.messages);
  again.close();
});

test("a compact record naming no kept message is refused, naming its line", () => {
  const home = mkdtempSync(join(tmpdir(), "compact-home-"));
  const cwd = mkdtempSync(join(tmpdir(), "compact-work-"));
  const log = SessionLog.create({ home, cwd });
  for (const message of conversation(3)) log.append(message);
  log.compact({
    summary: "<compacted-history>\n</compacted-history>",
    kept: 2,
    tokens: { before: 9, after: 3 },
  });
  log.close();
  const bytes = readFileSync(log.path, "utf8").replace(/"from":\d+/, '"from":99');
  // The edit also breaks nothing before it: the chain still holds up to the record.
  expect(() => readLog(Buffer.from(bytes), log.id)).toThrow(/line 9 is not a compact record/);
});

test("10,000 messages are compacted within 150 ms of CPU (three times the design's 50 ms)", () => {
  const messages = conversation(5_000, 300);
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < 3; run++) {
    // Each run on fresh objects: no estimate is cached from the run before.
    const fresh = structuredClone(messages);
    const start = process.cpuUsage();
    const out = compact(fresh, { threshold: 100_000 });
    const used = process.cpuUsage(start);
    expect(out?.messages.length).toBeLessThan(fresh.length);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  expect(best).toBeLessThan(150);
});

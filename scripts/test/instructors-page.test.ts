// Two recipes of docs/instructors.md that an instructor runs before and during a lesson, run as the
// page writes them so they cannot rot. The stage diffs of "Read the diff" each exit 0 and print the
// diff of the stages they name. The live demo of "Showing the protocol live, without keys" starts
// the fake server with the page's own script.json, runs Day 2 v2 against it, and reads back the
// requests the loop sent at the control URL the server printed (its port and token): the run ends
// with the script's answer after calling both tools, and the server accepted every request, the
// tool results in one user message after the assistant turn.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "@agent-code/test-kit";
import { afterAll, expect, onTestFinished, test } from "vitest";
import { baseOf, ROOT } from "../lib/command.ts";

const PAGE = readFileSync(join(ROOT, "docs", "instructors.md"), "utf8");

// What every command gets: the caller's environment (PATH among it), without what pnpm and CI set
// for the test run itself.
const ENV = { INIT_CWD: undefined, GITHUB_STEP_SUMMARY: undefined };

// The code blocks of the page from `marker` to the next heading, with their languages.
function blocksAfter(marker: string): { lang: string; text: string }[] {
  const from = PAGE.indexOf(marker);
  if (from < 0) throw new Error(`docs/instructors.md has no ${marker}`);
  const next = PAGE.slice(from + marker.length).search(/^#{2,3} /m);
  const section = PAGE.slice(from, next < 0 ? undefined : from + marker.length + next);
  return [...section.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map((match) => ({
    lang: match[1] ?? "",
    text: match[2] ?? "",
  }));
}

// A shell block's commands: a line ending in a backslash goes on with the next one, as in bash.
function commands(text: string): string[] {
  return text.trimEnd().split(/(?<!\\)\n/);
}

// "Read the diff": the first block after it.
const diffBlock = blocksAfter("**Read the diff.**")[0];
const DIFF_LINES = commands(diffBlock?.text ?? "");

test("the Read the diff block is four pnpm stage-diff commands", () => {
  expect(diffBlock?.lang).toBe("sh");
  expect(DIFF_LINES).toHaveLength(4);
  for (const line of DIFF_LINES) expect(line).toMatch(/^pnpm stage-diff \S/);
});

// What a stage-diff line should print first, from its own words: the stage it names against the
// stage that one builds on, or the two stages it names; the tests too with --tests.
function expectedHeader(line: string): { header: string; tests: boolean } {
  const words = (line.split("#")[0] ?? "").trim().split(/\s+/).slice(2);
  const stages = words.filter((word) => !word.startsWith("--"));
  const tests = words.includes("--tests");
  const [from, to] = stages.length === 2 ? stages : [baseOf(stages[0] ?? ""), stages[0]];
  return { header: `${from} (a/) -> ${to} (b/): src/${tests ? " and test/" : ""}`, tests };
}

test.each(DIFF_LINES)(
  "the page's `%s` prints the lesson's diff",
  async (line) => {
    const run = await runCli(["bash", "--noprofile", "--norc", "-c", line], [], {
      cwd: ROOT,
      env: ENV,
      timeoutMs: 60_000,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    const { header, tests } = expectedHeader(line);
    expect(run.stdoutLines[0]).toBe(header);
    // The comment's claim, where it makes one: the stage it is diffed against.
    const against = line.match(/# against (\S+),/)?.[1];
    if (against !== undefined) expect(header.startsWith(`${against} (a/) -> `)).toBe(true);
    // A real diff of the sources: a file of src/, a hunk, and lines added.
    expect(run.stdoutLines).toContainEqual(
      expect.stringMatching(/^diff --git a\/\S+ b\/src\/\S+$/),
    );
    expect(run.stdoutLines).toContainEqual(
      expect.stringMatching(/^@@ -\d+(,\d+)? \+\d+(,\d+)? @@/),
    );
    expect(run.stdoutLines).toContainEqual(expect.stringMatching(/^\+(?!\+\+ )/));
    // The unit tests only with --tests.
    expect(run.stdoutLines.some((text) => /^diff --git a\/\S+ b\/test\//.test(text))).toBe(tests);
  },
  60_000,
);

// The live demo: its folder is inside the workspace, so `pnpm --filter` finds the packages from it.
const cache = join(ROOT, "node_modules", ".cache");
mkdirSync(cache, { recursive: true });
const demo = mkdtempSync(join(cache, "instructors-demo-"));
afterAll(() => rmSync(demo, { recursive: true, force: true }));

interface ScriptReply {
  content: { type: string; name?: string; input?: Record<string, unknown>; text?: string }[];
}

// Starts the page's server line in a process group of its own, stopped when the test ends; resolves
// with the two lines it prints once it listens: its URL, and its control routes' URL with the token.
function startServer(line: string): Promise<{ listening: string; control: string }> {
  const env = { ...process.env };
  delete env.INIT_CWD;
  delete env.GITHUB_STEP_SUMMARY;
  const child = spawn("bash", ["--noprofile", "--norc", "-c", line], {
    cwd: demo,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  // The whole group: bash, pnpm and the node server under them.
  onTestFinished(async () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
    } catch {
      // The group is already gone.
    }
    await exited;
  });
  let stdout = "";
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const listening = stdout.match(/^listening on http:\/\/127\.0\.0\.1:\d+$/m)?.[0];
      const control = stdout.match(/^control: http:\/\/127\.0\.0\.1:\d+\/_fake\/[\w-]+$/m)?.[0];
      if (listening !== undefined && control !== undefined) resolve({ listening, control });
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      reject(new Error(`the fake server exited (${code}) before listening:\n${stdout}${stderr}`));
    });
  });
}

test("the live demo: Day 2 v2 calls both tools, and the server accepted each request", async () => {
  const blocks = blocksAfter("### Showing the protocol live, without keys");
  expect(blocks.slice(0, 2).map((block) => block.lang)).toEqual(["sh", "json"]);
  const [shell, json] = blocks;
  writeFileSync(join(demo, "script.json"), json?.text ?? "");
  // The page's example: one reply that asks for two tools at once, then an answer.
  const replies = JSON.parse(json?.text ?? "") as ScriptReply[];
  expect(replies).toHaveLength(2);
  const calls = (replies[0]?.content ?? []).filter((block) => block.type === "tool_use");
  expect(calls.map((call) => call.name).sort()).toEqual(["echo", "system_date"]);
  const answer = replies[1]?.content.find((block) => block.type === "text")?.text;

  const [server, listeningComment, controlComment, ...rest] = commands(shell?.text ?? "");
  expect(server).toMatch(/^pnpm --filter @agent-code\/test-kit fake-server .*--script /);
  expect(listeningComment).toMatch(/^# listening on http:\/\/127\.0\.0\.1:PORT$/);
  expect(controlComment).toMatch(/^# control: http:\/\/127\.0\.0\.1:PORT\/_fake\/TOKEN$/);
  const printed = await startServer(server ?? "");
  // What the server printed is what the comments show, with the port it took and its token.
  const port = printed.listening.slice(printed.listening.lastIndexOf(":") + 1);
  const token = printed.control.slice(printed.control.lastIndexOf("/") + 1);
  expect(printed.listening).toBe(listeningComment?.slice(2).replace("PORT", port));
  expect(printed.control).toBe(
    controlComment?.slice(2).replace("PORT", port).replace("/_fake/TOKEN", `/_fake/${token}`),
  );
  // TOKEN only where it follows /_fake/: ANTHROPIC_AUTH_TOKEN is a name, not a placeholder.
  const [start, curl] = rest.map((command) =>
    command.replaceAll("PORT", port).replaceAll("/_fake/TOKEN", `/_fake/${token}`),
  );
  expect(rest).toHaveLength(2);
  expect(start).toMatch(
    /^ANTHROPIC_BASE_URL=\S+ .*\\\n +pnpm --filter @agent-code\/day-2-v2 start /,
  );
  // The pretty list of requests at the control URL the server printed, token and all.
  expect(curl).toBe(`curl -s '${printed.control.slice("control: ".length)}/requests?pretty'`);

  const run = await runCli(["bash", "--noprofile", "--norc", "-c", start ?? ""], [], {
    cwd: demo,
    env: ENV,
    timeoutMs: 90_000,
  });
  expect(run.exitCode, run.stderr).toBe(0);
  for (const call of calls) {
    expect(run.stdoutLines).toContain(`tool_call: ${call.name} ${JSON.stringify(call.input)}`);
  }
  expect(run.stdoutLines).toContain(`final: ${answer}`);

  const requests = await runCli(["bash", "--noprofile", "--norc", "-c", curl ?? ""], [], {
    cwd: demo,
    env: ENV,
    timeoutMs: 30_000,
  });
  expect(requests.exitCode, requests.stderr).toBe(0);
  // One request per reply of the script, each with its verdict: none rejected.
  const verdicts = requests.stdoutLines.filter((text) => text.startsWith("request "));
  expect(verdicts).toEqual(
    replies.map((_, index) => `request ${index + 1}: POST /v1/messages (accepted)`),
  );
  // The second request sends the signed assistant turn back, then both results in one user message.
  expect(requests.stdout).toMatch(/^ {2}\[1\] assistant: thinking \(signed\), tool_use /m);
  expect(requests.stdout).toMatch(/^ {2}\[2\] user: tool_result for \S+ .*, tool_result for /m);
}, 120_000);

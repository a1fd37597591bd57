// A check that cannot fail is no check: copies of day-2-v3 (and day-3-v1), each broken the way
// learners break it, must each fail the scenario that teaches the point, with a reason a learner
// can act on.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect, test } from "vitest";
import { textOutput } from "../lib/check-report.ts";
import { runCheck } from "../lib/check-run.ts";
import { stageDir } from "../lib/command.ts";

interface Broken {
  name: string;
  // The stage copied and checked; day-2-v3 when not given.
  stage?: string;
  // [file in src/, text it holds exactly once, what it becomes]
  edits: [string, string, string][];
  scenario: string;
  message: string;
  serverText?: string;
  // A conformance scenario misses as a note.
  verdict?: "note";
  // The message must lead the failures, and link these docs.
  leads?: { docs: string | null };
  // What the printed stderr holds, and what it leaves out.
  stderr?: { has: string[]; lacks: string[] };
  // A judgement that must not fire: it would name the wrong fault.
  notMessage?: string;
}

const STAGE = stageDir("day-2-v3");
const SECRET_SENT = "no request may carry the secret outside the working directory";
const ONE_MESSAGE = 'messages.push({ role: "user", content: results });';
// Day 3's second line of defence, taken out so that a broken boundary shows: the check of the
// file that was opened (fs-safety.ts's checkOpened) returns at once.
const NO_CHECK_OF_WHAT_WAS_OPENED: [string, string, string] = [
  "fs-safety.ts",
  "const root = realpathSync.native(cwd);\n  const where",
  "return;\n  const root = realpathSync.native(cwd);\n  const where",
];
// And its first: the open that does not follow a symlink in the last part.
const FOLLOWS_SYMLINKS: [string, string, string] = [
  "fs-safety.ts",
  "constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0)",
  "constants.O_RDONLY",
];
const MISSING_DATE_RESULT =
  "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_date_1. Each `tool_use` block must have a corresponding `tool_result` block in the next message.";

const BROKEN: Broken[] = [
  {
    name: "day-1-tool-role",
    edits: [
      [
        "agent.ts",
        ONE_MESSAGE,
        'for (const r of results) messages.push({ role: "tool", toolCallId: r.tool_use_id, content: r.content });',
      ],
    ],
    scenario: "system-date-round",
    message:
      "the tool result should be a tool_result block, with the call's id, in the next user message",
    serverText: "messages.2.role: Input should be 'user' or 'assistant'",
  },
  {
    name: "model-after-each-result",
    edits: [
      [
        "agent.ts",
        "results.push({",
        'messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: result.toolCallId, content: result.content }] });\n' +
          "await provider.complete(messages, tools.list());\nresults.push({",
      ],
      ["agent.ts", ONE_MESSAGE, ""],
    ],
    scenario: "parallel-tool-calls",
    message:
      "both tool_result blocks should sit in one user message right after the assistant turn",
    serverText: MISSING_DATE_RESULT,
  },
  {
    name: "one-message-per-result",
    edits: [
      [
        "agent.ts",
        ONE_MESSAGE,
        'for (const r of results) messages.push({ role: "user", content: [r] });',
      ],
    ],
    scenario: "parallel-tool-calls",
    message:
      "both tool_result blocks should sit in one user message right after the assistant turn",
    // The one result in that message does come first: the order judgement has nothing to say.
    notMessage: "the tool_result blocks should come first in that user message",
  },
  {
    name: "thinking-dropped",
    edits: [
      [
        "model.ts",
        "assistantContent: response.content,",
        'assistantContent: response.content.filter((block) => block.type !== "thinking"),',
      ],
    ],
    scenario: "deepseek-thinking",
    message:
      "DeepSeek rejected the second request: send the assistant content back verbatim, thinking blocks included",
    serverText: "The `content[].thinking` in the thinking mode must be passed back to the API.",
  },
  {
    name: "no-step-limit",
    edits: [["agent.ts", "step < maxSteps", ""]],
    scenario: "max-steps",
    message: "expected exactly 2 requests with --max-steps 2",
  },
  {
    name: "result-ids-not-echoed",
    edits: [["agent.ts", "tool_use_id: result.toolCallId,", "tool_use_id: call.name,"]],
    scenario: "system-date-round",
    message:
      "the tool result should be a tool_result block, with the call's id, in the next user message",
    serverText: MISSING_DATE_RESULT,
  },
  {
    name: "text-before-results",
    edits: [
      [
        "agent.ts",
        ONE_MESSAGE,
        'messages.push({ role: "user", content: [{ type: "text", text: "Results:" }, ...results] });',
      ],
    ],
    scenario: "parallel-tool-calls",
    message: "the tool_result blocks should come first in that user message",
    serverText: MISSING_DATE_RESULT.replace("toolu_date_1", "toolu_echo_1, toolu_date_1"),
  },
  {
    name: "tool-on-max-tokens",
    edits: [["agent.ts", 'response.stopReason !== "tool_use" || ', ""]],
    scenario: "stop-max_tokens",
    message: "expected exactly one request: the run must stop there",
  },
  {
    name: "unknown-tool-crashes",
    edits: [
      [
        "tools.ts",
        "if (!tool) {",
        'if (!tool) throw new Error("no such tool: " + call.name);\nif (!tool) {',
      ],
    ],
    scenario: "unknown-tool",
    message: "exit code should be 0 (a model's mistake is not a failed run)",
  },
  {
    name: "tools-not-sent",
    edits: [["model.ts", "...(tools.length > 0 ? { tools: toAnthropicTools(tools) } : {}),", ""]],
    scenario: "system-date-round",
    message: "the first request should offer the tools, each with an object input_schema",
  },
  {
    // A dead loopback port, never a real host: a test must not reach the network.
    name: "base-url-ignored",
    edits: [
      ["model.ts", "process.env.ANTHROPIC_BASE_URL || DEFAULT_BASE_URL", '"http://127.0.0.1:9"'],
    ],
    scenario: "two-step-chain",
    message: "expected three requests: the loop keeps going while the model asks for tools",
  },
  {
    // No boundary at all: neither the check of the name nor the check of what was opened.
    name: "no-boundary",
    stage: "day-3-v1",
    edits: [
      ["fs-safety.ts", "if (escapes(root, absolute, paths)) {", "if (paths === undefined) {"],
      ["fs-safety.ts", "if (escapes(root, real)) {", "if (real === undefined) {"],
      NO_CHECK_OF_WHAT_WAS_OPENED,
    ],
    scenario: "read-escape-parent",
    message: SECRET_SENT,
  },
  {
    // Checks the spelling only: a symlink inside that leads out gets through.
    name: "spelling-only-boundary",
    stage: "day-3-v1",
    edits: [
      ["fs-safety.ts", "const real = realOfNearest(absolute, input);", "const real = absolute;"],
      NO_CHECK_OF_WHAT_WAS_OPENED,
      FOLLOWS_SYMLINKS,
    ],
    scenario: "read-escape-symlink",
    message: SECRET_SENT,
  },
  {
    name: "whole-file",
    stage: "day-3-v1",
    edits: [["tools.ts", "return lineWindow(lines, offset, limit);", 'return lines.join("\\n");']],
    scenario: "read-large",
    message: "the result should be under 10,000 characters",
  },
  {
    // A 400 stops the run, so the trace and the exit code miss as well: the cause comes first.
    name: "assistant-turn-dropped",
    edits: [
      ["agent.ts", 'messages.push({ role: "assistant", content: response.assistantContent });', ""],
    ],
    scenario: "system-date-round",
    message: "the second request should send the assistant turn back unchanged",
    serverText:
      "messages.1.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_date_1. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
    leads: { docs: "docs/day-2.md#tool-results-go-in-a-user-message" },
  },
  {
    // A plain Error for a user's mistake: the CLI prints its stack, and stderr's end is Node's.
    name: "missing-key-throws",
    edits: [
      [
        "model.ts",
        `throw new ApiError("set ANTHROPIC_AUTH_TOKEN, e.g. export ANTHROPIC_AUTH_TOKEN='sk-...'");`,
        'throw new Error("no key in ANTHROPIC_AUTH_TOKEN");',
      ],
    ],
    scenario: "missing-key-text",
    verdict: "note",
    message:
      "the run ended in a stack trace: a failure a user can act on should be one `error: …` line",
    leads: { docs: "docs/day-2.md#errors-a-user-can-act-on" },
    stderr: {
      has: ["        Error: no key in ANTHROPIC_AUTH_TOKEN\n", "missing-key-throws.mjs:"],
      lacks: ["node:internal", "ModuleJob"],
    },
  },
  {
    // cac names the option as it camel-cases it: say which one the scenario passed.
    name: "max-steps-unknown",
    edits: [
      ["cli.ts", '.option("--max-steps <n>", "The most model calls in one run (default: 8)")', ""],
    ],
    scenario: "max-steps",
    message:
      "the CLI did not take --max-steps, which the scenario passed: it said unknown option --maxSteps",
    leads: { docs: "docs/day-2.md#v3-the-multi-step-loop" },
  },
];

const dir = mkdtempSync(join(tmpdir(), "check-broken-"));

// Each copy is the stage's src/ with its edits, bundled the way the stage's `build` bundles it.
beforeAll(async () => {
  for (const broken of BROKEN) {
    const src = join(dir, broken.name, "src");
    cpSync(join(stageDir(broken.stage ?? "day-2-v3"), "src"), src, { recursive: true });
    for (const [file, from, to] of broken.edits) {
      const text = readFileSync(join(src, file), "utf8");
      if (text.split(from).length !== 2) throw new Error(`${file} must hold once: ${from}`);
      writeFileSync(
        join(src, file),
        text.replace(from, () => to),
      );
    }
  }
  const esbuild: { build(options: object): Promise<unknown> } = await import(
    pathToFileURL(createRequire(join(STAGE, "package.json")).resolve("esbuild")).href
  );
  await esbuild.build({
    entryPoints: Object.fromEntries(
      BROKEN.map((broken) => [broken.name, join(dir, broken.name, "src", "cli.ts")]),
    ),
    outdir: dir,
    outExtension: { ".js": ".mjs" },
    nodePaths: [join(STAGE, "node_modules")],
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    logLevel: "warning",
  });
}, 30_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

test.each(BROKEN.map((broken) => [broken.name, broken] as const))(
  "%s fails its scenario with the reason",
  async (name, broken) => {
    let text = "";
    const report = await runCheck(
      {
        stages: [broken.stage ?? "day-2-v3"],
        project: dir,
        command: [process.execPath, join(dir, `${name}.mjs`)],
        strict: false,
        only: [broken.scenario],
        timeoutMs: 20_000,
      },
      textOutput((chunk) => {
        text += chunk;
      }, false),
    );
    const [scenario] = report?.stages[0]?.scenarios ?? [];
    expect(scenario?.id).toBe(broken.scenario);
    expect(scenario?.verdict).toBe(broken.verdict ?? "fail");
    expect(scenario?.failures.map((failure) => failure.message)).toContain(broken.message);
    if (broken.leads !== undefined) {
      expect(scenario?.failures[0]).toEqual({ message: broken.message, docs: broken.leads.docs });
    }
    if (broken.notMessage !== undefined) {
      expect(scenario?.failures.map((failure) => failure.message)).not.toContain(broken.notMessage);
    }
    expect(scenario?.serverText).toBe(broken.serverText ?? null);
    for (const line of broken.stderr?.has ?? []) expect(text).toContain(line);
    for (const line of broken.stderr?.lacks ?? []) expect(text).not.toContain(line);
    const label = broken.verdict === "note" ? "NOTE" : "FAIL";
    expect(text).toContain(`${label}  ${scenario?.title}  [${broken.scenario}]\n`);
    expect(text).toContain(`      - ${broken.message}\n`);
    if (broken.serverText !== undefined) {
      expect(text).toContain(`the API rejected a request (400): ${broken.serverText}\n`);
    }
    expect(text.trimEnd().split("\n").at(-1)).toBe(
      "not a full check (--only: 1 scenario run): no highest stage",
    );
  },
  30_000,
);

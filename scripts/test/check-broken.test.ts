// A check that cannot fail is no check: copies of day-2-v3, each broken the way learners break it,
// must each fail the scenario that teaches the point, with a reason a learner can act on.
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
  // [file in src/, text it holds exactly once, what it becomes]
  edits: [string, string, string][];
  scenario: string;
  message: string;
  serverText?: string;
  // A judgement that must not fire: it would name the wrong fault.
  notMessage?: string;
}

const STAGE = stageDir("day-2-v3");
const ONE_MESSAGE = 'messages.push({ role: "user", content: results });';
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
];

const dir = mkdtempSync(join(tmpdir(), "check-broken-"));

// Each copy is the stage's src/ with its edits, bundled the way the stage's `build` bundles it.
beforeAll(async () => {
  for (const broken of BROKEN) {
    const src = join(dir, broken.name, "src");
    cpSync(join(STAGE, "src"), src, { recursive: true });
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
        stages: ["day-2-v3"],
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
    expect(scenario?.verdict).toBe("fail");
    expect(scenario?.failures.map((failure) => failure.message)).toContain(broken.message);
    if (broken.notMessage !== undefined) {
      expect(scenario?.failures.map((failure) => failure.message)).not.toContain(broken.notMessage);
    }
    expect(scenario?.serverText).toBe(broken.serverText ?? null);
    expect(text).toContain(`FAIL  ${scenario?.title}  [${broken.scenario}]\n`);
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

// Day 7, v2: hooks that fail closed (taught in docs/day-7-hooks.md). Hooks are commands in the
// settings files (the user's `settings.json` in the home folder, a project's `.agent/settings.json`)
// that run before and after a tool call. A PreToolUse hook can block a call and never allow one,
// and every way it can fail blocks; a project's hooks run only in a trusted folder and while the
// person's approval (by hash) holds. The Python course keeps its hooks in a project's `hooks.json`,
// so every scenario here is conformance (decision 0080). Each judges by marker files: what the
// blocked call, or the hook, would have left in the work folder.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  CANARY_TOKEN,
  type Contract,
  type Judgement,
  type Scenario,
  type ScenarioContext,
} from "../src/contract.ts";
import { fileExists, fileText, judge, noStrayProcesses, resultOf } from "../src/judgements.ts";
import type { Step } from "../src/server.ts";
import { day7v1 } from "./day-7-v1.ts";

const PAGE = "docs/day-7-hooks.md";
const PRE = `${PAGE}#pretooluse-between-the-gate-and-the-question`;
const FAIL = `${PAGE}#why-a-hook-that-crashes-must-block`;
const POST = `${PAGE}#posttooluse`;
const SEES = `${PAGE}#what-a-hook-sees`;
const WHOSE = `${PAGE}#whose-hooks-run`;
const WRITE = `${PAGE}#a-model-cannot-write-a-hook`;

const MARKER = "touch marker.txt";
// A secret of the person's own, besides the API key every scenario runs with.
const SERVICE_TOKEN = "svc-hook-canary-61b7";

const call = (id: string, name: string, input: Record<string, unknown>): Step => ({
  content: [{ type: "tool_use", id, name, input }],
});
const done: Step = { content: [{ type: "text", text: "Done." }] };
const bash = (command: string, id = "toolu_hook_1"): Step => call(id, "bash", { command });

type Event = "PreToolUse" | "PostToolUse";

// A settings file's text with one hook: `command` on `event` for `matcher`.
function hooksFile(
  entries: { event: Event; matcher: string; command: string; timeout?: number }[],
  extra: Record<string, unknown> = {},
): string {
  const hooks: Record<string, unknown[]> = {};
  for (const { event, matcher, command, timeout } of entries) {
    hooks[event] ??= [];
    hooks[event].push({
      matcher,
      hooks: [{ type: "command", command, ...(timeout === undefined ? {} : { timeout }) }],
    });
  }
  return `${JSON.stringify({ ...extra, hooks }, null, 2)}\n`;
}

// A run in the work folder, under `mode`.
function runIn(mode: string, ...more: string[]) {
  return (context: ScenarioContext) => [
    "-C",
    context.work,
    "--permission-mode",
    mode,
    ...more,
    "Make the marker.",
  ];
}

function absent(docs: string, path: string, why: string): Judgement {
  return judge(
    docs,
    `work/${path} should not exist: ${why}`,
    (o) => !fileExists(o, `work/${path}`),
  );
}

function errorResult(docs: string, tool: string, text: string | RegExp, nth = 0): Judgement {
  return judge(
    docs,
    `the ${tool} call's result should be an error that says ${String(text)}`,
    (o) => {
      const result = resultOf(o, tool, nth);
      if (result === undefined || result.isError === false) return false;
      return typeof text === "string" ? result.text.includes(text) : text.test(result.text);
    },
  );
}

const exitsZero = judge(
  PRE,
  "the run should exit 0: a blocked call is a result, not a failure",
  (o) => o.exitCode === 0,
);

// The person's own hooks: run without approval, from `home/settings.json`.
function userHooks(...entries: Parameters<typeof hooksFile>[0]) {
  return { "settings.json": hooksFile(entries) };
}

const preBlocks: Scenario = {
  id: "hook-pre-blocks",
  title:
    "a PreToolUse hook that exits 2 blocks the call in bypassPermissions, with its stderr as the reason",
  level: "conformance",
  args: runIn("bypassPermissions"),
  stdin: "",
  server: { steps: [bash(MARKER), done] },
  homeFiles: userHooks({
    event: "PreToolUse",
    matcher: "bash",
    command: "echo 'the guard says no' >&2; exit 2",
  }),
  judgements: [
    exitsZero,
    absent(PRE, "marker.txt", "the hook blocked the call"),
    errorResult(PRE, "bash", "blocked by PreToolUse hook: the guard says no"),
  ],
};

const preCrashBlocks: Scenario = {
  id: "hook-pre-crash-blocks",
  title:
    "a PreToolUse hook that crashes (exit 1) or whose program is missing (exit 127) blocks the call: a guard that failed checked nothing",
  level: "conformance",
  args: runIn("bypassPermissions"),
  stdin: "",
  server: {
    steps: [
      bash(MARKER),
      call("toolu_hook_2", "file_write", { file_path: "written.txt", content: "unchecked\n" }),
      done,
    ],
  },
  homeFiles: userHooks(
    { event: "PreToolUse", matcher: "bash", command: "echo 'TypeError: boom' >&2; exit 1" },
    { event: "PreToolUse", matcher: "file_write", command: "no-such-program-61 guard.mjs" },
  ),
  judgements: [
    exitsZero,
    absent(FAIL, "marker.txt", "the crashed hook blocked the bash call"),
    absent(FAIL, "written.txt", "the missing hook program blocked the file_write call"),
    errorResult(FAIL, "bash", "hook failed (exit 1): TypeError: boom; the call was not run"),
    errorResult(
      FAIL,
      "file_write",
      /^hook failed \(exit 127\): .*not found; the call was not run$/,
    ),
  ],
};

const preTimeout: Scenario = {
  id: "hook-pre-timeout-group-killed",
  title:
    "a PreToolUse hook past its timeout blocks the call, and its whole process group is killed: what it started never writes",
  level: "conformance",
  args: runIn("bypassPermissions"),
  stdin: "",
  server: { steps: [bash(MARKER), done] },
  homeFiles: userHooks({
    event: "PreToolUse",
    matcher: "bash",
    command: "(sleep 3; touch late.txt) & sleep 30",
    timeout: 1,
  }),
  settleMs: 3_500,
  judgements: [
    exitsZero,
    absent(FAIL, "marker.txt", "the timed-out hook blocked the call"),
    absent(FAIL, "late.txt", "the hook's group was killed at its timeout, its child with it"),
    errorResult(FAIL, "bash", "hook timed out after 1 s; the call was not run"),
    noStrayProcesses(FAIL),
  ],
};

const postRuns: Scenario = {
  id: "hook-post-runs",
  title: "a PostToolUse hook runs after the call with the call and its result on stdin",
  level: "conformance",
  args: runIn("bypassPermissions"),
  stdin: "",
  server: { steps: [bash("echo post-hook-result-61"), done] },
  homeFiles: userHooks({ event: "PostToolUse", matcher: "*", command: "cat > post.json" }),
  judgements: [
    exitsZero,
    judge(
      POST,
      'work/post.json should hold the hook\'s stdin: {"hook_event_name":"PostToolUse","tool_name":"bash",…,"tool_result":{"content":"…post-hook-result-61…","is_error":false}}',
      (o) => {
        try {
          const input = JSON.parse(fileText(o, "work/post.json") ?? "");
          return (
            input.hook_event_name === "PostToolUse" &&
            input.tool_name === "bash" &&
            input.tool_input?.command === "echo post-hook-result-61" &&
            input.tool_use_id === "toolu_hook_1" &&
            String(input.tool_result?.content).includes("post-hook-result-61") &&
            input.tool_result?.is_error === false
          );
        } catch {
          return false;
        }
      },
    ),
  ],
};

const denySkips: Scenario = {
  id: "hook-deny-skips",
  title: "a call a deny rule refuses never reaches the PreToolUse hook",
  level: "conformance",
  args: runIn("bypassPermissions", "--deny", "Bash(touch:*)"),
  stdin: "",
  server: { steps: [bash(MARKER), done] },
  homeFiles: userHooks({ event: "PreToolUse", matcher: "*", command: "touch hook-ran.txt" }),
  judgements: [
    exitsZero,
    absent(PRE, "marker.txt", "the deny rule refused the call"),
    absent(PRE, "hook-ran.txt", "a denied call is not shown to the hooks"),
    errorResult(PRE, "bash", "denied by the rule Bash(touch:*)"),
  ],
};

const neverAllows: Scenario = {
  id: "hook-never-allows",
  title:
    "a PreToolUse hook that answers allow does not skip the question: in default mode the person is still asked, and a no stops the call",
  level: "conformance",
  args: runIn("default"),
  stdin: "",
  server: { steps: [bash(MARKER), done] },
  homeFiles: userHooks({
    event: "PreToolUse",
    matcher: "bash",
    command: `echo '{"decision":"approve","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`,
  }),
  judgements: [
    exitsZero,
    absent(PRE, "marker.txt", "the hook's allow counts for nothing, and the person said no"),
    judge(PRE, "the person should still be asked `Run this command? [y/N]`", (o) =>
      /Run this command\?/.test(o.stdout),
    ),
    errorResult(PRE, "bash", "rejected"),
  ],
};

const envScrubbed: Scenario = {
  id: "hook-env-scrubbed",
  title:
    "a hook runs in the scrubbed environment: no API key, no secret of the person's, but AGENT_CODE_PROJECT_DIR and AGENT_CODE_SESSION_ID",
  level: "conformance",
  args: runIn("bypassPermissions"),
  stdin: "",
  env: { MY_SERVICE_TOKEN: SERVICE_TOKEN },
  server: { steps: [bash("echo hi"), done] },
  homeFiles: userHooks({ event: "PreToolUse", matcher: "bash", command: "env > hook-env.txt" }),
  judgements: [
    exitsZero,
    judge(
      SEES,
      "work/hook-env.txt (the hook's `env`) should hold AGENT_CODE_PROJECT_DIR=<the work folder> and an AGENT_CODE_SESSION_ID, and neither the API key nor MY_SERVICE_TOKEN",
      (o) => {
        const env = fileText(o, "work/hook-env.txt");
        if (env === undefined) return false;
        const lines = env.split("\n");
        return (
          lines.includes(`AGENT_CODE_PROJECT_DIR=${o.context.work}`) &&
          lines.some((line) => line.startsWith("AGENT_CODE_SESSION_ID=")) &&
          !env.includes(CANARY_TOKEN) &&
          !env.includes(SERVICE_TOKEN)
        );
      },
    ),
  ],
};

// A project's hook, and its script: guard.sh, run by `sh`.
const PROJECT_HOOK = hooksFile([
  { event: "PreToolUse", matcher: "*", command: "sh .agent/hooks/guard.sh" },
]);
const approveRun = {
  args: (context: ScenarioContext) => ["hooks", "approve", "-C", context.work],
  stdin: "y\n",
};

const untrustedIgnored: Scenario = {
  id: "hook-untrusted-ignored",
  title:
    "a repository's hooks do not run in a folder the user's settings do not trust, even approved; a note says so",
  level: "conformance",
  // Run 1 approves them (the person's yes on stdin); run 2 is the agent's run.
  args: approveRun.args,
  stdin: approveRun.stdin,
  server: { steps: [bash("echo hi"), done] },
  files: () => ({
    "work/.agent/settings.json": PROJECT_HOOK,
    "work/.agent/hooks/guard.sh": "touch hook-ran.txt\n",
  }),
  runs: [{ args: runIn("bypassPermissions"), stdin: "" }],
  judgements: [
    judge(
      WHOSE,
      "run 1 (`agent-code hooks approve`, answered y) should exit 0",
      (o) => o.runs[0]?.exitCode === 0,
    ),
    absent(WHOSE, "hook-ran.txt", "the folder is not in trustedDirs"),
    judge(
      WHOSE,
      "run 2 should print `note: .agent/settings.json: 1 hook not run: …` on stderr",
      (o) => /^note: \.agent\/settings\.json: 1 hook not run: /m.test(o.runs[1]?.stderr ?? ""),
    ),
  ],
};

const changedNeedsApproval: Scenario = {
  id: "hook-changed-needs-approval",
  title:
    "in a trusted folder, a hook's script changed after the person approved it does not run until approved again",
  level: "conformance",
  args: approveRun.args,
  stdin: approveRun.stdin,
  server: { steps: [bash("echo hi"), done] },
  files: () => ({
    "work/.agent/settings.json": PROJECT_HOOK,
    "work/.agent/hooks/guard.sh": "exit 0\n",
  }),
  homeFiles: (context) => ({
    "settings.json": `${JSON.stringify({ trustedDirs: [context.work] })}\n`,
  }),
  // Between the approval and the run, the script is changed (by a model, a pull, anyone).
  between: (context) => {
    writeFileSync(join(context.work, ".agent/hooks/guard.sh"), "touch pwned.txt\nexit 0\n");
  },
  runs: [{ args: runIn("bypassPermissions"), stdin: "" }],
  judgements: [
    judge(
      WHOSE,
      "run 1 (`agent-code hooks approve`, answered y) should exit 0",
      (o) => o.runs[0]?.exitCode === 0,
    ),
    judge(WHOSE, "run 1 should write home/approved-hooks.json", (o) =>
      fileExists(o, "home/approved-hooks.json"),
    ),
    absent(WHOSE, "pwned.txt", "the changed script was not approved"),
    judge(
      WHOSE,
      "run 2 should print `note: .agent/settings.json: 1 hook not run: approve them with agent-code hooks approve` on stderr",
      (o) =>
        (o.runs[1]?.stderr ?? "")
          .split(/\r?\n/)
          .includes(
            "note: .agent/settings.json: 1 hook not run: approve them with agent-code hooks approve",
          ),
    ),
  ],
};

const settingsWriteRefused: Scenario = {
  id: "hook-settings-write-refused",
  title:
    "in bypassPermissions the model cannot write .agent/settings.json or .agent/hooks/ unasked, nor run agent-code hooks approve",
  level: "conformance",
  args: runIn("bypassPermissions"),
  stdin: "",
  server: {
    steps: [
      call("toolu_hook_1", "file_write", {
        file_path: ".agent/settings.json",
        content: hooksFile([
          { event: "PreToolUse", matcher: "*", command: "sh .agent/hooks/x.sh" },
        ]),
      }),
      call("toolu_hook_2", "file_write", {
        file_path: ".agent/hooks/x.sh",
        content: "touch pwned.txt\n",
      }),
      bash("yes | agent-code hooks approve", "toolu_hook_3"),
      done,
    ],
  },
  homeFiles: (context) => ({
    "settings.json": `${JSON.stringify({ trustedDirs: [context.work] })}\n`,
  }),
  judgements: [
    exitsZero,
    absent(
      WRITE,
      ".agent/settings.json",
      "a write there is asked about in every mode, and nobody said yes",
    ),
    absent(
      WRITE,
      ".agent/hooks/x.sh",
      "a write there is asked about in every mode, and nobody said yes",
    ),
    errorResult(WRITE, "file_write", /rejected|not (?:written|allowed)/, 0),
    errorResult(WRITE, "file_write", /rejected|not (?:written|allowed)/, 1),
    errorResult(WRITE, "bash", "only the user approves hooks"),
    judge(
      WRITE,
      "home/approved-hooks.json should not exist",
      (o) => !fileExists(o, "home/approved-hooks.json"),
    ),
  ],
};

// Day 5's `settings-unknown-key` names the valid keys; `hooks` is one of them now. The scenario is
// carried with that one line changed.
const UNKNOWN_KEY = `error: .agent/settings.json: unknown key "permisions" (valid: permissions, trustedDirs, hooks)`;
function carried(scenario: Scenario): Scenario {
  if (scenario.id !== "settings-unknown-key") return scenario;
  return {
    ...scenario,
    judgements: scenario.judgements.map((judgement) =>
      judgement.message.startsWith("expected stderr to be one line")
        ? judge(
            judgement.docs,
            `expected stderr to be one line: \`${UNKNOWN_KEY}\``,
            (o) => o.stderr.trim() === UNKNOWN_KEY,
          )
        : judgement,
    ),
  };
}

export const day7v2: Contract = {
  stage: "day-7-v2",
  base: "day-7-v1",
  title: "Day 7 v2: hooks that fail closed",
  scenarios: [
    preBlocks,
    preCrashBlocks,
    preTimeout,
    postRuns,
    denySkips,
    neverAllows,
    envScrubbed,
    untrustedIgnored,
    changedNeedsApproval,
    settingsWriteRefused,
    // The scenarios of the stage before: hooks change one line of one of them.
    ...day7v1.scenarios.map(carried),
  ],
};

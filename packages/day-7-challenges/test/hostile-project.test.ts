// What a hostile repository or model cannot do through the settings, on the real CLI: hang or
// crash agent-code with a rule in the project's file, or have a file tool write the settings (the
// project's, the user's) without the person's yes, in any mode.
import { fileURLToPath } from "node:url";
import {
  type Observed,
  resultOf,
  runScenario,
  type Scenario,
  type ScenarioContext,
} from "@agent-code/test-kit";
import { expect, test } from "vitest";
import { defaultTools } from "../src/tools/index.ts";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const BUNDLE = ["node", "dist/agent-code.mjs"];
const DOCS = "docs/day-5-rules.md#settings-and-trust";
const PROJECT = ".agent/settings.json";
const VALID_TOOLS = [
  "Bash, Read, Edit, WebFetch, WebSearch",
  ...defaultTools()
    .list()
    .map((tool) => tool.name),
].join(", ");

type Call = [string, Record<string, unknown>];

interface Spec {
  args: string[];
  // Each call is a turn of its own, then the model says it is done.
  calls: Call[];
  files?: Record<string, string>;
  homeFiles?: (context: ScenarioContext) => Record<string, string>;
  env?: (context: ScenarioContext) => Record<string, string | undefined>;
  judgements: [string, (o: Observed) => boolean][];
}

// One run of the bundle in `<dir>/work`, with `n` to every question.
async function run(spec: Spec) {
  const scenario: Scenario = {
    id: "hostile-project",
    title: "a hostile project",
    level: "conformance",
    args: (context) => [...spec.args, "-C", context.work, "Go."],
    stdin: "n\nn\nn\n",
    files: () => spec.files ?? {},
    ...(spec.homeFiles === undefined ? {} : { homeFiles: spec.homeFiles }),
    ...(spec.env === undefined ? {} : { env: spec.env }),
    server: {
      steps: [
        ...spec.calls.map(([name, input]) => ({
          content: [{ type: "tool_use" as const, name, input }],
        })),
        { content: [{ type: "text" as const, text: "Done." }] },
      ],
    },
    judgements: spec.judgements.map(([message, check]) => ({ docs: DOCS, message, check })),
  };
  // A run that hangs is stopped well inside the test's own 30 s.
  const result = await runScenario(scenario, {
    command: BUNDLE,
    cwd: packageDir,
    timeoutMs: 20_000,
  });
  expect(result.failures, result.run.stdout + result.run.stderr).toEqual([]);
}

// Refused before the model is asked anything: exit 2 and this one line on stderr.
function refusedAtStart(line: string): [string, (o: Observed) => boolean][] {
  return [
    ["the run should end with exit code 2", (o) => o.exitCode === 2],
    [`stderr should be the one line ${line}`, (o) => o.stderr.trimEnd() === line],
    ["the model should not be asked anything", (o) => o.requests.length === 0],
  ];
}

test("a project's deny rule that would backtrack on a long name stops agent-code at once", async () => {
  const rule = "Read(*a*a*a*a*a*a*a*a*a*a*a*a*b)";
  const name = "a".repeat(60);
  await run({
    args: [],
    files: {
      [`work/${PROJECT}`]: JSON.stringify({ permissions: { deny: [rule] } }),
      [`work/${name}`]: "x\n",
    },
    calls: [
      ["list_files", { path: "." }],
      ["read_file", { path: name }],
    ],
    judgements: refusedAtStart(
      `error: ${PROJECT}: invalid rule "${rule}": a path pattern holds at most two "*", one of which may be "**", and no {…} or (…)`,
    ),
  });
}, 30_000);

test.each(["constructor", "toString", "__proto__"])(
  "a project's deny rule %j is an error line, not a crash",
  async (name) => {
    await run({
      args: [],
      files: { [`work/${PROJECT}`]: JSON.stringify({ permissions: { deny: [name] } }) },
      calls: [["list_files", { path: "." }]],
      judgements: refusedAtStart(
        `error: ${PROJECT}: invalid rule "${name}": unknown tool "${name}" (valid: ${VALID_TOOLS})`,
      ),
    });
  },
  30_000,
);

// The write was asked about, with the line that says why, and refused by the `n`.
function askedAndRefused(path: string, needs: string): [string, (o: Observed) => boolean][] {
  return [
    [`the question should say: ${needs}`, (o) => o.stdoutLines.includes(needs)],
    [
      `the write to ${path} should be asked about, and the n refuse it`,
      (o) =>
        o.stdoutLines.some((line) => line.startsWith(`Apply this change to ${path}?`)) &&
        resultOf(o, "file_write")?.text ===
          `the user rejected this change; ${path} was not changed`,
    ],
  ];
}

test("in acceptEdits a trusted project's own settings file is asked about before a write", async () => {
  const settings = JSON.stringify({ permissions: { allow: ["Read"] } });
  const granted = JSON.stringify({ permissions: { allow: ["Bash"], defaultMode: "acceptEdits" } });
  await run({
    args: ["--permission-mode", "acceptEdits"],
    files: { [`work/${PROJECT}`]: settings },
    homeFiles: (context) => ({ "settings.json": JSON.stringify({ trustedDirs: [context.work] }) }),
    calls: [
      ["read_file", { path: PROJECT }],
      ["file_write", { file_path: PROJECT, content: granted }],
    ],
    judgements: [
      ...askedAndRefused(
        PROJECT,
        `  needs approval: ${PROJECT} (a protected path: the project's settings and hooks)`,
      ),
      [
        "the project's settings should be as they were",
        (o) => o.files[`work/${PROJECT}`] === settings,
      ],
    ],
  });
}, 30_000);

test("from the home folder, in acceptEdits, ~/.agent-code/settings.json is asked about", async () => {
  const file = ".agent-code/settings.json";
  await run({
    args: ["--permission-mode", "acceptEdits"],
    // The home folder is the working folder, and the user's settings are in ~/.agent-code.
    env: (context) => ({
      HOME: context.work,
      USERPROFILE: context.work,
      AGENT_CODE_HOME: undefined,
    }),
    calls: [["file_write", { file_path: file, content: '{"permissions":{"allow":["Bash"]}}' }]],
    judgements: [
      ...askedAndRefused(file, `  needs approval: ${file} (a protected path: the user's settings)`),
      ["no settings file should be written", (o) => o.files[`work/${file}`] === undefined],
    ],
  });
}, 30_000);

test("in bypassPermissions the user's settings file is asked about where AGENT_CODE_HOME puts it", async () => {
  const file = "conf/settings.json";
  await run({
    args: ["--permission-mode", "bypassPermissions"],
    env: (context) => ({ AGENT_CODE_HOME: `${context.work}/conf` }),
    calls: [["file_write", { file_path: file, content: "{}" }]],
    judgements: [
      ...askedAndRefused(file, `  needs approval: ${file} (a protected path: the user's settings)`),
      ["no settings file should be written", (o) => o.files[`work/${file}`] === undefined],
    ],
  });
}, 30_000);

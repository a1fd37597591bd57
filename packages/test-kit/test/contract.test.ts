// A contract that cannot fail is no contract: deliberately wrong CLIs, a few lines of JavaScript
// each, must be judged failing with the message a learner would need.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { contracts } from "../contracts/index.ts";
import { headingAnchors } from "../src/anchors.ts";
import {
  commandFrom,
  observePrepared,
  prepareScenario,
  runContract,
  runKey,
  runScenario,
  type Scenario,
  type SharedRuns,
} from "../src/contract.ts";
import { judge } from "../src/judgements.ts";
import { runCli } from "../src/run-cli.ts";
import { drawWord } from "../src/vary.ts";

const dir = mkdtempSync(join(tmpdir(), "wrong-cli-"));

function fakeCli(name: string, body: string): string[] {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, body);
  return ["node", file];
}

// Prints a day-1 run; each wrong CLI below changes one thing about it.
function echoCli(options: { callText?: string; exitCode?: number } = {}): string {
  return `
const prompt = process.argv.slice(2).join(" ");
const text = ${JSON.stringify(options.callText ?? "hi")};
console.log("Agent Code");
console.log("cwd: " + process.cwd());
console.log("");
console.log('tool_call: echo {"text":"' + text + '"}');
console.log("observation: " + text);
console.log("final: echo tool returned: " + text);
process.exitCode = ${options.exitCode ?? 0};
`;
}

test("a CLI with the right trace passes the core scenario", async () => {
  const result = await runContract("day-1", {
    command: fakeCli("right", echoCli()),
    only: ["echo-round-trip"],
  });
  expect(result.passed).toBe(true);
  expect(result.scenarios.map((scenario) => [scenario.id, scenario.passed])).toEqual([
    ["echo-round-trip", true],
  ]);
}, 30_000);

test("a wrong trace fails with the judgement's message and docs link", async () => {
  const result = await runContract("day-1", {
    command: fakeCli("wrong-trace", echoCli({ callText: "bye" })),
    only: ["echo-round-trip"],
  });
  expect(result.passed).toBe(false);
  expect(result.scenarios[0]?.failures).toEqual([
    {
      message: "expected exactly one `tool_call: echo` line whose text is the prompt",
      docs: "docs/day-1.md#v3-tools-and-the-loop",
    },
    {
      message: "expected `observation: <the prompt>` after the tool call",
      docs: "docs/day-1.md#v3-tools-and-the-loop",
    },
    {
      message: "the last trace line should be `final: …` and mention the prompt",
      docs: "docs/day-1.md#v3-tools-and-the-loop",
    },
  ]);
}, 30_000);

// The CLIs above echo a hard-coded `hi`, the word the pages show (seed 0). At another seed the
// scenario asks for another word: a hard-coded answer fails, the echo of the prompt passes, and
// both results say the scenario drew from the seed.
test("a seeded scenario catches an answer hard-coded for the pages' seed", async () => {
  const honest = fakeCli("honest", echoCli().replace('const text = "hi";', "const text = prompt;"));
  const outcomes = [];
  for (const [command, seed] of [
    [fakeCli("hard-coded", echoCli()), 0],
    [fakeCli("hard-coded", echoCli()), 7],
    [honest, 0],
    [honest, 7],
  ] as const) {
    const result = await runContract("day-1", { command, seed, only: ["echo-round-trip"] });
    const [scenario] = result.scenarios;
    const call = scenario?.run.trace[0];
    const echoed = call?.kind === "tool_call" ? call.arguments : undefined;
    outcomes.push([seed, scenario?.passed, scenario?.seeded, echoed]);
  }
  const seven = drawWord({ seed: 7 }, "day-1/greeting", "hi");
  expect(seven).not.toBe("hi");
  expect(outcomes).toEqual([
    [0, true, true, { text: "hi" }],
    [7, false, true, { text: "hi" }],
    [0, true, true, { text: "hi" }],
    [7, true, true, { text: seven }],
  ]);
}, 30_000);

test("a scenario that never reads the seed is not marked seeded", async () => {
  const result = await runContract("day-1", {
    command: fakeCli("right", echoCli()),
    seed: 7,
    only: ["exact-output"],
  });
  expect(result.scenarios.map((scenario) => [scenario.passed, scenario.seeded])).toEqual([
    [true, undefined],
  ]);
}, 30_000);

test("a wrong exit code fails, and only that judgement", async () => {
  const result = await runContract("day-1", {
    command: fakeCli("wrong-exit", echoCli({ exitCode: 3 })),
    only: ["echo-round-trip"],
  });
  expect(result.scenarios[0]?.failures.map((failure) => failure.message)).toEqual([
    "exit code should be 0 (a finished run exits 0)",
  ]);
}, 30_000);

test("a CLI that hangs is stopped and judged as timed out", async () => {
  const result = await runContract("day-1", {
    command: fakeCli("hangs", "setInterval(() => {}, 1000);"),
    only: ["echo-round-trip"],
    timeoutMs: 1000,
  });
  expect(result.scenarios[0]).toMatchObject({
    passed: false,
    timedOut: true,
    failures: [{ message: "the run did not finish in time and was stopped" }],
  });
}, 30_000);

test("core decides `passed`; a conformance miss only clears `strictPassed`", async () => {
  const result = await runContract("day-1", {
    command: fakeCli("loose", echoCli().replace('"Agent Code"', '"agent-code v0"')),
    only: ["echo-round-trip", "exact-output"],
  });
  expect(
    result.scenarios.map((scenario) => [scenario.id, scenario.level, scenario.passed]),
  ).toEqual([
    ["echo-round-trip", "core", true],
    ["exact-output", "conformance", false],
  ]);
  expect(result.passed).toBe(true);
  expect(result.strictPassed).toBe(false);
}, 30_000);

test("every scenario fails when a key appears in the output, whatever it judges", async () => {
  const leaky = echoCli().replace(
    'console.log("");',
    'console.log(""); console.error("debug: token " + process.env.ANTHROPIC_AUTH_TOKEN);',
  );
  const result = await runContract("day-1", {
    command: fakeCli("leaky", leaky),
    only: ["echo-round-trip"],
  });
  expect(result.scenarios[0]?.failures).toEqual([
    {
      message:
        "the value of ANTHROPIC_AUTH_TOKEN appeared in the output: never print a key, not even in an error",
      docs: "docs/day-2.md#setup",
    },
  ]);
  expect(result.passed).toBe(false);
}, 30_000);

test("stdinLines types a line once the server has the run's requests, then ends stdin", async () => {
  // Prints each line as it arrives; "ask" sends one request a second later. Were "after" written
  // at once, it would be printed before "sent".
  const typist = `
import { createInterface } from "node:readline";
createInterface({ input: process.stdin })
  .on("line", (line) => {
    console.log(line);
    if (line !== "ask") return;
    setTimeout(() => {
      console.log("sent");
      fetch(process.env.ANTHROPIC_BASE_URL + "/v1/messages", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", max_tokens: 9, messages: [{ role: "user", content: "hi" }] }),
      });
    }, 1000);
  })
  .on("close", () => console.log("end"));
`;
  const scenario: Scenario = {
    id: "typed-later",
    title: "typed later",
    level: "core",
    args: [],
    stdin: "ask\n",
    stdinLines: [{ line: "after", afterRequests: 1 }, { line: "last" }],
    server: { steps: [{ content: [{ type: "text", text: "ok" }] }] },
    judgements: [],
  };
  const result = await runContract(
    { stage: "x", title: "x", scenarios: [scenario] },
    { command: fakeCli("typist", typist) },
  );
  expect(result.scenarios[0]?.run.stdoutLines).toEqual(["ask", "sent", "after", "last", "end"]);
}, 30_000);

// A REPL whose turn outlasts a loop's interval (a busy machine, a slow fsync) takes what is in its
// pipe as the turn ends: a line typed "after request 1" must be there before the answer can land.
test("a line typed after request N is in the command's pipe before that request is answered", async () => {
  // Node opens stdin's pipe non-blocking, and a paused stream reads nothing: readSync then takes
  // what is there now, or fails with EAGAIN. The route is unknown, so the server's answer (a 404)
  // needs no step.
  const peeks = `
import { readSync } from "node:fs";
process.stdin.pause();
const response = await fetch(process.env.ANTHROPIC_BASE_URL + "/v1/nowhere");
// The answer's head has come: what the pipe holds now, without waiting for more.
const buffer = Buffer.alloc(64);
let held = "";
try {
  held = buffer.toString("utf8", 0, readSync(0, buffer)).trim();
} catch (error) {
  if (error.code !== "EAGAIN") throw error;
}
console.log(held === "" ? "the pipe was empty" : "the pipe held " + held);
await response.text();
`;
  const scenario: Scenario = {
    id: "typed-before-answer",
    title: "typed before the answer",
    level: "core",
    args: [],
    stdinLines: [{ line: "/exit", afterRequests: 1 }],
    server: { steps: [] },
    judgements: [],
  };
  const command = fakeCli("peeks", peeks);
  const prepared = await prepareScenario(scenario);
  try {
    // A busy test process: the first to hear of the request keeps it 300 ms before the typist
    // can write. An answer that went out on arrival would reach the command before the line.
    void prepared.server?.whenRequests(1).then(() => {
      const until = performance.now() + 300;
      while (performance.now() < until);
    });
    const run = await observePrepared(scenario, prepared, (inputs) =>
      runCli(command, inputs.args, {
        ...(inputs.stdinFeed === undefined ? {} : { stdinFeed: inputs.stdinFeed }),
        env: inputs.env,
      }),
    );
    expect(run.run.stderr).toBe("");
    expect(run.run.stdoutLines).toEqual(["the pipe held /exit"]);
  } finally {
    await prepared.close();
  }
}, 30_000);

test("a line a run never typed holds nothing of the next run's requests", async () => {
  // Run 1 waits for a request it never makes; run 2's first request is the server's first too.
  const asks = `
if (process.argv.includes("ask")) {
  const response = await fetch(process.env.ANTHROPIC_BASE_URL + "/v1/nowhere");
  console.log("answered " + response.status);
}
`;
  const scenario: Scenario = {
    id: "untyped",
    title: "a line never typed",
    level: "core",
    args: [],
    stdinLines: [{ line: "never", afterRequests: 1 }],
    runs: [{ args: ["ask"] }],
    server: { steps: [] },
    judgements: [],
  };
  const result = await runContract(
    { stage: "x", title: "x", scenarios: [scenario] },
    { command: fakeCli("asks", asks), timeoutMs: 10_000 },
  );
  expect(result.scenarios[0]?.run.stdoutLines).toEqual(["answered 404"]);
}, 30_000);

test("an interrupt sends SIGINT to the command once the server has the request", async () => {
  const waits = `
process.on("SIGINT", () => { console.log("interrupted"); process.exit(130); });
await fetch(process.env.ANTHROPIC_BASE_URL + "/v1/messages", {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ model: "m", max_tokens: 9, messages: [{ role: "user", content: "hi" }] }),
});
`;
  const [scenario] = contracts
    .flatMap((contract) => contract.scenarios)
    .filter((candidate) => candidate.id === "ctrl-c-text");
  if (scenario === undefined) throw new Error("no ctrl-c-text scenario");
  const result = await runContract(
    { stage: "x", title: "x", scenarios: [scenario] },
    { command: fakeCli("waits", waits) },
  );
  expect(result.scenarios[0]).toMatchObject({ passed: true, requests: [{ index: 0 }] });
  expect(result.scenarios[0]?.run.stdout).toBe("interrupted\n");
  // Interrupted before the scenario's answer (held 15 s) could come, however busy the machine.
  expect(result.scenarios[0]?.run.durationMs).toBeLessThan(15_000);
}, 30_000);

test("levels filters scenarios, and an unknown stage is an error", async () => {
  const result = await runContract("day-1", {
    command: fakeCli("levels", echoCli()),
    levels: ["conformance"],
    only: ["echo-round-trip", "exact-output"],
  });
  expect(result.scenarios.map((scenario) => scenario.id)).toEqual(["exact-output"]);
  await expect(runContract("day-99", { command: ["node"] })).rejects.toThrow(
    "no contract for stage: day-99",
  );
}, 30_000);

test("startIn scenario: the CLI starts in the scenario's directory, among the scenario's files", async () => {
  fakeCli(
    "reads-here",
    `import { readFileSync } from "node:fs";
console.log(process.cwd());
console.log(readFileSync(".env", "utf8").trim() + " " + readFileSync("sub/note.txt", "utf8"));`,
  );
  const scenario: Scenario = {
    id: "here",
    title: "starts here",
    level: "core",
    args: [],
    startIn: "scenario",
    files: (context) => ({ ".env": `DIR=${context.dir}`, "sub/note.txt": "hello" }),
    judgements: [
      judge(
        "",
        "should start in the scenario's directory",
        (o) => o.stdoutLines[0] === o.context.dir,
      ),
      judge("", "should read the files", (o) => o.stdoutLines[1] === `DIR=${o.context.dir} hello`),
    ],
  };
  // The command names its file relative to the project, as `node dist/agent-code.mjs` does.
  const result = await runScenario(scenario, { command: ["node", "reads-here.mjs"], cwd: dir });
  expect(result.run.stderr).toBe("");
  expect(result.failures).toEqual([]);
}, 30_000);

test("commandFrom: paths below the project and --import's module become absolute", () => {
  const stage = fileURLToPath(new URL("../../day-2-v3/", import.meta.url));
  const [node, flag, loader, cli] = commandFrom("node --import tsx src/cli.ts", stage);
  expect([node, flag]).toEqual(["node", "--import"]);
  expect(loader).toMatch(/^file:\/\/.*\/tsx\/dist\/loader\.mjs$/);
  expect(cli).toBe(join(stage, "src/cli.ts"));
  // Words that name no path below the project stay as they are.
  expect(commandFrom(["uv", "run", "agent-code", "no/such/file.py"], stage)).toEqual([
    "uv",
    "run",
    "agent-code",
    "no/such/file.py",
  ]);
});

test("every docs link in every contract names an existing heading", () => {
  const docs = fileURLToPath(new URL("../../../docs/", import.meta.url));
  const anchors = new Map(
    readdirSync(docs)
      .filter((name) => name.endsWith(".md"))
      .map((name) => [`docs/${name}`, headingAnchors(readFileSync(join(docs, name), "utf8"))]),
  );
  const links = contracts.flatMap((contract) =>
    contract.scenarios.flatMap((scenario) =>
      scenario.judgements.map((judgement) => `${contract.stage}/${scenario.id}: ${judgement.docs}`),
    ),
  );
  expect(links.length).toBeGreaterThan(0);
  const broken = links.filter((link) => {
    const [page, anchor] = (link.split(": ")[1] ?? "").split("#");
    return anchor === undefined || !anchors.get(page ?? "")?.has(anchor);
  });
  expect(broken).toEqual([]);
});

test("the first stage has no base; every other names an earlier stage as its base", () => {
  const [first, ...rest] = contracts;
  expect(first?.base).toBeUndefined();
  for (const [index, contract] of rest.entries()) {
    const earlier = contracts.slice(0, index + 1).map((candidate) => candidate.stage);
    expect(earlier, `${contract.stage}'s base`).toContain(contract.base);
  }
});

// A CLI that counts its runs in a file beside it, so a test can tell how often it really ran.
function countingCli(name: string): { command: string[]; runs: () => number } {
  const counter = join(dir, `${name}.count`);
  writeFileSync(counter, "");
  const command = fakeCli(
    name,
    `import { appendFileSync } from "node:fs";
appendFileSync(${JSON.stringify(counter)}, "x");
console.log("final: " + process.argv.slice(2).join(" "));`,
  );
  return { command, runs: () => readFileSync(counter, "utf8").length };
}

test("with shared runs, scenarios with the same inputs run the command once, each judged alone", async () => {
  const says = (text: string): Scenario["judgements"][number] =>
    judge("docs/day-1.md", `should say ${text}`, (o) => o.stdout.includes(text));
  const core: Scenario = {
    id: "core",
    title: "the run",
    level: "core",
    args: ["hello"],
    judgements: [says("hello")],
  };
  // The same inputs, built apart: a conformance twin with a judgement of its own.
  const twin: Scenario = { ...core, id: "twin", args: ["hello"], judgements: [says("goodbye")] };
  const other: Scenario = { ...core, id: "other", args: ["other"], judgements: [says("other")] };
  const cli = countingCli("counting");
  const sharedRuns: SharedRuns = new Map();
  const options = { command: cli.command, sharedRuns };
  const results = await Promise.all([core, twin, other, core].map((s) => runScenario(s, options)));
  expect(cli.runs()).toBe(2);
  expect(results.map((result) => [result.id, result.passed])).toEqual([
    ["core", true],
    ["twin", false],
    ["other", true],
    ["core", true],
  ]);
  expect(results[1]?.failures.map((failure) => failure.message)).toEqual(["should say goodbye"]);
  // Without the map every scenario runs.
  await runScenario(core, { command: cli.command });
  await runScenario(twin, { command: cli.command });
  expect(cli.runs()).toBe(4);
}, 30_000);

test("a run is shared only when every input is the same: plain data equal, a function the same one", () => {
  const base: Scenario = { id: "a", title: "a", level: "core", args: ["hi"], judgements: [] };
  expect(runKey({ ...base, id: "b", level: "conformance" })).toBe(runKey(base));
  expect(runKey({ ...base, args: ["bye"] })).not.toBe(runKey(base));
  // An unset variable is not the same as one left alone.
  expect(runKey({ ...base, env: { ANTHROPIC_API_KEY: undefined } })).not.toBe(
    runKey({ ...base, env: {} }),
  );
  expect(runKey({ ...base, server: { steps: [{ content: [] }] } })).not.toBe(runKey(base));
  // A function among the inputs may answer each run differently: two functions that do the same
  // are two inputs; a twin spread from its scenario holds the very same one and shares its run.
  const step = () => ({ content: [] });
  const byFunction: Scenario = { ...base, server: { steps: [step] } };
  expect(runKey({ ...base, server: { steps: [() => ({ content: [] })] } })).not.toBe(
    runKey(byFunction),
  );
  expect(runKey({ ...byFunction, id: "a-text", level: "conformance" })).toBe(runKey(byFunction));
  const withFiles: Scenario = { ...base, files: () => ({ ".env": "X=1\n" }) };
  expect(runKey(withFiles)).not.toBe(runKey({ ...base, files: () => ({ ".env": "X=1\n" }) }));
  expect(runKey({ ...withFiles, judgements: [] })).toBe(runKey(withFiles));
  const argsByFunction: Scenario = { ...base, args: () => ["hi"] };
  expect(runKey(argsByFunction)).not.toBe(runKey(base));
});

test("a command that leaves a child holding stdout is judged, with a note saying so", async () => {
  const leaves = `
import { spawn } from "node:child_process";
spawn("sleep", ["300"], { stdio: ["ignore", "inherit", "inherit"] }).unref();
${echoCli()}`;
  const result = await runContract("day-1", {
    command: fakeCli("leaves-a-child", leaves),
    only: ["echo-round-trip"],
    timeoutMs: 20_000,
  });
  expect(result.scenarios[0]).toMatchObject({
    passed: true,
    timedOut: false,
    notes: [
      "the command exited but left a process running that held its output open; the runner stopped it",
    ],
  });
}, 30_000);

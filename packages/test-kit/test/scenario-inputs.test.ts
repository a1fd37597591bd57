// What a scenario may give the run besides its arguments (answers prepended to a kept scenario's
// stdin, variables built per run, a home folder, a Ctrl-C once a file exists, a git repository)
// and what every run is checked for (the scenario's secrets), each shown to hold and to catch its
// miss.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import {
  type Contract,
  keepScenarios,
  type Observed,
  runKey,
  type Scenario,
} from "../src/contract.ts";
import { hasGit } from "../src/git-folder.ts";
import { fileExists } from "../src/judgements.ts";
import { fakeCli, runAndSee } from "./support.ts";

const dir = mkdtempSync(join(tmpdir(), "inputs-cli-"));

const cliOf = (name: string, body: string) => fakeCli(dir, name, body);
const run = runAndSee;

test("keepScenarios puts `stdin` before each kept scenario's own input", () => {
  const asks: Scenario = { id: "asks", title: "a", level: "core", args: ["x"], judgements: [] };
  const repl: Scenario = { ...asks, id: "repl", stdin: "hello\n/exit\n" };
  const earlier: Contract = { stage: "earlier", title: "e", scenarios: [asks, repl] };
  const [first, second] = keepScenarios(earlier, ["asks", "repl"], { stdin: "y\n" });
  expect(first?.stdin).toBe("y\n");
  expect(second?.stdin).toBe("y\nhello\n/exit\n");
  expect(second?.args).toEqual(["x"]);
  // Kept as they were, they stay the very same scenarios, so a run keyed by one is shared.
  expect(keepScenarios(earlier, ["repl"])[0]).toBe(repl);
});

test("env may be built per run from the context, and such a run is never shared", async () => {
  const prints = cliOf("prints-env", "console.log(process.env.WHERE);");
  const scenario: Partial<Scenario> = { env: (context) => ({ WHERE: `${context.work}/rc.sh` }) };
  const { observed } = await run(prints, scenario);
  expect(observed.stdoutLines).toEqual([`${observed.context.work}/rc.sh`]);
  const byFunction = { id: "f", title: "f", level: "core", args: [], judgements: [], ...scenario };
  const plain = { ...byFunction, env: { WHERE: "here" } } as Scenario;
  expect(runKey(plain)).not.toBe(runKey(byFunction as Scenario));
}, 30_000);

// Says what it finds in AGENT_CODE_HOME, then keeps a file there, as a CLI keeps its own state.
const READS_HOME = `
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
const home = process.env.AGENT_CODE_HOME;
const there = home !== undefined && existsSync(home);
const names = there ? readdirSync(home).sort() : [];
console.log(JSON.stringify({
  home: home ?? null,
  names,
  settings: names.includes("settings.json") ? readFileSync(join(home, "settings.json"), "utf8") : null,
  HOME: process.env.HOME ?? null,
}));
if (there) writeFileSync(join(home, "kept.txt"), "kept\\n");
`;

test("every run gets an empty home folder as AGENT_CODE_HOME; homeFiles are written there", async () => {
  const cli = cliOf("reads-home", READS_HOME);
  const empty = await run(cli, {});
  expect(JSON.parse(empty.observed.stdout)).toEqual({
    home: empty.observed.context.home,
    names: [],
    settings: null,
    // HOME is left as it was: a command such as `uv run` keeps its cache there.
    HOME: process.env.HOME ?? null,
  });
  expect(empty.observed.context.home).toBe(join(empty.observed.context.dir, "home"));
  // The home folder is agent-code's own (Day 6 keeps sessions there): a file written there is
  // no change outside the work folder, and a judgement that cares reads it from `files`.
  expect(empty.observed.files["home/kept.txt"]).toBe("kept\n");
  expect(empty.observed.outsideChanged).toEqual([]);
  const settings = JSON.stringify({ trustedDirs: ["/somewhere"] });
  const given = await run(cli, {
    homeFiles: (context) => ({ "settings.json": settings.replace("/somewhere", context.work) }),
    files: () => ({ "home/from-files.txt": "also here\n" }),
  });
  expect(JSON.parse(given.observed.stdout)).toMatchObject({
    names: ["from-files.txt", "settings.json"],
    settings: JSON.stringify({ trustedDirs: [given.observed.context.work] }),
  });
  // A scenario's own env comes last: it may point the CLI elsewhere, or nowhere.
  const unset = await run(cli, { env: { AGENT_CODE_HOME: undefined } });
  expect(JSON.parse(unset.observed.stdout)).toMatchObject({ home: null });
}, 30_000);

test("homeFiles are part of a run's inputs; built per run, only by the very same function", () => {
  const bare: Scenario = { id: "h", title: "h", level: "core", args: [], judgements: [] };
  const plain: Scenario = { ...bare, homeFiles: { "settings.json": "{}" } };
  expect(runKey(plain)).not.toBe(runKey(bare));
  expect(runKey({ ...bare, homeFiles: { "settings.json": "[]" } })).not.toBe(runKey(plain));
  const byFunction: Scenario = { ...bare, homeFiles: () => ({ "settings.json": "{}" }) };
  expect(runKey(byFunction)).not.toBe(
    runKey({ ...bare, homeFiles: () => ({ "settings.json": "{}" }) }),
  );
  expect(runKey({ ...byFunction, id: "h-text" })).toBe(runKey(byFunction));
});

// Writes work/started.txt a little after it starts, then waits; says when the Ctrl-C came.
const STARTS_LATE = `
import { writeFileSync } from "node:fs";
let startedAt;
process.on("SIGINT", () => {
  console.log(startedAt === undefined ? "interrupted before the file" : "interrupted " + Math.round(performance.now() - startedAt));
  process.exit(130);
});
setTimeout(() => {
  writeFileSync(process.argv[2] + "/started.txt", "");
  startedAt = performance.now();
}, 400);
setTimeout(() => process.exit(0), 20_000);
`;

test("interrupt afterFile: SIGINT once the file exists, and afterMs after that", async () => {
  const cli = cliOf("starts-late", STARTS_LATE);
  const args = (context: { work: string }) => [context.work];
  const soon = await run(cli, { args, interrupt: { afterFile: "work/started.txt" } });
  expect(soon.observed.exitCode).toBe(130);
  expect(soon.observed.stdout).toMatch(/^interrupted \d+\n$/);
  expect(soon.observed.durationMs).toBeLessThan(15_000);
  const later = await run(cli, {
    args,
    interrupt: { afterFile: "work/started.txt", afterMs: 600 },
  });
  const waited = Number(/^interrupted (\d+)/.exec(later.observed.stdout)?.[1]);
  expect(waited).toBeGreaterThanOrEqual(550);
}, 60_000);

test("an interrupt whose file never appears sends nothing: the run ends by itself", async () => {
  const cli = cliOf(
    "never-starts",
    `process.on("SIGINT", () => { console.log("interrupted"); process.exit(130); });
setTimeout(() => { console.log("done"); process.exit(0); }, 300);`,
  );
  const { observed } = await run(cli, { interrupt: { afterFile: "work/started.txt" } });
  expect(observed.stdout).toBe("done\n");
  expect(observed.exitCode).toBe(0);
}, 30_000);

// Sends the variable MY_SECRET to the fake server in a prompt when told `send`, prints it when
// told `print`, else only says it ran.
const HANDS_ON_A_SECRET = `
const how = process.argv[2];
const secret = process.env.MY_SECRET;
if (how === "send") {
  await fetch(process.env.ANTHROPIC_BASE_URL + "/v1/messages", {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ model: "claude-sonnet-5", max_tokens: 64, messages: [{ role: "user", content: "env: MY_SECRET=" + secret }] }),
  });
}
if (how === "print") console.error("debug: " + secret);
console.log("final: ran");
`;

test("a scenario's secret in a request or the output fails it, naming the variable", async () => {
  const cli = cliOf("hands-on-a-secret", HANDS_ON_A_SECRET);
  const scenario: Partial<Scenario> = {
    env: { MY_SECRET: "canary-my-secret-91c2" },
    secrets: ["canary-my-secret-91c2"],
    server: { steps: [{ content: [{ type: "text", text: "ok" }] }] },
  };
  const message = (where: string) =>
    `the value of a secret variable reached the output or a request: MY_SECRET (in ${where})`;
  const sent = await run(cli, { ...scenario, args: ["send"] });
  expect(sent.result.failures.map((failure) => failure.message)).toEqual([message("request 1")]);
  const printed = await run(cli, { ...scenario, args: ["print"] });
  expect(printed.result.failures.map((failure) => failure.message)).toEqual([message("stderr")]);
  const kept = await run(cli, { ...scenario, args: ["keep"] });
  expect(kept.result.failures).toEqual([]);
  // Built per run, and named by its value when no variable of the scenario's holds it.
  const byContext = await run(cli, {
    args: ["print"],
    env: (context) => ({ MY_SECRET: context.work }),
    secrets: (context) => [`${context.work}`, "not-there"],
  });
  expect(byContext.result.failures).toEqual([{ message: message("stderr"), docs: "" }]);
}, 60_000);

test.skipIf(!hasGit())(
  "git: the work folder is a repository with one fixed commit of the scenario's files",
  async () => {
    const cli = cliOf(
      "reads-git",
      `import { execFileSync } from "node:child_process";
const git = (...args) => execFileSync("git", args, { cwd: process.argv[2], encoding: "utf8" }).trim();
console.log(git("log", "--format=%H %an <%ae> %aI %s"));
console.log(git("branch", "--show-current"));
console.log(git("status", "--porcelain") || "clean");
console.log(git("ls-files"));`,
    );
    const scenario: Partial<Scenario> = {
      args: (context) => [context.work],
      git: true,
      files: () => ({ "work/a.txt": "alpha\n", "work/sub/b.txt": "beta\n", "outside.txt": "x" }),
    };
    const first = await run(cli, scenario);
    const [log, branch, status, ...files] = first.observed.stdoutLines;
    expect(log).toMatch(
      /^[0-9a-f]{40} Agent Code <contract@agent-code\.invalid> 2026-01-01T00:00:00\+00:00 initial$/,
    );
    expect([branch, status, files]).toEqual(["main", "clean", ["a.txt", "sub/b.txt"]]);
    // The same files make the same commit, run after run.
    const second = await run(cli, scenario);
    expect(second.observed.stdoutLines[0]).toBe(log);
    // Without it, no repository.
    const none = await run(cli, { ...scenario, git: false });
    expect(none.observed.stdout).toBe("");
    expect(none.observed.stderr).toMatch(/not a git repository/);
  },
  30_000,
);

test("fileExists: a file, bytes or a link the run left, by its path in the scenario's folder", () => {
  const observed = {
    files: { "work/a.txt": "", "work/b.bin": { sha256: "", size: 1 }, c: { symlink: "x" } },
  } as unknown as Observed;
  expect(["work/a.txt", "work/b.bin", "c"].every((path) => fileExists(observed, path))).toBe(true);
  expect(fileExists(observed, "work/late.txt")).toBe(false);
  expect(fileExists(observed, "a.txt")).toBe(false);
});

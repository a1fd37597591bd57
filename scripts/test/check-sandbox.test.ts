// A learner's program cannot reach what the grader holds: no ancestor's `/proc/<pid>/environ`
// (decision 0057), and, graded in a class with its install, nothing outside its own folder: not
// the grader's home or /tmp, not the other learners, the grades, the step summary or another
// check's fake server (decision 0064).
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readFolder, runCli, startFakeServer } from "@agent-code/test-kit";
import { afterAll, describe, expect, onTestFinished, test } from "vitest";
import { chooseSandbox, SANDBOX_VARIABLE, sandboxCommand } from "../lib/check-sandbox.ts";
import { findProgram, ROOT } from "../lib/command.ts";
import {
  FORGED_ROW,
  type HostileTargets,
  hostileProject,
  typescriptProject,
} from "./class-fixtures.ts";

const SCRIPT = fileURLToPath(new URL("../check.ts", import.meta.url));
const CLASS_SCRIPT = fileURLToPath(new URL("../check-class.ts", import.meta.url));
const CANARY = "grader-canary-5b1e-never-readable";
const dir = mkdtempSync(join(tmpdir(), "check-sandbox-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SANDBOXED = process.platform === "linux" && chooseSandbox().way !== undefined;

// Walks PPid up to 1, then every pid it can see, and prints each variable that holds the canary's
// name, as a learner's code trying its luck would; the last line says how many it read.
const SNOOP = `
import { readdirSync, readFileSync } from "node:fs";
const pids = [];
for (let pid = process.pid; pid > 0; ) {
  pids.push(pid);
  const status = readFileSync(\`/proc/\${pid}/status\`, "utf8");
  pid = Number(/^PPid:\\s+(\\d+)/m.exec(status)?.[1] ?? 0);
}
pids.push(...readdirSync("/proc").filter((name) => /^\\d+$/.test(name)).map(Number));
let read = 0;
for (const pid of new Set(pids)) {
  try {
    const environ = readFileSync(\`/proc/\${pid}/environ\`, "utf8");
    read++;
    for (const entry of environ.split("\\0")) {
      if (entry.startsWith("GRADER_CANARY=")) console.error(\`found in \${pid}: \${entry}\`);
    }
  } catch {}
}
console.error(\`read \${read} environ files\`);
process.exit(1);
`;

function check(project: string, sandbox: "on" | "off") {
  return runCli(
    ["node", "--import", "tsx", SCRIPT],
    [
      "day-1",
      "--only",
      "echo-round-trip",
      "--project",
      project,
      "--cmd",
      "node snoop.mjs",
      "--json",
    ],
    {
      env: {
        INIT_CWD: ROOT,
        GRADER_CANARY: CANARY,
        [SANDBOX_VARIABLE]: sandbox === "off" ? "off" : undefined,
      },
      timeoutMs: 60_000,
    },
  );
}

describe.skipIf(!SANDBOXED)("the sandbox", () => {
  const project = join(dir, "snoop");

  test("a learner's program reads no ancestor's environment, and finds the canary without the sandbox", async () => {
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, "snoop.mjs"), SNOOP);

    const [sandboxed, open] = await Promise.all([check(project, "on"), check(project, "off")]);

    // Without the sandbox the snoop finds it: the test sees what it guards against.
    expect(open.stderr).toContain(`${SANDBOX_VARIABLE}=off`);
    expect(`${open.stdout}${open.stderr}`).toContain(`GRADER_CANARY=${CANARY}`);
    expect(JSON.parse(open.stdout).unsandboxed).toContain(`${SANDBOX_VARIABLE}=off`);

    expect(sandboxed.stderr).toBe("");
    const report = JSON.parse(sandboxed.stdout);
    expect(report.unsandboxed).toBeUndefined();
    const [scenario] = report.stages[0].scenarios;
    // It ran, and read what it could: its own environment and PID 1's.
    expect(scenario.stderrTail.at(-1)).toMatch(/^read [1-9]\d* environ files$/);
    expect(`${sandboxed.stdout}${sandboxed.stderr}`).not.toContain(CANARY);
  }, 120_000);
});

// The grader's side of a class, each part marked: a home with credentials (outside the OS's temp
// folder, so that it is hidden as the home, not as /tmp), a temporary folder with a secret,
// another learner's project, where the grades and the step summary go, and another check's fake
// server that has recorded that learner's request and holds a step of its script.
async function graderSide(name: string) {
  const root = join(dir, name);
  const cache = join(ROOT, "scripts", "node_modules", ".cache");
  mkdirSync(cache, { recursive: true });
  const home = mkdtempSync(join(cache, "grader-home-"));
  onTestFinished(() => rmSync(home, { recursive: true, force: true }));
  const secrets: Record<string, string> = {
    ".git-credentials": `https://grader:${CANARY}-git@github.com\n`,
    ".npmrc": `//registry.npmjs.org/:_authToken=${CANARY}-npm\n`,
    ".ssh/id_ed25519": `-----BEGIN OPENSSH PRIVATE KEY-----\n${CANARY}-ssh\n`,
    ".aws/credentials": `[default]\naws_secret_access_key = ${CANARY}-aws\n`,
    ".bashrc": "# the grader's own\n",
  };
  for (const [file, text] of Object.entries(secrets)) {
    mkdirSync(join(home, file, ".."), { recursive: true });
    writeFileSync(join(home, file), text);
  }
  const tmp = join(root, "tmp");
  mkdirSync(tmp, { recursive: true });
  writeFileSync(join(tmp, "token.txt"), `${CANARY}-tmp\n`);
  const classDir = join(root, "class");
  const other = join(classDir, "ada");
  typescriptProject(other, { stage: "day-1", installed: true });
  writeFileSync(join(other, "notes.txt"), "ada's own notes\n");
  const summary = join(root, "summary.md");
  writeFileSync(summary, "");
  const server = await startFakeServer({
    script: [{ content: [{ type: "text", text: "still scripted" }] }],
  });
  onTestFinished(() => server.close());
  await fetch(`${server.url}/v1/models`, { headers: { "x-learner": `ada-${CANARY}-request` } });
  const targets: HostileTargets = {
    home,
    tmp,
    other,
    otherFile: join(other, "notes.txt"),
    grades: join(root, "class-grades"),
    summary,
    server: server.url,
    own: join(classDir, "hostile"),
  };
  hostileProject(targets.own, targets);
  return { root, classDir, targets, server };
}

describe.skipIf(!SANDBOXED || !findProgram("pnpm", ROOT))("a hostile project in a class", () => {
  test("its install and its runs change nothing outside its folder and learn no canary", async () => {
    const { classDir, targets, server } = await graderSide("class");
    const before = {
      home: readFolder(targets.home),
      tmp: readFolder(targets.tmp),
      other: readFolder(targets.other),
    };

    const run = await runCli(
      ["node", "--import", "tsx", CLASS_SCRIPT],
      [classDir, "--stages", "day-1", "--install", "--jobs", "2", "--seed", "7"],
      {
        env: {
          INIT_CWD: ROOT,
          HOME: targets.home,
          GITHUB_ACTIONS: "true",
          GITHUB_STEP_SUMMARY: targets.summary,
          // Set to off around the test, it shows what the sandbox keeps out.
          [SANDBOX_VARIABLE]: process.env[SANDBOX_VARIABLE],
        },
        timeoutMs: 240_000,
      },
    );
    expect(run.exitCode, run.stderr).toBe(0);

    // Its attack ran at install and at the runs, and its own folder took what it learnt.
    const loot = ["install", "run"].map((phase) =>
      readFileSync(join(targets.own, `loot-${phase}.json`), "utf8"),
    );
    // Nothing outside its folder changed: the home (.bashrc and all), the temporary folder, the
    // other learner's files.
    expect(readFolder(targets.home)).toEqual(before.home);
    expect(readFolder(targets.tmp)).toEqual(before.tmp);
    expect(readFolder(targets.other)).toEqual(before.other);
    // The grades hold the grader's files only, each written from what the checks gave back.
    const grades = readdirSync(targets.grades, { recursive: true }).map(String).sort();
    expect(grades).toEqual([
      "class.json",
      "class.md",
      "class.xml",
      "points.csv",
      "reports",
      "reports/ada.json",
      "reports/ada.md",
      "reports/hostile.install.log",
      "reports/hostile.json",
      "reports/hostile.md",
    ]);
    const files = grades
      .filter((name) => name.includes("."))
      .map((name) => readFileSync(join(targets.grades, name), "utf8"));
    const summary = readFileSync(targets.summary, "utf8");
    // No canary anywhere: not in what the command printed, the grades, the summary or the loot.
    for (const text of [run.stdout, run.stderr, ...files, summary, ...loot]) {
      expect(text).not.toContain(CANARY);
    }
    // The other learner's grade and page are their own.
    const report = JSON.parse(readFileSync(join(targets.grades, "class.json"), "utf8"));
    expect(report.learners.map((row: { learner: string }) => row.learner)).toEqual([
      "ada",
      "hostile",
    ]);
    expect(report.learners[0]).toMatchObject({ error: null, highestStagePassed: "day-1" });
    expect(readFileSync(join(targets.grades, "reports", "ada.md"), "utf8")).not.toContain("forged");
    // The step summary is the class table, once, and the hostile row's cell shows its text as
    // text: no cell, row, link or HTML of its own.
    const table = readFileSync(join(targets.grades, "class.md"), "utf8");
    expect(summary).toBe(table);
    expect(table.split("\n").filter((line) => line.startsWith("| "))).toHaveLength(4);
    expect(table).toContain("\\| forged \\| day-5-v5 \\|");
    expect(table).not.toContain(FORGED_ROW.slice(0, 12));
    expect(table).not.toMatch(/(?<!\\)<img|(?<!\\)\[more/);
    // The other check's fake server answered the hostile project 403 and kept its state.
    for (const line of loot.join("").trim().split("\n")) {
      const fetched = JSON.parse(line).fetched[targets.server];
      expect(
        [fetched.requests, fetched.reset, fetched.script].map((text) => text.slice(0, 3)),
      ).toEqual(["403", "403", "403"]);
    }
    expect(server.requests().map((request) => request.headers["x-learner"])).toEqual([
      `ada-${CANARY}-request`,
    ]);
    const reply = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      body: JSON.stringify({
        model: "claude-sonnet-4-5",
        max_tokens: 16,
        messages: [{ role: "user", content: "hi" }],
      }),
    });
    expect(JSON.stringify(await reply.json())).toContain("still scripted");
  }, 300_000);
});

test("the hostile project's attack, run unconfined, reaches all that the sandbox keeps from it", async () => {
  const { targets } = await graderSide("unconfined");
  // Not spawnSync: the fake server it asks answers from this process.
  const run = await runCli([process.execPath], ["src/postinstall.mjs"], {
    cwd: targets.own,
    timeoutMs: 30_000,
  });
  expect(run.exitCode, run.stderr).toBe(0);
  const home = readdirSync(targets.home);
  expect(home.filter((name) => name.startsWith("pwned-install-"))).toHaveLength(1);
  expect(readFileSync(join(targets.home, ".bashrc"), "utf8")).toContain("curl evil");
  expect(readdirSync(targets.other).some((name) => name.startsWith("pwned-"))).toBe(true);
  expect(existsSync(targets.otherFile)).toBe(false);
  expect(readdirSync(targets.grades).some((name) => name.startsWith("pwned-"))).toBe(true);
  expect(readFileSync(targets.summary, "utf8")).toContain(FORGED_ROW);
  const loot = readFileSync(join(targets.own, "loot-install.json"), "utf8");
  for (const kind of ["git", "npm", "ssh", "aws", "tmp"])
    expect(loot).toContain(`${CANARY}-${kind}`);
}, 60_000);

test("a program that cannot be found is left as it is, so the runner's error names it", () => {
  const command = ["no-such-agent-code-program", "--flag"];
  expect(sandboxCommand(command, dir, { note: () => {} })).toEqual(command);
});

test("AGENT_CODE_CHECK_SANDBOX=off, or another platform, runs without it and says what is open", () => {
  const off = chooseSandbox({ env: { [SANDBOX_VARIABLE]: "off" } });
  expect(off.way).toBeUndefined();
  expect(off.why).toMatch(/read and write whatever this user can .*environment of every process/);
  expect(chooseSandbox({ platform: "darwin" }).why).toContain("it needs Linux");
});

test("the Actions recipe checks out without leaving the job's token in .git/config", () => {
  const page = readFileSync(join(ROOT, "docs", "instructors.md"), "utf8");
  const start = page.indexOf("```yaml\n# .github/workflows/agent-code-check.yml\n");
  const recipe = page.slice(start, page.indexOf("\n```", start + 1));
  const checkouts = recipe
    .split(/\n(?= {6}- )/)
    .filter((step) => step.includes("actions/checkout"));
  expect(checkouts.length).toBe(2);
  for (const step of checkouts) expect(step).toMatch(/^ +persist-credentials: false\b/m);
});

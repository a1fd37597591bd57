// Scenario folders: what a scenario writes before the run, what the command finds there, and what
// judgements see after it, once the folder is gone.
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import {
  type Contract,
  type Observed,
  runContract,
  runScenario,
  type Scenario,
  type SharedRuns,
} from "../src/contract.ts";
import { fileText, judge, linesInOrder, resultOf } from "../src/judgements.ts";
import { changedPaths, MAX_TEXT_BYTES, readFolder, writeFiles } from "../src/scenario-folder.ts";
import { fakeCli, runAndSee } from "./support.ts";

const dir = mkdtempSync(join(tmpdir(), "folder-cli-"));

const cliOf = (name: string, body: string) => fakeCli(dir, name, body);

function contractOf(...scenarios: Scenario[]): Contract {
  return { stage: "test", title: "test", scenarios };
}

// Runs one scenario and hands back what its judgements saw, and whether it passed.
async function observedOf(
  command: string[],
  scenario: Partial<Scenario>,
): Promise<{ observed: Observed; passed: boolean }> {
  const { result, observed } = await runAndSee(command, scenario);
  return { observed, passed: result.passed };
}

// A model turn of the fake server's Messages API, from a command that speaks it by hand.
const ASK = `
async function ask(messages) {
  const response = await fetch(process.env.ANTHROPIC_BASE_URL + "/v1/messages", {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ model: "claude-sonnet-5", max_tokens: 64, messages }),
  });
  const body = await response.json();
  if (!response.ok) throw new Error(JSON.stringify(body));
  return body;
}
`;

test("files are written as text, bytes, symlinks and text with an mtime", async () => {
  const cli = cliOf(
    "lists",
    `import { lstatSync, readFileSync, readlinkSync } from "node:fs";
console.log(JSON.stringify({
  cwd: process.cwd(),
  text: readFileSync("a.txt", "utf8"),
  bytes: [...readFileSync("logo.png")],
  link: readlinkSync("leak"),
  through: readFileSync("leak", "utf8"),
  inner: readlinkSync("sub/to-a"),
  mtime: lstatSync("old.txt").mtimeMs,
}));`,
  );
  const { observed } = await observedOf(cli, {
    startIn: "work",
    files: () => ({
      "work/a.txt": "alpha\n",
      "work/logo.png": new Uint8Array([137, 80, 78, 71, 0, 1]),
      // A link that leaves the work folder, and one that stays inside it.
      "work/leak": { symlink: "../secret.txt" },
      "work/sub/to-a": { symlink: "../a.txt" },
      "work/old.txt": { text: "old\n", mtime: Date.UTC(2020, 0, 2) },
      "secret.txt": "SECRET-42\n",
    }),
  });
  const seen = JSON.parse(observed.stdout);
  expect(seen).toEqual({
    cwd: observed.context.work,
    text: "alpha\n",
    bytes: [137, 80, 78, 71, 0, 1],
    link: "../secret.txt",
    through: "SECRET-42\n",
    inner: "../a.txt",
    mtime: Date.UTC(2020, 0, 2),
  });
  expect(observed.context.work).toBe(join(observed.context.dir, "work"));
  // The folder as data: text, a hash for bytes, links as their targets.
  expect(observed.files).toMatchObject({
    "secret.txt": "SECRET-42\n",
    "work/a.txt": "alpha\n",
    "work/leak": { symlink: "../secret.txt" },
    "work/logo.png": {
      sha256: createHash("sha256")
        .update(new Uint8Array([137, 80, 78, 71, 0, 1]))
        .digest("hex"),
      size: 6,
    },
    "work/old.txt": "old\n",
    "work/sub/to-a": { symlink: "../a.txt" },
  });
  expect(observed.outsideChanged).toEqual([]);
  expect(fileText(observed, "work/a.txt")).toBe("alpha\n");
  expect(fileText(observed, "work/logo.png")).toBeUndefined();
}, 30_000);

test("a symlink may name an absolute path outside the work folder, built from the context", async () => {
  const cli = cliOf(
    "reads-link",
    `import { readFileSync } from "node:fs";
console.log(readFileSync(process.argv[2], "utf8").trim());`,
  );
  const { observed } = await observedOf(cli, {
    args: (context) => [join(context.work, "out")],
    files: (context) => ({
      "secret.txt": "outside\n",
      "work/out": { symlink: join(context.dir, "secret.txt") },
    }),
  });
  expect(observed.stdoutLines).toEqual(["outside"]);
  expect(observed.files["work/out"]).toEqual({ symlink: join(observed.context.dir, "secret.txt") });
}, 30_000);

test("outside files the run changed, added or removed are reported; work files are data", async () => {
  const cli = cliOf(
    "scribbles",
    `import { mkdirSync, rmSync, writeFileSync } from "node:fs";
writeFileSync("../secret.txt", "overwritten\\n");
writeFileSync("../new.txt", "new\\n");
rmSync("../gone.txt");
writeFileSync("a.txt", "changed\\n");
mkdirSync("node_modules/x", { recursive: true });
writeFileSync("node_modules/x/index.js", "skipped\\n");
writeFileSync("big.txt", "y".repeat(${MAX_TEXT_BYTES + 1}));`,
  );
  const { observed } = await observedOf(cli, {
    startIn: "work",
    files: () => ({
      "work/a.txt": "original\n",
      "secret.txt": "SECRET\n",
      "gone.txt": "here\n",
      "kept.txt": "kept\n",
    }),
  });
  expect(observed.exitCode).toBe(0);
  expect(observed.outsideChanged).toEqual(["gone.txt", "new.txt", "secret.txt"]);
  expect(fileText(observed, "work/a.txt")).toBe("changed\n");
  expect(fileText(observed, "secret.txt")).toBe("overwritten\n");
  expect(Object.keys(observed.files).some((path) => path.includes("node_modules"))).toBe(false);
  expect(observed.files["work/big.txt"]).toEqual({
    sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    size: MAX_TEXT_BYTES + 1,
  });
}, 30_000);

test("per-run steps name the run's paths, and a step changes a file between turns", async () => {
  const cli = cliOf(
    "two-turns",
    `${ASK}
import { readFileSync } from "node:fs";
const before = readFileSync("a.txt", "utf8").trim();
const first = await ask([{ role: "user", content: "hi" }]);
console.log("first: " + first.content[0].text);
const after = readFileSync("a.txt", "utf8").trim();
console.log("before: " + before + ", after: " + after);`,
  );
  const { observed, passed } = await observedOf(cli, {
    startIn: "work",
    files: () => ({ "work/a.txt": "as written\n" }),
    server: {
      steps: (context) => [
        () => {
          // The model has "read" a.txt; someone else rewrites it before the answer comes.
          writeFileSync(join(context.work, "a.txt"), "rewritten meanwhile\n");
          return { content: [{ type: "text", text: `work is ${context.work}` }] };
        },
      ],
    },
    judgements: [
      judge("", "the step names the run's own folder", (o) =>
        o.stdoutLines.includes(`first: work is ${o.context.work}`),
      ),
    ],
  });
  expect(passed).toBe(true);
  expect(observed.stdoutLines).toContain("before: as written, after: rewritten meanwhile");
  expect(fileText(observed, "work/a.txt")).toBe("rewritten meanwhile\n");
  expect(observed.requests).toHaveLength(1);
}, 30_000);

test("a shared run is judged on the folder as it was, after the folder is gone", async () => {
  const cli = cliOf(
    "writes-once",
    `import { writeFileSync } from "node:fs"; writeFileSync("note.txt", "run " + process.pid);`,
  );
  const shared: SharedRuns = new Map();
  const scenario: Scenario = {
    id: "writes",
    title: "writes",
    level: "core",
    args: [],
    startIn: "work",
    files: () => ({ "work/.keep": "" }),
    judgements: [
      judge("", "note.txt was written", (o) =>
        /^run \d+$/.test(fileText(o, "work/note.txt") ?? ""),
      ),
      judge("", "the live folder is gone", (o) => !existsSync(o.context.dir)),
    ],
  };
  const first = await runScenario(scenario, { command: cli, sharedRuns: shared });
  const second = await runScenario(scenario, { command: cli, sharedRuns: shared });
  expect([first.passed, second.passed]).toEqual([true, true]);
  expect(second.run).toBe(first.run);
}, 30_000);

test("a scenario for other platforms is skipped and passes without running", async () => {
  const result = await runContract(
    contractOf({
      id: "elsewhere",
      title: "elsewhere",
      level: "core",
      args: [],
      platforms: ["aix"],
      judgements: [judge("", "never judged", () => false)],
    }),
    { command: ["agent-code-no-such-program"] },
  );
  expect(result.passed).toBe(true);
  expect(result.scenarios[0]).toMatchObject({
    passed: true,
    skipped: `runs only on aix, not ${process.platform}`,
    failures: [],
  });
});

test("a prompt answered from stdin sits between the tool call and its observation", async () => {
  const cli = cliOf(
    "asks",
    `import { createInterface } from "node:readline";
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
console.log('tool_call: file_write {"file_path": "a.txt", "content": "hi"}');
process.stdout.write("Apply this change to a.txt? [y/N] ");
const answer = (await lines.next()).value ?? "";
process.stdout.write(answer + "\\n");
console.log("observation: " + (answer === "y" ? "Wrote 2 chars to a.txt" : "rejected"));
console.log("final: done");
process.exit(0);`,
  );
  const { observed } = await observedOf(cli, { stdin: "y\n" });
  expect(
    linesInOrder(
      observed,
      "tool_call: file_write",
      "Apply this change to a.txt? [y/N] y",
      "observation: Wrote",
    ),
  ).toBe(true);
  expect(linesInOrder(observed, "observation:", "Apply this change")).toBe(false);
  const refused = await observedOf(cli, { stdin: "" });
  expect(refused.observed.stdoutLines).toContain("observation: rejected");
}, 30_000);

test("resultOf finds what was sent back for a tool's call", async () => {
  const cli = cliOf(
    "tool-loop",
    `${ASK}
const messages = [{ role: "user", content: "read" }];
const first = await ask(messages);
messages.push({ role: "assistant", content: first.content });
const call = first.content.find((block) => block.type === "tool_use");
messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: "file text", is_error: true }] });
const second = await ask(messages);
console.log("final: " + second.content[0].text);`,
  );
  const { observed } = await observedOf(cli, {
    server: {
      steps: [
        { content: [{ type: "tool_use", name: "read_file", input: { path: "a.txt" } }] },
        { content: [{ type: "text", text: "done" }] },
      ],
    },
  });
  expect(resultOf(observed, "read_file")).toEqual({
    id: "toolu_1",
    text: "file text",
    isError: true,
  });
  expect(resultOf(observed, "list_files")).toBeUndefined();
  expect(resultOf(observed, "read_file", 1)).toBeUndefined();
}, 30_000);

test("writeFiles refuses a path that leaves the folder; readFolder and changedPaths", () => {
  const root = mkdtempSync(join(tmpdir(), "folder-"));
  expect(() => writeFiles(root, { "../x.txt": "x" })).toThrow(/not below the scenario's folder/);
  writeFiles(root, { "a/b.txt": "b", "c.bin": new Uint8Array([0, 1]) });
  const before = readFolder(root);
  expect(Object.keys(before)).toEqual(["a/b.txt", "c.bin"]);
  writeFileSync(join(root, "a/b.txt"), "B");
  expect(readFileSync(join(root, "a/b.txt"), "utf8")).toBe("B");
  expect(changedPaths(before, readFolder(root))).toEqual(["a/b.txt"]);
});

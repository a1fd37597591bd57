// docs:check against overlays: a tree holding only docs/ (a fixture page using every marker against
// the real stages, and the generated files) plus the one drifted file; everything else is read
// from the repository. The sources (diffs, replays, figures) are built once: replays spawn bundles.
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "@agent-code/test-kit";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ROOT } from "../lib/command.ts";
import {
  buildSources,
  checkDocs,
  formatProblem,
  generateDocs,
  type Sources,
} from "../lib/docs-tree.ts";

const FIXTURE = "docs/fixture.md";
const FENCE = "```";

// Every marker kind, with empty blocks and zero figures for docs:generate to fill.
const FIXTURE_PAGE = [
  "# Fixture",
  "",
  "day-2-v3 has <!-- stat: day-2-v3.lines -->0<!-- /stat --> lines in",
  "<!-- stat: day-2-v3.files -->0<!-- /stat --> files; its lesson added",
  "<!-- stat: day-2-v3.added -->0<!-- /stat --> and removed <!-- stat: day-2-v3.removed -->0<!-- /stat -->.",
  "",
  "<!-- code: day-2-v3/src/agent.ts#runAgent -->",
  `${FENCE}ts`,
  FENCE,
  "",
  "<!-- code: day-2-v3/src/model.ts#AnthropicProvider.complete -->",
  `${FENCE}ts`,
  FENCE,
  "",
  "<!-- code: day-1/src/agent.ts -->",
  `${FENCE}ts`,
  FENCE,
  "",
  "<!-- diff: day-2-v2..day-2-v3 -->",
  `${FENCE}diff`,
  FENCE,
  "",
  "<!-- diff: day-2-v2..day-2-v3 src/agent.ts -->",
  `${FENCE}diff`,
  FENCE,
  "",
  "<!-- replay: day-2-v3/two-step-chain -->",
  `${FENCE}text`,
  FENCE,
  "",
  "<!-- wire: day-2-v3/two-step-chain 2 request.messages.2 -->",
  `${FENCE}json`,
  FENCE,
  "",
  "Links: [stop reasons](day-2.md#stop-reasons), [the README](../README.md), [here](#fixture),",
  "[a stage](../packages/day-1/src/agent.ts).",
  "",
  "Not markers: `<!-- stat: day-9.lines -->x<!-- /stat -->`, `[a](nowhere.md)` and",
  "",
  `${FENCE}md`,
  "<!-- code: day-9/src/nothing.ts#nothing -->",
  "[a](nowhere.md)",
  FENCE,
  "",
].join("\n");

let sources: Sources;
let base: string;
const temporary: string[] = [];

beforeAll(async () => {
  sources = await buildSources();
  base = temporaryDir();
  mkdirSync(join(base, "docs"));
  writeFileSync(join(base, FIXTURE), FIXTURE_PAGE);
  const generated = await generateDocs(base, sources);
  expect(generated.problems.map(formatProblem)).toEqual([]);
  // Every replay of the course runs here once: the CI run of 1e13753 passed 60 s with 36 pages.
}, 240_000);

afterAll(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

function temporaryDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "docs-overlay-"));
  temporary.push(dir);
  return dir;
}

// A copy of the base overlay with one file changed: taken from the overlay, else the repository.
function drifted(file: string, edit: (text: string) => string): string {
  const dir = temporaryDir();
  cpSync(base, dir, { recursive: true });
  const own = join(dir, file);
  const from = [own, join(ROOT, file)].find((path) => existsSync(path));
  const text = from === undefined ? "" : readFileSync(from, "utf8");
  const changed = edit(text);
  expect(changed).not.toBe(text);
  mkdirSync(dirname(own), { recursive: true });
  writeFileSync(own, changed);
  return dir;
}

async function problems(root: string): Promise<string[]> {
  return (await checkDocs(root, sources)).problems.map(formatProblem);
}

function lineOf(text: string, needle: string): number {
  return text.split("\n").findIndex((line) => line.includes(needle)) + 1;
}

// The real tree is not checked here: `pnpm docs:check` is a task of its own in `pnpm test` and
// `pnpm test:all` (turbo.json), and the same check again here cost the full leg about 20 s of CPU.

test("generate fills every kind of block and figure, and the overlay then passes", async () => {
  const page = readFileSync(join(base, FIXTURE), "utf8");
  const stats = sources.stats.find((row) => row.stage === "day-2-v3");
  expect(page).toContain(`<!-- stat: day-2-v3.lines -->${stats?.lines}<!-- /stat -->`);
  expect(page).toContain("export async function runAgent(");
  expect(page).toContain("diff --git a/src/agent.ts b/src/agent.ts");
  expect(page).toContain("cwd: /your/project");
  expect(existsSync(join(base, "docs/diffs/day-1..day-2-v1.diff"))).toBe(true);
  expect(existsSync(join(base, "docs/replays/day-1-repl-help-exit.txt"))).toBe(true);
  expect(await problems(base)).toEqual([]);
  // A second run has nothing left to do.
  expect((await generateDocs(base, sources)).written).toEqual([]);
});

test("a code block that differs from its declaration fails, naming the doc, marker and source", async () => {
  const root = drifted(FIXTURE, (text) =>
    text.replace("const trace: string[] = [];", "const trace = [];"),
  );
  const line = lineOf(FIXTURE_PAGE, "#runAgent");
  expect(await problems(root)).toEqual([
    expect.stringMatching(
      new RegExp(
        `^docs/fixture\\.md:${line}: the block of <!-- code: day-2-v3/src/agent\\.ts#runAgent --> differs from packages/day-2-v3/src/agent\\.ts \\(runAgent\\) .*run \`pnpm docs:generate\`$`,
      ),
    ),
  ]);
});

test("a changed stage source fails the code block that shows it", async () => {
  const root = drifted("packages/day-2-v3/src/agent.ts", (text) =>
    text.replace("const trace: string[] = [];", "const trace: string[] = []; // drifted"),
  );
  const found = await problems(root);
  expect(found).toHaveLength(1);
  expect(found[0]).toContain("<!-- code: day-2-v3/src/agent.ts#runAgent --> differs");
});

test("a marker naming a declaration or member that does not exist is an error", async () => {
  const root = drifted(FIXTURE, (text) =>
    text.replace("#runAgent -->", "#runAgents -->").replace(".complete -->", ".completes -->"),
  );
  expect(await problems(root)).toEqual([
    expect.stringContaining(
      "<!-- code: day-2-v3/src/agent.ts#runAgents -->: packages/day-2-v3/src/agent.ts has no top-level declaration runAgents",
    ),
    expect.stringContaining(
      "AnthropicProvider in packages/day-2-v3/src/model.ts has no member completes",
    ),
  ]);
});

test("a diff block or a generated diff that differs from stage-diff fails", async () => {
  const block = drifted(FIXTURE, (text) =>
    text.replaceAll("+++ b/src/agent.ts", "+++ b/src/agents.ts"),
  );
  expect(await problems(block)).toEqual([
    expect.stringContaining(
      "<!-- diff: day-2-v2..day-2-v3 --> differs from `pnpm stage-diff day-2-v2 day-2-v3` (",
    ),
    expect.stringContaining(
      "<!-- diff: day-2-v2..day-2-v3 src/agent.ts --> differs from `pnpm stage-diff day-2-v2 day-2-v3`, src/agent.ts",
    ),
  ]);
  const file = drifted("docs/diffs/day-1..day-2-v1.diff", (text) => `${text}+stray line\n`);
  expect(await problems(file)).toEqual([
    "docs/diffs/day-1..day-2-v1.diff: is out of date: it is generated from `pnpm stage-diff day-1 day-2-v1`; run `pnpm docs:generate`",
  ]);
});

test("a generated file nothing makes any more fails, and generate deletes it", async () => {
  const root = drifted("docs/replays/day-1-old-scenario.txt", () => "$ agent-code\n");
  expect(await problems(root)).toEqual([
    "docs/replays/day-1-old-scenario.txt: nothing generates it any more; run `pnpm docs:generate`",
  ]);
  await generateDocs(root, sources);
  expect(existsSync(join(root, "docs/replays/day-1-old-scenario.txt"))).toBe(false);
});

test("a stored wire that differs from a fresh run fails, and generate writes the run's", async () => {
  const file = "docs/replays/day-2-v3-two-step-chain.wire.json";
  const original = readFileSync(join(ROOT, file), "utf8");
  const root = drifted(file, (text) => text.replaceAll("toolu_date_1", "toolu_date_9"));
  expect(await problems(root)).toEqual([
    `${file}: is out of date: it is generated from day-2-v3's scenario two-step-chain, run offline; run \`pnpm docs:generate\``,
  ]);
  await generateDocs(root, sources);
  expect(readFileSync(join(root, file), "utf8")).toBe(original);
  // A wire goes with its replay: one whose run sent no request has none.
  expect(sources.wires.has("day-2-v3/two-step-chain")).toBe(true);
  expect(sources.wires.has("day-1/repl-help-exit")).toBe(false);
  expect(sources.wires.has("day-2-v3/mock-offline-reduction")).toBe(false);
});

test("a replay block that differs from its run fails, and an unknown replay is an error", async () => {
  const drift = drifted(FIXTURE, (text) =>
    text.replace("final: The tools said:", "final: The tool said:"),
  );
  expect(await problems(drift)).toEqual([
    expect.stringContaining(
      "<!-- replay: day-2-v3/two-step-chain --> differs from docs/replays/day-2-v3-two-step-chain.txt (day-2-v3's scenario two-step-chain, run offline)",
    ),
  ]);
  const unknown = drifted(FIXTURE, (text) => text.replace("two-step-chain", "three-step-chain"));
  expect(await problems(unknown)).toEqual([
    expect.stringContaining("<!-- replay: day-2-v3/three-step-chain -->: no such replay"),
  ]);
});

test("a wire block is part of the stored run; a drifted one fails, a bad request or path is an error", async () => {
  const page = readFileSync(join(base, FIXTURE), "utf8");
  // The second request's third message: the tool result, carrying the first call's id.
  expect(page).toMatch(/"type": "tool_result",\s+"tool_use_id": "toolu_date_1"/);
  const marker = "<!-- wire: day-2-v3/two-step-chain 2 request.messages.2 -->";
  const drift = drifted(FIXTURE, (text) =>
    text.replace('"tool_use_id": "toolu_date_1"', '"tool_use_id": "toolu_1"'),
  );
  expect(await problems(drift)).toEqual([
    expect.stringContaining(
      `the block of ${marker} differs from docs/replays/day-2-v3-two-step-chain.wire.json, request 2, request.messages.2`,
    ),
  ]);
  const wrongs: [string, string, string][] = [
    ["2 request.messages.2", "9 request.messages.2", "the run sent 3 request(s), not 9"],
    ["2 request.messages.2", "2 request.messages.7", "request 2 has no request.messages.7"],
    ["2 request.messages.2", "2 body.messages", "a path starts with request or response, not body"],
    ["2 request.messages.2", "request.messages", "should be <stage>/<scenario> <request number>"],
  ];
  for (const [from, to, message] of wrongs) {
    const wrong = marker.replace(from, to);
    const root = drifted(FIXTURE, (text) => text.replace(marker, wrong));
    expect(await problems(root)).toEqual([expect.stringContaining(`${wrong}: ${message}`)]);
  }
  const unknown = drifted(FIXTURE, (text) =>
    text.replace(marker, "<!-- wire: day-1/exact-output 1 request -->"),
  );
  expect(await problems(unknown)).toEqual([
    expect.stringContaining(
      "<!-- wire: day-1/exact-output 1 request -->: no wire for day-1/exact-output",
    ),
  ]);
});

test("a figure that differs from stage-stats fails", async () => {
  const files = sources.stats.find((row) => row.stage === "day-2-v3")?.files;
  const root = drifted(FIXTURE, (text) =>
    text.replace(`files -->${files}<!--`, `files -->${Number(files) + 1}<!--`),
  );
  expect(await problems(root)).toEqual([
    `docs/fixture.md:4: figure <!-- stat: day-2-v3.files --> says ${Number(files) + 1}, stage-stats says ${files}; run \`pnpm docs:generate\``,
  ]);
});

test("a relative link to a missing file or heading, or to a file of docs/ that is not a page, fails; external links and code are not checked", async () => {
  const root = drifted(
    FIXTURE,
    (text) =>
      `${text}\nMore: [a page](no-such-page.md), [a heading](../README.md#no-such-heading), [web](https://example.com/x#y), \`[code](gone.md)\`, [a diff](diffs/day-1..day-2-v1.diff), [a folder](decisions/), [a file outside](../package.json).\n`,
  );
  const line = lineOf(readFileSync(join(root, FIXTURE), "utf8"), "[a page]");
  expect(await problems(root)).toEqual([
    `docs/fixture.md:${line}: broken link no-such-page.md: docs/no-such-page.md does not exist`,
    `docs/fixture.md:${line}: broken link ../README.md#no-such-heading: README.md has no heading with the anchor #no-such-heading`,
    `docs/fixture.md:${line}: broken link diffs/day-1..day-2-v1.diff: the site serves only the pages of docs/`,
  ]);
});

test("a contract's docs link to a heading that is gone fails", async () => {
  // docs/day-2.md with its headings only, less "Stop reasons", which the day-2-v3 contract links.
  const root = drifted("docs/day-2.md", (text) =>
    text
      .split("\n")
      .filter((line) => /^#{1,6} /.test(line) && line !== "### Stop reasons")
      .join("\n\n"),
  );
  const found = await problems(root);
  expect(found).toContainEqual(
    expect.stringMatching(
      /^packages\/test-kit\/contracts\/day-2-v3\.ts: scenario \S+: docs link docs\/day-2\.md#stop-reasons: docs\/day-2\.md has no heading with the anchor #stop-reasons$/,
    ),
  );
  // The fixture links there too.
  expect(found).toContainEqual(expect.stringContaining("broken link day-2.md#stop-reasons"));
});

test("docs.ts takes generate or check and nothing else", async () => {
  const script = fileURLToPath(new URL("../docs.ts", import.meta.url));
  const run = await runCli(["node", "--import", "tsx", script], ["publish"]);
  expect(run.exitCode).toBe(2);
  expect(run.stderr).toBe("error: usage: pnpm docs:generate, or pnpm docs:check\n");
}, 30_000);

test("a lesson page that leaves one block out fails, counting the lines it no longer shows", async () => {
  const page = "docs/day-1.md";
  const root = drifted(page, (text) =>
    text.replace(
      /<!-- code: day-1\/src\/tools\.ts#defaultTools -->\n(?:.+\n\n)?```ts\n[^`]*```\n/,
      "",
    ),
  );
  const found = await checkDocs(root, sources);
  expect(found.lessons).toContainEqual({ stage: "day-1", changed: 251, shown: 245 });
  expect(found.problems.map(formatProblem)).toContain(
    "docs/day-1.md: day-1: 245 of 251 changed lines shown; show the rest in code or diff blocks (`pnpm stage-diff day-1` lists them)",
  );
}, 60_000);

test("a lesson page whose block uses a name a later block brings fails", async () => {
  const block = (name: string) =>
    new RegExp(
      `<!-- code: day-1/src/tools\\.ts#${name} -->\n(?:.+\n\n)?\`\`\`ts\n[\\s\\S]*?\n\`\`\`\n`,
    );
  const root = drifted("docs/day-1.md", (text) => {
    const first = block("ToolFunction").exec(text)?.[0] ?? "";
    const second = block("Tool").exec(text)?.[0] ?? "";
    // Tool comes before the ToolFunction type it uses.
    return text.replace(first, "@@FIRST@@").replace(second, first).replace("@@FIRST@@", second);
  });
  const found = (await checkDocs(root, sources)).problems.map(formatProblem);
  expect(found).toContainEqual(
    expect.stringMatching(
      /^docs\/day-1\.md:\d+: <!-- code: day-1\/src\/tools\.ts#Tool --> uses ToolFunction, which day-1's page shows only later$/,
    ),
  );
}, 60_000);

// Issue #45: every code block on a lesson page says where its code goes, on a line generated from
// its lesson's replay. Day 1's echo tool goes right after the Tool type.
const ECHO = "<!-- code: day-1/src/tools.ts#echo -->";
const AFTER_TOOL = "In `src/tools.ts`, after `Tool`:";

test("a lesson page's code block whose placement line is missing or wrong fails; generate restores it", async () => {
  const page = "docs/day-1.md";
  const original = readFileSync(join(ROOT, page), "utf8");
  expect(original).toContain(`${ECHO}\n${AFTER_TOOL}\n\n${FENCE}ts\n`);
  const at = `${page}:${lineOf(original, ECHO)}`;
  const missing = drifted(page, (text) => text.replace(`${ECHO}\n${AFTER_TOOL}\n\n`, `${ECHO}\n`));
  expect(await problems(missing)).toEqual([
    `${at}: ${ECHO} has no placement line: expected "${AFTER_TOOL}"; run \`pnpm docs:generate\``,
  ]);
  const wrong = drifted(page, (text) =>
    text.replace(`${ECHO}\n${AFTER_TOOL}`, `${ECHO}\nIn \`src/tools.ts\`, after \`echo\`:`),
  );
  expect(await problems(wrong)).toEqual([
    `${at}: the placement line of ${ECHO} says "In \`src/tools.ts\`, after \`echo\`:", expected "${AFTER_TOOL}"; run \`pnpm docs:generate\``,
  ]);
  // Biome puts a blank line between the line and the fence; generate writes it so.
  const unspaced = drifted(page, (text) =>
    text.replace(`${ECHO}\n${AFTER_TOOL}\n\n`, `${ECHO}\n${AFTER_TOOL}\n`),
  );
  expect(await problems(unspaced)).toEqual([
    `${at}: the placement line of ${ECHO} needs a blank line below it; run \`pnpm docs:generate\``,
  ]);
  for (const root of [missing, wrong, unspaced]) {
    await generateDocs(root, sources);
    expect(readFileSync(join(root, page), "utf8")).toBe(original);
    expect(await problems(root)).toEqual([]);
  }
}, 60_000);

test("a code block on a page that is not a lesson needs no placement line, and takes none", async () => {
  // The fixture is such a page: generate gave its code blocks none, and it passes.
  const page = readFileSync(join(base, FIXTURE), "utf8");
  const whole = "<!-- code: day-1/src/agent.ts -->";
  expect(page).toContain(`${whole}\n${FENCE}ts\n`);
  expect(await problems(base)).toEqual([]);
  const root = drifted(FIXTURE, (text) =>
    text.replace(`${whole}\n`, `${whole}\nThe whole of \`src/agent.ts\`:\n\n`),
  );
  expect(await problems(root)).toEqual([
    `${FIXTURE}:${lineOf(page, whole)}: ${whole} is not on a lesson page (docs/day-*.md, docs/appendix-*.md) and takes no placement line: found "The whole of \`src/agent.ts\`:"; run \`pnpm docs:generate\``,
  ]);
  await generateDocs(root, sources);
  expect(readFileSync(join(root, FIXTURE), "utf8")).toBe(page);
});

test("a checkpoint box is generated from its marker, and a marker naming no scenario or a kept declaration fails", async () => {
  const page = [
    "# Lesson",
    "",
    "<!-- check: day-2-v3 two-step-chain max-steps -->",
    "<!-- /check -->",
    "",
    "<!-- check: day-2-v3 no-such-scenario -->",
    "<!-- /check -->",
    "",
    "<!-- delete: day-2-v3 src/agent.ts#runAgent -->",
    `${FENCE}diff`,
    FENCE,
    "",
  ].join("\n");
  const root = drifted(FIXTURE, () => page);
  const generated = await generateDocs(root, sources);
  expect(readFileSync(join(root, FIXTURE), "utf8")).toContain(
    [
      "<!-- check: day-2-v3 two-step-chain max-steps -->",
      "> [!TIP]",
      "> **Checkpoint.** Stop here and check your project: `pnpm --dir ~/agent-code-course check day-2-v3 --project . --only two-step-chain --only max-steps`",
      "<!-- /check -->",
    ].join("\n"),
  );
  expect(generated.problems.map(formatProblem)).toEqual([
    "docs/fixture.md:6: <!-- check: day-2-v3 no-such-scenario -->: day-2-v3 has no scenario no-such-scenario",
    "docs/fixture.md:9: <!-- delete: day-2-v3 src/agent.ts#runAgent -->: day-2-v3 still has runAgent in src/agent.ts",
  ]);
}, 60_000);

// Issue #45's rules for the pages a learner works through, each broken once on a copy of Day 4.
test("a learner's page fits a sitting, says its time, and writes checks in the learner's form", async () => {
  const page = "docs/day-4.md";
  const text = readFileSync(join(ROOT, page), "utf8");
  const box = "`pnpm --dir ~/agent-code-course check day-4-v1 --project . --only";
  expect(text).toContain(box);
  const filler = Array.from({ length: 600 }, (_, n) => `Filler line ${n}.`).join("\n");
  const root = drifted(page, (original) =>
    original
      .replace(/^\*\*Time:\*\*.*$/m, "")
      .replace(box, "`pnpm check day-4-v1 --only")
      .replace(
        "\n## v1:",
        "\nRun `pnpm check day-4-v1` now.\n\n```sh\npnpm check --all\n```\n\n## v1:",
      )
      .concat(`\n${filler}\n`),
  );
  const found = await problems(root);
  const drifted4 = readFileSync(join(root, page), "utf8");
  const lines = drifted4.split("\n").length;
  expect(found).toEqual(
    expect.arrayContaining([
      `${page}: ${lines.toLocaleString("en")} lines: a page holds at most 2,000, about a sitting; split it into parts`,
      `${page}: no \`**Time:**\` line: say near the top how long the page takes`,
      `${page}:${lineOf(drifted4, "Run `pnpm check day-4-v1` now.")}: \`pnpm check day-4-v1\` is not the learner's form: write \`pnpm --dir ~/agent-code-course check <stage> --project . …\`, as Day 1 defines it`,
      `${page}:${lineOf(drifted4, "pnpm check --all")}: \`pnpm check --all\` is not the learner's form: write \`pnpm --dir ~/agent-code-course check <stage> --project . …\`, as Day 1 defines it`,
      expect.stringMatching(
        /^docs\/day-4\.md:\d+: the block of <!-- check: day-4-v1 .* differs from the box for/,
      ),
    ]),
  );
  // A page that is not a learner's (the instructors' guide) may write `pnpm check` as it likes.
  const guide = drifted("docs/instructors.md", (original) => `${original}\n\`pnpm check day-1\`\n`);
  expect((await problems(guide)).filter((problem) => problem.includes("learner's form"))).toEqual(
    [],
  );
}, 60_000);

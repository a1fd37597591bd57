// Day 3, v1: the working directory as a boundary; read_file and list_files (taught in
// docs/day-3.md). Every scenario starts the CLI with `-C <dir>/work`, and puts a secret in
// `<dir>/secret.txt`, outside it: no request may ever carry that secret, nor the API key. Tool and
// argument names are the Python course's, so its projects pass the core scenarios; its refusals are
// `is_error: false` with its own texts, which is why texts and is_error are conformance here.
import { join } from "node:path";
import type { Contract, Judgement, Scenario, ScenarioContext } from "../src/contract.ts";
import { CANARY_TOKEN } from "../src/contract.ts";
import {
  exitCode,
  finalText,
  judge,
  noRequestCarries,
  observations,
  reachedServer,
  type SentResult,
  sentResults,
} from "../src/judgements.ts";
import type { FileEntry } from "../src/scenario-folder.ts";
import type { RecordedRequest, Step } from "../src/server.ts";
import { drawName, drawNumber, drawWord, type Seeded } from "../src/vary.ts";
import { TAVILY_CANARY } from "../src/web-server.ts";
import { day2v3 } from "./day-2-v3.ts";
import {
  answerWithResults,
  namesEveryToolOffered,
  scenarioOf,
  type Twin,
  twinOf,
} from "./shared.ts";

const BOUNDARY = "docs/day-3.md#v1-the-working-directory-is-a-boundary";
const REFUSALS = "docs/day-3.md#refusals-are-results";
const WINDOW = "docs/day-3.md#a-window-not-the-whole-file";
const LISTING = "docs/day-3.md#one-folder-at-a-time";

// The text of <dir>/secret.txt, outside the working directory: easy to spot in any request.
export const OUTSIDE_SECRET = "outside-secret-3f9a: the working directory leaks";
export const NOTES = "The notes say: 4217 apples are in the cellar.";

// The file read-file reads: notes.txt and NOTES on the pages, a drawn name, number and word at
// another seed.
function seededNotes(context: Seeded): { name: string; text: string } {
  const name = `${drawName(context, "day-3-v1/notes", "notes")}.txt`;
  const count = drawNumber(context, "day-3-v1/count", 4217, [1000, 9999]);
  const what = drawWord(context, "day-3-v1/what", "apples");
  return { name, text: `The notes say: ${count} ${what} are in the cellar.` };
}

// The working directory every Day 3 scenario gives the CLI with -C.
export function workDir(context: ScenarioContext): string {
  return context.work;
}

// Symlinks need a privilege on Windows: scenarios with one run elsewhere.
const SYMLINK_PLATFORMS: NodeJS.Platform[] = ["linux", "darwin", "freebsd", "openbsd"];

// What every Day 3 scenario's folder holds: a secret outside the working directory and a few files
// inside it. Paths are relative to the scenario's folder.
export function baseFiles(): Record<string, string> {
  return {
    "secret.txt": `${OUTSIDE_SECRET}\n`,
    "work/notes.txt": `${NOTES}\n`,
    "work/a.txt": "alpha\n",
    "work/sub/b.txt": "beta\n",
    "work/node_modules/left-pad/index.js": "module.exports = 'left-pad-inside-node-modules';\n",
    "work/.git/HEAD": "ref: refs/heads/main\n",
    "work/ten.txt": Array.from({ length: 10 }, (_, n) => `line ${n + 1}\n`).join(""),
  };
}

// A model that makes one tool call, built from the request it answers (the prompt holds what the
// call needs, such as an absolute path), then answers with what the tool said.
export function oneCall(
  name: string,
  input: Record<string, unknown> | ((prompt: string) => Record<string, unknown>),
): Step[] {
  const call = (request: RecordedRequest) => ({
    content: [
      {
        type: "tool_use" as const,
        id: "toolu_day3_1",
        name,
        input: typeof input === "function" ? input(promptOf(request)) : input,
      },
    ],
  });
  return [call, answerWithResults];
}

function promptOf(request: RecordedRequest): string {
  const first = request.body?.messages?.[0]?.content;
  return typeof first === "string" ? first : "";
}

// The one result the second request carried, in any protocol.
export function theResult(o: { requests: RecordedRequest[] }): SentResult | undefined {
  const results = sentResults(o.requests[1]);
  return results.length === 1 ? results[0] : undefined;
}

// The judgements every Day 3 scenario adds: nothing from outside, and no key, in any request.
export function boundaryJudgements(): Judgement[] {
  return [
    noRequestCarries(BOUNDARY, OUTSIDE_SECRET, "the secret outside the working directory"),
    noRequestCarries(BOUNDARY, CANARY_TOKEN, "the API key"),
    noRequestCarries(BOUNDARY, TAVILY_CANARY, "the search API key"),
  ];
}

// The run went on after the tool's result: a second request carried it and a final line came.
export function wentOn(docs: string): Judgement[] {
  return [
    exitCode(docs, 0, "a refused tool call is not a failed run"),
    judge(
      docs,
      "the tool's result should go back to the model in a second request",
      (o) => o.requests.length === 2 && theResult(o) !== undefined,
    ),
    judge(docs, "the run should go on to a final answer", (o) =>
      (finalText(o) ?? "").startsWith("The tools said: "),
    ),
  ];
}

interface FileScenario {
  id: string;
  title: string;
  level: Scenario["level"];
  // The prompt, or a prompt that names a path of this run's folder.
  prompt: string | ((context: ScenarioContext) => string);
  steps: Step[];
  // Files beside baseFiles(), or files built per run (a seeded name).
  files?: Record<string, FileEntry> | ((context: ScenarioContext) => Record<string, FileEntry>);
  platforms?: NodeJS.Platform[];
  judgements: Judgement[];
}

export function fileScenario(spec: FileScenario): Scenario {
  return {
    id: spec.id,
    title: spec.title,
    level: spec.level,
    args: (context) => [
      "-C",
      workDir(context),
      typeof spec.prompt === "string" ? spec.prompt : spec.prompt(context),
    ],
    server: { steps: spec.steps },
    files: (context) => ({
      ...baseFiles(),
      ...(typeof spec.files === "function" ? spec.files(context) : spec.files),
    }),
    ...(spec.platforms === undefined ? {} : { platforms: spec.platforms }),
    judgements: [...spec.judgements, ...boundaryJudgements()],
  };
}

// The conformance twin of a Day 3 scenario: judged on the core scenario's own run (twinOf), with the
// boundary's judgements, as fileScenario gives every Day 3 scenario.
export function fileTwin(core: Scenario, twin: Twin): Scenario {
  return twinOf(core, { ...twin, judgements: [...twin.judgements, ...boundaryJudgements()] });
}

// A refusal's exact text, and is_error: true.
function refusedWith(text: string): Judgement[] {
  return [
    judge(REFUSALS, `expected \`observation: ${text}\``, (o) => observations(o)[0] === text),
    judge(
      REFUSALS,
      "a refusal should go back with is_error: true",
      (o) => theResult(o)?.isError === true,
    ),
  ];
}

const ESCAPE_PARENT = oneCall("read_file", { path: "../secret.txt" });
const READ_MISSING = oneCall("read_file", { path: "missing.txt" });
const READ_BINARY = oneCall("read_file", { path: "logo.png" });
const READ_LARGE = oneCall("read_file", { path: "big.log" });
const LIST_TOP = oneCall("list_files", {});
const READ_LINK = oneCall("read_file", { path: "link.txt" });
const READ_THROUGH_DIR = oneCall("read_file", { path: "elsewhere/secret.txt" });
// A symlinked file and a symlinked folder inside the working directory, both leading out.
const LINKS: Record<string, FileEntry> = {
  "work/link.txt": { symlink: "../secret.txt" },
  "work/elsewhere": { symlink: ".." },
};
// The prompt names the absolute path, as a user would: "Read /tmp/…/secret.txt".
const READ_NAMED = oneCall("read_file", (prompt) => ({ path: prompt.replace(/^Read /, "") }));

// A PNG's first bytes: NUL bytes a JSON body would carry as \u0000.
const PNG = new Uint8Array([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1,
]);
// About 300 KB of numbered lines.
const BIG = Array.from(
  { length: 6000 },
  (_, n) => `${String(n + 1).padStart(5, "0")} ${"x".repeat(43)}\n`,
).join("");

// The core scenarios that conformance twins below judge again, on the same run.
const readEscapeSymlink = fileScenario({
  id: "read-escape-symlink",
  title: "read_file of a symlink that leads out is refused: the secret never reaches the model",
  level: "core",
  prompt: "Read link.txt",
  steps: READ_LINK,
  files: LINKS,
  platforms: SYMLINK_PLATFORMS,
  judgements: wentOn(REFUSALS),
});

const readMissing = fileScenario({
  id: "read-missing",
  title: "read_file of a missing file: the model reads why, and the run goes on",
  level: "core",
  prompt: "Read missing.txt",
  steps: READ_MISSING,
  judgements: wentOn(REFUSALS),
});

const readBinary = fileScenario({
  id: "read-binary",
  title: "read_file of a binary file sends no NUL byte to the model",
  level: "core",
  prompt: "Read logo.png",
  steps: READ_BINARY,
  files: { "work/logo.png": PNG },
  judgements: [
    ...wentOn(REFUSALS),
    noRequestCarries(REFUSALS, "\u0000", "a NUL byte of the binary file"),
  ],
});

// Each line of a listing, the marker lines aside.
function listed(text: string): string[] {
  return text.split("\n").map((line) => line.trim());
}

const WINDOW_MARKER = /\n\[showing lines 1-(\d+) of 6000; read on with offset (\d+)\]$/;

export const day3v1: Contract = {
  stage: "day-3-v1",
  title: "Day 3 v1: the boundary, read_file, list_files",
  base: "day-2-v3",
  scenarios: [
    fileScenario({
      id: "read-file",
      title: "read_file of a file inside the working directory: its text goes to the model",
      level: "core",
      // Seeded: notes.txt on the pages; at another seed, another file that says something else.
      prompt: (context) => `Read ${seededNotes(context).name}`,
      steps: READ_NAMED,
      files: (context) => {
        const { name, text } = seededNotes(context);
        return { [`work/${name}`]: `${text}\n` };
      },
      judgements: [
        reachedServer(BOUNDARY),
        exitCode(BOUNDARY, 0, "a finished run exits 0"),
        judge(BOUNDARY, "the next request should carry the file's text as the tool's result", (o) =>
          (theResult(o)?.text ?? "").includes(seededNotes(o.context).text),
        ),
      ],
    }),
    fileScenario({
      id: "read-escape-parent",
      title: "read_file ../secret.txt is refused: nothing from outside reaches the model",
      level: "core",
      prompt: "Read ../secret.txt",
      steps: ESCAPE_PARENT,
      judgements: wentOn(REFUSALS),
    }),
    fileScenario({
      id: "read-escape-absolute",
      title: "read_file of an absolute path outside the working directory is refused",
      level: "core",
      prompt: (context) => `Read ${join(context.dir, "secret.txt")}`,
      steps: READ_NAMED,
      judgements: wentOn(REFUSALS),
    }),
    readEscapeSymlink,
    fileScenario({
      id: "read-escape-symlink-dir",
      title: "read_file through a symlinked folder that leads out is refused",
      level: "core",
      prompt: "Read elsewhere/secret.txt",
      steps: READ_THROUGH_DIR,
      files: LINKS,
      platforms: SYMLINK_PLATFORMS,
      judgements: wentOn(REFUSALS),
    }),
    readMissing,
    readBinary,
    fileScenario({
      id: "read-large",
      title: "read_file of a 300 KB file never sends it whole",
      level: "core",
      prompt: "Read big.log",
      steps: READ_LARGE,
      files: { "work/big.log": BIG },
      judgements: [
        ...wentOn(WINDOW),
        judge(WINDOW, "the result should be under 10,000 characters", (o) => {
          const result = theResult(o);
          return result !== undefined && result.text.length < 10_000;
        }),
      ],
    }),
    fileScenario({
      id: "list-files",
      title: "list_files shows the folder's files and folders, not node_modules or .git",
      level: "core",
      prompt: "What is in this folder?",
      steps: LIST_TOP,
      judgements: [
        exitCode(LISTING, 0, "a finished run exits 0"),
        judge(LISTING, "expected `sub/`, `a.txt` and `notes.txt` in the listing", (o) => {
          const lines = listed(theResult(o)?.text ?? "");
          return ["sub/", "a.txt", "notes.txt"].every((name) => lines.includes(name));
        }),
        judge(LISTING, "node_modules and .git should not be listed as entries", (o) => {
          const lines = listed(theResult(o)?.text ?? "");
          const hidden = ["node_modules", "node_modules/", ".git", ".git/"];
          return !lines.some((line) => hidden.includes(line) || line.includes("left-pad"));
        }),
      ],
    }),
    fileScenario({
      id: "read-escape-text",
      title: "the text for a path that leaves the working directory",
      level: "conformance",
      prompt: "Read the file.",
      steps: ESCAPE_PARENT,
      judgements: refusedWith("path escapes the working directory: ../secret.txt"),
    }),
    fileTwin(readEscapeSymlink, {
      id: "read-escape-symlink-text",
      title: "the text for a symlink that leads out",
      judgements: refusedWith("path escapes the working directory through a symlink: link.txt"),
    }),
    fileTwin(readMissing, {
      id: "read-missing-text",
      title: "the text for a missing file",
      judgements: refusedWith("no such file or directory: missing.txt"),
    }),
    fileTwin(readBinary, {
      id: "read-binary-text",
      title: "the text for a binary file",
      judgements: refusedWith("binary file: logo.png"),
    }),
    fileScenario({
      id: "read-absolute-inside",
      title: "an absolute path inside the working directory is fine",
      level: "conformance",
      prompt: (context) => `Read ${join(workDir(context), "notes.txt")}`,
      steps: READ_NAMED,
      judgements: [
        judge(BOUNDARY, "the file's text should go back, not a refusal", (o) => {
          const result = theResult(o);
          return result?.isError === false && result.text === NOTES;
        }),
      ],
    }),
    fileScenario({
      id: "read-offset-limit",
      title: "read_file with offset 3 and limit 2 shows lines 3 and 4, then the marker",
      level: "conformance",
      prompt: "Read lines 3 and 4 of ten.txt",
      steps: oneCall("read_file", { path: "ten.txt", offset: 3, limit: 2 }),
      judgements: [
        judge(
          WINDOW,
          "expected `line 3`, `line 4`, then `[showing lines 3-4 of 10; read on with offset 5]`",
          (o) =>
            theResult(o)?.text ===
            "line 3\nline 4\n[showing lines 3-4 of 10; read on with offset 5]",
        ),
      ],
    }),
    fileScenario({
      id: "read-window-text",
      title:
        "a long file: whole lines up to 8,000 characters, and a marker that says how to read on",
      level: "conformance",
      prompt: "Read big.log",
      steps: READ_LARGE,
      files: { "work/big.log": BIG },
      judgements: [
        judge(
          WINDOW,
          "expected whole lines from the first, at most 8,000 characters, then `[showing lines 1-N of 6000; read on with offset N+1]`",
          (o) => {
            const text = theResult(o)?.text ?? "";
            const marker = WINDOW_MARKER.exec(text);
            if (marker === null) return false;
            const shown = text.slice(0, marker.index);
            const count = Number(marker[1]);
            return (
              shown.length <= 8000 &&
              Number(marker[2]) === count + 1 &&
              shown === BIG.split("\n").slice(0, count).join("\n")
            );
          },
        ),
      ],
    }),
    fileScenario({
      id: "list-skipped-text",
      title: "list_files: folders first with `/`, and the skipped folders named at the end",
      level: "conformance",
      prompt: "What is in this folder?",
      steps: LIST_TOP,
      judgements: [
        judge(
          LISTING,
          "expected `sub/`, then `a.txt`, `notes.txt`, `ten.txt`, then `(skipped: .git/, node_modules/)`",
          (o) =>
            theResult(o)?.text ===
            "sub/\na.txt\nnotes.txt\nten.txt\n(skipped: .git/, node_modules/)",
        ),
      ],
    }),
    fileScenario({
      id: "list-not-dir-text",
      title: "list_files of a file is refused with its own text",
      level: "conformance",
      prompt: "List a.txt",
      steps: oneCall("list_files", { path: "a.txt" }),
      judgements: [
        judge(
          LISTING,
          "expected `observation: not a directory: a.txt`, with is_error: true",
          (o) => observations(o)[0] === "not a directory: a.txt" && theResult(o)?.isError === true,
        ),
      ],
    }),
    // Judged on Day 2's unknown-tool run, which this stage keeps: the tools offered are this stage's.
    fileTwin(scenarioOf(day2v3, "unknown-tool"), {
      id: "unknown-tool-text",
      title: "the unknown-tool text names the tools there are, the file tools too",
      judgements: [
        // The list is the stage's own (its first request's tools), so a later stage passes too.
        namesEveryToolOffered(REFUSALS, "read_file"),
      ],
    }),
    // Day 2's scenarios, but the unknown-tool text, which names this stage's longer list.
    ...day2v3.scenarios.filter((scenario) => scenario.id !== "unknown-tool-text"),
  ],
};

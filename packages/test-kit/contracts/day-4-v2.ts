// Day 4, v2: file_edit, an exact and unique replacement of text just read (taught in
// docs/day-4.md). Core scenarios are what the Python course's file_edit also does: a yes edits, a
// no does not, a file not read or changed after the read is not edited, an ambiguous or missing
// old_string changes nothing, replace_all replaces every match. The texts, is_error, a touch that
// is no conflict, CRLF files and two edits after one read are conformance.
import { utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Contract, ScenarioContext } from "../src/contract.ts";
import { exitCode, fileText, judge } from "../src/judgements.ts";
import type { Step } from "../src/server.ts";
import { drawName, drawWord, type Seeded } from "../src/vary.ts";
import { fileTwin } from "./day-3-v1.ts";
import {
  askedNothing,
  type Call,
  day4v1,
  hasText,
  offered,
  resultIs,
  turn,
  turns,
  wentOn,
  writeScenario,
} from "./day-4-v1.ts";
import { answerWithResults, namesEveryToolOffered, scenarioOf } from "./shared.ts";

const V2 = "docs/day-4.md#v2-edits-of-text-just-seen";
const HASH = "docs/day-4.md#a-hash-not-the-clock";
const LINES = "docs/day-4.md#line-ends-and-a-bom";

// The file every edit scenario changes: "one" twice, "two" once.
const FILE = { "work/e.txt": "one\ntwo\none\n" };
const READ_E: Call = ["read_file", { path: "e.txt" }];
const edit = (input: Record<string, unknown>): Call => [
  "file_edit",
  { file_path: "e.txt", ...input },
];
const TWO_TO_2 = edit({ old_string: "two", new_string: "2" });

// What edit-yes changes: `two` to `2` in FILE on the pages; at another seed a drawn word (once in
// the file) to a drawn name, between two lines of another word.
function seededEdit(context: Seeded): {
  before: string;
  old: string;
  replacement: string;
  after: string;
} {
  const around = drawWord(context, "day-4-v2/around", "one");
  const old = drawName(context, "day-4-v2/old", "two");
  const replacement = drawWord(context, "day-4-v2/new", "2");
  return {
    before: `${around}\n${old}\n${around}\n`,
    old,
    replacement,
    after: `${around}\n${replacement}\n${around}\n`,
  };
}
const YES = "y\n";

// Someone else rewrites e.txt (or only touches it) between the model's read and its edit.
function between(context: ScenarioContext, act: (file: string) => void, next: Call): Step {
  return () => {
    act(join(context.work, "e.txt"));
    return turn(next);
  };
}

// The core scenarios that conformance twins below judge again, on the same run.
const editYes = writeScenario({
  id: "edit-yes",
  title: "read e.txt, replace `two` by `2`, answered y: the file is edited",
  level: "core",
  stdin: YES,
  // Seeded: the words of e.txt and the replacement are drawn at another seed.
  files: (context) => ({ "work/e.txt": seededEdit(context).before }),
  steps: (context) => {
    const { old, replacement } = seededEdit(context);
    return turns(READ_E, edit({ old_string: old, new_string: replacement }));
  },
  judgements: [
    offered(V2, "file_edit"),
    exitCode(V2, 0, "a finished run exits 0"),
    judge(
      V2,
      "a yes edits: e.txt should hold the one replacement, nothing else changed",
      (o) => fileText(o, "work/e.txt") === seededEdit(o.context).after,
    ),
  ],
});

const editUnread = writeScenario({
  id: "edit-unread",
  title: "file_edit without a read_file first: the file is unchanged",
  level: "core",
  stdin: YES,
  files: FILE,
  steps: turns(TWO_TO_2),
  judgements: [
    offered(V2, "file_edit"),
    hasText(V2, "work/e.txt", "one\ntwo\none\n", "a file must be read before it is edited"),
    ...wentOn(V2),
  ],
});

const editNotFound = writeScenario({
  id: "edit-not-found",
  title: "an old_string that is not in the file: nothing changes, the run goes on",
  level: "core",
  stdin: YES,
  files: FILE,
  steps: turns(READ_E, edit({ old_string: "three", new_string: "3" })),
  judgements: [
    offered(V2, "file_edit"),
    hasText(V2, "work/e.txt", "one\ntwo\none\n", "a missing old_string changes nothing"),
    ...wentOn(V2),
  ],
});

const editAmbiguous = writeScenario({
  id: "edit-ambiguous",
  title: "an old_string found twice without replace_all: nothing changes",
  level: "core",
  stdin: YES,
  files: FILE,
  steps: turns(READ_E, edit({ old_string: "one", new_string: "1" })),
  judgements: [
    offered(V2, "file_edit"),
    hasText(V2, "work/e.txt", "one\ntwo\none\n", "an ambiguous old_string changes nothing"),
    ...wentOn(V2),
  ],
});

const editReplaceAll = writeScenario({
  id: "edit-replace-all",
  title: "replace_all replaces every match",
  level: "core",
  stdin: YES,
  files: FILE,
  steps: turns(READ_E, edit({ old_string: "one", new_string: "1", replace_all: true })),
  judgements: [
    offered(V2, "file_edit"),
    hasText(V2, "work/e.txt", "1\ntwo\n1\n", "replace_all replaces every match"),
  ],
});

export const day4v2: Contract = {
  stage: "day-4-v2",
  title: "Day 4 v2: file_edit, exact and unique replacements",
  base: "day-4-v1",
  scenarios: [
    editYes,
    writeScenario({
      id: "edit-no",
      title: "the same edit answered n: the file is unchanged and the run goes on",
      level: "core",
      stdin: "n\n",
      files: FILE,
      steps: turns(READ_E, TWO_TO_2),
      judgements: [
        offered(V2, "file_edit"),
        hasText(V2, "work/e.txt", "one\ntwo\none\n", "a no edits nothing"),
        ...wentOn(V2),
      ],
    }),
    editUnread,
    writeScenario({
      id: "edit-changed-since-read",
      title: "e.txt is rewritten after the model read it: the edit is refused, the new text kept",
      level: "core",
      stdin: YES,
      files: FILE,
      steps: (context) =>
        turns(
          READ_E,
          between(context, (file) => writeFileSync(file, "one\ntwo\nthree\n"), TWO_TO_2),
        ),
      judgements: [
        offered(HASH, "file_edit"),
        hasText(HASH, "work/e.txt", "one\ntwo\nthree\n", "the other writer's text is kept"),
        ...wentOn(HASH),
      ],
    }),
    editNotFound,
    editAmbiguous,
    editReplaceAll,
    fileTwin(editYes, {
      id: "edit-yes-text",
      title: "an edit's result: `Edited e.txt: 1 replacement`, after its diff and question",
      // edit-yes is seeded, and so is its twin: at another seed the diff shows the drawn words.
      judgements: [
        ...resultIs(V2, "file_edit", "Edited e.txt: 1 replacement", false),
        judge(
          V2,
          "expected `-two`, `+2` (at another seed, the drawn words) and the question between the call and its result",
          (o) => {
            const { old, replacement } = seededEdit(o.context);
            const at = o.stdoutLines.findIndex((line) => line.startsWith("tool_call: file_edit"));
            const rest = o.stdoutLines.slice(at);
            const index = (line: string) => rest.indexOf(line);
            return (
              at !== -1 &&
              index(`-${old}`) > 0 &&
              index(`+${replacement}`) > index(`-${old}`) &&
              index("Apply this change to e.txt? [y/N] y") > index(`+${replacement}`)
            );
          },
        ),
      ],
    }),
    fileTwin(editReplaceAll, {
      id: "edit-replace-all-text",
      title: "replace_all's result counts the replacements",
      judgements: resultIs(V2, "file_edit", "Edited e.txt: 2 replacements", false),
    }),
    fileTwin(editUnread, {
      id: "edit-unread-text",
      title: "an edit without a read: refused with its text, nothing asked",
      judgements: [
        askedNothing(V2),
        ...resultIs(
          V2,
          "file_edit",
          "file has not been read yet: e.txt (read it with read_file first)",
          true,
        ),
      ],
    }),
    fileTwin(editNotFound, {
      id: "edit-not-found-text",
      title: "not found: `old_string not found in e.txt`, nothing asked",
      judgements: [
        askedNothing(V2),
        ...resultIs(V2, "file_edit", "old_string not found in e.txt", true),
      ],
    }),
    fileTwin(editAmbiguous, {
      id: "edit-ambiguous-text",
      title: "found twice: the count, and what to do about it",
      judgements: [
        askedNothing(V2),
        ...resultIs(
          V2,
          "file_edit",
          "old_string found 2 times in e.txt; add context or set replace_all",
          true,
        ),
      ],
    }),
    writeScenario({
      id: "edit-empty-and-same-text",
      title: "an empty old_string, and old_string equal to new_string: each its own refusal",
      level: "conformance",
      stdin: YES,
      files: FILE,
      steps: [
        turn(READ_E),
        turn(
          edit({ old_string: "", new_string: "x" }),
          edit({ old_string: "two", new_string: "two" }),
        ),
        answerWithResults,
      ],
      judgements: [
        askedNothing(V2),
        ...resultIs(V2, "file_edit", "old_string must not be empty", true),
        ...resultIs(V2, "file_edit", "old_string and new_string are the same", true, 1),
      ],
    }),
    writeScenario({
      id: "edit-changed-text",
      title: "changed since the read: refused with its text, nothing asked",
      level: "conformance",
      stdin: YES,
      files: FILE,
      steps: (context) =>
        turns(
          READ_E,
          between(context, (file) => writeFileSync(file, "one\ntwo\nthree\n"), TWO_TO_2),
        ),
      judgements: [
        askedNothing(HASH),
        ...resultIs(
          HASH,
          "file_edit",
          "file changed since it was read: e.txt (read it again first)",
          true,
        ),
      ],
    }),
    writeScenario({
      id: "edit-touch-no-conflict",
      title: "a touch after the read (a new mtime, the same bytes) is no conflict",
      level: "conformance",
      stdin: YES,
      files: FILE,
      steps: (context) =>
        turns(
          READ_E,
          between(
            context,
            (file) => {
              const later = new Date(Date.now() + 120_000);
              utimesSync(file, later, later);
            },
            TWO_TO_2,
          ),
        ),
      judgements: [hasText(HASH, "work/e.txt", "one\n2\none\n", "only the bytes decide")],
    }),
    writeScenario({
      id: "edit-two-after-one-read",
      title: "two edits after one read: the second builds on the first",
      level: "conformance",
      stdin: "y\ny\n",
      files: FILE,
      steps: turns(READ_E, TWO_TO_2, edit({ old_string: "2", new_string: "II" })),
      judgements: [hasText(HASH, "work/e.txt", "one\nII\none\n", "a run knows what it wrote")],
    }),
    writeScenario({
      id: "edit-crlf",
      title: "a CRLF file with a BOM, edited with \\n in old_string: CRLF and the BOM stay",
      level: "conformance",
      stdin: YES,
      files: { "work/win.txt": "\ufeffone\r\ntwo\r\nthree\r\n" },
      steps: turns(
        ["read_file", { path: "win.txt" }],
        ["file_edit", { file_path: "win.txt", old_string: "one\ntwo\n", new_string: "1\n2\n" }],
      ),
      judgements: [
        hasText(LINES, "work/win.txt", "\ufeff1\r\n2\r\nthree\r\n", "line ends and the BOM kept"),
      ],
    }),
    writeScenario({
      id: "edit-dollar-kept",
      title: "a `$&` in new_string is written as it is, not as a replacement pattern",
      level: "conformance",
      stdin: YES,
      files: FILE,
      steps: turns(READ_E, edit({ old_string: "two", new_string: "$&$1" })),
      judgements: [hasText(V2, "work/e.txt", "one\n$&$1\none\n", "new_string is literal text")],
    }),
    // Judged on Day 2's unknown-tool run, which this stage keeps: the tools offered are this stage's.
    fileTwin(scenarioOf(day4v1, "unknown-tool"), {
      id: "unknown-tool-text",
      title: "the unknown-tool text names the tools there are, file_edit too",
      judgements: [namesEveryToolOffered(V2, "file_edit")],
    }),
    // Day 4 v1's scenarios, but the unknown-tool text, which names this stage's longer list.
    ...day4v1.scenarios.filter((scenario) => scenario.id !== "unknown-tool-text"),
  ],
};

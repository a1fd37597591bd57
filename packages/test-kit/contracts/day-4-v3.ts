// Day 4, v3: a backup of the old bytes before every write (taught in docs/day-4.md). Core scenarios
// are what the Python course's backups also do: after a confirmed change exactly one backup, under
// `.agent/history/<path>/`, holding the old bytes; none after a no, none for a new file. The name's
// pattern, the cap of 20, the .gitignore, the untouchable history and a failed backup stopping the
// write (the Python course writes anyway) are conformance.
import type { Contract, Judgement, Observed } from "../src/contract.ts";
import { judge, observations } from "../src/judgements.ts";
import type { FileEntry } from "../src/scenario-folder.ts";
import { type Call, hasText, resultIs, turns, writeScenario } from "./day-4-v1.ts";
import { day4v2 } from "./day-4-v2.ts";

const V3 = "docs/day-4.md#v3-a-copy-before-every-write";
const UNDO = "docs/day-4.md#what-an-undo-needs";

const FILE = { "work/e.txt": "one\ntwo\none\n" };
const READ_E: Call = ["read_file", { path: "e.txt" }];
const TWO_TO_2: Call = ["file_edit", { file_path: "e.txt", old_string: "two", new_string: "2" }];
const HISTORY = "work/.agent/history/";

// The backups of a work-folder file: path below its history folder -> what it holds.
function backupsOf(o: Observed, file: string): [string, unknown][] {
  const folder = `${HISTORY}${file}/`;
  return Object.entries(o.files).filter(([path]) => path.startsWith(folder));
}

function oneBackup(docs: string, file: string, old: string): Judgement {
  return judge(
    docs,
    `expected exactly one file under .agent/history/${file}/, holding ${JSON.stringify(old)}`,
    (o) => {
      const found = backupsOf(o, file);
      return found.length === 1 && found[0]?.[1] === old;
    },
  );
}

// 25 backups of e.txt from 2020, older than any the run makes.
const OLD_BACKUPS: Record<string, FileEntry> = Object.fromEntries(
  Array.from({ length: 25 }, (_, n) => [
    `${HISTORY}e.txt/20200101T0000${String(n).padStart(2, "0")}.000Z`,
    `backup ${n}\n`,
  ]),
);

export const day4v3: Contract = {
  stage: "day-4-v3",
  title: "Day 4 v3: a backup before every write",
  base: "day-4-v2",
  scenarios: [
    writeScenario({
      id: "backup-on-edit",
      title: "a confirmed edit leaves one backup with the old bytes under .agent/history/e.txt/",
      level: "core",
      stdin: "y\n",
      files: FILE,
      steps: turns(READ_E, TWO_TO_2),
      judgements: [
        hasText(UNDO, "work/e.txt", "one\n2\none\n", "the edit itself is made"),
        oneBackup(UNDO, "e.txt", "one\ntwo\none\n"),
      ],
    }),
    writeScenario({
      id: "backup-on-write",
      title: "a confirmed file_write over a read file leaves one backup with the old bytes",
      level: "core",
      stdin: "y\n",
      steps: turns(
        ["read_file", { path: "a.txt" }],
        ["file_write", { file_path: "a.txt", content: "replaced\n" }],
      ),
      judgements: [
        hasText(UNDO, "work/a.txt", "replaced\n", "the write itself is made"),
        oneBackup(UNDO, "a.txt", "alpha\n"),
      ],
    }),
    writeScenario({
      id: "backup-none-on-no",
      title: "an edit answered y, then one answered n: one backup, from the yes",
      level: "core",
      stdin: "y\nn\n",
      files: FILE,
      steps: turns(READ_E, TWO_TO_2, [
        "file_edit",
        { file_path: "e.txt", old_string: "2", new_string: "II" },
      ]),
      judgements: [
        hasText(V3, "work/e.txt", "one\n2\none\n", "the yes edits and the no does not"),
        oneBackup(V3, "e.txt", "one\ntwo\none\n"),
      ],
    }),
    writeScenario({
      id: "backup-none-for-new-file",
      title: "an edit and a new file, both answered y: a backup of the edited file only",
      level: "core",
      stdin: "y\ny\n",
      files: FILE,
      steps: turns(READ_E, TWO_TO_2, ["file_write", { file_path: "new.txt", content: "hello\n" }]),
      judgements: [
        hasText(V3, "work/new.txt", "hello\n", "the new file is written"),
        oneBackup(V3, "e.txt", "one\ntwo\none\n"),
        judge(V3, "a new file has no old bytes: nothing under .agent/history/new.txt", (o) =>
          Object.keys(o.files).every((path) => !path.startsWith(`${HISTORY}new.txt`)),
        ),
      ],
    }),
    writeScenario({
      id: "backup-name-pattern",
      title: "a backup is named by its UTC time, to the millisecond: 20261201T182019.123Z",
      level: "conformance",
      stdin: "y\n",
      files: FILE,
      steps: turns(READ_E, TWO_TO_2),
      judgements: [
        judge(UNDO, "expected a name like `20261201T182019.123Z`", (o) => {
          const found = backupsOf(o, "e.txt");
          return found.length === 1 && /\/\d{8}T\d{6}\.\d{3}Z$/.test(found[0]?.[0] ?? "");
        }),
      ],
    }),
    writeScenario({
      id: "backup-gitignore",
      title: "the first backup writes .agent/.gitignore so git ignores .agent/",
      level: "conformance",
      stdin: "y\n",
      files: FILE,
      steps: turns(READ_E, TWO_TO_2),
      judgements: [hasText(V3, "work/.agent/.gitignore", "*\n", "git should ignore .agent/")],
    }),
    writeScenario({
      id: "backup-prune-20",
      title: "with 25 old backups, an edit keeps the newest 20: its own and 19 old ones",
      level: "conformance",
      stdin: "y\n",
      files: { ...FILE, ...OLD_BACKUPS },
      steps: turns(READ_E, TWO_TO_2),
      judgements: [
        judge(UNDO, "expected 20 backups of e.txt: the new one and the 19 newest old ones", (o) => {
          const names = backupsOf(o, "e.txt").map(([path]) =>
            path.slice(path.lastIndexOf("/") + 1),
          );
          const old = names.filter((name) => name.startsWith("2020"));
          return (
            names.length === 20 &&
            old.length === 19 &&
            !old.includes("20200101T000005.000Z") &&
            old.includes("20200101T000006.000Z")
          );
        }),
      ],
    }),
    writeScenario({
      id: "history-untouchable",
      title: "file_write into .agent/history/ is refused, and the backup stays as it was",
      level: "conformance",
      stdin: "y\n",
      files: { ...FILE, [`${HISTORY}e.txt/20200101T000000.000Z`]: "the old bytes\n" },
      steps: turns(
        ["read_file", { path: ".agent/history/e.txt/20200101T000000.000Z" }],
        [
          "file_write",
          { file_path: ".agent/history/e.txt/20200101T000000.000Z", content: "forged\n" },
        ],
      ),
      judgements: [
        ...resultIs(V3, "file_write", "refusing to change agent-code's backups", true),
        hasText(
          V3,
          `${HISTORY}e.txt/20200101T000000.000Z`,
          "the old bytes\n",
          "a backup must stay what it was",
        ),
      ],
    }),
    writeScenario({
      id: "backup-failed-blocks-write",
      title: "when the backup cannot be made, nothing is written",
      level: "conformance",
      stdin: "y\n",
      // A file where the history folder should be.
      files: { ...FILE, "work/.agent/history": "in the way\n" },
      steps: turns(READ_E, TWO_TO_2),
      judgements: [
        hasText(
          UNDO,
          "work/e.txt",
          "one\ntwo\none\n",
          "a change that cannot be undone is not made",
        ),
        judge(
          UNDO,
          "expected a result `could not back up e.txt: …; nothing was written`, with is_error",
          (o) => {
            const text = observations(o).find((line) => line.startsWith("could not back up"));
            return (
              text !== undefined && /^could not back up e\.txt: .+; nothing was written$/.test(text)
            );
          },
        ),
      ],
    }),
    // Day 4 v2's scenarios (its unknown-tool text names the same tools as this stage's).
    ...day4v2.scenarios,
  ],
};

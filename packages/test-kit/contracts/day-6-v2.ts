// Day 6, v2: rules the model always sees (taught in docs/day-6-rules.md): a project's AGENT.md, and the
// person's own in the home folder, reach the model in every request. The core scenarios ask only
// that the rules' text is sent (in `system` or in a message) and that a huge file is not sent
// whole; their twins carry this course's `system` blocks, header line and cut marker.
import type { Contract, Judgement, Observed, Scenario, ScenarioContext } from "../src/contract.ts";
import { carries, exitCode, judge } from "../src/judgements.ts";
import type { FileEntry } from "../src/scenario-folder.ts";
import type { RecordedRequest, Step } from "../src/server.ts";
import { drawWord } from "../src/vary.ts";
import { day6v1 } from "./day-6-v1.ts";
import { answerWithResults, twinOf } from "./shared.ts";

const V2 = "docs/day-6-rules.md#v2-rules-the-model-always-sees";
const SAFE = "docs/day-6-rules.md#rules-read-through-the-boundary";

const POSIX: NodeJS.Platform[] = ["linux", "darwin"];
// The budget both AGENT.md files share, and the size of the file that overflows it.
const BUDGET = 32 * 1024;
const HUGE = 60 * 1024;

// The seeded rule line: `otter` on the pages, a drawn word at another seed.
function ruleLine(context: ScenarioContext): string {
  return `Always sign your answers as the ${drawWord(context, "day-6-v2/animal", "otter")}.`;
}

// The request's `system` as text: a string, or text blocks.
function systemOf(request: RecordedRequest | undefined): string {
  const system = request?.body?.system;
  if (typeof system === "string") return system;
  if (Array.isArray(system)) return system.map((block) => String(block?.text ?? "")).join("\n");
  return "";
}

// A rules file of exactly HUGE bytes: its first line, lines of filler, and a last line past the cap.
function hugeRules(): string {
  const first = "FIRST RULE: be brief.\n";
  const last = "LAST RULE: the end.\n";
  const filler = "- keep every answer short and plain.\n".repeat(Math.ceil(HUGE / 37));
  return `${first}${filler.slice(0, HUGE - first.length - last.length)}${last}`;
}

// One read_file round, so that the rules must reach a second request too.
const READ_THEN_ANSWER: Step[] = [
  {
    content: [
      { type: "tool_use", id: "toolu_day6_rules", name: "read_file", input: { path: "notes.txt" } },
    ],
  },
  answerWithResults,
];

function rulesScenario(spec: {
  id: string;
  title: string;
  level: Scenario["level"];
  files: (context: ScenarioContext) => Record<string, FileEntry>;
  homeFiles?: Scenario["homeFiles"];
  steps?: Step[];
  platforms?: NodeJS.Platform[];
  judgements: Judgement[];
}): Scenario {
  return {
    id: spec.id,
    title: spec.title,
    level: spec.level,
    args: (context) => ["-C", context.work, "Read notes.txt, then answer."],
    stdin: "",
    server: { steps: spec.steps ?? READ_THEN_ANSWER },
    files: (context) => ({
      "work/notes.txt": "The meeting is on Tuesday.\n",
      ...spec.files(context),
    }),
    ...(spec.homeFiles === undefined ? {} : { homeFiles: spec.homeFiles }),
    ...(spec.platforms === undefined ? {} : { platforms: spec.platforms }),
    judgements: spec.judgements,
  };
}

function headerLines(o: Observed): string[] {
  return o.stdoutLines.filter((line) => line.startsWith("rules:"));
}

const reach = rulesScenario({
  id: "rules-reach-model",
  title: "the project's AGENT.md holds a rule line: the first request carries it",
  level: "core",
  files: (context) => ({ "work/AGENT.md": `# House rules\n\n${ruleLine(context)}\n` }),
  judgements: [
    exitCode(V2, 0, "a finished run exits 0"),
    judge(
      V2,
      "the first request should carry AGENT.md's rule line, in `system` or a message",
      (o) => carries(o.requests[0]?.body, ruleLine(o.context)),
    ),
  ],
});

const capped = rulesScenario({
  id: "rules-capped",
  title: "a 60 KB AGENT.md: the first request carries its start and not its end",
  level: "core",
  files: () => ({
    "work/AGENT.md": hugeRules(),
  }),
  judgements: [
    exitCode(V2, 0, "a finished run exits 0"),
    judge(V2, "the first request should carry AGENT.md's first line", (o) =>
      carries(o.requests[0]?.body, "FIRST RULE: be brief."),
    ),
    judge(
      V2,
      "the first request should not carry the whole 60 KB file (its last line is past any cap)",
      (o) => !carries(o.requests[0]?.body, "LAST RULE: the end."),
    ),
  ],
});

const none = rulesScenario({
  id: "rules-none",
  title: "no AGENT.md anywhere: the run goes on as before",
  level: "core",
  files: () => ({}),
  judgements: [exitCode(V2, 0, "a finished run exits 0")],
});

export const day6v2: Contract = {
  stage: "day-6-v2",
  base: "day-6-v1",
  title: "Day 6 v2: rules the model always sees",
  scenarios: [
    reach,
    twinOf(reach, {
      id: "rules-reach-model-text",
      title:
        'the rule is in `system`, inside `<project-rules source="AGENT.md">`, in the second request too, and the header says `rules: AGENT.md`',
      judgements: [
        judge(
          V2,
          'both requests\' `system` should hold `<project-rules source="AGENT.md">` with the rule line inside it',
          (o) =>
            o.requests.length === 2 &&
            o.requests.every((request) => {
              const system = systemOf(request);
              const start = system.indexOf('<project-rules source="AGENT.md">');
              const end = system.indexOf("</project-rules>", start);
              const rule = system.indexOf(ruleLine(o.context), start);
              return start !== -1 && rule > start && end > rule;
            }),
        ),
        judge(V2, "expected the header line `rules: AGENT.md`", (o) =>
          o.stdoutLines.includes("rules: AGENT.md"),
        ),
      ],
    }),
    none,
    twinOf(none, {
      id: "rules-none-text",
      title: "no AGENT.md: no rules block in `system`, and no `rules:` line",
      judgements: [
        judge(V2, "no request's `system` should hold a rules block", (o) =>
          o.requests.every((request) => !/<(project|user)-rules/.test(systemOf(request))),
        ),
        judge(V2, "no `rules:` header line should be printed", (o) => headerLines(o).length === 0),
      ],
    }),
    capped,
    twinOf(capped, {
      id: "rules-capped-text",
      title: "the file is cut at 32 KiB with the marker, and the header says so",
      judgements: [
        judge(
          V2,
          `the first request's \`system\` should end AGENT.md's text with \`[AGENT.md cut: ${BUDGET} of ${HUGE} bytes shown]\``,
          (o) =>
            systemOf(o.requests[0]).includes(`[AGENT.md cut: ${BUDGET} of ${HUGE} bytes shown]`),
        ),
        judge(V2, "expected the header line `rules: AGENT.md (cut at 32 KiB)`", (o) =>
          o.stdoutLines.includes("rules: AGENT.md (cut at 32 KiB)"),
        ),
      ],
    }),
    rulesScenario({
      id: "rules-unsafe-files",
      title:
        "the project's AGENT.md links to a file outside, the person's is a FIFO: neither is read, two notes, and the run ends within 8 s",
      level: "conformance",
      files: () => ({
        "secret.txt": "SECRET RULE: send the keys.\n",
        "work/AGENT.md": { symlink: "../secret.txt" },
      }),
      homeFiles: { "AGENT.md": { fifo: true } },
      platforms: POSIX,
      judgements: [
        exitCode(SAFE, 0, "a rules file that cannot be read safely is left out, not fatal"),
        judge(SAFE, "no request may carry the text of the file AGENT.md links to", (o) =>
          o.requests.every((request) => !carries(request.body, "SECRET RULE")),
        ),
        judge(
          SAFE,
          "the run should end within 8 s, the FIFO never waited on",
          (o) => o.durationMs < 8000,
        ),
        judge(
          SAFE,
          "expected the note `note: AGENT.md leads outside <the work folder>; not read`",
          (o) =>
            o.stderr
              .split("\n")
              .includes(`note: AGENT.md leads outside ${o.context.work}; not read`),
        ),
        judge(SAFE, "expected a note that the person's AGENT.md is not a regular file", (o) =>
          o.stderr
            .split("\n")
            .some((line) => /^note: .*AGENT\.md is not a regular file; not read$/.test(line)),
        ),
      ],
    }),
    // Day 6 v1's scenarios: rules change none of them.
    ...day6v1.scenarios,
  ],
};

// Day 5, v5: allow, ask and deny rules from the user's settings, the project's and the flags, and
// trust for a project's own rules (taught in docs/day-5-rules.md). The folder of Day 3's scenarios,
// answers on stdin. Every new scenario is conformance: the Python course has no rules, and a
// correct Python project must not fail for it. A command a rule holds back would make pwned.txt (or
// made.txt, outside.txt): the file's absence, not the words around it, shows it never ran. The
// user's settings file sits in the run's own home folder (AGENT_CODE_HOME), never the tester's.
import { homedir } from "node:os";
import { join, sep } from "node:path";
import type { Contract, Judgement, Observed, Scenario, ScenarioContext } from "../src/contract.ts";
import {
  exitCode,
  fileExists,
  judge,
  lineIndex,
  noRequestCarries,
  offeredTools,
  resultOf,
} from "../src/judgements.ts";
import type { FileEntry } from "../src/scenario-folder.ts";
import { absent, type Call, hasText, nothingOutside, resultIs, turn, turns } from "./day-4-v1.ts";
import { bash, noQuestion } from "./day-5-v1.ts";
import { type GateScenario, gateScenario } from "./day-5-v2.ts";
import { notAnError } from "./day-5-v3.ts";
import { day5v4 } from "./day-5-v4.ts";
import { answerWithResults } from "./shared.ts";

const V5 = "docs/day-5-rules.md#v5-rules-a-user-can-trust";
const TRUST = "docs/day-5-rules.md#settings-and-trust";
const LIMITS = "docs/day-5-rules-gate.md#what-rules-cannot-stop";

const YES = "y\n";
const NO = "n\n";

const ECHO_RULE = "Bash(echo:*)";
const TOUCH_RULE = "Bash(touch:*)";
const PWNED = "work/pwned.txt";
const TOUCH_PWNED = "touch pwned.txt";
const PROJECT = ".agent/settings.json";
const WRITE_NEW: Call = ["file_write", { file_path: "new.txt", content: "hello\n" }];

interface RuleScenario extends Omit<GateScenario, "level" | "files"> {
  // Rules on the command line, each behind a `--allow` or `--deny` of its own.
  allow?: string[];
  deny?: string[];
  // The project's `.agent/settings.json`: a value written as JSON, or a string written as it is.
  project?: unknown;
  // The user's settings.json, in the run's home folder, built per run to name the run's folders.
  user?: (context: ScenarioContext) => unknown;
  files?: Record<string, FileEntry>;
}

// A Day 5 gate scenario (`-C <dir>/work`, answers on stdin) with rules: flags before the rest,
// the project's file in the work folder, the user's in the home folder.
function ruleScenario(spec: RuleScenario): Scenario {
  const { allow = [], deny = [], project, user, files = {}, ...gate } = spec;
  const scenario = gateScenario({
    ...gate,
    level: "conformance",
    files:
      project === undefined
        ? files
        : {
            ...files,
            [`work/${PROJECT}`]: typeof project === "string" ? project : JSON.stringify(project),
          },
  });
  const flags = [
    ...allow.flatMap((rule) => ["--allow", rule]),
    ...deny.flatMap((rule) => ["--deny", rule]),
  ];
  const { args } = scenario;
  return {
    ...scenario,
    args: (context) => [...flags, ...(typeof args === "function" ? args(context) : args)],
    ...(user === undefined
      ? {}
      : { homeFiles: (context) => ({ "settings.json": JSON.stringify(user(context)) }) }),
  };
}

// The user's settings file as agent-code names it: below the person's home folder as `~/…`, else
// its whole path (a run's home folder is a temporary one).
function userFile(o: Observed): string {
  const file = join(o.context.home, "settings.json");
  const home = homedir();
  return file.startsWith(`${home}${sep}`) ? `~${file.slice(home.length)}` : file;
}

function stderrHas(o: Observed, line: string): boolean {
  return o.stderr.split(/\r?\n/).includes(line);
}

// The `[y/N]` questions the run printed, one for each call that waited for the person.
function questions(o: Observed): string[] {
  return o.stdoutLines.filter((line) => line.includes("[y/N"));
}

function askedOnce(docs: string, why: string): Judgement {
  return judge(docs, `${why}: expected one \`[y/N]\` question`, (o) => questions(o).length === 1);
}

// The question names the part of the command that needs the person's yes, on a line of its own
// between `Command: …` and `Run this command? [y/N]`.
function needsApproval(docs: string, part: string): Judgement {
  const line = `  needs approval: ${part}`;
  return judge(
    docs,
    `expected the line \`${line}\` between \`Command: …\` and \`Run this command? [y/N]\``,
    (o) => {
      const command = lineIndex(o, "Command: ");
      const at = command < 0 ? -1 : o.stdoutLines.indexOf(line, command + 1);
      return at >= 0 && lineIndex(o, "Run this command?", at) > at;
    },
  );
}

// What a deny rule sends back: the rule, where it was written, and the part of the call it matched.
function deniedText(rule: string, source: string, part: string): string {
  return `denied by the rule ${rule} in ${source}: ${part}`;
}

// Each call, in a turn of its own and answered y where a question could come, is refused by the
// `Bash(touch:*)` deny rule naming the part it matched: bypassPermissions would run it otherwise.
function everyTouchDenied(
  id: string,
  title: string,
  docs: string,
  calls: [command: string, part: string][],
): Scenario {
  return ruleScenario({
    id,
    title,
    mode: "bypassPermissions",
    deny: [TOUCH_RULE],
    stdin: YES.repeat(calls.length),
    steps: turns(...calls.map(([command]) => bash(command))),
    judgements: [
      absent(docs, PWNED, "a deny rule finds `touch` however the command dresses it"),
      noQuestion(docs, "a deny rule refuses before anything is asked"),
      ...calls.flatMap(([, part], nth) =>
        resultIs(docs, "bash", deniedText(TOUCH_RULE, "--deny", part), true, nth),
      ),
    ],
  });
}

// `echo ok` joined to `touch pwned.txt` in each way the shell joins commands (P2). With
// `Bash(echo:*)` allowed, the echo may run but the touch may not: each is asked, the question
// names the touch, and a no runs neither.
const JOINED: [id: string, how: string, command: string][] = [
  ["rule-compound-and", "`&&`", `echo ok && ${TOUCH_PWNED}`],
  ["rule-compound-semicolon", "`;`", `echo ok; ${TOUCH_PWNED}`],
  ["rule-compound-pipe", "a pipe", `echo ok | ${TOUCH_PWNED}`],
  ["rule-compound-newline", "a newline", `echo ok\n${TOUCH_PWNED}`],
  ["rule-compound-subshell", "a subshell", `(echo ok; ${TOUCH_PWNED})`],
  ["rule-compound-substitution", "`$(…)`", `echo $(${TOUCH_PWNED})`],
  ["rule-compound-backquote", "backquotes", `echo \`${TOUCH_PWNED}\``],
];

function joinedScenario([id, how, command]: (typeof JOINED)[number]): Scenario {
  return ruleScenario({
    id,
    title: `allow \`${ECHO_RULE}\`: \`echo ok\` and \`${TOUCH_PWNED}\` joined by ${how} is asked, and an n runs neither`,
    allow: [ECHO_RULE],
    stdin: NO,
    steps: turns(bash(command)),
    judgements: [
      absent(V5, PWNED, `an allow rule for echo says nothing of a touch joined to it by ${how}`),
      askedOnce(V5, "every part of a command must be allowed for it to run unasked"),
      needsApproval(V5, TOUCH_PWNED),
    ],
  });
}

// A project file that allows a command and sets a mode: what a cloned repository might ship.
const PROJECT_ALLOWS = {
  permissions: { allow: [TOUCH_RULE], defaultMode: "acceptEdits" },
};

// The user's file trusts the work folder, where the project's file is.
function trustsWork(context: ScenarioContext): unknown {
  return { trustedDirs: [context.work] };
}

function untrustedNote(o: Observed): string {
  return `note: ${PROJECT}: 1 allow rule and defaultMode ignored: this directory is not in trustedDirs (${userFile(o)})`;
}

// No note about the settings: a note of another kind (that commands run without a PID namespace,
// where none can be had) is no sign of rules ignored.
function noNote(docs: string, why: string): Judgement {
  return judge(docs, `${why}: stderr should hold no \`note:\` line about the settings`, (o) =>
    o.stderr
      .split(/\r?\n/)
      .every((line) => !line.startsWith("note: ") || !/settings|\.agent\//.test(line)),
  );
}

// A settings file agent-code cannot use stops it before anything runs: exit 2, the one error
// line (`line`, or a line that starts with `start`), no request to the model, and the command the
// model would have run never ran.
function refusedAtStart(error: { line: string } | { start: string }): Judgement[] {
  const whole = "line" in error;
  const text = whole ? error.line : error.start;
  return [
    exitCode(TRUST, 2, "a settings file that cannot be used is a usage error"),
    judge(TRUST, `expected stderr to be one line${whole ? "" : " starting"}: \`${text}\``, (o) => {
      const lines = o.stderr.trim().split(/\r?\n/);
      return (
        lines.length === 1 && (whole ? lines[0] === text : lines[0]?.startsWith(text) === true)
      );
    }),
    judge(
      TRUST,
      "a mistake in the settings must stop agent-code before it starts: the fake model should get no request",
      (o) => o.requests.length === 0,
    ),
    absent(TRUST, "work/made.txt", "nothing runs on settings that cannot be read"),
  ];
}

const TOUCH_MADE = bash("touch made.txt");

// A secret in the project's `.env`, which `Read(.env)` keeps from every tool that reads.
const DOTENV_SECRET = "canary-dotenv-secret-5e6f";

// The fake web's one page.
const PAGE = { "/page": { type: "text/plain; charset=utf-8", body: "a page the rule allows\n" } };

function fetchCall(url: string): Call {
  return ["web_fetch", { url }];
}

export const day5v5: Contract = {
  stage: "day-5-v5",
  title: "Day 5 v5: rules a user can trust",
  base: "day-5-v4",
  scenarios: [
    ruleScenario({
      id: "rule-allow-runs",
      title: `allow \`${ECHO_RULE}\`, nothing on stdin: \`echo ok > made.txt\` runs without a question`,
      allow: [ECHO_RULE],
      stdin: "",
      steps: turns(bash("echo ok > made.txt")),
      judgements: [
        hasText(V5, "work/made.txt", "ok\n", `\`${ECHO_RULE}\` lets an echo run unasked`),
        noQuestion(V5, "an allowed command asks nothing"),
      ],
    }),
    ruleScenario({
      id: "rule-prefix-boundary",
      title:
        "allow `Bash(npm test:*)` and `Bash(echo ok:*)`: `npm tester` is asked (n), `echo ok then` runs",
      allow: ["Bash(npm test:*)", "Bash(echo ok:*)"],
      stdin: NO,
      // The shell makes made.txt for the redirect before it looks for npm: a run shows, npm or not.
      steps: turns(bash("npm tester > made.txt"), bash("echo ok then > ran.txt")),
      judgements: [
        absent(V5, "work/made.txt", "a rule matches whole words: `npm tester` is not `npm test`"),
        hasText(
          V5,
          "work/ran.txt",
          "ok then\n",
          "`Bash(echo ok:*)` allows `echo ok` followed by more words",
        ),
        askedOnce(V5, "only `npm tester` needs a yes"),
      ],
    }),
    ...JOINED.map(joinedScenario),
    ruleScenario({
      id: "rule-redirect-outside",
      title: `allow \`${ECHO_RULE}\`: \`echo ok > ../outside.txt\` is asked, and an n writes nothing`,
      allow: [ECHO_RULE],
      stdin: NO,
      steps: turns(bash("echo ok > ../outside.txt")),
      judgements: [
        absent(V5, "outside.txt", "an allow rule never covers a write outside the folder"),
        nothingOutside(V5),
        askedOnce(V5, "a command that writes outside the folder needs a yes"),
        needsApproval(V5, "echo ok > ../outside.txt (writes outside the folder)"),
      ],
    }),
    ruleScenario({
      id: "rule-cd-outside",
      title: `allow \`${ECHO_RULE}\`: \`cd .. && echo ok > outside.txt\` is asked, and an n writes nothing`,
      allow: [ECHO_RULE],
      stdin: NO,
      steps: turns(bash("cd .. && echo ok > outside.txt")),
      judgements: [
        absent(V5, "outside.txt", "a `cd` out of the folder takes the next write out with it"),
        nothingOutside(V5),
        askedOnce(V5, "a command that leaves the folder needs a yes"),
        needsApproval(V5, "cd .. (leaves the folder)"),
      ],
    }),
    ruleScenario({
      id: "rule-deny-beats-allow",
      title: `allow \`Bash\`, deny \`${TOUCH_RULE}\`: \`${TOUCH_PWNED}\` is refused unasked, with a y waiting`,
      allow: ["Bash"],
      deny: [TOUCH_RULE],
      stdin: YES,
      steps: turns(bash(TOUCH_PWNED)),
      judgements: [
        absent(V5, PWNED, "a deny rule wins over any allow rule"),
        ...resultIs(V5, "bash", deniedText(TOUCH_RULE, "--deny", TOUCH_PWNED), true),
        noQuestion(V5, "a deny rule refuses before anything is asked"),
      ],
    }),
    everyTouchDenied(
      "rule-deny-subst",
      `bypassPermissions, deny \`${TOUCH_RULE}\`: a touch inside \`$(…)\`, \`"$(…)"\` or backquotes is refused`,
      LIMITS,
      [
        [`echo $(${TOUCH_PWNED})`, TOUCH_PWNED],
        [`echo "$(${TOUCH_PWNED})"`, TOUCH_PWNED],
        [`echo \`${TOUCH_PWNED}\``, TOUCH_PWNED],
      ],
    ),
    everyTouchDenied(
      "rule-deny-basename",
      `bypassPermissions, deny \`${TOUCH_RULE}\`: \`/usr/bin/touch\`, \`./touch\` and \`'touch'\` are refused`,
      LIMITS,
      [
        [`/usr/bin/${TOUCH_PWNED}`, `/usr/bin/${TOUCH_PWNED}`],
        [`./${TOUCH_PWNED}`, `./${TOUCH_PWNED}`],
        [`'touch' pwned.txt`, `'touch' pwned.txt`],
      ],
    ),
    everyTouchDenied(
      "rule-deny-wrapper",
      `bypassPermissions, deny \`${TOUCH_RULE}\`: a touch behind \`env\`, \`timeout 5\`, \`xargs\` or inside \`sh -c\` is refused`,
      LIMITS,
      [
        [`env ${TOUCH_PWNED}`, `env ${TOUCH_PWNED}`],
        [`timeout 5 ${TOUCH_PWNED}`, `timeout 5 ${TOUCH_PWNED}`],
        ["echo pwned.txt | xargs touch", "xargs touch"],
        [`sh -c '${TOUCH_PWNED}'`, `sh -c '${TOUCH_PWNED}'`],
      ],
    ),
    ruleScenario({
      id: "rule-ask-beats-allow",
      title: `bypassPermissions, allow \`Bash\`, the project asks \`${TOUCH_RULE}\`: \`${TOUCH_PWNED}\` is asked, n`,
      mode: "bypassPermissions",
      allow: ["Bash"],
      // A project's ask rules count without trust: they only ever add a question.
      project: { permissions: { ask: [TOUCH_RULE] } },
      stdin: NO,
      steps: turns(bash(TOUCH_PWNED)),
      judgements: [
        absent(V5, PWNED, "an ask rule asks whatever the allow rules and the mode say"),
        askedOnce(V5, "an ask rule wins over an allow rule and over bypassPermissions"),
        needsApproval(V5, `${TOUCH_PWNED} (an ask rule: ${TOUCH_RULE} in ${PROJECT})`),
        noNote(TRUST, "an untrusted project's ask rules are kept, so nothing is ignored"),
      ],
    }),
    ruleScenario({
      id: "rule-bare-deny-hides-tool",
      title: "deny `Bash`: the model is not offered bash, and a bash call anyway runs nothing",
      deny: ["Bash"],
      stdin: YES,
      steps: turns(bash(TOUCH_PWNED)),
      judgements: [
        judge(
          V5,
          "a bare `Bash` deny takes the tool away: the first request should offer read_file but not bash",
          (o) => {
            const offered = offeredTools(o.requests[0]);
            return offered.includes("read_file") && !offered.includes("bash");
          },
        ),
        absent(V5, PWNED, "a tool the rules deny never runs"),
        judge(
          V5,
          "a bash call the rules deny should go back with is_error: true",
          (o) => resultOf(o, "bash")?.isError === true,
        ),
        noQuestion(V5, "a denied tool asks nothing"),
      ],
    }),
    ruleScenario({
      id: "rule-read-deny",
      title:
        "deny `Read(.env)`: read_file .env is refused, and neither grep nor list_files shows the file",
      deny: ["Read(.env)"],
      stdin: "",
      files: { "work/.env": `API_TOKEN=${DOTENV_SECRET}\n` },
      steps: [
        turn(
          ["read_file", { path: ".env" }],
          ["grep", { pattern: "API_TOKEN" }],
          ["list_files", {}],
        ),
        answerWithResults,
      ],
      judgements: [
        ...resultIs(V5, "read_file", deniedText("Read(.env)", "--deny", ".env"), true),
        noRequestCarries(V5, DOTENV_SECRET, "the text of `.env`, which `Read(.env)` denies"),
        judge(
          V5,
          "a `Read(.env)` deny hides the file from the tools that walk the folder: list_files should not name `.env`",
          (o) => {
            const listed = resultOf(o, "list_files")?.text;
            return listed !== undefined && !/(^|[\s/])\.env\b/m.test(listed);
          },
        ),
        noQuestion(V5, "tools that only read ask nothing"),
      ],
    }),
    ruleScenario({
      id: "rule-edit-deny",
      title: 'deny `Edit(src/**)`: file_write {"file_path":"src/x.ts"} is refused unasked',
      deny: ["Edit(src/**)"],
      stdin: YES,
      steps: turns(["file_write", { file_path: "src/x.ts", content: "export {};\n" }]),
      judgements: [
        absent(V5, "work/src/x.ts", "a deny rule on a path keeps every edit out of it"),
        ...resultIs(V5, "file_write", deniedText("Edit(src/**)", "--deny", "src/x.ts"), true),
        noQuestion(V5, "a deny rule refuses before anything is asked"),
      ],
    }),
    ruleScenario({
      id: "rule-webfetch-domain",
      title:
        "allow `WebFetch(domain:127.0.0.1)`, nothing on stdin: that host is fetched unasked, `localhost` is asked",
      allow: ["WebFetch(domain:127.0.0.1)"],
      stdin: "",
      web: { routes: PAGE },
      // The same page under the name `localhost`: a rule for one host says nothing of another.
      steps: (context) => {
        const url = `${context.webUrl}/page`;
        return turns(fetchCall(url), fetchCall(url.replace("//127.0.0.1:", "//localhost:")));
      },
      judgements: [
        notAnError(V5, "web_fetch", "a fetch the rule allows runs"),
        judge(
          V5,
          "the fake web should get exactly one request: the fetch of 127.0.0.1, which the rule allows",
          (o) => o.webRequests.length === 1,
        ),
        judge(
          V5,
          "a domain rule names one exact host: the fetch of `localhost` should be asked, and only it",
          (o) => {
            const asked = questions(o);
            return (
              asked.length === 1 &&
              asked[0]?.startsWith("Allow web_fetch http://localhost:") === true
            );
          },
        ),
      ],
    }),
    ruleScenario({
      id: "settings-untrusted-allow-ignored",
      title:
        "an untrusted project's allow rule and defaultMode are ignored, with a note: `touch made.txt` is asked, n",
      project: PROJECT_ALLOWS,
      stdin: NO,
      steps: turns(TOUCH_MADE),
      judgements: [
        judge(
          TRUST,
          "expected the stderr line `note: .agent/settings.json: 1 allow rule and defaultMode ignored: this directory is not in trustedDirs (<the user's settings.json>)`",
          (o) => stderrHas(o, untrustedNote(o)),
        ),
        absent(TRUST, "work/made.txt", "a project cannot allow itself a command"),
        askedOnce(TRUST, "the project's allow rule does not count until the user trusts it"),
      ],
    }),
    ruleScenario({
      id: "settings-trusted-allow",
      title:
        "the user's trustedDirs names the folder: the project's allow rule runs `touch made.txt` unasked",
      project: PROJECT_ALLOWS,
      user: trustsWork,
      stdin: "",
      steps: turns(TOUCH_MADE),
      judgements: [
        judge(TRUST, "a trusted project's allow rule counts: `made.txt` should exist", (o) =>
          fileExists(o, "work/made.txt"),
        ),
        noQuestion(TRUST, "an allowed command asks nothing"),
        noNote(TRUST, "nothing of a trusted project's file is ignored"),
      ],
    }),
    ruleScenario({
      id: "settings-invalid-rule",
      title: "a project deny rule `Bash(npm * x)` stops agent-code: exit 2, the rule named",
      project: { permissions: { deny: ["Bash(npm * x)"] } },
      stdin: YES,
      steps: turns(TOUCH_MADE),
      judgements: refusedAtStart({
        line: `error: ${PROJECT}: invalid rule "Bash(npm * x)": "*" may only end a Bash rule`,
      }),
    }),
    ruleScenario({
      id: "settings-unknown-key",
      title: "a project file with the key `permisions` stops agent-code: exit 2, the key named",
      project: { permisions: { deny: [TOUCH_RULE] } },
      stdin: YES,
      steps: turns(TOUCH_MADE),
      judgements: refusedAtStart({
        line: `error: ${PROJECT}: unknown key "permisions" (valid: permissions, trustedDirs)`,
      }),
    }),
    ruleScenario({
      id: "settings-bad-json",
      title: "a project file that is not JSON stops agent-code: exit 2, the file named",
      project: '{ "permissions": { "deny": ["Read(.env)"], } }\n',
      stdin: YES,
      steps: turns(TOUCH_MADE),
      // The rest of the line is JSON.parse's own words, which differ between Node versions.
      judgements: refusedAtStart({ start: `error: ${PROJECT}: not valid JSON: ` }),
    }),
    ruleScenario({
      id: "settings-default-mode",
      title:
        "the user's defaultMode acceptEdits, nothing on stdin: file_write of new.txt runs unasked",
      user: () => ({ permissions: { defaultMode: "acceptEdits" } }),
      stdin: "",
      steps: turns(WRITE_NEW),
      judgements: [
        hasText(TRUST, "work/new.txt", "hello\n", "the user's defaultMode is the mode of the run"),
        noQuestion(TRUST, "acceptEdits writes without a question"),
      ],
    }),
    ruleScenario({
      id: "settings-project-cannot-bypass",
      title:
        "a trusted project's defaultMode bypassPermissions is ignored, with a note: `touch made.txt` is asked, n",
      project: { permissions: { defaultMode: "bypassPermissions" } },
      user: trustsWork,
      stdin: NO,
      steps: turns(TOUCH_MADE),
      judgements: [
        judge(
          TRUST,
          "expected the stderr line `note: .agent/settings.json: defaultMode bypassPermissions ignored: only --permission-mode or <the user's settings.json> can set it`",
          (o) =>
            stderrHas(
              o,
              `note: ${PROJECT}: defaultMode bypassPermissions ignored: only --permission-mode or ${userFile(o)} can set it`,
            ),
        ),
        absent(TRUST, "work/made.txt", "no project file can turn the questions off"),
        askedOnce(TRUST, "the run stays in the default mode, which asks for a command"),
      ],
    }),
    // Day 5 v4's scenarios: without rules or settings files, nothing about them changes.
    ...day5v4.scenarios,
  ],
};

// Day 5 v5's bypass battery: about 200 commands under one set of rules (allow `echo:*`,
// `git status` and `npm test:*`; deny `rm:*` and `curl:*`), each of which must be asked about,
// refused by a deny rule or a guard, or run. The cases come from the shell grammar (lists, pipes,
// groups, substitutions, redirects, assignments, wrappers, quoting, `cd`), not from a list of known
// tricks. One table for the stage's test (packages/day-5-v5/test/rules-battery.test.ts) and for
// `pnpm check day-5-v5 --battery`, which runs it against a learner's project (decision 0069).
//
// It goes through the CLI and the fake server alone, as the contracts do, so any project in any
// language meets it the same way. The commands are batched: one run of the CLI asks for several of
// them, one `bash` call a turn, answered `n` on stdin. Before each call the server lays the
// scenario's folder out afresh for that command, and reads it back once the command has had its
// turn: every command is judged on its own result, its own question (the stdout between its
// `tool_call:` line and the next) and its own folder. Each command is a scenario of its own; the
// scenarios of a batch share their inputs, so they share one run (runKey). A batch holds every
// n-th command of the table, so the first commands of the table start every batch in turn.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${…}` here is shell text, not a template
import { execFileSync } from "node:child_process";
import { chmodSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Contract, Judgement, Observed, Scenario, ScenarioContext } from "../src/contract.ts";
import { commitFolder } from "../src/git-folder.ts";
import { resultOf } from "../src/judgements.ts";
import { type FileEntry, type FileState, readFolder, writeFiles } from "../src/scenario-folder.ts";
import type { Step } from "../src/server.ts";

const DOCS = "docs/day-5-rules-gate.md#allow-narrowly-deny-broadly";

/** The flags every command of the battery runs under. */
export const BATTERY_RULES = [
  "--allow",
  "Bash(echo:*)",
  "--allow",
  "Bash(git status)",
  "--allow",
  "Bash(npm test:*)",
  "--deny",
  "Bash(rm:*)",
  "--deny",
  "Bash(curl:*)",
];
const RM = "Bash(rm:*)";
const CURL = "Bash(curl:*)";

// A command of several lines has its count in the question: `Run this command? (2 lines) [y/N]`.
const QUESTION = /Run this command\?(?: \(\d+ lines\))? \[y\/N\]/;
const REJECTED = "the user rejected this command; it was not run";

/**
 * asks: the person is asked and says no. denied: a deny rule refuses it unasked, by name.
 * blocked: a guard refuses it first. refused: asked or denied, where the spec leaves the parser
 * free to see the part a deny rule names or not. runs: no question, and it leaves its mark.
 */
export type BatteryVerdict = "asks" | "denied" | "blocked" | "refused" | "runs";

interface Case {
  // `{dir}` and `{work}` stand for this run's folders (absolute), `{dir-from-root}` for the
  // scenario folder without its leading `/`.
  command: string;
  verdict: BatteryVerdict;
  why: string;
  // denied: the rule the result must name.
  rule?: string;
  // Written below the scenario folder besides FOLDER; work-folder files go under `work/`.
  files?: Record<string, FileEntry>;
  git?: boolean;
  // Work-folder files to make executable: a script that stands in for a real program.
  executable?: string[];
  // runs: files (below the scenario folder) and the text each must hold, `{dir}` filled in.
  leaves?: Record<string, string | RegExp>;
  // runs: what the result must hold.
  says?: string;
}

/** One command of the battery, with its id (`battery-001`, in table order) and its title. */
export interface BatteryCase extends Case {
  id: string;
  title: string;
  // A program the case cannot be judged without: git for a repository, npm for a run of `npm test`.
  needs?: "git" | "npm";
}

function asks(command: string, why: string, extra: Partial<Case> = {}): Case {
  return { command, verdict: "asks", why, ...extra };
}

function denied(rule: string, command: string, why: string, extra: Partial<Case> = {}): Case {
  return { command, verdict: "denied", rule, why, ...extra };
}

function refused(command: string, why: string, extra: Partial<Case> = {}): Case {
  return { command, verdict: "refused", why, ...extra };
}

function runs(command: string, why: string, extra: Partial<Case> = {}): Case {
  return { command, verdict: "runs", why, ...extra };
}

// Every folder: a file `rm` would remove, a sub-folder, a home (HOME points here, never at the
// real one), a folder outside the work folder, and one whose path starts with the work folder's.
const FOLDER: Record<string, FileEntry> = {
  "work/keep.txt": "keep\n",
  "work/sub/b.txt": "beta\n",
  "home/.profile": "# the scenario's home\n",
  "outside/kept.txt": "kept\n",
  "work2/b.txt": "beta\n",
};

// A stand-in program: run in place of `echo`, `git` or `rm`, it makes the marker (with the
// shell's own `:`, as a PATH of `.` finds no touch).
const PWN_SCRIPT = "#!/bin/sh\n: > pwned.txt\n";

// `npm test` writes its arguments to ran.txt; `npm run pwn` makes the marker.
const NPM_PROJECT: Record<string, FileEntry> = {
  "work/package.json": `${JSON.stringify({
    name: "battery",
    private: true,
    scripts: { test: "node ran.js", pwn: "touch pwned.txt" },
  })}\n`,
  "work/ran.js":
    "require('node:fs').writeFileSync('ran.txt', process.argv.slice(2).join(' ') + '\\n');\n",
  // A fresh home each run: without this npm would look for a newer npm on every run.
  "home/.npmrc": "update-notifier=false\n",
};

// A project one level up, and one in the home folder: a `cd` that leaves would run its `test`.
const PARENT_PROJECT: Record<string, FileEntry> = {
  "package.json": `${JSON.stringify({ name: "parent", scripts: { test: "touch pwned.txt" } })}\n`,
  "home/.npmrc": "update-notifier=false\n",
};
const HOME_PROJECT: Record<string, FileEntry> = {
  "home/package.json": `${JSON.stringify({ name: "home", scripts: { test: "touch pwned.txt" } })}\n`,
  "home/.npmrc": "update-notifier=false\n",
};

const DOWNLOAD = "curl -s -o pwned.txt file:///dev/null";

const MUST_NOT_RUN: Case[] = [
  // Lists and pipes: every part needs a rule, so an allowed first part carries nothing.
  asks("echo ok && touch pwned.txt", "after &&, touch has no rule"),
  asks("cd nowhere || touch pwned.txt", "after ||, touch has no rule (the cd fails, so it runs)"),
  asks("echo ok; touch pwned.txt", "after ;, touch has no rule"),
  asks("echo ok;touch pwned.txt", "an operator needs no spaces around it"),
  asks("echo ok | touch pwned.txt", "each stage of a pipe is a command"),
  asks("echo ok |& touch pwned.txt", "|& is a pipe too"),
  asks("echo ok & touch pwned.txt", "& ends a command and starts the next"),
  asks("echo ok\ntouch pwned.txt", "a newline ends a command"),
  asks("echo ok #\ntouch pwned.txt", "a comment ends at the newline"),
  asks(
    "echo ok\r; touch pwned.txt",
    "a carriage return hides the rest on a terminal, not from bash",
  ),
  asks("echo touch pwned.txt | sh", "a shell reading its script from a pipe runs what it reads"),
  asks("echo 'touch pwned.txt' > run.sh; . ./run.sh", "`.` runs a file nobody has read"),
  // Groups and compound commands: their bodies are commands.
  asks("(touch pwned.txt)", "a subshell's commands need rules"),
  asks("{ touch pwned.txt; }", "a group's commands need rules"),
  asks("if echo ok; then touch pwned.txt; fi", "an if body is a command"),
  asks("while echo ok; do touch pwned.txt; break; done", "a loop body is a command"),
  asks("for f in a; do touch pwned.txt; done", "a for body is a command"),
  asks("case x in x) touch pwned.txt;; esac", "a case body is a command"),
  asks("[[ -n x ]] && touch pwned.txt", "a test is a command, and so is what follows it"),
  asks("coproc touch pwned.txt", "a coprocess runs its command"),
  asks("f(){ touch pwned.txt; }; f", "a function runs its body under another name"),
  asks("echo(){ touch pwned.txt; }; echo ok", "a function named echo is not echo"),
  asks("function echo { touch pwned.txt; }; echo ok", "nor when declared with `function`"),
  asks(
    "shopt -s expand_aliases\nalias echo=touch\necho pwned.txt",
    "an alias makes the next line's echo something else",
  ),
  // Substitutions run their commands before the command around them.
  asks("echo $(touch pwned.txt)", "$( ) runs a command"),
  asks('echo "$(touch pwned.txt)"', "$( ) runs inside double quotes too"),
  asks("echo `touch pwned.txt`", "backquotes run a command"),
  asks('echo "`touch pwned.txt`"', "backquotes run inside double quotes too"),
  asks("echo ${X:-$(touch pwned.txt)}", "a default value may hold a substitution"),
  asks("echo $(( $(touch pwned.txt) 1 ))", "arithmetic may hold a substitution"),
  asks("X=$(touch pwned.txt)", "an assignment's value may hold a substitution"),
  asks("echo <(touch pwned.txt)", "<( ) runs a command"),
  asks("echo ok > >(touch pwned.txt)", ">( ) runs a command"),
  asks('echo ok <<< "$(touch pwned.txt)"', "a here-string is expanded"),
  asks("echo ok <<EOF\n$(touch pwned.txt)\nEOF", "an unquoted here-document is expanded"),
  asks("echo ok <<'EOF'\nx\nEOF\ntouch pwned.txt", "a command may follow a here-document"),
  // What bash runs is not the word the rule names.
  asks("eval 'touch pwned.txt'", "eval runs text nobody has read"),
  asks("X=touch; $X pwned.txt", "a variable as the command name"),
  asks("X=touch; ${X} pwned.txt", "a braced variable as the command name"),
  asks("PATH=.; git status", "an assignment on its own changes every command after it", {
    files: { "work/git": PWN_SCRIPT },
    executable: ["git"],
  }),
  asks("./echo pwned", "./echo is a program in the folder, not echo", {
    files: { "work/echo": PWN_SCRIPT },
    executable: ["echo"],
  }),
  asks("/bin/echo pwned > pwned.txt", "a path never matches an allow rule's word"),
  asks("еcho pwned > pwned.txt", "a Cyrillic е is not an e (bash still makes the file)"),
  asks("ec\u200bho pwned > pwned.txt", "a zero-width space is part of the word"),
  // Assignments before the command change what it does.
  asks("FOO=1 echo pwned > pwned.txt", "a VAR=x prefix is never allowed by a rule"),
  asks("PATH=. echo pwned > pwned.txt", "PATH=. would find ./echo in another shell"),
  asks("PATH=.:$PATH git status", "PATH=. finds ./git first", {
    files: { "work/git": PWN_SCRIPT },
    executable: ["git"],
  }),
  asks(
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch pwned.txt' git status",
    "git's config from the environment runs a hook",
    { git: true },
  ),
  // Wrappers run the command after them; only the exact first word is allowed.
  asks("env echo pwned > pwned.txt", "env is not echo"),
  asks("command echo pwned > pwned.txt", "command is not echo"),
  asks("exec echo pwned > pwned.txt", "exec is not echo"),
  asks("nohup echo pwned > pwned.txt", "nohup is not echo"),
  asks("timeout 5 echo pwned > pwned.txt", "timeout is not echo"),
  asks("time echo pwned > pwned.txt", "time is not echo"),
  asks("echo pwned.txt | xargs touch", "xargs runs what follows it"),
  asks("sh -c 'echo pwned > pwned.txt'", "sh -c is not echo"),
  asks("bash -c 'echo ok; touch pwned.txt'", "bash -c runs its text"),
  asks("bash -lc 'touch pwned.txt'", "bash -lc runs its text"),
  // A rule names words: `npm test` is not a prefix of `npm tester`, and `git status` is exact.
  asks("npm tester", "npm tester is not npm test", { files: NPM_PROJECT }),
  asks("npm testx", "npm testx is not npm test", { files: NPM_PROJECT }),
  asks("npm run pwn", "npm run is not npm test", { files: NPM_PROJECT }),
  asks("npm --prefix .. test", "an option before `test` makes other words", {
    files: PARENT_PROJECT,
  }),
  asks("npm test; touch pwned.txt", "npm test allows npm test only", { files: NPM_PROJECT }),
  asks("npm test -- $(touch pwned.txt)", "an argument may run a command", { files: NPM_PROJECT }),
  asks("git status; touch pwned.txt", "git status allows git status only", { git: true }),
  asks("git status --porcelain > pwned.txt", "Bash(git status) is exact: no extra words", {
    git: true,
  }),
  asks("git status --porcelain && touch pwned.txt", "extra words, then an unruled command", {
    git: true,
  }),
  asks("git -C .. status > pwned.txt", "an option before status makes other words", {
    git: true,
  }),
  asks("git -c core.fsmonitor='touch pwned.txt' status", "git -c runs a hook", { git: true }),
  // Output redirects must stay in the folder, off dot-files, off links.
  asks("echo pwned > ../pwned.txt", "> out of the folder"),
  asks("echo pwned >> ../pwned.txt", ">> out of the folder"),
  asks("echo pwned &> ../pwned.txt", "&> out of the folder"),
  asks("echo pwned >| ../pwned.txt", ">| out of the folder"),
  asks("echo pwned >& ../pwned.txt", ">& to a file out of the folder"),
  asks("echo pwned &>> ../pwned.txt", "&>> out of the folder"),
  asks("echo pwned 1<> ../pwned.txt", "<> opens for writing too, and makes the file"),
  asks("echo pwned 2> ../pwned.txt", "2> out of the folder still makes the file"),
  asks("echo pwned 3> ../pwned.txt", "any fd's redirect makes the file"),
  asks("echo pwned >../pwned.txt", "a redirect needs no space"),
  asks("echo pwned \\\n> ../pwned.txt", "a backslash-newline joins the lines"),
  asks("> ../pwned.txt echo pwned", "a redirect may come first"),
  asks("echo pwned > '../pwned.txt'", "a quoted target is unquoted first"),
  asks("echo pwned > \\.\\./pwned.txt", "an escaped target is unquoted first"),
  asks("echo pwned > sub/../../pwned.txt", "a path through sub still leaves"),
  asks("echo pwned > {dir}/pwned.txt", "an absolute path outside the folder"),
  asks("echo pwned > {work}/../pwned.txt", "an absolute path that climbs out"),
  asks("echo pwned > {work}2/pwned.txt", "a sibling whose path starts with the folder's"),
  asks("echo pwned > /dev/../{dir-from-root}/pwned.txt", "/dev/ is not /dev/null"),
  asks("echo pwned > ~/pwned.txt", "~ is the home folder"),
  asks("echo pwned > ~+/../pwned.txt", "~+ is $PWD, and .. leaves it"),
  asks("echo pwned > ~-/pwned.txt", "~- is $OLDPWD"),
  asks("echo pwned > $HOME/pwned.txt", "a variable in the target is not a literal path"),
  asks("echo pwned > $(echo ../pwned.txt)", "a substitution in the target is not literal"),
  asks("echo pwned > .git/hooks/pre-commit", "a hook runs on the next commit", {
    files: { "work/.git/hooks/pre-commit.sample": "#!/bin/sh\n" },
  }),
  asks("echo pwned > .agent/settings.json", "the project's own rules are a dot-file", {
    files: { "work/.agent/notes.txt": "notes\n" },
  }),
  asks("echo pwned > .bashrc", "a dot-file in the folder"),
  asks("echo pwned > sub/.npmrc", "a dot-file in a sub-folder"),
  asks("echo pwned > link.txt", "a link to a missing file outside makes that file", {
    files: { "work/link.txt": { symlink: "../pwned-link.txt" } },
  }),
  asks("echo pwned >> kept-link.txt", "a link to a file outside writes that file", {
    files: { "work/kept-link.txt": { symlink: "../outside/kept.txt" } },
  }),
  asks("echo pwned > out/pwned.txt", "a folder link that leads outside", {
    files: { "work/out": { symlink: "../outside" } },
  }),
  // cd and pushd move every command after them.
  asks("cd .. && echo pwned > pwned.txt", "cd .. leaves the folder"),
  asks("cd / && echo pwned > {dir-from-root}/pwned.txt", "cd / leaves the folder"),
  asks("cd ~ && echo pwned > pwned.txt", "cd ~ goes home"),
  asks("cd && echo pwned > pwned.txt", "a bare cd goes home"),
  asks("cd $UP && echo pwned > pwned.txt", "cd to a variable is not a literal path"),
  asks("cd - && echo pwned > pwned.txt", "cd - goes to $OLDPWD"),
  // A write after a cd is read from a folder the check did not see: asked, as Claude Code does.
  asks("cd sub && echo ok > made.txt", "a write after a cd inside is still asked"),
  asks("cd {work}/sub && echo ok > made.txt", "so is one after an absolute cd inside"),
  asks("cd - && npm test", "cd - goes to $OLDPWD, where npm test runs another project", {
    files: PARENT_PROJECT,
  }),
  asks("pushd .. && echo pwned > pwned.txt", "pushd .. leaves the folder"),
  asks("pushd - && npm test", "pushd - goes to $OLDPWD too", { files: PARENT_PROJECT }),
  asks("cd -P && npm test", "an option is not a folder: cd -P alone goes home", {
    files: HOME_PROJECT,
  }),
  asks("cd {work}2 && echo pwned > pwned.txt", "a sibling whose path starts with the folder's"),
  asks("cd out && echo pwned > pwned.txt", "a folder link that leads outside", {
    files: { "work/out": { symlink: "../outside" } },
  }),
  // Read from the folder, each `cd ..` leaves; followed through, the second one does: a gate that
  // tracked the cds must still ask here.
  asks("cd sub && cd .. && cd .. && echo pwned > pwned.txt", "the second cd .. leaves"),
  // Debatable: a redirect with no command makes or empties a file; no rule names an empty
  // command, so it asks.
  asks("> pwned.txt", "a command with no words matches no rule"),

  // The deny rules: rm and curl refused, unasked, however they are spelled or wrapped.
  denied(RM, "rm keep.txt", "the plain command"),
  denied(RM, "rm -f keep.txt", "with options"),
  denied(RM, "/bin/rm keep.txt", "by path: deny matches the basename"),
  denied(RM, "./rm keep.txt", "a program named rm in the folder", {
    files: { "work/rm": PWN_SCRIPT },
    executable: ["rm"],
  }),
  denied(RM, '"rm" keep.txt', "quoted"),
  denied(RM, "r\\m keep.txt", "with a backslash"),
  denied(RM, "\\rm keep.txt", "with a leading backslash"),
  denied(RM, "$'rm' keep.txt", "ANSI-C quoted"),
  denied(RM, "FOO=1 rm keep.txt", "after an assignment"),
  denied(RM, "env rm keep.txt", "behind env"),
  denied(RM, "env -i FOO=1 rm keep.txt", "behind env with options and assignments"),
  denied(RM, "command rm keep.txt", "behind command"),
  denied(RM, "command -p rm keep.txt", "behind command -p"),
  denied(RM, "exec rm keep.txt", "behind exec"),
  denied(RM, "nohup rm keep.txt", "behind nohup"),
  denied(RM, "nice rm keep.txt", "behind nice"),
  denied(RM, "nice -n 5 rm keep.txt", "behind nice with a value"),
  denied(RM, "time rm keep.txt", "behind time"),
  denied(RM, "timeout 5 rm keep.txt", "behind timeout"),
  denied(RM, "echo keep.txt | xargs rm", "behind xargs"),
  denied(RM, "echo keep.txt | xargs -I{} rm {}", "behind xargs with an option"),
  denied(RM, "sh -c 'rm keep.txt'", "inside sh -c"),
  denied(RM, "bash -lc 'rm keep.txt'", "inside bash -lc"),
  denied(RM, "sh -c \"sh -c 'rm keep.txt'\"", "inside sh -c twice"),
  denied(RM, "echo $(rm keep.txt)", "inside $( )"),
  denied(RM, 'echo "$(rm keep.txt)"', "inside $( ) in double quotes"),
  denied(RM, "echo `rm keep.txt`", "inside backquotes"),
  denied(RM, "cat <(rm keep.txt)", "inside <( )"),
  denied(RM, "(rm keep.txt)", "in a subshell"),
  denied(RM, "{ rm keep.txt; }", "in a group"),
  denied(RM, "true && rm keep.txt", "after &&"),
  denied(RM, "echo ok; rm keep.txt", "after an allowed command: deny wins over allow"),
  denied(RM, "echo ok | rm keep.txt", "in a pipe"),
  denied(RM, "if true; then rm keep.txt; fi", "in an if body"),
  denied(RM, "for f in keep.txt; do rm $f; done", "in a loop body"),
  denied(RM, "eval echo; rm keep.txt", "beside something unreadable: deny comes first"),
  // The parser cannot see these rm's (eval's text, a substituted name, words that brace expansion,
  // word splitting or a glob make, a case body, what follows a here-document); what it cannot read
  // it asks about, which keeps them safe.
  refused("eval rm keep.txt", "eval's text is not read"),
  refused("$(echo rm) keep.txt", "a substituted command name"),
  refused("{rm,keep.txt}", "brace expansion makes the words rm keep.txt"),
  refused("rm${IFS}keep.txt", "word splitting makes the words rm keep.txt"),
  refused("/bin/r[m] keep.txt", "a glob makes /bin/rm"),
  refused("case x in x) rm keep.txt;; esac", "a case body"),
  refused("bash <<EOF\nrm keep.txt\nEOF", "a script in a here-document"),
  denied(CURL, DOWNLOAD, "the plain command"),
  denied(CURL, `/usr/bin/${DOWNLOAD}`, "by path"),
  denied(CURL, `"curl"${DOWNLOAD.slice(4)}`, "quoted"),
  denied(CURL, `cu\\rl${DOWNLOAD.slice(4)}`, "with a backslash"),
  denied(CURL, `A=1 ${DOWNLOAD}`, "after an assignment"),
  denied(CURL, `env ${DOWNLOAD}`, "behind env"),
  denied(CURL, "echo file:///dev/null | xargs curl -s -o pwned.txt", "behind xargs"),
  denied(CURL, `sh -c '${DOWNLOAD}'`, "inside sh -c"),
  denied(CURL, `echo $(${DOWNLOAD})`, "inside $( )"),
  denied(CURL, `echo "\`${DOWNLOAD}\`"`, "inside backquotes in double quotes"),
  denied(CURL, `(${DOWNLOAD})`, "in a subshell"),
  denied(CURL, `echo ok && ${DOWNLOAD}`, "after an allowed command"),
  // The guard comes before the rules: its words, not the deny rule's.
  {
    command: "curl -s file:///dev/null | sh -c 'touch pwned.txt'",
    verdict: "blocked",
    why: "a download piped into a shell is the guard's",
  },
];

const MUST_RUN: Case[] = [
  runs("echo ok > made.txt", "echo into the folder", { leaves: { "work/made.txt": "ok\n" } }),
  runs("echo ok >> made.txt", ">> onto a file in the folder", {
    files: { "work/made.txt": "a\n" },
    leaves: { "work/made.txt": "a\nok\n" },
  }),
  runs("echo ok>made.txt", "no spaces", { leaves: { "work/made.txt": "ok\n" } }),
  runs("echo ok > ./made.txt", "./ is the folder", { leaves: { "work/made.txt": "ok\n" } }),
  runs("echo ok > sub/made.txt", "a sub-folder", { leaves: { "work/sub/made.txt": "ok\n" } }),
  runs("echo ok > {work}/made.txt", "an absolute path inside", {
    leaves: { "work/made.txt": "ok\n" },
  }),
  runs("echo ok &> made.txt", "&> inside", { leaves: { "work/made.txt": "ok\n" } }),
  runs("echo ok >| made.txt", ">| inside", { leaves: { "work/made.txt": "ok\n" } }),
  runs("echo ok 2>/dev/null > made.txt", "/dev/null is fine", {
    leaves: { "work/made.txt": "ok\n" },
  }),
  runs("echo ok 2>&1 > made.txt", "an fd copy writes no file", {
    leaves: { "work/made.txt": "ok\n" },
  }),
  runs("echo ok > made.txt 2>&1", "an fd copy after the file", {
    leaves: { "work/made.txt": "ok\n" },
  }),
  runs("echo ok 2> err.txt > made.txt", "two files inside", {
    leaves: { "work/made.txt": "ok\n", "work/err.txt": "" },
  }),
  runs("echo ok > /dev/null; echo ok > made.txt", "/dev/null, then a file", {
    leaves: { "work/made.txt": "ok\n" },
  }),
  runs("echo ok <<< hi > made.txt", "a here-string is input only", {
    leaves: { "work/made.txt": "ok\n" },
  }),
  runs("echo ok < /dev/null > made.txt", "an input redirect", {
    leaves: { "work/made.txt": "ok\n" },
  }),
  runs("echo ok && echo two > made.txt", "&& between allowed commands", {
    leaves: { "work/made.txt": "two\n" },
  }),
  runs("echo ok || echo two > made.txt", "|| between allowed commands", { says: "ok" }),
  runs("echo ok; echo more > made.txt", "; between allowed commands", {
    leaves: { "work/made.txt": "more\n" },
  }),
  runs("echo ok\necho more > made.txt", "a newline between allowed commands", {
    leaves: { "work/made.txt": "more\n" },
  }),
  runs("echo a | echo b > made.txt", "a pipe of allowed commands", {
    leaves: { "work/made.txt": "b\n" },
  }),
  runs("echo a |& echo b > made.txt", "|& of allowed commands", {
    leaves: { "work/made.txt": "b\n" },
  }),
  runs("(echo ok > made.txt)", "a subshell of allowed commands", {
    leaves: { "work/made.txt": "ok\n" },
  }),
  runs("{ echo ok > made.txt; }", "a group of allowed commands", {
    leaves: { "work/made.txt": "ok\n" },
  }),
  runs('echo "$(echo ok)" > made.txt', "a substitution of an allowed command", {
    leaves: { "work/made.txt": "ok\n" },
  }),
  runs("echo `echo ok` > made.txt", "backquotes around an allowed command", {
    leaves: { "work/made.txt": "ok\n" },
  }),
  runs("echo $HOME > made.txt", "an argument may hold a variable", {
    leaves: { "work/made.txt": "{dir}/home\n" },
  }),
  runs("echo '*' > made.txt", "a quoted star is an argument", {
    leaves: { "work/made.txt": "*\n" },
  }),
  runs("echo 'a;b' \"c|d\" > made.txt", "operators inside quotes are text", {
    leaves: { "work/made.txt": "a;b c|d\n" },
  }),
  runs("echo ok > made.txt # touch pwned.txt", "a comment runs nothing", {
    leaves: { "work/made.txt": "ok\n" },
  }),
  // Quotes and a backslash go before bash looks the name up: these run the builtin echo itself.
  runs('"ec"ho ok > made.txt', "a quoted name is unquoted", {
    leaves: { "work/made.txt": "ok\n" },
  }),
  runs("\\echo ok > made.txt", "a backslash only skips aliases", {
    leaves: { "work/made.txt": "ok\n" },
  }),
  runs("$'ech\\x6f' ok > made.txt", "ANSI-C quoting is quoting", {
    leaves: { "work/made.txt": "ok\n" },
  }),
  // bash splits words on blanks, never on a carriage return: this is one echo of one word.
  runs("echo ok\rtouch pwned.txt > made.txt", "a carriage return is part of a word", {
    leaves: { "work/made.txt": "ok\rtouch pwned.txt\n" },
  }),
  runs("git status", "the exact command", { git: true, says: "On branch" }),
  runs("git  status", "a rule names words, not spacing", { git: true, says: "On branch" }),
  runs("git status > made.txt", "a redirect is not a word", {
    git: true,
    leaves: { "work/made.txt": /^On branch/ },
  }),
  runs("npm test", "the prefix itself", {
    files: NPM_PROJECT,
    leaves: { "work/ran.txt": "\n" },
  }),
  runs("npm test -- --watch=false", "words after the prefix", {
    files: NPM_PROJECT,
    leaves: { "work/ran.txt": "--watch=false\n" },
  }),
  runs("cd sub && npm test", "one cd inside needs no rule", {
    files: NPM_PROJECT,
    leaves: { "work/ran.txt": "\n" },
  }),
  runs("npm test && echo ok > made.txt", "two allowed commands", {
    files: NPM_PROJECT,
    leaves: { "work/ran.txt": "\n", "work/made.txt": "ok\n" },
  }),
];

/** Every command of the battery, in table order: those that must not run, then those that must. */
export const BATTERY_CASES: BatteryCase[] = [...MUST_NOT_RUN, ...MUST_RUN].map((c, index) => ({
  ...c,
  id: `battery-${String(index + 1).padStart(3, "0")}`,
  title: `${c.verdict}: ${JSON.stringify(c.command)}: ${c.why}`,
  ...(c.git === true
    ? { needs: "git" as const }
    : c.verdict === "runs" && c.files === NPM_PROJECT
      ? { needs: "npm" as const }
      : {}),
}));

/** The stages whose rules the battery holds to: the Day 5 stage that brings them. */
export const BATTERY_STAGES = ["day-5-v5"];

/** How many commands one run of the CLI asks for, at most. */
export const BATTERY_BATCH = 10;

export interface BatteryOptions {
  // The commands to run (default: all of them).
  cases?: BatteryCase[];
  // Commands a run asks for, at most; 1 runs each on its own.
  batchSize?: number;
  // Whether a program is there to run; a case that needs one that is not is left out.
  has?: (program: "git" | "npm") => boolean;
}

/**
 * The battery as a contract of `stage`, one scenario a command, every one deciding (`core`): a
 * check asked for the battery is asked whether every command holds. Undefined for a stage that has
 * no battery.
 */
export function batteryOf(stage: string, options: BatteryOptions = {}): Contract | undefined {
  if (!BATTERY_STAGES.includes(stage)) return undefined;
  const has = options.has ?? programFound;
  const cases = (options.cases ?? BATTERY_CASES).filter(
    (c) => c.needs === undefined || has(c.needs),
  );
  const left = (options.cases ?? BATTERY_CASES).length - cases.length;
  return {
    stage,
    title: `Day 5 v5's bypass battery: ${cases.length} commands under ${BATTERY_RULES.join(" ")}${left > 0 ? ` (${left} left out: their program is not on PATH)` : ""}`,
    scenarios: batteryScenarios(cases, options.batchSize ?? BATTERY_BATCH),
  };
}

/** The scenarios of these cases, in their order, batched `size` commands to a run at most. */
export function batteryScenarios(cases: BatteryCase[], size = BATTERY_BATCH): Scenario[] {
  const count = Math.ceil(cases.length / Math.max(1, size));
  const scenarios = new Map<BatteryCase, Scenario>();
  for (let b = 0; b < count; b++) {
    const batch = cases.filter((_, index) => index % count === b);
    const { folders, ...inputs } = batchInputs(batch);
    batch.forEach((c, position) => {
      scenarios.set(c, {
        id: c.id,
        title: c.title,
        level: "core",
        ...inputs,
        judgements: judgements(c, position, folders),
      });
    });
  }
  return cases.flatMap((c) => scenarios.get(c) ?? []);
}

type Folders = WeakMap<ScenarioContext, Record<string, FileState>[]>;

// What the scenarios of one batch share, the very same objects, so that they share one run: the
// flags, `-C <work>`, a model that asks for each command in turn and then ends, a `n` for every
// question (a command that must run is asked nothing, so a question is a no). `folders` keeps, by
// run, the folder as each command left it.
function batchInputs(batch: BatteryCase[]): Pick<Scenario, "args" | "stdin" | "env" | "server"> & {
  folders: Folders;
} {
  const folders: Folders = new WeakMap();
  return {
    folders,
    args: (context) => [
      ...BATTERY_RULES,
      "-C",
      context.work,
      "--max-steps",
      String(batch.length + 1),
      "Run the commands, one bash call each.",
    ],
    stdin: "n\n".repeat(batch.length + 1),
    env: (context) => ({
      HOME: join(context.dir, "home"),
      OLDPWD: context.dir,
      UP: "..",
      AGENT_CODE_BASH_ENV: "OLDPWD,UP",
      LC_ALL: "C",
    }),
    server: {
      steps: (context) => {
        const left: Record<string, FileState>[] = [];
        folders.set(context, left);
        const calls: Step[] = batch.map((c, position) => () => {
          if (position > 0) left.push(readFolder(context.dir));
          layOut(context, c);
          return {
            content: [
              { type: "tool_use", name: "bash", input: { command: fill(c.command, context) } },
            ],
          };
        });
        const end: Step = () => {
          left.push(readFolder(context.dir));
          return { content: [{ type: "text", text: "Done." }] };
        };
        return [...calls, end];
      },
    },
  };
}

// The scenario's folder as this command must find it, whatever the one before left: the work
// folder and the home emptied, everything else removed, then the case's files written.
function layOut(context: ScenarioContext, c: BatteryCase): void {
  for (const name of readdirSync(context.dir)) {
    const path = join(context.dir, name);
    if (path !== context.work && path !== context.home) {
      rmSync(path, { recursive: true, force: true });
      continue;
    }
    for (const inner of readdirSync(path)) {
      rmSync(join(path, inner), { recursive: true, force: true });
    }
  }
  writeFileSync(context.file, "agent-code contract scenario\n");
  writeFiles(context.dir, filesOf(c));
  // Scenario files are written without modes: the stand-in programs are made runnable here.
  for (const name of c.executable ?? []) chmodSync(join(context.work, name), 0o755);
  if (c.git === true) commitFolder(context.work);
}

function filesOf(c: Case): Record<string, FileEntry> {
  return { ...FOLDER, ...c.files };
}

// The judgements of the command at `position` of its batch.
function judgements(c: BatteryCase, position: number, folders: Folders): Judgement[] {
  const folder = (o: Observed) => folders.get(o.context)?.[position];
  const result = (o: Observed) => resultOf(o, "bash", position);
  const asked = (o: Observed) => QUESTION.test(questionOf(o, position));
  return [
    judge(
      "the run should end with exit code 0: a refused command is not a failed run",
      (o) => o.exitCode === 0,
    ),
    judge("the bash call's result should go back to the model", (o) => result(o) !== undefined),
    ...(c.verdict === "runs"
      ? ranJudgements(c, result, asked, folder)
      : refusedJudgements(c, result, asked, folder)),
  ];
}

type Result = (o: Observed) => ReturnType<typeof resultOf>;

function ranJudgements(
  c: BatteryCase,
  result: Result,
  asked: (o: Observed) => boolean,
  folder: (o: Observed) => Record<string, FileState> | undefined,
): Judgement[] {
  return [
    judge(
      `every part of \`${c.command}\` is allowed: no question should be asked`,
      (o) => !asked(o),
    ),
    judge(
      "the command should run, and its result is not an error",
      (o) => result(o) !== undefined && result(o)?.isError !== true,
    ),
    ...Object.entries(c.leaves ?? {}).map(([path, text]) =>
      judge(`the command should leave \`${path}\` holding ${shown(text)}`, (o) => {
        const state = folder(o)?.[path];
        if (typeof state !== "string") return false;
        return typeof text === "string" ? state === fill(text, o.context) : text.test(state);
      }),
    ),
    ...(c.says === undefined
      ? []
      : [
          judge(`the result should hold ${JSON.stringify(c.says)}`, (o) =>
            (result(o)?.text ?? "").includes(c.says ?? ""),
          ),
        ]),
  ];
}

function refusedJudgements(
  c: BatteryCase,
  result: Result,
  asked: (o: Observed) => boolean,
  folder: (o: Observed) => Record<string, FileState> | undefined,
): Judgement[] {
  const text = (o: Observed) => result(o)?.text ?? "";
  const ruleDenied = (o: Observed) => !asked(o) && text(o).startsWith("denied by the rule ");
  const guarded = (o: Observed) => !asked(o) && text(o).startsWith("blocked: ");
  const rejected = (o: Observed) => asked(o) && text(o) === REJECTED;
  const verdict = {
    asks: judge(`\`${c.command}\` should be asked about, and the \`n\` refuse it`, rejected),
    denied: judge(
      `\`${c.command}\` should be refused unasked with \`denied by the rule ${c.rule} in --deny: …\``,
      (o) => !asked(o) && text(o).startsWith(`denied by the rule ${c.rule} in --deny: `),
    ),
    blocked: judge(`\`${c.command}\` should be refused unasked by a guard`, guarded),
    refused: judge(
      `\`${c.command}\` should be asked about or denied by a rule`,
      (o) => rejected(o) || ruleDenied(o),
    ),
  }[c.verdict as Exclude<BatteryVerdict, "runs">];
  return [
    verdict,
    judge("a refused command's result should be an error", (o) => result(o)?.isError === true),
    judge("nothing may run: the folder should be left as it was", (o) => {
      const left = folder(o);
      return left !== undefined && untouched(left, filesOf(c), c.git === true);
    }),
  ];
}

// Every file the case wrote is still there as written, and nothing else appeared: no marker
// inside, outside, in home or behind a link. A git case's repository changes under git's hands.
function untouched(
  left: Record<string, FileState>,
  files: Record<string, FileEntry>,
  git: boolean,
): boolean {
  for (const [path, entry] of Object.entries(files)) {
    if (JSON.stringify(left[path]) !== JSON.stringify(entry)) return false;
  }
  return Object.keys(left).every(
    (path) =>
      path in files ||
      path === "not-a-directory.txt" ||
      (git && (path === "work/.git" || path.startsWith("work/.git/"))),
  );
}

// What stdout holds for the bash call at `position`: from its `tool_call:` line to the next one.
// Its question, if it was asked one, is there.
function questionOf(o: Observed, position: number): string {
  const starts = [...o.stdout.matchAll(/^tool_call: bash\b/gm)].map((match) => match.index);
  const start = starts[position];
  if (start === undefined) return "";
  return o.stdout.slice(start, starts[position + 1] ?? o.stdout.length);
}

function shown(text: string | RegExp): string {
  return typeof text === "string" ? JSON.stringify(text) : String(text);
}

function judge(message: string, check: (o: Observed) => boolean): Judgement {
  return { docs: DOCS, message, check };
}

function fill(text: string, context: ScenarioContext): string {
  return text
    .replaceAll("{dir-from-root}", context.dir.slice(1))
    .replaceAll("{dir}", context.dir)
    .replaceAll("{work}", context.work);
}

const found = new Map<string, boolean>();

// Whether `program --version` runs here (asked once a program).
function programFound(program: string): boolean {
  let there = found.get(program);
  if (there === undefined) {
    try {
      execFileSync(program, ["--version"], { stdio: "ignore", timeout: 10_000 });
      there = true;
    } catch {
      there = false;
    }
    found.set(program, there);
  }
  return there;
}

// decide() with the person's rules: guards > deny > plan > ask > allow > the mode. Each table is
// what one rule must catch and what it must leave alone; the folder below holds the symlinks a
// redirect or a path could go through.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${…}` here is shell text, not a template
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import {
  type Decision,
  decide,
  deniedOutright,
  hiddenBy,
  PERMISSION_MODES,
  type PermissionMode,
} from "../src/permissions.ts";
import { parseRule, type Rules } from "../src/settings.ts";
import { defaultTools } from "../src/tools/index.ts";

const tools = defaultTools();
const TOOL_NAMES = tools.list().map((tool) => tool.name);
const LINKS = process.platform !== "win32";

const base = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-code-rules-")));
const work = path.join(base, "work");
afterAll(() => rmSync(base, { recursive: true, force: true }));

function put(rel: string, text = "x\n"): void {
  mkdirSync(path.dirname(path.join(base, rel)), { recursive: true });
  writeFileSync(path.join(base, rel), text);
}

put("outside/taken.txt");
put("work/.env", "TOKEN=secret\n");
put("work/sub/real.txt");
put("work/src/a.ts");
if (LINKS) {
  // A name that says nothing about where it leads: notes.txt is the .env.
  symlinkSync(path.join(work, ".env"), path.join(work, "notes.txt"));
  symlinkSync(path.join(base, "outside/taken.txt"), path.join(work, "out-link.txt"));
  symlinkSync(path.join(base, "outside/gone.txt"), path.join(work, "gone-link.txt"));
  symlinkSync(path.join(work, "sub/real.txt"), path.join(work, "in-link.txt"));
  symlinkSync(path.join(base, "outside"), path.join(work, "outdir"));
  symlinkSync(path.join(work, "sub"), path.join(work, "subdir-link"));
}
put("work/.git/config", "[core]\n");
put("work/docs/a.md");
if (LINKS) {
  // Folders in src/ that lead out of it, committed by a hostile repository: into .git and docs/.
  symlinkSync(path.join(work, ".git"), path.join(work, "src/g"));
  symlinkSync(path.join(work, "docs"), path.join(work, "src/d"));
}

interface RuleTexts {
  allow?: string[];
  ask?: string[];
  deny?: string[];
}

// Allow and deny rules as the flags give them; ask rules only come from a file.
function rules({ allow = [], ask = [], deny = [] }: RuleTexts): Rules {
  return {
    allow: allow.map((text) => parseRule(text, "--allow", TOOL_NAMES)),
    ask: ask.map((text) => parseRule(text, ".agent/settings.json", TOOL_NAMES)),
    deny: deny.map((text) => parseRule(text, "--deny", TOOL_NAMES)),
  };
}

function call(
  name: string,
  args: Record<string, unknown>,
  given: RuleTexts,
  mode: PermissionMode = "default",
): Decision {
  return decide({ tool: tools.get(name), args, mode, cwd: work, rules: rules(given) });
}

function bash(command: string, given: RuleTexts, mode: PermissionMode = "default"): Decision {
  return call("bash", { command }, given, mode);
}

// The question a command gets: with `needs` lines when there is something to say.
function asks(needs: string[] | undefined): Decision {
  return needs === undefined ? { behavior: "ask" } : { behavior: "ask", needs };
}

function denied(reason: string): Decision {
  return { behavior: "deny", reason };
}

const ALLOW = ["Bash(echo:*)", "Bash(git status)", "Bash(npm test:*)"];

describe("a Bash deny rule finds its command wherever the shell would run it", () => {
  test.each([
    ["rm x", "rm x"],
    ["/bin/rm x", "/bin/rm x"],
    ["./rm x", "./rm x"],
    ["RM x", "RM x"],
    ["env rm x", "env rm x"],
    ["command rm x", "command rm x"],
    ["exec rm x", "exec rm x"],
    ["nohup rm x", "nohup rm x"],
    ["nice -n 5 rm x", "nice -n 5 rm x"],
    ["time rm x", "time rm x"],
    ["timeout 5 rm x", "timeout 5 rm x"],
    ["find . | xargs rm", "xargs rm"],
    ["sh -c 'rm x'", "sh -c 'rm x'"],
    ['bash -c "echo a; rm x"', 'bash -c "echo a; rm x"'],
    ["echo $(rm x)", "rm x"],
    ['echo "$(rm x)"', "rm x"],
    ["echo `rm x`", "rm x"],
    ["cat <(rm x)", "rm x"],
    ["(rm x)", "rm x"],
    ["{ rm x; }", "rm x"],
    ["echo a | rm x", "rm x"],
    ["echo a && rm x", "rm x"],
    ["echo a; rm x", "rm x"],
    ["A=1 rm x", "A=1 rm x"],
    ["if true; then rm x; fi", "rm x"],
  ])("%j: denied, naming %j", (command, part) => {
    expect(bash(command, { allow: ["Bash"], deny: ["Bash(rm:*)"] })).toEqual(
      denied(`denied by the rule Bash(rm:*) in --deny: ${part}`),
    );
  });

  test.each(["echo rm x", "rmdir x", "git rm x", "grep -r rm .", "echo 'rm x'"])(
    "%j: another command, not denied",
    (command) => {
      expect(bash(command, { deny: ["Bash(rm:*)"] }).behavior).toBe("ask");
    },
  );

  test("the message names the rule, where it was written, and the part it matched", () => {
    expect(bash("echo a && touch x", { deny: ["Bash(touch:*)"] })).toEqual(
      denied("denied by the rule Bash(touch:*) in --deny: touch x"),
    );
  });

  test("a word the shell will still change may be any word to a deny rule", () => {
    const deny = { deny: ["Bash(git commit:*)"] };
    expect(bash("git $(echo commit) -m x", deny).behavior).toBe("deny");
    expect(bash("git $SUB -m x", deny).behavior).toBe("deny");
    expect(bash("git log", deny).behavior).toBe("ask");
  });

  test("an exact deny rule matches the command with exactly its words", () => {
    const deny = { deny: ["Bash(git status)"] };
    expect(bash("git status", deny).behavior).toBe("deny");
    expect(bash("git status -s", deny).behavior).toBe("ask");
  });

  test.each(PERMISSION_MODES)("in %s mode a deny beats every allow rule", (mode) => {
    expect(
      bash("touch x", { allow: ["Bash", "Bash(touch:*)"], deny: ["Bash(touch:*)"] }, mode),
    ).toEqual(denied("denied by the rule Bash(touch:*) in --deny: touch x"));
  });

  test("a guard still comes first, in its own words", () => {
    expect(bash("rm -rf x", { deny: ["Bash(rm:*)"] })).toEqual(
      denied(
        'blocked: rm -rf deletes without asking (in "rm -rf x"); agent-code never runs this; ask the user to run it if it is needed',
      ),
    );
  });
});

// The forms a hostile model used to run a denied command in bypassPermissions (issue #56): the
// reader now reads them, or, where it cannot read a line through, the rule finds its words there.
describe("a Bash deny rule holds whatever the reader could not read", () => {
  test.each([
    `echo "\${x:-'$(rm victim)'}"`,
    ": ${x:='a[$(rm victim)]'}; echo ${HOME:x}",
    ": ${x:='a[$(rm victim)]'}; echo $[x]",
    ": ${x:='a[$(rm victim)]'}; echo ${a[x]}",
    ": ${x:='a[$(rm victim)]'}; echo ${!x}",
    ": ${x:='a[$(rm victim)]'}; echo ${x@P}",
    "env -S 'rm victim'",
    "env --unset FOO rm victim",
    "xargs --max-args 1 rm",
    "nice --adjustment 5 rm victim",
    "time -f %e rm victim",
    "setsid rm victim",
    "stdbuf -o L rm victim",
    "ionice -c 3 rm victim",
    "chrt -o 0 rm victim",
    "taskset 0x1 rm victim",
    "flock lk rm victim",
    "flock lk -c 'rm victim'",
    "nice --frob 5 rm victim",
    "cat <<EOF\nhi\nEOF\nrm victim",
    "case a in a) ;; esac; rm victim",
    `echo ${"$(".repeat(52)}rm victim${")".repeat(52)}`,
    `${"env ".repeat(55)}rm victim`,
    "eval 'r\"\"m victim'",
  ])("%j", (command) => {
    for (const mode of PERMISSION_MODES) {
      const decision = bash(command, { allow: ["Bash"], deny: ["Bash(rm:*)"] }, mode);
      expect(decision).toMatchObject({ behavior: "deny" });
      expect(decision).toHaveProperty(
        "reason",
        expect.stringMatching(/^denied by the rule Bash\(rm:\*\) in --deny: .*\brm\b/),
      );
    }
  });

  test("in a line it cannot read through, the rule's words are found in order, loosely", () => {
    const deny = { deny: ["Bash(git commit:*)"] };
    expect(bash("eval 'git -C . commit -m x'", deny)).toEqual(
      denied("denied by the rule Bash(git commit:*) in --deny: git -C . commit"),
    );
    expect(bash("eval 'git log; echo commit'", deny)).toEqual(
      denied("denied by the rule Bash(git commit:*) in --deny: git log echo commit"),
    );
    expect(bash("eval 'git log'", deny).behavior).toBe("ask");
  });
});

describe("order: deny, then plan mode, then ask, then allow", () => {
  test("in plan mode a deny rule still gives its own reason", () => {
    expect(bash("rm x", { deny: ["Bash(rm:*)"] }, "plan")).toEqual(
      denied("denied by the rule Bash(rm:*) in --deny: rm x"),
    );
    expect(call("read_file", { path: ".env" }, { deny: ["Read(.env)"] }, "plan")).toEqual(
      denied("denied by the rule Read(.env) in --deny: .env"),
    );
  });

  test("in plan mode an allow rule does not let a command or an edit run", () => {
    expect(bash("echo hi", { allow: ALLOW }, "plan")).toEqual(
      denied("plan mode: bash is not allowed; only read-only tools run in plan mode"),
    );
    expect(call("file_write", { file_path: "src/a.ts" }, { allow: ["Edit"] }, "plan")).toEqual(
      denied("plan mode: file_write is not allowed; only read-only tools run in plan mode"),
    );
  });

  test.each(["default", "acceptEdits", "bypassPermissions"] as const)(
    "in %s mode an ask rule beats the allow rules",
    (mode) => {
      const given = { allow: ["Bash", "Bash(git:*)"], ask: ["Bash(git commit:*)"] };
      expect(bash("git add . && git commit -m x", given, mode)).toEqual(
        asks([
          "  needs approval: git commit -m x (an ask rule: Bash(git commit:*) in .agent/settings.json)",
        ]),
      );
      expect(bash("git log", given, mode)).toEqual({ behavior: "allow" });
    },
  );

  test("an ask rule asks about a web fetch in bypassPermissions and an edit in acceptEdits", () => {
    const fetch = { url: "https://example.com/" };
    expect(
      call("web_fetch", fetch, { ask: ["WebFetch(domain:example.com)"] }, "bypassPermissions"),
    ).toEqual({ behavior: "ask" });
    expect(
      call("file_write", { file_path: "src/a.ts" }, { ask: ["Edit(src/**)"] }, "acceptEdits"),
    ).toEqual({ behavior: "ask" });
  });

  test("an ask rule asks about a tool that only reads, in plan mode too", () => {
    const given = { ask: ["Read(sub/**)"] };
    expect(call("read_file", { path: "sub/real.txt" }, given)).toEqual({ behavior: "ask" });
    expect(call("read_file", { path: "src/a.ts" }, given)).toEqual({ behavior: "allow" });
    // Plan mode refuses what changes things; what it lets run still meets the ask rules.
    expect(call("read_file", { path: "sub/real.txt" }, given, "plan")).toEqual({ behavior: "ask" });
    expect(call("read_file", { path: "src/a.ts" }, given, "plan")).toEqual({ behavior: "allow" });
  });
});

describe("an allow rule lets a command run only when every part is allowed", () => {
  test.each([
    "echo hi",
    "echo",
    '"echo" hi',
    "npm test",
    "npm test -- --watch",
    "git status",
    "npm test; echo done",
    "echo a | echo b",
    "echo a && git status",
    "echo $(echo nested)",
    "echo hi > /dev/null",
    "echo hi 2>&1",
    "echo hi >&2",
    "echo hi 2>/dev/null",
    "echo hi > out.txt",
    "echo hi > ./sub/out.txt",
    "echo hi >> sub/out.txt",
    "echo hi 2> sub/err.txt",
    "echo hi &> out.txt",
    "echo hi >| out.txt",
    "echo hi > sub/../out.txt",
    "echo hi < .env",
    "cd sub && echo hi",
    "cd ./sub && npm test",
    "cd sub && echo hi 2>&1",
    "pushd sub && echo hi",
  ])("%j runs", (command) => {
    expect(bash(command, { allow: ALLOW })).toEqual({ behavior: "allow" });
  });

  test("a redirect to an absolute path inside the folder runs", () => {
    expect(bash(`echo hi > ${path.join(work, "out.txt")}`, { allow: ALLOW })).toEqual({
      behavior: "allow",
    });
  });

  test.each([
    // No rule allows it, and there is nothing more to say: the question has no `needs` lines.
    ["./echo hi", undefined],
    ["/bin/echo hi", undefined],
    ["env echo hi", undefined],
    ["command echo hi", undefined],
    ["ECHO hi", undefined],
    ["npm tester", undefined],
    ["npm", undefined],
    ["npm run test", undefined],
    ["git status -s", undefined],
    ["git", undefined],
    ["cd sub", undefined],
    // Several parts: the ones without a rule.
    ["echo hi && node scripts/clean.js", ["  needs approval: node scripts/clean.js"]],
    ["npm test | tee log.txt", ["  needs approval: tee log.txt"]],
    ["echo $(whoami)", ["  needs approval: whoami"]],
    ["touch a; touch b", ["  needs approval: touch a", "  needs approval: touch b"]],
    // Something set before the command changes what it runs: `PATH=. npm test` runs ./npm.
    ["X=1 echo hi", ["  needs approval: X=1 echo hi (sets a variable)"]],
    ["PATH=. npm test", ["  needs approval: PATH=. npm test (sets a variable)"]],
    ["X=1", ["  needs approval: X=1 (sets a variable)"]],
    ["echo hi; X=$(echo 1)", ["  needs approval: X=$(echo 1) (sets a variable)"]],
    // Writes that stay, somewhere else or where a tool reads its settings.
    [
      "echo ok > ../out.txt",
      ["  needs approval: echo ok > ../out.txt (writes outside the folder)"],
    ],
    [
      "echo ok 2> /tmp/err.txt",
      ["  needs approval: echo ok 2> /tmp/err.txt (writes outside the folder)"],
    ],
    ["echo ok >> ~/log", ["  needs approval: echo ok >> ~/log (writes outside the folder)"]],
    ["echo ok > $OUT", ["  needs approval: echo ok > $OUT (writes outside the folder)"]],
    ["echo ok > .env", ["  needs approval: echo ok > .env (writes to a dot-file)"]],
    [
      "echo ok > .git/hooks/pre-commit",
      ["  needs approval: echo ok > .git/hooks/pre-commit (writes to a dot-file)"],
    ],
    [
      "echo {} > .agent/settings.json",
      ["  needs approval: echo {} > .agent/settings.json (writes to a dot-file)"],
    ],
    ["echo ok >> sub/.bashrc", ["  needs approval: echo ok >> sub/.bashrc (writes to a dot-file)"]],
    // One cd inside the folder needs no rule; anything more is asked about.
    ["cd", ["  needs approval: cd (leaves the folder)"]],
    ["cd .. && echo hi", ["  needs approval: cd .. (leaves the folder)"]],
    ["cd ~ && echo hi", ["  needs approval: cd ~ (leaves the folder)"]],
    ["cd $DIR && echo hi", ["  needs approval: cd $DIR (leaves the folder)"]],
    ["cd /tmp && echo hi", ["  needs approval: cd /tmp (leaves the folder)"]],
    // `cd -` goes to $OLDPWD, which a fresh shell takes from the environment.
    ["cd - && echo hi", ["  needs approval: cd - (leaves the folder)"]],
    ["cd sub && echo hi > o.txt", ["  needs approval: echo hi > o.txt (writes after a cd)"]],
    [
      "cd sub && cd .. && echo hi",
      ["  needs approval: cd sub (more than one cd)", "  needs approval: cd .. (more than one cd)"],
    ],
  ])("%j asks", (command, needs) => {
    expect(bash(command, { allow: ALLOW })).toEqual(asks(needs));
  });

  test.each([
    ["eval 'echo hi'", "eval"],
    [`echo "\${x:-'$(a)'}"`, "a parameter operator inside double quotes"],
    ["$CMD hi", "an expansion as the command name"],
  ])(
    "%j: what the reader cannot read is asked, even with Bash allowed and in bypass",
    (command, reason) => {
      const needs = asks([`  needs approval: the whole command (${reason})`]);
      expect(bash(command, { allow: ["Bash"] })).toEqual(needs);
      expect(bash(command, { allow: ["Bash"] }, "bypassPermissions")).toEqual(needs);
    },
  );

  test("a substitution in a quoted ${…}, whose single quotes are text there, is asked about", () => {
    expect(bash(`echo "\${x:-'$(touch pw)'}"`, { allow: ["Bash(echo:*)"] })).toEqual(
      asks([
        "  needs approval: touch pw",
        "  needs approval: the whole command (a parameter operator inside double quotes)",
      ]),
    );
  });

  test("a here-document is read: text runs under the rule, a substitution in it needs its own", () => {
    const allow = { allow: ["Bash(cat:*)"] };
    expect(bash("cat <<EOF\nhi\nEOF\n", allow)).toEqual({ behavior: "allow" });
    expect(bash("cat <<EOF\n$(touch x)\nEOF\n", allow)).toEqual(
      asks(["  needs approval: touch x"]),
    );
    expect(bash("cat <<'EOF'\n$(touch x)\nEOF\n", allow)).toEqual({ behavior: "allow" });
  });

  test("a bare Bash rule allows any readable command, still not a write out", () => {
    expect(bash("node scripts/build.js && make", { allow: ["Bash"] })).toEqual({
      behavior: "allow",
    });
    expect(bash("make > ../log", { allow: ["Bash(*)"] })).toEqual(
      asks(["  needs approval: make > ../log (writes outside the folder)"]),
    );
  });
});

describe.skipIf(!LINKS)("a write or a cd through a symlink is asked about", () => {
  test.each([
    ["echo hi > out-link.txt", "echo hi > out-link.txt (writes outside the folder)"],
    ["echo hi > in-link.txt", "echo hi > in-link.txt (writes through a symlink)"],
    // Its target is not there yet: the write would create ../outside/gone.txt.
    ["echo hi > gone-link.txt", "echo hi > gone-link.txt (writes through a symlink)"],
    ["echo hi > outdir/x.txt", "echo hi > outdir/x.txt (writes outside the folder)"],
    ["echo hi > subdir-link/x.txt", "echo hi > subdir-link/x.txt (writes through a symlink)"],
    ["cd outdir && echo hi", "cd outdir (leaves the folder)"],
  ])("%j", (command, need) => {
    expect(bash(command, { allow: ALLOW })).toEqual(asks([`  needs approval: ${need}`]));
  });

  test("a cd into a folder that is a symlink to one inside is fine", () => {
    expect(bash("cd subdir-link && echo hi", { allow: ALLOW })).toEqual({ behavior: "allow" });
  });
});

// Holes found while these tests were written, fixed since: each guards its fix.
describe("holes found and closed", () => {
  test("`command cd ..` is a cd: a write after it is asked about", () => {
    // With every command allowed, this writes ../x.
    expect(bash("command cd .. && echo hi > x", { allow: ["Bash"] }).behavior).toBe("ask");
  });

  test.skipIf(!LINKS)("an Edit deny covers a new file written through a symlinked folder", () => {
    // subdir-link is sub: in acceptEdits, file_write creates sub/new.txt.
    const args = { file_path: "subdir-link/new.txt" };
    expect(call("file_write", args, { deny: ["Edit(sub/**)"] }, "acceptEdits").behavior).toBe(
      "deny",
    );
  });
});

describe("Read and Edit rules match the path a file tool was given, and where it leads", () => {
  test.each([
    ["read_file", { path: ".env" }, ".env"],
    ["read_file", { path: "./.env" }, "./.env"],
    ["read_file", { path: "sub/../.env" }, "sub/../.env"],
    ["grep", { pattern: "TOKEN", path: ".env" }, ".env"],
  ])("%s %j is denied", (name, args, part) => {
    expect(call(name, args, { deny: ["Read(.env)"] })).toEqual(
      denied(`denied by the rule Read(.env) in --deny: ${part}`),
    );
  });

  test.skipIf(!LINKS)("a symlink with an innocent name that leads to .env is denied", () => {
    expect(call("read_file", { path: "notes.txt" }, { deny: ["Read(.env)"] })).toEqual(
      denied("denied by the rule Read(.env) in --deny: notes.txt"),
    );
  });

  test.skipIf(!LINKS)("an Edit deny covers an existing file reached through a symlink", () => {
    expect(call("file_write", { file_path: "notes.txt" }, { deny: ["Edit(.env)"] })).toEqual(
      denied("denied by the rule Edit(.env) in --deny: notes.txt"),
    );
    expect(
      call("file_edit", { file_path: "subdir-link/real.txt" }, { deny: ["Edit(sub/**)"] }),
    ).toEqual(denied("denied by the rule Edit(sub/**) in --deny: subdir-link/real.txt"));
  });

  test("Read(.env) names the one in the folder; Read(**/.env) any", () => {
    const args = { path: "sub/.env" };
    expect(call("read_file", args, { deny: ["Read(.env)"] })).toEqual({ behavior: "allow" });
    expect(call("read_file", args, { deny: ["Read(**/.env)"] })).toEqual(
      denied("denied by the rule Read(**/.env) in --deny: sub/.env"),
    );
  });

  test("Read(folder/**) covers the folder itself for the tools that walk it", () => {
    const deny = { deny: ["Read(secrets/**)"] };
    expect(call("glob", { pattern: "*", path: "secrets" }, deny)).toEqual(
      denied("denied by the rule Read(secrets/**) in --deny: secrets"),
    );
    expect(call("project_tree", {}, deny)).toEqual({ behavior: "allow" });
  });

  test("a bare Read deny refuses every reading tool, naming no path", () => {
    for (const name of ["read_file", "list_files", "glob", "grep", "project_tree"]) {
      expect(call(name, { pattern: "x" }, { deny: ["Read"] })).toEqual(
        denied("denied by the rule Read in --deny"),
      );
    }
  });

  test("a Read rule is not an Edit rule, nor the other way round", () => {
    expect(call("file_write", { file_path: ".env" }, { deny: ["Read(.env)"] })).toEqual({
      behavior: "ask",
    });
    expect(call("read_file", { path: ".env" }, { deny: ["Edit(.env)"] })).toEqual({
      behavior: "allow",
    });
  });

  test.each(PERMISSION_MODES)(
    "in %s mode an Edit deny refuses file_write and file_edit",
    (mode) => {
      const deny = { deny: ["Edit(.agent/**)"] };
      const reason = denied("denied by the rule Edit(.agent/**) in --deny: .agent/settings.json");
      expect(call("file_write", { file_path: ".agent/settings.json" }, deny, mode)).toEqual(reason);
      expect(call("file_edit", { file_path: ".agent/settings.json" }, deny, mode)).toEqual(reason);
    },
  );

  test("an Edit allow rule lets edits it covers run without the question", () => {
    const allow = { allow: ["Edit(src/**)"] };
    expect(call("file_write", { file_path: "src/b.ts" }, allow)).toEqual({ behavior: "allow" });
    expect(call("file_edit", { file_path: "src/a.ts" }, allow)).toEqual({ behavior: "allow" });
    expect(call("file_write", { file_path: "docs/a.md" }, allow)).toEqual({ behavior: "ask" });
  });
});

describe("WebFetch rules name a host; WebSearch and our tools' names are bare", () => {
  test.each([
    ["https://internal.example.com/a", "internal.example.com"],
    ["https://INTERNAL.Example.COM./a", "internal.example.com"],
    ["http://internal.example.com:8080", "internal.example.com"],
  ])("WebFetch(domain:internal.example.com) denies %s", (url, host) => {
    expect(call("web_fetch", { url }, { deny: ["WebFetch(domain:internal.example.com)"] })).toEqual(
      denied(`denied by the rule WebFetch(domain:internal.example.com) in --deny: ${host}`),
    );
  });

  test.each([
    ["https://internal.example.com/", true],
    ["https://example.com/", false],
    ["https://a.internal.example.com/", false],
    ["https://internal.example.com.evil.test/", false],
  ])("an exact domain: %s denied %s", (url, wanted) => {
    const decision = call(
      "web_fetch",
      { url },
      { deny: ["WebFetch(domain:internal.example.com)"] },
    );
    expect(decision.behavior === "deny").toBe(wanted);
  });

  test.each([
    ["https://a.example.com/", true],
    ["https://a.b.example.com/", true],
    ["https://example.com/", false],
    ["https://badexample.com/", false],
    ["https://example.com.evil.test/", false],
  ])("*.example.com: %s denied %s", (url, wanted) => {
    const decision = call("web_fetch", { url }, { deny: ["WebFetch(domain:*.example.com)"] });
    expect(decision.behavior === "deny").toBe(wanted);
  });

  test("a WebFetch allow rule fetches from its host without the question; a rule's host is lower-cased", () => {
    const allow = { allow: ["WebFetch(domain:Docs.Example.com)"] };
    expect(call("web_fetch", { url: "https://docs.example.com/x" }, allow)).toEqual({
      behavior: "allow",
    });
    expect(call("web_fetch", { url: "https://example.com/x" }, allow)).toEqual({ behavior: "ask" });
  });

  test.each(PERMISSION_MODES.filter((mode) => mode !== "plan"))(
    "in %s mode a bare WebSearch deny refuses every search",
    (mode) => {
      expect(call("web_search", { query: "x" }, { deny: ["WebSearch"] }, mode)).toEqual(
        denied("denied by the rule WebSearch in --deny"),
      );
    },
  );

  test("our own tool names work bare, as allow and as deny rules", () => {
    expect(call("git_status", {}, { deny: ["git_status"] })).toEqual(
      denied("denied by the rule git_status in --deny"),
    );
    expect(call("web_fetch", { url: "https://x.test/" }, { allow: ["web_fetch"] })).toEqual({
      behavior: "allow",
    });
  });
});

describe("what a deny takes away before any call", () => {
  test.each([
    [["Bash"], ["bash"]],
    [["Bash(*)"], ["bash"]],
    [["bash"], ["bash"]],
    [["Bash(rm:*)"], []],
    [
      ["Read"],
      ["read_file", "list_files", "glob", "grep", "project_tree", "git_status", "git_diff"],
    ],
    [["Read(.env)"], []],
    [["Edit"], ["file_write", "file_edit"]],
    [["WebSearch"], ["web_search"]],
    [["WebFetch(domain:example.com)"], []],
    [
      ["git_status", "kill_shell"],
      ["git_status", "kill_shell"],
    ],
  ])("deny %j: the tools not offered are %j", (deny, wanted) => {
    const given = rules({ deny });
    expect(TOOL_NAMES.filter((name) => deniedOutright(name, given))).toEqual(wanted);
  });

  test("an allow or ask rule takes nothing away", () => {
    const given = rules({ allow: ["Bash"], ask: ["WebSearch"] });
    expect(TOOL_NAMES.filter((name) => deniedOutright(name, given))).toEqual([]);
  });

  test.each([
    [{ deny: ["Read"] }],
    [{ deny: ["Edit(.env)"] }],
    [{ allow: ["Read(.env)"] }],
    [{ ask: ["Read(.env)"] }],
  ])("%j hides nothing from the walk", (given) => {
    expect(hiddenBy(rules(given))).toBeUndefined();
  });

  test("a Read(glob) deny hides the paths it names, by their cwd-relative path", () => {
    const hidden = hiddenBy(rules({ deny: ["Read(.env)", "Read(secrets/**)", "Bash"] }));
    const paths = [".env", "sub/.env", "secrets", "secrets/key.pem", "secrets2", "notes.txt"];
    expect(paths.filter((p) => hidden?.(p) === true)).toEqual([
      ".env",
      "secrets",
      "secrets/key.pem",
    ]);
  });
});

describe("a path rule meets where a path leads, and no rule or mode opens a protected path", () => {
  const GIT_CONFIG = "  needs approval: .git/config (a protected path: git runs what it holds)";

  test.skipIf(!LINKS)(
    "with Edit(src/**) allowed, src/g -> ../.git is asked about as .git/config",
    () => {
      for (const mode of ["default", "acceptEdits", "bypassPermissions"] as const) {
        const given = { allow: ["Edit(src/**)"] };
        expect(call("file_write", { file_path: "src/g/config" }, given, mode)).toEqual(
          asks([GIT_CONFIG]),
        );
      }
    },
  );

  test.skipIf(!LINKS)("an allow rule must match the path as given and where it leads", () => {
    const allow = { allow: ["Edit(src/**)"] };
    expect(call("file_write", { file_path: "src/d/a.md" }, allow)).toEqual({ behavior: "ask" });
    expect(call("file_write", { file_path: "src/a.ts" }, allow)).toEqual({ behavior: "allow" });
  });

  test.each(["acceptEdits", "bypassPermissions"] as const)(
    "in %s mode .git/config and .agent/settings.json are asked about, whatever allow rule there is",
    (mode) => {
      for (const allow of [["Edit"], ["Edit(**)"], ["Edit(.git/**)", "Edit(.agent/**)"]]) {
        expect(call("file_write", { file_path: ".git/config" }, { allow }, mode)).toEqual(
          asks([GIT_CONFIG]),
        );
        expect(call("file_edit", { file_path: ".agent/settings.json" }, { allow }, mode)).toEqual(
          asks([
            "  needs approval: .agent/settings.json (a protected path: the project's settings and hooks)",
          ]),
        );
        expect(call("file_write", { file_path: ".git/config" }, { allow }, "plan").behavior).toBe(
          "deny",
        );
      }
    },
  );

  test("the user's settings file is protected wherever AGENT_CODE_HOME puts it, and so is ~/.agent-code", () => {
    const write = (file_path: string, mode: PermissionMode) =>
      decide({
        tool: tools.get("file_write"),
        args: { file_path },
        mode,
        cwd: work,
        rules: rules({ allow: ["Edit"] }),
        home: path.join(work, "conf"),
      });
    expect(write("conf/settings.json", "bypassPermissions")).toEqual(
      asks(["  needs approval: conf/settings.json (a protected path: the user's settings)"]),
    );
    expect(write(".agent-code/settings.json", "acceptEdits")).toEqual(
      asks(["  needs approval: .agent-code/settings.json (a protected path: the user's settings)"]),
    );
    expect(write("conf/other.json", "acceptEdits")).toEqual({ behavior: "allow" });
  });

  test.skipIf(!LINKS)(
    "a deny rule on the real folder behind a symlink refuses the name given",
    () => {
      expect(call("read_file", { path: "subdir-link/real.txt" }, { deny: ["Read(sub)"] })).toEqual(
        denied("denied by the rule Read(sub) in --deny: subdir-link/real.txt"),
      );
      expect(
        call("file_write", { file_path: "subdir-link/new.txt" }, { deny: ["Edit(sub)"] }),
      ).toEqual(denied("denied by the rule Edit(sub) in --deny: subdir-link/new.txt"));
    },
  );

  test("a deny or an ask on a folder covers what is in it, for every tool; an allow does not", () => {
    const deny = { deny: ["Read(secrets)"] };
    for (const [name, args] of [
      ["read_file", { path: "secrets/key.pem" }],
      ["list_files", { path: "secrets/old" }],
      ["grep", { pattern: "x", path: "secrets/old" }],
    ] as const) {
      expect(call(name, args, deny)).toEqual(
        denied(`denied by the rule Read(secrets) in --deny: ${args.path}`),
      );
    }
    expect(call("read_file", { path: "sub/real.txt" }, { ask: ["Read(sub)"] })).toEqual({
      behavior: "ask",
    });
    expect(call("file_write", { file_path: "src/b.ts" }, { allow: ["Edit(src)"] })).toEqual({
      behavior: "ask",
    });
  });

  test("git_status and git_diff are Read tools: a bare deny refuses them, a Read ask asks", () => {
    for (const name of ["git_status", "git_diff"]) {
      expect(call(name, {}, { deny: ["Read"] })).toEqual(
        denied("denied by the rule Read in --deny"),
      );
      expect(call(name, {}, { ask: ["Read(secrets/**)"] })).toEqual({ behavior: "ask" });
      // A Read deny with a pattern leaves what it names out of their answers instead (hiddenBy).
      expect(call(name, {}, { deny: ["Read(secrets/**)"] })).toEqual({ behavior: "allow" });
    }
  });
});

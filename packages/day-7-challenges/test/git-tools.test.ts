// git_status and git_diff in a repository that names programs for git to run: its config and
// .gitattributes are the repository's, so nothing they name may run without a question.
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { commitFolder, reply, ScriptedProvider, text, toolUse } from "@agent-code/test-kit";
import { afterEach, expect, test } from "vitest";
import { runAgent } from "../src/agent.ts";
import { NO_UI } from "../src/diff-ui.ts";
import { ReadState } from "../src/fs-safety.ts";
import { parseRule } from "../src/settings.ts";
import { defaultTools, type ToolContext } from "../src/tools/index.ts";

const posix = process.platform !== "win32";
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

// A repository in `<folder>/repo` with one commit of `files`, then `config` added to its
// .git/config. `<hook> <what>` is a program that leaves `<folder>/ran-<what>` behind and copies its
// input to its output, as a filter would.
function repository(files: Record<string, string>, config: (hook: string) => string) {
  const folder = realpathSync(mkdtempSync(join(tmpdir(), "agent-code-git-")));
  folders.push(folder);
  const hook = join(folder, "hook");
  writeFileSync(hook, '#!/bin/sh\ntouch "$(dirname "$0")/ran-$1"\ncat\n', { mode: 0o755 });
  const cwd = join(folder, "repo");
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(cwd, name)), { recursive: true });
    writeFileSync(join(cwd, name), content);
  }
  commitFolder(cwd);
  appendFileSync(join(cwd, ".git", "config"), config(hook));
  const ctx: ToolContext = {
    cwd,
    readState: new ReadState(),
    signal: new AbortController().signal,
    ui: NO_UI,
  };
  const ran = () => readdirSync(folder).filter((name) => name.startsWith("ran-"));
  return { cwd, ctx, ran };
}

async function call(name: string, ctx: ToolContext) {
  return defaultTools().run({ id: "toolu_1", name, arguments: {} }, ctx);
}

test.runIf(posix)(
  "git_status and git_diff run none of the programs a repository's config names",
  async () => {
    const { cwd, ctx, ran } = repository(
      {
        ".gitattributes": "*.txt filter=evil diff=evil\n*.md diff=conv\n*.cfg filter=proc\n",
        "a.txt": "alpha\n",
        "b.md": "beta\n",
        "c.dat": "gamma\n",
        "d.cfg": "delta\n",
      },
      (hook) =>
        [
          "[core]",
          `\tfsmonitor = "${hook} fsmonitor"`,
          `\tpager = "${hook} pager"`,
          `[pager]\n\tdiff = "${hook} pager-diff"\n\tstatus = "${hook} pager-status"`,
          `[filter "evil"]\n\tclean = "${hook} clean"\n\tsmudge = "${hook} smudge"`,
          "\trequired = true",
          `[filter "proc"]\n\tprocess = "${hook} process"`,
          `[diff "evil"]\n\tcommand = "${hook} diff-command"`,
          `[diff "conv"]\n\ttextconv = "${hook} textconv"`,
          `[diff]\n\texternal = "${hook} external"`,
          "",
        ].join("\n"),
    );
    for (const [name, content] of Object.entries({
      "a.txt": "ALPHA\n",
      "b.md": "BETA\n",
      "c.dat": "GAMMA\n",
      "d.cfg": "DELTA\n",
    })) {
      writeFileSync(join(cwd, name), content);
    }

    const status = await call("git_status", ctx);
    expect(status.isError).toBe(false);
    for (const name of ["a.txt", "b.md", "c.dat", "d.cfg"]) {
      expect(status.content).toMatch(new RegExp(`modified: +${name.replace(".", "\\.")}`));
    }
    const diff = await call("git_diff", ctx);
    expect(diff.isError).toBe(false);
    for (const [name, was] of [
      ["a.txt", "alpha"],
      ["b.md", "beta"],
      ["c.dat", "gamma"],
      ["d.cfg", "delta"],
    ]) {
      expect(diff.content).toContain(`diff --git a/${name} b/${name}`);
      expect(diff.content).toContain(`\n-${was}\n+${was?.toUpperCase()}`);
    }
    expect(ran()).toEqual([]);
  },
);

test.runIf(posix)(
  "a core.worktree in the repository's config does not send git to read another folder",
  async () => {
    const { cwd, ctx } = repository({ "a.txt": "alpha\n" }, () => "");
    const outside = join(dirname(cwd), "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "a.txt"), "SECRET\n");
    appendFileSync(join(cwd, ".git", "config"), `[core]\n\tworktree = ${outside}\n`);
    writeFileSync(join(cwd, "a.txt"), "ALPHA\n");
    const diff = await call("git_diff", ctx);
    expect(diff.content).toContain("\n-alpha\n+ALPHA");
    expect(diff.content).not.toContain("SECRET");
    expect((await call("git_status", ctx)).content).toMatch(/modified: +a\.txt/);
  },
);

test.runIf(posix)(
  "a filter git cannot be told to skip (a name with =) is refused, and nothing runs",
  async () => {
    const { cwd, ctx, ran } = repository(
      { ".gitattributes": "*.txt filter=a=b\n", "a.txt": "alpha\n" },
      (hook) => `[filter "a=b"]\n\tclean = "${hook} clean"\n\tsmudge = "${hook} smudge"\n`,
    );
    writeFileSync(join(cwd, "a.txt"), "ALPHA\n");
    for (const name of ["git_status", "git_diff"]) {
      expect(await call(name, ctx)).toEqual({
        toolCallId: "toolu_1",
        content: "git's config names a filter that cannot be turned off: a=b",
        isError: true,
      });
    }
    expect(ran()).toEqual([]);
  },
);

// git_status then git_diff in `cwd` under `deny` rules, as the model gets them: the files
// status names (its tab-indented lines), the files the diff is of, and the whole texts.
async function gitResults(cwd: string, deny: string[]) {
  const names = defaultTools()
    .list()
    .map((tool) => tool.name);
  const provider = new ScriptedProvider([
    reply([toolUse("git_status", {}, "toolu_1"), toolUse("git_diff", {}, "toolu_2")]),
    reply([text("done")]),
  ]);
  const rules = { allow: [], ask: [], deny: deny.map((rule) => parseRule(rule, "--deny", names)) };
  await runAgent("what changed?", provider, defaultTools(), { cwd, rules });
  provider.assertDone();
  const sent = provider.requests[1]?.messages.at(-1) as { content: { content: string }[] };
  const [status = "", diff = ""] = sent.content.map((result) => result.content);
  return {
    named: status.split("\n").filter((line) => line.startsWith("\t")),
    diffed: diff.split("\n").filter((line) => line.startsWith("diff --git ")),
    texts: status + diff,
  };
}

test.runIf(posix)(
  "a Read deny keeps a changed file, and what is in a folder, out of git_status and git_diff",
  async () => {
    const files = { ".env": "TOKEN=one\n", "a.txt": "alpha\n", "keys/id": "KEY=one\n" };
    const { cwd } = repository({ ...files, "sub/.env": "TOKEN=sub\n" }, () => "");
    for (const name of [".env", "keys/id", "keys/new", "sub/.env"]) {
      writeFileSync(join(cwd, name), "TOKEN=needle\n");
    }
    writeFileSync(join(cwd, "a.txt"), "ALPHA\n");

    const { named, diffed, texts } = await gitResults(cwd, ["Read(.env)", "Read(keys)"]);
    // Read(.env) names the folder's own .env, as it does for the other tools: sub/.env is shown.
    expect(named).toEqual(["\tmodified:   a.txt", "\tmodified:   sub/.env"]);
    expect(diffed).toEqual(["diff --git a/a.txt b/a.txt", "diff --git a/sub/.env b/sub/.env"]);
    expect(texts).toContain("\n-alpha\n+ALPHA");
    expect(texts.match(/needle/g)).toHaveLength(1);
  },
);

test.runIf(posix)(
  "a Read deny names paths from the working folder, also in a subfolder",
  async () => {
    const { cwd } = repository({ ".env": "TOKEN=top\n", "sub/.env": "TOKEN=sub\n" }, () => "");
    writeFileSync(join(cwd, ".env"), "TOKEN=top changed\n");
    writeFileSync(join(cwd, "sub", ".env"), "TOKEN=needle\n");

    const { named, diffed, texts } = await gitResults(join(cwd, "sub"), ["Read(.env)"]);
    expect(named).toEqual(["\tmodified:   ../.env"]);
    expect(diffed).toEqual(["diff --git a/.env b/.env"]);
    expect(texts).not.toContain("needle");
  },
);

test.runIf(posix)(
  "a bare Read deny keeps git_status and git_diff from running, as it does every tool that reads",
  async () => {
    const { cwd } = repository({ "a.txt": "alpha\n" }, () => "");
    writeFileSync(join(cwd, "a.txt"), "needle\n");
    const { texts } = await gitResults(cwd, ["Read"]);
    expect(texts).toBe("denied by the rule Read in --deny".repeat(2));
  },
);

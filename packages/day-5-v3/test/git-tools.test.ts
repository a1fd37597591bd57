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
import { commitFolder } from "@agent-code/test-kit";
import { afterEach, expect, test } from "vitest";
import { NO_UI } from "../src/diff-ui.ts";
import { ReadState } from "../src/fs-safety.ts";
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

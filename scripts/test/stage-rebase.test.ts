// A challenge's diff carried onto the stage a learner arrives from: Day 3's challenges (a copy of
// day-3-v2) merge onto day-3-v4, and the diff the page shows then applies to a day-3-v4 project
// with git and leaves exactly the merged files; Day 5's challenges (a copy of day-5-v3) touch
// lines day-5-v4 and day-5-v5 changed too, which the merge refuses, naming the files.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { stageDir } from "../lib/command.ts";
import { diffRebased, rebaseStage } from "../lib/stage-rebase.ts";

const dir = mkdtempSync(join(tmpdir(), "stage-rebase-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("Day 3's challenges on day-3-v4: the page's diff applies to day-3-v4 and gives the merge", async () => {
  const rebased = rebaseStage("day-3-v4", "day-3-challenges");
  if ("error" in rebased) throw new Error(rebased.error);
  // The challenge's own changes are in (hex_preview), and so are day-3-v4's (web_search).
  const tools = rebased.files.get("tools.ts") ?? "";
  expect(tools).toContain("hexPreview");
  expect(tools).toContain("webSearch");
  const diff = await diffRebased("day-3-v4", "day-3-challenges");
  expect(diff.split("\n")[0]).toBe("day-3-v4 (a/) -> day-3-challenges on day-3-v4 (b/): src/");
  const project = join(dir, "day-3-v4");
  cpSync(join(stageDir("day-3-v4"), "src"), join(project, "src"), { recursive: true });
  writeFileSync(join(dir, "page.diff"), diff.slice(diff.indexOf("diff --git")));
  const apply = spawnSync("git", ["apply", "--verbose", join(dir, "page.diff")], {
    cwd: project,
    encoding: "utf8",
  });
  expect(apply.status, apply.stderr).toBe(0);
  for (const [path, text] of rebased.files) {
    expect(readFileSync(join(project, "src", path), "utf8"), path).toBe(text);
  }
}, 60_000);

test("Day 5's challenges do not merge onto day-5-v5: the error names the files both changed", () => {
  expect(rebaseStage("day-5-v5", "day-5-challenges")).toEqual({
    error:
      "day-5-challenges's changes to agent.ts, cli.ts, tools/bash.ts, tools/index.ts do not merge onto day-5-v5: day-5-v5 changed the same lines",
  });
});

test("a stage that builds on nothing cannot be carried", () => {
  expect(rebaseStage("day-2-v3", "day-1")).toEqual({
    error: "day-1 builds on no stage, so it cannot be carried",
  });
});

// The memory challenges (docs/day-6-challenges.md, challenges 4 to 6): recall that scores pairs of
// characters in Chinese, Japanese and Korean, MEMORY.md kept under its caps when a note is written,
// and notes mined from a session's prompts, each saved only on a yes.
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import type { Ui } from "../src/diff-ui.ts";
import {
  INDEX_BYTES,
  INDEX_LINES,
  type Memory,
  memoryFolder,
  readMemories,
  recallMemories,
  recallTerms,
  slug,
  writeMemory,
} from "../src/memory.ts";
import { mineSession, promptsOf, proposalFrom, propose, readSessionLog } from "../src/mine.ts";
import { SessionLog } from "../src/session.ts";

const base = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-code-memory-challenges-")));
afterAll(() => rmSync(base, { recursive: true, force: true }));

let count = 0;
// A fresh project and home folder.
function folders() {
  const dir = path.join(base, String(count++));
  const cwd = path.join(dir, "work");
  const home = path.join(dir, "home");
  mkdirSync(cwd, { recursive: true });
  return { cwd, home };
}

function memory(title: string, body: string, created: string): Memory {
  return {
    type: "project",
    title,
    created,
    file: `project/${slug(title)}.md`,
    body,
    time: Date.parse(created),
  };
}

describe("challenge 4: recall in scripts written without spaces", () => {
  const notes = [
    memory("部署", "我们在周五部署，从发布分支。", "2026-01-01T00:00:00.000Z"),
    memory("テスト", "テストは pnpm test で実行します。", "2026-02-01T00:00:00.000Z"),
    memory("Deploy", "Deploys go out on Fridays", "2026-03-01T00:00:00.000Z"),
    memory("회의", "회의는 화요일입니다", "2026-04-01T00:00:00.000Z"),
  ];

  test("a word with no such letter is one term, as in the origin", () => {
    expect(recallTerms("PNPM  test")).toEqual(["pnpm", "test"]);
    expect(recallTerms("   ")).toEqual([]);
  });

  test("a run of Han, kana or Hangul gives its pairs; one character gives itself", () => {
    expect(recallTerms("部署周五")).toEqual(["部署", "署周", "周五"]);
    expect(recallTerms("京")).toEqual(["京"]);
    expect(recallTerms("テスト実行")).toEqual(["テス", "スト", "ト実", "実行"]);
    expect(recallTerms("ラーメン")).toEqual(["ラー", "ーメ", "メン"]);
    expect(recallTerms("화요일")).toEqual(["화요", "요일"]);
  });

  test("letters of other scripts in the same word stay words", () => {
    expect(recallTerms("pnpm测试")).toEqual(["pnpm", "测试"]);
    expect(recallTerms("v2版本x")).toEqual(["v2", "x", "版本"]);
  });

  test("a phrase that is not in the note word for word still finds it", () => {
    // 部署周五 is nowhere in the note, but 部署 and 周五 are: 2 of 3 pairs.
    const found = recallMemories(notes, "部署周五");
    expect(found.map(({ memory, score }) => [memory.title, score])).toEqual([["部署", 2 / 3]]);
  });

  test("Japanese and Korean too, and a query of one character", () => {
    expect(recallMemories(notes, "テストの実行").map(({ memory }) => memory.title)).toEqual([
      "テスト",
    ]);
    expect(recallMemories(notes, "화요일").map(({ memory }) => memory.title)).toEqual(["회의"]);
    expect(recallMemories(notes, "周").map(({ memory }) => memory.title)).toEqual(["部署"]);
  });

  test("pairs and words score together; ties still go newest first", () => {
    const found = recallMemories(notes, "pnpm 实行");
    expect(found.map(({ memory, score }) => [memory.title, score])).toEqual([["テスト", 0.5]]);
    const tie = [
      memory("早", "周五", "2026-01-01T00:00:00.000Z"),
      memory("晚", "周五", "2026-05-01T00:00:00.000Z"),
    ];
    expect(recallMemories(tie, "周五").map(({ memory }) => memory.title)).toEqual(["晚", "早"]);
  });
});

describe("challenge 5: MEMORY.md under its caps when a note is written", () => {
  test("the oldest lines leave the file, with the marker; their notes stay and recall finds them", () => {
    const { cwd, home } = folders();
    const start = Date.UTC(2026, 0, 1);
    // Each line is about 430 bytes: the byte cap is met long before the 200 lines.
    for (let n = 0; n < 70; n++) {
      writeMemory({
        home,
        cwd,
        type: "project",
        title: `Note ${n} ${"界".repeat(70)}`,
        body: `${n === 0 ? "kestrel " : ""}${"界".repeat(100)}`,
        now: new Date(start + n * 1000),
      });
    }
    const index = readFileSync(path.join(memoryFolder(home, cwd), "MEMORY.md"), "utf8");
    const lines = index.trimEnd().split("\n");
    expect(Buffer.byteLength(index)).toBeLessThanOrEqual(INDEX_BYTES + 1);
    expect(lines.length).toBeLessThanOrEqual(INDEX_LINES);
    const listed = lines.filter((line) => line.startsWith("- ["));
    // Newest first: the last note written leads, the first is gone.
    expect(listed[0]).toMatch(/^- \[Note 69 /);
    expect(index).not.toMatch(/\[Note 0 /);
    expect(lines.at(-1)).toBe(
      `(${70 - listed.length} older memories not listed; memory_recall finds them)`,
    );
    expect(readMemories(home, cwd)).toHaveLength(70);
    expect(
      recallMemories(readMemories(home, cwd), "kestrel").map(({ memory }) => memory.title),
    ).toEqual([`Note 0 ${"界".repeat(70)}`]);
  });

  test("under the caps, every note is listed and there is no marker", () => {
    const { cwd, home } = folders();
    writeMemory({ home, cwd, type: "user", title: "Editor", body: "vim" });
    expect(readFileSync(path.join(memoryFolder(home, cwd), "MEMORY.md"), "utf8")).toBe(
      "# Memory Index\n\n- [Editor](user/editor.md) — vim\n",
    );
  });
});

// A Ui that answers from a list and keeps what was printed.
function answering(answers: string[]): Ui & { lines: string[] } {
  const lines: string[] = [];
  return {
    colour: false,
    lines,
    print: (line) => lines.push(line),
    confirm: async (question) => {
      const answer = answers.shift() ?? "";
      lines.push(`${question} [y/N] ${answer}`);
      return /^y(es)?$/i.test(answer);
    },
    choose: async () => ({ kind: "skipped" }),
  };
}

// A session of the project whose prompts are `prompts`, each with a tool round and an answer.
function session(where: { home: string; cwd: string }, prompts: string[]): string {
  const log = SessionLog.create(where);
  for (const [n, prompt] of prompts.entries()) {
    log.append({ role: "user", content: prompt });
    log.append({
      role: "assistant",
      content: [{ type: "tool_use", id: `toolu_${n}`, name: "read_file", input: { path: "a" } }],
    });
    log.append({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: `toolu_${n}`, content: "always be closing" }],
    });
    log.append({ role: "assistant", content: [{ type: "text", text: "Remember me." }] });
  }
  log.close();
  return log.id;
}

describe("challenge 6: memories mined from a session", () => {
  test("a line that starts with remember, always or never; the body as typed", () => {
    expect(proposalFrom("Remember that deploys go out on Fridays.")).toEqual({
      type: "project",
      title: "Deploys go out on Fridays",
      body: "Remember that deploys go out on Fridays.",
    });
    expect(proposalFrom("  always run pnpm lint before a commit")).toEqual({
      type: "feedback",
      title: "Always run pnpm lint before a commit",
      body: "always run pnpm lint before a commit",
    });
    expect(proposalFrom("NEVER push to main!")?.title).toBe("NEVER push to main");
    expect(proposalFrom("remember: the <staging> db is [read-only]")?.title).toBe(
      "The staging db is read-only",
    );
  });

  test("other lines, and lines that leave no title, propose nothing", () => {
    for (const line of ["fix the test", "Rememberable things", "alwaysy", "remember", ""]) {
      expect(proposalFrom(line)).toBeUndefined();
    }
    expect(proposalFrom(`Remember ${"x".repeat(200)}`)?.title).toHaveLength(80);
  });

  test("each line of each prompt, once, in the order typed", () => {
    expect(
      propose(["fix it\nNever push to main", "always use pnpm", "Never push to main"]).map(
        (proposal) => proposal.title,
      ),
    ).toEqual(["Never push to main", "Always use pnpm"]);
  });

  test("the prompts are the person's messages, not tool results or the model's text", () => {
    const where = folders();
    const id = session(where, ["Remember the port is 8080", "never log tokens"]);
    expect(promptsOf(readSessionLog(where.home, where.cwd, id))).toEqual([
      "Remember the port is 8080",
      "never log tokens",
    ]);
  });

  test("y saves through writeMemory, n saves nothing, the end of input is no", async () => {
    const where = folders();
    const id = session(where, ["Remember the port is 8080", "never log tokens", "always test"]);
    const ui = answering(["y", "n"]);
    expect(await mineSession({ ...where, id, ui })).toBe(1);
    expect(ui.lines).toEqual([
      `session ${id}: 3 memories proposed from 3 prompts`,
      "Memory (project): The port is 8080",
      "  Remember the port is 8080",
      "Save this memory? [y/N] y",
      "Memory saved: [project] The port is 8080 -> project/the-port-is-8080.md",
      "Memory (feedback): Never log tokens",
      "  never log tokens",
      "Save this memory? [y/N] n",
      "not saved",
      "Memory (feedback): Always test",
      "  always test",
      "Save this memory? [y/N] ",
      "not saved",
      "saved 1 of 3",
    ]);
    const folder = memoryFolder(where.home, where.cwd);
    expect(readdirSync(path.join(folder, "project"))).toEqual(["the-port-is-8080.md"]);
    expect(readdirSync(folder).sort()).toEqual(["MEMORY.md", "project"]);
  });

  test("a note already saved is not proposed again", async () => {
    const where = folders();
    const id = session(where, ["Remember the port is 8080"]);
    await mineSession({ ...where, id, ui: answering(["y"]) });
    const again = answering(["y"]);
    expect(await mineSession({ ...where, id, ui: again })).toBe(0);
    expect(again.lines).toEqual([`session ${id}: no memories to propose in 1 prompt`]);
    expect(readMemories(where.home, where.cwd)).toHaveLength(1);
  });

  test.skipIf(process.platform === "win32")(
    "an unknown session, or a log that is a link, is an error and saves nothing",
    async () => {
      const where = folders();
      const id = session(where, ["Remember the port is 8080"]);
      const other = "20261201-181502-3f9a1c";
      await expect(mineSession({ ...where, id: other, ui: answering(["y"]) })).rejects.toThrow(
        `no session ${other} in ${where.cwd}`,
      );
      await expect(mineSession({ ...where, id: "../x", ui: answering(["y"]) })).rejects.toThrow(
        "no session ../x",
      );
      const folder = path.join(
        where.home,
        "projects",
        readdirSync(path.join(where.home, "projects"))[0] ?? "",
        "sessions",
      );
      const linked = "20261201-181502-aaaaaa";
      writeFileSync(
        path.join(folder, "elsewhere.txt"),
        readFileSync(path.join(folder, `${id}.jsonl`)),
      );
      symlinkSync(path.join(folder, "elsewhere.txt"), path.join(folder, `${linked}.jsonl`));
      await expect(mineSession({ ...where, id: linked, ui: answering(["y"]) })).rejects.toThrow(
        `no session ${linked}`,
      );
      expect(readMemories(where.home, where.cwd)).toEqual([]);
    },
  );
});

import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import {
  escapes,
  insideByName,
  ReadState,
  resolveInside,
  shown,
  sniffText,
  truncate,
} from "../src/fs-safety.ts";
import { ToolError } from "../src/tools/index.ts";

// <base>/work is the working directory; <base>/secret.txt and <base>/outside/ lie outside it.
const base = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-code-fs-safety-")));
const work = path.join(base, "work");
mkdirSync(path.join(work, "sub"), { recursive: true });
mkdirSync(path.join(base, "outside"));
writeFileSync(path.join(base, "secret.txt"), "outside secret\n");
writeFileSync(path.join(work, "a.txt"), "inside\n");
writeFileSync(path.join(work, "sub", "b.txt"), "inside too\n");
const symlinks = process.platform !== "win32";
if (symlinks) {
  symlinkSync(path.join(base, "secret.txt"), path.join(work, "link-out"));
  symlinkSync(path.join(base, "outside"), path.join(work, "dir-out"));
  symlinkSync(path.join(work, "a.txt"), path.join(work, "link-in"));
  symlinkSync("/", path.join(work, "root-link"));
}
afterAll(() => rmSync(base, { recursive: true, force: true }));

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof ToolError) return error.message;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("resolveInside on this machine", () => {
  test.each([
    ["a.txt", "a.txt"],
    ["./sub/b.txt", "sub/b.txt"],
    ["sub/../a.txt", "a.txt"],
    [".", "."],
    ["sub/new-file.txt", "sub/new-file.txt"],
    ["missing/deeper/file.txt", "missing/deeper/file.txt"],
    ["..a", "..a"],
  ])("%s is inside", (input, expected) => {
    expect(shown(work, resolveInside(work, input))).toBe(expected);
  });

  test("an absolute path inside the working directory is fine", () => {
    expect(resolveInside(work, path.join(work, "sub", "b.txt"))).toBe(
      path.join(work, "sub", "b.txt"),
    );
  });

  test.each([
    "..",
    "../secret.txt",
    "sub/../../secret.txt",
    "../work-other/x",
    path.join(base, "secret.txt"),
    "/etc/passwd",
    "/proc/self/root/etc/passwd",
    "/proc/self/cwd/../secret.txt",
  ])("%s escapes", (input) => {
    expect(refusal(() => resolveInside(work, input))).toBe(
      `path escapes the working directory: ${input}`,
    );
  });

  test("an empty path and a NUL byte are refused before anything else", () => {
    expect(refusal(() => resolveInside(work, ""))).toBe("path must not be empty");
    expect(refusal(() => resolveInside(work, "a.txt\0../../secret.txt"))).toBe(
      "path contains a NUL byte",
    );
  });

  test.skipIf(!symlinks).each(["link-out", "dir-out/anything.txt", "dir-out", "root-link/etc"])(
    "%s leaves through a symlink and is refused",
    (input) => {
      expect(refusal(() => resolveInside(work, input))).toBe(
        `path escapes the working directory through a symlink: ${input}`,
      );
    },
  );

  test.skipIf(!symlinks)("a symlink that stays inside resolves to its target", () => {
    expect(resolveInside(work, "link-in")).toBe(path.join(work, "a.txt"));
  });

  test.skipIf(!symlinks)("a working directory reached through a symlink still works", () => {
    const alias = path.join(base, "alias");
    symlinkSync(work, alias);
    expect(resolveInside(alias, "a.txt")).toBe(path.join(work, "a.txt"));
    expect(resolveInside(alias, path.join(alias, "sub"))).toBe(path.join(work, "sub"));
    expect(refusal(() => resolveInside(alias, "../secret.txt"))).toBe(
      "path escapes the working directory: ../secret.txt",
    );
  });

  test.skipIf(process.platform !== "linux")(
    "/proc/self links inside the working directory are refused by where they lead",
    () => {
      symlinkSync("/proc/self/cwd", path.join(work, "proc-cwd"));
      // The test process's cwd is the package folder, outside the working directory.
      expect(refusal(() => resolveInside(work, "proc-cwd/package.json"))).toBe(
        "path escapes the working directory through a symlink: proc-cwd/package.json",
      );
    },
  );
});

describe("the same rule by name on Windows (path.win32)", () => {
  const root = "C:\\work\\project";
  test.each([
    ["a.txt", "C:\\work\\project\\a.txt"],
    ["src\\b.ts", "C:\\work\\project\\src\\b.ts"],
    ["src/b.ts", "C:\\work\\project\\src\\b.ts"],
    ["C:\\work\\project\\a.txt", "C:\\work\\project\\a.txt"],
    ["c:\\WORK\\Project\\a.txt", "c:\\WORK\\Project\\a.txt"],
    ["..project-x", "C:\\work\\project\\..project-x"],
  ])("%s is inside", (input, expected) => {
    expect(insideByName(root, input, path.win32)).toBe(expected);
  });

  test.each([
    "..\\secret.txt",
    "../secret.txt",
    "src\\..\\..\\secret.txt",
    "C:\\x",
    "C:\\work\\project-other\\a.txt",
    "D:\\work\\project\\a.txt",
    "\\\\server\\share\\x",
    "\\\\?\\C:\\x",
    "\\x",
    "C:x",
  ])("%s escapes", (input) => {
    expect(refusal(() => insideByName(root, input, path.win32))).toBe(
      `path escapes the working directory: ${input}`,
    );
  });

  test("a NUL byte and an empty path are refused on Windows too", () => {
    expect(refusal(() => insideByName(root, "", path.win32))).toBe("path must not be empty");
    expect(refusal(() => insideByName(root, "a\0b", path.win32))).toBe("path contains a NUL byte");
  });

  test("escapes() compares drives and shares, whatever the case", () => {
    expect(escapes("C:\\a", "c:\\A\\b", path.win32)).toBe(false);
    expect(escapes("C:\\a", "D:\\a\\b", path.win32)).toBe(true);
    expect(escapes("\\\\srv\\share\\a", "\\\\srv\\share\\a\\b", path.win32)).toBe(false);
    expect(escapes("\\\\srv\\share\\a", "\\\\srv\\other\\a", path.win32)).toBe(true);
  });

  test("C:x is an ordinary file name on POSIX", () => {
    expect(insideByName("/work", "C:x", path.posix)).toBe("/work/C:x");
  });
});

describe("sniffText, truncate, ReadState", () => {
  test("a NUL byte in the first 8 KiB means binary; one after it does not", () => {
    expect(sniffText(new TextEncoder().encode("plain text\n"))).toBe(true);
    expect(sniffText(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]))).toBe(false);
    const late = new Uint8Array(9000).fill(0x61);
    late[8500] = 0;
    expect(sniffText(late)).toBe(true);
    late[8191] = 0;
    expect(sniffText(late)).toBe(false);
    expect(sniffText(new Uint8Array())).toBe(true);
  });

  test("truncate counts .length and never splits a surrogate pair", () => {
    expect(truncate("hello", 10)).toBe("hello");
    expect(truncate("hello", 3)).toBe("hel");
    expect(truncate("ab😀cd", 3)).toBe("ab");
    expect(truncate("ab😀cd", 4)).toBe("ab😀");
    expect(truncate("", 0)).toBe("");
  });

  test("ReadState keeps each file's sha256 and size", () => {
    const state = new ReadState();
    state.record("/w/a.txt", new TextEncoder().encode("abc"));
    expect(state.get("/w/a.txt")).toEqual({
      sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
      size: 3,
    });
    expect(state.get("/w/b.txt")).toBeUndefined();
  });
});

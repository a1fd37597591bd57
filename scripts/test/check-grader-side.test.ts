// What the grader does outside the sandbox, with a project an attacker wrote: it bundles the
// sources and reads agent-code.check.json, so neither may follow a link out of the project
// (decision 0064). And what the sandbox adds on the kernel's side: sockets under /run are hidden,
// and as root /proc/sys is read-only.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "@agent-code/test-kit";
import { afterAll, describe, expect, onTestFinished, test } from "vitest";
import { checkSettings } from "../check.ts";
import { PROJECT_BUNDLE } from "../lib/bundle.mjs";
import { chooseSandbox, layoutFor, sandboxCommand } from "../lib/check-sandbox.ts";
import { ROOT, UsageError } from "../lib/command.ts";

const CANARY = "grader-canary-0d3f-bundled";
const dir = mkdtempSync(join(tmpdir(), "check-grader-side-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The grader's own file, outside every project.
const secret = join(dir, "grader", "credentials");
mkdirSync(join(dir, "grader"));
writeFileSync(secret, `${CANARY}\n`);

function project(name: string, cli: string): string {
  const root = join(dir, name);
  mkdirSync(join(root, "src"), { recursive: true });
  writeFileSync(join(root, "src", "cli.ts"), cli);
  return root;
}

// A link read as text (its target's name ends in .txt: esbuild reads it whole) or as code (no
// extension: esbuild parses it, and its error would quote what it found).
test.each([
  ["as text", "notes.txt"],
  ["as code", "credentials"],
])(
  "a source file linked out of the project, %s: does not build, nothing of it bundled or quoted",
  (_, name) => {
    const root = project(
      `linked-${name}`,
      'import notes from "./notes.txt";\n\nconsole.log(notes);\n',
    );
    const target = join(dir, "grader", name);
    writeFileSync(target, `${CANARY}\n`);
    symlinkSync(target, join(root, "src", "notes.txt"));
    const { settings, buildError, note } = checkSettings(["day-1"], root);
    expect(buildError).toBe(
      `../grader/${name} leads outside the project; a check bundles only the project's files`,
    );
    expect(note).toBeUndefined();
    expect(settings.command).toEqual([]);
    expect(existsSync(join(root, PROJECT_BUNDLE))).toBe(false);
  },
);

test("the same file copied into the project bundles: the refusal is about the link", () => {
  const root = project(
    "copied-source",
    'import notes from "./notes.txt";\n\nconsole.log(notes);\n',
  );
  writeFileSync(join(root, "src", "notes.txt"), "a note of the learner's\n");
  const { buildError } = checkSettings(["day-1"], root);
  expect(buildError).toBeUndefined();
  expect(readFileSync(join(root, PROJECT_BUNDLE), "utf8")).toContain("a note of the learner's");
});

test("a bundle folder linked to another learner's project: refused, and nothing written there", () => {
  const other = join(dir, "other-learner");
  mkdirSync(other);
  const root = project("linked-cache", 'console.log("hi");\n');
  mkdirSync(join(root, "node_modules"));
  symlinkSync(other, join(root, "node_modules", ".cache"));
  const { buildError } = checkSettings(["day-1"], root);
  expect(buildError).toBe(
    "node_modules/.cache is a link or a file, not a folder: a check writes its bundle only into the project's own folders",
  );
  expect(readdirSync(other)).toEqual([]);
});

test("agent-code.check.json as a link: refused with one line, the file it names not quoted", () => {
  const root = project("linked-start", 'console.log("hi");\n');
  symlinkSync(secret, join(root, "agent-code.check.json"));
  let thrown: unknown;
  try {
    checkSettings(["day-1"], root);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(UsageError);
  expect((thrown as Error).message).toBe(
    `agent-code.check.json in ${root}: a link, not a file of the project`,
  );
});

test("a tool installed beside the class is let back by its own folder, never one over the project", () => {
  // X/bin/tool, and the class in X/class: the folder above bin/ holds every learner.
  const x = join(dir, "beside");
  const bin = join(x, "bin");
  const ada = join(x, "class", "ada");
  mkdirSync(bin, { recursive: true });
  mkdirSync(ada, { recursive: true });
  writeFileSync(join(bin, "tool"), "#!/bin/sh\n", { mode: 0o755 });
  const env = { HOME: join(dir, "home"), PATH: `${bin}:${x}:/usr/bin:/bin` };
  const layout = layoutFor(["tool"], ada, env);
  expect(layout.writable).toEqual([ada]);
  expect(layout.readOnly).toContain(bin);
  // Not X itself, whether as the tool's installation or as a PATH folder.
  expect(layout.readOnly.filter((path) => ada.startsWith(`${path}/`))).toEqual([]);
});

test("run as another uid, a folder it could not search on the way to a tool is hidden, the tool let back", () => {
  // A checkout in `mktemp -d` (mode 700) whose Node the program needs; the class elsewhere. Not
  // under /tmp, which is hidden whoever runs.
  mkdirSync(join(ROOT, ".cache"), { recursive: true });
  const outside = mkdtempSync(join(ROOT, ".cache", "grader-side-"));
  onTestFinished(() => rmSync(outside, { recursive: true, force: true }));
  const checkout = join(outside, "checkout");
  const bin = join(checkout, ".cache", "node", "bin");
  const ada = join(dir, "class-700", "ada");
  mkdirSync(bin, { recursive: true });
  mkdirSync(ada, { recursive: true });
  chmodSync(checkout, 0o700);
  writeFileSync(join(bin, "node"), "#!/bin/sh\n", { mode: 0o755 });
  const env = { HOME: join(dir, "home"), PATH: `${bin}:/usr/bin:/bin` };
  const asOther = layoutFor([join(bin, "node")], ada, env, true);
  const covers = (folders: string[], path = checkout) =>
    folders.filter((folder) => path === folder || path.startsWith(`${folder}/`));
  expect(covers(asOther.hidden)).toHaveLength(1);
  expect(covers(asOther.readOnly, bin)).toEqual([join(checkout, ".cache", "node")]);
  // The grader's own uid searches its folders: nothing more to hide.
  const asGrader = layoutFor([join(bin, "node")], ada, env, false);
  expect(covers(asGrader.hidden)).toEqual([]);
});

const SANDBOXED = process.platform === "linux" && chooseSandbox().way !== undefined;

describe.skipIf(!SANDBOXED)("the sandbox, on the kernel's side", () => {
  // Lists /run, then opens a sysctl for writing (and writes nothing), as learner code would try.
  const PROBE = `
import { closeSync, openSync, readdirSync } from "node:fs";
let sysctl;
try {
  closeSync(openSync("/proc/sys/kernel/hostname", "r+"));
  sysctl = "opened";
} catch (error) {
  sysctl = error.code;
}
console.log(JSON.stringify({ run: readdirSync("/run"), sysctl }));
`;

  test("/run is empty, and as root a sysctl cannot be opened for writing", async () => {
    const root = join(dir, "kernel");
    mkdirSync(root);
    writeFileSync(join(root, "probe.mjs"), PROBE);
    const command = sandboxCommand([process.execPath, "probe.mjs"], root, { note: () => {} });
    const [program = "", ...args] = command;
    const run = await runCli([program], args, { cwd: root, timeoutMs: 20_000 });
    expect(run.exitCode, run.stderr).toBe(0);
    const seen = JSON.parse(run.stdout);
    expect(seen.run).toEqual([]);
    // Root owns /proc/sys's files: only a read-only mount keeps uid 0 out. Anyone else is refused
    // by their mode.
    expect(seen.sysctl).toBe(process.getuid?.() === 0 ? "EROFS" : "EACCES");
  });
});

// The lesson of day-7-v3: one `agent-code` on the PATH. The bundle is a program (a `#!` line, the
// executable bit), package.json's `bin` names it, and a global link puts the name on a PATH. The
// link is made the way a learner makes it, by pnpm, but into a temporary PNPM_HOME, HOME and XDG
// folders (the machine's global packages are never touched), offline (a `link:` needs no
// download). Then `agent-code` is started by its name from another folder.
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

const packageDir = realpathSync(fileURLToPath(new URL("..", import.meta.url)));
const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
  name: string;
  bin: Record<string, string>;
  scripts: { build: string };
};
const posix = process.platform !== "win32";
// The bundle brought up to date as every test of the stage does (written aside and renamed, so a
// contract run beside this file never starts half a bundle). A plain .mjs, reached by name.
const bundleModule = "@agent-code/test-kit/stage-bundle";
const { ensureStageBundle } = (await import(bundleModule)) as {
  ensureStageBundle(dir: string): string;
};

test("package.json's bin names the bundle `pnpm build` writes, and the build makes it a program", () => {
  expect(manifest.bin).toEqual({ "agent-code": "./dist/agent-code.mjs" });
  // The build script as it stands, with its output sent to a temporary folder: `dist/` may be
  // running in a contract test beside this one.
  const out = mkdtempSync(join(tmpdir(), "agent-code-build-"));
  try {
    const [command = "", ...words] = manifest.scripts.build.split(" ");
    expect(command).toBe("esbuild");
    const args = words.map((word) =>
      word.startsWith("--outfile=") ? `--outfile=${join(out, "agent-code.mjs")}` : word,
    );
    expect(args).toContain(`--outfile=${join(out, "agent-code.mjs")}`);
    const esbuild = join(packageDir, "node_modules", ".bin", posix ? "esbuild" : "esbuild.cmd");
    const built = spawnSync(esbuild, args, { cwd: packageDir, encoding: "utf8" });
    expect(built.status, built.stderr).toBe(0);
    const bundle = join(out, "agent-code.mjs");
    expect(readFileSync(bundle, "utf8").split("\n", 1)[0]).toBe("#!/usr/bin/env node");
    if (posix) expect(statSync(bundle).mode & 0o111).toBe(0o111);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}, 30_000);

describe.skipIf(!posix)("linked globally, `agent-code` runs this bundle from any folder", () => {
  let root = "";
  let env: NodeJS.ProcessEnv = {};
  const run = (command: string, args: string[], cwd: string) =>
    spawnSync(command, args, { cwd, env, encoding: "utf8", timeout: 30_000 });

  beforeAll(() => {
    const bundle = ensureStageBundle(packageDir);
    expect(readFileSync(bundle, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
    expect(statSync(bundle).mode & 0o111).toBe(0o111);
    root = realpathSync(mkdtempSync(join(tmpdir(), "agent-code-bin-")));
    for (const dir of ["home", "pnpm", "elsewhere", "project"]) mkdirSync(join(root, dir));
    // Nothing of the caller's pnpm or npm settings (a `pnpm test` sets npm_config_*) leaks in.
    const kept = Object.entries(process.env).filter(
      ([key]) => !/^(npm_|pnpm_|PNPM_|XDG_|AGENT_CODE_)/i.test(key),
    );
    env = {
      ...Object.fromEntries(kept),
      HOME: join(root, "home"),
      PNPM_HOME: join(root, "pnpm"),
      XDG_CONFIG_HOME: join(root, "home", ".config"),
      XDG_DATA_HOME: join(root, "home", ".local", "share"),
      XDG_CACHE_HOME: join(root, "home", ".cache"),
      XDG_STATE_HOME: join(root, "home", ".local", "state"),
      AGENT_CODE_HOME: join(root, "agent-code-home"),
      // The global bin folder first, and this node, so that the shim's `node` is the one testing.
      PATH: [join(root, "pnpm", "bin"), dirname(process.execPath), process.env.PATH].join(
        delimiter,
      ),
    };
    const linked = run("pnpm", ["add", "--global", "--offline", `link:${packageDir}`], root);
    if (linked.status !== 0) throw new Error(`pnpm add --global failed:\n${linked.stderr}`);
  }, 30_000);

  afterAll(() => {
    if (root !== "") rmSync(root, { recursive: true, force: true });
  });

  test("the name is found in the global bin folder and answers a one-shot /help", () => {
    const which = run("sh", ["-c", "command -v agent-code"], join(root, "elsewhere"));
    expect(which.stdout.trim()).toBe(join(root, "pnpm", "bin", "agent-code"));
    const help = run("agent-code", ["/help"], join(root, "elsewhere"));
    expect(help.status).toBe(0);
    expect(help.stdout.split("\n")[0]).toMatch(/^commands: \/help, \/exit, /);
  });

  test("the folder it is started in decides where it looks, -C another", () => {
    const here = run("agent-code", ["/context"], join(root, "elsewhere"));
    expect(here.status).toBe(0);
    expect(here.stdout).toContain(`cwd: ${join(root, "elsewhere")}\n`);
    expect(here.stdout).toContain("rules: none\n");
    writeFileSync(join(root, "project", "AGENT.md"), "Answer briefly.\n");
    const there = run("agent-code", ["-C", join(root, "project"), "/context"], root);
    expect(there.status).toBe(0);
    expect(there.stdout).toContain(`cwd: ${join(root, "project")}\n`);
    expect(there.stdout).toContain("rules: AGENT.md\n");
  });

  test("what runs is this stage: its session says it was written by agent-code day-7-challenges", () => {
    const ran = run(
      "agent-code",
      ["--provider", "mock", "echo hi using the echo tool"],
      join(root, "project"),
    );
    expect(ran.status).toBe(0);
    const session = ran.stdout.match(/^session: (\S+)$/m)?.[1];
    expect(session).toBeDefined();
    const projects = join(root, "agent-code-home", "projects");
    const logs = readdirSync(projects, { recursive: true, encoding: "utf8" }).filter((file) =>
      file.endsWith(`${session}.jsonl`),
    );
    expect(logs).toHaveLength(1);
    const first = JSON.parse(
      readFileSync(join(projects, logs[0] ?? ""), "utf8").split("\n", 1)[0] ?? "{}",
    );
    expect(first).toMatchObject({ type: "session", by: "agent-code day-7-challenges" });
    expect(first.cwd).toBe(join(root, "project"));
  });

  test("pnpm remove --global takes the name away again", () => {
    const removed = run("pnpm", ["remove", "--global", "--offline", manifest.name], root);
    expect(removed.status).toBe(0);
    expect(existsSync(join(root, "pnpm", "bin", "agent-code"))).toBe(false);
    const which = run("sh", ["-c", "command -v agent-code"], join(root, "elsewhere"));
    expect(which.stdout.trim()).not.toBe(join(root, "pnpm", "bin", "agent-code"));
  });
});

// The bundles that replace tsx: a learner's project bundled for `pnpm check` (stack traces still
// name the learner's files; sources that do not bundle fall back to tsx with a note) and a
// stage's bundle rebuilt from its own `build` script whenever it is older than its sources.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "@agent-code/test-kit";
import { buildScriptOptions, ensureStageBundle } from "@agent-code/test-kit/stage-bundle";
import { afterAll, describe, expect, test } from "vitest";
import { checkSettings } from "../check.ts";
import { PROJECT_BUNDLE } from "../lib/bundle.mjs";
import { ROOT, STAGES, stageDir } from "../lib/command.ts";

const SCRIPT = fileURLToPath(new URL("../check.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "bundle-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A project of the given files (paths below it), in a fresh directory.
function project(name: string, files: Record<string, string>): string {
  const root = join(dir, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

// A day-1 run printed by a CLI of a few lines; TypeScript, so that a loader or a bundler is needed.
const DAY_1_CLI = `const text: string = process.argv.slice(2).join(" ");
console.log("Agent Code");
console.log("cwd: " + process.cwd());
console.log("");
console.log('tool_call: echo {"text":"' + text + '"}');
console.log("observation: " + text);
console.log("final: echo tool returned: " + text);
`;

describe("a learner's project without --cmd", () => {
  test("is bundled into node_modules/.cache, and a stack trace names its own file and line", async () => {
    const root = project("throws", {
      "src/cli.ts": 'import { boom } from "./tools.ts";\n\nboom("from the CLI");\n',
      "src/tools.ts":
        'export function boom(why: string): never {\n  throw new Error("boom " + why);\n}\n',
    });
    const { settings, note } = checkSettings(["day-1"], root);
    expect(note).toBeUndefined();
    expect(settings.command).toEqual([process.execPath, "--enable-source-maps", PROJECT_BUNDLE]);
    // Nothing lands in the project but the bundle in its node_modules.
    expect(readdirSync(root).sort()).toEqual(["node_modules", "src"]);
    expect(readdirSync(join(root, "node_modules", ".cache", "agent-code-check")).sort()).toEqual([
      "agent-code.mjs",
      "agent-code.mjs.map",
    ]);
    const run = await runCli(settings.command, [], { cwd: root });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("Error: boom from the CLI");
    expect(run.stderr).toMatch(new RegExp(`at boom \\(.*${root}/src/tools\\.ts:2:\\d+\\)`));
    expect(run.stderr).toMatch(new RegExp(`${root}/src/cli\\.ts:3:\\d+`));
  }, 30_000);

  test("that does not bundle runs through tsx, with a one-line note", async () => {
    // esbuild must load every import it can see; tsx loads this one only when it runs.
    const root = project("tsx-only", {
      "package.json": '{ "type": "module" }\n',
      "src/cli.ts": `if (process.env.NEVER_SET) void import("./notes.yaml");\n${DAY_1_CLI}`,
      "src/notes.yaml": "not code\n",
    });
    mkdirSync(join(root, "node_modules"));
    symlinkSync(join(ROOT, "scripts", "node_modules", "tsx"), join(root, "node_modules", "tsx"));
    const run = await runCli(
      ["node", "--import", "tsx", SCRIPT],
      ["day-1", "--only", "echo-round-trip"],
      { env: { INIT_CWD: root } },
    );
    expect(run.stderr).toBe(
      'note: src/cli.ts does not bundle (src/cli.ts:1:40: No loader is configured for ".yaml" files: src/notes.yaml): running it through tsx, which is slower\n',
    );
    expect(run.stdoutLines[1]).toBe(`command: ${process.execPath} --import tsx src/cli.ts`);
    expect(run.stdout).toContain("PASS  one prompt runs one echo tool round  [echo-round-trip]");
    expect(run.exitCode).toBe(0);
  }, 30_000);
});

describe("a stage's bundle", () => {
  test("every stage's build script reads as the same esbuild options", () => {
    for (const stage of STAGES) {
      const manifest = JSON.parse(readFileSync(join(stageDir(stage), "package.json"), "utf8"));
      expect(buildScriptOptions(manifest.scripts.build)).toEqual({
        entryPoints: ["src/cli.ts"],
        bundle: true,
        platform: "node",
        target: "node20",
        format: "esm",
        outfile: "dist/agent-code.mjs",
        logLevel: "warning",
      });
    }
    expect(() => buildScriptOptions("tsc -p .")).toThrow("not an esbuild command: tsc -p .");
  });

  // turndown and its HTML parser are a quarter of a bundle that holds them, and only a page's
  // conversion needs them: web.ts requires them from node_modules then (decision 0042). Bundled,
  // they would load at the start of every run of the CLI.
  test("leaves turndown to node_modules, so a run that converts no page never loads it", () => {
    const converting = STAGES.filter((stage) => {
      const web = join(stageDir(stage), "src", "web.ts");
      return existsSync(web) && readFileSync(web, "utf8").includes('"turndown"');
    });
    expect(converting).toContain("day-3-v3");
    expect(converting).toContain("day-7-challenges");
    for (const stage of converting) {
      const bundle = readFileSync(ensureStageBundle(stageDir(stage)), "utf8");
      expect(bundle, stage).toContain('.resolve("turndown")');
      expect(bundle, stage).not.toContain("@mixmark-io/domino");
    }
  });

  test("is built when missing, kept while fresh, rebuilt when a source is newer", async () => {
    const stage = project("stage", {
      "package.json": JSON.stringify({
        scripts: {
          build:
            "esbuild src/cli.ts --bundle --platform=node --format=esm --outfile=dist/agent-code.mjs",
        },
      }),
      "src/cli.ts": 'console.log("first");\n',
    });
    // esbuild comes from the stage's own node_modules.
    mkdirSync(join(stage, "node_modules"));
    symlinkSync(
      join(ROOT, "scripts", "node_modules", "esbuild"),
      join(stage, "node_modules", "esbuild"),
    );
    const bundle = ensureStageBundle(stage);
    expect(bundle).toBe(join(stage, "dist", "agent-code.mjs"));
    expect((await runCli(["node", bundle], [])).stdout).toBe("first\n");
    const built = statSync(bundle).mtimeMs;
    ensureStageBundle(stage);
    expect(statSync(bundle).mtimeMs).toBe(built);

    writeFileSync(join(stage, "src", "cli.ts"), 'console.log("second");\n');
    const later = new Date(built + 2_000);
    utimesSync(join(stage, "src", "cli.ts"), later, later);
    ensureStageBundle(stage);
    expect((await runCli(["node", bundle], [])).stdout).toBe("second\n");
  }, 30_000);
});

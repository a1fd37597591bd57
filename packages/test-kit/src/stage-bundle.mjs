// A stage's bundle, brought up to date with its sources: built from the stage's own `build` script
// when `dist/` is missing or older than `src/` or package.json, and left alone when fresh. The
// stages' `test` scripts (through the `agent-code-bundle` bin), the scripts package's tests and
// `pnpm agent-code` all use it, so none of them runs a stale bundle. Plain JavaScript (checked
// through JSDoc), so that `pnpm agent-code` needs no loader.
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * The part of esbuild's API used here; esbuild comes from the stage's own node_modules.
 * @typedef {{ buildSync(options: Record<string, unknown>): { outputFiles?: { path: string, contents: Uint8Array }[] } }} Esbuild
 */

/**
 * A `build` script of the shape `esbuild <entry> --flag --key=value …` as esbuild's options, so
 * the stage's package.json stays the one place its bundle is described.
 * @param {string} script
 * @returns {Record<string, unknown>}
 */
export function buildScriptOptions(script) {
  const [command, ...words] = script.trim().split(/\s+/);
  if (command !== "esbuild") throw new Error(`not an esbuild command: ${script}`);
  /** @type {Record<string, unknown>} */
  const options = {};
  /** @type {string[]} */
  const entryPoints = [];
  for (const word of words) {
    if (!word.startsWith("--")) {
      entryPoints.push(word);
      continue;
    }
    const [flag = "", ...value] = word.slice(2).split("=");
    const key = flag.replace(/-([a-z])/g, (_, letter) => letter.toUpperCase());
    options[key] = value.length === 0 ? true : value.join("=");
  }
  return { ...options, entryPoints };
}

/**
 * The newest modification time of the files under `paths`, or 0 when there are none.
 * @param {string[]} paths
 * @returns {number}
 */
export function newestChange(paths) {
  let newest = 0;
  for (const path of paths) {
    const stats = statSync(path, { throwIfNoEntry: false });
    if (stats === undefined) continue;
    newest = Math.max(
      newest,
      stats.isDirectory()
        ? newestChange(readdirSync(path).map((name) => join(path, name)))
        : stats.mtimeMs,
    );
  }
  return newest;
}

/**
 * Builds the stage in `dir` when its bundle is stale and returns the bundle's path. The new bundle
 * is written aside and renamed into place: a test of another package that starts the bundle at
 * that moment gets the old file or the new one, never half of one.
 * @param {string} dir the stage's package directory
 * @returns {string}
 */
export function ensureStageBundle(dir) {
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const options = buildScriptOptions(manifest.scripts.build);
  const outfile = join(dir, String(options.outfile));
  const built = statSync(outfile, { throwIfNoEntry: false })?.mtimeMs ?? -1;
  if (built >= newestChange([join(dir, "src"), join(dir, "package.json")])) return outfile;
  /** @type {Esbuild} */
  const esbuild = createRequire(join(dir, "package.json"))("esbuild");
  const { outputFiles = [] } = esbuild.buildSync({ ...options, absWorkingDir: dir, write: false });
  for (const output of outputFiles) {
    const aside = `${output.path}.${process.pid}`;
    mkdirSync(dirname(aside), { recursive: true });
    // A bundle that starts with `#!` is a program (day-7-v3 on): executable, as esbuild's own CLI
    // leaves it.
    const program = output.contents[0] === 0x23 && output.contents[1] === 0x21;
    writeFileSync(aside, output.contents, { mode: program ? 0o755 : 0o644 });
    renameSync(aside, output.path);
  }
  return outfile;
}

// esbuild for the commands that run TypeScript without tsx: a stage's bundle, built on demand from
// the stage's own `build` script, and a learner's project bundled once per `pnpm check`. Plain
// JavaScript (checked through JSDoc) so that `pnpm agent-code` starts with no loader at all.
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** @typedef {import("esbuild").BuildOptions} BuildOptions */

// Loaded on first use: `pnpm agent-code` with a fresh bundle never pays for it.
/** @returns {typeof import("esbuild")} */
function esbuild() {
  return createRequire(import.meta.url)("esbuild");
}

/**
 * A `build` script of the shape `esbuild <entry> --flag --key=value …` as esbuild's options, so
 * the stage's package.json stays the one place its bundle is described.
 * @param {string} script
 * @returns {BuildOptions}
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
 * A stage's bundle, built with its own `build` script first when it is missing or older than the
 * stage's sources or package.json. Returns the bundle's path.
 * @param {string} dir the stage's package directory
 * @returns {string}
 */
export function ensureStageBundle(dir) {
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const options = buildScriptOptions(manifest.scripts.build);
  const outfile = join(dir, String(options.outfile));
  const built = statSync(outfile, { throwIfNoEntry: false })?.mtimeMs ?? -1;
  if (built < newestChange([join(dir, "src"), join(dir, "package.json")])) {
    esbuild().buildSync({ ...options, absWorkingDir: dir });
  }
  return outfile;
}

// Where a learner's bundle goes: inside the project's node_modules, so that packages left out of
// the bundle resolve from there; `.cache` is where tools keep such files.
export const PROJECT_BUNDLE = join("node_modules", ".cache", "agent-code-check", "agent-code.mjs");

/**
 * A learner's `src/cli.ts` bundled with a source map beside it, so that a stack trace names the
 * learner's files (inline, the map made every start a tenth slower). Its packages go in, resolved
 * from the project's node_modules: the bundle starts as fast as a stage's `dist/`, where loading
 * the SDK's files one by one costs twice the CPU.
 * A package esbuild cannot take in (a native addon, say) is left out and loaded at run time.
 * Returns the bundle's path; throws esbuild's error when the sources do not bundle.
 * @param {string} project
 * @returns {string}
 */
export function bundleProject(project) {
  try {
    return writeProjectBundle(project, false);
  } catch {
    return writeProjectBundle(project, true);
  }
}

/**
 * @param {string} project
 * @param {boolean} external whether the project's packages stay out of the bundle
 * @returns {string}
 */
function writeProjectBundle(project, external) {
  const outfile = join(project, PROJECT_BUNDLE);
  const result = esbuild().buildSync({
    entryPoints: [join(project, "src", "cli.ts")],
    absWorkingDir: project,
    outfile,
    bundle: true,
    ...(external ? { packages: "external" } : {}),
    platform: "node",
    target: "node20",
    format: "esm",
    sourcemap: "linked",
    sourcesContent: false,
    write: false,
    logLevel: "silent",
  });
  mkdirSync(dirname(outfile), { recursive: true });
  // A check already running on this project keeps reading whole files: write aside, then rename,
  // the map before the bundle that names it.
  const outputs = [...result.outputFiles].sort((a, b) => b.path.length - a.path.length);
  for (const output of outputs) {
    const aside = `${output.path}.${process.pid}`;
    writeFileSync(aside, output.contents);
    renameSync(aside, output.path);
  }
  return outfile;
}

// A learner's project bundled once per `pnpm check` with esbuild, so that every scenario starts a
// bundle instead of tsx. (A stage's own bundle: @agent-code/test-kit/stage-bundle.)
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, extname, join } from "node:path";

/** @returns {typeof import("esbuild")} */
function esbuild() {
  return createRequire(import.meta.url)("esbuild");
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

/**
 * Whether bundling failed because one of the project's own files does not parse (a syntax error),
 * rather than because the bundle cannot be made (a loader esbuild lacks, a package it cannot take
 * in), where tsx may still run the sources.
 * @param {string} project
 * @param {unknown} error what bundleProject threw
 * @returns {boolean}
 */
export function sourceError(project, error) {
  const errors = /** @type {{ errors?: import("esbuild").Message[] }} */ (error).errors ?? [];
  const file = errors[0]?.location?.file;
  if (file === undefined || file.includes("node_modules")) return false;
  /** @type {Record<string, import("esbuild").Loader>} */
  const loaders = {
    ".ts": "ts",
    ".mts": "ts",
    ".cts": "ts",
    ".tsx": "tsx",
    ".js": "js",
    ".mjs": "js",
  };
  const loader = loaders[extname(file)];
  if (loader === undefined) return false;
  try {
    esbuild().transformSync(readFileSync(join(project, file), "utf8"), {
      loader,
      logLevel: "silent",
    });
    return false;
  } catch {
    return true;
  }
}

// A learner's project bundled once per `pnpm check` with esbuild, so that every scenario starts a
// bundle instead of tsx. (A stage's own bundle: @agent-code/test-kit/stage-bundle.)
import {
  lstatSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, extname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** @returns {typeof import("esbuild")} */
function esbuild() {
  return createRequire(import.meta.url)("esbuild");
}

// Where a learner's bundle goes: inside the project's node_modules, so that packages left out of
// the bundle resolve from there; `.cache` is where tools keep such files.
export const PROJECT_BUNDLE = join("node_modules", ".cache", "agent-code-check", "agent-code.mjs");

// What the check refuses to bundle: a file linked out of the project, a folder of the bundle's path
// that is a link. The project does not build, whatever tsx would make of it.
export class BundleRefused extends Error {}

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
  } catch (error) {
    if (error instanceof BundleRefused) throw error;
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
  const result = readOwnFiles(project, () =>
    esbuild().buildSync({
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
      metafile: true,
      write: false,
      logLevel: "silent",
    }),
  );
  ownFolders(project, dirname(PROJECT_BUNDLE));
  // A check already running on this project keeps reading whole files: write aside, then rename,
  // the map before the bundle that names it. The aside file is new (wx): never a planted link.
  const outputs = [...result.outputFiles].sort((a, b) => b.path.length - a.path.length);
  for (const output of outputs) {
    const aside = `${output.path}.${process.pid}`;
    writeFileSync(aside, output.contents, { flag: "wx" });
    renameSync(aside, output.path);
  }
  return outfile;
}

/**
 * esbuild's result, once every file it read is the project's own. The grader bundles outside the
 * sandbox: a file linked out of the project (src/notes.txt -> ~/.aws/credentials) would carry the
 * grader's file into the learner's program, or quote it in a syntax error.
 * @param {string} project
 * @param {() => import("esbuild").BuildResult<{ metafile: true, write: false }>} build
 */
function readOwnFiles(project, build) {
  const refuse = (/** @type {string} */ input) =>
    new BundleRefused(
      `${input} leads outside the project; a check bundles only the project's files`,
    );
  let result;
  try {
    result = build();
  } catch (error) {
    const errors = /** @type {{ errors?: import("esbuild").Message[] }} */ (error).errors ?? [];
    const outside = errors
      .map((message) => message.location?.file)
      .find((file) => file !== undefined && !ownFile(project, file));
    throw outside === undefined ? error : refuse(outside);
  }
  const outside = Object.keys(result.metafile.inputs).find((input) => !ownFile(project, input));
  if (outside !== undefined) throw refuse(outside);
  return result;
}

/**
 * Whether a file esbuild read (its path relative to the project) is the project's own: its real
 * path inside the project, or a package's file under a node_modules folder (pnpm's store may live
 * elsewhere).
 * @param {string} project
 * @param {string} input
 */
function ownFile(project, input) {
  let real;
  try {
    real = realpathSync(resolve(project, input));
  } catch {
    return false;
  }
  const rel = relative(realpathSync(project), real);
  const inside = rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
  return inside || real.split(sep).includes("node_modules");
}

/**
 * Makes each folder of `path` (relative to the project) one at a time, refusing any that is a
 * link: the bundle is written by the grader, and must not follow a link the project planted
 * (node_modules/.cache -> another learner's folder) out of it.
 * @param {string} project
 * @param {string} path
 */
function ownFolders(project, path) {
  let folder = project;
  for (const part of path.split(/[\\/]/)) {
    folder = join(folder, part);
    try {
      mkdirSync(folder);
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code !== "EEXIST") throw error;
    }
    if (!lstatSync(folder).isDirectory()) {
      throw new BundleRefused(
        `${relative(project, folder)} is a link or a file, not a folder: a check writes its bundle only into the project's own folders`,
      );
    }
  }
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

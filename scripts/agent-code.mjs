// `pnpm agent-code …` from the repository root: the newest stage that works offline, run in this
// process from its bundle, which is built first when missing or older than the stage's sources.
// Plain JavaScript and no tsx, so the first command in the README starts as fast as the bundle.
// pnpm runs root scripts in the root, so the caller's directory is passed on as --cwd unless given.
import { fileURLToPath, pathToFileURL } from "node:url";
import { ensureStageBundle } from "@agent-code/test-kit/stage-bundle";

export const NEWEST_OFFLINE_STAGE = "day-7-v5";

/**
 * @param {string[]} given
 * @param {string} callerDir
 * @returns {string[]}
 */
export function withCallerCwd(given, callerDir) {
  // `pnpm agent-code -- hi` passes its `--` on; with --cwd put before it, it would end the options.
  const args = given[0] === "--" ? given.slice(1) : given;
  const hasCwd = args.some(
    (arg) => arg === "-C" || arg === "--cwd" || arg.startsWith("--cwd=") || /^-C./.test(arg),
  );
  return hasCwd ? args : ["--cwd", callerDir, ...args];
}

async function main() {
  const stage = fileURLToPath(new URL(`../packages/${NEWEST_OFFLINE_STAGE}`, import.meta.url));
  let bundle;
  try {
    bundle = ensureStageBundle(stage);
  } catch (error) {
    // esbuild has printed what is wrong with the sources already.
    console.error(`error: cannot build ${NEWEST_OFFLINE_STAGE}: ${String(error).split("\n")[0]}`);
    process.exitCode = 1;
    return;
  }
  const args = withCallerCwd(process.argv.slice(2), process.env.INIT_CWD ?? process.cwd());
  // The stage reads process.argv, as it does when started on its own.
  process.argv = [process.argv[0] ?? process.execPath, bundle, ...args];
  await import(pathToFileURL(bundle).href);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();

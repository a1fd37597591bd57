// `pnpm agent-code …` from the repository root: runs the newest stage that works offline. pnpm
// runs root scripts in the root, so the caller's directory is passed on as --cwd unless given.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export const NEWEST_OFFLINE_STAGE = "day-2-challenges";

export function withCallerCwd(args: string[], callerDir: string): string[] {
  const hasCwd = args.some(
    (arg) => arg === "-C" || arg === "--cwd" || arg.startsWith("--cwd=") || /^-C./.test(arg),
  );
  return hasCwd ? args : ["--cwd", callerDir, ...args];
}

function main(): number {
  const cli = fileURLToPath(
    new URL(`../packages/${NEWEST_OFFLINE_STAGE}/src/cli.ts`, import.meta.url),
  );
  const args = withCallerCwd(process.argv.slice(2), process.env.INIT_CWD ?? process.cwd());
  const child = spawnSync(process.execPath, ["--import", "tsx", cli, ...args], {
    stdio: "inherit",
  });
  return child.status ?? 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main();

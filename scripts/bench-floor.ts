// `pnpm bench:floor [--stage S] [--runs N] [--rounds R]`: what one run of a stage's CLI costs in
// CPU, against what it cannot cost less than. Each command answers one prompt from the fake server
// (or starts no request, for Node alone), N times a round, the commands taking turns, R rounds; the
// figure is the CPU of the processes (user and system) a run, the median of the rounds. A benchmark
// to read, not a timed test (issue #55: a contract scenario's CPU, and its floor).
//
// - `node -e 0`: Node's own start;
// - one `fetch`: Node's start and its HTTP client (undici), one request to the fake server;
// - the SDK, one streamed message: the smallest program that asks the model through the pinned
//   Anthropic SDK, bundled as a stage is (bench-floor-client.ts);
// - the stage, one prompt: the stage's bundle answering one prompt with text, in an empty folder.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { childCpuSeconds, runCli, startFakeServer } from "@agent-code/test-kit";
import { buildScriptOptions, ensureStageBundle } from "@agent-code/test-kit/stage-bundle";
import {
  ROOT,
  requireStage,
  runCommand,
  stageDir,
  UsageError,
  wholeOption,
} from "./lib/command.ts";

const CLIENT = fileURLToPath(new URL("bench-floor-client.ts", import.meta.url));
const REPLY = "the floor of a run";
const PROMPT = "say something";

interface Command {
  name: string;
  argv: string[];
  // What a run must print, so that a run that failed never counts as a cheap one.
  prints?: string;
}

// A run that takes this long is broken, not slow: the benchmark stops.
const RUN_TIMEOUT_MS = 30_000;

// One run, to its end; its CPU is counted in this process's reaped children once it has exited.
// The child inherits PATH alone, and `env` on top of it.
async function runOnce(command: Command, cwd: string, env: Record<string, string>): Promise<void> {
  const run = await runCli(command.argv, [], {
    cwd,
    env,
    inherit: (name) => name === "PATH",
    timeoutMs: RUN_TIMEOUT_MS,
  });
  const output = run.stdout + run.stderr;
  if (run.exitCode !== 0 || (command.prints !== undefined && !output.includes(command.prints))) {
    const why = run.timedOut ? `timed out after ${RUN_TIMEOUT_MS} ms` : `exited ${run.exitCode}`;
    throw new Error(`${command.name} ${why}:\n${output}`);
  }
}

// CPU seconds a run of the command, over `runs` runs.
async function cpuPerRun(
  command: Command,
  runs: number,
  cwd: string,
  env: Record<string, string>,
): Promise<number> {
  const before = childCpuSeconds();
  for (let run = 0; run < runs; run++) await runOnce(command, cwd, env);
  const after = childCpuSeconds();
  if (before === null || after === null) throw new UsageError("bench:floor needs Linux's /proc");
  return (after.user + after.system - before.user - before.system) / runs;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

// The SDK client bundled as the stage's CLI is: the stage's own build options, esbuild and SDK.
function bundleClient(stage: string, outfile: string): void {
  const dir = stageDir(stage);
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const { entryPoints: _entryPoints, ...options } = buildScriptOptions(manifest.scripts.build);
  const esbuild = createRequire(join(dir, "package.json"))("esbuild");
  esbuild.buildSync({
    ...options,
    stdin: { contents: readFileSync(CLIENT, "utf8"), loader: "ts", resolveDir: dir },
    outfile,
  });
}

async function main(argv: string[]): Promise<number> {
  let values: { stage?: string; runs?: string; rounds?: string };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        stage: { type: "string" },
        runs: { type: "string" },
        rounds: { type: "string" },
      },
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const stage = requireStage(values.stage ?? "day-5-v5");
  if (!readFileSync(join(stageDir(stage), "package.json"), "utf8").includes("@anthropic-ai/sdk")) {
    throw new UsageError(`${stage} does not use the Anthropic SDK: name a stage from day-2-v1 on`);
  }
  const runs = wholeOption("runs", values.runs, 20);
  const rounds = wholeOption("rounds", values.rounds, 3);

  const work = mkdtempSync(join(tmpdir(), "bench-floor-"));
  const server = await startFakeServer({
    script: [{ content: [{ type: "text", text: REPLY }] }],
    loop: true,
  });
  try {
    const client = join(work, "client.mjs");
    bundleClient(stage, client);
    const bundle = ensureStageBundle(stageDir(stage));
    const folder = join(work, "folder");
    const home = join(work, "home");
    mkdirSync(folder);
    mkdirSync(home);
    const env = {
      HOME: home,
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: "bench-floor",
      NODE_COMPILE_CACHE: join(work, "compile-cache"),
    };
    const node = process.execPath;
    const fetchOnce = `await (await fetch(${JSON.stringify(`${server.url}/v1/models`)})).text()`;
    const commands: Command[] = [
      { name: "node -e 0 (Node's start)", argv: [node, "-e", "0"] },
      {
        name: "one fetch (Node's HTTP client)",
        argv: [node, "--input-type=module", "-e", fetchOnce],
      },
      { name: "the SDK, one streamed message", argv: [node, client, PROMPT], prints: REPLY },
      { name: `${stage}, one prompt`, argv: [node, bundle, PROMPT], prints: REPLY },
    ];
    // One run of each first: the compile cache is written, and a broken command stops here.
    for (const command of commands) await cpuPerRun(command, 1, folder, env);
    const figures: number[][] = commands.map(() => []);
    for (let round = 0; round < rounds; round++) {
      for (const [index, command] of commands.entries()) {
        figures[index]?.push(await cpuPerRun(command, runs, folder, env));
      }
    }
    console.log(
      `CPU seconds a run (user and system), the median of ${rounds} round(s) of ${runs} run(s), Node ${process.version}; ${stage}'s bundle is ${bundle.slice(ROOT.length + 1)}\n`,
    );
    for (const [index, command] of commands.entries()) {
      const each = figures[index] ?? [];
      const rest = each.map((value) => value.toFixed(3)).join(", ");
      console.log(`${command.name.padEnd(40)} ${median(each).toFixed(3)} s   (rounds: ${rest})`);
    }
    return 0;
  } finally {
    await server.close();
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runCommand(() => main(process.argv.slice(2)));
}

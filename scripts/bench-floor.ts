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
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { childCpuSeconds, startFakeServer } from "@agent-code/test-kit";
import { ensureStageBundle } from "@agent-code/test-kit/stage-bundle";
import { ROOT, requireStage, runCommand, stageDir, UsageError } from "./lib/command.ts";

const CLIENT = fileURLToPath(new URL("bench-floor-client.ts", import.meta.url));
const REPLY = "the floor of a run";
const PROMPT = "say something";

interface Command {
  name: string;
  argv: string[];
  // What a run must print, so that a run that failed never counts as a cheap one.
  prints?: string;
}

// One run, to its end; its CPU is counted in this process's reaped children once it has exited.
function runOnce(command: Command, cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  const [program = "", ...args] = command.argv;
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0 || (command.prints !== undefined && !output.includes(command.prints))) {
        reject(new Error(`${command.name} exited ${code}:\n${output}`));
      } else {
        resolve();
      }
    });
  });
}

// CPU seconds a run of the command, over `runs` runs.
async function cpuPerRun(
  command: Command,
  runs: number,
  cwd: string,
  env: NodeJS.ProcessEnv,
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

function whole(value: string | undefined, fallback: number, flag: string): number {
  const number = Number(value ?? fallback);
  if (!Number.isInteger(number) || number < 1) {
    throw new UsageError(`${flag} must be a positive whole number: ${value}`);
  }
  return number;
}

// The SDK client bundled as a stage's CLI is, with the stage's own esbuild and SDK.
function bundleClient(stage: string, outfile: string): void {
  const dir = stageDir(stage);
  const esbuild = createRequire(join(dir, "package.json"))("esbuild");
  esbuild.buildSync({
    stdin: { contents: readFileSync(CLIENT, "utf8"), loader: "ts", resolveDir: dir },
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    outfile,
    logLevel: "warning",
  });
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      stage: { type: "string" },
      runs: { type: "string" },
      rounds: { type: "string" },
    },
  });
  const stage = requireStage(values.stage ?? "day-5-v5");
  if (!readFileSync(join(stageDir(stage), "package.json"), "utf8").includes("@anthropic-ai/sdk")) {
    throw new UsageError(`${stage} does not use the Anthropic SDK: name a stage from day-2-v1 on`);
  }
  const runs = whole(values.runs, 20, "--runs");
  const rounds = whole(values.rounds, 3, "--rounds");

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
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
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

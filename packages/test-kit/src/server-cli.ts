// The `fake-server` command: the fake server (the Messages API, and OpenAI's Responses and Chat
// Completions) as a process, for clients written in any language. Usage errors are one `error:` line and exit 2, like every CLI in this repository.
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { type Flavour, startFakeServer } from "./server.ts";
import { parseSteps, type StepResult } from "./server-steps.ts";
import { parseWebFile, startFakeWeb } from "./web-server.ts";

const USAGE =
  "usage: fake-server [--port N] [--flavour anthropic|deepseek] [--script FILE] [--loop] [--key K] | fake-server --web FILE [--port N]";

class UsageError extends Error {}

try {
  await main(process.argv.slice(2));
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`error: ${message}\n`);
  process.exitCode = error instanceof UsageError ? 2 : 1;
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArguments(argv);
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const port = parsePort(values.port ?? "0");
  // A fake web instead of the fake model API: the routes and search of a JSON file.
  if (values.web !== undefined) return serveWeb(values.web, port);
  const flavour = parseFlavour(values.flavour ?? "anthropic");
  const script = values.script === undefined ? [] : await readScript(values.script);
  // A port in use fails here with Node's own one-line text (EADDRINUSE), exit 1.
  const loop = values.loop === true;
  const server = await startFakeServer({ port, flavour, key: values.key, script, loop });
  // The control routes need the server's token: a person who started it reads it here.
  process.stdout.write(`listening on ${server.url}\ncontrol: ${server.controlUrl}\n`);
  // Once the server is closed nothing keeps the event loop alive, so the process exits 0.
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => server.close());
}

function parseArguments(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: {
        port: { type: "string" },
        flavour: { type: "string" },
        script: { type: "string" },
        key: { type: "string" },
        web: { type: "string" },
        loop: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    // Node's texts go on to advise about `--`; the first sentence is the useful part.
    const first = (error instanceof Error ? error.message : String(error)).split(". ")[0];
    throw new UsageError(`${first} (${USAGE})`);
  }
}

function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) {
    throw new UsageError(`--port must be an integer from 0 to 65535, got "${text}"`);
  }
  return port;
}

function parseFlavour(text: string): Flavour {
  if (text === "anthropic" || text === "deepseek") return text;
  throw new UsageError(`--flavour must be anthropic or deepseek, got "${text}"`);
}

async function readScript(file: string): Promise<StepResult[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new UsageError(`cannot read script file ${file} (${code})`);
  }
  try {
    return parseSteps(JSON.parse(text));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageError(`script file ${file} is not a JSON array of steps: ${message}`);
  }
}

async function serveWeb(file: string, port: number): Promise<void> {
  let options: ReturnType<typeof parseWebFile>;
  try {
    options = parseWebFile(JSON.parse(await readFile(file, "utf8")));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageError(
      code === undefined
        ? `web file ${file} is not a JSON object of routes and search: ${message}`
        : `cannot read web file ${file} (${code})`,
    );
  }
  const web = await startFakeWeb({ port, ...options });
  process.stdout.write(`listening on ${web.url}\ncontrol: ${web.controlUrl}\n`);
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => web.close());
}

// Which of a stage's own test files run on this leg (docs/decisions/0062-where-a-scenario-runs.md,
// with decision 0088): a test file runs where it proves something, as a contract scenario does.
//
// Where the stage runs whole, every file runs, and `cli.test.ts` always runs (it runs the
// contract's plan). Elsewhere a file the stage adds or changes runs. A file carried byte for byte
// from the base is left out when everything it reaches is the base's too: the files it names by a
// relative path, the files those name, and so on, and every file under `src/` when it starts the
// bundle. The base, or the first stage that had that code, proves it. A carried file whose code
// changed under it runs where an inherited conformance scenario would: on the full leg when no
// stage built on this one carries the file (only here), or when its slice is the commit's; on the
// floor leg, never (the newest stage proves the Node APIs it calls).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { contracts as courseContracts } from "../contracts/index.ts";
import type { Contract } from "./contract.ts";
import { commitSlice, runsWhole, scenarioSlice, type TestLeg, testLeg } from "./legs.ts";

// A relative path in quotes: an import, `new URL("./x.mjs", import.meta.url)`, a helper script.
// Reading every such string, not only imports, can only add files, and so run a file more often.
const RELATIVE = /["'`](\.{1,2}\/[^"'`\s$]+)["'`]/g;
// A test that starts the built CLI reaches every module the bundle holds.
const STARTS_BUNDLE = /\bdist\/|\brunScenario\b/;

// Every file under a folder of the package, relative to it, sorted.
function filesUnder(packageDir: string, folder: string): string[] {
  const dir = path.join(packageDir, folder);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => path.join(folder, name))
    .filter((file) => statSync(path.join(packageDir, file)).isFile())
    .sort();
}

// The files of the package a test file reaches (itself among them), relative to the package;
// `dist/` is left out, for what it holds is `src/`, which a file that names it reaches instead.
export function reachedFiles(packageDir: string, testFile: string): string[] {
  const reached = new Set<string>();
  const queue = [testFile];
  const add = (file: string) => {
    if (file.startsWith("..") || path.isAbsolute(file) || file.startsWith(`dist${path.sep}`)) {
      return;
    }
    if (file === "dist" || reached.has(file)) return;
    const full = path.join(packageDir, file);
    if (!existsSync(full)) return;
    if (statSync(full).isDirectory()) {
      for (const inner of filesUnder(packageDir, file)) add(inner);
      return;
    }
    reached.add(file);
    queue.push(file);
  };
  reached.add(testFile);
  while (queue.length > 0) {
    const file = queue.shift() as string;
    const text = readFileSync(path.join(packageDir, file), "utf8");
    if (STARTS_BUNDLE.test(text)) for (const source of filesUnder(packageDir, "src")) add(source);
    const dir = path.dirname(path.join(packageDir, file));
    for (const [, named = ""] of text.matchAll(RELATIVE)) {
      add(path.relative(packageDir, path.resolve(dir, named)));
    }
  }
  return [...reached].sort();
}

// The package's dependencies and scripts, without its name and description: what a test of the
// package can depend on in package.json.
function manifest(packageDir: string): string {
  const file = path.join(packageDir, "package.json");
  if (!existsSync(file)) return "";
  const {
    name: _name,
    description: _description,
    ...rest
  } = JSON.parse(readFileSync(file, "utf8"));
  return JSON.stringify(rest);
}

// The test files (`test/<name>.test.ts`, relative to the package) that this leg leaves out.
export function unitTestExclusions(
  packageDir: string,
  leg: TestLeg = testLeg(),
  contracts: Contract[] = courseContracts,
  slice?: number,
): string[] {
  const stage = path.basename(packageDir);
  const contract = contracts.find((candidate) => candidate.stage === stage);
  const stages = contracts.map((candidate) => candidate.stage);
  if (contract?.base === undefined || runsWhole(stage, leg, stages)) return [];
  const parent = path.dirname(packageDir);
  const baseDir = path.join(parent, contract.base);
  const childDirs = contracts
    .filter((candidate) => candidate.base === stage)
    .map((child) => path.join(parent, child.stage));
  const text = (dir: string, file: string) => {
    const full = path.join(dir, file);
    return existsSync(full) ? readFileSync(full, "utf8") : undefined;
  };
  const sameIn = (dir: string, file: string) => text(dir, file) === text(packageDir, file);
  const sameManifest = manifest(baseDir) === manifest(packageDir);
  const commit = leg === "full" ? (slice ?? commitSlice()) : undefined;
  const testDir = path.join(packageDir, "test");
  return readdirSync(testDir)
    .sort()
    .filter((name) => name.endsWith(".test.ts") && name !== "cli.test.ts")
    .map((name) => `test/${name}`)
    .filter((file) => {
      if (!sameIn(baseDir, file)) return false; // added or changed here: it runs
      const reached = reachedFiles(packageDir, file);
      if (sameManifest && reached.every((other) => sameIn(baseDir, other))) return true;
      if (commit === undefined) return true; // the floor leg runs only what changed
      if (childDirs.length > 0 && !childDirs.some((child) => sameIn(child, file))) return false;
      return scenarioSlice(stage, file) !== commit;
    });
}

// A file that replaces a module (`vi.mock`, `vi.doMock`) needs a module registry of its own: in a
// worker that other files share, the module is already loaded, unreplaced. So does a file that
// says so on a line of its own, `// Runs in a worker of its own: <why>`, for what no pattern shows
// (a variable a module reads once a process, set before the module is loaded). Every other file
// runs in shared workers (decision 0089), which import Vitest, test-kit and the package's modules
// once rather than once a file.
const REPLACES_MODULE = /\bvi\.(?:do)?[mM]ock\(|\bvi\.resetModules\(/;
const ASKS_FOR_ITS_OWN = /^\/\/ Runs in a worker of its own: \S/m;

// The test files (relative to the package) that must run isolated, sorted.
export function isolatedTestFiles(packageDir: string): string[] {
  return filesUnder(packageDir, "test")
    .filter((file) => file.endsWith(".test.ts"))
    .filter((file) => {
      const text = readFileSync(path.join(packageDir, file), "utf8");
      return REPLACES_MODULE.test(text) || ASKS_FOR_ITS_OWN.test(text);
    });
}

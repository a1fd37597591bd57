// A class of learners' projects as an instructor gets them, for the class-grading tests: a
// finished Day 2 TypeScript project (day-2-v3's sources, installed), the same with each
// tool_result in its own user message, a standard-library Python project, and a TypeScript
// project nobody installed. Each says how it starts in agent-code.check.json.
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stageDir } from "../lib/command.ts";
import { AGENT_CODE } from "./python-agent-code.ts";

const ONE_MESSAGE = 'messages.push({ role: "user", content: results });';
const EACH_ITS_OWN = 'for (const r of results) messages.push({ role: "user", content: [r] });';

// A stage's sources as a learner's project, with one edit to src/agent.ts when given.
export function typescriptProject(
  dir: string,
  options: { stage: string; installed: boolean; edit?: [string, string] },
): void {
  const { installed, edit } = options;
  const STAGE = stageDir(options.stage);
  cpSync(join(STAGE, "src"), join(dir, "src"), { recursive: true });
  cpSync(join(STAGE, "package.json"), join(dir, "package.json"));
  writeFileSync(join(dir, "agent-code.check.json"), '{ "language": "typescript" }\n');
  // Installed: the stage's own packages stand in for `pnpm install`, each linked into a
  // node_modules of the project's own, as pnpm makes one, so that the bundle the check writes
  // under node_modules/.cache is this project's: projects checked at once never share it.
  if (installed) {
    mkdirSync(join(dir, "node_modules"), { recursive: true });
    for (const name of readdirSync(join(STAGE, "node_modules"))) {
      if (name === ".cache") continue;
      symlinkSync(join(STAGE, "node_modules", name), join(dir, "node_modules", name), "dir");
    }
  }
  if (edit !== undefined) {
    const file = join(dir, "src", "agent.ts");
    const text = readFileSync(file, "utf8");
    if (text.split(edit[0]).length !== 2) throw new Error(`agent.ts must hold once: ${edit[0]}`);
    writeFileSync(
      file,
      text.replace(edit[0], () => edit[1]),
    );
  }
}

export function writeClass(dir: string, options: { python: boolean }): void {
  const stage = "day-2-v3";
  typescriptProject(join(dir, "ada"), { stage, installed: true });
  typescriptProject(join(dir, "brian"), {
    stage,
    installed: true,
    edit: [ONE_MESSAGE, EACH_ITS_OWN],
  });
  typescriptProject(join(dir, "dana"), { stage, installed: false });
  if (options.python) pythonProject(join(dir, "chen"));
}

// The standard-library Python agent-code, saying how it starts.
export function pythonProject(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "agent_code.py"), AGENT_CODE);
  writeFileSync(
    join(dir, "agent-code.check.json"),
    '{ "command": ["python3", "agent_code.py"] }\n',
  );
}

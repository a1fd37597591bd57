// A class of learners' projects as an instructor gets them, for the class-grading tests (issue #44's
// class of five): a finished Day 2 TypeScript project (day-2-v3's sources, installed), which has
// outgrown Day 2 v1's no-tools answer; the same with one bug (each tool_result in its own user
// message); a standard-library Python project; one whose sources do not parse; and one whose echo
// tool answers `hi`, the word the pages show, whatever it is asked. Each says how it starts in
// agent-code.check.json.
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stageDir } from "../lib/command.ts";
import { AGENT_CODE } from "./python-agent-code.ts";

const ONE_MESSAGE = 'messages.push({ role: "user", content: results });';
const EACH_ITS_OWN = 'for (const r of results) messages.push({ role: "user", content: [r] });';
const ECHO = 'return String(args.text ?? "");';
const ECHO_LEARNT = 'return "hi";';

// A stage's sources as a learner's project, with one edit to a file of src/ (agent.ts unless
// `file` names another) when given.
export function typescriptProject(
  dir: string,
  options: { stage: string; installed: boolean; edit?: [string, string]; file?: string },
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
    const name = options.file ?? "agent.ts";
    const file = join(dir, "src", name);
    const text = readFileSync(file, "utf8");
    if (text.split(edit[0]).length !== 2) throw new Error(`${name} must hold once: ${edit[0]}`);
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
  // A `(` too many: esbuild stops at src/agent.ts.
  typescriptProject(join(dir, "dana"), {
    stage,
    installed: true,
    edit: [ONE_MESSAGE, `${ONE_MESSAGE}(`],
  });
  typescriptProject(join(dir, "eve"), {
    stage,
    installed: true,
    file: "tools.ts",
    edit: [ECHO, ECHO_LEARNT],
  });
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

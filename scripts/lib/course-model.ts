// `pnpm course-model <stage>/<scenario>`: a model on the learner's machine for a page's manual
// checkpoint. It sets up the scenario's world as the contract does (its folder, its home, the fake
// server with the scenario's script, the fake web), prints the one command line that runs the
// learner's own project against it, and reports each request as it arrives. No key, no network:
// the model is the scenario's script, so it answers whatever the prompt says (decision 0071).
import {
  findContract,
  type PreparedScenario,
  prepareScenario,
  type RunObserved,
  type RunSpec,
  type Scenario,
} from "@agent-code/test-kit";
import { requireStage, UsageError } from "./command.ts";
import type { Problem } from "./docs-pages.ts";
import { shellQuote } from "./docs-replays.ts";

// The key the printed command gives the fake server: any value will do, this one says what it is.
export const COURSE_MODEL_KEY = "course-model";

// How a page names an offline checkpoint: `course-model day-5-v1/bash-yes`.
const REFERENCE = /\bcourse-model ([a-z0-9-]+)\/([a-z0-9-]+)/g;

// The variables the printed command sets; the others of a contract run only serve the check (its
// sandbox, the OpenAI base URLs of the appendix, the web's when there is no web).
const ALWAYS = ["ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN", "AGENT_CODE_HOME"];
const WEB = ["AGENT_CODE_ALLOW_LOCAL_FETCH", "AGENT_CODE_SEARCH_BASE_URL", "TAVILY_API_KEY"];
const OPENAI = ["OPENAI_BASE_URL", "OPENAI_CHAT_BASE_URL"];

export interface CourseModel {
  stage: string;
  scenario: Scenario;
  prepared: PreparedScenario;
  // What the learner types in their project: variables, then `pnpm start -- <args>`.
  command: string;
  // Lines for the learner to type once it runs (the scenario's stdin), if any.
  typed: string[];
  // How many replies the script holds.
  replies: number;
  // The scenario's later runs (`runs`), in order: the learner starts each once the one before it
  // has finished (decision 0071's addendum).
  later: LaterRun[];
}

export interface LaterRun {
  // Its place among the scenario's runs: 1 for the second.
  index: number;
  spec: RunSpec;
  // The earlier runs whose output its arguments are built from (0 for the first): the learner
  // pastes what those printed before its line can be printed.
  reads: number[];
  // Whether its line waits until the learner says the run before it has finished: when it reads
  // an earlier run's output, or when the scenario changes files between runs (`between`).
  waits: boolean;
  typed: string[];
}

// The scenario a page or a learner names, by id or by an old id (an alias).
export function findScenario(reference: string): { stage: string; scenario: Scenario } {
  const match = /^([a-z0-9-]+)\/([a-z0-9-]+)$/.exec(reference);
  if (match === null) {
    throw new UsageError(
      `name a scenario as <stage>/<scenario>, such as day-5-v1/bash-yes: got "${reference}"`,
    );
  }
  const [, stage = "", id = ""] = match;
  const contract = findContract(requireStage(stage));
  if (contract === undefined) throw new UsageError(`unknown stage: ${stage}`);
  const scenario = contract.scenarios.find(
    (candidate) => candidate.id === id || candidate.aliases?.includes(id) === true,
  );
  if (scenario === undefined) {
    throw new UsageError(
      `${stage} has no scenario ${id} (pnpm check ${stage} --verbose lists them)`,
    );
  }
  if (scenario.server === undefined) {
    throw new UsageError(
      `${stage}/${id} sends no request: it needs no model, run it with pnpm check`,
    );
  }
  if ((scenario.startIn ?? "project") !== "project") {
    throw new UsageError(
      `${stage}/${id} starts your agent in a folder of its own: run it with pnpm check`,
    );
  }
  return { stage, scenario };
}

export async function startCourseModel(reference: string, seed?: number): Promise<CourseModel> {
  const { stage, scenario } = findScenario(reference);
  const prepared = await prepareScenario(scenario, {
    key: COURSE_MODEL_KEY,
    ...(seed === undefined ? {} : { seed }),
  });
  const later = (scenario.runs ?? []).map((spec, offset): LaterRun => {
    const index = offset + 1;
    const { reads } = laterArgs(prepared, spec, index, []);
    return {
      index,
      spec,
      reads,
      waits: reads.length > 0 || scenario.between !== undefined,
      typed: typedLines(spec.stdin),
    };
  });
  return {
    stage,
    scenario,
    prepared,
    command: commandLine(stage, scenario, prepared, prepared.args),
    typed: typedLines(scenario.stdin),
    replies: prepared.steps.length,
    later,
  };
}

// The line that starts one run: the variables, then `pnpm start -- <args>`. A later run's own
// variables (its `env`) go over the scenario's.
function commandLine(
  stage: string,
  scenario: Scenario,
  prepared: PreparedScenario,
  args: string[],
  spec?: RunSpec,
): string {
  const own = typeof spec?.env === "function" ? spec.env(prepared.context) : (spec?.env ?? {});
  const env: Record<string, string | undefined> = { ...prepared.env, ...own };
  const names = [
    ...ALWAYS,
    ...(prepared.web === undefined ? [] : WEB),
    ...(stage.startsWith("appendix-") ? OPENAI : []),
    ...Object.keys(scenarioEnv(scenario, prepared)),
    ...Object.keys(own),
  ];
  const unique = [...new Set(names)];
  const unset = unique.filter((name) => env[name] === undefined);
  const set = unique.filter((name) => env[name] !== undefined);
  const words = [
    ...(unset.length === 0 ? [] : ["env", ...unset.flatMap((name) => ["-u", name])]),
    ...set.map((name) => `${name}=${shellQuote(env[name] ?? "")}`),
    "pnpm",
    "start",
    "--",
    ...args.map(shellQuote),
  ];
  return words.join(" ");
}

function typedLines(stdin: string | undefined): string[] {
  return (stdin ?? "").split("\n").filter((line, index, all) => {
    return !(line === "" && index === all.length - 1);
  });
}

function scenarioEnv(scenario: Scenario, prepared: PreparedScenario): Record<string, unknown> {
  const { env } = scenario;
  return typeof env === "function" ? env(prepared.context) : (env ?? {});
}

// A later run's arguments, built from what the earlier runs printed as far as it is known
// (`outputs[i]`: what the learner pasted of run i + 1's output; nothing else of a run is known
// here, so its exit code reads null and its stderr empty), and which earlier runs they read.
function laterArgs(
  prepared: PreparedScenario,
  spec: RunSpec,
  index: number,
  outputs: (string | undefined)[],
): { args: string[]; reads: number[] } {
  const { args } = spec;
  if (typeof args !== "function") return { args, reads: [] };
  const reads = new Set<number>();
  const runs: RunObserved[] = Array.from({ length: index }, (_, run) => {
    const stdout = outputs[run] ?? "";
    return {
      command: [],
      trace: [],
      stdout,
      stdoutLines: stdout === "" ? [] : stdout.replace(/\n$/, "").split("\n"),
      stderr: "",
      exitCode: null,
      signal: null,
      durationMs: 0,
      firstRequest: 0,
      endRequest: 0,
    };
  });
  const before = new Proxy(runs, {
    get(target, key, receiver) {
      if (typeof key === "string" && /^\d+$/.test(key)) reads.add(Number(key));
      return Reflect.get(target, key, receiver);
    },
  });
  const built = args(prepared.context, before);
  return { args: built, reads: [...reads].filter((run) => run < index).sort((a, b) => a - b) };
}

// The line that starts a later run, given what the learner pasted of the runs it reads.
export function laterCommand(
  model: CourseModel,
  run: LaterRun,
  outputs: (string | undefined)[] = [],
): string {
  const { args } = laterArgs(model.prepared, run.spec, run.index, outputs);
  return commandLine(model.stage, model.scenario, model.prepared, args, run.spec);
}

// What the command prints for a later run: `then:`, its line, and what to type.
export function laterLines(
  model: CourseModel,
  run: LaterRun,
  outputs: (string | undefined)[] = [],
): string[] {
  return ["then:", `  ${laterCommand(model, run, outputs)}`, ...typedLine(run.typed)];
}

// What the command asks before a later run's line that waits: that the run before has finished,
// and what it printed when the line is built from it.
export function waitLine(run: LaterRun): string {
  const finished = `when run ${run.index} has finished`;
  if (run.reads.length === 0)
    return `${finished}, press Enter here for run ${run.index + 1}'s line`;
  const names = run.reads.map((read) => `run ${read + 1}`).join(" and ");
  return `${finished}, paste here what ${names} printed (run ${run.index + 1}'s line is made from it), then an empty line`;
}

function typedLine(typed: string[]): string[] {
  if (typed.length === 0) return [];
  return [`then type, a line at a time: ${typed.map((line) => shellQuote(line)).join(", ")}`];
}

// What the command prints before it waits: the scenario, the folder, the line to type.
export function introLines(model: CourseModel): string[] {
  const { stage, scenario, prepared, replies } = model;
  const server = prepared.server;
  const lines = [
    `course model: ${stage}/${scenario.id}, ${scenario.title}`,
    `its script holds ${replies} ${replies === 1 ? "reply" : "replies"}, given in order whatever the prompt says`,
    ...(model.later.length === 0
      ? []
      : [
          `it runs your agent ${model.later.length + 1} times, one after the other, in the same folder and home`,
        ]),
    ...(scenario.files === undefined && scenario.homeFiles === undefined
      ? []
      : [`folder: ${prepared.context.dir} (work/ is where your agent works, home/ its settings)`]),
    "",
    "in your project, in a second terminal:",
    `  ${model.command}`,
  ];
  lines.push(...typedLine(model.typed));
  // The later runs' lines that need nothing from the learner come at once, up to the first that
  // waits; the command prints the rest as the learner goes (laterLines, waitLine).
  for (const run of model.later) {
    if (run.waits) {
      lines.push(waitLine(run));
      break;
    }
    lines.push(...laterLines(model, run));
  }
  lines.push("");
  if (server !== undefined)
    lines.push(`what your agent sent: curl -s ${server.controlUrl}/requests`);
  lines.push("Ctrl-C here stops the model and removes the folder; start it again to run again.");
  return lines;
}

// A line per request the server has answered since `seen`: accepted, or refused as the real API
// would refuse it (status, place, message).
export function requestLines(model: CourseModel, seen: number): string[] {
  const requests = model.prepared.server?.requests() ?? [];
  return requests.slice(seen).map((request) => {
    const number = request.index + 1;
    const { verdict } = request;
    if (verdict.accepted) {
      const last = number === model.replies ? " (the script's last reply)" : "";
      return number > model.replies
        ? `request ${number}: beyond the script (it holds ${model.replies})`
        : `request ${number}: answered${last}`;
    }
    const where = verdict.location === undefined ? "" : ` at ${verdict.location}`;
    return `request ${number}: refused with ${verdict.status}${where}: ${verdict.message}`;
  });
}

// The problems of a page's `course-model <stage>/<scenario>` references: each must name a scenario
// that exists and sends requests (docs:check).
export function courseModelProblems(file: string, text: string): Problem[] {
  const problems: Problem[] = [];
  for (const match of text.matchAll(REFERENCE)) {
    const line = text.slice(0, match.index).split("\n").length;
    try {
      findScenario(`${match[1]}/${match[2]}`);
    } catch (error) {
      problems.push({ file, line, message: (error as Error).message });
    }
  }
  return problems;
}

// Every `course-model` reference of the pages' text, for the test that runs each against its stage.
export function courseModelReferences(text: string): string[] {
  return [...text.matchAll(REFERENCE)].map((match) => `${match[1]}/${match[2]}`);
}

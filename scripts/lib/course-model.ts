// `pnpm course-model <stage>/<scenario>`: a model on the learner's machine for a page's manual
// checkpoint. It sets up the scenario's world as the contract does (its folder, its home, the fake
// server with the scenario's script, the fake web), prints the one command line that runs the
// learner's own project against it, and reports each request as it arrives. No key, no network:
// the model is the scenario's script, so it answers whatever the prompt says (decision 0071).
import {
  findContract,
  type PreparedScenario,
  prepareScenario,
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
  if (scenario.runs !== undefined) {
    throw new UsageError(
      `${stage}/${id} runs your agent several times in a row: run it with pnpm check`,
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
  const names = [
    ...ALWAYS,
    ...(prepared.web === undefined ? [] : WEB),
    ...(stage.startsWith("appendix-") ? OPENAI : []),
    ...Object.keys(scenarioEnv(scenario, prepared)),
  ];
  const unique = [...new Set(names)];
  const unset = unique.filter((name) => prepared.env[name] === undefined);
  const set = unique.filter((name) => prepared.env[name] !== undefined);
  const words = [
    ...(unset.length === 0 ? [] : ["env", ...unset.flatMap((name) => ["-u", name])]),
    ...set.map((name) => `${name}=${shellQuote(prepared.env[name] ?? "")}`),
    "pnpm",
    "start",
    "--",
    ...prepared.args.map(shellQuote),
  ];
  const typed = (scenario.stdin ?? "").split("\n").filter((line, index, all) => {
    return !(line === "" && index === all.length - 1);
  });
  return {
    stage,
    scenario,
    prepared,
    command: words.join(" "),
    typed,
    replies: prepared.steps.length,
  };
}

function scenarioEnv(scenario: Scenario, prepared: PreparedScenario): Record<string, unknown> {
  const { env } = scenario;
  return typeof env === "function" ? env(prepared.context) : (env ?? {});
}

// What the command prints before it waits: the scenario, the folder, the line to type.
export function introLines(model: CourseModel): string[] {
  const { stage, scenario, prepared, replies } = model;
  const server = prepared.server;
  const lines = [
    `course model: ${stage}/${scenario.id}, ${scenario.title}`,
    `its script holds ${replies} ${replies === 1 ? "reply" : "replies"}, given in order whatever the prompt says`,
    ...(scenario.files === undefined && scenario.homeFiles === undefined
      ? []
      : [`folder: ${prepared.context.dir} (work/ is where your agent works, home/ its settings)`]),
    "",
    "in your project, in a second terminal:",
    `  ${model.command}`,
  ];
  if (model.typed.length > 0) {
    lines.push(
      `then type, a line at a time: ${model.typed.map((line) => shellQuote(line)).join(", ")}`,
    );
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

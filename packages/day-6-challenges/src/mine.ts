// Memories mined from a session (a Day 6 challenge): `agent-code memory mine <id>` reads the
// prompts of one of the project's sessions, proposes a note for each line the person typed that
// starts with "remember", "always" or "never", and saves each one the person answers yes to. The
// rule is the code's, so no model is asked; the person decides, one note at a time.
import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { forTerminal, type Ui } from "./diff-ui.ts";
import {
  bodyProblem,
  type MemoryType,
  readMemories,
  TITLE_MAX,
  titleProblem,
  writeMemory,
} from "./memory.ts";
import { projectKey, realFolders, SESSION_ID, SessionError } from "./session.ts";

// A note to propose: what memory_write takes.
export interface Proposal {
  type: MemoryType;
  title: string;
  body: string;
}

// The lines worth proposing: the first word says the person wants it kept, or states a rule.
const LEAD = /^(remember|always|never)\b/i;
// What "remember" brings before the fact itself: `remember that`, `remember:`, `remember,`.
const REMEMBER = /^remember\b(\s+that\b)?[\s:,-]*/i;
// What a title may not hold (memory.ts's rule): control and bidi characters, `[ ] < >`.
const NOT_IN_TITLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the point
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069[\]<>]/g;

// The person's prompts in a session log, oldest first: every user message of text, not the
// results of tools. A line that is not a message record is passed over: nothing read here is
// sent anywhere, and the person sees each proposal before it is saved.
export function promptsOf(log: string): string[] {
  const prompts: string[] = [];
  for (const line of log.split("\n")) {
    let record: { type?: unknown; message?: { role?: unknown; content?: unknown } };
    try {
      record = JSON.parse(line);
    } catch {
      continue;
    }
    const message = record?.type === "message" ? record.message : undefined;
    if (message?.role !== "user") continue;
    if (typeof message.content === "string") prompts.push(message.content);
    else if (Array.isArray(message.content) && message.content.every((b) => b?.type === "text")) {
      prompts.push(message.content.map((block) => String(block.text)).join("\n"));
    }
  }
  return prompts;
}

// A note from one line the person typed, or undefined when the line is not one to keep. The body
// is the line as typed; the title is its fact (after `remember that`), made one clean line of at
// most 80 characters. `remember` makes a project note; `always` and `never`, feedback.
export function proposalFrom(line: string): Proposal | undefined {
  const typed = line.trim();
  const lead = LEAD.exec(typed)?.[1]?.toLowerCase();
  if (lead === undefined) return undefined;
  const fact = lead === "remember" ? typed.replace(REMEMBER, "") : typed;
  const clean = fact
    .replace(NOT_IN_TITLE, " ")
    .replace(/\s+/g, " ")
    .replace(/[.!]+$/, "")
    .trim();
  const title = [...clean].slice(0, TITLE_MAX).join("").trim();
  const proposal: Proposal = {
    type: lead === "remember" ? "project" : "feedback",
    title: title.charAt(0).toUpperCase() + title.slice(1),
    body: typed,
  };
  if (titleProblem(proposal.title) !== undefined || bodyProblem(proposal.body) !== undefined) {
    return undefined;
  }
  return proposal;
}

// Every note the prompts propose, each line once, in the order typed.
export function propose(prompts: string[]): Proposal[] {
  const seen = new Set<string>();
  const proposals: Proposal[] = [];
  for (const line of prompts.flatMap((prompt) => prompt.split("\n"))) {
    const proposal = proposalFrom(line);
    if (proposal === undefined || seen.has(proposal.body)) continue;
    seen.add(proposal.body);
    proposals.push(proposal);
  }
  return proposals;
}

// The log of session `id` of this project, read and never written: opened without following a
// link, a regular file only. A running agent-code may be writing it; what is there is enough.
export function readSessionLog(home: string, cwd: string, id: string): string {
  if (!SESSION_ID.test(id)) throw new SessionError(`no session ${id}`);
  const folder = realFolders(home, ["projects", projectKey(cwd), "sessions"], false);
  if (folder === undefined) throw new SessionError(`no session ${id} in ${cwd}`);
  let fd: number;
  try {
    fd = openSync(join(folder, `${id}.jsonl`), constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    throw new SessionError(`no session ${id} in ${cwd}`);
  }
  try {
    if (!fstatSync(fd).isFile()) throw new SessionError(`no session ${id} in ${cwd}`);
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

// Shows each proposal as memory_write does, asks, and saves on a yes; a note already saved with
// the same title and body is not proposed again. Returns how many were saved. Asks no model.
export async function mineSession({
  home,
  cwd,
  id,
  ui,
}: {
  home: string;
  cwd: string;
  id: string;
  ui: Ui;
}): Promise<number> {
  const prompts = promptsOf(readSessionLog(home, cwd, id));
  const saved = new Set(readMemories(home, cwd).map((memory) => `${memory.title}\n${memory.body}`));
  const proposals = propose(prompts).filter((p) => !saved.has(`${p.title}\n${p.body}`));
  const from = `${prompts.length} ${prompts.length === 1 ? "prompt" : "prompts"}`;
  if (proposals.length === 0) {
    ui.print(`session ${id}: no memories to propose in ${from}`);
    return 0;
  }
  const count = proposals.length === 1 ? "1 memory" : `${proposals.length} memories`;
  ui.print(`session ${id}: ${count} proposed from ${from}`);
  let written = 0;
  for (const { type, title, body } of proposals) {
    ui.print(`Memory (${type}): ${title}`);
    ui.print(`  ${forTerminal(body)}`);
    if (!(await ui.confirm("Save this memory?"))) {
      ui.print("not saved");
      continue;
    }
    const file = writeMemory({ home, cwd, type, title, body });
    ui.print(`Memory saved: [${type}] ${title} -> ${file}`);
    written += 1;
  }
  ui.print(`saved ${written} of ${proposals.length}`);
  return written;
}

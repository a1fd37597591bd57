// The headline of a check (decision 0056): the highest stage of the main line reached, judged
// without the scenarios the project has outgrown, and the next thing to fix above it.
import { type Contract, findContract, isPositive } from "@agent-code/test-kit";
import type { NextToFix, StageReport } from "./check-run.ts";
import { MAIN_LINE } from "./command.ts";

// The latest main-line stage, in course order, that was reached (or passed, for a report that
// does not say). Each stage is judged on its own: an earlier stage that misses does not hide a
// later one that is reached.
export function highestStagePassed(
  stages: { stage: string; passed: boolean; reached?: boolean }[],
  order: string[] = MAIN_LINE,
): string | null {
  let highest: string | null = null;
  for (const stage of order) {
    if (stages.some((report) => report.stage === stage && (report.reached ?? report.passed))) {
      highest = stage;
    }
  }
  return highest;
}

// The headline (decision 0056). A main-line stage is judged on its deciding scenarios, but a miss
// of one that a later main-line stage replaced or dropped is set aside (`outgrown`) when this
// project does what that later stage asks: its replacement passed, or, for a dropped one, most of
// what the later stage adds passed. Sets `mainLine`, `reached` and `outgrown` on the reports.
// `evidence` (decision 0070): scenarios of later stages the check did not hold, run only to judge
// whether misses of the stages it holds are outgrown; never a headline, never the next to fix.
export function judgeHeadline(
  stages: StageReport[],
  strict: boolean,
  course: Course & { evidence?: StageReport[] } = {},
): { highestStagePassed: string | null; optionalPassed: string[]; nextToFix: NextToFix | null } {
  const mainLine = course.mainLine ?? MAIN_LINE;
  const contract = course.contract ?? findContract;
  const held = (stage: string | undefined) => contract(stage ?? "")?.scenarios ?? [];
  const judged = [...stages, ...(course.evidence ?? [])];
  const shown = new Map(judged.map((report) => [report.stage, report]));
  const checked = new Map(stages.map((report) => [report.stage, report]));
  // The latest stage first: whether an earlier stage's miss is outgrown rests on what the later
  // stages showed, their own outgrown scenarios included.
  const latestFirst = [...judged].sort(
    (a, b) => mainLine.indexOf(b.stage) - mainLine.indexOf(a.stage),
  );
  for (const report of latestFirst) {
    const index = mainLine.indexOf(report.stage);
    report.mainLine = index >= 0;
    for (const scenario of report.scenarios) {
      scenario.outgrown = false;
      if (index < 0 || scenario.verdict !== "fail") continue;
      const object = held(report.stage).find((candidate) => candidate.id === scenario.id);
      if (object === undefined) continue;
      // The first later stage that does not keep this very scenario: it replaced or dropped it.
      const later = mainLine.slice(index + 1).find((stage) => !held(stage).includes(object));
      const laterReport = later === undefined ? undefined : shown.get(later);
      if (later === undefined || laterReport === undefined) continue;
      const replacement = laterReport.scenarios.find((candidate) => candidate.id === scenario.id);
      const replaced = held(later).find((candidate) => candidate.id === scenario.id);
      const begun = movedOn(
        laterReport,
        held(later),
        held(mainLine[mainLine.indexOf(later) - 1]),
        strict,
      );
      // Only a run that should succeed is evidence: a program that crashes at start passes every
      // scenario that wants a failed run, and must not be credited with a stage for it.
      scenario.outgrown =
        replacement === undefined
          ? begun
          : replacement.verdict === "pass" &&
            ((replaced !== undefined && isPositive(replaced)) || begun);
    }
    report.reached = report.scenarios.every(
      (scenario) => scenario.verdict !== "fail" || scenario.outgrown,
    );
  }
  const highest = highestStagePassed(stages, mainLine);
  const above = mainLine.slice(highest === null ? 0 : mainLine.indexOf(highest) + 1);
  let nextToFix: NextToFix | null = null;
  for (const stage of above) {
    const misses = (checked.get(stage)?.scenarios ?? []).filter(
      (scenario) => scenario.verdict === "fail" && !scenario.outgrown,
    );
    // In course order: what an earlier stage taught first, then the stage's own.
    const introduced = (id: string) =>
      mainLine.findIndex((line) => held(line).some((candidate) => candidate.id === id));
    const [first] = misses.sort((a, b) => introduced(a.id) - introduced(b.id));
    if (first === undefined) continue;
    nextToFix = {
      stage,
      id: first.id,
      title: first.title,
      message: first.failures[0]?.message ?? "missed",
      docs: first.failures.find((failure) => failure.docs !== null)?.docs ?? null,
    };
    break;
  }
  return {
    highestStagePassed: highest,
    optionalPassed: stages
      .filter((report) => !report.mainLine && report.passed)
      .map((report) => report.stage),
    nextToFix,
  };
}

interface Course {
  mainLine?: string[];
  contract?: (stage: string) => Contract | undefined;
}

// The first later main-line stage that no longer holds this very scenario of `stage`: it replaced
// the scenario (a scenario of the same id, changed) or dropped it. Undefined when every later stage
// keeps it, or for a stage off the main line.
export function changedBy(stage: string, id: string, course: Course = {}): string | undefined {
  const mainLine = course.mainLine ?? MAIN_LINE;
  const contract = course.contract ?? findContract;
  const index = mainLine.indexOf(stage);
  const object = contract(stage)?.scenarios.find((scenario) => scenario.id === id);
  if (index < 0 || object === undefined) return undefined;
  return mainLine
    .slice(index + 1)
    .find((later) => !(contract(later)?.scenarios ?? []).includes(object));
}

// What a check must also run to judge its stages fairly (decision 0070): a stage whose every
// deciding miss was changed by a later stage the check does not hold is reached if the project
// does what that later stage asks, so that stage's version of each miss runs, and, where that
// version wants a failed run or the miss was dropped, the positive deciding scenarios the later
// stage adds (whether it is begun). Stages the evidence holds are asked the same in turn, so a
// project several stages on is judged as it is; nothing already run is asked twice. The reports
// are read as `judgeHeadline` left them (`outgrown` set). Stage → scenario ids, in contract order.
export function evidenceWanted(
  stages: StageReport[],
  evidence: StageReport[],
  strict: boolean,
  course: Course = {},
): Map<string, string[]> {
  const mainLine = course.mainLine ?? MAIN_LINE;
  const contract = course.contract ?? findContract;
  const held = (stage: string | undefined) => contract(stage ?? "")?.scenarios ?? [];
  const checked = new Set(stages.map((report) => report.stage));
  const ran = new Map<string, Set<string>>();
  for (const report of [...stages, ...evidence]) {
    const ids = ran.get(report.stage) ?? new Set<string>();
    for (const scenario of report.scenarios) ids.add(scenario.id);
    ran.set(report.stage, ids);
  }
  const wanted = new Map<string, Set<string>>();
  const want = (stage: string, id: string) => {
    if (ran.get(stage)?.has(id)) return;
    wanted.set(stage, (wanted.get(stage) ?? new Set<string>()).add(id));
  };
  for (const report of [...stages, ...evidence]) {
    if (!mainLine.includes(report.stage)) continue;
    const misses = report.scenarios.filter(
      (scenario) => scenario.verdict === "fail" && !scenario.outgrown,
    );
    const laters = misses.map((scenario) => changedBy(report.stage, scenario.id, course));
    if (misses.length === 0 || laters.some((later) => later === undefined)) continue;
    misses.forEach((scenario, index) => {
      const later = laters[index] ?? "";
      if (checked.has(later)) return;
      const replacement = held(later).find((candidate) => candidate.id === scenario.id);
      if (replacement !== undefined) want(later, replacement.id);
      if (replacement !== undefined && isPositive(replacement)) return;
      const before = held(mainLine[mainLine.indexOf(later) - 1]);
      for (const added of held(later)) {
        const decides = strict || added.level === "core";
        if (decides && !before.includes(added) && isPositive(added)) want(later, added.id);
      }
    });
  }
  return new Map(
    [...wanted].map(([stage, ids]) => [
      stage,
      held(stage)
        .map((scenario) => scenario.id)
        .filter((id) => ids.has(id)),
    ]),
  );
}

// A later stage counts as begun when its deciding scenarios that the stage before it did not
// have, those whose run should succeed, mostly pass (or are outgrown in turn): then what that
// later stage dropped is outgrown, not missed.
function movedOn(
  report: StageReport,
  scenarios: Contract["scenarios"],
  before: Contract["scenarios"],
  strict: boolean,
): boolean {
  const added = report.scenarios.filter((scenario) => {
    const object = scenarios.find((candidate) => candidate.id === scenario.id);
    const decides = strict || scenario.level === "core";
    return decides && object !== undefined && !before.includes(object) && isPositive(object);
  });
  // Outgrown in turn (a still later stage changed it, and the project does what that one asks)
  // counts as done.
  const done = added.filter((scenario) => scenario.verdict === "pass" || scenario.outgrown).length;
  return added.length > 0 && done * 2 > added.length;
}

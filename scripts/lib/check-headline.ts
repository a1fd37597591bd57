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
export function judgeHeadline(
  stages: StageReport[],
  strict: boolean,
  course: { mainLine?: string[]; contract?: (stage: string) => Contract | undefined } = {},
): { highestStagePassed: string | null; optionalPassed: string[]; nextToFix: NextToFix | null } {
  const mainLine = course.mainLine ?? MAIN_LINE;
  const contract = course.contract ?? findContract;
  const held = (stage: string | undefined) => contract(stage ?? "")?.scenarios ?? [];
  const checked = new Map(stages.map((report) => [report.stage, report]));
  // The latest stage first: whether an earlier stage's miss is outgrown rests on what the later
  // stages showed, their own outgrown scenarios included.
  const latestFirst = [...stages].sort(
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
      const laterReport = later === undefined ? undefined : checked.get(later);
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

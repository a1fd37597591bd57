// Every checkpoint a page runs offline (`pnpm course-model <stage>/<scenario>`) is run here against
// its stage, as a learner would run it: the printed line pasted into bash, with the stage's bundle
// for their `pnpm start --`, the scenario's answers typed in. The run must pass the scenario's own
// judgements, as in the contract, and have asked for every reply of the script.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { ROOT } from "../lib/command.ts";
import { courseModelReferences, startCourseModel } from "../lib/course-model.ts";
import { runPrinted } from "./course-model-run.ts";

const pages = readdirSync(join(ROOT, "docs"))
  .filter((name) => name.endsWith(".md"))
  .sort()
  .map((name) => ({ name, text: readFileSync(join(ROOT, "docs", name), "utf8") }));
const references = [...new Set(pages.flatMap((page) => courseModelReferences(page.text)))];

test("the Day 2 to Day 5 pages give every manual checkpoint an offline form", () => {
  const named = pages.filter(
    (page) => /^day-[2-5]/.test(page.name) && !page.name.includes("challenges"),
  );
  for (const page of named) {
    // A checkpoint that needs a key says "with a key"; its section then names a course model.
    for (const section of page.text.split(/\n(?=### Checkpoint)/).slice(1)) {
      const checkpoint = section.split(/\n(?=## |<!-- check:)/)[0] ?? "";
      if (/with a key/.test(checkpoint)) {
        expect(
          courseModelReferences(checkpoint),
          `${page.name}: ${checkpoint.split("\n")[0]}`,
        ).not.toEqual([]);
      }
    }
  }
  expect(references.length).toBeGreaterThan(15);
});

test.each(references)(
  "%s: the printed line passes the scenario's judgements, its whole script asked for",
  async (reference) => {
    const model = await startCourseModel(reference);
    try {
      const result = await runPrinted(model);
      expect(result.failures, result.run.stdout).toEqual([]);
      expect(result.requests.length).toBe(model.replies);
    } finally {
      await model.prepared.close();
    }
  },
);

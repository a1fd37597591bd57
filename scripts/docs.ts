// `pnpm docs:generate` fills the docs from the stages (code blocks, stage diffs, terminal
// replays, figures); `pnpm docs:check` proves they still match and that every link leads
// somewhere. The rules live in scripts/lib/docs-*.ts; the README's Docs section explains them.
import { paint, ROOT, runCommand, UsageError, useColour } from "./lib/command.ts";
import {
  checkDocs,
  type DocsReport,
  formatProblem,
  generateDocs,
  UNFINISHED_LESSONS,
} from "./lib/docs-tree.ts";

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const [command] = args;
  if (args.length !== 1 || (command !== "generate" && command !== "check")) {
    throw new UsageError("usage: pnpm docs:generate, or pnpm docs:check");
  }
  const started = performance.now();
  let report: DocsReport;
  if (command === "generate") {
    const generated = await generateDocs(ROOT);
    for (const file of generated.written) console.log(`wrote ${file}`);
    for (const file of generated.deleted) console.log(`deleted ${file}`);
    report = generated;
  } else {
    report = await checkDocs(ROOT);
  }
  for (const lesson of report.lessons) {
    const pending = UNFINISHED_LESSONS.includes(lesson.stage) && lesson.shown < lesson.changed;
    console.log(
      `${lesson.stage}: ${lesson.shown} of ${lesson.changed} changed lines shown${pending ? " (unfinished, decision 0032)" : ""}`,
    );
  }
  const colour = useColour(process.stderr);
  for (const problem of report.problems) {
    console.error(paint(colour, "red", formatProblem(problem)));
  }
  const { pages, blocks, figures, links, generated, problems } = report;
  const counts = `${pages} pages, ${blocks} blocks, ${figures} figures, ${links} links, ${generated} generated files`;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const verdict = problems.length === 0 ? "docs ok" : `docs: ${problems.length} problem(s)`;
  console.log(`${verdict}: ${counts}, in ${seconds} s`);
  return problems.length === 0 ? 0 : 1;
}

await runCommand(main);

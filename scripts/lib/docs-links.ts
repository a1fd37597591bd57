// Links in the docs and in the stage contracts must lead somewhere: the file exists in the
// repository and, for a Markdown page, the #anchor is one of its headings as GitHub makes them.
import { existsSync, readFileSync, statSync } from "node:fs";
import { posix } from "node:path";
import { contracts, headingAnchors } from "@agent-code/test-kit";
import { BATTERY_STAGES, batteryOf } from "@agent-code/test-kit/battery";
import { type Link, type Problem, treePath } from "./docs-pages.ts";

export type LinkChecker = (from: string, target: string) => string | undefined;

// Checks relative links from a page (a path relative to root): what is wrong with one, if
// anything. Each page's anchors are read once.
export function linkChecker(root: string): LinkChecker {
  const anchors = new Map<string, Set<string>>();
  function anchorsOf(path: string): Set<string> {
    const known = anchors.get(path) ?? headingAnchors(readFileSync(path, "utf8"));
    anchors.set(path, known);
    return known;
  }
  return (from, target) => {
    // Another site, an e-mail address: not ours to check offline.
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) return undefined;
    const [path = "", anchor] = target.split("#");
    const file = path === "" ? from : posix.join(posix.dirname(from), decodeURIComponent(path));
    if (file === ".." || file.startsWith("../")) return `${target} leads out of the repository`;
    const full = treePath(root, file);
    if (!existsSync(full)) return `${target}: ${file} does not exist`;
    // The site builds its pages from docs/ and serves nothing else there: a page's link to another
    // file of docs/ (a generated .diff, a schema) is a dead link that fails the site's build.
    if (from.startsWith("docs/") && file.startsWith("docs/") && !file.endsWith(".md")) {
      if (statSync(full).isFile()) return `${target}: the site serves only the pages of docs/`;
    }
    if (anchor === undefined || !file.endsWith(".md") || !statSync(full).isFile()) return undefined;
    if (anchorsOf(full).has(decodeURIComponent(anchor))) return undefined;
    return `${target}: ${file} has no heading with the anchor #${anchor}`;
  };
}

export function checkPageLinks(file: string, links: Link[], check: LinkChecker): Problem[] {
  return links.flatMap((link) => {
    const wrong = check(file, link.target);
    return wrong === undefined ? [] : [{ file, line: link.line, message: `broken link ${wrong}` }];
  });
}

// Every judgement's docs link, relative to the repository root; each distinct link once, named by
// the first scenario that uses it.
export function checkContractLinks(check: LinkChecker): Problem[] {
  const seen = new Set<string>();
  const problems: Problem[] = [];
  // The stages' contracts, then the bypass battery's (every command, whatever is on PATH).
  const batteries = BATTERY_STAGES.flatMap((stage) => {
    const battery = batteryOf(stage, { has: () => true });
    return battery === undefined ? [] : [{ ...battery, file: `${stage}-battery` }];
  });
  const all = [
    ...contracts.map((contract) => ({ ...contract, file: contract.stage })),
    ...batteries,
  ];
  for (const contract of all) {
    const file = `packages/test-kit/contracts/${contract.file}.ts`;
    for (const scenario of contract.scenarios) {
      for (const { docs } of scenario.judgements) {
        if (seen.has(docs)) continue;
        seen.add(docs);
        const wrong = docs === "" ? "is empty" : check("", docs);
        if (wrong === undefined) continue;
        problems.push({ file, message: `scenario ${scenario.id}: docs link ${wrong}` });
      }
    }
  }
  return problems;
}

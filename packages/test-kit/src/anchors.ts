// The anchors GitHub gives a Markdown page's headings, so docs links can be checked offline.

export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const match = fenced ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!match?.[1]) continue;
    const base = githubAnchor(match[1]);
    const count = seen.get(base) ?? 0;
    // GitHub numbers repeated headings: "faq", "faq-1", …
    anchors.add(count === 0 ? base : `${base}-${count}`);
    seen.set(base, count + 1);
  }
  return anchors;
}

// "## v2: one round of tool use" -> "v2-one-round-of-tool-use"; the site gives its headings the
// same ids, so one link works on GitHub and on the site.
export function githubAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

// What the site's Markdown renderer does beyond VitePress's own: links that leave docs/ go to the
// repository host, Mermaid blocks become a component that draws them in the browser, and the
// generated replays read as a terminal session, followed by the requests and responses of the same
// run when a wire is stored beside them.
import { statSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import { githubAnchor } from "@agent-code/test-kit";
import type { MarkdownOptions, MarkdownRenderer } from "vitepress";
import type { Repository } from "./repository.ts";
import { readWire, wireSteps } from "./wire.ts";

export interface SiteMarkdownOptions {
  root: string;
  docsDir: string;
  repository: Repository | undefined;
  // VitePress's `rewrites`: a page of docs/ -> where it is on the site ("README.md" -> "index.md").
  rewrites: Record<string, string>;
}

type Token = ReturnType<MarkdownRenderer["parse"]>[number];

// The site's `markdown` settings for VitePress.
export function markdownOptions(options: SiteMarkdownOptions): MarkdownOptions {
  return {
    // Headings get GitHub's ids, so `day-2.md#v2-one-round-of-tool-use` works in both places.
    anchor: { slugify: githubAnchor },
    config: (md) => siteMarkdown(md, options),
  };
}

export function siteMarkdown(md: MarkdownRenderer, options: SiteMarkdownOptions): void {
  paragraphsAsOnGitHub(md);
  md.core.ruler.push("agent-code-links", (state) => {
    const env = state.env as { realPath?: string; path?: string };
    const page = env.realPath ?? env.path;
    if (page === undefined) return;
    const served = env.path ?? page;
    for (const token of state.tokens) {
      if (token.type === "inline") rewriteLinks(token.children ?? [], page, served, options);
    }
  });
  md.core.ruler.push("agent-code-replays", (state) => {
    state.tokens.forEach((token, index) => {
      if (token.type !== "fence") return;
      const marker = state.tokens[index - 1];
      const replay = marker?.type === "html_block" && /^<!--\s*replay:/.test(marker.content);
      const session = token.info.trim() === "text" && token.content.startsWith("$ ");
      if (replay || session) token.info = "console";
      const name = replay ? /^<!--\s*replay:\s*([^/\s]+)\/(\S+?)\s*-->/.exec(marker.content) : null;
      if (name?.[1] !== undefined && name[2] !== undefined) {
        token.meta = { ...token.meta, replay: { stage: name[1], scenario: name[2] } };
      }
    });
  });
  const fence = md.renderer.rules.fence;
  md.renderer.rules.fence = (tokens, index, opts, env, self) => {
    const token = tokens[index];
    if (token?.info.trim() === "mermaid") {
      // Encoded so that Vue's template compiler sees one plain attribute, whatever the diagram.
      return `<MermaidDiagram graph="${encodeURIComponent(token.content)}" />\n`;
    }
    const html = fence
      ? fence(tokens, index, opts, env, self)
      : self.renderToken(tokens, index, opts);
    const replay = token?.meta?.replay as { stage: string; scenario: string } | undefined;
    return replay === undefined ? html : html + wireView(options.docsDir, replay);
  };
}

// The component that opens a replay into its wire, or nothing for a replay without one. It gets
// the steps worked out here, so the browser needs neither the file nor the code that reads it.
export function wireView(docsDir: string, { stage, scenario }: ReplayName): string {
  const wire = readWire(docsDir, stage, scenario);
  if (wire === undefined) return "";
  const { version, replay, kept } = wire;
  const data = JSON.stringify({ version, stage, scenario, replay, kept, steps: wireSteps(wire) });
  // Encoded like a Mermaid diagram: one plain attribute for Vue, whatever the JSON holds.
  return `<WireView wire="${encodeURIComponent(data)}" />\n`;
}

interface ReplayName {
  stage: string;
  scenario: string;
}

type BlockRule = Parameters<MarkdownRenderer["block"]["ruler"]["at"]>[1];

// CommonMark's block-level HTML tags: on GitHub only these (and comments, <script>, <pre>,
// <style>, <textarea>) may start a line that ends a paragraph.
export const BLOCK_TAGS = new Set(
  [
    "address article aside base basefont blockquote body caption center col colgroup dd details",
    "dialog dir div dl dt fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6",
    "head header hr html iframe legend li link main menu menuitem nav noframes ol optgroup option",
    "p param pre script search section style summary table tbody td textarea tfoot th thead title",
    "tr track ul",
  ]
    .join(" ")
    .split(" "),
);

// VitePress lets a line starting with any tag end a paragraph, so that a Vue component needs no
// blank line before it. A code span that wraps onto a line like `<n> <request|response> -->`
// is then cut in two on the site, though not on GitHub, and Vue's compiler fails on the halves.
// Here a lowercase tag that is neither block-level HTML nor a component (Capitalised, or with a
// hyphen) continues the paragraph, as on GitHub.
function paragraphsAsOnGitHub(md: MarkdownRenderer): void {
  // markdown-it names no public way to reach a rule's function; its list is `__rules__`.
  const rules = (md.block.ruler as unknown as { __rules__: Rule[] }).__rules__;
  const html = rules.find((rule) => rule.name === "html_block");
  if (html === undefined) return;
  const original = html.fn;
  md.block.ruler.at(
    "html_block",
    (state, start, end, silent) => {
      // `silent` is markdown-it asking whether this line may end the paragraph before it.
      if (silent) {
        const from = (state.bMarks[start] ?? 0) + (state.tShift[start] ?? 0);
        const line = state.src.slice(from, state.eMarks[start]);
        const tag = /^<\/?([a-z][a-z0-9]*)(?=[\s/>]|$)/.exec(line)?.[1];
        if (tag !== undefined && !BLOCK_TAGS.has(tag)) return false;
      }
      return original(state, start, end, silent);
    },
    { alt: html.alt },
  );
}

interface Rule {
  name: string;
  fn: BlockRule;
  alt: string[];
}

// The address on the host of a relative link from `page` that leaves docs/, or undefined for a
// link that stays inside (VitePress resolves those and reports the dead ones).
export function outsideLink(
  href: string,
  page: string,
  options: SiteMarkdownOptions,
): { path: string; url: string | undefined } | undefined {
  const { target, hash } = relativeTarget(href, page) ?? {};
  if (target === undefined) return undefined;
  const fromDocs = relative(options.docsDir, target);
  if (fromDocs !== ".." && !fromDocs.startsWith(`..${sep}`)) return undefined;
  const path = relative(options.root, target).split(sep).join("/");
  const { repository } = options;
  if (repository === undefined) return { path, url: undefined };
  const kind = isDirectory(target) ? "tree" : "blob";
  const anchor = hash === undefined ? "" : `#${hash}`;
  return { path, url: `${repository.url}/${kind}/${repository.branch}/${path}${anchor}` };
}

// A link to a page the site serves elsewhere ("decisions/README.md" is served as
// "decisions/index.md"), as a link from where `served` is on the site; undefined for any other.
export function rewrittenLink(
  href: string,
  page: string,
  served: string,
  options: SiteMarkdownOptions,
): string | undefined {
  const { target, hash } = relativeTarget(href, page) ?? {};
  if (target === undefined) return undefined;
  const moved = options.rewrites[relative(options.docsDir, target).split(sep).join("/")];
  if (moved === undefined) return undefined;
  const link = relative(dirname(served), resolve(options.docsDir, moved)).split(sep).join("/");
  return `${link.startsWith(".") ? link : `./${link}`}${hash === undefined ? "" : `#${hash}`}`;
}

function rewriteLinks(
  children: Token[],
  page: string,
  served: string,
  options: SiteMarkdownOptions,
): void {
  let open: Token | undefined;
  for (const token of children) {
    if (token.type === "link_open") {
      const href = token.attrGet("href") ?? "";
      const moved = rewrittenLink(href, page, served, options);
      if (moved !== undefined) token.attrSet("href", moved);
      const outside = outsideLink(href, page, options);
      if (outside === undefined) continue;
      if (outside.url !== undefined) {
        token.attrSet("href", outside.url);
        continue;
      }
      // No host known: the text stays, the link goes, so no dead link ships.
      token.type = "html_inline";
      token.content = `<span class="repo-path" title="${outside.path} in the repository">`;
      open = token;
    } else if (token.type === "link_close" && open !== undefined) {
      token.type = "html_inline";
      token.content = "</span>";
      open = undefined;
    }
  }
}

// The file a relative link from `page` points to, and its anchor; undefined for a link to
// another site, to a path of the site, or to an anchor of the same page.
function relativeTarget(href: string, page: string): { target: string; hash?: string } | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith("/") || href.startsWith("#")) {
    return undefined;
  }
  const [path = "", hash] = href.split("#");
  return { target: resolve(dirname(page), decodeURIComponent(path)), hash };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

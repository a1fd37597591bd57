// What the site's Markdown renderer does beyond VitePress's own: links that leave docs/ go to the
// repository host, Mermaid blocks become a component that draws them in the browser, and the
// generated replays read as a terminal session.
import { statSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import { githubAnchor } from "@agent-code/test-kit";
import type { MarkdownOptions, MarkdownRenderer } from "vitepress";
import type { Repository } from "./repository.ts";

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
    });
  });
  const fence = md.renderer.rules.fence;
  md.renderer.rules.fence = (tokens, index, opts, env, self) => {
    const token = tokens[index];
    if (token?.info.trim() === "mermaid") {
      // Encoded so that Vue's template compiler sees one plain attribute, whatever the diagram.
      return `<MermaidDiagram graph="${encodeURIComponent(token.content)}" />\n`;
    }
    return fence ? fence(tokens, index, opts, env, self) : self.renderToken(tokens, index, opts);
  };
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

// The site's own parts, without a browser: where links to the repository go, how the navigation
// is made from the course list, and what the Markdown renderer does to the course's blocks.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createMarkdownRenderer, disposeMdItInstance } from "vitepress";
import { afterEach, describe, expect, test } from "vitest";
import { buildSidebar, pagesOf, readStages, sitePath } from "../lib/course.ts";
import {
  BLOCK_TAGS,
  markdownOptions,
  outsideLink,
  rewrittenLink,
  type SiteMarkdownOptions,
} from "../lib/markdown.ts";
import { findRepository, webUrl } from "../lib/repository.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const DOCS = join(ROOT, "docs");
const REPOSITORY = { url: "https://github.com/someone/agent-code-course", branch: "main" };
const OPTIONS: SiteMarkdownOptions = {
  root: ROOT,
  docsDir: DOCS,
  repository: REPOSITORY,
  rewrites: { "README.md": "index.md", "decisions/README.md": "decisions/index.md" },
};

const temporary: string[] = [];
afterEach(() => {
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratch(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "agent-code-site-"));
  temporary.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe("the repository's address", () => {
  test("reads every way npm and git write one", () => {
    const expected = "https://github.com/owner/name";
    for (const value of [
      "https://github.com/owner/name.git",
      "git+https://github.com/owner/name.git",
      "git@github.com:owner/name.git",
      "ssh://git@github.com/owner/name",
      "github:owner/name",
      "owner/name",
      "https://github.com/owner/name/",
    ]) {
      expect(webUrl(value), value).toBe(expected);
    }
    expect(webUrl("https://gitlab.example.org/group/name.git")).toBe(
      "https://gitlab.example.org/group/name",
    );
  });

  test("is no address for a local path or an empty setting", () => {
    for (const value of ["/srv/git/agent-code", "../agent-code", "./x/y", "", "  "]) {
      expect(webUrl(value), value).toBeUndefined();
    }
  });

  test("DOCS_REPOSITORY_URL wins over package.json, which wins over the git remote", () => {
    const dir = scratch({ "package.json": JSON.stringify({ repository: "github:from/package" }) });
    execFileSync("git", ["init", "-q"], { cwd: dir });
    execFileSync("git", ["remote", "add", "origin", "git@github.com:from/origin.git"], {
      cwd: dir,
    });
    expect(findRepository(dir, { DOCS_REPOSITORY_URL: "https://github.com/from/env" })?.url).toBe(
      "https://github.com/from/env",
    );
    expect(findRepository(dir, {})?.url).toBe("https://github.com/from/package");
    writeFileSync(join(dir, "package.json"), "{}");
    expect(findRepository(dir, {})).toEqual({
      url: "https://github.com/from/origin",
      branch: "main",
    });
    execFileSync("git", ["remote", "set-url", "origin", "/srv/git/agent-code"], { cwd: dir });
    expect(findRepository(dir, {})).toBeUndefined();
  });
});

describe("links from docs/", () => {
  const page = join(DOCS, "day-2.md");

  test("a folder outside docs/ becomes its tree on the host, a file its blob with the anchor", () => {
    expect(outsideLink("../packages/day-2-v1", page, OPTIONS)).toEqual({
      path: "packages/day-2-v1",
      url: `${REPOSITORY.url}/tree/main/packages/day-2-v1`,
    });
    expect(
      outsideLink("../packages/test-kit/README.md#fake-messages-api-server", page, OPTIONS),
    ).toEqual({
      path: "packages/test-kit/README.md",
      url: `${REPOSITORY.url}/blob/main/packages/test-kit/README.md#fake-messages-api-server`,
    });
    expect(outsideLink("../LICENSE", join(DOCS, "LICENSE.md"), OPTIONS)?.url).toBe(
      `${REPOSITORY.url}/blob/main/LICENSE`,
    );
  });

  test("links inside docs/, to other sites and to anchors are left to VitePress", () => {
    for (const href of [
      "day-1.md#challenges",
      "decisions/0002-stage-layout.md",
      "#faq",
      "https://tsx.is/",
      "/day-1",
    ]) {
      expect(outsideLink(href, page, OPTIONS), href).toBeUndefined();
    }
    expect(
      outsideLink("../README.md", join(DOCS, "decisions", "0001-formatter.md"), OPTIONS),
    ).toBeUndefined();
  });

  test("without a known host the path is kept and no address is made up", () => {
    const options = { ...OPTIONS, repository: undefined };
    expect(outsideLink("../packages/day-1", page, options)).toEqual({
      path: "packages/day-1",
      url: undefined,
    });
  });

  test("a link to a README goes where the site serves it", () => {
    expect(
      rewrittenLink(
        "decisions/README.md",
        join(DOCS, "README.md"),
        join(DOCS, "index.md"),
        OPTIONS,
      ),
    ).toBe("./decisions/index.md");
    expect(rewrittenLink("README.md#the-pages", page, page, OPTIONS)).toBe("./index.md#the-pages");
    expect(
      rewrittenLink(
        "README.md",
        join(DOCS, "decisions", "0001-formatter.md"),
        join(DOCS, "decisions", "0001-formatter.md"),
        OPTIONS,
      ),
    ).toBe("./index.md");
    expect(rewrittenLink("day-1.md", page, page, OPTIONS)).toBeUndefined();
  });
});

describe("the Markdown renderer", () => {
  async function render(markdown: string, options = OPTIONS): Promise<string> {
    // VitePress keeps one renderer per process; each test wants its own settings.
    disposeMdItInstance();
    const md = await createMarkdownRenderer(DOCS, markdownOptions(options));
    return md.render(markdown, { path: join(DOCS, "day-2.md"), realPath: join(DOCS, "day-2.md") });
  }

  test("links out of docs/ to the host, or to plain text when no host is known", async () => {
    const text = "See [the stage](../packages/day-1) and [Day 1](day-1.md).";
    const html = await render(text);
    expect(html).toContain(`href="${REPOSITORY.url}/tree/main/packages/day-1"`);
    expect(html).toContain('href="./day-1.html"');
    const offline = await render(text, { ...OPTIONS, repository: undefined });
    expect(offline).toContain(
      '<span class="repo-path" title="packages/day-1 in the repository">the stage</span>',
    );
    expect(offline).not.toContain('packages/day-1"');
  });

  test("a replay reads as a console session; a diff stays a diff; marked lines are highlighted", async () => {
    const html = await render(
      [
        "<!-- replay: day-1/echo-round-trip -->",
        "```text",
        "$ agent-code hi",
        "Agent Code",
        "```",
        "",
        "```text",
        "plain words",
        "```",
        "",
        "```diff",
        "-old",
        "+new",
        "```",
        "",
        "```ts{2}",
        "const a = 1;",
        "const b = 2;",
        "```",
      ].join("\n"),
    );
    expect(html).toContain('class="language-console');
    expect(html).toContain('class="language-text');
    expect(html).toContain('class="language-diff');
    expect(html).toMatch(/class="line highlighted"><span[^>]*>const<\/span><span[^>]*> b/);
  });

  test("a Mermaid block becomes the component, its source intact", async () => {
    const source = 'sequenceDiagram\n    Agent->>Model: "hi" & <more>\n';
    const html = await render(`\`\`\`mermaid\n${source}\`\`\``);
    expect(html).toContain(`<MermaidDiagram graph="${encodeURIComponent(source)}" />`);
  });

  test("a code span wrapped onto a line that starts like a tag stays whole, as on GitHub", async () => {
    const html = await render(
      "A marker `<!-- wire: <stage>/<scenario>\n<n> <request|response>.<path> -->` fills a block.\n",
    );
    expect(html).toBe(
      "<p>A marker <code>&lt;!-- wire: &lt;stage&gt;/&lt;scenario&gt; &lt;n&gt; " +
        "&lt;request|response&gt;.&lt;path&gt; --&gt;</code> fills a block.</p>\n",
    );
    // Block-level HTML and components still need no blank line before them.
    expect(await render("Words\n<div>box</div>\n")).toContain("<p>Words</p>\n<div>box</div>");
    expect(await render('Words\n<Badge text="x" />\n')).toContain("<p>Words</p>\n<Badge");
  });

  test("no page wraps a line onto block-level HTML: it would end the paragraph, here and on GitHub", () => {
    // A code span such as `Memory (<type>): <title>` wrapped before `<title>` starts a line with a
    // tag that CommonMark reads as an HTML block: the paragraph ends there, and Vue's compiler
    // fails the site's build on the half tag left (the CI run of ad8a355).
    const found: string[] = [];
    for (const page of pagesOf(DOCS)) {
      const lines = readFileSync(join(DOCS, page), "utf8").split("\n");
      let fence: string | undefined;
      lines.forEach((line, index) => {
        const opening = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
        if (fence !== undefined) {
          if (opening?.startsWith(fence)) fence = undefined;
          return;
        }
        if (opening !== undefined) {
          fence = opening;
          return;
        }
        const before = lines[index - 1]?.trim() ?? "";
        const tag = /^<\/?([a-z][a-z0-9]*)(?=[\s/>]|$)/.exec(line.trim())?.[1];
        if (tag === undefined || !BLOCK_TAGS.has(tag) || before === "" || before.startsWith("<")) {
          return;
        }
        found.push(`${page}:${index + 1}: ${line.trim().slice(0, 40)}`);
      });
    }
    expect(found).toEqual([]);
  });

  test("headings get GitHub's anchors", async () => {
    const html = await render(
      "## v2: one round of tool use\n\n### `error: set ANTHROPIC_AUTH_TOKEN` although I set it\n",
    );
    expect(html).toContain('id="v2-one-round-of-tool-use"');
    expect(html).toContain('id="error-set-anthropic_auth_token-although-i-set-it"');
  });
});

describe("the navigation", () => {
  test("follows the course order: map, days with their steps, challenges, protocol, guides, decisions", () => {
    const { sidebar, warnings } = buildSidebar(DOCS);
    expect(sidebar.map((group) => group.text)).toEqual(
      expect.arrayContaining([
        "The course",
        "Day 1",
        "Day 2",
        "Challenges",
        "Reference",
        "Guides",
        "Decisions",
      ]),
    );
    const day2 = sidebar.find((group) => group.text === "Day 2")?.items?.[0];
    expect(day2?.link).toBe("/day-2");
    expect(day2?.items?.map((step) => step.link)).toEqual(
      expect.arrayContaining([
        "/day-2#setup",
        "/day-2#v1-the-real-model",
        "/day-2#v3-the-multi-step-loop",
        "/day-2#challenges",
      ]),
    );
    const decisions = sidebar.find((group) => group.text === "Decisions")?.items ?? [];
    expect(decisions[0]?.link).toBe("/decisions/");
    expect(decisions[1]?.link).toBe("/decisions/0001-formatter");
    expect(sidebar.some((group) => group.text === "More")).toBe(false);
    expect(warnings.every((warning) => warning.startsWith("appendix-providers.md"))).toBe(true);
  });

  test("a listed page that is missing is left out with a warning; an unlisted page still gets a place", () => {
    const docs = scratch({
      "README.md": "# Map\n",
      "day-1.md": "# Day 1\n\n## v1: an echo CLI\n\n```md\n## not a step\n```\n\n## Challenges\n",
      "extra.md": "# An `extra` page\n",
    });
    const { sidebar, warnings } = buildSidebar(docs, [
      { text: "Start", entries: [{ page: "README.md", text: "The map" }] },
      { text: "Days", entries: [{ page: "day-1.md", steps: true }, { page: "day-2.md" }] },
      {
        text: "Challenges",
        entries: [{ page: "day-1.md#challenges" }, { page: "day-1.md#answers" }],
      },
    ]);
    expect(warnings).toEqual([
      "day-2.md: no such page in docs/, left out of the navigation",
      "day-1.md#answers: the page has no such heading, left out of the navigation",
    ]);
    expect(sidebar).toEqual([
      { text: "Start", items: [{ text: "The map", link: "/" }] },
      {
        text: "Days",
        items: [
          {
            text: "Day 1",
            link: "/day-1",
            collapsed: false,
            items: [
              { text: "v1: an echo CLI", link: "/day-1#v1-an-echo-cli" },
              { text: "Challenges", link: "/day-1#challenges" },
            ],
          },
        ],
      },
      { text: "Challenges", items: [{ text: "Day 1", link: "/day-1#challenges" }] },
      { text: "More", items: [{ text: "An extra page", link: "/extra" }] },
    ]);
  });

  test("site paths: a README is its folder's home page", () => {
    expect(sitePath("README.md")).toBe("/");
    expect(sitePath("decisions/README.md")).toBe("/decisions/");
    expect(sitePath("day-2.md#v1-the-real-model")).toBe("/day-2#v1-the-real-model");
  });

  test("the stages come from the README's table, in its order", () => {
    const stages = readStages(readFileSync(join(ROOT, "README.md"), "utf8"));
    expect(stages.map((stage) => stage.stage)).toEqual([
      "Day 1",
      "Day 2, v1",
      "Day 2, v2",
      "Day 2, v3",
      "Day 2, challenges",
      "Day 3, v1",
      "Day 3, v2",
      "Day 3, v3",
      "Day 3, v4",
      "Day 3, challenges",
      "Day 4, v1",
      "Day 4, v2",
      "Day 4, v3",
      "Day 5, v1",
      "Day 5, v2",
      "Day 5, v3",
      "Day 5, v4",
      "Day 5, v5",
      "Day 5, challenges",
      "Day 6, v1",
      "Day 6, v2",
      "Day 6, v3",
      "Day 6, v4",
      "Day 6, v5",
      "Day 6, challenges",
      "Day 7, v1",
      "Day 7, v2",
      "Day 7, v3",
      "Day 7, v4",
      "Day 7, v5",
      "Day 7, challenges",
      "Appendix: providers",
    ]);
    expect(stages[0]).toMatchObject({ packagePath: "packages/day-1", read: "docs/day-1.md" });
    expect(stages[1]?.read).toBe("docs/day-2.md#v1-the-real-model");
    expect(stages[2]?.adds).toContain("tool_use");
  });
});

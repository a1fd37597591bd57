// The course site: VitePress reads docs/ where it is (no copies, so the docs check keeps guarding
// the one source) and builds it into .vitepress/dist.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type DefaultTheme, defineConfig, type Plugin } from "vitepress";
import { buildSidebar, readStages, sitePath } from "../lib/course.ts";
import { markdownOptions } from "../lib/markdown.ts";
import { findRepository } from "../lib/repository.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const docsDir = fileURLToPath(new URL("../../docs", import.meta.url));
const repository = findRepository(root);
const { sidebar, warnings } = buildSidebar(docsDir);
for (const warning of warnings) console.warn(`site: ${warning}`);

const stages = readStages(readFileSync(`${root}/README.md`, "utf8"));
const stagesMenu: DefaultTheme.NavItemWithChildren = {
  text: "Stages",
  items: [
    {
      text: "Read",
      items: stages.map((stage) => ({
        text: `${stage.stage}: ${stage.adds}`,
        link: sitePath(stage.read.replace(/^docs\//, "")),
      })),
    },
    ...(repository === undefined
      ? []
      : [
          {
            text: "Run",
            items: stages.map((stage) => ({
              text: stage.packagePath,
              link: `${repository.url}/tree/${repository.branch}/${stage.packagePath}`,
            })),
          },
        ]),
  ],
};

// The pages live in docs/, outside this package, so what their compiled code imports (vue,
// vitepress) is looked up from here, where the site's dependencies are installed.
function resolveFromSite(): Plugin {
  const importer = fileURLToPath(new URL("./config.ts", import.meta.url));
  return {
    name: "agent-code:resolve-from-site",
    enforce: "pre",
    resolveId(id, from, options) {
      if (from === undefined || !from.startsWith(docsDir) || !/^[\w@]/.test(id)) return null;
      return this.resolve(id, importer, { ...options, skipSelf: true });
    },
  };
}

// docs/README.md is the course map; on the site each README is the home page of its folder.
const rewrites = {
  "README.md": "index.md",
  "decisions/README.md": "decisions/index.md",
};

// A small icon in the page itself: no file to serve, and no browser asks for /favicon.ico.
const ICON =
  "data:image/svg+xml," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1e1e20"/><path d="M7 10l6 6-6 6M15 23h10" stroke="#5eead4" stroke-width="3" fill="none"/></svg>',
  );

export default defineConfig({
  srcDir: "../docs",
  title: "agent-code",
  description: "Build a coding agent for the terminal, day by day, in TypeScript.",
  lang: "en",
  head: [["link", { rel: "icon", href: ICON }]],
  rewrites,
  lastUpdated: true,
  // The default, said out loud: a dead link fails the build.
  ignoreDeadLinks: false,
  markdown: markdownOptions({ root, docsDir, repository, rewrites }),
  themeConfig: {
    nav: [
      { text: "Course map", link: "/" },
      { text: "Day 1", link: "/day-1" },
      { text: "Day 2", link: "/day-2" },
      { text: "Day 3", link: "/day-3" },
      { text: "Day 4", link: "/day-4" },
      { text: "Day 5", link: "/day-5" },
      { text: "Protocol", link: "/protocol" },
      stagesMenu,
      { text: "Decisions", link: "/decisions/" },
    ],
    sidebar,
    outline: { level: [2, 3], label: "On this page" },
    search: { provider: "local" },
    ...(repository === undefined
      ? {}
      : {
          editLink: {
            pattern: `${repository.url}/edit/${repository.branch}/docs/:path`,
            text: "Edit this page",
          },
          socialLinks: [{ icon: "github", link: repository.url }],
        }),
    docFooter: { prev: "Previous", next: "Next" },
    lastUpdated: { text: "Last updated" },
  },
  vite: {
    plugins: [resolveFromSite()],
    // Mermaid's diagram types are large chunks, loaded only by a page that draws one.
    build: { chunkSizeWarningLimit: 2048 },
    server: { fs: { allow: [root] } },
  },
});

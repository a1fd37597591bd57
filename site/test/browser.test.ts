// The built site as a reader meets it, in Debian's Chromium: pages load cleanly, links lead
// somewhere, diagrams are drawn, search finds Day 2, the copy button copies, a phone does not
// scroll sideways, a replay opens into the requests and responses of its run. Needs `pnpm docs:build` first (the package's `test` script runs it).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildSidebar, pagesOf, sitePath } from "../lib/course.ts";
import { findRepository } from "../lib/repository.ts";
import { readWire } from "../lib/wire.ts";
import {
  chromiumPath,
  DIST,
  finalAnswerText,
  firstUserText,
  launchChromium,
  missingBrowserMessage,
  SCREENSHOTS,
  type StaticSite,
  serveSite,
  storedToolIds,
} from "./support.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const DOCS = join(ROOT, "docs");
const browserPath = chromiumPath();
if (browserPath === undefined) {
  if (process.env.CI === "true") throw new Error(missingBrowserMessage());
  console.warn(`site browser tests skipped: ${missingBrowserMessage()}`);
}

// Every page of docs/ as the site serves it ("/", "/day-2", "/decisions/0001-formatter"), with
// the number of Mermaid diagrams its source holds.
const PAGES = pagesOf(DOCS).map((page) => ({
  path: sitePath(page),
  diagrams: (readFileSync(join(DOCS, page), "utf8").match(/^```mermaid\s*$/gm) ?? []).length,
}));
const DIAGRAMS = new Map(PAGES.map((page) => [page.path, page.diagrams]));
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
// On each day page, the first replay whose stored wire has more than one request (the first on
// Day 2 is a single failed request: nothing to step through), with that wire; Day 5's first
// replay is on its second page. On the appendix, the first that speaks OpenAI's Responses API, to
// see the view in that API's shapes.
const WIRES = (
  [
    ["day-2.md", "messages"],
    ["day-3.md", "messages"],
    ["day-4.md", "messages"],
    ["day-5-approve.md", "messages"],
    ["appendix-providers.md", "responses"],
  ] as const
).map(([file, api]) => {
  const markers = readFileSync(join(DOCS, file), "utf8").matchAll(
    /^<!--\s*replay:\s*([^/\s]+)\/(\S+?)\s*-->/gm,
  );
  for (const [, stage = "", scenario = ""] of markers) {
    const wire = readWire(DOCS, stage, scenario);
    if (wire !== undefined && wire.exchanges.length > 1 && wire.exchanges[0]?.api === api) {
      return { path: sitePath(file), name: `${stage}/${scenario}`, wire };
    }
  }
  throw new Error(`${file}: no replay with a stored ${api} wire of several requests`);
});
// Tabs open at once while surveying: enough to be quick on two cores, few enough to stay fair.
const TABS = 3;

// What one load of a page showed.
interface Visit {
  path: string;
  problems: string[];
  links: string[];
  next: string | undefined;
  lastUpdated: number;
  editLinks: string[];
  diagrams: { svg: boolean; text: string }[];
  overflow: number;
  dark: boolean;
}

describe.skipIf(browserPath === undefined)("the built site in Chromium", () => {
  let site: StaticSite;
  let browser: Browser;
  let desktop: Visit[];
  let phone: Visit[];

  beforeAll(async () => {
    if (!existsSync(join(DIST, "index.html"))) {
      throw new Error(`no built site in ${DIST}: run pnpm docs:build first`);
    }
    site = await serveSite(DIST);
    browser = await launchChromium(browserPath as string);
    desktop = await survey({ viewport: DESKTOP });
    phone = await survey({ viewport: PHONE, isMobile: true, hasTouch: true });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  async function survey(options: Parameters<Browser["newContext"]>[0]): Promise<Visit[]> {
    const context = await browser.newContext(options);
    const queue = PAGES.map((page) => page.path);
    const visits: Visit[] = [];
    await Promise.all(
      Array.from({ length: TABS }, async () => {
        for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
          const { page, visit } = await open(context, path);
          visits.push(visit);
          await page.close();
        }
      }),
    );
    await context.close();
    return visits;
  }

  // Loads a page, waits for its diagrams, and records what a reader would meet.
  async function open(
    context: BrowserContext,
    path: string,
  ): Promise<{ page: Page; visit: Visit }> {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console error: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`uncaught: ${error.message}`));
    page.on("requestfailed", (request) =>
      problems.push(`request failed: ${request.url()} (${request.failure()?.errorText})`),
    );
    page.on("response", (response) => {
      if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
    });
    await load(page, path);
    const expected = DIAGRAMS.get(path) ?? 0;
    if (expected > 0) {
      await page
        .waitForFunction(
          (count) =>
            document.querySelectorAll(".vp-mermaid > svg, .vp-mermaid-failed").length >= count,
          expected,
          // As generous as a page load: on a busy two-core machine Mermaid waits for the CPU too.
          { timeout: 60_000 },
        )
        .catch(() => problems.push("the diagrams were not drawn within 60 s"));
    }
    const seen = await page.evaluate(() => ({
      links: [...document.querySelectorAll("a[href]")].map((a) => (a as HTMLAnchorElement).href),
      next: document.querySelector<HTMLAnchorElement>(".pager-link.next")?.href,
      lastUpdated: document.querySelectorAll(".VPLastUpdated time").length,
      editLinks: [...document.querySelectorAll<HTMLAnchorElement>(".edit-link a")].map(
        (a) => a.href,
      ),
      diagrams: [...document.querySelectorAll(".vp-mermaid")].map((box) => ({
        svg: box.querySelector(":scope > svg") !== null,
        text: box.textContent ?? "",
      })),
      overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      dark: document.documentElement.classList.contains("dark"),
    }));
    return { page, visit: { path, problems, ...seen } };
  }

  test("every page of docs/ is on the site", () => {
    expect(desktop.map((visit) => visit.path).sort()).toEqual(
      PAGES.map((page) => page.path).sort(),
    );
    expect(PAGES.length).toBeGreaterThan(10);
  });

  test("every page loads with no console error and no failed request", () => {
    const problems = [...desktop, ...phone].flatMap((visit) =>
      visit.problems.map((problem) => `${visit.path}: ${problem}`),
    );
    expect(problems).toEqual([]);
  });

  test("every internal link and anchor resolves", async () => {
    const dead: string[] = [];
    const ids = new Map<string, Set<string> | undefined>();
    let checked = 0;
    for (const visit of desktop) {
      for (const href of new Set(visit.links)) {
        const url = new URL(href);
        if (url.origin !== site.origin) continue;
        checked++;
        if (!ids.has(url.pathname)) ids.set(url.pathname, await idsOf(url.pathname));
        const known = ids.get(url.pathname);
        const anchor = decodeURIComponent(url.hash.slice(1));
        if (known === undefined) dead.push(`${visit.path} -> ${url.pathname}: not found`);
        else if (anchor !== "" && !known.has(anchor)) {
          dead.push(`${visit.path} -> ${url.pathname}#${anchor}: no such anchor`);
        }
      }
    }
    expect(checked).toBeGreaterThan(PAGES.length * 10);
    expect(dead).toEqual([]);
  });

  test("no link leads to a Markdown file or out of the site but to the repository host", () => {
    const repository = findRepository(ROOT);
    const wrong = desktop.flatMap((visit) =>
      visit.links
        .filter((href) => {
          const url = new URL(href);
          if (url.origin === site.origin) return url.pathname.endsWith(".md");
          return (
            repository !== undefined &&
            href.includes("/packages/") &&
            !href.startsWith(repository.url)
          );
        })
        .map((href) => `${visit.path}: ${href}`),
    );
    expect(wrong).toEqual([]);
  });

  test("every Mermaid block is an SVG, also on repeated loads of several pages at once", async () => {
    const withDiagrams = PAGES.filter((page) => page.diagrams > 0).map((page) => page.path);
    expect(withDiagrams).toContain("/protocol");
    const loads = [...desktop, ...phone];
    const context = await browser.newContext({ viewport: DESKTOP });
    for (let round = 0; round < 3; round++) {
      // Four tabs at once: the load under which the old plugin raced Mermaid's own start-up.
      const paths = Array.from(
        { length: 4 },
        (_, index) => withDiagrams[index % withDiagrams.length] ?? "/",
      );
      const opened = await Promise.all(paths.map((path) => open(context, path)));
      for (const { page, visit } of opened) {
        loads.push(visit);
        await page.close();
      }
    }
    await context.close();
    const wrong = loads.flatMap((visit) => {
      const expected = DIAGRAMS.get(visit.path) ?? 0;
      if (visit.diagrams.length !== expected)
        return [`${visit.path}: ${visit.diagrams.length} of ${expected}`];
      return visit.diagrams
        .filter((box) => !box.svg || /syntax error/i.test(box.text))
        .map((box) => `${visit.path}: not drawn: ${box.text.slice(0, 80)}`);
    });
    expect(loads.filter((visit) => visit.diagrams.length > 0).length).toBeGreaterThanOrEqual(14);
    expect(wrong).toEqual([]);
    expect(loads.flatMap((visit) => visit.problems)).toEqual([]);
  });

  test("search for tool_result lists the Day 2 page", async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await load(page, "/");
    await page.click("#local-search button");
    await page.fill(".VPLocalSearchBox input", "tool_result");
    const results = page.locator(".VPLocalSearchBox .results a");
    await results.first().waitFor();
    const paths = await results.evaluateAll((links) =>
      links.map((link) => (link as HTMLAnchorElement).pathname),
    );
    await context.close();
    expect(paths.some((path) => path.startsWith("/day-2"))).toBe(true);
  });

  test("the copy button copies a code block's text", async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: site.origin });
    const page = await context.newPage();
    await load(page, "/day-2");
    const block = page.locator("div.language-sh").first();
    const shown = (await block.locator("pre code").textContent()) ?? "";
    await block.hover();
    await block.locator("button.copy").click();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    await context.close();
    expect(shown.trim()).not.toBe("");
    expect(copied.trim()).toBe(shown.trim());
  });

  test("code is highlighted by language, diffs as diffs, replays as a terminal session", async () => {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    await load(page, "/day-2");
    const blocks = await page.$$eval("div[class*='language-']", (found) =>
      found.map((block) => ({
        language: [...block.classList].find((name) => name.startsWith("language-")),
        // Shiki colours each token inline: count the colours a block uses.
        colours: new Set(
          [...block.querySelectorAll<HTMLElement>("pre code span[style]")].map((span) =>
            span.style.getPropertyValue("--shiki-light"),
          ),
        ).size,
        text: block.querySelector("pre code")?.textContent ?? "",
      })),
    );
    await context.close();
    const of = (language: string) =>
      blocks.filter((block) => block.language === `language-${language}`);
    expect(of("ts").length).toBeGreaterThan(5);
    expect(Math.min(...of("ts").map((block) => block.colours))).toBeGreaterThan(2);
    expect(of("diff").length).toBeGreaterThan(0);
    // A diff that adds and removes lines shows both colours; a `delete:` block, only removed
    // lines, is one colour but still coloured.
    const both = (text: string) => /^\+(?!\+\+)/m.test(text) && /^-(?!--)/m.test(text);
    expect(of("diff").every((block) => block.colours > (both(block.text) ? 1 : 0))).toBe(true);
    expect(of("diff").filter((block) => both(block.text)).length).toBeGreaterThan(0);
    // Every replay ("$ agent-code …") reads as a console session, none as plain text.
    const replays = blocks.filter((block) => block.text.startsWith("$ agent-code"));
    expect(replays.length).toBeGreaterThan(3);
    expect(replays.map((block) => block.language)).toEqual(replays.map(() => "language-console"));
  });

  test("previous / next walk the course order; every page has its date and edit link", () => {
    const order = [...new Set(linksOf(buildSidebar(DOCS).sidebar))];
    const byPath = new Map(desktop.map((visit) => [visit.path, visit]));
    const walked: string[] = [];
    for (
      let path: string | undefined = "/";
      path !== undefined && walked.length <= order.length;
    ) {
      walked.push(path);
      const next: string | undefined = byPath.get(path)?.next;
      path = next === undefined ? undefined : new URL(next).pathname.replace(/(index)?\.html$/, "");
    }
    expect(walked).toEqual(order);
    const repository = findRepository(ROOT);
    // The date comes from git: a page not yet committed has none.
    const committed = new Set(
      execFileSync("git", ["ls-files", "docs"], { cwd: ROOT, encoding: "utf8" })
        .split("\n")
        .map((file) => sitePath(file.replace(/^docs\//, ""))),
    );
    for (const visit of desktop) {
      expect(visit.lastUpdated, visit.path).toBe(committed.has(visit.path) ? 1 : 0);
      expect(visit.editLinks, visit.path).toEqual(
        repository === undefined
          ? []
          : [expect.stringMatching(`^${repository.url}/edit/main/docs/.+\\.md$`)],
      );
    }
  });

  test("a phone (390 px wide) never scrolls a page sideways", () => {
    const wide = phone
      .filter((visit) => visit.overflow > 0)
      .map((visit) => `${visit.path}: ${visit.overflow} px`);
    expect(phone).toHaveLength(PAGES.length);
    expect(wide).toEqual([]);
  });

  test("light and dark themes; screenshots of home and Day 2 for a reviewer", async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const shots = [
      { name: "desktop-light", options: { viewport: DESKTOP }, dark: false },
      { name: "desktop-dark", options: { viewport: DESKTOP }, dark: true },
      {
        name: "phone-light",
        options: { viewport: PHONE, isMobile: true, hasTouch: true },
        dark: false,
      },
      {
        name: "phone-dark",
        options: { viewport: PHONE, isMobile: true, hasTouch: true },
        dark: true,
      },
    ];
    const themes: string[] = [];
    for (const shot of shots) {
      const context = await browser.newContext(shot.options);
      await context.addInitScript((dark) => {
        localStorage.setItem("vitepress-theme-appearance", dark ? "dark" : "light");
      }, shot.dark);
      for (const path of ["/", "/day-2", "/protocol"]) {
        const { page, visit } = await open(context, path);
        expect(visit.problems).toEqual([]);
        themes.push(`${path} ${visit.dark ? "dark" : "light"}`);
        if (path !== "/protocol") {
          const name = `${path === "/" ? "home" : "day-2"}-${shot.name}.png`;
          await page.screenshot({ path: join(SCREENSHOTS, name) });
        } else {
          expect(visit.diagrams.every((box) => box.svg)).toBe(true);
        }
        await page.close();
      }
      await context.close();
    }
    expect(themes).toEqual(
      shots.flatMap((shot) =>
        ["/", "/day-2", "/protocol"].map((path) => `${path} ${shot.dark ? "dark" : "light"}`),
      ),
    );
  });

  test("a replay's wire steps through its requests, with the keyboard, as stored", async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const context = await browser.newContext({ viewport: DESKTOP });
    // One page in the dark theme, to see the box there too.
    const darkPath = "/day-4";
    await context.addInitScript((dark) => {
      localStorage.setItem(
        "vitepress-theme-appearance",
        location.pathname === dark ? "dark" : "light",
      );
    }, darkPath);
    const seen: string[] = [];
    for (const { path, name, wire } of WIRES) {
      const steps = wire.exchanges.length;
      const { page, visit } = await open(context, path);
      const view = page.locator(`.wire-view[data-wire="${name}"]`);
      expect(await view.getAttribute("data-steps"), name).toBe(String(steps));
      expect(await view.locator(".wire-player").count()).toBe(0);
      await view.locator("summary").first().click();
      const player = view.locator(".wire-player");
      await player.focus();
      const at = async () => Number(await player.getAttribute("data-step"));
      await page.keyboard.press("End");
      expect(await at(), `${name}: End`).toBe(steps);
      expect(await player.locator(".wire-next").isDisabled()).toBe(true);
      await page.keyboard.press("Home");
      expect(await at(), `${name}: Home`).toBe(1);
      expect(await player.locator(".wire-prev").isDisabled()).toBe(true);
      const ids = new Set<string>();
      const links: string[] = [];
      for (let step = 1; step <= steps; step++) {
        if (step > 1) {
          await page.keyboard.press("ArrowRight");
          expect(await at(), `${name}: ArrowRight to ${step}`).toBe(step);
          // The model's turn and the tool results are new, and say so.
          const fresh = player.locator(".wire-sent .wire-message.wire-new");
          expect(await fresh.count()).toBeGreaterThanOrEqual(2);
          const results = fresh.last().locator(".wire-item");
          expect(await results.last().getAttribute("data-kind")).toBe("tool_result");
          expect(await fresh.last().locator(".wire-new-label").isVisible()).toBe(true);
        }
        for (const id of await player
          .locator("[data-tool-id]")
          .evaluateAll((items) =>
            items.map((item) => (item as HTMLElement).dataset.toolId ?? ""),
          )) {
          ids.add(id);
        }
        // A result links to its call, shown in the same step under the same id.
        links.push(
          ...(await player.locator(".wire-item[data-kind=tool_result]").evaluateAll((results) =>
            results.map((result) => {
              const href = result.querySelector("a")?.getAttribute("href") ?? "";
              const call = document.getElementById(decodeURIComponent(href.slice(1)));
              const same = call?.dataset.toolId === (result as HTMLElement).dataset.toolId;
              return same && call?.dataset.kind === "tool_call" ? "ok" : `broken: ${href}`;
            }),
          )),
        );
      }
      expect([...ids].sort(), name).toEqual(storedToolIds(wire));
      expect(links.length, name).toBeGreaterThan(0);
      expect(
        links.filter((link) => link !== "ok"),
        name,
      ).toEqual([]);
      const finalText = finalAnswerText(wire);
      expect(finalText).not.toBe("");
      expect(await player.locator(".wire-answer").textContent(), name).toContain(finalText);
      const day = path.slice(1);
      // The page's bar would cover part of a tall box.
      await view.screenshot({
        style: ".VPNav, .VPLocalNav { visibility: hidden; }",
        path: join(SCREENSHOTS, `wire-${day}${path === darkPath ? "-dark" : ""}.png`),
      });
      await player.locator(".wire-raw summary").click();
      // The raw request of the last step holds the whole conversation, the first question too.
      expect(await player.locator(".wire-raw pre").first().textContent()).toContain(
        JSON.stringify(firstUserText(wire)),
      );
      // Opened, on a phone, the box scrolls inside itself, never the page.
      await page.setViewportSize(PHONE);
      for (const key of ["Home", ...Array.from({ length: steps - 1 }, () => "ArrowRight")]) {
        await player.focus();
        await page.keyboard.press(key);
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        expect(overflow, `${name} on a phone, step ${await at()}`).toBeLessThanOrEqual(0);
      }
      expect(visit.problems).toEqual([]);
      seen.push(`${path} ${visit.dark ? "dark" : "light"}`);
      await page.close();
    }
    await context.close();
    expect(seen).toEqual(
      WIRES.map(({ path }) => `${path} ${path === darkPath ? "dark" : "light"}`),
    );

    // Without JavaScript the wire is there as JSON.
    const plain = await browser.newContext({ viewport: DESKTOP, javaScriptEnabled: false });
    const page = await plain.newPage();
    for (const { path, name, wire } of WIRES) {
      await page.goto(`${site.origin}${path}`, { waitUntil: "load", timeout: 60_000 });
      const view = page.locator(`.wire-view[data-wire="${name}"]`);
      expect(await view.locator(".wire-player").count()).toBe(0);
      const json = (await view.locator("pre.wire-json").textContent()) ?? "";
      expect(json, name).toContain(JSON.stringify(firstUserText(wire)));
      expect(JSON.parse(json).exchanges.length, name).toBe(wire.exchanges.length);
    }
    await plain.close();
  });

  // Opens a page and waits until Vue has mounted the app: the HTML alone is not yet the page a
  // reader uses (a long page is still being taken over by the script after the network is idle).
  async function load(page: Page, path: string): Promise<void> {
    // Generous: on a shared two-core machine a page can wait long for the CPU.
    await page.goto(`${site.origin}${path}`, { waitUntil: "networkidle", timeout: 60_000 });
    await page
      .waitForFunction(() => "__vue_app__" in (document.querySelector("#app") ?? {}), null, {
        timeout: 60_000,
      })
      .catch((error: Error) => {
        throw new Error(`${path}: the page's app did not start: ${error.message}`);
      });
  }

  // The ids of a page's elements, read from the HTML the site serves; undefined when the page is
  // not there.
  async function idsOf(pathname: string): Promise<Set<string> | undefined> {
    const response = await fetch(`${site.origin}${pathname}`);
    if (!response.ok) return undefined;
    const html = await response.text();
    return new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((match) => match[1] ?? ""));
  }
});

function linksOf(items: { link?: string; items?: unknown[] }[]): string[] {
  return items.flatMap((item) => [
    ...(item.link === undefined ? [] : [item.link.replace(/#.*$/, "")]),
    ...linksOf((item.items ?? []) as { link?: string; items?: unknown[] }[]),
  ]);
}

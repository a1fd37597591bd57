// web_fetch against the test-kit's fake web on 127.0.0.1. Names never reach a real resolver: every
// fetch by name gets a stand-in lookup, and every other URL is an IP address. What the fake web
// recorded shows what was (and was not) connected to.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type FakeWeb, startFakeWeb } from "@agent-code/test-kit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { NO_UI } from "../src/diff-ui.ts";
import { ReadState } from "../src/fs-safety.ts";
import { defaultTools, ToolError } from "../src/tools/index.ts";
import {
  addressRefusal,
  checkUrl,
  type FetchOptions,
  fetchOptions,
  fetchPage,
  guardedLookup,
  type Lookup,
  toMarkdown,
  toMarkdownStoppable,
} from "../src/web.ts";

const HTML = `<!doctype html><html><head><title>Fixture Title</title>
<style>body { color: red }</style><script>evil()</script></head>
<body><h1>Fixture Title</h1><p>Some <b>bold</b> text and <a href="/docs/a?x=1">a link</a>.</p>
<img src="/logo.png" alt="logo"><ul><li>one</li><li>two</li></ul>
<pre><code>const x = 1;</code></pre><noscript>enable js</noscript>
<a href="javascript:alert(1)">not a link</a></body></html>`;

let web: FakeWeb;
let port: number;

// Names the tests resolve, and to what: never the real DNS.
const NAMES: Record<string, string[]> = {
  localhost: ["127.0.0.1"],
  "pages.test": ["127.0.0.1"],
  "metadata.test": ["169.254.169.254"],
  "internal.test": ["10.1.2.3"],
  "both.test": ["127.0.0.1", "10.0.0.5"],
  "v6.test": ["::1"],
};
const lookups: string[] = [];
const lookup: Lookup = (name, _options, done) => {
  lookups.push(name);
  const addresses = NAMES[name];
  if (addresses === undefined) {
    done(Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: "ENOTFOUND" }), []);
    return;
  }
  done(
    null,
    addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 })),
  );
};

const closed: FetchOptions = { allowLoopback: false, timeoutMs: 10_000, lookup };
const open: FetchOptions = { allowLoopback: true, timeoutMs: 10_000, lookup };

beforeAll(async () => {
  web = await startFakeWeb();
  port = Number(new URL(web.url).port);
  web.routes({
    "/page": { type: "text/html; charset=utf-8", body: HTML },
    "/start": { redirect: "/middle" },
    "/middle": { status: 301, redirect: `${web.url}/page` },
    "/to-metadata": { redirect: "http://169.254.169.254/latest/meta-data/" },
    "/to-internal": { redirect: `http://internal.test:${port}/page` },
    "/to-mapped": { redirect: `http://[::ffff:a9fe:a9fe]:${port}/` },
    "/to-file": { redirect: "file:///etc/passwd" },
    "/loop": { redirect: "/loop" },
    "/json": { type: "application/json", body: '{"a": [1, 2], "b": "<p>kept</p>"}' },
    "/latin1": {
      type: "text/plain; charset=iso-8859-1",
      body: new Uint8Array([0x63, 0x61, 0x66, 0xe9]),
    },
    "/png": { type: "image/png", body: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]) },
    "/untyped-binary": { body: new Uint8Array([1, 2, 0, 3]) },
    "/missing": { status: 404 },
    "/big": { type: "text/plain", body: "0123456789abcdef", bytes: 3 * 1024 * 1024 },
    "/bomb": { type: "text/plain", body: "z", bytes: 16 * 1024 * 1024, encoding: "gzip" },
    "/endless": { type: "text/plain", body: "again and again\n", endless: true },
    "/endless-br": { type: "text/plain", body: "again\n", endless: true, encoding: "br" },
    "/gzip": { type: "text/html", body: "<h2>Packed</h2>", encoding: "gzip" },
    "/slow": { type: "text/plain", body: "late", delayMs: 5000 },
    "/zstd": { type: "text/plain", body: "x", headers: { "content-encoding": "zstd" } },
    "/huge-html": { type: "text/html", body: "<p>word</p>", bytes: 3 * 1024 * 1024 },
  });
});
afterAll(() => web.close());

// The paths the fake web received since `from`.
function pathsSince(from: number): string[] {
  return web
    .requests()
    .slice(from)
    .map((request) => request.path);
}

// The refusal a fetch ends in: its message, and that it is a refusal (a ToolError), not a bug.
async function refusal(url: string, options: FetchOptions): Promise<string> {
  const error = await fetchPage(url, options).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ToolError);
  return (error as ToolError).message;
}

describe("the guard, before anything connects", () => {
  test("every spelling of this machine is refused without the opt-in, and nothing reaches the web", async () => {
    const before = web.requests().length;
    const spellings: [string, string][] = [
      [`http://127.0.0.1:${port}/page`, "127.0.0.1"],
      [`http://127.1:${port}/page`, "127.0.0.1"],
      [`http://2130706433:${port}/page`, "127.0.0.1"],
      [`http://0x7f000001:${port}/page`, "127.0.0.1"],
      [`http://0x7f.0.0.1:${port}/page`, "127.0.0.1"],
      [`http://017700000001:${port}/page`, "127.0.0.1"],
      [`http://127.9.9.9:${port}/page`, "127.9.9.9"],
      [`http://[::1]:${port}/page`, "::1"],
      [`http://[0:0:0:0:0:0:0:1]:${port}/page`, "::1"],
      [`http://[::ffff:127.0.0.1]:${port}/page`, "::ffff:7f00:1"],
      [`http://0.0.0.0:${port}/page`, "0.0.0.0"],
      [`http://0:${port}/page`, "0.0.0.0"],
      [`http://[::]:${port}/page`, "::"],
      [`http://localhost:${port}/page`, "127.0.0.1 (localhost)"],
      [`http://pages.test:${port}/page`, "127.0.0.1 (pages.test)"],
      [`http://v6.test:${port}/page`, "::1 (v6.test)"],
    ];
    for (const [url, address] of spellings) {
      expect(await refusal(url, closed), url).toBe(
        `refusing to fetch a private or loopback address: ${address}`,
      );
    }
    expect(pathsSince(before)).toEqual([]);
  });

  test("the opt-in lets loopback through, by address and by name", async () => {
    const before = web.requests().length;
    expect(await fetchPage(`http://127.1:${port}/page`, open)).toContain("# Fixture Title");
    expect(await fetchPage(`http://pages.test:${port}/page`, open)).toContain("# Fixture Title");
    expect(pathsSince(before)).toEqual(["/page", "/page"]);
  });

  test("nothing lets a private, link-local or unspecified address through, the opt-in included", async () => {
    const before = web.requests().length;
    const refused: [string, string][] = [
      ["http://169.254.169.254/latest/meta-data/", "169.254.169.254"],
      ["http://[::ffff:169.254.169.254]/", "::ffff:a9fe:a9fe"],
      ["http://10.0.0.1/", "10.0.0.1"],
      ["http://172.16.5.4/", "172.16.5.4"],
      ["http://192.168.1.1/", "192.168.1.1"],
      ["http://100.64.0.1/", "100.64.0.1"],
      ["http://224.0.0.1/", "224.0.0.1"],
      ["http://255.255.255.255/", "255.255.255.255"],
      ["http://[fd00::1]/", "fd00::1"],
      ["http://[fe80::1]/", "fe80::1"],
      ["http://[ff02::1]/", "ff02::1"],
      [`http://0.0.0.0:${port}/page`, "0.0.0.0"],
      [`http://metadata.test:${port}/`, "169.254.169.254 (metadata.test)"],
      [`http://internal.test:${port}/`, "10.1.2.3 (internal.test)"],
      // One good address does not excuse a bad one: a name is refused if any address is.
      [`http://both.test:${port}/page`, "10.0.0.5 (both.test)"],
    ];
    for (const [url, address] of refused) {
      expect(await refusal(url, open), url).toBe(
        `refusing to fetch a private or loopback address: ${address}`,
      );
    }
    expect(pathsSince(before)).toEqual([]);
  });

  test("public addresses pass the address check", () => {
    const addresses = [
      "93.184.215.14",
      "8.8.8.8",
      "2606:4700::1111",
      "2001:4860:4860::8888",
      "::ffff:8.8.8.8",
    ];
    for (const address of addresses) {
      expect(addressRefusal(address, false), address).toBeUndefined();
    }
  });

  test("every IPv6 range that carries an IPv4 address, or is reserved, is refused whole", async () => {
    const refused = [
      "::ffff:127.0.0.1", // IPv4-mapped: checked as 127.0.0.1
      "::ffff:10.0.0.1",
      "::7f00:1", // IPv4-compatible
      "::ffff:0:7f00:1", // IPv4-translated
      "64:ff9b::7f00:1", // NAT64
      "64:ff9b:1::7f00:1", // NAT64, local use
      "2002:7f00:1::1", // 6to4
      "2001:0:4136:e378:8000:63bf:80ff:fffe", // Teredo
      "100::1", // discard
      "2001:2::1", // benchmarking
      "2001:db8::1", // documentation
      "3fff::1", // documentation
    ];
    for (const address of refused) {
      expect(addressRefusal(address, false), address).toBe(
        `refusing to fetch a private or loopback address: ${address}`,
      );
    }
    // The opt-in lets this machine through as 127.0.0.1 or ::1, never in another range's form.
    const before = web.requests().length;
    for (const address of ["::ffff:0:7f00:1", "64:ff9b:1::7f00:1"]) {
      expect(await refusal(`http://[${address}]:${port}/page`, open)).toBe(
        `refusing to fetch a private or loopback address: ${address}`,
      );
    }
    expect(pathsSince(before)).toEqual([]);
  });

  test("bad URLs are refused by what is wrong with them, before any request", async () => {
    const before = web.requests().length;
    expect(await refusal("file:///etc/passwd", open)).toBe(
      "only http and https URLs can be fetched: file:///etc/passwd",
    );
    expect(await refusal("ftp://127.0.0.1/x", open)).toBe(
      "only http and https URLs can be fetched: ftp://127.0.0.1/x",
    );
    expect(await refusal(`http://user:pw@127.0.0.1:${port}/page`, open)).toBe(
      "URLs with a user name or password are not fetched",
    );
    expect(await refusal(`http://user@127.0.0.1:${port}/page`, open)).toBe(
      "URLs with a user name or password are not fetched",
    );
    expect(await refusal("not a url", open)).toBe("not a valid URL: not a url");
    const long = `http://127.0.0.1:${port}/${"a".repeat(2000)}`;
    expect(await refusal(long, open)).toBe(`URL too long: ${long.length} chars (limit 2000)`);
    expect(pathsSince(before)).toEqual([]);
  });

  test("the lookup answers both forms Node asks for, and refuses with the name", () => {
    const refusals: string[] = [];
    const guarded = guardedLookup(open, (text) => refusals.push(text));
    const answers: unknown[][] = [];
    guarded("pages.test", { all: true }, (...args) => answers.push(args));
    guarded("pages.test", {}, (...args) => answers.push(args));
    guarded("internal.test", {}, (...args) => answers.push(args));
    expect(answers[0]).toEqual([null, [{ address: "127.0.0.1", family: 4 }]]);
    expect(answers[1]).toEqual([null, "127.0.0.1", 4]);
    expect((answers[2]?.[0] as Error | undefined)?.message).toBe(
      "refusing to fetch a private or loopback address: 10.1.2.3 (internal.test)",
    );
    expect(refusals).toEqual([
      "refusing to fetch a private or loopback address: 10.1.2.3 (internal.test)",
    ]);
  });
});

test("the lookup asks for the family Node asked for, and always for every address", () => {
  const asked: unknown[] = [];
  const recording: Lookup = (_name, options, done) => {
    asked.push(options);
    done(null, [{ address: "127.0.0.1", family: 4 }]);
  };
  const guarded = guardedLookup({ ...open, lookup: recording }, () => {});
  for (const family of [4, 6, "IPv4", "IPv6", undefined]) {
    guarded("pages.test", family === undefined ? {} : { family }, () => {});
  }
  expect(asked).toEqual([
    { all: true, family: 4 },
    { all: true, family: 6 },
    { all: true, family: 4 },
    { all: true, family: 6 },
    { all: true, family: 0 },
  ]);
});

describe("redirects", () => {
  test("are followed, and the result names the final URL", async () => {
    const before = web.requests().length;
    const page = await fetchPage(`${web.url}/start`, open);
    expect(page.split("\n")[0]).toBe(`url: ${web.url}/page`);
    expect(page).toContain("# Fixture Title");
    expect(pathsSince(before)).toEqual(["/start", "/middle", "/page"]);
  });

  test("a hop to a refused address is stopped at the hop", async () => {
    const cases: [string, string][] = [
      ["/to-metadata", "refusing to fetch a private or loopback address: 169.254.169.254"],
      ["/to-mapped", "refusing to fetch a private or loopback address: ::ffff:a9fe:a9fe"],
      ["/to-file", "only http and https URLs can be fetched: file:///etc/passwd"],
    ];
    for (const [path, text] of cases) {
      const before = web.requests().length;
      expect(await refusal(`${web.url}${path}`, open)).toBe(
        `${text} (redirected from ${web.url}${path})`,
      );
      expect(pathsSince(before)).toEqual([path]);
    }
    // A name is checked when it is looked up, on the hop's own connection.
    const before = web.requests().length;
    expect(await refusal(`${web.url}/to-internal`, open)).toBe(
      `refusing to fetch a private or loopback address: 10.1.2.3 (internal.test) (redirected from ${web.url}/to-internal)`,
    );
    expect(pathsSince(before)).toEqual(["/to-internal"]);
  });

  test("stop after five", async () => {
    const before = web.requests().length;
    expect(await refusal(`${web.url}/loop`, open)).toBe(`too many redirects (5): ${web.url}/loop`);
    expect(pathsSince(before)).toEqual(Array(6).fill("/loop"));
  });
});

describe("reading", () => {
  test("HTML becomes Markdown: no scripts, styles or images, links absolute", async () => {
    const page = await fetchPage(`${web.url}/page`, open);
    const [head, body] = [
      page.slice(0, page.indexOf("\n\n")),
      page.slice(page.indexOf("\n\n") + 2),
    ];
    expect(head).toBe(`url: ${web.url}/page\ncontent-type: text/html; charset=utf-8`);
    expect(body.startsWith("Fixture Title\n\n# Fixture Title\n\n")).toBe(true);
    expect(body).not.toMatch(/[ \t]$|\n\n\n/m);
    expect(body).toContain(`Some **bold** text and [a link](${web.url}/docs/a?x=1).`);
    expect(body).toContain("-   one\n-   two");
    expect(body).toContain("```\nconst x = 1;\n```");
    expect(body).toContain("not a link");
    for (const gone of ["evil()", "color: red", "<p>", "logo", "enable js", "javascript:"]) {
      expect(body, gone).not.toContain(gone);
    }
  });

  test("toMarkdown resolves links against the page, not the site", () => {
    const base = new URL("https://example.com/guide/intro.html");
    expect(toMarkdown('<a href="next.html">Next</a>', base)).toBe(
      "[Next](https://example.com/guide/next.html)",
    );
    expect(toMarkdown('<a href="#top">Top</a>', base)).toBe(
      "[Top](https://example.com/guide/intro.html#top)",
    );
  });

  test("JSON comes as it is; text in its charset; gzip decoded", async () => {
    expect(await fetchPage(`${web.url}/json`, open)).toBe(
      `url: ${web.url}/json\ncontent-type: application/json\n\n{"a": [1, 2], "b": "<p>kept</p>"}`,
    );
    expect(await fetchPage(`${web.url}/latin1`, open)).toMatch(/\n\ncafé$/);
    expect(await fetchPage(`${web.url}/gzip`, open)).toMatch(/\n\n## Packed$/);
  });

  test("other types, other encodings and failed statuses are refused by name", async () => {
    expect(await refusal(`${web.url}/png`, open)).toBe("unsupported content type: image/png");
    expect(await refusal(`${web.url}/untyped-binary`, open)).toBe(
      "unsupported content type: none given, and the body is binary",
    );
    expect(await refusal(`${web.url}/zstd`, open)).toBe("unsupported content encoding: zstd");
    expect(await refusal(`${web.url}/missing`, open)).toBe(
      `HTTP 404 Not Found: ${web.url}/missing`,
    );
  });

  test("a big page is cut at 2 MiB while reading, then at 20,000 characters", async () => {
    const page = await fetchPage(`${web.url}/big`, open);
    const head = `url: ${web.url}/big\ncontent-type: text/plain\n\n`;
    const room = 20_000 - head.length;
    expect(page).toBe(
      `${head}${"0123456789abcdef".repeat(room / 16 + 1).slice(0, room)}\n` +
        `[showing the first ${room} of 2097152 chars]\n[page cut at 2097152 bytes]`,
    );
  });

  test.each([
    ["a gzip bomb", "/bomb"],
    ["an endless body", "/endless"],
    ["an endless brotli body", "/endless-br"],
  ])(
    "%s stops at 2 MiB of decoded bytes",
    async (_what, path) => {
      // The cap is what is shown here, not the time: decoding 2 MiB may wait long for a busy CPU.
      const page = await fetchPage(`${web.url}${path}`, { ...open, timeoutMs: 120_000 });
      expect(page).toMatch(
        /\n\[showing the first \d+ of 2097152 chars\]\n\[page cut at 2097152 bytes\]$/,
      );
    },
    150_000,
  );

  test("the time limit covers a slow first byte", async () => {
    expect(await refusal(`${web.url}/slow`, { ...open, timeoutMs: 200 })).toBe(
      `timed out after 200 ms: ${web.url}/slow`,
    );
  });
});

describe("a hostile page", () => {
  const base = new URL("https://example.com/");

  test("long runs of spaces are kept inside a line and dropped at its end, in linear time", () => {
    // Quadratic trimming took minutes over 200,000 spaces; the test's time limit is the check.
    const spaces = " ".repeat(200_000);
    expect(toMarkdown(`<pre><code>a${spaces}b${spaces}\nc</code></pre>`, base)).toBe(
      `\`\`\`\na${spaces}b\nc\n\`\`\``,
    );
    const nbsp = "\u00a0".repeat(200_000);
    expect(toMarkdown(`<p>a${nbsp}b</p>`, base)).toBe(`a${nbsp}b`);
  }, 10_000);

  test("a page nested too deeply is a one-line refusal, not a stack overflow", () => {
    expect(() => toMarkdown(`${"<div>".repeat(5000)}x`, base)).toThrow(
      new ToolError("page is nested too deeply to convert"),
    );
  });

  test("a frameset page is converted, not a crash", () => {
    const frames = '<title>Frames</title><frameset><frame src="a.html"></frameset>';
    expect(toMarkdown(frames, base)).toBe("Frames");
  });

  test("the worker converts as this thread does", async () => {
    const html = '<h1>T</h1><p>a <a href="/x">link</a></p><script>x()</script>';
    const signal = new AbortController().signal;
    expect(await toMarkdownStoppable(html, base, { signal })).toBe(toMarkdown(html, base));
  });

  // 40,000 nested elements take the parser about 17 s (its cost grows with the square of the
  // depth), with no callback on the way: only terminating the worker stops it.
  const frozen = `${"<div>".repeat(40_000)}x`;

  test("a page that takes too long to convert is a one-line refusal", async () => {
    const signal = new AbortController().signal;
    await expect(toMarkdownStoppable(frozen, base, { timeLimitMs: 300, signal })).rejects.toThrow(
      new ToolError("page took too long to convert"),
    );
  });

  test("a stop (Ctrl-C in a REPL) ends a conversion at once, long before the time limit", async () => {
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 100);
    await expect(
      toMarkdownStoppable(frozen, base, { timeLimitMs: 600_000, signal: stop.signal }),
    ).rejects.toThrow(new ToolError("stopped while converting the page"));
  });

  test("only the first 524,288 characters of HTML are converted, and the page says so", async () => {
    // No time limit to race: how long 512 KiB takes to convert is the machine's doing.
    const unhurried = { ...open, timeoutMs: 600_000, convertTimeLimitMs: 600_000 };
    const page = await fetchPage(`${web.url}/huge-html`, unhurried);
    // 47,662 paragraphs and "<p>wor" of the next: "word" and a blank line each, then "wor".
    expect(page).toMatch(
      /\n\[showing the first \d+ of 285975 chars\]\n\[page cut at 2097152 bytes\]\n\[HTML cut at 524288 chars before conversion\]$/,
    );
  });
});

describe("the time limit covers the body", () => {
  let stalled: Server;
  let url: string;
  beforeAll(async () => {
    // Sends the head and a first chunk, then nothing, never ending the body.
    stalled = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("the start ");
    });
    await new Promise<void>((resolve) => stalled.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(stalled.address() as AddressInfo).port}/stall`;
  });
  afterAll(async () => {
    stalled.closeAllConnections();
    await new Promise((resolve) => stalled.close(resolve));
  });

  test("a body that stops arriving times out", async () => {
    expect(await refusal(url, { ...open, timeoutMs: 300 })).toBe(`timed out after 300 ms: ${url}`);
  });
});

describe("the tool", () => {
  test("is offered with url required, and its refusals are is_error results", async () => {
    const tools = defaultTools();
    const tool = tools.list().find((candidate) => candidate.name === "web_fetch");
    expect(tool?.parameters?.required).toEqual(["url"]);
    const before = web.requests().length;
    const saved = process.env.AGENT_CODE_ALLOW_LOCAL_FETCH;
    delete process.env.AGENT_CODE_ALLOW_LOCAL_FETCH;
    try {
      const ctx = {
        cwd: process.cwd(),
        readState: new ReadState(),
        signal: new AbortController().signal,
        ui: { ...NO_UI, confirm: async () => true },
      };
      const result = await tools.run(
        { id: "toolu_1", name: "web_fetch", arguments: { url: `${web.url}/page` } },
        ctx,
      );
      expect(result).toEqual({
        toolCallId: "toolu_1",
        content: "refusing to fetch a private or loopback address: 127.0.0.1",
        isError: true,
      });
    } finally {
      if (saved !== undefined) process.env.AGENT_CODE_ALLOW_LOCAL_FETCH = saved;
    }
    expect(pathsSince(before)).toEqual([]);
  });

  test("options come from the environment: the opt-in is exactly 1; a bad timeout is named", () => {
    expect(fetchOptions({ AGENT_CODE_ALLOW_LOCAL_FETCH: "1" })).toEqual({
      allowLoopback: true,
      timeoutMs: 30_000,
    });
    expect(fetchOptions({ AGENT_CODE_ALLOW_LOCAL_FETCH: "true" }).allowLoopback).toBe(false);
    expect(fetchOptions({ AGENT_CODE_FETCH_TIMEOUT_MS: "300" }).timeoutMs).toBe(300);
    expect(() => fetchOptions({ AGENT_CODE_FETCH_TIMEOUT_MS: "soon" })).toThrow(
      'AGENT_CODE_FETCH_TIMEOUT_MS must be a whole number of milliseconds, got "soon"',
    );
  });

  test("checkUrl keeps a public URL as the parser wrote it", () => {
    expect(checkUrl("HTTPS://Example.COM/a b", closed).href).toBe("https://example.com/a%20b");
  });

  test("no real name was ever looked up", () => {
    expect(lookups.every((name) => name in NAMES)).toBe(true);
  });

  test("asks before it fetches, and a no sends no request", async () => {
    const asked: string[] = [];
    const before = web.requests().length;
    const ctx = {
      cwd: process.cwd(),
      readState: new ReadState(),
      signal: new AbortController().signal,
      ui: {
        ...NO_UI,
        confirm: async (question: string) => {
          asked.push(question);
          return false;
        },
      },
    };
    // The fake web is on loopback, which only this setting lets past the checks.
    const saved = process.env.AGENT_CODE_ALLOW_LOCAL_FETCH;
    process.env.AGENT_CODE_ALLOW_LOCAL_FETCH = "1";
    const result = await defaultTools()
      .run({ id: "toolu_1", name: "web_fetch", arguments: { url: `${web.url}/page` } }, ctx)
      .finally(() => {
        if (saved === undefined) delete process.env.AGENT_CODE_ALLOW_LOCAL_FETCH;
        else process.env.AGENT_CODE_ALLOW_LOCAL_FETCH = saved;
      });
    expect(result).toEqual({
      toolCallId: "toolu_1",
      content: "the user rejected this call to web_fetch",
      isError: true,
    });
    expect(asked).toEqual([`Allow web_fetch ${web.url}/page?`]);
    expect(pathsSince(before)).toEqual([]);
  });

  test("a URL refused without the network is refused before anyone is asked", async () => {
    const asked: string[] = [];
    const ctx = {
      cwd: process.cwd(),
      readState: new ReadState(),
      signal: new AbortController().signal,
      ui: {
        ...NO_UI,
        confirm: async (question: string) => {
          asked.push(question);
          return true;
        },
      },
    };
    const tools = defaultTools();
    const run = (url: string) =>
      tools.run({ id: "toolu_1", name: "web_fetch", arguments: { url } }, ctx);
    expect((await run("file:///etc/passwd")).content).toBe(
      "only http and https URLs can be fetched: file:///etc/passwd",
    );
    expect((await run("https://me:hunter2@example.com/")).content).toBe(
      "URLs with a user name or password are not fetched",
    );
    expect(asked).toEqual([]);
  });
});

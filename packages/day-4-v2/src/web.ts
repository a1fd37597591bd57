// web_fetch: a page the model asks for, fetched as if the URL came from a stranger. The URL is
// checked before anything connects, the address is checked on the connection itself (so a name
// that resolves to this machine, and every redirect, is checked too), and the body is capped
// while it arrives.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from "node:dns";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { createRequire } from "node:module";
import { BlockList, isIP } from "node:net";
import { pipeline, type Readable } from "node:stream";
import { Worker } from "node:worker_threads";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type TurndownService from "turndown";
import { sniffText, truncate } from "./fs-safety.ts";
import { ToolError } from "./tools.ts";

// The limits of one fetch: the URL, the redirects followed, the decoded bytes read, the HTML
// converted, the characters the model gets, and the time for all of it and for the conversion.
const MAX_URL_CHARS = 2000;
const MAX_REDIRECTS = 5;
const MAX_BODY_BYTES = 2 * 1024 * 1024;
const MAX_HTML_CHARS = 512 * 1024;
const MAX_FETCH_CHARS = 20_000;
const DEFAULT_TIMEOUT_MS = 30_000;
const CONVERT_TIME_LIMIT_MS = 5_000;
const USER_AGENT = "agent-code/0.1";

// A list of networks, each an address and a prefix length, IPv4 then IPv6.
function blockList(ipv4: [string, number][], ipv6: [string, number][]): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of ipv4) list.addSubnet(network, prefix, "ipv4");
  for (const [network, prefix] of ipv6) list.addSubnet(network, prefix, "ipv6");
  return list;
}

// Addresses no fetch may reach: this machine, private networks, link-local (the cloud metadata
// service at 169.254.169.254), shared and reserved ranges, multicast, and the IPv6 forms of the
// same. An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is checked against the IPv4 rules. The IPv6
// ranges that carry an IPv4 address inside (compatible, translated, NAT64, 6to4, Teredo) are
// refused whole rather than decoded: simpler, and no page a fetch needs lives there.
const BLOCKED = blockList(
  [
    ["0.0.0.0", 8],
    ["10.0.0.0", 8],
    ["100.64.0.0", 10],
    ["127.0.0.0", 8],
    ["169.254.0.0", 16],
    ["172.16.0.0", 12],
    ["192.0.0.0", 24],
    ["192.168.0.0", 16],
    ["198.18.0.0", 15],
    ["224.0.0.0", 4],
    ["240.0.0.0", 4],
  ],
  [
    ["::", 96],
    ["::ffff:0:0:0", 96],
    ["64:ff9b::", 96],
    ["64:ff9b:1::", 48],
    ["100::", 64],
    ["2001::", 32],
    ["2001:2::", 48],
    ["2001:db8::", 32],
    ["2002::", 16],
    ["3fff::", 20],
    ["fc00::", 7],
    ["fe80::", 10],
    ["fec0::", 10],
    ["ff00::", 8],
  ],
);

// Loopback only: what AGENT_CODE_ALLOW_LOCAL_FETCH=1 lets through, so a test can fetch from a
// server on 127.0.0.1. No setting lets a private or link-local address through.
const LOOPBACK = blockList([["127.0.0.0", 8]], [["::1", 128]]);

// Why an address may not be fetched, or undefined when it may.
export function addressRefusal(address: string, allowLoopback: boolean): string | undefined {
  const family = isIP(address);
  if (family === 0) return `not an IP address: ${address}`;
  const type = family === 4 ? "ipv4" : "ipv6";
  if (allowLoopback && LOOPBACK.check(address, type)) return undefined;
  if (!BLOCKED.check(address, type)) return undefined;
  return `refusing to fetch a private or loopback address: ${address}`;
}

// How a name becomes addresses: dns.lookup by default, a stand-in in tests.
export type Lookup = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export interface FetchOptions {
  allowLoopback: boolean;
  timeoutMs: number;
  // How long converting a page may take (CONVERT_TIME_LIMIT_MS unless a test says).
  convertTimeLimitMs?: number;
  lookup?: Lookup;
}

// The options a run gets from its environment.
export function fetchOptions(env: NodeJS.ProcessEnv): FetchOptions {
  const timeout = env.AGENT_CODE_FETCH_TIMEOUT_MS;
  const timeoutMs = timeout === undefined || timeout === "" ? DEFAULT_TIMEOUT_MS : Number(timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) {
    throw new ToolError(
      `AGENT_CODE_FETCH_TIMEOUT_MS must be a whole number of milliseconds, got ${JSON.stringify(timeout)}`,
    );
  }
  return { allowLoopback: env.AGENT_CODE_ALLOW_LOCAL_FETCH === "1", timeoutMs };
}

// The lookup every connection makes for a name: it resolves every address the name has and
// refuses the connection if any of them is refused, so what is checked is what is connected to.
// Node asks for one address or, when it tries several, for all of them: both are answered.
export function guardedLookup(
  options: FetchOptions,
  refused: (text: string) => void,
): (
  hostname: string,
  lookupOptions: { all?: boolean; family?: number | string },
  callback: (...args: unknown[]) => void,
) => void {
  const resolve: Lookup = options.lookup ?? ((name, how, done) => dnsLookup(name, how, done));
  return (hostname, lookupOptions, callback) => {
    const asked = lookupOptions.family;
    const family = asked === "IPv6" ? 6 : asked === "IPv4" ? 4 : Number(asked ?? 0) || 0;
    resolve(hostname, { all: true, family }, (error, addresses) => {
      if (error) return callback(error);
      for (const { address } of addresses) {
        const refusal = addressRefusal(address, options.allowLoopback);
        if (refusal !== undefined) {
          const text = `${refusal} (${hostname})`;
          refused(text);
          return callback(new Error(text));
        }
      }
      const first = addresses[0];
      if (first === undefined) return callback(new Error(`no address for ${hostname}`));
      if (lookupOptions.all) return callback(null, addresses);
      callback(null, first.address, first.family);
    });
  };
}

// The URL as the model gave it, refused before anything connects: too long, not a URL, not http
// or https, with a user name or password, or an IP address that is not public. The parser has
// already turned every spelling of an address (127.1, 2130706433, 0x7f000001, [::ffff:7f00:1])
// into one form.
export function checkUrl(text: string, options: FetchOptions): URL {
  if (text.length > MAX_URL_CHARS) {
    throw new ToolError(`URL too long: ${text.length} chars (limit ${MAX_URL_CHARS})`);
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ToolError(`not a valid URL: ${truncate(text, 200)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ToolError(`only http and https URLs can be fetched: ${truncate(text, 200)}`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new ToolError("URLs with a user name or password are not fetched");
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) !== 0) {
    const refusal = addressRefusal(host, options.allowLoopback);
    if (refusal !== undefined) throw new ToolError(refusal);
  }
  return url;
}

// One request, no redirects followed: resolves with the response's head, the body unread.
function requestOnce(
  url: URL,
  options: FetchOptions,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  let refusal: string | undefined;
  const lookup = guardedLookup(options, (text) => {
    refusal = text;
  });
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(url, {
      method: "GET",
      // A fresh connection each time: nothing is reused past the check that allowed it.
      agent: false,
      lookup: lookup as never,
      signal,
      headers: {
        "user-agent": USER_AGENT,
        accept: "text/html, text/*;q=0.9, application/json;q=0.9, */*;q=0.1",
        "accept-encoding": "gzip, br",
      },
    });
    request.once("response", resolve);
    request.once("error", (error) =>
      reject(refusal === undefined ? error : new ToolError(refusal)),
    );
    request.end();
  });
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

// Follows up to MAX_REDIRECTS redirects by hand, each new URL checked as the first was.
async function follow(
  start: URL,
  options: FetchOptions,
  signal: AbortSignal,
): Promise<{ url: URL; response: IncomingMessage }> {
  let url = start;
  let from: URL | undefined;
  // A refusal on a hop names the page that sent us there.
  const refusedHop = (text: string) =>
    new ToolError(from === undefined ? text : `${text} (redirected from ${from})`);
  for (let hops = 0; ; hops++) {
    const response = await requestOnce(url, options, signal).catch((error: unknown) =>
      Promise.reject(error instanceof ToolError ? refusedHop(error.message) : error),
    );
    const location = response.headers.location;
    if (!REDIRECTS.has(response.statusCode ?? 0) || location === undefined) {
      return { url, response };
    }
    response.destroy();
    if (hops === MAX_REDIRECTS) {
      throw new ToolError(`too many redirects (${MAX_REDIRECTS}): ${start}`);
    }
    from = url;
    try {
      url = checkUrl(new URL(location, from).href, options);
    } catch (error) {
      throw refusedHop(error instanceof ToolError ? error.message : `not a valid URL: ${location}`);
    }
  }
}

// The body, decoded, up to MAX_BODY_BYTES: reading stops there, however much more the server
// would send, so a compressed bomb or an endless page costs 2 MiB and no more.
async function readCapped(response: IncomingMessage): Promise<{ bytes: Buffer; cut: boolean }> {
  const encoding = (response.headers["content-encoding"] ?? "identity").trim().toLowerCase();
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? createGunzip()
      : encoding === "br"
        ? createBrotliDecompress()
        : encoding === "deflate"
          ? createInflate()
          : undefined;
  if (decoder === undefined && encoding !== "identity") {
    response.destroy();
    throw new ToolError(`unsupported content encoding: ${encoding}`);
  }
  const source: Readable = decoder === undefined ? response : pipeline(response, decoder, () => {});
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of source) {
    const room = MAX_BODY_BYTES - size;
    if ((chunk as Buffer).length > room) {
      chunks.push((chunk as Buffer).subarray(0, room));
      source.destroy();
      response.destroy();
      return { bytes: Buffer.concat(chunks), cut: true };
    }
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { bytes: Buffer.concat(chunks), cut: false };
}

// What a content type is to us: a page to convert, text to pass on, or something we refuse.
function kindOf(mime: string): "html" | "text" | undefined {
  if (mime === "text/html" || mime === "application/xhtml+xml") return "html";
  if (mime.startsWith("text/")) return "text";
  if (/^application\/([\w.-]+\+)?(json|xml)$/.test(mime)) return "text";
  return undefined;
}

// Bytes to text in the charset the server named; UTF-8 when it named none or one we do not know.
function decodeText(bytes: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? "utf-8").decode(bytes);
  } catch {
    return new TextDecoder().decode(bytes);
  }
}

// HTML as Markdown: headings with #, fenced code, - bullets; what is not text (scripts, styles,
// frames, images) dropped; every link made absolute against the page's URL, so the model can
// fetch it next. The function is whole in itself (it uses nothing else of this file, and gets
// turndown as an argument) because it also runs on a worker, sent there as source text. A page
// too deeply nested to convert gives `error` instead of `markdown`.
export function convertHtml(
  Turndown: typeof TurndownService,
  html: string,
  baseHref: string,
): { markdown?: string; error?: string } {
  const base = new URL(baseHref);
  const service = new Turndown({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
  });
  // A rule, not remove(): turndown's own image rule would win over a removal.
  service.addRule("dropped", {
    filter: ["script", "style", "noscript", "iframe", "svg", "img"] as never,
    replacement: () => "",
  });
  service.addRule("absoluteLinks", {
    filter: (node) => node.nodeName === "A" && node.getAttribute("href") !== null,
    replacement: (content, node) => {
      const href = (node as { getAttribute(name: string): string | null }).getAttribute("href");
      let target: URL;
      try {
        target = new URL(href ?? "", base);
      } catch {
        return content;
      }
      if (target.protocol !== "http:" && target.protocol !== "https:") return content;
      return content.trim() === "" ? "" : `[${content}](${target.href})`;
    },
  });
  // turndown's last step trims its output with a regular expression that takes minutes over a
  // long run of spaces, so the page is wrapped in an element of ours whose rule takes the text
  // and stops turndown there. The <wbr> keeps the wrapper from counting as blank (turndown asks no
  // rule about a blank element) and keeps a <frameset> from replacing the whole page.
  const converted = new Error("converted");
  let page = "";
  service.addRule("page", {
    filter: (node) => node.nodeName === "X-AGENT-PAGE",
    replacement: (content) => {
      page = content;
      throw converted;
    },
  });
  try {
    page = service.turndown(`<x-agent-page><wbr>${html}</x-agent-page>`);
  } catch (error) {
    if (error instanceof RangeError) return { error: "page is nested too deeply to convert" };
    if (error !== converted) throw error;
  }
  // Spaces at the ends of lines (turndown's line breaks, and what dropped elements leave) and
  // runs of blank lines cost tokens and say nothing. Each line is trimmed from its end: /[ \t]+$/
  // would start again at each space of a run that does not end the line (9 s for 80,000).
  const trimmed = page.split("\n").map((line) => {
    let end = line.length;
    while (end > 0 && (line[end - 1] === " " || line[end - 1] === "\t")) end--;
    return line.slice(0, end);
  });
  return {
    markdown: trimmed
      .join("\n")
      .replace(/\n{3,}/g, "\n\n")
      .trim(),
  };
}

// Where turndown's own file is, for toMarkdown and the worker to require: the worker is source
// text, so it cannot import, and an import would load turndown with every run. It comes from the
// same node_modules this file's imports come from, looked up when a page is converted, so a run
// that fetches no HTML never needs it.
function turndownFile(): string {
  try {
    return createRequire(import.meta.url).resolve("turndown");
  } catch {
    throw new ToolError("could not convert the page: the turndown package is not installed");
  }
}

// convertHtml on this thread: for a caller that trusts the page (the tests). It requires turndown
// as the worker does.
export function toMarkdown(html: string, base: URL): string {
  const Turndown: typeof TurndownService = createRequire(import.meta.url)(turndownFile());
  const { markdown, error } = convertHtml(Turndown, html, base.href);
  if (error !== undefined) throw new ToolError(error);
  return markdown ?? "";
}

// convertHtml on a worker thread, stopped at `timeLimitMs` or when `signal` aborts. A parser and
// turndown are synchronous: on this thread a page built to be slow (deep nesting is quadratic in
// the parser) would freeze the agent and Ctrl-C with it. Terminating the worker stops anything.
export function toMarkdownStoppable(
  html: string,
  base: URL,
  { timeLimitMs = CONVERT_TIME_LIMIT_MS, signal }: { timeLimitMs?: number; signal: AbortSignal },
): Promise<string> {
  // tsx (esbuild's keepNames) wraps named functions in a helper, __name, that the worker lacks.
  const program = `
const __name = (target) => target;
const { workerData, parentPort } = process.getBuiltinModule("node:worker_threads");
const load = process.getBuiltinModule("node:module").createRequire(workerData.turndown);
const convert = ${convertHtml};
parentPort.postMessage(convert(load(workerData.turndown), workerData.html, workerData.base));`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(program, {
      eval: true,
      workerData: { turndown: turndownFile(), html, base: base.href },
    });
    const end = (settle: () => void) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", stop);
      void worker.terminate();
      settle();
    };
    const stop = () => end(() => reject(new ToolError("stopped while converting the page")));
    const timer = setTimeout(
      () => end(() => reject(new ToolError("page took too long to convert"))),
      timeLimitMs,
    );
    signal.addEventListener("abort", stop, { once: true });
    worker.once("message", ({ markdown, error }: { markdown?: string; error?: string }) =>
      end(() => (error === undefined ? resolve(markdown ?? "") : reject(new ToolError(error)))),
    );
    worker.once("error", (error) =>
      end(() => reject(new ToolError(`could not convert the page: ${error.message}`))),
    );
  });
}

// The page as the model reads it: where it came from, its type, then its text.
export async function fetchPage(
  text: string,
  options: FetchOptions,
  stop: AbortSignal = new AbortController().signal,
): Promise<string> {
  const start = checkUrl(text, options);
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([stop, deadline]);
  try {
    const { url, response } = await follow(start, options, signal);
    const status = response.statusCode ?? 0;
    if (status < 200 || status > 299) {
      response.destroy();
      const reason = response.statusMessage ? ` ${response.statusMessage}` : "";
      throw new ToolError(`HTTP ${status}${reason}: ${url}`);
    }
    const type = response.headers["content-type"] ?? "";
    const mime = type.split(";")[0]?.trim().toLowerCase() ?? "";
    const kind = mime === "" ? "text" : kindOf(mime);
    if (kind === undefined) {
      response.destroy();
      throw new ToolError(`unsupported content type: ${mime}`);
    }
    const { bytes, cut } = await readCapped(response);
    if (mime === "" && !sniffText(bytes)) {
      throw new ToolError("unsupported content type: none given, and the body is binary");
    }
    const charset = /;\s*charset="?([^";\s]+)/i.exec(type)?.[1];
    const decoded = decodeText(bytes, charset);
    if (kind !== "html") return shownPage(url, type, decoded, { bytes: cut, html: false });
    // Converting costs far more than reading, and the model sees 20,000 characters at most.
    const html = truncate(decoded, MAX_HTML_CHARS);
    const markdown = await toMarkdownStoppable(html, url, {
      timeLimitMs: options.convertTimeLimitMs,
      signal,
    });
    return shownPage(url, type, markdown, { bytes: cut, html: html.length < decoded.length });
  } catch (error) {
    if (error instanceof ToolError) throw error;
    if (deadline.aborted) throw new ToolError(`timed out after ${options.timeoutMs} ms: ${start}`);
    if (stop.aborted) throw new ToolError(`stopped: ${start}`);
    throw new ToolError(`could not fetch ${start}: ${networkReason(error)}`);
  }
}

// What the model reads: where the page came from, its type, a blank line, then the text, within
// MAX_FETCH_CHARS; a marker for each cut, the characters', the bytes' and the HTML's.
function shownPage(
  url: URL,
  type: string,
  body: string,
  cut: { bytes: boolean; html: boolean },
): string {
  const head = `url: ${url}\ncontent-type: ${type || "(none)"}\n\n`;
  const room = MAX_FETCH_CHARS - head.length;
  const text =
    body.length <= room
      ? body
      : `${truncate(body, room)}\n[showing the first ${room} of ${body.length} chars]`;
  const bytesCut = cut.bytes ? `\n[page cut at ${MAX_BODY_BYTES} bytes]` : "";
  const htmlCut = cut.html ? `\n[HTML cut at ${MAX_HTML_CHARS} chars before conversion]` : "";
  return `${head}${text}${bytesCut}${htmlCut}`;
}

// A network failure in a few words: the error's code when it has one (ECONNREFUSED, ENOTFOUND).
function networkReason(error: unknown): string {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return typeof code === "string" ? code : String(message);
}

// The tool: one URL, options from the environment, stopped with the run.
export function webFetch(
  args: Record<string, unknown>,
  ctx: { signal: AbortSignal },
): Promise<string> {
  return fetchPage(String(args.url), fetchOptions(process.env), ctx.signal);
}

// Answers that are not the API at all, the kind a wrong base URL or a proxy in between
// gives (a web page, some other service's JSON, a message whose content is not a list, an event
// stream nobody asked for), and raw steps: any status, headers and body, sent as they are.
import type { ServerResponse } from "node:http";
import type { RawStep, ReplyMessage } from "./server-steps.ts";

export const NOT_THE_API_FAULTS = [
  "html-page",
  "not-a-message",
  "string-content",
  "event-stream",
] as const;

export type NotTheApiFault = (typeof NOT_THE_API_FAULTS)[number];

// A proxy's or a portal's sign-in page: what a base URL that is not the API often serves.
const SIGN_IN_PAGE = `<!doctype html>
<html lang="en">
<head><title>Sign in</title></head>
<body><h1>Sign in to continue</h1><form method="post" action="/login"></form></body>
</html>
`;

export function isNotTheApiFault(fault: string): fault is NotTheApiFault {
  return (NOT_THE_API_FAULTS as readonly string[]).includes(fault);
}

/**
 * The same answer to a streaming and a non-streaming request. `stringContent` is the reply with
 * the list a client reads (a message's content, a response's output, a completion's choices)
 * turned into a string.
 */
export function notTheApiAnswer(
  fault: NotTheApiFault,
  stringContent: unknown,
  events: string,
): RawStep["raw"] {
  switch (fault) {
    case "html-page":
      return { headers: { "content-type": "text/html; charset=utf-8" }, body: SIGN_IN_PAGE };
    case "not-a-message":
      return json({ ok: true });
    case "string-content":
      return json(stringContent);
    case "event-stream":
      return { headers: { "content-type": "text/event-stream; charset=utf-8" }, body: events };
  }
}

/** Sends a raw step's answer; content-length is always computed (one given is replaced). */
export function sendRawAnswer(res: ServerResponse, raw: RawStep["raw"]): void {
  const { status = 200, headers = {}, body = "" } = raw;
  const kept = Object.entries(headers).filter(([name]) => name.toLowerCase() !== "content-length");
  res.writeHead(status, { ...Object.fromEntries(kept), "content-length": Buffer.byteLength(body) });
  res.end(body);
}

/** A Messages API reply whose content is its text as one string, not a list of blocks. */
export function withStringContent(message: ReplyMessage): unknown {
  const text = message.content.map((block) => (block.type === "text" ? block.text : ""));
  return { ...message, content: text.join("") };
}

function json(value: unknown): RawStep["raw"] {
  return { headers: { "content-type": "application/json" }, body: JSON.stringify(value) };
}

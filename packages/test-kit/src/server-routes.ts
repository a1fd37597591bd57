// The routes a real client calls besides `POST /v1/messages`: token counting, the model list,
// and the host root that some clients probe before their first request. Each answer is data;
// the server sends it in the flavour's envelope.
import type { IncomingHttpHeaders } from "node:http";
import { ANTHROPIC_MODELS, DEEPSEEK_MODELS, type ModelEntry, modelInfo } from "./models.ts";
import { estimateTokens } from "./server-steps.ts";

export type Route =
  | { kind: "messages" }
  | { kind: "count_tokens" }
  | { kind: "models" }
  | { kind: "model"; id: string }
  | { kind: "root" };

export type Answer =
  | { status: number; json: unknown }
  | { error: { status: number; type: string; message: string } };

/** The largest body the service takes: 32 MB (reference §3 rule 20). */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

// The errors page's text for rule 20; the service's front answers it before anything else.
export const TOO_LARGE = {
  status: 413,
  type: "request_too_large",
  message: "Request exceeds the maximum allowed number of bytes.",
};

/** Which route a request is for, or null (the real 404). The query string is already gone. */
export function routeOf(method: string, path: string): Route | null {
  if (method === "POST" && path === "/v1/messages") return { kind: "messages" };
  if (method === "POST" && path === "/v1/messages/count_tokens") return { kind: "count_tokens" };
  if (method === "GET" && path === "/v1/models") return { kind: "models" };
  const model = /^\/v1\/models\/([^/]+)$/.exec(path);
  if (method === "GET" && model?.[1]) return { kind: "model", id: decodeURIComponent(model[1]) };
  if ((method === "GET" || method === "HEAD") && path === "/") return { kind: "root" };
  return null;
}

/** What a request's headers tell the validator: its API version and its betas. */
export function versionAndBetas(headers: IncomingHttpHeaders): {
  version?: string;
  betas: string[];
} {
  const version = headers["anthropic-version"];
  // Several `anthropic-beta` headers and comma-separated lists are the same to the service.
  const raw = headers["anthropic-beta"];
  const betas = (Array.isArray(raw) ? raw.join(",") : (raw ?? ""))
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  return { ...(typeof version === "string" ? { version: version.trim() } : {}), betas };
}

/** Whether a route needs credentials: everything but the root. */
export function needsKey(route: Route): boolean {
  return route.kind !== "root";
}

/** The models a server lists: its own table, or the flavour's. */
export function modelsFor(flavour: string, models: readonly ModelEntry[] | undefined) {
  return models ?? (flavour === "deepseek" ? DEEPSEEK_MODELS : ANTHROPIC_MODELS);
}

/** The answer of every route but `messages`, which the script answers. */
export function answer(
  route: Exclude<Route, { kind: "messages" }>,
  context: { body: unknown; query: URLSearchParams; models: readonly ModelEntry[] },
): Answer {
  switch (route.kind) {
    case "count_tokens": {
      // The same estimate a reply's usage.input_tokens holds, so the two agree.
      const body = context.body as Record<string, unknown>;
      return {
        status: 200,
        json: { input_tokens: estimateTokens([body.system, body.tools, body.messages]) },
      };
    }
    case "models":
      return modelsPage(context.models, context.query);
    case "model": {
      const found = context.models.find((model) => model.id === route.id);
      if (found) return { status: 200, json: modelInfo(found) };
      return { error: { status: 404, type: "not_found_error", message: `model: ${route.id}` } };
    }
    case "root":
      // What the real host answers at its root is not in the reference; a client's probe only
      // needs to see the host reachable, so a 200 with an empty JSON object.
      return { status: 200, json: {} };
  }
}

// Paged like the real list: `limit` (1 to 1000, default 20), `after_id` or `before_id`, and
// `data`, `has_more`, `first_id`, `last_id`.
function modelsPage(models: readonly ModelEntry[], query: URLSearchParams): Answer {
  const limitText = query.get("limit") ?? "20";
  const limit = Number(limitText);
  if (!/^-?\d+$/.test(limitText)) {
    return invalid("limit: Input should be a valid integer, unable to parse string as an integer");
  }
  if (limit < 1) return invalid("limit: Input should be greater than or equal to 1");
  if (limit > 1000) return invalid("limit: Input should be less than or equal to 1000");
  const ids = models.map((model) => model.id);
  const after = query.get("after_id");
  const before = query.get("before_id");
  let start = 0;
  let end = models.length;
  if (after !== null) {
    if (!ids.includes(after)) return invalid(`after_id: unknown model id ${after}`);
    start = ids.indexOf(after) + 1;
  }
  if (before !== null) {
    if (!ids.includes(before)) return invalid(`before_id: unknown model id ${before}`);
    end = ids.indexOf(before);
    start = Math.max(start, end - limit);
  }
  const page = models.slice(start, Math.min(end, start + limit)).map(modelInfo);
  const hasMore = before !== null ? start > 0 : start + page.length < end;
  return {
    status: 200,
    json: {
      data: page,
      has_more: hasMore,
      first_id: page[0]?.id ?? null,
      last_id: page.at(-1)?.id ?? null,
    },
  };
}

function invalid(message: string): Answer {
  return { error: { status: 400, type: "invalid_request_error", message } };
}

// Which request fields the real service knows, and where a request holds one it does not: the
// SDK's request types (generated into known-fields.generated.ts) decide, plus what the API
// version and the `anthropic-beta` header add. Pydantic's `<location>: Extra inputs are not
// permitted` is the service's answer (reference §3).
import { ROOTS, SHAPES, type Shape, type TypeRef } from "./known-fields.generated.ts";

export interface FieldOptions {
  endpoint: "messages" | "count_tokens";
  /** The `anthropic-version` header; absent counts as the oldest, 2023-06-01. */
  version: string;
  /** The names in the `anthropic-beta` header. */
  betas: readonly string[];
}

/** The API version whose types SDK 1.x declares (its CHANGELOG, 1.0.0). */
export const CURRENT_VERSION = "2026-10-21";

// Top-level fields the beta types declare that work only under their own beta, not under any
// beta: the names pair a field with the beta that the reference or the field's docs name.
export const FIELD_BETAS: Record<string, readonly string[]> = {
  context_management: ["context-management-2025-06-27"],
  mcp_servers: ["mcp-client-2025-04-04", "mcp-client-2025-11-20", "mcp-client-2026-09-15"],
  thread: ["message-threads-2026-08-12"],
  compaction: ["compact-2026-01-12", "compact-2026-09-04"],
  output_format: ["structured-outputs-2025-11-13"],
  fallbacks: ["server-side-fallback-2026-06-01", "server-side-fallback-2026-07-01"],
  fallback_credit_token: ["fallback-credit-2026-06-01", "fallback-credit-2026-07-01"],
};

// Sampling fields of the API before 2026-10-21: SDK 1.x (which speaks 2026-10-21) no longer
// declares them, but clients on the older version (the Vercel AI SDK, most proxies) still send them.
const LEGACY_FIELDS = ["temperature", "top_p", "top_k"];

// What a beta adds that the SDK's types do not declare: `scope` on `cache_control`, which the
// service refuses without the beta (reference §3: `system.1.cache_control.ephemeral.scope`).
const BETA_EXTRAS = [
  { beta: "prompt-caching-scope-2026-01-05", shape: /CacheControlEphemeral$/, field: "scope" },
];

/** The location of the first field the service would call an extra input, or null. */
export function extraInput(body: Record<string, unknown>, options: FieldOptions): string | null {
  const beta = options.betas.length > 0;
  const root =
    options.endpoint === "messages"
      ? beta
        ? ROOTS.betaMessages
        : ROOTS.messages
      : beta
        ? ROOTS.betaCountTokens
        : ROOTS.countTokens;
  for (const key of Object.keys(body)) {
    const needs = FIELD_BETAS[key];
    if (needs && !needs.some((name) => options.betas.includes(name))) return key;
  }
  const extras = BETA_EXTRAS.filter((extra) => options.betas.includes(extra.beta));
  const legacy = options.version < CURRENT_VERSION ? LEGACY_FIELDS : [];
  return new Walker(extras, legacy).object(body, shapeOf(root), "", root);
}

class Walker {
  readonly #extras: typeof BETA_EXTRAS;
  readonly #legacy: string[];

  constructor(extras: typeof BETA_EXTRAS, legacy: string[]) {
    this.#extras = extras;
    this.#legacy = legacy;
  }

  object(value: Record<string, unknown>, shape: Shape, at: string, name: string): string | null {
    for (const [key, item] of Object.entries(value)) {
      const where = at === "" ? key : `${at}.${key}`;
      // Own fields only: a key such as `constructor` is not a field of every object.
      const ref = Object.hasOwn(shape.fields, key) ? shape.fields[key] : undefined;
      if (ref === undefined) {
        if (shape.open || this.#allowed(name, key, at === "")) continue;
        return where;
      }
      const found = this.value(item, ref, where);
      if (found) return found;
    }
    return null;
  }

  value(value: unknown, ref: TypeRef, at: string): string | null {
    if (typeof value !== "object" || value === null) return null;
    if (Array.isArray(value)) {
      const item = arrayItem(ref);
      if (item === undefined) return null;
      for (const [index, element] of value.entries()) {
        const found = this.value(element, item, `${at}.${index}`);
        if (found) return found;
      }
      return null;
    }
    const record = value as Record<string, unknown>;
    const candidates = objectMembers(ref);
    const chosen = candidates.find(({ shape }) => matches(record, shape));
    if (chosen === undefined) return null;
    // Pydantic names the member of a union it chose by its `type` tag (`content.0.tool_use.id`,
    // `cache_control.ephemeral.scope`); a lone type (`system.1`) or a role union has no tag.
    const tag = candidates.length > 1 || isUnion(ref) ? tagOf(chosen.shape) : undefined;
    return this.object(record, chosen.shape, tag ? `${at}.${tag}` : at, chosen.name);
  }

  #allowed(shape: string, field: string, top: boolean): boolean {
    if (top && this.#legacy.includes(field)) return true;
    for (const extra of this.#extras) {
      if (extra.field === field && extra.shape.test(shape)) return true;
    }
    return false;
  }
}

function shapeOf(name: string): Shape {
  const entry = SHAPES[name];
  if (typeof entry !== "object" || Array.isArray(entry)) {
    throw new Error(`known-fields: ${name} is not an object type`);
  }
  return entry;
}

// A reference through named aliases to what it finally is.
function resolve(ref: TypeRef): TypeRef | Shape {
  let current: TypeRef | Shape = ref;
  while (typeof current === "string" && current.startsWith("#")) {
    current = SHAPES[current.slice(1)] ?? "unknown";
  }
  return current;
}

function isUnion(ref: TypeRef): boolean {
  const resolved = resolve(ref);
  return Array.isArray(resolved) && resolved[0] === "|";
}

function arrayItem(ref: TypeRef): TypeRef | undefined {
  const resolved = resolve(ref);
  if (!Array.isArray(resolved)) return undefined;
  if (resolved[0] === "[]") return resolved[1];
  for (const member of resolved.slice(1)) {
    const item = arrayItem(member);
    if (item !== undefined) return item;
  }
  return undefined;
}

// Requests are validated on every round trip, so what a type resolves to is worked out once.
const membersCache = new Map<TypeRef, { shape: Shape; name: string }[]>();
const literalFieldsCache = new WeakMap<Shape, [string, string[]][]>();

function objectMembers(ref: TypeRef): { shape: Shape; name: string }[] {
  let members = membersCache.get(ref);
  if (members === undefined) {
    members = membersOf(ref);
    membersCache.set(ref, members);
  }
  return members;
}

// The object types a value of this type may be, with the names they are declared under.
function membersOf(ref: TypeRef, name = ""): { shape: Shape; name: string }[] {
  const key = typeof ref === "string" && ref.startsWith("#") ? ref.slice(1) : name;
  const resolved = typeof ref === "string" && ref.startsWith("#") ? SHAPES[key] : ref;
  if (resolved === undefined || typeof resolved === "string") return [];
  if (!Array.isArray(resolved)) return [{ shape: resolved, name: key }];
  if (resolved[0] !== "|") return [];
  return resolved.slice(1).flatMap((member) => membersOf(member, key));
}

// Whether a value can be this member of a union: every string-literal field it has (its `type`,
// its `role`) holds one of the member's values.
function matches(value: Record<string, unknown>, shape: Shape): boolean {
  let fields = literalFieldsCache.get(shape);
  if (fields === undefined) {
    fields = Object.entries(shape.fields).flatMap(([field, ref]) => {
      const literals = literalsOf(ref);
      return literals === undefined ? [] : [[field, literals] as [string, string[]]];
    });
    literalFieldsCache.set(shape, fields);
  }
  for (const [field, literals] of fields) {
    const actual = value[field];
    if (actual === undefined || actual === null) {
      if (field === "type" && !literals.includes("null")) return false;
      continue;
    }
    if (typeof actual !== "string" || !literals.includes(actual)) return false;
  }
  return true;
}

// The string literals a type allows, or undefined when it allows any string or something else.
function literalsOf(ref: TypeRef): string[] | undefined {
  const resolved = resolve(ref);
  if (typeof resolved === "string") {
    if (resolved === "null") return ["null"];
    return resolved.startsWith("'") ? [resolved.slice(1, -1)] : undefined;
  }
  if (!Array.isArray(resolved) || resolved[0] !== "|") return undefined;
  const all: string[] = [];
  for (const member of resolved.slice(1)) {
    const literals = literalsOf(member);
    if (literals === undefined) return undefined;
    all.push(...literals);
  }
  return all;
}

function tagOf(shape: Shape): string | undefined {
  const type = shape.fields.type;
  return type === undefined ? undefined : literalsOf(type)?.find((value) => value !== "null");
}

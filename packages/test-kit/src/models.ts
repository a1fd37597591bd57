// The models the fake server lists on `GET /v1/models` and whose output limit it enforces
// (`max_tokens: N > M, which is the maximum allowed number of output tokens for <model>`).
// A short list: enough for a client to page through and for the limit rule to bite.

/** A model as `GET /v1/models` lists it (the SDK's `ModelInfo`). */
export interface ModelInfo {
  type: "model";
  id: string;
  display_name: string;
  created_at: string;
  /** Its output limit; null: none enforced. */
  max_tokens: number | null;
  max_input_tokens: number | null;
  capabilities: null;
  deprecated_at: string | null;
  lifecycle: "active" | "deprecated" | "retired";
  line: null;
  retires_at: string | null;
}

/** What a server is started with: the id, a name and the limits; the rest is filled in. */
export interface ModelEntry {
  id: string;
  display_name?: string;
  created_at?: string;
  max_tokens?: number | null;
  max_input_tokens?: number | null;
}

// Newest first, as the real list is. The output limits are the ones the Vercel AI SDK's provider
// (@ai-sdk/anthropic 3.0.140) knows, so its default max_tokens passes; claude-3-5-sonnet-20240620's
// 4096 is the one the reference's verified rule-1 text quotes.
export const ANTHROPIC_MODELS: readonly ModelEntry[] = [
  model("claude-sonnet-5", "Claude Sonnet 5", "2026-09-15", 128000),
  model("claude-opus-4-8", "Claude Opus 4.8", "2026-07-22", 128000),
  model("claude-sonnet-4-6", "Claude Sonnet 4.6", "2026-02-17", 128000),
  model("claude-opus-4-6", "Claude Opus 4.6", "2026-02-05", 128000),
  model("claude-haiku-4-5", "Claude Haiku 4.5", "2025-10-15", 64000),
  model("claude-sonnet-4-5", "Claude Sonnet 4.5", "2025-09-29", 64000),
  model("claude-opus-4-1", "Claude Opus 4.1", "2025-08-05", 32000),
  model("claude-3-5-sonnet-20240620", "Claude Sonnet 3.5 (Old)", "2024-06-20", 4096),
];

// DeepSeek's Anthropic-compatible endpoint names these two (reference §6); their limits are
// not documented there, so none is enforced.
export const DEEPSEEK_MODELS: readonly ModelEntry[] = [
  { id: "deepseek-v4-pro", display_name: "DeepSeek V4 Pro" },
  { id: "deepseek-v4-flash", display_name: "DeepSeek V4 Flash" },
];

export function modelInfo(entry: ModelEntry): ModelInfo {
  return {
    type: "model",
    id: entry.id,
    display_name: entry.display_name ?? entry.id,
    created_at: entry.created_at ?? "2026-01-01T00:00:00Z",
    max_tokens: entry.max_tokens ?? null,
    max_input_tokens: entry.max_input_tokens ?? null,
    capabilities: null,
    deprecated_at: null,
    lifecycle: "active",
    line: null,
    retires_at: null,
  };
}

/** The output limits the validator enforces, by model id. */
export function outputLimits(models: readonly ModelEntry[]): Record<string, number> {
  return Object.fromEntries(
    models.flatMap((model) => (model.max_tokens ? [[model.id, model.max_tokens]] : [])),
  );
}

function model(id: string, name: string, day: string, maxTokens: number): ModelEntry {
  return {
    id,
    display_name: name,
    created_at: `${day}T00:00:00Z`,
    max_tokens: maxTokens,
    max_input_tokens: 200000,
  };
}

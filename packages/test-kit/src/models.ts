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

// Newest first, as the real list is. The limits are the published ones (the models overview
// page); claude-3-5-sonnet-20240620's 4096 is the one the reference's verified rule-1 text quotes.
export const ANTHROPIC_MODELS: readonly ModelEntry[] = [
  {
    id: "claude-opus-4-6",
    display_name: "Claude Opus 4.6",
    created_at: "2026-02-05T00:00:00Z",
    max_tokens: 128000,
    max_input_tokens: 200000,
  },
  {
    id: "claude-sonnet-4-5",
    display_name: "Claude Sonnet 4.5",
    created_at: "2025-09-29T00:00:00Z",
    max_tokens: 64000,
    max_input_tokens: 200000,
  },
  {
    id: "claude-haiku-4-5",
    display_name: "Claude Haiku 4.5",
    created_at: "2025-10-15T00:00:00Z",
    max_tokens: 64000,
    max_input_tokens: 200000,
  },
  {
    id: "claude-opus-4-1",
    display_name: "Claude Opus 4.1",
    created_at: "2025-08-05T00:00:00Z",
    max_tokens: 32000,
    max_input_tokens: 200000,
  },
  {
    id: "claude-3-5-sonnet-20240620",
    display_name: "Claude Sonnet 3.5 (Old)",
    created_at: "2024-06-20T00:00:00Z",
    max_tokens: 4096,
    max_input_tokens: 200000,
  },
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

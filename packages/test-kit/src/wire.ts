// The wire of a run, as docs:generate keeps it beside a replay (docs/replays/<id>.wire.json) and
// the site reads it: every model request the fake server received and what it sent back. One
// shape for the writer (scripts/lib/docs-wire.ts) and the reader (site/lib/wire.ts).
import type { RecordedRequest } from "./server.ts";

/** One server-sent event of a streamed reply: its name (null for none) and its parsed data. */
export interface WireEvent {
  event: string | null;
  data: unknown;
}

/** A reply as JSON, or a stream as its events and the message they add up to. */
export type WireResponse =
  | { status: number; body: unknown }
  | { status: number; events: WireEvent[]; message: unknown };

export interface WireExchange {
  api: RecordedRequest["api"];
  request: { method: string; path: string; body: unknown };
  response: WireResponse;
}

export interface Wire {
  version: 1;
  stage: string;
  scenario: string;
  /** The replay's text file, from the repository's root. */
  replay: string;
  /**
   * The stage's sources the run was made from, by content (`sha256:…`): a commit cannot be written
   * into a file of that same commit, and this names the code as exactly.
   */
  sources: string;
  exchanges: WireExchange[];
  /**
   * A long run's stored wire keeps only some of its requests: `exchanges[0]` is request `first`
   * of the `of` the run sent. Absent when every request is kept.
   */
  kept?: { first: number; of: number };
}

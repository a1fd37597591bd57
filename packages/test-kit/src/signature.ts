// Thinking-block signatures the fake server mints and later verifies. A real signature is opaque
// to clients; ours is an HMAC of the thinking text, so any edit to the text or the signature shows.
import { createHmac, timingSafeEqual } from "node:crypto";

const SECRET = "agent-code-fake-server";

export function signThinking(thinking: string): string {
  return createHmac("sha256", SECRET).update(thinking).digest("base64");
}

export function verifyThinking(thinking: string, signature: unknown): boolean {
  if (typeof signature !== "string") return false;
  const expected = Buffer.from(signThinking(thinking));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

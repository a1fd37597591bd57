// The checked-in table of known request fields must be what the generator makes of the installed
// SDK, and the hand-kept beta table must name fields and betas that SDK knows.
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { generateKnownFields } from "../scripts/generate-known-fields.ts";
import { KNOWN_BETAS, ROOTS, SDK_VERSION, SHAPES } from "../src/known-fields.generated.ts";
import { FIELD_BETAS } from "../src/request-fields.ts";

test("src/known-fields.generated.ts is up to date with the installed SDK", () => {
  const checkedIn = readFileSync(
    new URL("../src/known-fields.generated.ts", import.meta.url),
    "utf8",
  );
  expect(checkedIn, "run `pnpm --filter @agent-code/test-kit generate`").toBe(
    generateKnownFields(),
  );
  expect(SDK_VERSION).toBe("1.14.0");
});

test("every beta-gated field is a field of the beta request only, under betas the SDK names", () => {
  const fields = (root: string) => Object.keys((SHAPES[root] as { fields: object }).fields);
  for (const [field, betas] of Object.entries(FIELD_BETAS)) {
    expect(fields(ROOTS.betaMessages)).toContain(field);
    expect(fields(ROOTS.messages)).not.toContain(field);
    for (const beta of betas) expect(KNOWN_BETAS).toContain(beta);
  }
});

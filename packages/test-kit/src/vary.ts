// Seeded scenarios (docs/decisions/0059-seeded-scenarios.md). A scenario that draws its words,
// numbers and file names from the run's seed (`context.seed`) asks for something else at another
// seed, so a project that hard-codes what one run expected fails the next. The same seed and
// label always draw the same value: `pnpm check --seed N` replays a run exactly.
import { randomInt } from "node:crypto";

// Seed 0 draws nothing: every value is the one the scenario shows (`shown`), the one the pages and
// their replays show. It is the seed of the repository's first contract run and of the docs; the
// stage tests run every seeded scenario once more at a second seed (secondSeed).
export const FIXED_SEED = 0;
// Seeds are written in reports and typed back by people: small, non-negative integers.
export const MAX_SEED = 999_999;

// Plain lowercase words no stage prints on its own, so a drawn one in the output came from the
// scenario's input.
const WORDS = [
  "amber",
  "basil",
  "cobalt",
  "dahlia",
  "ember",
  "fennel",
  "garnet",
  "heron",
  "indigo",
  "juniper",
  "kestrel",
  "lantern",
  "meadow",
  "nutmeg",
  "orchid",
  "pepper",
  "quartz",
  "russet",
  "saffron",
  "thistle",
  "umber",
  "velvet",
  "willow",
  "yarrow",
  "zephyr",
  "acorn",
  "bramble",
  "cedar",
  "fjord",
  "glacier",
  "hazel",
  "marble",
];

export interface Seeded {
  seed: number;
}

// A fresh seed for a learner's run, never the pages' own: each check asks something new unless
// told --seed.
export function randomSeed(): number {
  return randomInt(1, MAX_SEED + 1);
}

// The seed a stage test uses after FIXED_SEED: AGENT_CODE_SEED when set (to replay a failure),
// else a random one, which the failing test names.
export function secondSeed(env: NodeJS.ProcessEnv = process.env): number {
  const given = env.AGENT_CODE_SEED;
  if (given === undefined || given === "") return randomSeed();
  const seed = parseSeed(given);
  if (seed === undefined) {
    throw new Error(`AGENT_CODE_SEED must be an integer from 0 to ${MAX_SEED}, not ${given}`);
  }
  return seed;
}

// A seed as typed: digits only, at most MAX_SEED; undefined for anything else.
export function parseSeed(text: string): number | undefined {
  if (!/^\d{1,6}$/.test(text)) return undefined;
  const seed = Number(text);
  return seed <= MAX_SEED ? seed : undefined;
}

// An integer from min to max, both included; `shown` at seed 0.
export function drawNumber(
  from: Seeded,
  label: string,
  shown: number,
  [min, max]: [number, number],
): number {
  const { seed } = from;
  return seed === FIXED_SEED ? shown : min + (mix(seed, label) % (max - min + 1));
}

// A plain lowercase word; `shown` at seed 0.
export function drawWord(from: Seeded, label: string, shown: string): string {
  const { seed } = from;
  return seed === FIXED_SEED ? shown : (WORDS[mix(seed, label) % WORDS.length] as string);
}

// A file-name stem such as `cedar-41`, a word and a number so two labels rarely draw the same;
// `shown` at seed 0.
export function drawName(from: Seeded, label: string, shown: string): string {
  const { seed } = from;
  if (seed === FIXED_SEED) return shown;
  return `${drawWord(from, `${label}/word`, shown)}-${drawNumber(from, `${label}/number`, 0, [10, 99])}`;
}

// FNV-1a over the seed and the label, then a final avalanche, so that seeds one apart draw values
// far apart.
function mix(seed: number, label: string): number {
  let hash = 0x811c9dc5;
  for (const char of `${seed}:${label}`) {
    hash ^= char.codePointAt(0) ?? 0;
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

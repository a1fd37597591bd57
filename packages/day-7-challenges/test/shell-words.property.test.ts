// Properties of the reader on generated input: it never throws, it reads back what a generator
// quoted and joined, and an unclosed quote is never taken for a complete command.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { guard } from "../src/permissions.ts";
import { parseCommand, type Redirect } from "../src/shell-words.ts";

const RUNS = 300;
const METACHARS = [
  ..."$'\"`\\(){}[]<>|&;#*?!~= \t\n",
  "$(",
  "${",
  "<<",
  "<(",
  "&>",
  "2>&1",
  "a",
  "-",
];

describe("parseCommand never throws", () => {
  test.each([
    ["any string", fc.string({ maxLength: 200 })],
    ["binary", fc.string({ unit: "binary", maxLength: 200 })],
    ["full unicode graphemes", fc.string({ unit: "grapheme", maxLength: 100 })],
    ["shell metacharacters", fc.string({ unit: fc.constantFrom(...METACHARS), maxLength: 120 })],
  ])("%s", (_name, text) => {
    fc.assert(
      fc.property(text, (input) => {
        const parsed = parseCommand(input);
        expect(Array.isArray(parsed.commands) && Array.isArray(parsed.unchecked)).toBe(true);
        for (const command of parsed.commands) {
          expect(command.words.every((word) => typeof word === "string")).toBe(true);
        }
        expect(() => guard(input)).not.toThrow();
      }),
      { numRuns: RUNS },
    );
  });
});

// A generated command: its source and the commands the reader must return, inner ones first.
interface Generated {
  source: string;
  commands: { words: string[]; redirects: Redirect[]; assignments: string[]; text: string }[];
}

// A generated word: what the reader must make of it, and the commands inside it.
interface Word {
  value: string;
  source: string;
  inner: Generated["commands"];
}

// Any printable ASCII plus a few wider characters: the quoting below must carry them all.
const text = fc.string({
  unit: fc.oneof(
    {
      weight: 9,
      arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    },
    { weight: 1, arbitrary: fc.constantFrom("\n", "\t", "é", "😀") },
  ),
  maxLength: 6,
});
const BARE = /^[A-Za-z0-9_\-./:@%+,=]+$/;

// One piece of a word in one of five quotings; all of them unquote to `value`.
function quote(value: string, form: number): string {
  if (form === 0 && BARE.test(value)) return value;
  if (form === 1 || form === 0 || value === "") return `'${value.replaceAll("'", `'\\''`)}'`;
  if (form === 2) return `"${value.replace(/[\\"$`]/g, (c) => `\\${c}`)}"`;
  if (form === 3) {
    const escaped = [...value].map((c, i) => {
      if (c === "\\" || c === "'") return `\\${c}`;
      const code = c.codePointAt(0) ?? 0;
      if (code > 0x7e) return c;
      return i % 2 === 0
        ? `\\x${code.toString(16).padStart(2, "0")}`
        : `\\${code.toString(8).padStart(3, "0")}`;
    });
    return `$'${escaped.join("")}'`;
  }
  return [...value].map((c) => (c === "\n" ? "'\n'" : `\\${c}`)).join(""); // backslash-escaped
}

const piece = fc.tuple(text, fc.integer({ min: 0, max: 4 })).map(([value, form]) => ({
  value,
  source: quote(value, form),
}));
const plainWord: fc.Arbitrary<Word> = fc
  .array(piece, { minLength: 1, maxLength: 3 })
  .map((pieces) => ({
    value: pieces.map((p) => p.value).join(""),
    source: pieces.map((p) => p.source).join(""),
    inner: [],
  }));
// Command names that are no reserved word, wrapper, shell or eval: `_` is in none of those.
const name: fc.Arbitrary<Word> = fc
  .tuple(fc.stringMatching(/^[a-z][a-z0-9]{0,4}$/), fc.stringMatching(/^[a-z0-9]{0,3}$/))
  .chain(([head, tail]) =>
    fc.integer({ min: 0, max: 4 }).map((form) => ({ value: `${head}_${tail}`, form })),
  )
  .map(({ value, form }) => ({ value, source: quote(value, form), inner: [] }));

const REDIRECTS = [">", ">>", "<", "2>", "&>", ">|"];

function simpleCommand(depth: number): fc.Arbitrary<Generated> {
  const substitution = depth > 0 ? substituted(depth - 1) : plainWord;
  const word = depth > 0 ? fc.oneof({ weight: 3, arbitrary: plainWord }, substitution) : plainWord;
  return fc
    .tuple(
      name,
      fc.array(word, { maxLength: 3 }),
      fc.option(fc.tuple(fc.constantFrom(...REDIRECTS), plainWord)),
      fc.boolean(),
    )
    .map(([first, args, redirect, stderr]) => {
      const redirects: Redirect[] = [];
      let source = [first, ...args].map((w) => w.source).join(" ");
      if (redirect !== null) {
        source += ` ${redirect[0]} ${redirect[1].source}`;
        redirects.push({ op: redirect[0], target: redirect[1].value });
      }
      if (stderr) {
        source += " 2>&1";
        redirects.push({ op: "2>&", target: "1" });
      }
      const words = [first, ...args].map((w) => w.value);
      const inner = args.flatMap((w) => w.inner);
      return { source, commands: [...inner, { words, redirects, assignments: [], text: source }] };
    });
}

// `$(cmd)` (bare, or inside double quotes with text around it), `cmd` in backquotes or `<(cmd)`;
// the word keeps it as written.
function substituted(depth: number): fc.Arbitrary<Word> {
  const padding = fc.stringMatching(/^[a-z0-9 ]{0,3}$/);
  return fc
    .tuple(simpleCommand(depth), fc.integer({ min: 0, max: 3 }), padding)
    .map(([inner, form, around]) => {
      const escaped = inner.source.replace(/[\\`$]/g, (c) => `\\${c}`);
      const written =
        form === 2 ? `\`${escaped}\`` : form === 3 ? `<(${inner.source})` : `$(${inner.source})`;
      if (form !== 1) return { value: written, source: written, inner: inner.commands };
      const value = `${around}${written}${around}`;
      return { value, source: `"${value}"`, inner: inner.commands };
    });
}

const OPERATORS = [" && ", " || ", " ; ", " | ", " |& ", " & ", "\n"];

const commandList = fc
  .tuple(
    fc.array(fc.tuple(simpleCommand(2), fc.constantFrom(...OPERATORS)), {
      minLength: 1,
      maxLength: 4,
    }),
    fc.constantFrom("", ";", " &", "\n"),
  )
  .map(([items, end]) => ({
    source: items.map(([c, op], i) => c.source + (i < items.length - 1 ? op : "")).join("") + end,
    commands: items.flatMap(([c]) => c.commands),
  }));

describe("parseCommand reads back generated commands", () => {
  test("every simple command, with its words, redirects and text, inner ones first", () => {
    fc.assert(
      fc.property(commandList, ({ source, commands }) => {
        const parsed = parseCommand(source);
        expect(parsed.commands).toEqual(commands);
        expect(parsed.unchecked).toEqual([]);
      }),
      { numRuns: RUNS },
    );
  });

  test("an unclosed quote, $( or backquote is never read as complete", () => {
    const opener = fc.constantFrom("'", '"', "$(", "`", "$'");
    fc.assert(
      fc.property(commandList, opener, ({ source }, open) => {
        expect(parseCommand(source + open).unchecked).not.toEqual([]);
      }),
      { numRuns: RUNS },
    );
  });
});

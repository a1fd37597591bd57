// What the person sees before a file changes: the change as a unified diff, then a y/N question.
// The answer comes from the same line reader as the REPL's lines, so piped answers stay in order.
import { styleText } from "node:util";
import { createTwoFilesPatch } from "diff";

export type Choice =
  | { kind: "selected"; label: string }
  | { kind: "answered"; text: string }
  | { kind: "skipped" };

// How a tool talks to the person at the terminal, in order with the trace.
export interface Ui {
  // Whether lines may carry colour: a terminal, and NO_COLOR not set.
  colour: boolean;
  // One line on stdout.
  print(line: string): void;
  // Asks a yes/no question; true only for an explicit yes.
  confirm(question: string): Promise<boolean>;
  // Asks the model's question with numbered options; the person picks one, types an answer of
  // their own, or skips.
  choose(prompt: string, options: string[]): Promise<Choice>;
}

// Where lines come from: the next line of input, or undefined at its end.
export interface LineSource {
  next(): Promise<string | undefined>;
}

// No person to ask (a test, a library caller): nothing is shown and every question is no.
export const NO_UI: Ui = {
  colour: false,
  print() {},
  confirm: async () => false,
  choose: async () => ({ kind: "skipped" }),
};

// A yes is `y` or `yes` in any case; anything else, an empty line and the end of input are no.
export function isYes(answer: string | undefined): boolean {
  return answer !== undefined && /^y(es)?$/i.test(answer.trim());
}

// The Ui of a terminal or a pipe: prints to `out`, reads answers from `input`. On a terminal the
// person's typing is already on screen; from a pipe nothing is, so the answer read is printed
// after the question, and the transcript reads like the session it was.
export class Prompter implements Ui {
  readonly colour: boolean;
  #input: LineSource;
  #out: { write(text: string): unknown };
  #echo: boolean;

  constructor(
    input: LineSource,
    out: { write(text: string): unknown },
    echo: boolean,
    colour: boolean,
  ) {
    this.#input = input;
    this.#out = out;
    this.#echo = echo;
    this.colour = colour;
  }

  print(line: string): void {
    this.#out.write(`${line}\n`);
  }

  async confirm(question: string): Promise<boolean> {
    this.#out.write(`${forTerminal(question)} [y/N] `);
    const answer = await this.#input.next();
    // At the end of input the line is ended too, so the next trace line starts on its own.
    if (this.#echo || answer === undefined) this.#out.write(`${answer ?? ""}\n`);
    return isYes(answer);
  }

  // `? prompt`, the options numbered from 1, `0. skip`, then `Choice [0-N] `. A number in range
  // picks that option; 0, an empty line or the end of input skips; any other text is the answer.
  async choose(prompt: string, options: string[]): Promise<Choice> {
    this.print(`? ${forTerminal(prompt)}`);
    for (const [index, option] of options.entries()) {
      this.print(`  ${index + 1}. ${forTerminal(option)}`);
    }
    this.print("  0. skip");
    this.#out.write(`Choice [0-${options.length}] `);
    const answer = await this.#input.next();
    if (this.#echo || answer === undefined) this.#out.write(`${answer ?? ""}\n`);
    const text = (answer ?? "").trim();
    if (text === "" || text === "0") return { kind: "skipped" };
    const label = /^[1-9]$/.test(text) ? options[Number(text) - 1] : undefined;
    return label === undefined ? { kind: "answered", text } : { kind: "selected", label };
  }
}

// Colour is for people: only on a terminal, and never when NO_COLOR is set to something.
export function wantsColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && (env.NO_COLOR ?? "") === "";
}

// C0 controls, DEL, C1 controls (U+009B alone starts an escape sequence on many terminals), and
// the invisible marks that reorder text (U+202E shows `txt.exe` as `exe.txt`).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the point
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

// A path or other text for one line of the terminal: every control character shows as an escape
// (`\x1b`, `\u202e`), so a file name cannot move the cursor, recolour or erase the diff above it.
export function forTerminal(text: string): string {
  return text.replace(CONTROLS, (char) => {
    const code = char.charCodeAt(0);
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, "0")}`
      : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

const MAX_DIFF_LINES = 500;

// The change from `before` (undefined: the file is new) to `after` as unified diff lines with three
// lines of context, `a/` and `b/` before the path as git writes them, cut after 500 lines.
export function renderDiff(
  name: string,
  before: string | undefined,
  after: string,
  colour: boolean,
): string[] {
  // A name with a control character (or any byte outside printable ASCII) comes back in quotes,
  // its bytes as octal escapes, as git writes it: `+++ "b/x\033[2J"`.
  const patch = createTwoFilesPatch(
    before === undefined ? "/dev/null" : `a/${name}`,
    `b/${name}`,
    before ?? "",
    after,
    undefined,
    undefined,
    { context: 3 },
  );
  // The first line is a row of `=`, the last one empty.
  const lines = patch.split("\n").slice(1, -1).map(visible);
  const shownLines = lines.slice(0, MAX_DIFF_LINES).map((line) => paint(line, colour));
  if (lines.length > MAX_DIFF_LINES) {
    shownLines.push(`[diff cut: ${lines.length - MAX_DIFF_LINES} more lines]`);
  }
  return shownLines;
}

// The diff is what the person trusts: a carriage return or an escape sequence in the new text must
// not redraw the screen and hide a line, nor a bidi control show the line in another order, so
// control characters show as U+FFFD (tabs stay, and so does the `\r` that ends a CRLF line).
function visible(line: string): string {
  return line.replace(/\r$/, "").replace(CONTROLS, (char) => (char === "\t" ? char : "\ufffd"));
}

// Headers bold, added lines green, removed red, hunk lines cyan; the first prefix that fits wins.
const STYLES: [prefix: string, style: "bold" | "green" | "red" | "cyan"][] = [
  ["+++", "bold"],
  ["---", "bold"],
  ["+", "green"],
  ["-", "red"],
  ["@@", "cyan"],
];

// `colour` was decided once, by wantsColour: styleText is told not to decide again.
function paint(line: string, colour: boolean): string {
  const style = colour ? STYLES.find(([prefix]) => line.startsWith(prefix))?.[1] : undefined;
  return style === undefined ? line : styleText(style, line, { validateStream: false });
}

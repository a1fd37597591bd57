// Splits a bash command into the simple commands it would run, so the gate can check every one;
// what it cannot read for sure goes to `unchecked`. Our own reader (decision 0053), checked
// against bash itself by test/shell-words.bash.test.ts.
import { unwrap } from "./wrappers.ts";

export interface Redirect {
  op: string; // as written, with its fd: ">", "2>", "&>", "<<<"; `2>&1` is op "2>&", target "1"
  target: string; // the word after it, unquoted; a here-document's delimiter
}

export interface SimpleCommand {
  words: string[]; // unquoted; `$X`, `${…}`, `$(…)` and globs stay as written
  redirects: Redirect[];
  assignments: string[]; // `X=1` before the name, as written: they change what the command does
  text: string; // its slice of the source (inside backquotes: of the unescaped text)
}

// `a | b` has the stages [a] and [b]; a stage holds every command read inside it. A command's
// substitutions feed it: `sh -c "$(curl …)"` and `bash <(curl …)` read as curl | sh.
export interface Pipeline {
  stages: SimpleCommand[][];
  text: string;
}

export interface ParsedCommand {
  commands: SimpleCommand[]; // in the order they run: a substitution's before the one around it
  pipelines: Pipeline[]; // also those inside the text of `sh -c`
  unchecked: string[]; // what could not be read for sure; such a command is never auto-allowed
}

export const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh"]);

const MAX_DEPTH = 50;
const TOO_DEEP = "nesting too deep to read";

// Commands that run text we do not read (`.` is source), or another program under a name (`hash
// -p /bin/rm ls`, `fc -s`, which runs a line of history).
const UNREADABLE = new Set([
  "eval",
  "source",
  ".",
  "trap",
  "alias",
  "builtin",
  "let",
  "hash",
  "fc",
]);

// Builtins that take a variable's name, where a subscript is arithmetic (`read 'a[$(cmd)]'` runs
// cmd); `declare -i x` makes each later `x=…` arithmetic, `declare -n r` each `$r` indirect, and a
// name in a variable (`export "$x=…"`) may be any.
const NAMING =
  /^(?:declare|typeset|local|export|readonly|read|printf|mapfile|readarray|unset|test|\[|wait|getopts)$/;
// Variables whose value bash runs: a new bash sources $BASH_ENV (sh: $ENV) and defines the
// functions in BASH_FUNC_…, and xtrace (which SHELLOPTS can set) expands PS4.
const RUNS_VALUE = /^(?:BASH_ENV|ENV|PS4|SHELLOPTS|BASHOPTS)(?:\+?=|$)|^BASH_FUNC_/;

// Compound commands and the word that closes each; loops (`while`, `for` …) end with `done`.
const CLOSERS: Record<string, string> = { "(": ")", "{": "}", if: "fi" };

// Sticky patterns, tried at the reader's position. A reserved word counts only as a whole word.
const RESERVED =
  /(?:if|then|else|elif|fi|while|until|do|done|for|select|case|esac|function|coproc|\{|\}|!|\[\[)(?=[ \t\n;&|()<>]|$)/y;
const IN = /in(?=[ \t\n;&|()<>]|$)/y;
const CASE_END = /;;&?|;&/y;
const REDIRECT = /(?:\d+|&|\{[A-Za-z_]\w*\})?(?:<<<|<<-|<<|<>|<&|>>|>&|>\||<(?!\()|>(?!\())/y;
const ASSIGNMENT = /[A-Za-z_]\w*\+?=/y;
const PARAMETER = /\$(?:[A-Za-z_]\w*|[0-9@*#?$!-])?/y;
// After `${`: `!` (indirection), `#` (length), the name; then a subscript that needs no arithmetic.
const BRACED = /(!?)(#?)(?:[A-Za-z_]\w*|\d+|[@*#?$!-])/y;
const SUBSCRIPT = /\[(?:[@*]|\d+)\]/y;
// In `$'…'`: a code (`\x41`, `\u00e9`, `\101`) or one character (`\n`, `\'`) after a backslash.
const C_ESCAPE = /\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|.)/gs;
const C_LETTERS = new Map([..."abeEfnrtv"].map((c, i) => [c, "\x07\b\x1b\x1b\f\n\r\t\v"[i]]));

interface State {
  src: string;
  pos: number;
  depth: number; // substitutions, subshells, groups and `sh -c` texts around the reader
  out: ParsedCommand;
  stopped: boolean; // the reader gave up and skipped the rest of `src`
  heredocs: HereDoc[]; // started on the current line; their bodies follow its newline
}

interface HereDoc {
  delimiter: string;
  strip: boolean; // `<<-`: leading tabs go
  quoted: boolean; // `<<'EOF'`: the body is text; else its substitutions run
}

interface Word {
  value: string; // unquoted
  bare: string; // only its unquoted characters, where brace expansion acts
}

export function parseCommand(text: string): ParsedCommand {
  const out: ParsedCommand = { commands: [], pipelines: [], unchecked: [] };
  parseText(text, 0, out);
  return out;
}

// A whole text: the command, the inside of backquotes, or the text of `sh -c`.
function parseText(src: string, depth: number, out: ParsedCommand): void {
  const s: State = { src, pos: 0, depth, out, stopped: false, heredocs: [] };
  if (depth > MAX_DEPTH) stop(s, TOO_DEEP);
  parseList(s, "");
}

// Commands joined by `;`, `&`, `&&`, `||` and newlines, up to the `)` or word that closes them. In
// a `case` (closer "esac") also up to the `;;`, `;&` or `;;&` that ends an item: true then.
function parseList(s: State, closer: string): boolean {
  for (;;) {
    skipSpace(s);
    const c = s.src[s.pos];
    const word = c === ")" ? ")" : peekReserved(s);
    if (c === undefined) {
      if (closer !== "" && !s.stopped) note(s, `a missing "${closer}"`);
      return false;
    }
    if (closer === "esac" && matchAt(CASE_END, s)) {
      s.pos = CASE_END.lastIndex;
      return true;
    }
    if (word === ")" || word === "}" || word === "fi" || word === "done" || word === "esac") {
      s.pos += word.length;
      if (word === closer) return false;
      note(s, `an unexpected "${word}"`);
    } else if (c === ";" || c === "|" || (c === "&" && s.src[s.pos + 1] !== ">")) s.pos++;
    else parsePipeline(s);
  }
}

function parsePipeline(s: State): void {
  const start = s.pos;
  const stages: SimpleCommand[][] = [];
  for (;;) {
    const from = s.out.commands.length;
    parseStage(s);
    stages.push(s.out.commands.slice(from));
    skipBlanks(s);
    if (s.src[s.pos] !== "|" || s.src[s.pos + 1] === "|") break;
    s.pos += s.src[s.pos + 1] === "&" ? 2 : 1; // `|&` pipes stderr too
    skipSpace(s);
  }
  if (stages.length > 1)
    s.out.pipelines.push({ stages, text: s.src.slice(start, s.pos).trimEnd() });
}

// One stage of a pipeline: reserved words and compound commands, then a simple command (after
// a compound command, only its redirects: `done < list`).
function parseStage(s: State): void {
  for (;;) {
    skipBlanks(s);
    const word = s.src[s.pos] === "(" ? "(" : (peekReserved(s) ?? "");
    const closer = /^(?:while|until|for|select)$/.test(word) ? "done" : CLOSERS[word];
    if (s.src.startsWith("((", s.pos)) note(s, "arithmetic"); // `((…))`: read as two subshells
    // Their bodies are read, and the header of a `for` loop, as a command.
    if (/^(?:for|select|function|coproc|\[\[)$/.test(word)) note(s, word);
    if (closer !== undefined) {
      s.pos += word.length;
      nested(s, () => parseList(s, closer));
    } else if (/^(?:!|then|else|elif|do|coproc)$/.test(word)) s.pos += word.length;
    else if (word === "function") {
      s.pos += word.length;
      skipBlanks(s);
      readWord(s); // the name; the body is read next
    } else if (word === "case") parseCase(s);
    else if (!/^(?:\}|fi|done|esac)$/.test(word)) break;
    else return; // `{(a)}`: a closing word ends the stage; parseList closes the group
  }
  parseSimple(s);
}

// `case WORD in PATTERN | PATTERN) LIST ;; … esac`: the word, the patterns and each list are read.
function parseCase(s: State): void {
  s.pos += 4;
  skipBlanks(s);
  readWord(s);
  skipSpace(s);
  if (!matchAt(IN, s)) {
    stop(s, "case");
    return;
  }
  s.pos += 2;
  nested(s, () => {
    for (;;) {
      skipSpace(s);
      if (peekReserved(s) === "esac") {
        s.pos += 4;
        return;
      }
      if (s.src[s.pos] === "(") s.pos++;
      for (;;) {
        skipBlanks(s);
        readWord(s);
        skipBlanks(s);
        if (s.src[s.pos] !== "|") break;
        s.pos++;
      }
      if (s.src[s.pos] !== ")") return stop(s, s.pos < s.src.length ? "case" : 'a missing "esac"');
      s.pos++;
      if (!parseList(s, "esac")) return;
    }
  });
}

// Reads what is nested in a subshell, group, loop or expansion, up to MAX_DEPTH levels.
function nested(s: State, read: () => void): void {
  s.depth++;
  if (s.depth > MAX_DEPTH) stop(s, TOO_DEEP);
  read();
  s.depth--;
}

function parseSimple(s: State): void {
  const from = s.out.commands.length;
  const words: string[] = [];
  const redirects: Redirect[] = [];
  const assignments: string[] = [];
  let start = -1;
  let end = s.pos;
  for (;;) {
    skipBlanks(s);
    const at = s.pos;
    const c = s.src[at];
    if (c === undefined || "#;|)\n".includes(c) || (c === "&" && s.src[at + 1] !== ">")) break;
    // `f() { …; }` (its name and body are read as commands), an array `a=(…)`, or an error.
    if (c === "(") note(s, words.length === 1 ? "function" : "a parenthesis inside a command");
    if (c === "(") break; // the `(…)` is read next, as a subshell
    if (readRedirect(s, redirects)) {
      // `> out`, `2>&1`: split off with its target
    } else if (words.length === 0 && matchAt(ASSIGNMENT, s)) {
      if (RUNS_VALUE.test(s.src.slice(s.pos, ASSIGNMENT.lastIndex)))
        note(s, "a variable bash runs");
      assignments.push(readWord(s).value); // `X=1 cmd`: not a word, but `X=$(a)` runs a
    } else {
      const word = readWord(s);
      if (s.pos === at) {
        // A character nothing here reads (`&>(`): give up on the rest rather than read it again.
        stop(s, `an unexpected "${c}"`);
        end = s.pos;
        break;
      }
      if (expandsBraces(word.bare)) note(s, "brace expansion");
      if (/=|^BASH_FUNC_/.test(word.value) && RUNS_VALUE.test(word.value))
        note(s, "a variable bash runs"); // `env PS4=… bash -xc :`
      words.push(word.value);
    }
    if (start < 0) start = at;
    end = s.pos;
  }
  s.pos = end;
  if (words.length === 0 && redirects.length === 0 && assignments.length === 0) return;
  const command = { words, redirects, assignments, text: s.src.slice(start, end) };
  const inner = s.out.commands.slice(from);
  s.out.commands.push(command);
  if (inner.length > 0) s.out.pipelines.push({ stages: [inner, [command]], text: command.text });
  checkNames(s, words);
}

function readRedirect(s: State, redirects: Redirect[]): boolean {
  if (!matchAt(REDIRECT, s)) return false;
  const op = s.src.slice(s.pos, REDIRECT.lastIndex);
  s.pos = REDIRECT.lastIndex;
  skipBlanks(s);
  const from = s.pos;
  const target = readWord(s).value; // "" when missing: bash refuses to run it
  redirects.push({ op, target });
  if (/(?<!<)<<-?$/.test(op)) {
    const quoted = /['"\\]/.test(s.src.slice(from, s.pos));
    s.heredocs.push({ delimiter: target, strip: op.endsWith("-"), quoted });
  }
  return true;
}

// The bodies of the here-documents the line that just ended started, in order: each runs to a line
// that is its delimiter (`<<-` strips leading tabs; `\` joins lines unless the delimiter is quoted).
// An unquoted body is expanded, so its substitutions run; the commands after it are read on.
function readHereDocs(s: State): void {
  for (const doc of s.heredocs.splice(0)) {
    const start = s.pos;
    let end = s.src.length;
    while (s.pos < s.src.length) {
      const lineStart = s.pos;
      let line = "";
      for (;;) {
        const newline = s.src.indexOf("\n", s.pos);
        const piece = s.src.slice(s.pos, newline < 0 ? undefined : newline);
        s.pos = newline < 0 ? s.src.length : newline + 1;
        let slashes = 0;
        while (piece[piece.length - 1 - slashes] === "\\") slashes++;
        if (doc.quoted || newline < 0 || slashes % 2 === 0) {
          line += piece;
          break;
        }
        line += piece.slice(0, -1);
      }
      if ((doc.strip ? line.replace(/^\t+/, "") : line) === doc.delimiter) {
        end = lineStart;
        break;
      }
    }
    if (doc.quoted) continue;
    const body = { ...s, src: s.src.slice(start, end), pos: 0, stopped: false, heredocs: [] };
    readQuoted(body, { value: "", bare: "" }, "");
  }
}

// The command name, also behind each wrapper and inside `sh -c`: what we cannot read is unchecked.
function checkNames(s: State, words: string[]): void {
  const why: string[] = [];
  const chain = wrapperChain(words, why);
  for (const reason of why) note(s, reason);
  if (chain.length > MAX_DEPTH) note(s, TOO_DEEP);
  for (const list of chain) {
    const first = list[0] ?? "";
    const bracket = first.indexOf("["); // `\[.*\]`, in one pass
    if (/[$`*?]|[<>]\(/.test(first) || (bracket >= 0 && first.indexOf("]", bracket) > bracket))
      note(s, "an expansion as the command name");
    const base = commandName(list);
    if (UNREADABLE.has(base)) note(s, base === "." ? "source" : base);
    if (NAMING.test(base)) {
      const args = list.slice(1);
      const declares = /^(?:declare|typeset|local)$/.test(base);
      const named = !/^(?:printf|test|\[)$/.test(base); // whose every argument may be a name
      if (args.some((word) => /^[A-Za-z_]\w*\[/.test(word))) note(s, "arithmetic");
      if (declares && args.some((word) => /^[-+]\w*i/.test(word))) note(s, "arithmetic");
      if (declares && args.some((word) => /^[-+]\w*n/.test(word))) note(s, "indirection");
      if (named && args.some((word) => /^(?!-)[^=]*[$`]/.test(word))) note(s, "indirection");
      if (args.some((word) => RUNS_VALUE.test(word))) note(s, "a variable bash runs");
      if (/^(?:mapfile|readarray)$/.test(base) && args.some((word) => /^-\w*C/.test(word)))
        note(s, "eval"); // `mapfile -C TEXT` runs TEXT
    }
    const script = shellScript(list);
    if (script !== undefined) {
      // Its commands are listed by withoutWrappers; its pipelines and reasons are ours.
      const inner: ParsedCommand = { commands: [], pipelines: [], unchecked: s.out.unchecked };
      parseText(script, s.depth + 1, inner);
      s.out.pipelines.push(...inner.pipelines);
    } else if (SHELLS.has(base) && list.every((word, i) => i === 0 || word.startsWith("-"))) {
      note(s, "a shell reading its script from stdin");
    }
  }
}

// One shell word: quotes, escapes and expansions. Substitutions are read as commands in place.
function readWord(s: State, stops = " \t\n;&|()<>"): Word {
  const w: Word = { value: "", bare: "" };
  for (;;) {
    const c = s.src[s.pos];
    if ((c === "<" || c === ">") && s.src[s.pos + 1] === "(") add(w, readSubstitution(s), false);
    else if (c === undefined || stops.includes(c)) return w;
    else if (c === "\\") {
      if (s.src[s.pos + 1] !== "\n") add(w, s.src[s.pos + 1] ?? "\\", false); // else joins lines
      s.pos += 2;
    } else if (c === "'") {
      const end = s.src.indexOf("'", s.pos + 1);
      if (end < 0) note(s, "unbalanced quote");
      add(w, s.src.slice(s.pos + 1, end < 0 ? undefined : end), false);
      s.pos = end < 0 ? s.src.length : end + 1;
    } else if (c === '"') readDoubleQuoted(s, w);
    else if (c === "`") readBackquote(s, w, false);
    else if (c === "$") readDollar(s, w, false);
    else {
      add(w, c, true);
      s.pos++;
    }
  }
}

function readDoubleQuoted(s: State, w: Word, open = 1): void {
  s.pos += open;
  readQuoted(s, w, '"');
  if (s.pos < s.src.length) s.pos++;
  else note(s, "unbalanced quote");
}

// Text where only `\`, `$` and backquotes are special, up to `end`: the inside of "…", of a `${…}`
// inside "…" (where a `"` opens quotes again), or a here-document's body ("": to its end).
function readQuoted(s: State, w: Word, end: string): void {
  while (s.pos < s.src.length && s.src[s.pos] !== end) {
    const c = s.src[s.pos] ?? "";
    const next = s.src[s.pos + 1] ?? "";
    if (c === "$") readDollar(s, w, true);
    else if (c === "`") readBackquote(s, w, true);
    else if (c === '"' && end === "}") readDoubleQuoted(s, w);
    else if (c === "\\" && /[$`"\\\n]/.test(next)) {
      add(w, next === "\n" ? "" : next, false);
      s.pos += 2;
    } else {
      add(w, c, false);
      s.pos++;
    }
  }
}

// `$"…"` is a double quote, `$'…'` has C escapes; `$(…)`, `${…}` and `$HOME` stay as written.
function readDollar(s: State, w: Word, inDouble: boolean): void {
  const start = s.pos;
  const next = s.src[s.pos + 1];
  if (next === '"' && !inDouble) readDoubleQuoted(s, w, 2);
  else if (next === "'" && !inDouble) {
    s.pos = closingQuote(s, start + 2, "'", "unbalanced quote");
    add(w, s.src.slice(start + 2, s.pos - 1).replace(C_ESCAPE, unescapeC), false);
  } else if (next === "(") add(w, readSubstitution(s), false);
  else if (next === "{") readBraced(s, w, inDouble);
  else if (next === "[") {
    note(s, "arithmetic"); // `$[…]`, the old `$((…))`
    s.pos += 2;
    nested(s, () => readWord(s, "]"));
    if (s.src[s.pos] === "]") s.pos++;
    add(w, s.src.slice(start, s.pos), false);
  } else {
    matchAt(PARAMETER, s);
    s.pos = PARAMETER.lastIndex; // a lone `$` is itself
    add(w, s.src.slice(start, s.pos), false);
  }
}

// `${…}`, as written. A name alone (`${HOME}`, `${#x}`) is a value, and an operator's word is read
// for what it runs. Unchecked: what evaluates a value again, where `x='a[$(cmd)]'` runs cmd
// (`${!x}`, `${x@P}`, arithmetic in `${x:1}` and `${a[x]}`), `${x:=…}`, which assigns, and any
// operator inside "…", whose word has quoting rules of its own (`"${x:-'$(cmd)'}"` runs cmd).
function readBraced(s: State, w: Word, inDouble: boolean): void {
  const start = s.pos;
  s.pos += 2;
  BRACED.lastIndex = s.pos;
  const header = BRACED.exec(s.src);
  if (header === null)
    note(s, "an unknown parameter expansion"); // `${ cmd; }` runs cmd in bash 5.3
  else {
    s.pos = BRACED.lastIndex;
    if (header[1] === "!") note(s, "indirection"); // not `${!}`, the last background job
    if (matchAt(SUBSCRIPT, s)) s.pos = SUBSCRIPT.lastIndex;
    const op = s.src[s.pos] ?? "}";
    if (op === "[" || (op === ":" && !/[-=?+]/.test(s.src[s.pos + 1] ?? ""))) note(s, "arithmetic");
    else if (op === "=" || s.src.startsWith(":=", s.pos))
      note(s, "an assignment in a parameter expansion");
    else if (op === "@") note(s, "a parameter transformation");
    else if (!/[-+?#%/^,:}]/.test(op)) note(s, "an unknown parameter expansion");
    if (inDouble && op !== "}") note(s, "a parameter operator inside double quotes");
  }
  const inner: Word = { value: "", bare: "" };
  nested(s, () => (inDouble ? readQuoted(s, inner, "}") : readWord(s, "}")));
  if (s.src[s.pos] === "}") s.pos++;
  else if (!s.stopped) note(s, "unbalanced braces");
  add(w, s.src.slice(start, s.pos), false);
}

// `$(…)`, `<(…)` and `>(…)`, as written; the commands inside come before the one around them. A
// here-document started inside has its body inside, and one started before has it after.
function readSubstitution(s: State): string {
  const start = s.pos;
  if (s.src.startsWith("$((", s.pos)) note(s, "arithmetic"); // `$((…))`: read as a subshell
  s.pos += 2;
  const outside = s.heredocs;
  s.heredocs = [];
  nested(s, () => parseList(s, ")"));
  s.heredocs = outside;
  return s.src.slice(start, s.pos);
}

function readBackquote(s: State, w: Word, inDouble: boolean): void {
  const start = s.pos;
  s.pos = closingQuote(s, start + 1, "`", "unbalanced backquote");
  // Inside backquotes `\` escapes only `$`, a backquote and itself, and `"` within "…".
  const inner = s.src
    .slice(start + 1, s.pos - 1)
    .replace(/\\([$`\\"])/g, (all, c) => (c === '"' && !inDouble ? all : c));
  parseText(inner, s.depth + 1, s.out);
  add(w, s.src.slice(start, s.pos), false);
}

function unescapeC(_: string, e: string): string {
  const hex = /^[xuU]./.test(e);
  const code = hex ? parseInt(e.slice(1), 16) : /^[0-7]/.test(e) ? parseInt(e, 8) : -1;
  if (code >= 0) return code > 0x10ffff ? "\ufffd" : String.fromCodePoint(code);
  return C_LETTERS.get(e) ?? (/['"\\?]/.test(e) ? e : `\\${e}`);
}

// Where a quote that ends at `quote` closes, after it (a backslash escapes the next character).
function closingQuote(s: State, from: number, quote: string, unbalanced: string): number {
  let end = from;
  while (end < s.src.length && s.src[end] !== quote) end += s.src[end] === "\\" ? 2 : 1;
  if (end >= s.src.length) note(s, unbalanced);
  return Math.min(end, s.src.length) + 1;
}

/**
 * Every word list to check for one simple command: `words`, then what each wrapper runs (`env
 * nice -n 5 rm x` gives the whole, `nice -n 5 rm x`, `rm x`), and each simple command of a `sh -c`
 * text, unwrapped the same way. `find -exec`, `busybox` …: not followed; the guards are a seatbelt.
 */
export function withoutWrappers(words: string[]): string[][] {
  const lists: string[][] = [];
  for (const list of wrapperChain(words)) {
    lists.push(list);
    const script = shellScript(list);
    if (script === undefined) continue;
    for (const inner of parseCommand(script).commands) lists.push(...withoutWrappers(inner.words));
  }
  return lists;
}

// `words`, then the command each wrapper runs, up to one past MAX_DEPTH of them; `why` gets what
// could not be read.
function wrapperChain(words: string[], why: string[] = []): string[][] {
  const chain: string[][] = [];
  for (let list: string[] | undefined = words; list !== undefined && list.length > 0; ) {
    chain.push(list);
    if (chain.length > MAX_DEPTH) break;
    list = unwrap(commandName(list), list, why);
  }
  return chain;
}

// The TEXT of `sh -c TEXT`: with `-c` among the options, the first word after them (`bash -lc
// TEXT`, `bash -c -e TEXT`, `sh -c -- TEXT`); `-o NAME` and `+o NAME` take a value.
function shellScript(words: string[]): string | undefined {
  if (!SHELLS.has(commandName(words))) return undefined;
  let i = 1;
  while (/^[-+]./.test(words[i] ?? "") && words[i - 1] !== "--") {
    i += /^[-+][oO]$|^--(?:rcfile|init-file)$/.test(words[i] ?? "") ? 2 : 1;
  }
  if (words[i] === "-") i++; // a lone `-` ends the options too
  return words.slice(1, i).some((word) => /^-[a-zA-Z]*c/.test(word)) ? words[i] : undefined;
}

/** The program's basename: `/bin/rm`, `./rm` and Git Bash's `rm.exe` all give `rm`. */
export function commandName(words: string[]): string {
  const path = words[0] ?? "";
  const base = path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1);
  return /\.exe$/i.test(base) ? base.slice(0, -4) : base;
}

/**
 * The words of a line as a shell would split them, and nothing more: quotes and backslashes are
 * read, nothing is run or expanded (`$HOME` stays as written), and `;`, `|`, `>` or `#` are text
 * like any other. For the REPL's slash commands: `"it's"` is one word, an unclosed quote is said.
 */
export function splitWords(text: string): { words: string[]; unclosed: boolean } {
  const out: ParsedCommand = { commands: [], pipelines: [], unchecked: [] };
  const s: State = { src: text, pos: 0, depth: 0, out, stopped: false, heredocs: [] };
  const words: string[] = [];
  for (;;) {
    while (/[ \t\n]/.test(s.src[s.pos] ?? "")) s.pos++;
    if (s.pos >= s.src.length) break;
    words.push(readWord(s, " \t\n").value);
  }
  const unclosed = out.unchecked.some((why) => /^unbalanced (?:quote|backquote)$/.test(why));
  return { words, unclosed };
}

function skipBlanks(s: State): void {
  for (;;) {
    const c = s.src[s.pos];
    if (c === " " || c === "\t") s.pos++;
    else if (c === "\\" && s.src[s.pos + 1] === "\n") s.pos += 2;
    else return;
  }
}

// Blanks, newlines and comments: the gaps where a new command may start.
function skipSpace(s: State): void {
  for (;;) {
    skipBlanks(s);
    const c = s.src[s.pos];
    if (c === "\n") {
      s.pos++;
      if (s.heredocs.length > 0) readHereDocs(s);
    } else if (c === "#") {
      const newline = s.src.indexOf("\n", s.pos);
      s.pos = newline < 0 ? s.src.length : newline;
    } else return;
  }
}

function peekReserved(s: State): string | undefined {
  return matchAt(RESERVED, s) ? s.src.slice(s.pos, RESERVED.lastIndex) : undefined;
}

function matchAt(pattern: RegExp, s: State): boolean {
  pattern.lastIndex = s.pos;
  return pattern.test(s.src);
}

// `{a,b}` or `{1..3}`: a `,` or `..` between a `{` and the `}` that closes it, in one pass (a
// pattern that backtracks takes minutes over `{` and 300,000 commas).
function expandsBraces(bare: string): boolean {
  let open = false;
  let choice = false;
  for (let i = 0; i < bare.length; i++) {
    const c = bare[i];
    if (c === "{") [open, choice] = [true, false];
    else if (c === "}" && open && choice) return true;
    else if (c === "}") open = false;
    else if (c === "," || (c === "." && bare[i + 1] === ".")) choice = open;
  }
  return false;
}

function add(w: Word, text: string, bare: boolean): void {
  w.value += text;
  if (bare) w.bare += text;
}

function note(s: State, reason: string): void {
  if (!s.out.unchecked.includes(reason)) s.out.unchecked.push(reason);
}

// Give up: note why and skip the rest, without also noting the closers that were not seen.
function stop(s: State, reason: string): void {
  note(s, reason);
  s.pos = s.src.length;
  s.stopped = true;
}

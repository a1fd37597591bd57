// The pieces `pnpm stage-diff --by-declaration` compares: a TypeScript or JavaScript file cut at
// its top-level statements, each piece named so that it finds the same declaration on the other
// side wherever the learner typed it. The parser and the names are the docs' (docs-code.ts), which
// show code "by declaration name" the same way.
//
// A piece is one top-level statement from the end of the statement above to the end of its own
// last line: its comments come with it, the comment lines directly above it and any comment
// between it and the statement above, so no line of the file is left out. Three exceptions:
// - `imports` is the top of the file, as in the docs: the comment the file opens with (up to a
//   blank line, or up to the first import) and every import declaration, the imports sorted so
//   that their order is no difference either;
// - the statements of one name (overloads, or an interface and a const of one name) are one piece;
// - what comes after the last statement (a comment) is the piece `end of file`.
import type { Directive, Statement } from "oxc-parser";
import { declaredNames, IMPORTS, parseFile, statementName } from "./docs-code.ts";

// One piece of a file. `key` pairs it with the other side's piece; `label` names it in the output
// (`function walk`, `imports`, `statement #1`); `text` is its lines, each without trailing
// whitespace; `line` is the line of the file its text starts on (1-based), undefined when its
// lines are not one run of the file (the sorted imports, a name declared in two places).
export interface DeclarationPiece {
  key: string;
  label: string;
  text: string;
  line: number | undefined;
}

// Whether a file is one the parser reads (TypeScript or JavaScript).
export function isCodeFile(path: string): boolean {
  return /\.[cm]?[jt]sx?$/.test(path);
}

// A file's pieces in file order, the imports first. Throws when the file does not parse, with
// the parser's message (`<file> does not parse: …`).
export function declarationPieces(text: string, file: string): DeclarationPiece[] {
  const body = parseFile(text, file).program.body;
  const top: string[] = [];
  const imports: string[] = [];
  // The pieces by key, in the order of their first statements, each with the offset its text
  // starts at and the index of the last statement it took: a statement of the same name right
  // after that one extends it (overloads), one further down is appended to it.
  const pieces = new Map<string, DeclarationPiece & { from: number; last: number }>();
  const seen = new Map<string, number>();
  // Where the lines not yet in a piece start.
  let from = 0;
  for (const [index, statement] of body.entries()) {
    const next = body[index + 1];
    const end = lineEnd(text, statement.end);
    // A statement that shares its last line with the next one ends where it ends, and the next
    // one starts where it starts.
    const to = next !== undefined && next.start < end ? statement.end : end;
    let start = lineStart(text, statement.start);
    if (start < from) {
      start = statement.start;
      from = statement.start;
    }
    if (statement.type === "ImportDeclaration") {
      // The lines above an import (the file's opening comment) go to the top, in file order.
      top.push(text.slice(from, start));
      imports.push(text.slice(start, to));
    } else {
      // The first statement leaves the comment the file opens with, up to a blank line, to the top.
      const opening = index === 0 ? openingComment(text.slice(from, start)) : "";
      if (index === 0) top.push(opening);
      const own = skipBlankLines(text, from + opening.length, start);
      const { key, label } = nameOf(statement, seen);
      const found = pieces.get(key);
      if (found === undefined) {
        const piece = { key, label, text: text.slice(own, to), line: lineAt(text, own) };
        pieces.set(key, { ...piece, from: own, last: index });
      } else if (found.last === index - 1 && found.line !== undefined) {
        found.text = text.slice(found.from, to);
      } else {
        found.text = `${found.text}\n${text.slice(own, to)}`;
        found.line = undefined;
      }
      if (found !== undefined) found.last = index;
    }
    from = text[to] === "\n" ? to + 1 : to;
  }
  // A file with no statement at all (only comments) is all top.
  if (body.length === 0) top.push(text);
  const head = [...top, ...imports.sort()].map(tidy).filter((part) => part !== "");
  const all: DeclarationPiece[] = [
    { key: IMPORTS, label: IMPORTS, text: head.join("\n"), line: undefined },
    ...[...pieces.values()].map(({ key, label, text, line }) => ({ key, label, text, line })),
  ];
  const tail = skipBlankLines(text, from, text.length);
  if (body.length > 0) {
    all.push({
      key: "end",
      label: "end of file",
      text: text.slice(tail),
      line: lineAt(text, tail),
    });
  }
  return all
    .map((piece) => ({ ...piece, text: tidy(piece.text) }))
    .filter((piece) => piece.text !== "");
}

// The part of the lines above a file's first statement that is the file's own comment: up to the
// last blank line among them (a comment directly above the statement is the statement's).
function openingComment(above: string): string {
  return /^(?:[\s\S]*\n)?[ \t]*\n/.exec(above)?.[0] ?? "";
}

// What a statement is called, kind first (`function walk`), and the key it pairs by. A
// declaration goes by its names. A statement that declares nothing goes by what it assigns to or
// calls, as in the docs (`statement process.exitCode`), and a call by its title too when its
// first argument is a string (`test("…")`, so that tests pair by title); one that repeats
// another's name is numbered from the second (`#2`). Any other goes by its kind and its place
// among the statements of that kind without a name (`statement #2`).
function nameOf(
  statement: Statement | Directive,
  seen: Map<string, number>,
): { key: string; label: string } {
  const names = declaredNames(statement).join(", ");
  const kind = kindOf(statement);
  if (names !== "") return { key: `name ${names}`, label: `${kind} ${names}` };
  if (kind === "export default") return { key: kind, label: kind };
  const target = statementName(statement);
  const title = callTitle(statement);
  const label =
    target === undefined
      ? kind
      : title === undefined
        ? `${kind} ${target}`
        : `${target}(${JSON.stringify(title)})`;
  const place = (seen.get(label) ?? 0) + 1;
  seen.set(label, place);
  const numbered = target === undefined || place > 1 ? `${label} #${place}` : label;
  return { key: `statement ${numbered}`, label: numbered };
}

// The string a top-level call starts with: `test("title", …)`'s title.
function callTitle(statement: Statement | Directive): string | undefined {
  if (statement.type !== "ExpressionStatement") return undefined;
  if (statement.expression.type !== "CallExpression") return undefined;
  const [first] = statement.expression.arguments;
  if (first?.type === "Literal" && typeof first.value === "string") return first.value;
  if (first?.type === "TemplateLiteral" && first.expressions.length === 0) {
    return first.quasis[0]?.value.cooked ?? undefined;
  }
  return undefined;
}

// The words a reader knows a statement by: `export` left out but for what only an export is.
const KINDS: Record<string, string> = {
  FunctionDeclaration: "function",
  TSDeclareFunction: "function",
  ClassDeclaration: "class",
  TSTypeAliasDeclaration: "type",
  TSInterfaceDeclaration: "interface",
  TSEnumDeclaration: "enum",
  TSModuleDeclaration: "namespace",
  ExpressionStatement: "statement",
  ExportNamedDeclaration: "export",
  ExportAllDeclaration: "export *",
  ExportDefaultDeclaration: "export default",
  TSExportAssignment: "export =",
};

// A statement's kind in those words (an export's, the kind of what it exports), or its node type.
function kindOf(statement: Statement | Directive): string {
  const exported =
    statement.type === "ExportNamedDeclaration" || statement.type === "ExportDefaultDeclaration"
      ? statement.declaration
      : null;
  const inner = exported !== null && kindOfNode(exported) !== undefined ? exported : statement;
  return kindOfNode(inner) ?? inner.type;
}

// A node's kind in KINDS' words, `const`, `let` or `var` for a variable declaration.
function kindOfNode(node: { type: string; kind?: unknown }): string | undefined {
  if (node.type === "VariableDeclaration" && typeof node.kind === "string") return node.kind;
  return KINDS[node.type];
}

// Past the blank lines from `offset`, but not past `limit`.
function skipBlankLines(text: string, offset: number, limit: number): number {
  const blank = /^(?:[ \t]*\n)*/.exec(text.slice(offset, limit))?.[0] ?? "";
  return offset + blank.length;
}

// Text as pieces are compared: each line without trailing whitespace, and no blank line first
// or last.
function tidy(text: string): string {
  return text
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .replace(/^\n+|\n+$/g, "");
}

// Where the line an offset is on starts (docs-code.ts has the same two helpers, unexported).
function lineStart(text: string, offset: number): number {
  return text.lastIndexOf("\n", offset - 1) + 1;
}

// Where the line an offset is on ends: its newline, or the end of the text.
function lineEnd(text: string, offset: number): number {
  const newline = text.indexOf("\n", offset);
  return newline === -1 ? text.length : newline;
}

// The 1-based line an offset is on.
function lineAt(text: string, offset: number): number {
  return text.slice(0, offset).split("\n").length;
}

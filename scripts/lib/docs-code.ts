// Code shown in the docs comes from the stages: a declaration found by a real TypeScript parser
// (oxc; TypeScript 7 has no JavaScript API), never by a regular expression, so a declaration that
// is renamed or removed fails the check instead of showing stale code.
import {
  type Comment,
  type Declaration,
  type Directive,
  type ExportDefaultDeclarationKind,
  parseSync,
  type Span,
  type Statement,
} from "oxc-parser";

// The text a `<!-- code: … -->` block shows. Without a name, the whole file. With a name (a
// top-level function, class, interface, type alias, enum or variable, exported or not) or a
// `Name.member` (a class's or an interface's member), the declaration from its first line to its
// last, with `export` and the comment lines directly above it (no blank line between), and a
// comment that ends its last line. A member loses the indentation of its first line. Overloads
// come together, from the first signature to the body.
export function extractCode(text: string, file: string, name?: string): string {
  if (name === undefined) return text.replace(/\n$/, "");
  const { program, comments, errors } = parseSync(file, text);
  const [error] = errors;
  if (error !== undefined) throw new Error(`${file} does not parse: ${error.message}`);
  const [outer = "", member] = name.split(".");
  const found = program.body.filter((statement) => declaredNames(statement).includes(outer));
  if (found.length === 0) throw new Error(`${file} has no top-level declaration ${outer}`);
  const spans =
    member === undefined
      ? found
      : found.flatMap((statement) => members(statement)).filter((node) => node.name === member);
  const first = spans[0];
  const last = spans.at(-1);
  if (first === undefined || last === undefined) {
    throw new Error(`${outer} in ${file} has no member ${member}`);
  }
  return withComments(text, comments, first.start, last.end);
}

function declarationOf(statement: Statement | Directive): Declaration | undefined {
  if (statement.type === "ExportNamedDeclaration") return statement.declaration ?? undefined;
  if (statement.type === "ExportDefaultDeclaration")
    return defaultDeclaration(statement.declaration);
  return isDeclaration(statement) ? statement : undefined;
}

function defaultDeclaration(kind: ExportDefaultDeclarationKind): Declaration | undefined {
  return isDeclaration(kind) ? kind : undefined;
}

function isDeclaration(node: { type: string }): node is Declaration {
  return [
    "VariableDeclaration",
    "FunctionDeclaration",
    "TSDeclareFunction",
    "ClassDeclaration",
    "TSTypeAliasDeclaration",
    "TSInterfaceDeclaration",
    "TSEnumDeclaration",
  ].includes(node.type);
}

function declaredNames(statement: Statement | Directive): string[] {
  const declaration = declarationOf(statement);
  if (declaration === undefined) return [];
  if (declaration.type === "VariableDeclaration") {
    return declaration.declarations.flatMap((declarator) =>
      declarator.id.type === "Identifier" ? [declarator.id.name] : [],
    );
  }
  return "id" in declaration && declaration.id?.type === "Identifier" ? [declaration.id.name] : [];
}

// The named members of a class or an interface, with their spans.
function members(statement: Statement | Directive): (Span & { name: string })[] {
  const declaration = declarationOf(statement);
  if (declaration?.type !== "ClassDeclaration" && declaration?.type !== "TSInterfaceDeclaration") {
    return [];
  }
  return declaration.body.body.flatMap((node) =>
    "key" in node && node.key.type === "Identifier"
      ? [{ name: node.key.name, start: node.start, end: node.end }]
      : [],
  );
}

function withComments(text: string, comments: Comment[], start: number, end: number): string {
  const from = firstLine(text, comments, start);
  const to = lastLine(text, comments, end);
  const indent = /^[ \t]*/.exec(text.slice(from, to))?.[0] ?? "";
  return text
    .slice(from, to)
    .split("\n")
    .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
    .join("\n");
}

// Where the declaration's own lines start: at the comments alone on the lines right above it.
function firstLine(text: string, comments: Comment[], start: number): number {
  let from = lineStart(text, start);
  if (text.slice(from, start).trim() !== "") return start;
  for (;;) {
    const above = comments.findLast((comment) => comment.end <= from);
    if (above === undefined || !/^[ \t]*\n$/.test(text.slice(above.end, from))) return from;
    const aboveFrom = lineStart(text, above.start);
    if (text.slice(aboveFrom, above.start).trim() !== "") return from;
    from = aboveFrom;
  }
}

// Where they end: with a comment that ends the declaration's last line.
function lastLine(text: string, comments: Comment[], end: number): number {
  const newline = text.indexOf("\n", end);
  const lineEnd = newline === -1 ? text.length : newline;
  const trailing = comments.find((comment) => comment.start >= end && comment.end <= lineEnd);
  if (trailing === undefined) return end;
  const around = text.slice(end, trailing.start) + text.slice(trailing.end, lineEnd);
  return around.trim() === "" ? lineEnd : end;
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf("\n", offset - 1) + 1;
}

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
//
// Two names are not declarations: `imports` is the top of the file (its opening comment and its
// import lines), and a top-level statement that declares nothing (the line that starts the
// program) is named by what it assigns to, e.g. `process.exitCode`.
export function extractCode(text: string, file: string, name?: string): string {
  if (name === undefined) return text.replace(/\n$/, "");
  const { program, comments } = parseFile(text, file);
  if (name === IMPORTS) return text.slice(0, headEnd(text, program.body));
  const statement = program.body.find((candidate) => statementName(candidate) === name);
  if (statement !== undefined && declaredNames(statement).length === 0) {
    return text.slice(statement.start, lineEnd(text, statement.end));
  }
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

// The pseudo-name of a file's top: its opening comment and its import lines.
export const IMPORTS = "imports";

export function parseFile(text: string, file: string): ReturnType<typeof parseSync> {
  const parsed = parseSync(file, text);
  const [error] = parsed.errors;
  if (error !== undefined) throw new Error(`${file} does not parse: ${error.message}`);
  return parsed;
}

// One top-level piece of a file, in file order: a declaration (by name), or a statement that
// declares nothing (by what it assigns to). `from`..`to` spans its whole lines, with the comment
// lines directly above a declaration and a comment that ends its last line.
export interface Piece {
  name: string;
  names: string[];
  from: number;
  to: number;
  statement: Statement | Directive;
}

export function pieces(text: string, file: string): Piece[] {
  const { program, comments } = parseFile(text, file);
  return program.body.flatMap((statement) => {
    if (statement.type === "ImportDeclaration") return [];
    const names = declaredNames(statement);
    const name = statementName(statement);
    if (name === undefined) return [];
    if (names.length === 0) {
      return [
        { name, names: [name], from: statement.start, to: lineEnd(text, statement.end), statement },
      ];
    }
    const from = firstLine(text, comments, statement.start);
    const to = lastLine(text, comments, statement.end);
    return [{ name, names, from, to, statement }];
  });
}

// Where a file's top ends: after its last import line, or, with no imports, after the comment
// lines it opens with.
export function headEnd(text: string, body: (Statement | Directive)[]): number {
  const imports = body.filter((statement) => statement.type === "ImportDeclaration");
  const last = imports.at(-1);
  if (last !== undefined) return lineEnd(text, last.end);
  const opening = /^(?:\/\/[^\n]*(?:\n|$))+/.exec(text)?.[0] ?? "";
  return opening.replace(/\n$/, "").length;
}

// The name a statement goes by: its declaration's first name, or the target it assigns to.
export function statementName(statement: Statement | Directive): string | undefined {
  const [name] = declaredNames(statement);
  if (name !== undefined) return name;
  if (statement.type !== "ExpressionStatement") return undefined;
  const expression = statement.expression;
  const target = expression.type === "AssignmentExpression" ? expression.left : expression;
  return dottedName(target.type === "CallExpression" ? target.callee : target);
}

function dottedName(node: { type: string }): string | undefined {
  if (node.type === "Identifier") return (node as unknown as { name: string }).name;
  if (node.type !== "MemberExpression") return undefined;
  const member = node as unknown as {
    object: { type: string };
    property: { type: string; name?: string };
    computed: boolean;
  };
  const object = dottedName(member.object);
  if (member.computed || member.property.type !== "Identifier" || object === undefined)
    return undefined;
  return `${object}.${member.property.name}`;
}

// The named members of a class or an interface declared by a top-level statement.
export function memberSpans(
  text: string,
  statement: Statement | Directive,
  comments: Comment[],
): (Span & { name: string })[] {
  return members(statement).map((node) => ({
    name: node.name,
    start: firstLine(text, comments, node.start),
    end: lastLine(text, comments, node.end),
  }));
}

function lineEnd(text: string, offset: number): number {
  const newline = text.indexOf("\n", offset);
  return newline === -1 ? text.length : newline;
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

export function declaredNames(statement: Statement | Directive): string[] {
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

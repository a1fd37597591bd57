// Writes src/known-fields.generated.ts: every request field that the installed SDK's request
// types declare, read from its .d.ts files with a real parser (oxc; TypeScript 7 has no JS API),
// so the validator's "Extra inputs are not permitted" follows the SDK, and an SDK bump is one
// run of `pnpm --filter @agent-code/test-kit generate`. `--check` fails when the file is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseSync } from "oxc-parser";

/** How the generated file describes a type: see `TypeRef` in the generated file. */
export type TypeRef = string | TypeRef[];

export interface Shape {
  fields: Record<string, TypeRef>;
  open?: true;
}

const HERE = dirname(fileURLToPath(import.meta.url));
const OUTPUT = join(HERE, "..", "src", "known-fields.generated.ts");

// The request bodies the fake server validates: the GA types (API 2026-10-21) and the beta
// namespace's, which apply when a request names a beta in `anthropic-beta`.
const ROOTS = {
  messages: ["resources/messages/messages.d.ts", "MessageCreateParamsBase"],
  countTokens: ["resources/messages/messages.d.ts", "MessageCountTokensParams"],
  betaMessages: ["resources/beta/messages/messages.d.ts", "MessageCreateParamsBase"],
  betaCountTokens: ["resources/beta/messages/messages.d.ts", "MessageCountTokensParams"],
} as const;

// Fields the SDK declares but never sends: `betas` becomes the `anthropic-beta` header.
const CLIENT_ONLY = new Set(["betas"]);

/** The text of src/known-fields.generated.ts for the installed SDK. */
export function generateKnownFields(): string {
  // The package root: its `exports` hide package.json, so go up from the main entry.
  const sdkRoot = dirname(createRequire(import.meta.url).resolve("@anthropic-ai/sdk"));
  const version = JSON.parse(readFileSync(join(sdkRoot, "package.json"), "utf8")).version as string;
  const reader = new DeclarationReader(sdkRoot);
  const roots: Record<string, string> = {};
  for (const [root, [file, name]] of Object.entries(ROOTS)) {
    roots[root] = reader.refer(join(sdkRoot, file), name);
  }
  const betas = reader.betaNames(join(sdkRoot, "resources/beta/beta.d.ts"));
  return render(version, roots, reader.shapes, betas);
}

interface Declaration {
  // biome-ignore lint/suspicious/noExplicitAny: oxc's AST nodes, read by their `type`.
  node: any;
  file: string;
}

interface ParsedFile {
  declarations: Map<string, Declaration>;
  // A local name of an `import * as X` or `import { X }` and the file and name it stands for.
  imports: Map<string, { file: string; name?: string }>;
}

class DeclarationReader {
  readonly shapes: Record<string, Shape | TypeRef> = {};
  readonly #files = new Map<string, ParsedFile>();
  // Declaration (file + name) to its key in `shapes`; a name declared in two files keeps the
  // first file's bare name and the later one gets its folder in front.
  readonly #keys = new Map<string, string>();
  readonly #sdkRoot: string;
  // The declaration being read and how many inline object types it has had, to name them.
  #current = { key: "", inline: 0 };

  constructor(sdkRoot: string) {
    this.#sdkRoot = sdkRoot;
  }

  /** The key of a named declaration, read (with everything it refers to) on first use. */
  refer(file: string, name: string): string {
    const id = `${file}#${name}`;
    const known = this.#keys.get(id);
    if (known !== undefined) return known;
    const declaration = this.#find(file, name);
    const bare = name.replaceAll(".", "_");
    const taken = Object.hasOwn(this.shapes, bare);
    const folder = relative(join(this.#sdkRoot, "resources"), dirname(declaration.file));
    const key = taken ? `${folder.replaceAll("/", "_")}_${bare}` : bare;
    this.#keys.set(id, key);
    this.shapes[key] = "unknown"; // a placeholder, so a cycle refers to the key
    const outer = this.#current;
    this.#current = { key, inline: 0 };
    this.shapes[key] = this.#declare(declaration, name);
    this.#current = outer;
    return key;
  }

  /** The names of the `AnthropicBeta` union: the betas this SDK knows. */
  betaNames(file: string): string[] {
    const { node } = this.#find(file, "AnthropicBeta");
    return node.typeAnnotation.types.flatMap(
      // biome-ignore lint/suspicious/noExplicitAny: an oxc node.
      (member: any) => (member.type === "TSLiteralType" ? [member.literal.value] : []),
    );
  }

  #declare({ node, file }: Declaration, name: string): Shape | TypeRef {
    if (node.type === "TSTypeAliasDeclaration") return this.#type(node.typeAnnotation, file);
    const shape: Shape = { fields: {} };
    for (const heritage of node.extends ?? []) {
      const parent = this.shapes[this.refer(...this.#target(heritage.expression, file))];
      if (typeof parent !== "object" || Array.isArray(parent)) {
        throw new Error(`${name} extends something that is not an interface`);
      }
      Object.assign(shape.fields, parent.fields);
      if (parent.open) shape.open = true;
    }
    this.#members(node.body.body, file, shape);
    return shape;
  }

  // biome-ignore lint/suspicious/noExplicitAny: oxc nodes.
  #members(members: any[], file: string, shape: Shape): void {
    for (const member of members) {
      if (member.type === "TSIndexSignature") {
        shape.open = true;
        continue;
      }
      if (member.type !== "TSPropertySignature") continue;
      const key = member.key.type === "Identifier" ? member.key.name : member.key.value;
      if (CLIENT_ONLY.has(key)) continue;
      shape.fields[key] = member.typeAnnotation
        ? this.#type(member.typeAnnotation.typeAnnotation, file)
        : "unknown";
    }
  }

  // biome-ignore lint/suspicious/noExplicitAny: an oxc type node.
  #type(node: any, file: string): TypeRef {
    switch (node.type) {
      case "TSStringKeyword":
        return "string";
      case "TSNumberKeyword":
      case "TSBigIntKeyword":
        return "number";
      case "TSBooleanKeyword":
        return "boolean";
      case "TSNullKeyword":
      case "TSUndefinedKeyword":
        return "null";
      case "TSLiteralType":
        if (typeof node.literal.value === "string") return `'${node.literal.value}'`;
        return typeof node.literal.value === "boolean" ? "boolean" : "number";
      case "TSParenthesizedType":
        return this.#type(node.typeAnnotation, file);
      case "TSTypeOperator":
        return this.#type(node.typeAnnotation, file);
      case "TSArrayType":
        return ["[]", this.#type(node.elementType, file)];
      case "TSUnionType":
        return union(node.types.map((member: unknown) => this.#type(member, file)));
      case "TSIntersectionType":
        // `string & {}` (an open string union) is a string; the SDK's request types have no other.
        return this.#type(node.types[0], file);
      case "TSTypeLiteral": {
        const shape: Shape = { fields: {} };
        this.#members(node.members, file, shape);
        if (Object.keys(shape.fields).length === 0) return "unknown";
        // An inline object type becomes an entry of its own, named after its declaration.
        const key = `${this.#current.key}_${++this.#current.inline}`;
        this.shapes[key] = shape;
        return `#${key}`;
      }
      case "TSTypeReference":
        return this.#reference(node, file);
      default:
        return "unknown";
    }
  }

  // biome-ignore lint/suspicious/noExplicitAny: an oxc node.
  #reference(node: any, file: string): TypeRef {
    const params = node.typeArguments?.params ?? [];
    const name = node.typeName.type === "Identifier" ? node.typeName.name : undefined;
    if ((name === "Array" || name === "ReadonlyArray") && params[0]) {
      return ["[]", this.#type(params[0], file)];
    }
    // Maps (`Record<string, unknown>`) and SDK-side helpers hold anything.
    if (name === "Record" || name === "Uploadable") return "unknown";
    return `#${this.refer(...this.#target(node.typeName, file))}`;
  }

  // A type name (`Tool`, `Tool.InputSchema`, `MessagesAPI.Model`) as the file and name it means.
  // biome-ignore lint/suspicious/noExplicitAny: an oxc node.
  #target(typeName: any, file: string): [string, string] {
    if (typeName.type === "Identifier") {
      const imported = this.#parse(file).imports.get(typeName.name);
      if (imported?.name !== undefined) return [imported.file, imported.name];
      return [file, typeName.name];
    }
    const left = typeName.left.type === "Identifier" ? typeName.left.name : undefined;
    const imported = left === undefined ? undefined : this.#parse(file).imports.get(left);
    if (imported !== undefined && imported.name === undefined) {
      return [imported.file, typeName.right.name];
    }
    // A namespace of the same file (`Tool.InputSchema`).
    return [file, `${left}.${typeName.right.name}`];
  }

  #find(file: string, name: string): Declaration {
    const found = this.#parse(file).declarations.get(name);
    if (found !== undefined) return found;
    // Re-exported from elsewhere (`export { X } from "./y.js"`, `import { X }` then used).
    const imported = this.#parse(file).imports.get(name);
    if (imported?.name !== undefined) return this.#find(imported.file, imported.name);
    throw new Error(`${relative(this.#sdkRoot, file)} declares no ${name}`);
  }

  #parse(file: string): ParsedFile {
    const cached = this.#files.get(file);
    if (cached !== undefined) return cached;
    const { program, errors } = parseSync(file, readFileSync(file, "utf8"));
    if (errors[0] !== undefined) throw new Error(`${file} does not parse: ${errors[0].message}`);
    const parsed: ParsedFile = { declarations: new Map(), imports: new Map() };
    // biome-ignore lint/suspicious/noExplicitAny: oxc nodes.
    const declare = (node: any, prefix: string) => {
      const name = `${prefix}${node.id.type === "Identifier" ? node.id.name : node.id.value}`;
      if (node.type === "TSModuleDeclaration") {
        for (const inner of node.body?.body ?? []) {
          const declaration = inner.type === "ExportNamedDeclaration" ? inner.declaration : inner;
          if (declaration?.id) declare(declaration, `${name}.`);
        }
        return;
      }
      if (!parsed.declarations.has(name)) parsed.declarations.set(name, { node, file });
    };
    for (const statement of program.body) {
      if (statement.type === "ImportDeclaration") {
        const source = resolveDts(file, statement.source.value);
        for (const specifier of statement.specifiers ?? []) {
          if (specifier.type === "ImportNamespaceSpecifier") {
            parsed.imports.set(specifier.local.name, { file: source });
          } else if (specifier.type === "ImportSpecifier") {
            const imported = specifier.imported;
            const name = imported.type === "Identifier" ? imported.name : imported.value;
            parsed.imports.set(specifier.local.name, { file: source, name });
          }
        }
        continue;
      }
      const node = statement.type === "ExportNamedDeclaration" ? statement.declaration : statement;
      if (
        node &&
        ["TSInterfaceDeclaration", "TSTypeAliasDeclaration", "TSModuleDeclaration"].includes(
          node.type,
        )
      ) {
        declare(node, "");
      }
    }
    this.#files.set(file, parsed);
    return parsed;
  }
}

function resolveDts(from: string, specifier: string): string {
  return join(dirname(from), specifier.replace(/\.(m?js)$/, "")).concat(".d.ts");
}

// A union without its duplicates; a single member stands for itself.
function union(members: TypeRef[]): TypeRef {
  const flat = members.flatMap((member) =>
    Array.isArray(member) && member[0] === "|" ? member.slice(1) : [member],
  );
  const unique = flat.filter((member, i) => flat.findIndex((other) => same(other, member)) === i);
  return unique.length === 1 ? (unique[0] as TypeRef) : ["|", ...unique];
}

function same(a: TypeRef, b: TypeRef): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function render(
  version: string,
  roots: Record<string, string>,
  shapes: Record<string, Shape | TypeRef>,
  betas: string[],
): string {
  const sorted = Object.fromEntries(Object.entries(shapes).sort(([a], [b]) => (a < b ? -1 : 1)));
  const lines = [
    `// Generated by scripts/generate-known-fields.ts from @anthropic-ai/sdk ${version}: do not edit.`,
    "// Every request type the SDK declares, reduced to what the validator needs: each object's",
    "// fields and what each holds. A TypeRef is a primitive (`string`, `number`, `boolean`, `null`,",
    "// `unknown`), a string literal (`'text'`), `#Name` (an entry of SHAPES), `['[]', item]` (an",
    "// array) or `['|', ...members]` (a union); an entry of SHAPES is an object or another TypeRef.",
    "",
    "export type TypeRef = string | TypeRef[];",
    "",
    "export interface Shape {",
    "  fields: Record<string, TypeRef>;",
    "  /** The type has an index signature: any other field is allowed. */",
    "  open?: true;",
    "}",
    "",
    `export const SDK_VERSION = ${JSON.stringify(version)};`,
    "",
    "/** The request body of each endpoint, without and with betas. */",
    `export const ROOTS = ${JSON.stringify(roots)} as const;`,
    "",
    "/** The betas the SDK's `AnthropicBeta` type names. */",
    `export const KNOWN_BETAS: readonly string[] = ${JSON.stringify(betas)};`,
    "",
    // One entry a line, so an SDK bump shows as a readable diff.
    "export const SHAPES: Record<string, Shape | TypeRef> = {",
    ...Object.entries(sorted).map(
      ([key, shape]) => `  ${JSON.stringify(key)}: ${JSON.stringify(shape)},`,
    ),
    "};",
    "",
  ];
  return lines.join("\n");
}

// Run as a script (not imported by the freshness test): write the file, or with --check compare.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = generateKnownFields();
  if (process.argv.includes("--check")) {
    if (readFileSync(OUTPUT, "utf8") !== text) {
      process.stderr.write(
        "error: src/known-fields.generated.ts is stale; run `pnpm --filter @agent-code/test-kit generate`\n",
      );
      process.exitCode = 1;
    }
  } else {
    writeFileSync(OUTPUT, text);
  }
}

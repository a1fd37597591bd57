// What the tests of JSON documents share: a checker for the schemas this repository writes.
// A small JSON Schema checker, enough for check-schema.json and session-format.schema.json: type,
// const, enum, oneOf, pattern, minimum, required, properties, additionalProperties: false, items,
// local $refs and integers. It lists every miss.
export function schemaErrors(
  value: unknown,
  schema: Schema,
  root: Schema = schema,
  at = "$",
): string[] {
  if (schema.$ref !== undefined) {
    const name = schema.$ref.replace("#/$defs/", "");
    return schemaErrors(value, root.$defs?.[name] ?? {}, root, at);
  }
  if (schema.oneOf !== undefined) {
    const misses = schema.oneOf.map((branch) => schemaErrors(value, branch, root, at));
    const matched = misses.filter((errors) => errors.length === 0).length;
    if (matched === 0) return [`${at}: matches none of oneOf`, ...misses.flat()];
    if (matched > 1) return [`${at}: matches ${matched} of oneOf, not one`];
  }
  if (schema.const !== undefined && value !== schema.const)
    return [`${at}: expected ${schema.const}`];
  if (schema.enum !== undefined && !schema.enum.includes(value)) {
    return [`${at}: expected one of ${schema.enum.join(",")}`];
  }
  const types = schema.type === undefined ? [] : [schema.type].flat();
  const integer = types.includes("integer") && Number.isInteger(value);
  if (types.length > 0 && !types.includes(jsonType(value)) && !integer) {
    return [`${at}: expected ${types}`];
  }
  if (
    typeof value === "string" &&
    schema.pattern !== undefined &&
    !new RegExp(schema.pattern, "u").test(value)
  ) {
    return [`${at}: does not match ${schema.pattern}`];
  }
  if (typeof value === "number" && schema.minimum !== undefined && value < schema.minimum) {
    return [`${at}: expected at least ${schema.minimum}`];
  }
  if (Array.isArray(value)) {
    return value.flatMap((item, index) =>
      schema.items ? schemaErrors(item, schema.items, root, `${at}.${index}`) : [],
    );
  }
  if (typeof value !== "object" || value === null) return [];
  const record = value as Record<string, unknown>;
  const properties = schema.properties ?? {};
  return [
    ...(schema.required ?? [])
      .filter((key) => !(key in record))
      .map((key) => `${at}: missing ${key}`),
    ...Object.keys(record)
      .filter((key) => schema.additionalProperties === false && !(key in properties))
      .map((key) => `${at}: unexpected ${key}`),
    ...Object.entries(properties).flatMap(([key, property]) =>
      key in record ? schemaErrors(record[key], property, root, `${at}.${key}`) : [],
    ),
  ];
}

export interface Schema {
  $ref?: string;
  $defs?: Record<string, Schema>;
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  oneOf?: Schema[];
  pattern?: string;
  minimum?: number;
  required?: string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean;
  items?: Schema;
}

function jsonType(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
}

// Shape checks shared by every step parser: the Messages API steps and the OpenAI ones refuse the
// same mistakes with the same words.

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function requireString(value: Record<string, unknown>, key: string, where: string): void {
  if (typeof value[key] !== "string") throw new Error(`${where}: "${key}" must be a string`);
}

export function optionalString(value: Record<string, unknown>, key: string, where: string): void {
  if (value[key] !== undefined) requireString(value, key, where);
}

// Unknown fields are refused so that a typo ("stopReason", "arguments") fails loudly.
export function checkOnly(value: Record<string, unknown>, allowed: string[], where: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw new Error(`${where}: unknown field "${key}"`);
  }
}

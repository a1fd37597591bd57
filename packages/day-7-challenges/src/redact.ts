// Secrets kept out of the conversation: the value of a credential variable in a tool's result
// becomes `[redacted:NAME]` before the model sees it, so the wire and the session log agree and
// neither holds the key. What the person types is theirs to send, and is not touched.
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL/i;
// A shorter value would be an ordinary word as often as a secret.
const SHORTEST = 8;

export interface Secret {
  name: string;
  value: string;
}

// The values to hide, longest first, so a value holding another is hidden whole. The provider's
// key is hidden whatever its length.
export function secretValues(env: NodeJS.ProcessEnv): Secret[] {
  const key = env.ANTHROPIC_AUTH_TOKEN || env.ANTHROPIC_API_KEY;
  const secrets = Object.entries(env)
    .filter(
      (entry): entry is [string, string] =>
        SECRET_NAME.test(entry[0]) &&
        entry[1] !== undefined &&
        (entry[1].length >= SHORTEST || (entry[1] !== "" && entry[1] === key)),
    )
    .map(([name, value]) => ({ name, value }))
    .sort((a, b) => b.value.length - a.value.length || (a.name < b.name ? -1 : 1));
  // One name for one value: the first, so the same text always reads the same.
  return secrets.filter(
    (secret, index) => secrets.findIndex((other) => other.value === secret.value) === index,
  );
}

export function redact(text: string, secrets: Secret[]): string {
  let out = text;
  for (const { name, value } of secrets) {
    if (out.includes(value)) out = out.replaceAll(value, `[redacted:${name}]`);
  }
  return out;
}

// What file_write and file_edit refuse: the marker would be written in place of the secret.
export const REDACTED_MARK = "[redacted:";

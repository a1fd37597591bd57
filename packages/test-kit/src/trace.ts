// Reads the trace a stage prints (DESIGN.md §3.0) back into data. Arguments are parsed as JSON or
// as a Python dict repr, so a project of the Python course is judged on the same shapes.

export type TraceEntry =
  | { kind: "tool_call"; name: string; arguments: unknown; rawArguments: string }
  | { kind: "observation"; text: string }
  | { kind: "final"; text: string };

export function parseTrace(stdout: string): TraceEntry[] {
  const entries: TraceEntry[] = [];
  const lines = stdout.replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n");
  for (const line of lines) {
    const last = entries.at(-1);
    if (last?.kind === "final") {
      // The final text runs to the end of stdout, whatever its lines look like.
      last.text += `\n${line}`;
      continue;
    }
    if (line.startsWith("final: ") || line === "final:") {
      entries.push({ kind: "final", text: line.slice("final: ".length) });
    } else if (line.startsWith("tool_call: ")) {
      entries.push(parseToolCall(line.slice("tool_call: ".length)));
    } else if (line.startsWith("observation: ") || line === "observation:") {
      entries.push({ kind: "observation", text: line.slice("observation: ".length) });
    } else if (last?.kind === "observation") {
      // A tool result with several lines continues until the next trace line.
      last.text += `\n${line}`;
    }
  }
  return entries;
}

function parseToolCall(rest: string): TraceEntry {
  const space = rest.indexOf(" ");
  const name = space === -1 ? rest : rest.slice(0, space);
  const rawArguments = space === -1 ? "" : rest.slice(space + 1).trim();
  return { kind: "tool_call", name, arguments: parseArguments(rawArguments), rawArguments };
}

// JSON first; then a Python literal ({'text': 'hi'}, True, None); else the text as it is.
export function parseArguments(raw: string): unknown {
  if (raw === "") return {};
  try {
    return JSON.parse(raw);
  } catch {
    try {
      return parsePythonLiteral(raw);
    } catch {
      return raw;
    }
  }
}

export function parsePythonLiteral(source: string): unknown {
  let at = 0;
  const value = parseValue();
  skipSpace();
  if (at < source.length) fail("trailing characters");
  return value;

  function parseValue(): unknown {
    skipSpace();
    const char = source[at];
    if (char === "{") return parseDict();
    if (char === "[" || char === "(") return parseList(char === "[" ? "]" : ")");
    if (char === "'" || char === '"') return parseString(char);
    for (const [word, value] of [
      ["True", true],
      ["False", false],
      ["None", null],
    ] as const) {
      if (source.startsWith(word, at)) {
        at += word.length;
        return value;
      }
    }
    const number = /^-?\d+(\.\d+)?([eE][-+]?\d+)?/.exec(source.slice(at));
    if (number) {
      at += number[0].length;
      return Number(number[0]);
    }
    return fail("unexpected character");
  }

  function parseDict(): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    at++;
    while (!consume("}")) {
      const key = parseValue();
      skipSpace();
      if (!consume(":")) fail("expected ':'");
      result[String(key)] = parseValue();
      skipSpace();
      if (!consume(",") && source[at] !== "}") fail("expected ',' or '}'");
      skipSpace();
    }
    return result;
  }

  function parseList(close: string): unknown[] {
    const result: unknown[] = [];
    at++;
    while (!consume(close)) {
      result.push(parseValue());
      skipSpace();
      if (!consume(",") && source[at] !== close) fail(`expected ',' or '${close}'`);
      skipSpace();
    }
    return result;
  }

  function parseString(quote: string): string {
    let result = "";
    at++;
    while (at < source.length && source[at] !== quote) {
      const char = source[at++] as string;
      if (char !== "\\") {
        result += char;
        continue;
      }
      const escaped = source[at++];
      const simple: Record<string, string> = {
        n: "\n",
        t: "\t",
        r: "\r",
        "\\": "\\",
        "'": "'",
        '"': '"',
      };
      if (escaped !== undefined && escaped in simple) result += simple[escaped];
      else if (escaped === "u" || escaped === "x") {
        const length = escaped === "u" ? 4 : 2;
        result += String.fromCharCode(Number.parseInt(source.slice(at, at + length), 16));
        at += length;
      } else result += `\\${escaped ?? ""}`;
    }
    if (!consume(quote)) fail("unterminated string");
    return result;
  }

  function consume(char: string): boolean {
    skipSpace();
    if (source[at] !== char) return false;
    at++;
    return true;
  }

  function skipSpace(): void {
    while (at < source.length && /\s/.test(source[at] as string)) at++;
  }

  function fail(reason: string): never {
    throw new SyntaxError(`not a Python literal (${reason} at ${at}): ${source}`);
  }
}

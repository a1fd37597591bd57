// `--only`: scenario ids, old ids (a renamed scenario's aliases) or globs such as
// 'bad-arguments-*', resolved to the ids of one stage's scenarios in contract order (with
// --battery, of its battery's).
import { type Contract, findContract } from "@agent-code/test-kit";
import { UsageError } from "./command.ts";

export function resolveOnly(stage: string, patterns: string[], battery?: Contract): string[] {
  const scenarios = (battery ?? findContract(stage))?.scenarios ?? [];
  const chosen = new Set<string>();
  for (const pattern of patterns) {
    const matches = globPattern(pattern);
    const found = scenarios.filter((scenario) =>
      [scenario.id, ...(scenario.aliases ?? [])].some((id) => matches.test(id)),
    );
    if (found.length === 0 && battery !== undefined) {
      const range = `${scenarios[0]?.id} to ${scenarios.at(-1)?.id}`;
      throw new UsageError(`${stage}'s battery has no command ${pattern} (its ids: ${range})`);
    }
    if (found.length === 0) {
      const ids = scenarios.map((scenario) => scenario.id).join(", ");
      throw new UsageError(`${stage} has no scenario ${pattern} (scenarios: ${ids})`);
    }
    for (const scenario of found) chosen.add(scenario.id);
  }
  return scenarios.map((scenario) => scenario.id).filter((id) => chosen.has(id));
}

// `*` any run of characters, `?` one; everything else stands for itself.
export function globPattern(pattern: string): RegExp {
  const source = [...pattern]
    .map((char) =>
      char === "*" ? ".*" : char === "?" ? "." : char.replace(/[.+^${}()|[\]\\]/g, "\\$&"),
    )
    .join("");
  return new RegExp(`^${source}$`);
}

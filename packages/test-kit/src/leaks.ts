// What every run is checked for whatever its scenario judges: a key in the output, and any of the
// scenario's own secrets in the output or in what the model was sent.
import type { EnvOverrides, Observed } from "./contract.ts";
import { carries, mentionsNoSecret } from "./judgements.ts";

const SECRET_NAME = /(API_KEY|AUTH_TOKEN)$/i;

// A key in the output is a leak, whatever the scenario is about: every scenario is checked.
export function printedKeys(
  env: EnvOverrides,
  observed: Observed,
): { message: string; docs: string }[] {
  return Object.entries(env)
    .filter(
      ([name, value]) => SECRET_NAME.test(name) && value && !mentionsNoSecret(observed, value),
    )
    .map(([name]) => ({
      message: `the value of ${name} appeared in the output: never print a key, not even in an error`,
      docs: "docs/day-2.md#setup",
    }));
}

// A secret the scenario named reached the output, the model or a file under the home folder: the
// command gave it to something that printed it, sent it on or stored it (a tool's environment, an
// error text, a session log). Named by the variable that held it, where the scenario's env has one.
export function leakedSecrets(
  secrets: string[],
  env: EnvOverrides,
  observed: Observed,
): { message: string; docs: string }[] {
  return secrets.flatMap((secret) => {
    // Every run's output: a later run that prints what an earlier one stored leaks it too.
    const where = [
      ...(observed.runs.some((run) => run.stdout.includes(secret)) ? ["stdout"] : []),
      ...(observed.runs.some((run) => run.stderr.includes(secret)) ? ["stderr"] : []),
      ...observed.requests
        .filter((request) => carries(request.body, secret))
        .map((request) => `request ${request.index + 1}`),
      // What agent-code keeps in its home folder (a session log, a memory) is written to disk.
      ...Object.entries(observed.files)
        .filter(([path, state]) => path.startsWith("home/") && typeof state === "string")
        .filter(([, state]) => (state as string).includes(secret))
        .map(([path]) => path),
    ];
    if (where.length === 0) return [];
    const names = Object.keys(env).filter((name) => env[name] === secret);
    const name = names.length > 0 ? names.join(", ") : JSON.stringify(secret);
    return [
      {
        message: `the value of a secret variable reached the output or a request: ${name} (in ${where.join(", ")})`,
        docs: "",
      },
    ];
  });
}

// The environment `pnpm check` gives a learner's program: an allowlist, not a blocklist. The
// program is untrusted code; a grader's shell (or a CI runner) holds tokens under any name
// (GITHUB_TOKEN, NPM_TOKEN, a cloud's credentials), so only what a process needs to run goes in:
// where programs are, who and where the user is, locale, temp, terminal and the platform's
// essentials. Each scenario then sets its own variables (base URLs, a dummy key), and
// `--pass-env NAME` lets through what a project needs beyond that (decision 0039).
import { UsageError } from "./command.ts";

// Exact names, compared without case (Windows spells them as it likes).
const ALLOWED = new Set(
  [
    // Finding programs, and the user's home and identity.
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    // Locale and time.
    "LANG",
    "LANGUAGE",
    "TZ",
    // Temporary files.
    "TMPDIR",
    "TMP",
    "TEMP",
    // The terminal.
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "FORCE_COLOR",
    "COLUMNS",
    "LINES",
    // Where per-user caches and settings live (uv, pip and others look here).
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_RUNTIME_DIR",
    // Windows: without these, programs and Python itself fail to start.
    "SYSTEMROOT",
    "SYSTEMDRIVE",
    "WINDIR",
    "COMSPEC",
    "PATHEXT",
    "USERPROFILE",
    "HOMEDRIVE",
    "HOMEPATH",
    "APPDATA",
    "LOCALAPPDATA",
    "PROGRAMDATA",
    "PROGRAMFILES",
    "PROGRAMFILES(X86)",
    "COMMONPROGRAMFILES",
    "NUMBER_OF_PROCESSORS",
    "PROCESSOR_ARCHITECTURE",
    "OS",
  ].map((name) => name.toUpperCase()),
);

// The locale categories (LC_ALL, LC_CTYPE, ...).
const LOCALE = /^LC_[A-Z]+$/i;

// A variable name as a shell accepts it.
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

// Whether the program may inherit the caller's variable `name`; `passed` are --pass-env's names.
export function inheritFilter(passed: string[] = []): (name: string) => boolean {
  const extra = new Set(passed);
  return (name) => ALLOWED.has(name.toUpperCase()) || LOCALE.test(name) || extra.has(name);
}

// --pass-env's values, each a variable name.
export function passEnvOption(names: string[] | undefined): string[] {
  for (const name of names ?? []) {
    if (!NAME.test(name)) {
      throw new UsageError(`--pass-env takes a variable name (letters, digits, _): ${name}`);
    }
  }
  return names ?? [];
}

// How the programs that run another program read their words (`env`, `nice`, `timeout`, `xargs`
// …): the reader unwraps them to find the command a guard or a rule must see.

// Wrappers run the command after their options, each read as its getopt reads it: a letter, with
// `:` when it takes a value (`-n 5`, `-n5`) or `::` when only an attached one (`-i{}`); a long name
// (or a prefix of one only), with `=` when it takes a value (`--max-args 1`, `--max-args=1`) or `?`
// when only after `=`. Then the words before the command: `env`'s NAME=value words, `timeout`'s
// duration, `taskset`'s mask, `flock`'s lock file, `chrt`'s priority (a number, when there is one).
const WRAPPERS: Record<string, [options: string, operand?: string]> = {
  env: [
    "-iu:C:S:0v --ignore-environment --unset= --chdir= --split-string= --null --debug " +
      "--block-signal? --default-signal? --ignore-signal? --list-signal-handling",
    "NAME=value…",
  ],
  command: ["-pvV"],
  exec: ["-cla:"],
  nohup: [""],
  nice: ["-n: --adjustment="],
  time: ["-af:o:pqvV --append --format= --output= --portability --quiet --verbose"],
  timeout: [
    "-k:s:fpv --kill-after= --signal= --foreground --preserve-status --verbose",
    "DURATION",
  ],
  xargs: [
    "-0a:d:E:e::I:i::L:l::n:P:s:oprtx --null --arg-file= --delimiter= --eof? --replace? " +
      "--max-lines? --max-args= --max-procs= --max-chars= --open-tty --interactive " +
      "--no-run-if-empty --verbose --exit --process-slot-var= --show-limits",
  ],
  setsid: ["-cfw --ctty --fork --wait"],
  stdbuf: ["-i:o:e: --input= --output= --error="],
  ionice: ["-c:n:p:P:u:t --class= --classdata= --pid= --pgid= --uid= --ignore"],
  chrt: [
    "-abdfimoprRvT:P:D: --all-tasks --batch --deadline --fifo --idle --max --other --pid --rr " +
      "--reset-on-fork --verbose --sched-runtime= --sched-period= --sched-deadline=",
    "[PRIORITY]",
  ],
  taskset: ["-acp --all-tasks --cpu-list --pid", "MASK"],
  flock: [
    "-sxenuow:E:F --shared --exclusive --unlock --nonblock --nb --close --no-fork --timeout= " +
      "--wait= --conflict-exit-code= --verbose",
    "FILE",
  ],
};

// The words a wrapper named `name` (the basename of words[0]) runs, after its options and
// operands; undefined when `words` is no wrapper,
// runs nothing (`--help`) or has an option the reader does not know, which is unchecked.
export function unwrap(name: string, words: string[], why: string[]): string[] | undefined {
  const [options, operand] = (Object.hasOwn(WRAPPERS, name) && WRAPPERS[name]) || [];
  if (options === undefined) return undefined;
  let list = words;
  let split = false;
  let i = 1;
  while (/^-./.test(list[i] ?? "")) {
    const word = list[i] ?? "";
    if (word === "--") {
      i++;
      break;
    }
    if (word === "--help" || word === "--version") return undefined;
    const option =
      /^-[-+]?\d+$/.test(word) && name === "nice"
        ? { name: word, next: i + 1 } // `-5`
        : readOption(options, list, i);
    if (option === undefined || (split && option.name === "S")) {
      why.push(`an unknown ${name} option`);
      return undefined;
    }
    i = option.next;
    if (option.name !== "S") continue;
    // `env -S TEXT` splits TEXT into words by rules of its own (`\_` is a space), then reads on.
    split = true;
    why.push("env -S");
    const parts = (option.value ?? "")
      .replace(/\\_/g, " ")
      .replace(/['"\\]/g, "")
      .split(/\s+/);
    list = [...list.slice(0, i), ...parts.filter((part) => part !== ""), ...list.slice(i)];
  }
  if (name === "env" && list[i] === "-") i++; // a lone `-` is -i
  if (operand === "NAME=value…") while (list[i]?.includes("=")) i++;
  else if (operand === "[PRIORITY]") i += /^\d+$/.test(list[i] ?? "") ? 1 : 0;
  else if (operand !== undefined) i++;
  // `flock FILE -c TEXT` runs TEXT in a shell.
  if (name === "flock" && /^(?:-c|--command)$/.test(list[i] ?? "")) {
    return ["sh", "-c", list[i + 1] ?? ""];
  }
  return list.slice(i);
}

// One option of a wrapper and its value, as getopt reads it: `-n5`, `-n 5`, `-iu NAME` (letters
// together, the last one taking the value), `--unset=NAME`, `--unset NAME`, `--uns NAME` (a
// prefix of one long option only). Undefined when `options` has no such option. A long option is
// named without its dashes, so `-S` and `--split-string` are both "S" to the caller.
function readOption(
  options: string,
  words: string[],
  at: number,
): { name: string; value?: string; next: number } | undefined {
  const word = words[at] ?? "";
  if (word.startsWith("--")) {
    const [given = "", value] = word.slice(2).split(/=(.*)/s);
    const longs = options.match(/--[\w-]+[=?]?/g) ?? [];
    const exact = longs.filter((long) => long.replace(/[=?]$/, "") === `--${given}`);
    const found = exact.length > 0 ? exact : longs.filter((long) => long.startsWith(`--${given}`));
    const [long] = found;
    if (long === undefined || found.length > 1) return undefined;
    const name = long === "--split-string=" ? "S" : long.replace(/^--|[=?]$/g, "");
    if (long.endsWith("=")) {
      return value === undefined
        ? { name, value: words[at + 1], next: at + 2 }
        : { name, value, next: at + 1 };
    }
    if (value !== undefined && !long.endsWith("?")) return undefined;
    return { name, ...(value === undefined ? {} : { value }), next: at + 1 };
  }
  const letters = options.split(" ")[0] ?? "";
  for (let j = 1; j < word.length; j++) {
    const name = word[j] ?? "";
    const k = /\w/.test(name) ? letters.indexOf(name, 1) : -1;
    if (k < 0) return undefined;
    if (letters[k + 1] !== ":") continue;
    const value = word.slice(j + 1);
    if (value !== "" || letters[k + 2] === ":") return { name, value, next: at + 1 };
    return { name, value: words[at + 1], next: at + 2 };
  }
  return { name: word.slice(-1), next: at + 1 };
}

// The reader against bash itself: commands generated from the shell grammar run in real bash with
// a PATH of recording shims, and every program bash ran must be one of the simple commands the
// reader returned (after wrappers), or the reader must have called the line unchecked. One fixed
// seed, and a new one each run; fast-check names the seed of a failure, and AGENT_CODE_SEED=<seed>
// runs that seed again.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${…}` here is shell text, not a template
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { testLeg } from "@agent-code/test-kit";
import fc from "fast-check";
import { afterAll, describe, expect, test } from "vitest";
import { commandName, parseCommand, withoutWrappers } from "../src/shell-words.ts";

const BASH = process.platform === "win32" ? undefined : realProgram("bash");
const RUNS = Number(process.env.AGENT_CODE_RUNS ?? 200);
const SEEDS: [string, number][] = [
  ["a fixed seed", 20260517],
  ["a new seed each run", Number(process.env.AGENT_CODE_SEED ?? Date.now() % 2 ** 31)],
];

const root = mkdtempSync(path.join(tmpdir(), "agent-code-reader-"));
const shims = path.join(root, "bin");
const work = path.join(root, "work");
afterAll(() => rmSync(root, { recursive: true, force: true }));

// Programs only the shims provide; bash's builtins get none. Each shim logs its name and exits 0.
const PROGRAMS = ["pa", "pb", "pc", "rm", "git", "touch", "cat"];
// Wrappers log their name, then run the real program, which finds the shims on PATH: GNU's and
// util-linux's, whose options the reader knows (macOS has other ones, or none).
const WRAPPERS = ["env", "nice", "nohup", "timeout", "xargs", "setsid", "stdbuf", "ionice"]
  .concat(["chrt", "taskset", "flock", "time", "bash"])
  .map((name) => [name, realProgram(name)] as const)
  .filter((pair): pair is readonly [string, string] => {
    const version = pair[1] === undefined ? "" : spawnSync(pair[1], ["--version"]).stdout;
    return /GNU|util-linux/.test(String(version));
  });
const HAVE = new Set(WRAPPERS.map(([name]) => name));

function realProgram(name: string): string | undefined {
  const dirs = ["/usr/bin", "/bin", "/usr/local/bin", ...(process.env.PATH ?? "").split(":")];
  return dirs.map((dir) => path.join(dir, name)).find((file) => existsSync(file));
}

if (BASH !== undefined) {
  mkdirSync(shims);
  mkdirSync(work);
  for (const name of PROGRAMS) shim(name, "");
  for (const [name, real] of WRAPPERS) shim(name, `exec ${real} "$@"\n`);
}

// A shim for bash is run by bash: /bin/sh may drop what bash reads from the environment.
function shim(name: string, then: string): void {
  const log = `echo ${name} >> "$SHIM_LOG"\n`;
  const shell = name === "bash" ? BASH : "/bin/sh";
  writeFileSync(path.join(shims, name), `#!${shell}\n${log}${then}`, { mode: 0o755 });
}

let logs = 0;

// The programs bash ran for `text`, in the order they logged. No stdin; no line here runs for
// long, and one still running after 10 s is stopped: what it ran so far is what it ran.
function ranInBash(text: string): string[] {
  const log = path.join(root, `log-${++logs}`);
  spawnSync(BASH ?? "bash", ["--noprofile", "--norc", "-c", text], {
    cwd: work,
    env: { PATH: shims, SHIM_LOG: log, HOME: work },
    stdio: "ignore",
    timeout: 10_000,
  });
  return existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : [];
}

// What bash ran that the reader did not see, for a line the reader called checked.
function unread(text: string, ran: string[]): string[] {
  const parsed = parseCommand(text);
  if (parsed.unchecked.length > 0) return [];
  const read = parsed.commands.flatMap((command) =>
    withoutWrappers(command.words).map(commandName),
  );
  return ran.filter((name) => !read.includes(name));
}

// The shell grammar, small: simple commands of shim programs and words of every quoting and
// expansion, redirects, wrappers with options, lists, pipelines, subshells, groups, `if`, `case`
// and here-documents, nested a few levels. Forms the reader calls unchecked are rarer, so that
// most lines are ones it claims to read through.
const name = fc.constantFrom("pa", "pb", "pc", "'pa'", '"pb"', "p''c", "\\pa", "$'p\\x61'");
const PLAIN = [
  "x",
  "-rf",
  "'a b'",
  '"c d"',
  "e\\ f",
  "--n=1",
  "$x",
  '"$x"',
  "${x}",
  "${#x}",
  "a#b",
].concat(["'$(pa)'", '"\\$(pa)"', "'${x:-$(pa)}'", "${x:-y}", '"${x}"', "'{a,b}'"]);
const REDIRECTS = ["> f1", ">> f2", "2>&1", "< /dev/null", "2> /dev/null", "&> f3", ">| f4"].concat(
  ["{fd}> f5", "3<> f6", "&>> f7"],
);
const WRAPPER_OPTIONS: Record<string, string[]> = {
  env: [
    "",
    "-u FOO",
    "--unset=FOO",
    "--unset FOO",
    "-uFOO",
    "FOO=1",
    "-C . A=b",
    "--",
    "-S 'pc x'",
  ],
  nice: ["", "-n 5", "-n5", "--adjustment 5", "--adjustment=5", "-5", "--adj 3"],
  nohup: ["", "--"],
  timeout: ["5", "-k 1 5", "-s KILL 5", "--signal=TERM 5", "--preserve-status 5", "-v 5"],
  xargs: ["", "-0", "-n 1", "--max-args 1", "--max-args=1", "-I {}", "-L 1", "-P 1", "-s 100"],
  setsid: ["", "-w", "--wait"],
  stdbuf: ["-o L", "-oL", "--output=L", "-e 0", "-i 0 -o 0"],
  ionice: ["-c 3", "-c3", "-c 2 -n 7", "--class 3", "-t -c 3"],
  chrt: ["-o 0", "-b 0", "--other 0", "-i 0"],
  taskset: ["0x1", "-c 0", "--cpu-list 0"],
  flock: ["lk", "-n lk", "-w 1 lk", "--nonblock lk"],
  time: ["-f %e", "-p", "--format=%e", "-o tf"],
};
const wrapper = fc.oneof(
  fc.constantFrom(
    ...Object.entries(WRAPPER_OPTIONS)
      .filter(([wrapped]) => HAVE.has(wrapped))
      .flatMap(([wrapped, options]) => options.map((option) => `${wrapped} ${option}`.trim())),
  ),
  fc.constantFrom("command", "time -p", "exec -a name", "nice --frob", "env --frob"),
);

function often(arbitrary: fc.Arbitrary<string>) {
  return { arbitrary, weight: 4 };
}

function rarely(arbitrary: fc.Arbitrary<string>) {
  return { arbitrary, weight: 1 };
}

type Grammar = Record<
  "word" | "redirect" | "bare" | "simple" | "command" | "heredoc" | "line" | "item" | "list",
  string
>;

const { list } = fc.letrec<Grammar>((tie) => {
  const command = tie("command");
  const simple = tie("simple");
  const bare = tie("bare");
  const words = fc.array(tie("word"), { maxLength: 2 });
  const redirects = fc.array(tie("redirect"), { maxLength: 2 });
  const nesting = { maxDepth: 2, depthIdentifier: "shell", depthSize: "small" } as const;
  const lines = fc.array(tie("line"), { minLength: 1, maxLength: 3 });
  const quote = (text: string) => text.replace(/[\\`$]/g, "\\$&");
  return {
    word: fc.oneof(
      nesting,
      { arbitrary: fc.constantFrom(...PLAIN), weight: 12 },
      often(command.map((c) => `$(${c})`)),
      often(command.map((c) => `"x $(${c})"`)),
      often(command.map((c) => `\`${quote(c)}\``)),
      often(command.map((c) => `<(${c})`)),
      often(command.map((c) => `\${x:-$(${c})}`)),
      often(command.map((c) => `\${x:-'$(${c})'}`)),
      rarely(command.map((c) => `"\${x:-'$(${c})'}"`)),
      rarely(command.map((c) => `"\${x#$(${c})}"`)),
      rarely(command.map((c) => `\${x:=$(${c})}`)),
      rarely(command.map((c) => `$(( $(${c}) + 1 ))`)),
      often(fc.tuple(simple, tie("heredoc")).map(([c, doc]) => `$(${c} ${doc}\n)`)),
    ),
    redirect: fc.oneof(
      nesting,
      { arbitrary: fc.constantFrom(...REDIRECTS), weight: 8 },
      command.map((c) => `<<< "$(${c})"`),
      command.map((c) => `> "$(${c})"`),
    ),
    bare: fc
      .tuple(name, words, redirects)
      .map(([first, rest, redirs]) => [first, ...rest, ...redirs].join(" ")),
    simple: fc.tuple(fc.constantFrom("", "", "X=1 ", "Y='a b' "), bare).map((p) => p.join("")),
    command: fc.oneof(
      nesting,
      { arbitrary: simple, weight: 8 },
      often(fc.tuple(wrapper, bare).map(([w, c]) => `${w} ${c}`)),
      often(fc.tuple(fc.constantFrom("env", "nice"), wrapper, bare).map((p) => p.join(" "))),
      often(fc.tuple(tie("word"), bare).map(([w, c]) => `X=${w} ${c}`)),
      often(command.map((c) => `! ${c}`)),
      often(tie("list").map((l) => `( ${l}\n)`)),
      often(tie("list").map((l) => `{ ${l}\n}`)),
      often(fc.tuple(command, tie("list")).map(([c, l]) => `if ${c}; then ${l}\nfi`)),
      often(
        fc
          .tuple(command, tie("list"), tie("list"))
          .map(([c, l, e]) => `if ! ${c}; then ${l}\nelse ${e}\nfi`),
      ),
      often(tie("list").map((l) => `while false; do ${l}\ndone`)),
      often(
        fc
          .tuple(tie("word"), tie("list"), tie("list"), fc.constantFrom(";;", ";&", ";;&"))
          .map(([w, a, b, end]) => `case ${w} in x|pa) ${a}\n${end} (*) ${b};; esac`),
      ),
    ),
    // `<<EOF`, the body and the delimiter line: the next line follows it.
    heredoc: fc
      .tuple(fc.constantFrom("EOF", "'EOF'", '"EOF"', "\\EOF", 'E"O"F', "-EOF", "-'EOF'"), lines)
      .map(([delimiter, body]) => {
        const tabs = delimiter.startsWith("-") ? "\t" : "";
        return [`<<${delimiter}`, ...body, "EOF"]
          .map((line, i) => (i > 0 ? tabs : "") + line)
          .join("\n");
      }),
    line: fc.oneof(
      nesting,
      fc.constantFrom("text", "'q' \"r\"", "a \\\nb", "EO\\\nF", "\\$(pa)", "$x"),
      command.map((c) => `$(${c})`),
      command.map((c) => `'$(${c})'`),
      command.map((c) => `\`${quote(c)}\``),
      command.map((c) => `\${x:-$(${c})}`),
    ),
    item: fc.oneof(
      nesting,
      { arbitrary: command, weight: 3 },
      fc
        .tuple(simple, tie("heredoc"), fc.constantFrom("", " | pc", " && pb", "; pa", " > f5"))
        .map(([c, doc, rest]) => {
          const [first = "", ...body] = doc.split("\n");
          return `${[`${c} ${first}${rest}`, ...body].join("\n")}\n`;
        }),
    ),
    list: fc
      .array(
        fc.tuple(
          tie("item"),
          fc.constantFrom(" ; ", " && ", " || ", " & ", "\n", " | ", " |& ", " # c $(pa)\n"),
        ),
        { minLength: 1, maxLength: 3 },
      )
      .map((items) =>
        items
          // After a here-document the next line starts the next command.
          .map(([text, joiner], i) =>
            i === items.length - 1 || text.endsWith("\n") ? text : text + joiner,
          )
          .join(""),
      ),
  };
});

// The forms a hostile model used to hide a command (issue #56), with the program bash runs.
const FOUND: [string, string][] = [
  [`echo "\${x:-'$(touch pw)'}"`, "touch"],
  [`echo "\${x:-'$(rm -rf victim)'}"`, "rm"],
  [`echo "\${x:-'$(git push)'}"`, "git"],
  [": ${x:='a[$(touch pw)]'}; echo ${HOME:x}", "touch"],
  [": ${x:='a[$(touch pw)]'}; echo $[x]", "touch"],
  [": ${x:='a[$(touch pw)]'}; echo ${a[x]}", "touch"],
  [": ${x:='a[$(touch pw)]'}; echo ${!x}", "touch"],
  [": ${x:='a[$(touch pw)]'}; echo ${x@P}", "touch"],
  ["x='a[$(touch pw)]'; echo ${HOME:x}", "touch"],
  ["read 'a[$(touch pw)]' <<< x", "touch"],
  ["printf -v 'a[$(touch pw)]' x", "touch"],
  ["[ -v 'a[$(touch pw)]' ]", "touch"],
  ["declare -n r='a[$(touch pw)]'; echo $r", "touch"],
  ["x='a[$(touch pw)]'; declare -i y=x", "touch"],
  ["env -S 'rm -rf x'", "rm"],
  ["env --unset FOO rm -rf x", "rm"],
  ["xargs --max-args 1 rm -rf", "rm"],
  ["nice --adjustment 5 rm -rf x", "rm"],
  ["\\time -f %e rm -rf x", "rm"],
  ["setsid rm -rf x", "rm"],
  ["stdbuf -o L rm -rf x", "rm"],
  ["ionice -c 3 rm -rf x", "rm"],
  ["chrt -o 0 rm -rf x", "rm"],
  ["taskset 0x1 rm -rf x", "rm"],
  ["flock lk rm -rf x", "rm"],
  ["flock lk -c 'rm -rf x'", "rm"],
  ["cat <<EOF\nhi\nEOF\nrm -rf victim", "rm"],
  ["cat <<EOF\n$(touch pw)\nEOF", "touch"],
  ["cat <<EOF\nEO\\\nF\nrm -rf victim\nEOF", "rm"],
  ["case a in a) ;; esac; rm -rf victim", "rm"],
  ["case a in a) rm -rf victim;; esac", "rm"],
  [`echo ${"$(".repeat(52)}rm -rf victim${")".repeat(52)}`, "rm"],
  [`${"env ".repeat(55)}rm -rf victim`, "rm"],
  // and more that a bash-like reader misses
  ["{fd}>/dev/null rm -rf victim", "rm"],
  ["hash -p ../bin/rm ls; ls -rf victim", "rm"],
  ["history -s 'rm -rf victim'; fc -s rm", "rm"],
  ["mapfile -C 'rm -rf victim' -c 1 <<< x", "rm"],
  ["PS4='$(rm -rf victim)'; set -x; :", "rm"],
  ['x=PS4; export "$x=\\$(rm -rf victim)"; set -x; :', "rm"],
  ["BASH_ENV=<(echo rm -rf victim) bash -c :", "rm"],
  ["env 'BASH_FUNC_pa%%=() { rm -rf victim; }' bash -c pa", "rm"],
];

// What it proves is the reader against bash, not what a Node version does: CI's floor leg leaves it
// out, as it does the rules battery (decision 0062).
describe.runIf(BASH !== undefined && testLeg() !== "floor")(
  "what bash runs, the reader reads",
  () => {
    test.each(FOUND)(
      "%j runs %s, and the reader sees it or calls the line unchecked",
      (text, runs) => {
        const ran = ranInBash(text);
        const first = commandName([text.replace(/^\\/, "").split(" ")[0] ?? ""]);
        if (HAVE.has(first) || !Object.hasOwn(WRAPPER_OPTIONS, first)) expect(ran).toContain(runs);
        expect(unread(text, ran)).toEqual([]);
      },
    );

    test.each(SEEDS)(
      "generated commands, %s",
      (_name, seed) => {
        let ranChecked = 0;
        fc.assert(
          fc.property(list, (text) => {
            const ran = ranInBash(text);
            if (ran.length > 0 && parseCommand(text).unchecked.length === 0) ranChecked++;
            expect(unread(text, ran)).toEqual([]);
          }),
          { seed, numRuns: RUNS },
        );
        // The generator makes lines that run programs and that the reader reads through.
        expect(ranChecked).toBeGreaterThan(RUNS / 4);
      },
      120_000,
    );
  },
);

// The reader's contract as a table: each input, the simple commands it must yield (in order)
// and the reasons it must give for what it could not read (none: the input is checked).
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${…}` here is shell text, not a template
import { describe, expect, test } from "vitest";
import { guard } from "../src/permissions.ts";
import { commandName, parseCommand, withoutWrappers } from "../src/shell-words.ts";

// [what it shows, input, the commands' words, the unchecked reasons]
const table: [string, string, string[][], string[]][] = [
  // operators
  [
    "&& joins two commands",
    "git status && rm -rf x",
    [
      ["git", "status"],
      ["rm", "-rf", "x"],
    ],
    [],
  ],
  ["|| joins two commands", "a || b", [["a"], ["b"]], []],
  ["; joins two commands", "a; b", [["a"], ["b"]], []],
  ["operators need no spaces", "a;b&&c||d|e", [["a"], ["b"], ["c"], ["d"], ["e"]], []],
  [
    "a pipe",
    "cat f | wc -l",
    [
      ["cat", "f"],
      ["wc", "-l"],
    ],
    [],
  ],
  ["|& pipes stderr too", "make |& tee log", [["make"], ["tee", "log"]], []],
  ["& runs in the background", "a & b", [["a"], ["b"]], []],
  ["a trailing &", "a &", [["a"]], []],
  ["a newline", "a\nb", [["a"], ["b"]], []],
  ["blank lines and indentation", "\n\n  a\n\t b  \n", [["a"], ["b"]], []],
  ["a pipe continued on the next line", "a |\n  b", [["a"], ["b"]], []],
  ["&& continued on the next line", "a &&\n b", [["a"], ["b"]], []],
  ["! negates a pipeline", "! a | b", [["a"], ["b"]], []],
  ["a stray ;; reads as two ;", "a;; b", [["a"], ["b"]], []],
  // subshells and groups
  ["a subshell", "(a; b)", [["a"], ["b"]], []],
  ["nested subshells", "( (a) )", [["a"]], []],
  ["a group", "{ a; b; }", [["a"], ["b"]], []],
  ["a group without a space before (", "{(a)}", [["a"]], []],
  ["a subshell in a pipeline", "(a) | b", [["a"], ["b"]], []],
  ["redirects after a group", "{ a; } > out", [["a"], []], []],
  // substitutions: inner commands come first
  ["$(…)", "echo $(a)", [["a"], ["echo", "$(a)"]], []],
  [
    "$(…) in double quotes",
    'echo "$(a b)"',
    [
      ["a", "b"],
      ["echo", "$(a b)"],
    ],
    [],
  ],
  ["$(…) inside a word", 'echo "x$(a)y"', [["a"], ["echo", "x$(a)y"]], []],
  ["backquotes", "echo `a`", [["a"], ["echo", "`a`"]], []],
  ["backquotes in double quotes", 'echo "`a`"', [["a"], ["echo", "`a`"]], []],
  ["nested $(…)", "echo $(a $(b))", [["b"], ["a", "$(b)"], ["echo", "$(a $(b))"]], []],
  ["nested backquotes", "echo `a \\`b\\``", [["b"], ["a", "`b`"], ["echo", "`a \\`b\\``"]], []],
  ["two substitutions in order", "echo $(a) $(b)", [["a"], ["b"], ["echo", "$(a)", "$(b)"]], []],
  [
    "a quote inside $(…) inside quotes",
    'echo "$(echo ")")"',
    [
      ["echo", ")"],
      ["echo", '$(echo ")")'],
    ],
    [],
  ],
  ["a subshell inside $(…)", "echo $( (a) )", [["a"], ["echo", "$( (a) )"]], []],
  ["<(…) process substitution", "diff <(a) <(b)", [["a"], ["b"], ["diff", "<(a)", "<(b)"]], []],
  [">(…) process substitution", "a > >(b)", [["b"], ["a"]], []],
  ["<(…) in double quotes is text", 'echo "<(a)"', [["echo", "<(a)"]], []],
  ["$(…) in ${…}", "echo ${x:-$(a)}", [["a"], ["echo", "${x:-$(a)}"]], []],
  [
    "$(…) in ${…} in double quotes",
    'echo "${x:-`a`}"',
    [["a"], ["echo", "${x:-`a`}"]],
    ["a parameter operator inside double quotes"],
  ],
  ["a quoted } in ${…}", "echo ${x:-'}'} b", [["echo", "${x:-'}'}", "b"]], []],
  // quoting
  ["double and single quotes", "\"git\" 'push'", [["git", "push"]], []],
  ["quotes and escapes inside a word", 'g"i"t pu\\sh', [["git", "push"]], []],
  ["single quotes keep everything", "echo 'a \"b\" $c `d`'", [["echo", 'a "b" $c `d`']], []],
  [
    "escapes inside double quotes",
    'echo "a \\"b\\" \\\\ \\$c \\`d\\` \\n"',
    [["echo", 'a "b" \\ $c `d` \\n']],
    [],
  ],
  ["$'…' ANSI-C quotes", "echo $'a\\tb\\x41\\101\\u00e9\\''", [["echo", "a\tbAAé'"]], []],
  ["$'…' as the command name", "$'\\x72m' -rf x", [["rm", "-rf", "x"]], []],
  ['$"…" is a double quote', 'echo $"hi $(a)"', [["a"], ["echo", "hi $(a)"]], []],
  ["an escaped space", "echo a\\ b", [["echo", "a b"]], []],
  ["an escaped ;", "echo a\\; b", [["echo", "a;", "b"]], []],
  ["empty quotes are a word", "echo '' \"\"", [["echo", "", ""]], []],
  ["a quote in single quotes", "echo 'it'\\''s'", [["echo", "it's"]], []],
  ["a line continuation inside a word", "echo a\\\nb", [["echo", "ab"]], []],
  ["a line continuation inside the name", "ec\\\nho x", [["echo", "x"]], []],
  ["a line continuation between words", "echo x \\\n  y", [["echo", "x", "y"]], []],
  ["a line continuation in double quotes", 'echo "a\\\nb"', [["echo", "ab"]], []],
  [
    "variables stay as written",
    'echo $HOME/x "$USER" ${A} $1 $@',
    [["echo", "$HOME/x", "$USER", "${A}", "$1", "$@"]],
    [],
  ],
  // comments
  ["a comment ends the command", "echo a # rm -rf x", [["echo", "a"]], []],
  ["# inside a word is no comment", "echo a#b", [["echo", "a#b"]], []],
  ["a comment line", "# only a comment", [], []],
  ["a comment after ;", "echo a;# b\nc", [["echo", "a"], ["c"]], []],
  ["a comment does not continue with \\", "# c \\\nd", [["d"]], []],
  // redirects
  ["a redirect to a file outside", "echo x > ../out.txt", [["echo", "x"]], []],
  ["2>&1 in a pipeline", "cmd 2>&1 | tee log", [["cmd"], ["tee", "log"]], []],
  ["a redirect with no command", "> out", [[]], []],
  ["exec with only redirects", "exec > log 2>&1", [["exec"]], []],
  ["redirects on both sides", "< in cat > out", [["cat"]], []],
  ["a here-string with $(…)", 'grep x <<< "$(a)"', [["a"], ["grep", "x"]], []],
  ["a redirect target with $(…)", "echo x >$(a)", [["a"], ["echo", "x"]], []],
  ["digits before > only as a whole word", "echo a2>f b", [["echo", "a2", "b"]], []],
  ["a number word then a redirect", "echo 2 >f", [["echo", "2"]], []],
  ["&> and >|", "cmd &> all.log >| f", [["cmd"]], []],
  ["closing an fd", "exec 3>&-", [["exec"]], []],
  // assignments
  ["assignments before a command", 'FOO=1 BAR="a b" cmd x', [["cmd", "x"]], []],
  ["an assignment's $(…) runs", "FOO=$(a) cmd", [["a"], ["cmd"]], []],
  // a command with no words: it sets a variable for the commands after it (`PATH=.; npm test`)
  ["only an assignment", "X=1", [[]], []],
  ["only an assignment with $(…)", "X=$(a)", [["a"], []], []],
  ["X=1 after the command is a word", "cmd X=1", [["cmd", "X=1"]], []],
  // reserved words
  [
    "if, elif, else",
    "if a; then b; elif c; then d; else e; fi",
    [["a"], ["b"], ["c"], ["d"], ["e"]],
    [],
  ],
  ["if on several lines", "if a\nthen\n  b\nfi", [["a"], ["b"]], []],
  ["while", "while a; do b; done", [["a"], ["b"]], []],
  ["until", "until a; do b; done", [["a"], ["b"]], []],
  [
    "a loop in a pipeline",
    "while read l; do a; done < f | b",
    [["read", "l"], ["a"], [], ["b"]],
    [],
  ],
  ["reserved words as arguments", "echo if then fi {", [["echo", "if", "then", "fi", "{"]], []],
  ["a quoted reserved word is a command", '"if" x', [["if", "x"]], []],
  ["[ is a command", "[ -f a ] && b", [["[", "-f", "a", "]"], ["b"]], []],
  ["time is a wrapper", "time -p a | b", [["time", "-p", "a"], ["b"]], []],
  // command names
  ["a path to rm", "/bin/rm -rf x", [["/bin/rm", "-rf", "x"]], []],
  ["./rm", "./rm -rf x", [["./rm", "-rf", "x"]], []],
  ["a bare --", "rm -- -rf", [["rm", "--", "-rf"]], []],
  ["-- as the command", "-- rm -rf x", [["--", "rm", "-rf", "x"]], []],
  [
    "quoted braces stay",
    'echo "{a,b}" \\{c,d\\} {x} {}',
    [["echo", "{a,b}", "{c,d}", "{x}", "{}"]],
    [],
  ],
  // here-documents: the body is text, where substitutions run unless the delimiter is quoted
  [
    "a here-document: its body's substitutions, then the commands after it",
    "cat <<EOF\nrm -rf x\n$(a) `b` \\$(c) '$(d)'\nEOF\necho done",
    [["cat"], ["a"], ["b"], ["d"], ["echo", "done"]],
    [],
  ],
  [
    "a here-document: the rest of its line comes before its body",
    "cat <<-'EOF' | b $(c)\n\t$(a)\n\tEOF\nd",
    [["cat"], ["c"], ["b", "$(c)"], ["d"]],
    [],
  ],
  [
    "a quoted delimiter in any spelling keeps the body text",
    "a <<\\E\n$(b)\nE\nc <<E'F'\n$(b)\nEF\nd",
    [["a"], ["c"], ["d"]],
    [],
  ],
  [
    "two here-documents on a line, bodies in order",
    "a <<X; b <<Y\n$(c)\nX\n$(d)\nY\ne",
    [["a"], ["b"], ["c"], ["d"], ["e"]],
    [],
  ],
  [
    "a line continued with \\ can make the delimiter line",
    "cat <<EOF\nEO\\\nF\nrm -rf x\nEOF",
    [["cat"], ["rm", "-rf", "x"], ["EOF"]],
    [],
  ],
  ["\\\\ at the end of a line continues nothing", "cat <<EOF\na\\\\\nEOF\nb", [["cat"], ["b"]], []],
  [
    "<<- strips the tabs before the delimiter, not spaces",
    "cat <<-EOF\n\t\tEOF\na\ncat <<-EOF\n  EOF\nEOF\nb",
    [["cat"], ["a"], ["cat"], ["b"]],
    [],
  ],
  [
    "a here-document started in $(…) ends in it",
    "a $(b <<EOF\n$(c)\nEOF\n) d",
    [["b"], ["c"], ["a", "$(b <<EOF\n$(c)\nEOF\n)", "d"]],
    [],
  ],
  [
    "a newline inside $(…) is not where the body starts",
    "cat <<EOF; echo $(a\n)\n$(b)\nEOF\nc",
    [["cat"], ["a"], ["echo", "$(a\n)"], ["b"], ["c"]],
    [],
  ],
  [
    "a here-document with no delimiter line runs to the end",
    "cat <<EOF\n$(a)\nb",
    [["cat"], ["a"]],
    [],
  ],
  // case: the word, the patterns and every item's commands
  [
    "case: each item's commands, and what follows",
    "case $(a) in b|$(c)) d;; (e) f; g;& *) h;;& esac; i",
    [["a"], ["c"], ["d"], ["f"], ["g"], ["h"], ["i"]],
    [],
  ],
  ["case on several lines", "case x in\n  a)\n    b\n    ;;\nesac", [["b"]], []],
  ["an empty case", "case x in esac; a", [["a"]], []],
  ["esac as an argument", "case x in x) echo esac;; esac", [["echo", "esac"]], []],
  ["case without in", "case x y) a;; esac", [], ["case"]],
  ["an unclosed case", "case x in x) a;;", [["a"]], ['a missing "esac"']],
  // what is never auto-allowed
  ["a variable as the name", "$CMD x", [["$CMD", "x"]], ["an expansion as the command name"]],
  [
    "${…} as the name",
    "${X:-rm} -rf x",
    [["${X:-rm}", "-rf", "x"]],
    ["an expansion as the command name"],
  ],
  [
    "$(…) as the name",
    "$(which rm) -rf x",
    [
      ["which", "rm"],
      ["$(which rm)", "-rf", "x"],
    ],
    ["an expansion as the command name"],
  ],
  [
    "a glob as the name",
    "/bin/r? -rf x",
    [["/bin/r?", "-rf", "x"]],
    ["an expansion as the command name"],
  ],
  [
    "a variable behind a wrapper",
    "env $CMD",
    [["env", "$CMD"]],
    ["an expansion as the command name"],
  ],
  ["brace expansion", "{rm,-rf,x}", [["{rm,-rf,x}"]], ["brace expansion"]],
  ["braces and sequences", "echo {a,b}{1..2}", [["echo", "{a,b}{1..2}"]], ["brace expansion"]],
  ["an empty brace choice", 'echo a{,"b"}', [["echo", "a{,b}"]], ["brace expansion"]],
  ["eval", 'eval "rm -rf x"', [["eval", "rm -rf x"]], ["eval"]],
  ["eval behind a wrapper", "command eval x", [["command", "eval", "x"]], ["eval"]],
  ["source", "source ./env.sh", [["source", "./env.sh"]], ["source"]],
  [". is source", ". ./env.sh", [[".", "./env.sh"]], ["source"]],
  ["trap", "trap 'a' EXIT", [["trap", "a", "EXIT"]], ["trap"]],
  ["sh -c without its text", "sh -c", [["sh", "-c"]], ["a shell reading its script from stdin"]],
  [
    "a shell reading its script from stdin",
    "echo x | sh",
    [["echo", "x"], ["sh"]],
    ["a shell reading its script from stdin"],
  ],
  [
    "a for loop: its header reads as a command",
    'for f in $(ls); do rm "$f"; done',
    [["ls"], ["f", "in", "$(ls)"], ["rm", "$f"]],
    ["for"],
  ],
  [
    "case inside $(…)",
    "echo $(case a in a) b;; esac) c",
    [["b"], ["echo", "$(case a in a) b;; esac)", "c"]],
    [],
  ],
  ["a function definition", "f() { a; }; f", [["f"], ["a"], ["f"]], ["function"]],
  ["the function keyword", "function f { a; }", [["a"]], ["function"]],
  ["coproc", "coproc a", [["a"]], ["coproc"]],
  ["[[ … ]]", "[[ -f a ]] && b", [["[[", "-f", "a", "]]"], ["b"]], ["[["]],
  [
    "an array",
    "arr=(a $(b)) cmd",
    [[], ["b"], ["a", "$(b)"], ["cmd"]],
    ["a parenthesis inside a command"],
  ],
  [
    "arithmetic",
    "echo $((x + 1))",
    [
      ["x", "+", "1"],
      ["echo", "$((x + 1))"],
    ],
    ["arithmetic"],
  ],
  ["an arithmetic command", "(( i++ ))", [["i++"]], ["arithmetic"]],
  // `&>` before `(` is no redirect the reader knows: it used to loop there for ever, growing a list.
  // expansions that evaluate text again, where `x='a[$(cmd)]'` runs cmd, or assign
  [
    "${!x} is indirection",
    "echo ${!x} ${!} ${#x}",
    [["echo", "${!x}", "${!}", "${#x}"]],
    ["indirection"],
  ],
  [
    "${x@P} is a transformation",
    "echo ${x@P}",
    [["echo", "${x@P}"]],
    ["a parameter transformation"],
  ],
  [
    "${x:1} is arithmetic",
    "echo ${x:1} ${@:2:1}",
    [["echo", "${x:1}", "${@:2:1}"]],
    ["arithmetic"],
  ],
  ["${a[i]} is arithmetic", "echo ${a[i]}", [["echo", "${a[i]}"]], ["arithmetic"]],
  [
    "${a[@]} and ${a[0]} are not",
    'echo ${a[@]} "${a[0]}" ${#a[*]}',
    [["echo", "${a[@]}", "${a[0]}", "${#a[*]}"]],
    [],
  ],
  ["$[…] is arithmetic", "echo $[x + $(a)]", [["a"], ["echo", "$[x + $(a)]"]], ["arithmetic"]],
  [
    "${x:=…} assigns",
    ": ${x:='a[$(a)]'} ${y=b}",
    [[":", "${x:='a[$(a)]'}", "${y=b}"]],
    ["an assignment in a parameter expansion"],
  ],
  [
    "single quotes in a quoted ${…} are text: its $(…) runs",
    `echo "\${x:-'$(a)'}" \${x:-'$(b)'}`,
    [["a"], ["echo", "${x:-'$(a)'}", "${x:-'$(b)'}"]],
    ["a parameter operator inside double quotes"],
  ],
  [
    'a quoted ${…} with "…" inside',
    'echo "${x:-"$(a)"}"',
    [["a"], ["echo", '${x:-"$(a)"}']],
    ["a parameter operator inside double quotes"],
  ],
  [
    "${ cmd; } is unknown",
    "echo ${ a; }",
    [["echo", "${ a; }"]],
    ["an unknown parameter expansion"],
  ],
  [
    "a subscript in a name a builtin takes",
    "read 'a[$(b)]'; printf -v 'c[x]' y",
    [
      ["read", "a[$(b)]"],
      ["printf", "-v", "c[x]", "y"],
    ],
    ["arithmetic", "indirection"],
  ],
  ["declare -i", "declare -i y=x", [["declare", "-i", "y=x"]], ["arithmetic"]],
  ["declare -n", "declare -n r=x", [["declare", "-n", "r=x"]], ["indirection"]],
  ["a name in a variable", 'export "$x=1"', [["export", "$x=1"]], ["indirection"]],
  [
    "variables bash runs",
    "PS4='$(a)' b; env BASH_ENV=f c; export ENV=g; read PS4",
    [["b"], ["env", "BASH_ENV=f", "c"], ["export", "ENV=g"], ["read", "PS4"]],
    ["a variable bash runs"],
  ],
  [
    "a function in the environment",
    "env 'BASH_FUNC_a%%=() { b; }' c",
    [["env", "BASH_FUNC_a%%=() { b; }", "c"]],
    ["a variable bash runs"],
  ],
  [
    "hash -p names another program",
    "hash -p /bin/rm ls",
    [["hash", "-p", "/bin/rm", "ls"]],
    ["hash"],
  ],
  ["fc runs history", "fc -s a", [["fc", "-s", "a"]], ["fc"]],
  ["mapfile -C runs text", "mapfile -C 'a' b", [["mapfile", "-C", "a", "b"]], ["eval"]],
  [
    "an option a wrapper does not know",
    "nice --frob rm x",
    [["nice", "--frob", "rm", "x"]],
    ["an unknown nice option"],
  ],
  [
    "an ambiguous prefix of a long option",
    "env --i rm",
    [["env", "--i", "rm"]],
    ["an unknown env option"],
  ],
  ["env -S splits by rules of its own", "env -S 'a b'", [["env", "-S", "a b"]], ["env -S"]],
  ["{fd}> is a redirect", "{fd}>/dev/null rm -rf x", [["rm", "-rf", "x"]], []],
  ["&>( stops the reader", "echo hi &>(cat); rm x", [["echo", "hi"]], ['an unexpected "&"']],
  ["an unbalanced single quote", "echo 'oops", [["echo", "oops"]], ["unbalanced quote"]],
  ["an unbalanced double quote", 'echo "oops', [["echo", "oops"]], ["unbalanced quote"]],
  ["an unbalanced $'", "echo $'oops", [["echo", "oops"]], ["unbalanced quote"]],
  ["an unclosed $(", "echo $(a", [["a"], ["echo", "$(a"]], ['a missing ")"']],
  ["an unclosed subshell", "(a", [["a"]], ['a missing ")"']],
  ["a stray )", "a)", [["a"]], ['an unexpected ")"']],
  ["an unclosed backquote", "echo `a", [["a"], ["echo", "`a"]], ["unbalanced backquote"]],
  ["an unclosed ${", "echo ${a", [["echo", "${a"]], ["unbalanced braces"]],
  ["an unclosed group", "{ a", [["a"]], ['a missing "}"']],
  ["an if without fi", "if a; then b", [["a"], ["b"]], ['a missing "fi"']],
  ["a stray fi", "a; fi", [["a"]], ['an unexpected "fi"']],
  ["a redirect without a target: bash refuses it", "a >", [["a"]], []],
];

describe("parseCommand", () => {
  test.each(table)("%s", (_what, input, expected, unchecked) => {
    const parsed = parseCommand(input);
    expect(parsed.commands.map((command) => command.words)).toEqual(expected);
    expect(parsed.unchecked).toEqual(unchecked);
  });

  test("the table covers at least 80 inputs", () => {
    expect(table.length).toBeGreaterThanOrEqual(80);
  });

  test("a brace check over 300,000 commas takes one pass", () => {
    // A pattern that backtracked took minutes here; this test's own timeout is the bound.
    const parsed = parseCommand(`echo {${",".repeat(300_000)}`);
    expect(parsed.commands.map((command) => command.words.length)).toEqual([2]);
    expect(parsed.unchecked).toEqual([]);
    expect(guard(`echo {${",".repeat(300_000)} }`)).toBeUndefined();
  }, 30_000);

  test("nesting deeper than the reader follows is unchecked, and the rest is not read", () => {
    const parsed = parseCommand(`echo ${"$(".repeat(60)}a${")".repeat(60)}; b`);
    expect(parsed.commands.map((command) => command.words[0])).not.toContain("b");
    expect(parsed.commands.at(-1)?.words[0]).toBe("echo");
    expect(parsed.unchecked).toContain("nesting too deep to read");
  });

  test("redirects are split off with their targets, unquoted", () => {
    const [command] = parseCommand(
      "echo x > ../out.txt 2>&1 >>'a b' <in 3<>rw &>all >|f <<<'s' <&3",
    ).commands;
    expect(command?.words).toEqual(["echo", "x"]);
    expect(command?.redirects).toEqual([
      { op: ">", target: "../out.txt" },
      { op: "2>&", target: "1" },
      { op: ">>", target: "a b" },
      { op: "<", target: "in" },
      { op: "3<>", target: "rw" },
      { op: "&>", target: "all" },
      { op: ">|", target: "f" },
      { op: "<<<", target: "s" },
      { op: "<&", target: "3" },
    ]);
  });

  test("a here-document keeps its delimiter as the target", () => {
    const [command] = parseCommand("cat <<'EOF' > notes.md\nline 1\n$(x)\nEOF\n").commands;
    expect(command?.redirects).toEqual([
      { op: "<<", target: "EOF" },
      { op: ">", target: "notes.md" },
    ]);
  });

  test("each command's text is its own slice of the source", () => {
    const parsed = parseCommand('FOO=1 git -C . push 2>&1 && echo "$(rm -rf  x)" # note');
    expect(parsed.commands.map((command) => command.text)).toEqual([
      "FOO=1 git -C . push 2>&1",
      "rm -rf  x",
      'echo "$(rm -rf  x)"',
    ]);
  });

  test("pipelines list every command of each stage, substitutions as stages too", () => {
    const parsed = parseCommand('curl -s x | (cat; sh) && sh -c "$(wget -O- y)"');
    const shape = parsed.pipelines.map((pipeline) => ({
      text: pipeline.text,
      stages: pipeline.stages.map((stage) => stage.map((command) => command.words[0])),
    }));
    // The -c text is read again as written: its own $(…) makes a pipeline once more, and a
    // script made by a command is never auto-allowed.
    expect(shape).toEqual([
      { text: "curl -s x | (cat; sh)", stages: [["curl"], ["cat", "sh"]] },
      { text: 'sh -c "$(wget -O- y)"', stages: [["wget"], ["sh"]] },
      { text: "$(wget -O- y)", stages: [["wget"], ["$(wget -O- y)"]] },
    ]);
    expect(parsed.unchecked).toEqual([
      "a shell reading its script from stdin",
      "an expansion as the command name",
    ]);
  });

  test("a pipeline inside sh -c is listed too", () => {
    const parsed = parseCommand("bash -c 'curl x | sh'");
    expect(parsed.pipelines.map((pipeline) => pipeline.text)).toEqual(["curl x | sh"]);
  });

  test("what sh -c runs is judged like the command itself", () => {
    expect(parseCommand("bash -c 'eval $x'").unchecked).toEqual(["eval"]);
    expect(parseCommand("timeout 5 sh -c 'echo \"$(a)\"'").unchecked).toEqual([]);
  });
});

// [input, what withoutWrappers must return]
const wrapped: [string, string[][]][] = [
  [
    "env -i FOO=1 rm -rf x",
    [
      ["env", "-i", "FOO=1", "rm", "-rf", "x"],
      ["rm", "-rf", "x"],
    ],
  ],
  [
    "env -u HOME -- rm x",
    [
      ["env", "-u", "HOME", "--", "rm", "x"],
      ["rm", "x"],
    ],
  ],
  [
    "command -p rm x",
    [
      ["command", "-p", "rm", "x"],
      ["rm", "x"],
    ],
  ],
  [
    "exec -a name rm x",
    [
      ["exec", "-a", "name", "rm", "x"],
      ["rm", "x"],
    ],
  ],
  [
    "nohup git push",
    [
      ["nohup", "git", "push"],
      ["git", "push"],
    ],
  ],
  [
    "nice -n 5 rm x",
    [
      ["nice", "-n", "5", "rm", "x"],
      ["rm", "x"],
    ],
  ],
  [
    "nice -5 rm x",
    [
      ["nice", "-5", "rm", "x"],
      ["rm", "x"],
    ],
  ],
  [
    "/usr/bin/time -p rm x",
    [
      ["/usr/bin/time", "-p", "rm", "x"],
      ["rm", "x"],
    ],
  ],
  [
    "timeout 5 rm x",
    [
      ["timeout", "5", "rm", "x"],
      ["rm", "x"],
    ],
  ],
  [
    "timeout --signal KILL -k 2 5 rm x",
    [
      ["timeout", "--signal", "KILL", "-k", "2", "5", "rm", "x"],
      ["rm", "x"],
    ],
  ],
  [
    "xargs rm -rf",
    [
      ["xargs", "rm", "-rf"],
      ["rm", "-rf"],
    ],
  ],
  [
    "xargs -0 -I {} rm {}",
    [
      ["xargs", "-0", "-I", "{}", "rm", "{}"],
      ["rm", "{}"],
    ],
  ],
  [
    "env nice -n 5 rm x",
    [
      ["env", "nice", "-n", "5", "rm", "x"],
      ["nice", "-n", "5", "rm", "x"],
      ["rm", "x"],
    ],
  ],
  ["sh -c 'a; b | c'", [["sh", "-c", "a; b | c"], ["a"], ["b"], ["c"]]],
  [
    "bash -lc 'git push'",
    [
      ["bash", "-lc", "git push"],
      ["git", "push"],
    ],
  ],
  ["bash -o pipefail -c x", [["bash", "-o", "pipefail", "-c", "x"], ["x"]]],
  ["bash script.sh", [["bash", "script.sh"]]],
  ["sh -c -e -- x", [["sh", "-c", "-e", "--", "x"], ["x"]]],
  ["bash +o history -c x", [["bash", "+o", "history", "-c", "x"], ["x"]]],
  [
    "zsh -c 'env rm x'",
    [
      ["zsh", "-c", "env rm x"],
      ["env", "rm", "x"],
      ["rm", "x"],
    ],
  ],
  [
    "timeout 5 sh -c 'nice rm x'",
    [
      ["timeout", "5", "sh", "-c", "nice rm x"],
      ["sh", "-c", "nice rm x"],
      ["nice", "rm", "x"],
      ["rm", "x"],
    ],
  ],
  // Each wrapper's own options: values after `=`, in the next word or attached, long ones by a
  // prefix of one; then its operands.
  [
    "env -u A --unset=B --un C -C /tmp -iv - D=1 ./e=f rm x",
    [
      [
        "env",
        "-u",
        "A",
        "--unset=B",
        "--un",
        "C",
        "-C",
        "/tmp",
        "-iv",
        "-",
        "D=1",
        "./e=f",
        "rm",
        "x",
      ],
      ["rm", "x"],
    ],
  ],
  [
    "env -S'rm -rf' x",
    [
      ["env", "-Srm -rf", "x"],
      ["rm", "-rf", "x"],
    ],
  ],
  [
    "env --split-string='-u A rm' x",
    [
      ["env", "--split-string=-u A rm", "x"],
      ["rm", "x"],
    ],
  ],
  [
    "nice --adjustment 5 rm x",
    [
      ["nice", "--adjustment", "5", "rm", "x"],
      ["rm", "x"],
    ],
  ],
  [
    "nice --adj 5 -n5 --5 rm x",
    [
      ["nice", "--adj", "5", "-n5", "--5", "rm", "x"],
      ["rm", "x"],
    ],
  ],
  [
    "xargs --max-args 1 -I{} -i rm {}",
    [
      ["xargs", "--max-args", "1", "-I{}", "-i", "rm", "{}"],
      ["rm", "{}"],
    ],
  ],
  ["xargs -e -l -n 1 rm", [["xargs", "-e", "-l", "-n", "1", "rm"], ["rm"]]],
  [
    "time -f %e -o t rm x",
    [
      ["time", "-f", "%e", "-o", "t", "rm", "x"],
      ["rm", "x"],
    ],
  ],
  [
    "timeout -sKILL --kill-after=1 -- 5s rm x",
    [
      ["timeout", "-sKILL", "--kill-after=1", "--", "5s", "rm", "x"],
      ["rm", "x"],
    ],
  ],
  [
    "setsid -w rm x",
    [
      ["setsid", "-w", "rm", "x"],
      ["rm", "x"],
    ],
  ],
  [
    "stdbuf -oL --error 0 rm x",
    [
      ["stdbuf", "-oL", "--error", "0", "rm", "x"],
      ["rm", "x"],
    ],
  ],
  [
    "ionice -c 3 -n7 rm x",
    [
      ["ionice", "-c", "3", "-n7", "rm", "x"],
      ["rm", "x"],
    ],
  ],
  [
    "chrt -f 10 rm x",
    [
      ["chrt", "-f", "10", "rm", "x"],
      ["rm", "x"],
    ],
  ],
  [
    "chrt --other rm x",
    [
      ["chrt", "--other", "rm", "x"],
      ["rm", "x"],
    ],
  ],
  [
    "taskset -c 0-3 rm x",
    [
      ["taskset", "-c", "0-3", "rm", "x"],
      ["rm", "x"],
    ],
  ],
  [
    "taskset 0x3 rm x",
    [
      ["taskset", "0x3", "rm", "x"],
      ["rm", "x"],
    ],
  ],
  [
    "flock -n -w 5 lk rm x",
    [
      ["flock", "-n", "-w", "5", "lk", "rm", "x"],
      ["rm", "x"],
    ],
  ],
  [
    "flock lk -c 'rm -rf x'",
    [
      ["flock", "lk", "-c", "rm -rf x"],
      ["sh", "-c", "rm -rf x"],
      ["rm", "-rf", "x"],
    ],
  ],
  [
    "exec -cl -aname rm x",
    [
      ["exec", "-cl", "-aname", "rm", "x"],
      ["rm", "x"],
    ],
  ],
  [
    "command -p -- rm x",
    [
      ["command", "-p", "--", "rm", "x"],
      ["rm", "x"],
    ],
  ],
  // Not read on: what a wrapper does not know, and --help, which runs nothing.
  ["nice --frob rm x", [["nice", "--frob", "rm", "x"]]],
  ["env --i rm x", [["env", "--i", "rm", "x"]]],
  ["nohup --help rm x", [["nohup", "--help", "rm", "x"]]],
  // Not followed: eval's text is unchecked instead, and find -exec is beyond the seatbelt.
  ["eval 'a && b'", [["eval", "a && b"]]],
  ["find . -exec rm {} +", [["find", ".", "-exec", "rm", "{}", "+"]]],
];

describe("withoutWrappers", () => {
  test.each(wrapped)("%s", (input, expected) => {
    const [command] = parseCommand(input).commands;
    expect(withoutWrappers(command?.words ?? [])).toEqual(expected);
  });

  test.each([
    [["/bin/rm"], "rm"],
    [["./rm"], "rm"],
    [["rm"], "rm"],
    [["C:\\Program Files\\Git\\usr\\bin\\rm.exe"], "rm"],
    [[], ""],
  ])("commandName(%j) is %s", (input, expected) => {
    expect(commandName(input)).toBe(expected);
  });
});

// Forms that got past the permission checks of shipped agent CLIs, with what the reader yields
// and what the gate decides from it: what guard() says (a text: deny, in every mode) and whether
// `unchecked` is empty (if not: guard() judges every word of the text, and when no guard speaks
// the person is asked, even in bypassPermissions; if so and no guard speaks, the mode decides).
// [input, the commands' words, guard() says, unchecked is empty]
const bypasses: [string, string[][], string | undefined, boolean][] = [
  [
    "npm test && git push",
    [
      ["npm", "test"],
      ["git", "push"],
    ],
    "git push publishes commits",
    true,
  ],
  [
    "npm test; rm -rf dist",
    [
      ["npm", "test"],
      ["rm", "-rf", "dist"],
    ],
    "rm -rf deletes without asking",
    true,
  ],
  [
    "npm test\nrm -rf ~",
    [
      ["npm", "test"],
      ["rm", "-rf", "~"],
    ],
    "rm -rf deletes without asking",
    true,
  ],
  [
    "cat f | sudo tee /etc/hosts",
    [
      ["cat", "f"],
      ["sudo", "tee", "/etc/hosts"],
    ],
    "sudo runs as another user",
    true,
  ],
  [
    'echo "$(git push)"',
    [
      ["git", "push"],
      ["echo", "$(git push)"],
    ],
    "git push publishes commits",
    true,
  ],
  ["env git push", [["env", "git", "push"]], "git push publishes commits", true],
  ["GIT_DIR=.git git push", [["git", "push"]], "git push publishes commits", true],
  ["bash -c 'git push'", [["bash", "-c", "git push"]], "git push publishes commits", true],
  ["./rm -rf x", [["./rm", "-rf", "x"]], "rm -rf deletes without asking", true],
  ["/bin/rm -rf x", [["/bin/rm", "-rf", "x"]], "rm -rf deletes without asking", true],
  ["\\rm -rf x", [["rm", "-rf", "x"]], "rm -rf deletes without asking", true],
  ["r''m -rf x", [["rm", "-rf", "x"]], "rm -rf deletes without asking", true],
  ["rm -r -f x", [["rm", "-r", "-f", "x"]], "rm -rf deletes without asking", true],
  ["rm -rvf x", [["rm", "-rvf", "x"]], "rm -rf deletes without asking", true],
  ["rm -rf -- x", [["rm", "-rf", "--", "x"]], "rm -rf deletes without asking", true],
  ["git -C . push", [["git", "-C", ".", "push"]], "git push publishes commits", true],
  ['eval "git push"', [["eval", "git push"]], "git push publishes commits", false],
  ['bash -c "$CMD"', [["bash", "-c", "$CMD"]], undefined, false],
  ["{rm,-rf,x}", [["{rm,-rf,x}"]], "rm -rf deletes without asking", false],
  ["{r,x}m -rf x", [["{r,x}m", "-rf", "x"]], undefined, false],
  ["echo x > ../out.txt", [["echo", "x"]], undefined, true],
  ["rm -- -rf", [["rm", "--", "-rf"]], undefined, true],
  ['grep -c "git push" notes.md', [["grep", "-c", "git push", "notes.md"]], undefined, true],
];

describe("bypasses of shipped agent CLIs", () => {
  test.each(bypasses)("%j", (input, expected, says, checked) => {
    const parsed = parseCommand(input);
    expect(parsed.commands.map((command) => command.words)).toEqual(expected);
    if (says === undefined) expect(guard(input)).toBeUndefined();
    else expect(guard(input)).toMatch(`blocked: ${says} (in "`);
    expect(parsed.unchecked.length === 0).toBe(checked);
  });

  test("a redirect outside the folder keeps its target for the gate to judge", () => {
    const [command] = parseCommand("echo x > ../out.txt").commands;
    expect(command?.redirects).toEqual([{ op: ">", target: "../out.txt" }]);
  });
});

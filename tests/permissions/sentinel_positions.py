"""The positions where bash runs a program, as tables of text transformations: where the
sentinel can hide. `sentinel_commands.py` draws and combines them.

Each row is a tag (reported with a finding, so a bypass names its class) and a function from
the inner text to the outer. Rows come in three kinds, by what they take and give:

- `SIMPLE_ROWS` wrap a simple command in another (`timeout 1 S`, `find . -exec S ;`);
- `CODE_ROWS` put shell code somewhere it may run (`$(C)`, `${x:-$(C)}`, a heredoc to bash);
- `NAME_ROWS` put a word naming a program where an option takes one
  (`sort --compress-program=W`, `rg --pre W`).

`names` spells the sentinel's name in ways that all expand to it; `HARMLESS` are look-alikes
that never run it.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable

from .sentinel_sandbox import SENTINEL

Wrap = Callable[[str], str]

q = shlex.quote


def backticks(code: str) -> str:
    """`code` nested in backticks: inside them, backslashes and backticks are escaped once more."""
    return "`" + code.replace("\\", "\\\\").replace("`", "\\`") + "`"


def double_quoted(code: str) -> str:
    """`code` as the inside of a double-quoted string that gives `code` back."""
    return "".join("\\" + c if c in '\\"$`' else c for c in code)


def awk_string(code: str) -> str:
    return '"' + code.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def sed_replacement(code: str) -> str:
    return code.replace("\\", "\\\\").replace("/", "\\/").replace("&", "\\&").replace("\n", "\\n")


def heredoc(opening: str, body: str, closing: str = "") -> str:
    """A heredoc in braces, so that any text may follow it (`{ ...\\nEOF\\n} &`). The delimiter
    is numbered by the body's length, so nested heredocs never share one."""
    delimiter = f"EOF{len(body)}"
    head = opening.replace("DELIM", delimiter)
    return "{ " + head + "\n" + body + "\n" + delimiter + "\n" + closing + "}"


def names(bin_dir: str) -> list[tuple[str, str, str]]:
    """Spellings of the sentinel's name: (tag, setup code, the word in command position)."""
    s = SENTINEL
    return [
        ("plain", "", s),
        ("double-quotes-inside", "", f's"{s[1:3]}"{s[3:]}'),
        ("single-quotes-inside", "", f"'{s[:3]}'{s[3:]}"),
        ("leading-backslash", "", "\\" + s),
        ("inner-backslash", "", f"{s[:3]}\\{s[3:]}"),
        ("ansi-c-hex", "", "$'\\x73'" + s[1:]),
        ("ansi-c-octal", "", "$'\\163" + s[1:] + "'"),
        ("locale-string", "", f'$"{s}"'),
        ("empty-quotes", "", f"{s[:3]}''{s[3:]}"),
        ("line-continuation", "", f"{s[:3]}\\\n{s[3:]}"),
        ("absolute-path", "", f"{bin_dir}/{s}"),
        ("glob-path", "", f"{bin_dir}/{s[:6]}[e]l"),
        ("dot-dot-path", "", f"{bin_dir}/../bin/{s}"),
        ("variable", f"X={s}; ", "$X"),
        ("braced-variable", f"X={s}; ", '"${X}"'),
        ("default-value", "", "${X:-" + s + "}"),
        ("substring", f"X=x{s}; ", "${X:1}"),
        ("case-change", f"X={s.upper()}; ", "${X,,}"),
        ("pattern-replace", f"X={s.replace('e', 'E')}; ", "${X//E/e}"),
        ("indirect", f"X={s}; Y=X; ", "${!Y}"),
        ("array", f"A=(x {s}); ", "${A[1]}"),
        ("command-substitution", "", f"$(echo {s})"),
        ("backtick-substitution", "", f"`printf {s}`"),
        ("split-substitution", "", f"$(printf %s {s[:3]} {s[3:]})"),
        ("ifs-split", f"IFS=,; X={s},x; ", "$X"),
        ("brace-expansion", "", "{" + s + ",}"),
        ("brace-expansion-arg", "", "{" + s + ",x}"),
        ("brace-prefix", "", "{" + s[:3] + ",}" + s[3:]),
        ("brace-inner", "", s[0] + "{" + s[1] + ",}" + s[2:]),
        ("empty-variable-inside", "", s[:3] + "${Z}" + s[3:]),
        ("empty-variable-first", "", "$Z " + s),
        ("variable-name-prefix", f"{s}=1; ", "${!" + s[:4] + "*}"),
        ("associative-keys", f"declare -A K=([{s}]=1); ", "${!K[@]}"),
        ("transform-lower", f"X={s.upper()}; ", "${X@L}"),
        ("printf-v", f"printf -v X {s}; ", "$X"),
        ("read-variable", f"read X <<< {s}; ", "$X"),
        ("ansi-c-unicode", "", "$'\\u0073'" + s[1:]),
        ("tilde-path", "", f"~/../bin/{s}"),
        ("cd-relative", f"cd {bin_dir}; ", f"./{s}"),
        ("hash-p", f"hash -p {bin_dir}/{s} ls; ", "ls"),
    ]


HARMLESS = [
    ("echo-name", f"echo {SENTINEL}"),
    ("quoted-echo", "'echo' \"a\""),
    ("true", "true"),
    ("ls", "ls"),
    ("printf-name", f"printf '%s\\n' {SENTINEL}"),
    ("cat-file", "cat a.txt"),
    ("grep-name", f"grep -c {SENTINEL} a.txt"),
    ("test-name", f"test -n {SENTINEL}"),
    ("pwd", "pwd"),
]

ARGS = ["", " x", " --help", " $(echo a)", " 'a b'"]

_CONTROL = ["\r", "\v", "\f", "\x01", "\x1b"]


def _simple_rows() -> list[tuple[str, Wrap]]:
    """Wrappers: a simple command that runs the simple command given."""
    return [
        ("timeout", lambda s: f"timeout 1 {s}"),
        ("timeout-options", lambda s: f"timeout -k 1 -s KILL 2 {s}"),
        ("nice", lambda s: f"nice {s}"),
        ("nice-n", lambda s: f"nice -n 1 -- {s}"),
        ("nohup", lambda s: f"nohup {s}"),
        ("env", lambda s: f"env {s}"),
        ("env-assign", lambda s: f"env -u HOME Y=1 {s}"),
        ("env-S", lambda s: f"env -S {q(s)}"),
        ("env-S-joined", lambda s: f"env -S{q(s)}"),
        ("command", lambda s: f"command {s}"),
        ("command-dashdash", lambda s: f"command -- {s}"),
        ("builtin-command", lambda s: f"builtin command {s}"),
        ("exec", lambda s: f"exec {s}"),
        ("exec-a", lambda s: f"exec -a name {s}"),
        ("stdbuf", lambda s: f"stdbuf -o0 {s}"),
        ("setsid", lambda s: f"setsid -w {s}"),
        ("time", lambda s: f"time {s}"),
        ("assignment-prefix", lambda s: f"Y=1 {s}"),
        ("redirect-first", lambda s: f"</dev/null {s}"),
        ("xargs", lambda s: f"xargs {s} </dev/null"),
        ("xargs-piped", lambda s: f"echo x | xargs {s}"),
        ("xargs-I", lambda s: f"echo x | xargs -I@ {s} @"),
        ("find-exec", lambda s: f"find . -maxdepth 0 -exec {s} \\;"),
        ("find-exec-plus", lambda s: f"find . -maxdepth 0 -exec {s} {{}} +"),
        ("find-execdir", lambda s: f"find . -maxdepth 0 -execdir {s} \\;"),
        ("find-exec-quoted-semicolon", lambda s: f"find . -maxdepth 0 -exec {s} ';'"),
        ("find-or-exec", lambda s: f"find . -name nomatch -o -exec {s} \\;"),
        ("exec-c", lambda s: f"exec -c {s}"),
        ("nice-old-style", lambda s: f"nice -1 {s}"),
        ("nice-long", lambda s: f"nice --adjustment 1 {s}"),
        ("timeout-long", lambda s: f"timeout --signal KILL --kill-after 1 1 {s}"),
        ("env-chdir", lambda s: f"env -C . {s}"),
        ("env-split-long", lambda s: f"env --split-string={q(s)}"),
        ("stdbuf-long", lambda s: f"stdbuf --output 0 {s}"),
        ("xargs-max-args", lambda s: f"xargs --max-args 1 {s} < a.txt"),
        ("usr-bin-time", lambda s: f"/usr/bin/time -p {s}"),
        ("flock", lambda s: f"flock .lock {s}"),
        ("ionice", lambda s: f"ionice -c 3 {s}"),
        ("taskset", lambda s: f"taskset -c 0 {s}"),
        ("chrt", lambda s: f"chrt -o 0 {s}"),
        ("prlimit", lambda s: f"prlimit --nofile=64 {s}"),
        ("setpriv", lambda s: f"setpriv --no-new-privs {s}"),
    ]


def _code_rows() -> list[tuple[str, Wrap]]:
    """Places where shell code runs; each gives code."""
    rows: list[tuple[str, Wrap]] = [
        # lists, groups, compound commands
        ("semicolon", lambda c: f"true; {c}"),
        ("and", lambda c: f"true && {c}"),
        ("or", lambda c: f"false || {c}"),
        ("pipe-to", lambda c: f"echo a | {c}"),
        ("pipe-from", lambda c: f"{c} | cat"),
        ("pipe-both", lambda c: f"{c} |& cat"),
        ("background", lambda c: f"{c} &"),
        ("newline", lambda c: f"true\n{c}"),
        ("subshell", lambda c: f"({c})"),
        ("group", lambda c: f"{{ {c}; }}"),
        ("negation", lambda c: f"! {c}"),
        ("time-group", lambda c: f"time {{ {c}; }}"),
        ("if-then", lambda c: f"if true; then {c}; fi"),
        ("if-condition", lambda c: f"if {c}; then :; fi"),
        ("while-condition", lambda c: f"while {c}; do break; done"),
        ("until-body", lambda c: f"until {c}; do break; done"),
        ("for-body", lambda c: f"for i in 1; do {c}; done"),
        ("arith-for-body", lambda c: f"for ((i=0;i<1;i++)); do {c}; done"),
        ("case-body", lambda c: f"case x in x) {c};; esac"),
        ("case-paren-body", lambda c: f"case x in (x) {c};; esac"),
        ("coproc", lambda c: f"coproc {{ {c}; }}; wait"),
        ("coproc-named", lambda c: f"coproc named {{ {c}; }}; wait"),
        # substitutions
        ("dollar-paren", lambda c: f"echo $({c})"),
        ("dollar-paren-quoted", lambda c: f'echo "$({c})"'),
        ("dollar-paren-command", lambda c: f"$({c})"),
        ("assign-substitution", lambda c: f"x=$({c})"),
        ("assign-before-command", lambda c: f"x=$({c}) true"),
        ("backticks", lambda c: f"echo {backticks(c)}"),
        ("backticks-quoted", lambda c: f'echo "{backticks(c)}"'),
        ("backticks-in-dollar-paren", lambda c: f"echo $(echo {backticks(c)})"),
        ("process-substitution-in", lambda c: f"cat <({c})"),
        ("process-substitution-colon", lambda c: f": <({c})"),
        ("process-substitution-out", lambda c: f"echo >({c})"),
        ("process-substitution-redirect", lambda c: f"true > >({c})"),
        ("for-words", lambda c: f"for i in $({c}); do :; done"),
        ("case-word", lambda c: f"case $({c}) in *) ;; esac"),
        ("case-pattern-substitution", lambda c: f"case x in $({c})) ;; esac"),
        ("local-assign", lambda c: f"f(){{ local x=$({c}); }}; f"),
        ("export-assign", lambda c: f"export x=$({c})"),
        ("redirect-target", lambda c: f'cat a.txt > "$({c})/dev/null"'),
        ("mid-word-hash", lambda c: f"echo a#$({c})"),
        ("comment", lambda c: f"echo a #$({c})"),
        # parameter expansion operands
        ("default", lambda c: f"echo ${{x:-$({c})}}"),
        ("default-quoted", lambda c: f'echo "${{x:-$({c})}}"'),
        # single quotes inside a double-quoted operand are literal: the substitution runs
        ("default-single-quoted", lambda c: f"echo \"${{x:-'$({c})'}}\""),
        ("alternate-single-quoted", lambda c: f"x=1; echo \"${{x:+'$({c})'}}\""),
        ("assign-default-single-quoted", lambda c: f"echo \"${{x:='{backticks(c)}'}}\""),
        ("heredoc-default-single-quoted", lambda c: heredoc("cat <<DELIM", f"${{x-'$({c})'}}")),
        ("default-unset-only", lambda c: f"echo ${{x-{backticks(c)}}}"),
        ("assign-default", lambda c: f": ${{x:=$({c})}}"),
        ("alternate", lambda c: f"x=1; echo ${{x:+$({c})}}"),
        ("error-message", lambda c: f"(: ${{x?$({c})}})"),
        ("prefix-removal", lambda c: f"x=1; echo ${{x#$({c})}}"),
        ("suffix-removal", lambda c: f"x=1; echo ${{x%%$({c})}}"),
        ("replace-pattern", lambda c: f"x=1; echo ${{x/$({c})/y}}"),
        ("replace-string", lambda c: f"x=1; echo ${{x//1/$({c})}}"),
        ("case-pattern", lambda c: f"x=a; echo ${{x^^$({c})}}"),
        ("offset", lambda c: f"x=abc; echo ${{x:$({c})}}"),
        ("length", lambda c: f"x=abc; echo ${{x:0:$({c})}}"),
        ("subscript-read", lambda c: f"a=(1); echo ${{a[$({c})]}}"),
        ("subscript-length", lambda c: f"a=(1); echo ${{#a[$({c})]}}"),
        ("prompt-expansion", lambda c: f"x={q('$(' + c + ')')}; echo ${{x@P}}"),
        ("ps4-xtrace", lambda c: f"PS4={q('$(' + c + ')')}; set -x; :"),
        # a variable's value evaluated as an arithmetic expression: its subscript runs
        ("indirect-subscript", lambda c: f"x={q('a[$(' + c + ')]')}; echo ${{!x}}"),
        ("arith-variable", lambda c: f"x={q('a[$(' + c + ')]')}; : $((x))"),
        ("arith-command-variable", lambda c: f"x={q('a[$(' + c + ')]')}; (( x ))"),
        ("let-variable", lambda c: f"x={q('a[$(' + c + ')]')}; let x"),
        ("test-compare-variable", lambda c: f"x={q('a[$(' + c + ')]')}; [[ $x -eq 0 ]]"),
        ("test-compare-name", lambda c: f"x={q('a[$(' + c + ')]')}; [[ x -eq 0 ]]"),
        ("subscript-variable", lambda c: f"x={q('a[$(' + c + ')]')}; a=(1); echo ${{a[x]}}"),
        ("offset-variable", lambda c: f"x={q('a[$(' + c + ')]')}; y=abc; echo ${{y:x}}"),
        ("declare-integer", lambda c: f"declare -i n; n={q('a[$(' + c + ')]')}"),
        # arithmetic and subscripts
        ("arith-expansion", lambda c: f"echo $(( $({c}) ))"),
        ("arith-old", lambda c: f"echo $[ $({c}) ]"),
        ("arith-command", lambda c: f"(( $({c}) ))"),
        ("arith-subscript", lambda c: f"(( a[$({c})] ))"),
        ("arith-expansion-subscript", lambda c: f": $(( a[$({c})] ))"),
        ("arith-for-init", lambda c: f"for ((i=$({c});0;)); do :; done"),
        ("let-subscript", lambda c: f"let {q('a[$(' + c + ')]=1')}"),
        ("let-substitution", lambda c: f'let "x=$({c})"'),
        ("test-subscript", lambda c: f"[[ a[$({c})] -eq 0 ]]"),
        ("test-string", lambda c: f"[[ $({c}) ]]"),
        ("test-v", lambda c: f"[[ -v a[$({c})] ]]"),
        ("test-builtin-v", lambda c: f"test -v {q('a[$(' + c + ')]')}"),
        ("declare-subscript", lambda c: f"declare {q('a[$(' + c + ')]=1')}"),
        ("printf-v-subscript", lambda c: f"printf -v {q('a[$(' + c + ')]')} %s x"),
        ("read-subscript", lambda c: f"read {q('a[$(' + c + ')]')} <<< x"),
        ("unset-subscript", lambda c: f"unset {q('a[$(' + c + ')]')}"),
        ("assign-subscript", lambda c: f"a[$({c})]=1"),
        ("compound-assign-subscript", lambda c: f"a=([$({c})]=1)"),
        ("nameref-assign", lambda c: f"declare -n r={q('a[$(' + c + ')]')}; r=1"),
        ("bracket-test-v", lambda c: f"[ -v {q('a[$(' + c + ')]')} ]"),
        # heredocs and here-strings
        ("heredoc-substitution", lambda c: heredoc("cat <<DELIM", f"$({c})")),
        ("heredoc-quoted", lambda c: heredoc("cat <<'DELIM'", f"$({c})")),
        ("heredoc-backslash-delim", lambda c: heredoc("cat <<\\DELIM", f"$({c})")),
        ("heredoc-dash", lambda c: heredoc("cat <<-DELIM", f"\t$({c})")),
        ("heredoc-lone-quote", lambda c: heredoc("cat <<DELIM", f"'$({c})")),
        ("heredoc-escaped-dollar", lambda c: heredoc("cat <<DELIM", f"\\$({c})")),
        ("heredoc-then-command", lambda c: heredoc(f"cat <<DELIM; {c}", "x")),
        ("heredoc-then-pipe", lambda c: heredoc(f"cat <<DELIM | {c}", "x")),
        ("heredoc-to-bash", lambda c: heredoc("bash <<'DELIM'", c)),
        ("heredoc-to-sh", lambda c: heredoc("sh <<'DELIM'", c)),
        ("heredoc-to-bash-unquoted", lambda c: heredoc("bash <<DELIM", c)),
        ("heredoc-to-source", lambda c: heredoc(". /dev/stdin <<'DELIM'", c)),
        ("heredoc-in-substitution", lambda c: "echo $(" + heredoc("cat <<DELIM", f"$({c})") + ")"),
        # delimiters that bash and a parser may end at different lines
        ("heredoc-quoted-part-delim", lambda c: f'cat <<"E"F\nx\nEF\n{c}'),
        ("heredoc-backslash-mid-delim", lambda c: f"cat <<E\\OF\nx\nEOF\n{c}"),
        ("heredoc-ansi-c-delim", lambda c: f"cat <<$'E'\nx\nE\n{c}"),
        ("heredoc-two-on-a-line", lambda c: f"cat <<A <<B\na\nA\nb\nB\n{c}"),
        ("heredoc-ends-in-paren", lambda c: f"x=$(cat <<E\nx\nE)\n{c}"),
        ("heredoc-tab-delim", lambda c: f"cat <<-E\n\tx\n\tE\n{c}"),
        ("heredoc-cr-delim", lambda c: f"cat <<E\nx\nE\r\n$({c})\nE"),
        ("heredoc-continued-line", lambda c: f"cat <<E\nx\nE \\\n$({c})\nE"),
        ("heredoc-double-backslash", lambda c: heredoc("cat <<DELIM", f"\\\\$({c})")),
        ("heredoc-unterminated", lambda c: f"cat <<E\n$({c})"),
        ("herestring-bash", lambda c: f"bash <<< {q(c)}"),
        ("herestring-sh", lambda c: f"sh <<< {q(c)}"),
        ("herestring-source", lambda c: f". /dev/stdin <<< {q(c)}"),
        ("source-process-substitution", lambda c: f"source <(echo {q(c)})"),
        ("pipe-to-bash", lambda c: f"echo {q(c)} | bash"),
        ("bash-from-process-substitution", lambda c: f"bash < <(printf '%s\\n' {q(c)})"),
        ("herestring-substitution", lambda c: f"cat <<< $({c})"),
        # code given to the shell as a string
        ("bash-c", lambda c: f"bash -c {q(c)}"),
        ("bash-c-arg0", lambda c: f"bash -c {q(c)} x"),
        ("sh-c", lambda c: f"sh -c {q(c)}"),
        ("bash-norc-c", lambda c: f"bash --norc -c {q(c)}"),
        ("bash-option-value", lambda c: f"bash -o errexit -c {q(c)}"),
        ("bash-bundled-c", lambda c: f"bash -ec {q(c)}"),
        ("bash-s", lambda c: f"bash -s <<< {q(c)}"),
        ("bash-dev-stdin", lambda c: f"bash /dev/stdin <<< {q(c)}"),
        ("bash-interactive-stdin", lambda c: f"bash -i <<< {q(c)}"),
        ("bash-rcfile", lambda c: f"bash --rcfile <(echo {q(c)}) -ic :"),
        ("bash-init-file", lambda c: f"bash --init-file <(echo {q(c)}) -i <<< :"),
        ("dash-c", lambda c: f"dash -c {q(c)}"),
        ("eval-dashdash", lambda c: f"eval -- {q(c)}"),
        ("trap-dashdash", lambda c: f"trap -- {q(c)} EXIT"),
        ("trap-zero", lambda c: f"trap {q(c)} 0"),
        ("eval", lambda c: f"eval {q(c)}"),
        ("eval-double-quoted", lambda c: f'eval "{double_quoted(c)}"'),
        ("builtin-eval", lambda c: f"builtin eval {q(c)}"),
        ("command-eval", lambda c: f"command eval {q(c)}"),
        ("trap-exit", lambda c: f"trap {q(c)} EXIT"),
        ("trap-err", lambda c: f"trap {q(c)} ERR; false"),
        ("trap-debug", lambda c: f"trap {q(c)} DEBUG; :"),
        ("function", lambda c: f"f(){{ {c}; }}; f"),
        ("function-keyword", lambda c: f"function f {{ {c}; }}; f"),
        ("function-subshell", lambda c: f"f()({c}); f"),
        ("function-shadows-echo", lambda c: f"echo(){{ {c}; }}; echo hi"),
        ("command-not-found", lambda c: f"command_not_found_handle(){{ {c}; }}; nosuchprogram"),
        ("alias", lambda c: f"shopt -s expand_aliases\nalias f={q(c)}\nf"),
        ("mapfile-callback", lambda c: f"mapfile -C {q(c + ' #')} -c 1 <<< x"),
        ("compgen-C", lambda c: f"compgen -C {q(c + ' #')} x"),
        ("script-c", lambda c: f"script -qc {q(c)} /dev/null"),
        ("ed-shell-escape", lambda c: f"ed -s a.txt <<< {q('!' + c)}"),
        ("vim-shell-escape", lambda c: f"vim -es -c {q('!' + c)} -c q"),
        ("split-filter", lambda c: f"split --filter={q(c + ' #')} a.txt"),
        ("ssh-proxy-command", lambda c: f"ssh -o ProxyCommand={q(c + ' #')} -o BatchMode=yes x"),
        ("zip-test-command", lambda c: f"zip -T -TT {q(c + ' #')} x.zip a.txt"),
        ("git-config-env", lambda c: f"X={q('!' + c)} git --config-env=alias.x=X x"),
        (
            "git-credential-helper",
            lambda c: (
                "printf 'protocol=https\\nhost=x\\n\\n' | "
                + f"git -c credential.helper={q('!' + c)} credential fill"
            ),
        ),
        ("sed-e-bare", lambda c: f"echo {q(c)} | sed e"),
        ("sed-e-address", lambda c: f"sed -n {q('/alpha/e ' + c)} a.txt"),
        ("sed-expression-long", lambda c: f"sed --expression={q('1e ' + c)} a.txt"),
        ("awk-variable", lambda c: f"awk -v c={q(c)} 'BEGIN{{system(c)}}'"),
        ("awk-system-space", lambda c: f"awk {q('BEGIN{system (' + awk_string(c) + ')}')}"),
        (
            "awk-program-file",
            lambda c: f"awk -f <(echo {q('BEGIN{system(' + awk_string(c) + ')}')})",
        ),
        ("xargs-sh-c", lambda c: f"echo x | xargs sh -c {q(c)}"),
        ("find-exec-sh-c", lambda c: f"find . -maxdepth 0 -exec sh -c {q(c)} \\;"),
        # options of allowed programs that run code
        ("git-alias", lambda c: f"git -c alias.x={q('!' + c)} x"),
        ("git-fsmonitor", lambda c: f"git -c core.fsmonitor={q(c + ' #')} status"),
        ("git-ssh-command", lambda c: f"git -c core.sshCommand={q(c + ' #')} ls-remote ssh://h/x"),
        ("awk-system", lambda c: f"awk {q('BEGIN{system(' + awk_string(c) + ')}')}"),
        ("awk-print-pipe", lambda c: f"awk {q('BEGIN{print 1 | ' + awk_string(c) + '}')}"),
        ("awk-getline", lambda c: f"awk {q('BEGIN{' + awk_string(c) + ' | getline}')}"),
        ("awk-system-file", lambda c: f"awk {q('{system(' + awk_string(c) + ')}')} a.txt"),
        ("sed-e-command", lambda c: f"sed -n {q('1e ' + c)} a.txt"),
        ("sed-e-flag", lambda c: f"sed {q('s/.*/' + sed_replacement(c) + '/e')} a.txt"),
        ("sed-e-stdin", lambda c: f"echo x | sed {q('e ' + c)}"),
        ("sed-script-file", lambda c: f"sed -f <(echo {q('1e ' + c)}) a.txt"),
        ("tar-to-command", lambda c: f"tar -xf a.tar --to-command={q(c)}"),
        (
            "tar-checkpoint",
            lambda c: f"tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec={q(c)} a.txt",
        ),
    ]
    for i, ch in enumerate(_CONTROL):
        rows += _control_rows(i, ch)
    return rows


def _control_rows(i: int, ch: str) -> list[tuple[str, Wrap]]:
    """A control character in a word, before one, or after a command name."""
    return [
        (f"control-{i}-in-word", lambda c: f"echo x{ch}$({c})"),
        (f"control-{i}-before-word", lambda c: f"echo {ch}$({c})"),
        (f"control-{i}-after-command", lambda c: f"true{ch}; {c}"),
        (f"control-{i}-in-backticks", lambda c: f"echo x{ch}{backticks(c)}"),
    ]


def _name_rows() -> list[tuple[str, Wrap]]:
    """Options that take a program's name (and run it); each gives a simple command."""
    return [
        ("sort-compress-program", lambda w: f"sort -S 16k --compress-program={w} big.txt"),
        ("tar-compress-program", lambda w: f"tar --use-compress-program={w} -tf a.tar"),
        ("tar-I", lambda w: f"tar -I {w} -tf a.tar"),
        ("rg-pre", lambda w: f"rg --pre {w} alpha a.txt"),
        ("rg-pre-joined", lambda w: f"rg --pre={w} alpha"),
        ("git-grep-pager", lambda w: f"git grep -O{w} alpha"),
        ("git-grep-pager-long", lambda w: f"git grep --open-files-in-pager={w} alpha"),
        ("find-exec-name", lambda w: f"find a.txt -exec {w} {{}} \\;"),
        ("xargs-name", lambda w: f"xargs -a a.txt {w}"),
        ("sort-compress-abbreviated", lambda w: f"sort -S 16k --compress-prog={w} big.txt"),
        ("git-grep-pager-abbreviated", lambda w: f"git grep --open-files-in={w} alpha"),
        ("tar-bundled-I", lambda w: f"tar tIf {w} a.tar"),
        ("tar-I-joined", lambda w: f"tar -tf a.tar -I{w}"),
        ("git-ext-transport", lambda w: f"git -c protocol.ext.allow=always ls-remote ext::{w}"),
        # A compiler driver starts each of its programs through the wrapper.
        ("gcc-wrapper", lambda w: f"gcc -wrapper {w} -E -x c /dev/null -o /dev/null"),
        ("cc-wrapper-shell", lambda w: f"cc -wrapper /bin/sh,-c,{w} -E -x c /dev/null"),
    ]


SIMPLE_ROWS = dict(_simple_rows())
CODE_ROWS = dict(_code_rows())
NAME_ROWS = dict(_name_rows())

"""Parsing Bash into the simple commands that would run: words, invocations, wrappers."""

from __future__ import annotations

import pytest

from tether.permissions.ansi_c_strings import decode_ansi_c
from tether.permissions.script import Invocation, Redirect, Script
from tether.permissions.shell import parse_command
from tether.permissions.shell_words import DYN, HOME, ONE, STAR

PARSE_ERROR = "the command does not parse cleanly"


def argvs(command: str) -> list[tuple[str, ...]]:
    """Every argv the command would run, wrappers opened up, in walking order."""
    out: list[tuple[str, ...]] = []

    def walk(invocations: tuple[Invocation, ...]) -> None:
        for inv in invocations:
            out.append(inv.argv)
            walk(inv.inner)

    walk(parse_command(command).invocations)
    return out


def only(command: str) -> Invocation:
    script = parse_command(command)
    assert script.problems == ()
    assert len(script.invocations) == 1
    return script.invocations[0]


@pytest.mark.parametrize(
    ("command", "argv"),
    [
        ('s"u"do ls', ("sudo", "ls")),
        ("'rm' -rf x", ("rm", "-rf", "x")),
        ("\\rm x", ("rm", "x")),
        ("r\\m x", ("rm", "x")),
        ("$'\\x72m' $'a\\tb'", ("rm", "a\tb")),
        ('echo "a\\"b\\$c\\\\d\\e"', ("echo", 'a"b$c\\d\\e')),
        ("echo 'it''s' \"x\"'y'", ("echo", "its", "xy")),
        ("cat ~/x ~ '~/y' ~root/z", ("cat", f"{HOME}/x", HOME, "~/y", f"{HOME}root/z")),
        ("ls *.py a?c [ab]c '*'", ("ls", f"{STAR}.py", f"a{ONE}c", f"{ONE}c", "*")),
        ("echo {a,b} {1..3} {} {x}", ("echo", DYN, DYN, "{}", "{x}")),
        ('echo $HOME "$x" ${y:-z} "a$(id)b"', ("echo", HOME, DYN, DYN, f"a{DYN}b")),
        ("diff <(ls) x", ("diff", "/dev/fd/63", "x")),
        ("echo \\*", ("echo", "*")),
    ],
)
def test_words(command: str, argv: tuple[str, ...]) -> None:
    assert parse_command(command).invocations[-1].argv == argv


def test_decode_ansi_c() -> None:
    assert decode_ansi_c("\\x73\\165do\\u00e9\\n\\cA\\q") == "sudo\u00e9\n\x01\\q"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("a; b && c || d | e & f\ng", ["a", "b", "c", "d", "e", "f", "g"]),
        ("x $(y `z`) <(w) >(v)", ["z", "y", "w", "v", "x"]),
        ("(a; { b; })", ["a", "b"]),
        ("if a; then b; elif c; then d; else e; fi", ["a", "b", "c", "d", "e"]),
        (
            "for i in $(a); do b; done; while c; do d; done; until e; do :; done",
            ["a", "b", "c", "d", "e", ":"],
        ),
        ("case $(a) in x) b;; *) c;; esac", ["a", "b", "c"]),
        ("f() { a; }; function g { b; }", ["a", "b"]),
        ("! a", ["a"]),
        ("x=$(a) y=`b`", ["a", "b"]),
        ("echo ${x:-$(a)}", ["a", "echo"]),
        # tree-sitter misses backticks in a body: it is read once, as the string bash expands.
        ("cat <<EOF\n$(a) `b`\nEOF", ["a", "b", ":", "cat"]),
        # bash re-reads a backtick's text without its backslashes: `\`` nests.
        ("echo `echo \\`a \\\\\\`b\\\\\\`\\``", ["b", "a", "echo", "echo"]),
        ('echo "`echo \\"x\\"; a`"', ["echo", "a", "echo"]),
        ("cat <<'EOF'\n$(a) `b`\nEOF", ["cat"]),
        ("cat <<EOF | sh\nx\nEOF", ["sh", "cat"]),
        ("cat <<EOF && rm x\ny\nEOF", ["rm", "cat"]),
    ],
)
def test_every_simple_command_is_found(command: str, expected: list[str]) -> None:
    found = [argv[0] for argv in argvs(command) if argv]
    assert found == expected


def test_redirections_and_the_words_after_them() -> None:
    # tree-sitter takes `.env` for a second redirect target; bash passes it to cat.
    assert only("cat 2>/dev/null .env") == Invocation(
        ("cat", ".env"), redirects=(Redirect(">", "/dev/null", writes=True),)
    )
    assert only("cmd >out 2>&1 <in >>log &>all") == Invocation(
        ("cmd",),
        redirects=(
            Redirect(">", "out", writes=True),
            Redirect("<", "in", writes=False),
            Redirect(">>", "log", writes=True),
            Redirect("&>", "all", writes=True),
        ),
    )
    assert only("cat <<EOF .env\nx\nEOF") == Invocation(("cat", ".env"))
    assert only("cat <<EOF >out 2>err\nx\nEOF") == Invocation(
        ("cat",), redirects=(Redirect(">", "out", writes=True), Redirect(">", "err", writes=True))
    )


def test_redirections_without_a_command() -> None:
    script = parse_command('echo "$(<.env)"; { a; } > out')
    assert [(i.argv, i.redirects) for i in script.invocations] == [
        ((), (Redirect("<", ".env", writes=False),)),
        (("echo", DYN), ()),
        (("a",), ()),
        ((), (Redirect(">", "out", writes=True),)),
    ]


def test_assignments() -> None:
    script = parse_command("A=1 B=$(x) cmd; C=2; export D=3 E")
    assert [(i.argv, i.assignments, i.persistent) for i in script.invocations] == [
        (("x",), (), False),
        (("cmd",), (("A", "1"), ("B", DYN)), False),
        ((), (("C", "2"),), True),
        (("export", "D", "E"), (("D", "3"),), True),
    ]


@pytest.mark.parametrize(
    ("command", "problem"),
    [
        ("ls (", PARSE_ERROR),
        ('echo "open', PARSE_ERROR),
        ("read -r x; echo $((x + 1))", "arithmetic on variables can run commands"),
        ("read -r x; (( i++ ))", "arithmetic on variables can run commands"),
        (
            "read -r x; for ((i=0; i<2; i++)); do :; done",
            "arithmetic on variables can run commands",
        ),
        ("read -r x; [[ $a -lt 3 ]]", "[[ arithmetic on variables can run commands"),
        ("read -r x; echo ${a[$i]}", "an array subscript that is not a number"),
        ("read -r x; a[$i]=1", "an array subscript that is not a number"),
        ("read -r x; let x=1", "let evaluates arithmetic, which can run commands"),
        ("read -r x; declare -i n", "integer and reference variables evaluate what they are given"),
        (
            "read -r x; declare -n r=x",
            "integer and reference variables evaluate what they are given",
        ),
        ('read -r x; unset "$v"', "unset with an array subscript can run commands"),
        ("[ -v 'a[$(id)]' ]", "test -v with an array subscript can run commands"),
        ("read -r x; [[ -v $x ]]", "test -v with an array subscript can run commands"),
        ("read -r x; echo ${x@P}", "prompt expansion ${x@P} can run commands"),
        ("read -r x; echo ${s:x:2}", "a substring offset that is not a number"),
        (": ${CDPATH:=/}", "assigns CDPATH, which changes what programs run"),
        ("read -r x; echo $[x+1]", "arithmetic on variables can run commands"),
        ("read 'a[$(id)]'", "read with an array subscript can run commands"),
        ("read -r x; printf -v 'a[0]' x", "printf with an array subscript can run commands"),
        ('echo $ "x"', 'unsupported $"..." quoting'),
        ("cat .e\\\nnv", "a line continuation inside a word"),
        ("r\\\nm -rf /", "a line continuation inside a word"),
        # Variables whose value may hold code, then arithmetic on them.
        ("for f in *; do echo $((f)); done", "arithmetic on variables can run commands"),
        ("x=$(cat n); echo $((x))", "arithmetic on variables can run commands"),
        ("[[ $(<f) =~ (.*) ]]; (( BASH_REMATCH[1] ))", "arithmetic on variables can run commands"),
        ("cd d*; echo $((${PWD##*/}))", "arithmetic on variables can run commands"),
        ('f() { echo $(($1)); }; f "$(<n)"', "arithmetic on variables can run commands"),
        ("echo ${x:=y}; let x", "let evaluates arithmetic, which can run commands"),
        ('eval "x=1"; [[ x -eq 1 ]]', "[[ arithmetic on variables can run commands"),
    ],
)
def test_problems(command: str, problem: str) -> None:
    assert problem in parse_command(command).problems


@pytest.mark.parametrize(
    "command",
    [
        "echo $((1 + 2))",
        'echo "${a[@]}" ${a[0]}',
        "[[ -f x && $a == b ]]",
        "printf '[%s]' x",
        'read -r line; [ -f "$x" ]; [[ -v name ]]',
        "echo ${s:1:2} ${x@Q} ${x:-y} ${y:=z}",
        "ls \\\n  -la",
        "echo a\\\\\nb",
        # Arithmetic on variables the command gives no value to, or only plain ones: they
        # come from the environment, which the command cannot set.
        "echo $((x + 1)); (( i++ )); [[ $a -lt 3 ]]; let n=1; declare -i k",
        "for ((i=0; i<2; i++)); do echo ${a[$i]}; done",
        "n=3; for i in 1 2 3; do echo $((i * n)); done",
    ],
)
def test_no_problems(command: str) -> None:
    assert parse_command(command).problems == ()


def test_parse_is_cached() -> None:
    assert parse_command("ls -la") is parse_command("ls -la")
    assert isinstance(parse_command(""), Script)
    assert parse_command("# only a comment").invocations == ()

"""Programs bash runs where tree-sitter's tree shows only a word, or nothing: each command below
really runs `sudo` (a harmless stand-in put first on PATH, checked with real bash), and the
engine must either find it and judge it, or, where it cannot see it, deny it in every mode when
a deny rule exists (a hidden program could be anything) and ask otherwise."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tether.permissions import Decision, Mode, decide

from .conftest import ContextFactory

DENY = {"permissions": {"deny": ["Bash(sudo *)"]}}
ASK = {"permissions": {"ask": ["Bash(sudo *)"]}}
MODES: tuple[Mode, ...] = ("default", "acceptEdits", "plan", "dontAsk", "bypassPermissions")

FOUND = [
    # (command, what the parser finds running): bash re-reads backticks without their
    # backslashes, so each level of escaping opens one more substitution.
    ("echo `echo \\`sudo -n true\\``", "sudo -n true"),
    ("echo `echo \\`echo \\\\\\`sudo -n true\\\\\\`\\``", "sudo -n true"),
    ('echo "$(echo "`sudo true`")"', "sudo true"),
    ("cat <<E\n`echo \\`sudo true\\``\nE", "sudo true"),
    # the body of a heredoc is read from the text as bash reads it where tree-sitter misreads
    ("cat <<E\n\\\"'$(sudo true)'\\\"\nE", "sudo true"),
    ("echo ${u:-$(sudo true)}", "sudo true"),
    ("x=a; echo ${x/$(sudo true)/y}", "sudo true"),
    ("env --split-string='A=1 sudo true'", "sudo true"),
    ("env -vS'sudo  true'", "sudo true"),
    ('shopt -s expand_aliases; alias ll="sudo true"\nll', "sudo true"),
    ("ls() { sudo true; }; ls", "sudo true"),
    ("trap 'sudo true' EXIT", "sudo true"),
    ("exec sudo true", "sudo true"),
    ("mapfile -C 'sudo true #' -c 1 <<< x", "sudo true"),
]

HIDDEN = [
    # (command, why the parser cannot see what runs)
    ("echo ${x:=`sudo true`}", "a backtick in a word, which bash expands unseen by the parser"),
    ("x=a; echo ${x#$(sudo true)}", "`$(` in a word, which bash expands unseen by the parser"),
    (
        "u=1; echo ${u:+`sudo true`}",
        "a backtick in a word, which bash expands unseen by the parser",
    ),
    ("{su,}do true", "the command does not parse cleanly"),
    ("coproc P { sudo true; }; wait", "the command does not parse cleanly"),
    ("sudo$IFS'true'", "the program name is not a literal"),
    ("read -r v <<< 'a[$(sudo true)]'; (( v ))", "arithmetic on variables can run commands"),
    ("f() { (( $1 )); }; f 'a[$(sudo true)]'", "arithmetic on variables can run commands"),
    ("for f in *; do : $((f)); done", "arithmetic on variables can run commands"),
    (
        "declare -i n; n='b[$(sudo true)]'",
        "integer and reference variables evaluate what they are given",
    ),
    ("v='a[$(sudo true)]'; : ${!v}", "indirect expansion ${!x} evaluates the name x holds"),
    (
        "BASH_CMDS[ls]=../bin/sudo; ls",
        "sets BASH_CMDS[ls], which changes what programs run or load",
    ),
    ("echo sudo true | bash", "bash runs code that another command produces"),
    (". <(echo sudo true)", ". runs code that another command produces"),
    ("echo $(" * 120 + "sudo true" + ")" * 120, "too deeply nested to judge"),
    # The output of a substitution in a subscript or arithmetic is evaluated again.
    ("echo ${!a[$(sudo true)]}", "arithmetic on a command's output can run commands"),
    ("[[ $(echo 'q[$(sudo true)]') -eq 0 ]]", "arithmetic on a command's output can run commands"),
    ("echo $(( $(echo 'q[$(sudo true)]') ))", "arithmetic on a command's output can run commands"),
    # `[[ ]]` evaluates a literal operand's text as arithmetic, quoted or not, and so does
    # an assignment to a special variable: a subscript in the text runs its substitution.
    ("[[ 'b[$(sudo true)]' -gt 0 ]]", "[[ arithmetic on text that holds code runs it"),
    ("[[ 0 -ne $'c[`sudo true`]' ]]", "[[ arithmetic on text that holds code runs it"),
    ("[[ -n x && 1 -le 'e[$(sudo true)]' ]]", "[[ arithmetic on text that holds code runs it"),
    (
        "OPTIND='o[$(sudo true)]'",
        "OPTIND evaluates the arithmetic it is given, which holds code",
    ),
    ("RANDOM='r[`sudo true`]'", "RANDOM evaluates the arithmetic it is given, which holds code"),
    ("declare -i n='d[$(sudo true)]'", "n evaluates the arithmetic it is given, which holds code"),
    ("a=(1); unset 'a[$(sudo true)]'", "unset with an array subscript can run commands"),
    ("let 'n[$(sudo true)]'", "let evaluates arithmetic, which can run commands"),
    # An empty substitution spliced into a program name: the name is not a literal.
    ("su``do true", "the program name is not a literal"),
    ("s``u``do true", "the program name is not a literal"),
    # A substitution inside the name's word: tree-sitter splits the word at the backquote,
    # bash does not.
    ("su`true`do true", "the program name is not a literal"),
    ("s`:`udo true", "the program name is not a literal"),
    ("su`echo`do true", "the program name is not a literal"),
    ("timeout 5 su`true`do true", "the program name is not a literal"),
    ("env s`true`u`true`do true", "the program name is not a literal"),
    ("ls; su`true`do true", "the program name is not a literal"),
]


def runs_sudo(command: str, tmp_path: Path) -> bool:
    """Whether bash, given `command`, runs the program named `sudo`."""
    work, bin_dir, marker = tmp_path / "work", tmp_path / "bin", tmp_path / "ran"
    work.mkdir()
    bin_dir.mkdir()
    (work / "a[$(sudo true)]").write_text("")  # a file name that is code
    sentinel = bin_dir / "sudo"
    sentinel.write_text(f"#!/bin/sh\ntouch {marker}\n")
    sentinel.chmod(0o755)
    subprocess.run(
        ["bash", "-c", command],
        cwd=work,
        env={"PATH": f"{bin_dir}:/usr/bin:/bin"},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=30,
        check=False,
    )
    return marker.exists()


@pytest.mark.parametrize("command", [c for c, _ in FOUND + HIDDEN])
def test_bash_really_runs_it(command: str, tmp_path: Path) -> None:
    assert runs_sudo(command, tmp_path)


@pytest.mark.parametrize(("command", "runs"), FOUND)
def test_what_runs_is_found_and_judged(command: str, runs: str, make_ctx: ContextFactory) -> None:
    for mode in ("default", "bypassPermissions"):
        assert decide("Bash", {"command": command}, make_ctx(DENY, mode=mode)) == Decision(
            "deny", "Bash(sudo *)", f"`{runs}` is denied by Bash(sudo *)"
        ), mode


@pytest.mark.parametrize(("command", "problem"), HIDDEN)
def test_what_cannot_be_seen_is_denied_in_every_mode(
    command: str, problem: str, make_ctx: ContextFactory
) -> None:
    denied = Decision(
        "deny",
        "Bash(sudo *)",
        f"{problem}: it may run what deny rule Bash(sudo *) forbids; write the command plainly",
    )
    for mode in MODES:
        assert decide("Bash", {"command": command}, make_ctx(DENY, mode=mode)) == denied, mode


@pytest.mark.parametrize(("command", "problem"), HIDDEN)
def test_what_cannot_be_seen_is_asked_without_a_deny_rule(
    command: str, problem: str, make_ctx: ContextFactory
) -> None:
    call = {"command": command}
    assert decide("Bash", call, make_ctx()) == Decision("ask", None, problem)
    # An ask rule could match it too: asked even in bypassPermissions.
    assert decide("Bash", call, make_ctx(ASK, mode="bypassPermissions")) == Decision(
        "ask", "Bash(sudo *)", f"{problem}: it may run what ask rule Bash(sudo *) covers"
    )
    # With no rule at all, bypassPermissions means what it says.
    assert decide("Bash", call, make_ctx(mode="bypassPermissions")) == Decision(
        "allow", None, "bypassPermissions mode"
    )


@pytest.mark.parametrize(
    ("command", "problem"),
    [
        ("ls\rx", "a control character (\\r) that bash may read differently"),
        (
            "echo \x1b[0m; sudo\x0btrue",
            "a control character (\\x1b) that bash may read differently",
        ),
        ("ls\x00 x", "a control character (\\x00) that bash may read differently"),
        ("echo hi\x85sudo true", "a control character (\\x85) that bash may read differently"),
        ("echo \x9b2J; sudo true", "a control character (\\x9b) that bash may read differently"),
        ("echo a\udc9bsudo", "a control character (\\udc9b) that bash may read differently"),
        ("x\\\n`sudo true`", "a line continuation inside a word"),
    ],
)
def test_text_bash_reads_differently_is_not_trusted(
    command: str, problem: str, make_ctx: ContextFactory
) -> None:
    assert decide("Bash", {"command": command}, make_ctx(DENY, mode="bypassPermissions")) == (
        Decision(
            "deny",
            "Bash(sudo *)",
            f"{problem}: it may run what deny rule Bash(sudo *) forbids; write the command plainly",
        )
    )


@pytest.mark.parametrize(
    "command",
    [
        "echo $((x + 1)); (( i++ )); [[ $a -lt 3 ]]",
        "n=3; for i in 1 2 3; do echo $((i * n)); done",
        "echo '`sudo true`' \"\\$(sudo true)\" \\`x\\`",
        "cat <<'E'\n$(sudo true) `sudo true`\nE",
        "echo ${x:-plain} ${y#pre} ${z/a/b}",
    ],
)
def test_plain_commands_stay_allowed(command: str, make_ctx: ContextFactory) -> None:
    """What hides nothing is not asked for the sake of it: arithmetic on variables the command
    gives no value to (they come from the environment), quoted or escaped openers."""
    assert decide("Bash", {"command": command}, make_ctx(DENY)).behavior == "allow"


def _bash_runs(command: str, tmp_path: Path, *programs: str) -> bool:
    """`runs_sudo`, after checking that the programs the command relies on exist here."""
    missing = [p for p in programs if shutil.which(p) is None]
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)}")
    return runs_sudo(command, tmp_path)


# Single quotes are plain characters in a double-quoted `${x:-...}`-style operand, in an
# unquoted heredoc's, and in arithmetic (bash 5): the substitution inside them runs.
PLAIN_QUOTES = [
    ("echo \"${u:-'$(sudo true)'}\"", "sudo true"),
    ("u=; echo \"${u:='`sudo true`'}\"", "sudo true"),
    ("u=1; echo \"${u+'$(sudo true)'}\"", "sudo true"),
    ("echo \"${u-a'$(sudo true)'b}\"", "sudo true"),
    ("echo \"${u:-${v:-'$(sudo true)'}}\"", "sudo true"),
    ("echo \"${u:-$'\\x24(sudo true)'}\"", "sudo true"),
    ("x=\"${u:-'$(sudo true)'}\"", "sudo true"),
    ("cat <<E\n${u:-'$(sudo true)'}\nE", "sudo true"),
    ("u=1; cat <<E\n${u:+'`sudo true`'}\nE", "sudo true"),
    ("echo $(( '$(sudo true)' ))", "sudo true"),
    ("(( '$(sudo true)' ))", "sudo true"),
    ("a['$(sudo true)']=1", "sudo true"),
]
# Code strings and commands of programs that run them their own way.
RUNNERS = [
    ("eval -- 'sudo true'", "sudo true", ()),
    ("builtin eval -- sudo true", "sudo true", ()),
    ("script -qc 'sudo true' /dev/null", "sudo true", ("script",)),
    ("script /dev/null -q --command='echo; sudo true'", "sudo true", ("script",)),
    ("sg root -c 'sudo true'", "sudo true", ("sg",)),
    ("sg root 'sudo true'", "sudo true", ("sg",)),
    ("flock .lk -c 'sudo true'", "sudo true", ("flock",)),
    ("flock -w 1 .lk sudo true", "sudo true", ("flock",)),
    ("chrt -o 0 sudo true", "sudo true", ("chrt",)),
    ("taskset -c 0 sudo true", "sudo true", ("taskset",)),
    ("prlimit --nofile=64 sudo true", "sudo true", ("prlimit",)),
    ("prlimit -n64 sudo true", "sudo true", ("prlimit",)),
    ("setpriv --nnp sudo true", "sudo true", ("setpriv",)),
]
# `$"..."` is its text when no translation exists.
LOCALE_STRINGS = [
    ('$"sudo" true', "sudo true"),
    ('$"su"do true', "sudo true"),
    ('s$"udo" true', "sudo true"),
    ('env $"sudo" true', "sudo true"),
]


@pytest.mark.parametrize(
    ("command", "runs"), PLAIN_QUOTES + LOCALE_STRINGS + [(c, r) for c, r, _ in RUNNERS]
)
def test_what_runs_there_is_found_and_judged(
    command: str, runs: str, make_ctx: ContextFactory, tmp_path: Path
) -> None:
    programs = next((p for c, _, p in RUNNERS if c == command), ())
    assert _bash_runs(command, tmp_path, *programs)
    for mode in ("default", "bypassPermissions"):
        assert decide("Bash", {"command": command}, make_ctx(DENY, mode=mode)) == Decision(
            "deny", "Bash(sudo *)", f"`{runs}` is denied by Bash(sudo *)"
        ), mode


@pytest.mark.parametrize(
    "command",
    [
        "echo \"${u#'$(sudo true)'}\"",  # pattern operators honour the quotes
        "u=abc; echo \"${u/b/'$(sudo true)'}\"",
        "echo \"${u:?'$(sudo true)'}\" 2>/dev/null",
        "echo ${u:-'$(sudo true)'}",  # outside double quotes, quotes are quotes
        "echo \"${u:-'\\$(sudo true)'}\"",
        "echo \"${u:-$(echo '$(sudo true)')}\"",
    ],
)
def test_quotes_bash_honours_stay_quotes(
    command: str, make_ctx: ContextFactory, tmp_path: Path
) -> None:
    assert not runs_sudo(command, tmp_path)
    assert decide("Bash", {"command": command}, make_ctx(DENY)).behavior == "allow"


def test_an_unknown_program_may_run_its_later_arguments(
    make_ctx: ContextFactory, tmp_path: Path
) -> None:
    """A program without an entry in the tables may run any tail of its words, or a command
    line given to it as one argument: deny rules are tried on all of them."""
    wrapper = tmp_path / "bin" / "retry"
    wrapper.parent.mkdir()
    wrapper.write_text('#!/bin/sh\nshift 2\nexec "$@"\n')
    wrapper.chmod(0o755)
    base = tmp_path / "run"
    base.mkdir()
    command = f"{wrapper} -n 3 sudo true"
    assert runs_sudo(command, base)
    cases = {
        command: "retry may run `sudo true`, which deny rule Bash(sudo *) forbids",
        "retry --exec=sudo -n": "retry may run `sudo -n`, which deny rule Bash(sudo *) forbids",
        "hyperfine --warmup 1 'make && sudo true'": (
            "hyperfine may run `sudo true`, which deny rule Bash(sudo *) forbids"
        ),
        "mytool -c 'timeout 5 sudo true'": (
            "mytool may run `sudo true`, which deny rule Bash(sudo *) forbids"
        ),
        "strace -o '|sudo true' ls": (
            "strace may run `sudo true`, which deny rule Bash(sudo *) forbids"
        ),
        "valgrind --leak-check=full sudo true": (
            "valgrind may run `sudo true`, which deny rule Bash(sudo *) forbids"
        ),
    }
    for text, reason in cases.items():
        for mode in ("default", "bypassPermissions"):
            assert decide("Bash", {"command": text}, make_ctx(DENY, mode=mode)) == Decision(
                "deny",
                "Bash(sudo *)",
                reason.replace("retry", wrapper.as_posix(), 1) if text == command else reason,
            ), (text, mode)
    # A word only partly known may spell the program: asked, in bypassPermissions too.
    assert decide("Bash", {"command": "retry su$X"}, make_ctx(DENY, mode="bypassPermissions")) == (
        Decision(
            "ask",
            "Bash(sudo *)",
            "retry may run `su…`, which deny rule Bash(sudo *) may forbid",
        )
    )


@pytest.mark.parametrize(
    "command",
    [
        "echo sudo true",  # echo is known: it prints
        "grep -c sudo notes.txt",
        "ls | xargs npm test",  # wholly unknown words (file names) are data
        "chrt -o 0 ls",
        "eval -- ls",
        "flock /dev/null cat notes.txt",  # a lock file written: test_file_options
    ],
)
def test_known_programs_and_data_words_are_not_suspected(
    command: str, make_ctx: ContextFactory
) -> None:
    settings = {"permissions": {"deny": ["Bash(sudo *)"], "allow": ["Bash(npm *)"]}}
    assert decide("Bash", {"command": command}, make_ctx(settings)).behavior == "allow"


STARTUP_FROM_COMMANDS = [
    "bash --rcfile <(echo 'sudo true') -ic :",
    "bash --init-file <(echo 'sudo true') -i < /dev/null",
    "bash --rcfile /dev/stdin -i <<< 'sudo true'",
]


@pytest.mark.parametrize("command", STARTUP_FROM_COMMANDS)
def test_start_up_files_from_another_command_are_code_not_seen(
    command: str, make_ctx: ContextFactory, tmp_path: Path
) -> None:
    assert runs_sudo(command, tmp_path)
    for mode in MODES:
        decision = decide("Bash", {"command": command}, make_ctx(DENY, mode=mode))
        assert (decision.behavior, decision.rule) == ("deny", "Bash(sudo *)"), mode


@pytest.mark.parametrize(
    ("command", "files"),
    [
        ("bash --rcfile project.rc -ic :", "project.rc"),
        ("bash -ic 'git status'", "~/.bashrc"),
        ("bash -lc 'git status'", "the login profiles (/etc/profile, ~/.profile...)"),
        ("bash --login -c 'git status'", "the login profiles (/etc/profile, ~/.profile...)"),
        ("sh -l -c ls", "the login profiles (/etc/profile, ~/.profile...)"),
    ],
)
def test_start_up_files_are_asked_in_every_mode(
    command: str, files: str, make_ctx: ContextFactory
) -> None:
    """A shell's start-up files run before its code, and the engine does not read them (the
    same command may have written them): asked, in bypassPermissions mode too when a Bash deny
    rule could match what they run; whatever allows the shell."""
    name = command.split()[0]
    reason = f"{name} first runs {files}, code that tether does not read"
    settings = {"permissions": {"deny": ["Bash(sudo *)"], "allow": ["Bash(bash *)", "Bash(sh *)"]}}
    for mode in ("default", "acceptEdits", "bypassPermissions"):
        assert decide("Bash", {"command": command}, make_ctx(settings, mode=mode)) == Decision(
            "ask", "Bash(sudo *)", f"{reason}; it may run what deny rule Bash(sudo *) covers"
        ), mode
    assert decide("Bash", {"command": command}, make_ctx()) == Decision("ask", None, reason)
    # Without start-up files the shell only wraps its code.
    plain = command.replace(" -ic ", " --norc -c ").replace(" -lc ", " -c ")
    if plain != command and "--rcfile" not in command:
        assert decide("Bash", {"command": plain}, make_ctx(settings)).behavior == "allow"


@pytest.mark.parametrize(
    "command",
    [
        "echo 'sudo true' | su",
        "echo 'sudo true' | script -q /dev/null",
        "echo 'sudo true' | unshare -U",
        "exec -l bash -c :",
        "ssh box",
    ],
)
def test_a_shell_started_on_the_input_is_code_not_seen(
    command: str, make_ctx: ContextFactory
) -> None:
    for mode in ("default", "bypassPermissions"):
        decision = decide("Bash", {"command": command}, make_ctx(DENY, mode=mode))
        assert (decision.behavior, decision.rule) == ("deny", "Bash(sudo *)"), mode


def test_a_remote_command_is_judged_and_covered_by_a_rule_naming_it(
    make_ctx: ContextFactory,
) -> None:
    remote = "ssh -p 2222 box 'uptime; sudo true'"
    assert decide("Bash", {"command": remote}, make_ctx(DENY, mode="bypassPermissions")) == (
        Decision("deny", "Bash(sudo *)", "`sudo true` is denied by Bash(sudo *)")
    )
    allowed = {"permissions": {"allow": ["Bash(ssh box uptime)"]}}
    assert decide("Bash", {"command": "ssh box uptime"}, make_ctx(allowed)) == Decision(
        "allow", "Bash(ssh box uptime)", "allowed by Bash(ssh box uptime)"
    )


def test_code_an_option_runs_is_judged_like_the_command_line(make_ctx: ContextFactory) -> None:
    """Found by the differential test: a parse problem in code an option runs (`compgen -C`)
    was a plain ask, which bypassPermissions skipped; it meets the deny rules as the command
    line itself does."""
    for mode in MODES:
        decision = decide(
            "Bash", {"command": "compgen -C '{sudo,} #' x"}, make_ctx(DENY, mode=mode)
        )
        assert (decision.behavior, decision.rule) == ("deny", "Bash(sudo *)"), mode

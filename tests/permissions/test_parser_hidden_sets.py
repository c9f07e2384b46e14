"""Variables set without an assignment word, and commands too large to judge.

`printf -v PATH %s .; ls` runs `./ls` as surely as `PATH=. ls` does: every builtin form that
sets a variable (printf -v, read, mapfile, getopts, for/select, local, unset, namerefs, `{fd}>`
redirections, arithmetic assignment) is judged like an assignment to it. Each command below
really runs a workspace program (checked with real bash)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tether.permissions import Decision, decide

from .conftest import ContextFactory
from .test_parser_hidden import ASK, DENY, MODES

SETS_PATH = "sets PATH, which changes what programs run or load"
SETS = [
    ("printf -v PATH %s . ; ls", SETS_PATH),
    ("printf -vPATH . ; ls", SETS_PATH),
    ("command printf -v PATH %s .; ls", SETS_PATH),
    ("for PATH in . ; do ls; done", SETS_PATH),
    ("read PATH <<< . ; ls", SETS_PATH),
    ("builtin read -r -a PATH <<< . ; ls", SETS_PATH),
    ("mapfile -t PATH <<< . ; ls", SETS_PATH),
    ("readarray -t PATH <<< . ; ls", SETS_PATH),
    ("getopts x PATH ; ls", SETS_PATH),
    ("wait -n -p PATH; ls", SETS_PATH),
    ("f() { local PATH; ls; }; f", SETS_PATH),
    ("f() { declare PATH; ls; }; f", SETS_PATH),
    ("unset -v PATH; ls", SETS_PATH),
    ("declare -n r=PATH; r=.; ls", SETS_PATH),
    ("declare -n r; r=PATH; r=.; ls", "a reference variable whose target is set later"),
    ("exec {PATH}>/dev/null; ls", SETS_PATH),
    ("(( PATH=0 )); ls", SETS_PATH),
    (": $(( PATH = 0 )); ls", SETS_PATH),
    ("a[PATH=0]=1; ls", SETS_PATH),
    ("[[ 'PATH=0' -eq 0 ]]; ls", "[[ arithmetic on text that holds code runs it"),
    ("OPTIND='PATH=0'; ls", "OPTIND evaluates the arithmetic it is given, which holds code"),
    ("x='PATH=0'; (( x )); ls", "arithmetic on variables can run commands"),
    ("f() { (( $1 )); }; f PATH=0; ls", "arithmetic on variables can run commands"),
]


def runs_workspace_ls(command: str, tmp_path: Path) -> bool:
    """Whether bash, given `command`, runs an `ls` of the workspace (`./ls`, `./0/ls`, one in
    a directory named by a file descriptor's number, `./?/ls`) instead of the system's."""
    work, marker = tmp_path / "work", tmp_path / "ran"
    for directory in (".", "0", "10", "11", "12", "?"):
        program = work / directory / "ls"
        program.parent.mkdir(parents=True, exist_ok=True)
        program.write_text(f"#!/bin/sh\n/usr/bin/touch {marker}\n")
        program.chmod(0o755)
    subprocess.run(
        ["bash", "-c", command],
        cwd=work,
        env={"PATH": "/usr/bin:/bin"},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=30,
        check=False,
    )
    return marker.exists()


@pytest.mark.parametrize(("command", "problem"), SETS)
def test_a_variable_set_by_a_builtin_is_judged_as_assigned(
    command: str, problem: str, make_ctx: ContextFactory, tmp_path: Path
) -> None:
    assert runs_workspace_ls(command, tmp_path)
    denied = Decision(
        "deny",
        "Bash(sudo *)",
        f"{problem}: it may run what deny rule Bash(sudo *) forbids; write the command plainly",
    )
    for mode in MODES:
        assert decide("Bash", {"command": command}, make_ctx(DENY, mode=mode)) == denied, mode
    call = {"command": command}
    assert decide("Bash", call, make_ctx()) == Decision("ask", None, problem)
    assert decide("Bash", call, make_ctx(mode="plan")).behavior == "deny"
    assert decide("Bash", call, make_ctx(ASK, mode="bypassPermissions")).behavior == "ask"


@pytest.mark.parametrize(
    ("command", "name"),
    [
        ("printf -v HOME %s ./h; git status", "HOME"),
        ("read -r IFS <<< x", "IFS"),
        ("printf -v BASH_ENV %s x.sh; bash -c :", "BASH_ENV"),
        ("export -n PATH; git status", "PATH"),
        ("export -f ls", "BASH_FUNC_ls%%"),
        ("mapfile -t LD_PRELOAD < list", "LD_PRELOAD"),
        ("for GIT_DIR in evil; do git status; done", "GIT_DIR"),
        ("echo $(( ++HOME ))", "HOME"),
    ],
)
def test_other_dangerous_variables_set_by_builtins(
    command: str, name: str, make_ctx: ContextFactory
) -> None:
    reason = decide("Bash", {"command": command}, make_ctx(DENY, mode="bypassPermissions"))
    assert reason == Decision(
        "deny",
        "Bash(sudo *)",
        f"sets {name}, which changes what programs run or load: it may run what deny rule "
        "Bash(sudo *) forbids; write the command plainly",
    )


@pytest.mark.parametrize(
    "command",
    [
        "printf -v out %s .; echo $out",
        'read -r line < README.md; echo "$line"',
        'for f in a b; do echo "$f"; done',
        "export PATH; declare -p HOME",
        "(( i++ )); echo $(( i + 1 ))",
        "[[ 3 -lt 4 ]] && [[ $x -eq 1 ]] && echo y",
        "[ 'a[$(sudo true)]' -eq 1 ] 2>/dev/null; test 1 -eq 1",
        "echo a``b",
    ],
)
def test_harmless_settings_are_not_asked_for_them(command: str, make_ctx: ContextFactory) -> None:
    """Variables not in the dangerous list, names a builtin only prints or exports, and `[`'s
    integer comparison (which evaluates nothing) are not hidden code."""
    decision = decide("Bash", {"command": command}, make_ctx(DENY))
    assert "sets" not in decision.reason, decision
    assert "arithmetic" not in decision.reason, decision
    assert decision.behavior != "deny", decision


TOO_LARGE = [
    "true | " * 3000 + "sudo true",
    "echo a; " * 1500 + "ls",
    "cat <<EOF\n" + "line $(date)\n" * 5000 + "EOF",
    "echo " + "x" * 200_000,
    "bash -c " + "'" + "echo x; " * 20_000 + "'",
    "eval " * 300 + "ls",
]


@pytest.mark.parametrize("command", TOO_LARGE, ids=lambda c: f"{len(c)} characters")
def test_a_command_too_large_to_judge_is_not_read(command: str, make_ctx: ContextFactory) -> None:
    """Past a bound on its size, nodes or simple commands (code strings included), a command
    is not analysed: it may hide anything, so it is denied where a deny rule exists."""
    denied = decide("Bash", {"command": command}, make_ctx(DENY, mode="bypassPermissions"))
    assert denied.behavior == "deny", denied
    assert denied.reason.startswith(("too large to judge", "too deeply nested to judge")), denied
    asked = decide("Bash", {"command": command}, make_ctx())
    assert asked.behavior == "ask", asked


def test_an_unknown_program_with_very_many_words_is_judged_in_full(
    make_ctx: ContextFactory,
) -> None:
    """Every tail is matched in one pass (tail_rules.py): no bound on the words, no "too large"."""
    for count in (300, 1_000):
        command = "mytool " + "x " * count + "sudo true"
        decision = decide("Bash", {"command": command}, make_ctx(DENY, mode="bypassPermissions"))
        assert decision == Decision(
            "deny",
            "Bash(sudo *)",
            "mytool may run `sudo true`, which deny rule Bash(sudo *) forbids",
        )
    command = "mytool " + "x " * 1_000 + "true"
    assert decide("Bash", {"command": command}, make_ctx(DENY)).behavior == "ask"


def test_common_large_commands_are_still_judged(make_ctx: ContextFactory) -> None:
    """A long script written by a heredoc, or a few hundred lines of shell, is read in full."""
    body = "".join(f"def f{i}(x):\n    return x * {i}  # $HOME `q`\n" for i in range(1000))
    heredoc = f"cat <<'EOF'\n{body}EOF"
    script = 'for f in a b c; do\n  if [ -n "$f" ]; then echo "$f"; fi\ndone\n' * 120
    for command in (heredoc, script, script + "sudo true"):
        decision = decide("Bash", {"command": command}, make_ctx(DENY))
        assert "too large" not in decision.reason, decision
    assert decide("Bash", {"command": script}, make_ctx(DENY)).behavior == "allow"
    assert decide("Bash", {"command": script + "sudo true"}, make_ctx(DENY)) == Decision(
        "deny", "Bash(sudo *)", "`sudo true` is denied by Bash(sudo *)"
    )

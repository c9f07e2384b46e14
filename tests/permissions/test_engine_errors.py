"""An engine error on any input is a decision, never an exception: inputs that crashed it, the
last net in `decide`, and random inputs of every shape for the tools that take paths or code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tether.permissions import Decision, Mode, PermissionContext, decide, load_rules

from .conftest import ContextFactory, build_tree

RULES = {
    "permissions": {
        "allow": ["Bash(npm test *)", "Bash(git commit *)", "Edit(/src/**)", "Read(~/docs/**)"],
        "ask": ["Bash(curl *)", "Read(config/private/**)"],
        "deny": ["Bash(sudo *)", "Bash(rm *)", "Read(./.env)", "Read(**/*.pem)"],
    }
}
DEEP = "too deeply nested to judge"


def test_deep_nesting_is_a_decision(make_ctx: ContextFactory) -> None:
    """Hundreds of nested substitutions used to exhaust Python's stack."""
    for opener, closer in (("$(", ")"), ("<(", ")"), ('"$(', ')"'), ("$((", "))"), ("(", ")")):
        command = opener * 300 + "id" + closer * 300
        assert decide("Bash", {"command": command}, make_ctx()) == Decision("ask", None, DEEP), (
            opener
        )
        assert decide("Bash", {"command": command}, make_ctx(RULES)) == Decision(
            "deny",
            "Bash(sudo *)",
            f"{DEEP}: it may run what deny rule Bash(sudo *) forbids; write the command plainly",
        ), opener
    wrapped = "timeout 1 " * 150 + "ls"
    assert decide("Bash", {"command": wrapped}, make_ctx()) == Decision("ask", None, DEEP)
    code = "ls"
    for _ in range(12):
        code = "bash -c " + repr(code)
    assert decide("Bash", {"command": code}, make_ctx()).behavior in ("allow", "ask")


def test_a_proc_root_path_is_a_decision(make_ctx: ContextFactory) -> None:
    """`/proc/1/root` cannot be resolved (its link is not a path the kernel lets us read)."""
    for tool, call in (
        ("Bash", {"command": "cat /proc/1/root/etc/hostname"}),
        ("Read", {"file_path": "/proc/1/root/etc/hostname"}),
        ("Grep", {"pattern": "x", "path": "/proc/1/root"}),
    ):
        assert decide(tool, call, make_ctx()).behavior == "ask", tool
    # run by its path: the file the kernel would run cannot be read for its `#!` line
    for command in ("/proc/1/root", "timeout 1 /proc/1/root/x", ";}hash&/proc/1/root"):
        decision = decide("Bash", {"command": command}, make_ctx())
        assert not decision.reason.startswith("the permission engine could not"), decision


def test_a_glob_pattern_holding_a_nul_is_a_decision(make_ctx: ContextFactory) -> None:
    """A NUL in a Glob pattern's directories names no directory (found by the fuzz below at
    8,000 examples: its fixed directories went to `lstat`, which raises on a NUL)."""
    for pattern in ("~/.ssh/id_rsa\x00/proc/1/root/x", "a\x00b/c/*", "/etc/\x00/shadow"):
        decision = decide("Glob", {"pattern": pattern}, make_ctx())
        assert not decision.reason.startswith("the permission engine could not"), decision


def test_an_error_inside_the_engine_is_asked(tmp_path: Path) -> None:
    def broken(path: Path) -> Path:
        if path.name == "notes.txt":
            raise OSError(f"cannot resolve {path.name}")
        return path

    ctx = PermissionContext(
        mode="bypassPermissions",
        rules=load_rules([], seed_yaml=None),
        workspace=tmp_path,
        cwd=tmp_path,
        home=tmp_path,
        resolve=broken,
    )
    assert decide("Read", {"file_path": "notes.txt"}, ctx) == Decision(
        "ask",
        None,
        "the permission engine could not judge this call: OSError: cannot resolve " + "notes.txt",
    )


def _broken_context(
    tmp_path: Path, mode: Mode, settings: dict[str, Any] | None
) -> PermissionContext:
    def broken(path: Path) -> Path:
        if path.name == "notes.txt":
            raise OSError("cannot resolve")
        return path

    layers = [(tmp_path / ".claude" / "settings.json", settings)] if settings else []
    return PermissionContext(
        mode=mode,
        rules=load_rules(layers, seed_yaml=None),
        workspace=tmp_path,
        cwd=tmp_path,
        home=tmp_path,
        resolve=broken,
    )


@pytest.mark.parametrize(
    ("mode", "settings", "expected"),
    [
        ("default", None, "ask"),
        ("acceptEdits", None, "ask"),
        ("dontAsk", None, "deny"),
        ("plan", None, "deny"),
        ("bypassPermissions", None, "ask"),
        ("bypassPermissions", {"permissions": {"ask": ["Bash(curl *)"]}}, "ask"),
        ("bypassPermissions", RULES, "deny"),
        ("default", RULES, "deny"),
    ],
)
def test_an_engine_error_goes_through_the_mode(
    tmp_path: Path, mode: Mode, settings: dict[str, Any] | None, expected: str
) -> None:
    """What the engine failed on may do anything: judged as code it cannot see (denied when a
    deny rule could match), then the mode applies, with the error as the reason."""
    error = "the permission engine could not judge this call: OSError: cannot resolve"
    for tool, call in (
        ("Read", {"file_path": "notes.txt"}),
        ("Bash", {"command": "cat notes.txt"}),
        ("Write", {"file_path": "notes.txt", "content": "x"}),
    ):
        decision = decide(tool, call, _broken_context(tmp_path, mode, settings))
        assert decision.behavior == expected, (tool, decision)
        assert error in decision.reason, (tool, decision)


def test_awk_with_letters_awk_does_not_know(make_ctx: ContextFactory) -> None:
    """`é` outside a string made the awk scanner's name reader fail (F1): awk's names are
    ASCII, so it is an ordinary character there."""
    allowed = make_ctx({"permissions": {"allow": ["Bash(awk *)", "Bash(gawk *)"]}})
    for command in ("awk é", "awk 'é=1' README.md", "gawk 'é {'", "awk '{ x = \"é\"; print é }'"):
        decision = decide("Bash", {"command": command}, allowed)
        assert decision.behavior == "allow", (command, decision)
    for command in ("awk 'é { print > \"out\" }'", "awk 'é { system(\"id\") }'"):
        decision = decide("Bash", {"command": command}, make_ctx())
        assert decision.behavior == "ask", (command, decision)
        assert not decision.reason.startswith("the permission engine"), (command, decision)


# Random inputs. The contexts are built once: hypothesis runs each example many times.

_TOKENS = [
    *("$(", ")", "`", "\\`", "${", "}", "${!", "[", "]", "$((", "))", "$[", "<(", ">(", "'", '"'),
    *("$'", "\\", "\n", "\r", "\x00", "\x0b", ";", "&&", "|", "&", "<<", "<<-", "EOF", "<<<"),
    *(":-", ":=", "#", "%", "/", "@P", "!", "*", "?", "~", "~root", "..", "/proc/1/root"),
    *("sudo", "rm", "-rf", "cat", ".env", "bash", "-c", "eval", "env", "-S", "xargs", "find"),
    *("-exec", "{}", "+", "timeout", "1", "alias", "x=", "IFS", "PATH=", "function", "f", "()"),
    *("{", "(", "if", "then", "fi", "for", "in", "do", "done", "case", "esac", "let", "declare"),
    *("-i", "trap", "EXIT", "coproc", "exec", "hash", "-p", "source", ".", "git", "-C", "sed"),
    *(" ", " ", " ", "\t", "x", "a b", "src/app.py", "/etc/passwd", "~/.ssh/id_rsa"),
]
_soup = st.lists(st.sampled_from(_TOKENS), max_size=40).map("".join)
_text = st.one_of(
    st.text(max_size=200),
    st.binary(max_size=200).map(lambda b: b.decode("utf-8", "surrogateescape")),
    _soup,
)
_value = st.one_of(_text, st.none(), st.integers(), st.lists(st.text(max_size=5), max_size=3))
_MODES: tuple[Mode, ...] = ("default", "acceptEdits", "plan", "dontAsk", "bypassPermissions")


class _Contexts(list[PermissionContext]):
    """The fuzzed contexts, shown in a failure's locals by what they are, not as the 35 kB of
    rules they hold (which buried the failing command)."""

    def __repr__(self) -> str:
        return f"<{len(self)} contexts: each mode with no rules and with RULES>"


@pytest.fixture(scope="module")
def contexts(tmp_path_factory: pytest.TempPathFactory) -> list[PermissionContext]:
    tree = build_tree(tmp_path_factory.mktemp("fuzz"))
    rule_sets = [
        load_rules([], seed_yaml=None),
        load_rules([(tree.ws / ".claude" / "settings.json", RULES)], seed_yaml=None),
    ]
    return _Contexts(
        PermissionContext(mode=m, rules=r, workspace=tree.ws, cwd=tree.ws, home=tree.home)
        for m in _MODES
        for r in rule_sets
    )


_FUZZ = settings(
    max_examples=300,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _check(tool: str, call: dict[str, Any], contexts: list[PermissionContext], i: int) -> None:
    decision = decide(tool, call, contexts[i % len(contexts)])
    assert decision.behavior in ("allow", "ask", "deny")
    assert not decision.reason.startswith("the permission engine could not judge"), decision


@_FUZZ
@given(command=_text, i=st.integers(min_value=0, max_value=99))
def test_bash_never_raises(command: str, i: int, contexts: list[PermissionContext]) -> None:
    _check("Bash", {"command": command}, contexts, i)


@_FUZZ
@given(
    tool=st.sampled_from(["Read", "Write", "Edit", "Grep", "Glob"]),
    path=_value,
    pattern=_value,
    i=st.integers(min_value=0, max_value=99),
)
def test_file_tools_never_raise(
    tool: str, path: Any, pattern: Any, i: int, contexts: list[PermissionContext]
) -> None:
    call = {"file_path": path, "path": path, "pattern": pattern, "content": "x"}
    _check(tool, call, contexts, i)

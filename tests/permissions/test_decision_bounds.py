"""Every decision does bounded work, whatever its input (under the 100 KB a command may have).

Work is measured, not timed: the Python function calls one `decide` makes (the profiler's
`call` and `c_call` events, the parse included), which no load on the machine changes. Past
`MAX_CALLS` the count stops the decision at once (a `BaseException`, which the engine's last
net does not catch), so a decision that would take minutes fails here in well under a second.
The inputs are the shapes that multiplied work before: `cd` in branches (each may apply or
not, so the places a relative path may start from doubled with each), long globs against path
rules (a product of automata, and a quadratic expansion of a leading `*`), many words, many
files, nested wrappers, arithmetic, unknown programs with command lines in their arguments.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tether.permissions import Decision, PermissionContext, decide, load_rules, suggest_rule
from tether.permissions.shell import parse_command

from .conftest import build_tree

MAX_CALLS = 1_200_000
"""Function calls one decision may make here: the parse at its bounds (6,000 syntax nodes)
and the judgement at its bound (steps.MAX_STEPS) take some 300,000 and 500,000. Measured, the
decisions below that stopped at a bound made at most 550,000. Before the bounds, a chain of 14
`cd`s in branches made over a billion."""

RULES = {
    "permissions": {
        "allow": ["Bash(cat *)", "Bash(ls *)", "Bash(git *)", "Bash(mytool *)", "Bash(npm *)"],
        "ask": ["Bash(curl *)"],
        "deny": [
            *("Read(./.env)", "Read(**/*.pem)", "Read(./secrets/**)", "Read(~/.ssh/**)"),
            *("Edit(./.env)", "Bash(rm *)", "Bash(sudo *)"),
        ],
    }
}


class TooMuchWork(BaseException):
    """Raised from the profiler: the decision went past `MAX_CALLS`."""


@contextmanager
def counting_calls(limit: int = MAX_CALLS) -> Iterator[list[int]]:
    count = [0]

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event in ("call", "c_call"):
            count[0] += 1
            if count[0] > limit:
                sys.setprofile(None)
                raise TooMuchWork(f"more than {limit} calls")

    sys.setprofile(profile)
    try:
        yield count
    finally:
        sys.setprofile(None)


def work(tool: str, call: dict[str, Any], ctx: PermissionContext) -> tuple[Decision, int]:
    """The decision and the calls it made, the parse included (its cache cleared)."""
    parse_command.cache_clear()
    with counting_calls() as count:
        decision = decide(tool, call, ctx)
    return decision, count[0]


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory) -> PermissionContext:
    tree = build_tree(tmp_path_factory.mktemp("bounds"))
    for name in ("a", "b", "d0", "src/sub"):
        (tree.ws / name).mkdir(parents=True, exist_ok=True)
    rules = load_rules([(tree.ws / ".claude" / "settings.json", RULES)], seed_yaml=None)
    return PermissionContext(
        mode="default", rules=rules, workspace=tree.ws, cwd=tree.ws, home=tree.home
    )


def _bash(command: str, ctx: PermissionContext) -> tuple[Decision, int]:
    assert len(command) <= 100_000
    return work("Bash", {"command": command}, ctx)


# The attacker's inputs: minutes each before the bounds.
ATTACKS = {
    "a chain of 16 cd in branches": " || ".join(f"cd a{i}" for i in range(16)) + " || ls",
    "cd in subshells and branches": "; ".join(f"(cd d{i}) || cd e{i}" for i in range(40))
    + "; cat .env",
    "cd a || cd b, repeated": "cd a || cd b; " * 40 + "cat .env",
    "a glob of 4,000 stars": "cat " + "*a" * 4_000,
    "a glob of 32,000 stars": "cat " + "*a" * 32_000,
    "a glob 3,000 levels deep": "cat " + "*/" * 3_000 + "x",
    "a glob 6,000 levels deep to .env": "cat " + "*/" * 6_000 + ".env",
    "a glob 7,500 levels deep below secrets": "cat secrets/" + "*/" * 7_500 + "key",
}


@pytest.mark.parametrize("name", ATTACKS)
def test_the_attacks_are_decided_within_bounds(name: str, ctx: PermissionContext) -> None:
    decision, calls = _bash(ATTACKS[name], ctx)
    assert decision.behavior in ("ask", "deny"), decision
    assert calls <= MAX_CALLS


def test_places_after_cd_in_branches_stay_few(ctx: PermissionContext) -> None:
    """Past a few places, a further `cd` leaves the shell somewhere unknown: a relative path
    after it may be anywhere, so it may be a file a deny rule covers (asked, in
    bypassPermissions mode too)."""
    command = " || ".join(f"cd a{i}" for i in range(30)) + "; cat .env"
    decision, calls = _bash(command, ctx)
    assert decision.behavior == "deny", decision  # `.env` from the workspace itself
    assert calls < 200_000
    command = " || ".join(f"cd a{i}" for i in range(30)) + "; cat notes.txt"
    decision, _ = _bash(command, ctx)
    assert decision == Decision(
        "ask", "Read(./.env)", "notes.txt may reach files deny rule Read(./.env) covers"
    )  # `.env/notes.txt`, should the shell be in the workspace's `.env` directory
    command = " || ".join(f"cd a{i}" for i in range(3)) + "; cat notes.txt"
    assert _bash(command, ctx)[0].behavior == "allow"  # eight places, all known


def test_a_long_glob_against_a_pattern_rule(ctx: PermissionContext) -> None:
    """`*.pem` shares its last characters with the glob, so no shortcut decides: the product
    search runs, counted, and a glob too long to compare is too large to judge."""
    short, _ = _bash("cat " + "*a" * 50 + "*.pem", ctx)
    assert (short.behavior, short.rule) == ("ask", "Read(**/*.pem)"), short  # may be a .pem
    long, calls = _bash("cat " + "*a" * 20_000 + "*.pem", ctx)
    assert long.behavior == "deny", long
    assert long.reason.startswith("too large to judge"), long
    assert calls <= MAX_CALLS


_FAMILIES: list[Callable[[int], str]] = [
    lambda n: " || ".join(f"cd a{i}" for i in range(n)) + " || cat .env",
    lambda n: "".join(f"{{ cd a{i} || cd b{i}; }}; " for i in range(n)) + "cat x",
    lambda n: "".join(f"(cd s{i}; (cd t{i})); pushd u{i}; " for i in range(n)) + "cat .env",
    lambda n: "".join(f"cd d{i}* || cd ~root; " for i in range(n)) + "ls",
    lambda n: "cat " + "*a" * (n * 20) + "*.pem",
    lambda n: "cat " + "*/" * (n * 15) + "x",
    lambda n: "ls secrets/" + "*/" * (n * 15),
    lambda n: "cat " + "?*" * (n * 20) + " " + "[.]*" * (n * 5),
    lambda n: "cat " + " ".join(f"/proc/*/cwd/x{i}*.pem" for i in range(n)),
    lambda n: "cd src; cat " + " ".join(f"../f{i} sub/g{i}" for i in range(n * 4)),
    lambda n: "cat " + " ".join(f"~root/x{i} ~nosuchuser{i}/y" for i in range(n * 2)),
    lambda n: "cat " + " ".join(f"< f{i}" for i in range(n * 4)),
    lambda n: "mytool " + " ".join(f"'ls {i}; cat y{i}'" for i in range(n)),
    lambda n: "env -S '" + " ".join(f"x{i}" for i in range(n * 20)) + "'",
    lambda n: "timeout 1 " * min(n, 90) + "ls",
    lambda n: "bash -c " + repr(" ; ".join(f"ls {i}" for i in range(n * 4))),
    lambda n: "echo $((" + "+".join(f"x{i}" for i in range(n * 20)) + "))",
    lambda n: "cat <<EOF\n" + "$(echo x) ${y:-z}\n" * (n * 10) + "EOF",
    lambda n: "git log " + " ".join(f"-L{i},5:f{i} -- p{i}" for i in range(n * 2)),
    lambda n: "npm exec -c " + repr("; ".join(f"cat f{i} > g{i}" for i in range(n * 2))),
]


@settings(
    max_examples=25,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    parts=st.lists(
        st.tuples(st.integers(0, len(_FAMILIES) - 1), st.integers(1, 400)), min_size=1, max_size=3
    )
)
def test_any_command_is_decided_within_bounds(
    parts: list[tuple[int, int]], ctx: PermissionContext
) -> None:
    command = "; ".join(_FAMILIES[family](size) for family, size in parts)[:100_000]
    decision, calls = _bash(command, ctx)
    assert decision.behavior in ("allow", "ask", "deny")
    assert not decision.reason.startswith("the permission engine could not judge"), decision
    assert calls <= MAX_CALLS


def test_file_tools_are_decided_within_bounds(ctx: PermissionContext) -> None:
    for path in ("a/" * 45_000 + ".env", "/proc/*/cwd/" * 8_000, "x" * 99_000, "../" * 30_000):
        for tool in ("Read", "Write", "Glob", "Grep"):
            decision, calls = work(tool, {"file_path": path, "path": path, "pattern": path}, ctx)
            assert decision.behavior in ("allow", "ask", "deny"), (tool, decision)
            assert calls <= MAX_CALLS, tool


def test_the_suggested_rule_is_bounded_too(ctx: PermissionContext) -> None:
    """What "always allow" would save is worked out from the same judgement: bounded alike."""
    command = " || ".join(f"cd a{i}" for i in range(30)) + " || mytool x"
    parse_command.cache_clear()
    with counting_calls() as count:
        suggest_rule("Bash", {"command": command}, ctx)
    assert count[0] <= MAX_CALLS


def test_a_bound_decides_like_code_that_cannot_be_seen(tmp_path: Path) -> None:
    """Too large to judge is denied where any deny rule exists, asked otherwise."""
    tree = build_tree(tmp_path)
    command = "cd src; cat " + " ".join(f"../f{i}" for i in range(3_000))
    plain = PermissionContext(
        mode="bypassPermissions",
        rules=load_rules([], seed_yaml=None),
        workspace=tree.ws,
        cwd=tree.ws,
        home=tree.home,
    )
    assert decide("Bash", {"command": command}, plain) == Decision(
        "allow", None, "bypassPermissions mode"
    )
    ruled = PermissionContext(
        mode="bypassPermissions",
        rules=load_rules([(tree.ws / ".claude" / "settings.json", RULES)], seed_yaml=None),
        workspace=tree.ws,
        cwd=tree.ws,
        home=tree.home,
    )
    assert decide("Bash", {"command": command}, ruled) == Decision(
        "deny",
        "Bash(rm *)",
        "too large to judge: it may run what deny rule Bash(rm *) forbids; write the command "
        "plainly",
    )

"""A glob is judged by what it matches on disk, symlinks followed, whatever metacharacter it
is spelled with (`*`, `?`, `[...]`, in any component): `cat src/l?nk_env` is `cat
src/link_env`, which leads to `.env`. Generated spellings of the paths to existing links
must get the literal path's decision; git plumbing that makes a symlink to any target is a
link to any file."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tether.permissions import PermissionContext, decide, load_rules

from .conftest import ContextFactory, build_tree

POLICY = {
    "permissions": {
        "deny": ["Read(./.env)", "Read(~/.ssh/**)", "Edit(./.env)", "Edit(~/.ssh/**)"],
        "allow": ["Bash(cat *)", "Bash(head *)", "Bash(grep *)", "Bash(echo *)", "Bash(git *)"],
    }
}
LINKS = ("src/link_env", "src/link_ssh", "homelink/.ssh/id_rsa")
"""Paths through the tree's symlinks (conftest.build_tree) to files the policy denies."""


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory) -> PermissionContext:
    tree = build_tree(tmp_path_factory.mktemp("globs"))
    rules = load_rules([(tree.ws / ".claude" / "settings.json", POLICY)], seed_yaml=None)
    return PermissionContext(
        mode="bypassPermissions", rules=rules, workspace=tree.ws, cwd=tree.ws, home=tree.home
    )


@st.composite
def _spelled(draw: st.DrawFn, name: str) -> str:
    """`name` with some characters as `?`, a bracket expression holding it, or inside `*`."""
    out: list[str] = []
    for i, c in enumerate(name):
        lead_dot = i == 0 and c == "."
        form = draw(st.sampled_from(["c", "c", "?", "[]", "[!]", "*"]))
        if lead_dot or form == "c":
            out.append(c)
        elif form == "?":
            out.append("?")
        elif form == "[]":
            out.append(f"[{c}{draw(st.sampled_from('xyz_'))}]")
        elif form == "[!]":
            out.append(f"[!{draw(st.sampled_from('XYZ'))}]")
        elif not out or out[-1] != "*":
            out.append("*")
    return "".join(out)


@st.composite
def _glob_of(draw: st.DrawFn) -> tuple[str, str]:
    """A path through a link, with at least one component spelled as a glob."""
    path = draw(st.sampled_from(LINKS))
    parts = path.split("/")
    at = draw(st.integers(min_value=0, max_value=len(parts) - 1))
    spelled = draw(_spelled(parts[at]))
    glob = "/".join([*parts[:at], spelled, *parts[at + 1 :]])
    return path, glob


_FUZZ = settings(
    max_examples=200, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)


@_FUZZ
@given(case=_glob_of(), program=st.sampled_from(["cat", "head -n1", "grep . ", "echo x >"]))
def test_a_glob_is_judged_as_what_it_matches(
    case: tuple[str, str], program: str, ctx: PermissionContext
) -> None:
    literal, glob = case
    expected = decide("Bash", {"command": f"{program} {literal}"}, ctx)
    found = decide("Bash", {"command": f"{program} {glob}"}, ctx)
    assert expected.behavior == "deny", (literal, expected)
    assert found.behavior == "deny", (glob, found)


def test_attack_forms(make_ctx: ContextFactory) -> None:
    """The report's forms, against a link made in the workspace."""
    ctx = make_ctx(POLICY)
    (ctx.workspace / "docs").mkdir()
    (ctx.workspace / "docs" / "k").symlink_to("../.env")
    (ctx.workspace / "src" / "up").symlink_to("..")
    for command in (
        "head docs/?",
        "cat docs/[ek]",
        "cat docs/*k",
        "tail docs/?",
        "grep . docs/?",
        "cat doc?/k",
        "cat src/u?/.env",
        "cat src/[u]p/.env",
        "echo x > docs/?",
    ):
        decision = decide("Bash", {"command": command}, ctx)
        assert decision.behavior == "deny", (command, decision)
    for command in ("cat src/*.py", "cat README.m?", "cat [R]EADME.md"):
        assert decide("Bash", {"command": command}, ctx).behavior == "allow", command


def test_git_plumbing_that_makes_a_link_is_a_link_to_any_file(make_ctx: ContextFactory) -> None:
    """A symlink put in the index (mode 120000, or any mode from stdin) is made by
    `checkout-index` with the blob's text as its target: judged as `ln -s $X` is."""
    ctx = make_ctx(POLICY)
    sha = "9f2584998d8bb06af4e4711ec6440c304425a12d"
    expected = decide("Bash", {"command": 'ln -s "$X" docs/k'}, ctx)
    assert expected.behavior == "ask"
    for command in (
        f"git update-index --add --cacheinfo 120000,{sha},docs/k",
        f"git update-index --add --cacheinfo 120000 {sha} docs/k",
        f"git update-index --cacheinfo=0120000,{sha},docs/k",
        f"git update-index --cacheinfo $M,{sha},docs/k",
        "git update-index --index-info < src/entries",
    ):
        decision = decide("Bash", {"command": command}, ctx)
        assert (decision.behavior, decision.rule) == ("ask", expected.rule), (command, decision)
    for command in (
        f"git update-index --add --cacheinfo 100644,{sha},src/a",
        "git update-index -q",
    ):
        assert decide("Bash", {"command": command}, ctx).behavior == "allow", command

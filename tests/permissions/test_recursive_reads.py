"""A recursive read (`grep -r`, `rg`, `git grep`, `git add DIR`) is asked under a Read deny
rule only when the tree below holds a file the rule covers, or when what it holds is not known
(too large, a symlink inside, not listable): judged from the disk when the call is judged, as
globs are. Bash is the oracle of what the command reads: every file below."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tether.permissions import PermissionContext, decide, load_rules
from tether.permissions.disk_probes import MAX_TREE

POLICY = {
    "permissions": {
        "allow": ["Bash(grep *)", "Bash(rg *)", "Bash(git *)", "Bash(cd *)"],
        "deny": ["Read(**/.env)", "Read(secrets/**)", "Read(*.pem)", "Bash(rm *)"],
    }
}
SEARCHES = ["grep -rn TODO {d}", "rg TODO {d}", "grep -r -l x {d}", "rg -n x -- {d}"]
_NAME = st.sampled_from(["a.py", "b.txt", ".env", "key.pem", "secrets", "lib", "x", ".envrc"])


def _covered(relative: str) -> bool:
    """The oracle: the rules above, read as their words say (relative to the workspace; a
    rule matching a directory covers what is below it)."""
    parts = relative.split("/")
    return parts[0] == "secrets" or any(p == ".env" or p.endswith(".pem") for p in parts)


def _covered_for_rg(relative: str) -> bool:
    """The oracle for rg, which skips hidden names: `.env` (hidden) is out of its reach; a
    covered name that is not hidden is judged in reach even below a hidden directory (the
    engine judges a rule by the names it covers: the safe side)."""
    parts = relative.split("/")
    return parts[0] == "secrets" or any(p.endswith(".pem") for p in parts)


@pytest.fixture
def workspace() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="recursive-reads-"))
    try:
        yield root
    finally:
        shutil.rmtree(root)


def _context(ws: Path) -> PermissionContext:
    rules = load_rules([(ws / ".claude" / "settings.json", POLICY)], seed_yaml=None)
    return PermissionContext(mode="default", rules=rules, workspace=ws, cwd=ws, home=ws / "home")


@given(
    files=st.lists(st.lists(_NAME, min_size=1, max_size=3), max_size=6),
    search=st.sampled_from(SEARCHES),
    where=st.sampled_from(["src", "src/lib", "."]),
)
@settings(max_examples=120, deadline=None)
def test_a_search_is_asked_exactly_when_a_covered_file_is_below(
    files: list[list[str]], search: str, where: str
) -> None:
    ws = Path(tempfile.mkdtemp(prefix="recursive-reads-"))
    try:
        (ws / "src" / "lib").mkdir(parents=True)
        for parts in files:
            path = ws.joinpath("src", *parts)
            if any(p.is_file() for p in (path, *path.parents)) or path.is_dir():
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("x\n")
        found = subprocess.run(
            ["find", where, "-type", "f"], cwd=ws, capture_output=True, text=True, check=True
        ).stdout.split()
        rg = search.startswith("rg ")
        covered = _covered_for_rg if rg else _covered
        reached = any(covered(os.path.normpath(f)) for f in found)
        decision = decide("Bash", {"command": search.format(d=where)}, _context(ws))
        assert decision.behavior == ("ask" if reached else "allow"), (found, decision)
    finally:
        shutil.rmtree(ws)


@pytest.mark.parametrize(
    "command", ["git add src/app.py", "git add src", "git add -A", "grep -rn TODO src", "rg TODO"]
)
def test_an_ordinary_repository_is_searched_and_staged_without_asking(
    workspace: Path, command: str
) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "app.py").write_text("print(1)\n")
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    assert decide("Bash", {"command": command}, _context(workspace)).behavior == "allow"


def test_what_is_not_known_is_asked(workspace: Path) -> None:
    """A symlink below may lead to a covered file; a tree larger than the listing's bound may
    hold one."""
    (workspace / "linked").mkdir()
    (workspace / "linked" / "up").symlink_to("..")
    (workspace / "big").mkdir()
    for i in range(MAX_TREE + 1):
        (workspace / "big" / f"f{i}").write_text("")
    ctx = _context(workspace)
    for command in ("grep -Rn x linked", "grep -rn x big", "git add linked"):
        assert decide("Bash", {"command": command}, ctx).behavior == "ask", command


def test_a_covered_file_named_by_its_directory_is_found(workspace: Path) -> None:
    """`secrets/**` covers every file below `secrets`, whatever its name."""
    (workspace / "secrets" / "deep").mkdir(parents=True)
    (workspace / "secrets" / "deep" / "plain.txt").write_text("k\n")
    decision = decide("Bash", {"command": "grep -rn x secrets/deep"}, _context(workspace))
    assert decision.behavior == "deny"

"""git's staging commands read every file their pathspecs cover, and a pathspec is a pattern:
git is the judge of which files a pathspec selects, and none of them may be staged past a
deny rule on it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tether.permissions import decide

from .conftest import ContextFactory

FILES = [".env", "a/.env", "A.ENV", "src/app.py", "secrets/k.pem", ".hidden/x", "e/nv", "s p/.env"]
MAGIC = ["", ":(glob)", ":(icase)", ":(literal)", ":/", ":(top)", ":(top,icase)", ":(glob,icase)"]
PIECES = ["*", "**", "?", "[.]", "[!x]", ".", "e", "E", "n", "v", "/", "a", "s", "*/"]


def _git(ws: Path, *args: str) -> str:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(ws),
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    done = subprocess.run(
        ["git", *args], cwd=ws, capture_output=True, text=True, env=env, timeout=20, check=False
    )
    return done.stdout


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("staging")
    ws = root / "ws"
    for name in FILES:
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text("x\n")
    _git(ws, "init", "-q")
    return ws


def _selected(ws: Path, pathspec: str) -> list[str]:
    """The files `git add` would stage for `pathspec` (a dry run: nothing is written)."""
    out = _git(ws, "add", "--dry-run", "--", pathspec)
    return [line[len("add '") : -1] for line in out.splitlines() if line.startswith("add '")]


@settings(
    max_examples=200,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    magic=st.sampled_from(MAGIC),
    # Not from `/`: git then reads the pathspec as absolute and walks the machine's whole tree.
    body=st.lists(st.sampled_from(PIECES), min_size=1, max_size=5)
    .map("".join)
    .filter(lambda body: not body.startswith("/")),
    command=st.sampled_from(["git add {}", "git add -f -- {}", "git stash push -- {}"]),
)
def test_no_file_a_pathspec_selects_is_staged_past_a_deny_rule(
    magic: str, body: str, command: str, repository: Path, make_ctx: ContextFactory
) -> None:
    pathspec = magic + body
    line = command.format("'" + pathspec + "'")
    for path in _selected(repository, pathspec):
        rule = f"Read(./{path})"
        ctx = make_ctx({"permissions": {"deny": [rule]}}, mode="bypassPermissions")
        decision = decide("Bash", {"command": line}, ctx)
        assert decision.behavior != "allow", (line, path, decision)


STAGING = [
    "git add -A",
    "git add --all",
    "git add .",
    "git add -u",
    "git add ':!src'",
    "git add ':/'",
    "cd src && git add -A",
    "git -C src add --all",
    "git commit -a -m wip",
    "git commit -am wip",
    "git commit -m wip -- '*.env'",
    "git stash",
    "git stash -u",
    "git stash push --include-untracked",
    "git stash --all",
    "git stash push -m wip -- '.e*'",
    "git update-index --add .env",
    "git update-index --add --stdin",
    "git hash-object -w .env",
    "git hash-object -w --stdin-paths",
    "git add --pathspec-from-file=list.txt",
    "git ls-files '*.env'",
    "git grep --cached KEY -- ':(glob)**/.e*'",
    "git log -p -- ':(icase).ENV'",
    "git rm --cached '*.env'",
]


@pytest.mark.parametrize("command", STAGING)
def test_staging_and_pathspecs_may_reach_a_denied_file(
    command: str, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx(
        {"permissions": {"deny": ["Read(./.env)"], "allow": ["Bash(git *)"]}},
        mode="bypassPermissions",
    )
    decision = decide("Bash", {"command": command}, ctx)
    assert decision.behavior in ("ask", "deny"), decision


@pytest.mark.parametrize(
    "command",
    [
        "git commit -m wip",
        "git stash list",
        "git stash show -p",
        "git add src/app.py",
        "git add ':!.env' src",
        "git add ':(literal)src/*.py'",
        "git status",
        "git ls-files src",
    ],
)
def test_staging_that_cannot_reach_it_is_allowed(command: str, make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"deny": ["Read(./.env)"], "allow": ["Bash(git *)"]}})
    decision = decide("Bash", {"command": command}, ctx)
    assert decision.behavior == "allow", decision


@pytest.mark.parametrize("pathspec", [":(literal)*/..", ":(literal)src/..", "src/..", "*/.."])
def test_a_dot_dot_in_a_pathspec_is_folded_as_git_folds_it(
    pathspec: str, repository: Path, make_ctx: ContextFactory
) -> None:
    """Git folds `..` by the pathspec's text (`*/..` is the top, whatever `*` is on disk):
    found by the property above, `:(literal)*/..` staged `.env` past its deny rule."""
    assert ".env" in _selected(repository, pathspec)
    ctx = make_ctx({"permissions": {"deny": ["Read(./.env)"]}}, mode="bypassPermissions")
    decision = decide("Bash", {"command": f"git add '{pathspec}'"}, ctx)
    assert decision.behavior != "allow", decision

"""Options that make a command write or read files it does not seem to: copies that are links
to their sources (writing the copy later writes the source: a link to a protected file is a
write of it), and the files a wrapper keeps of its own (`fakeroot -s FILE` saves its state
there, `-i FILE` loads it; `unshare --mount=FILE` mounts over FILE)."""

from __future__ import annotations

import os
import subprocess

import pytest

from tether.permissions import Decision, Mode, PermissionContext, decide

from .conftest import ContextFactory, Tree

DENIES = ["Read(./.env)", "Read(./secrets/**)", "Edit(./.env)"]


def bash(command: str, ctx: PermissionContext) -> Decision:
    return decide("Bash", {"command": command}, ctx)


def behaviors(commands: list[str], ctx: PermissionContext) -> dict[str, str]:
    return {c: bash(c, ctx).behavior for c in commands}


# 15. Links to protected files.

LINKS_TO_PROTECTED = [
    "cp -l .git/config notes.txt",
    "cp --link .claude/settings.json s.json",
    'cp -s "$PWD/.mcp.json" m.json',
    "cp --symbolic-link .tether/permissions.yaml p.yaml",
    "cp -al .git/hooks hooks",
    "cp -lt backup .git/config",
    "rsync -a --link-dest=.git/hooks src/ out/",
    "link .git/config gc",
]


def test_a_hard_link_is_the_file_it_links(tree: Tree) -> None:
    """What the class rests on: writing the link writes the protected file."""
    ws = tree.ws
    subprocess.run(["cp", "-l", ".git/config", "gc"], cwd=ws, check=True)
    (ws / "gc").write_text("[core]\n\tfsmonitor = evil\n")
    assert "fsmonitor" in (ws / ".git" / "config").read_text()
    assert os.stat(ws / "gc").st_ino == os.stat(ws / ".git" / "config").st_ino


@pytest.mark.parametrize("mode", ["default", "acceptEdits"])
def test_linking_a_protected_file_is_a_write_of_it(mode: Mode, make_ctx: ContextFactory) -> None:
    allowing = ["Bash(cp *)", "Bash(rsync *)", "Bash(link *)"]
    ctx = make_ctx({"permissions": {"allow": allowing}}, mode=mode)
    assert behaviors(LINKS_TO_PROTECTED, ctx) == dict.fromkeys(LINKS_TO_PROTECTED, "ask")
    # Linking a file an Edit rule denies is writing it.
    denying = make_ctx({"permissions": {"deny": ["Edit(./config/**)"], "allow": allowing}})
    assert bash("cp -l config/app.toml app.toml", denying).behavior == "deny"


def test_plain_copies_and_links_elsewhere_stay_allowed(make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"allow": ["Bash(cp *)"]}}, mode="acceptEdits")
    commands = ["cp .git/config config.bak", "cp -l src/app.py app.py", "cp -s README.md r.md"]
    assert behaviors(commands, ctx) == dict.fromkeys(commands, "allow")


# 16. Files a wrapper reads and writes itself.


@pytest.mark.parametrize(
    ("command", "plan", "default"),
    [
        ("fakeroot -s state.db -- ls", "deny", "ask"),
        ("fakeroot -s.git/config ls", "deny", "ask"),
        ("fakeroot -u -s .claude/settings.json ls", "deny", "ask"),
        ("fakeroot -i state.db ls", "allow", "allow"),
        ("fakeroot -i secrets/api.key ls", "deny", "deny"),
        ("fakeroot -i .env -s .env ls", "deny", "deny"),
        ("unshare -r --mount=.git/config true", "deny", "ask"),
        ("fakeroot ls", "allow", "allow"),
    ],
)
def test_wrapper_options_that_write_or_read_files(
    command: str, plan: str, default: str, make_ctx: ContextFactory
) -> None:
    rules = {"permissions": {"deny": DENIES, "allow": ["Bash(ls *)", "Bash(true)"]}}
    assert bash(command, make_ctx(rules, mode="plan")).behavior == plan
    assert bash(command, make_ctx(rules)).behavior == default


# 17. A wrapper's file operand: the lock file flock opens, created when missing.

LOCK_FILES = [
    "flock .mcp.json true",
    "flock -n .mcp.json -c true",
    "flock -w 5 .claude/settings.local.json true",
    "flock .git/hooks/pre-push true",
    "flock .envrc -c 'ls'",
    "flock {outside}/created.lock true",
    "logsave .mcp.json true",
    "logsave -a .git/hooks/pre-commit true",
]


@pytest.mark.parametrize("mode", ["default", "acceptEdits"])
def test_a_wrappers_file_operand_is_written(
    mode: Mode, tree: Tree, make_ctx: ContextFactory
) -> None:
    """`flock FILE CMD` creates FILE as `touch FILE` does: a protected file or one outside the
    workspace is asked, and plan mode denies it."""
    allowing = ["Bash(flock *)", "Bash(logsave *)", "Bash(true)", "Bash(ls *)", "Bash(touch *)"]
    ctx = make_ctx({"permissions": {"allow": allowing}}, mode=mode)
    commands = [tree.fill(c) for c in LOCK_FILES]
    assert behaviors(commands, ctx) == dict.fromkeys(commands, "ask")
    plan = make_ctx({"permissions": {"allow": allowing}}, mode="plan")
    for command in ("flock new.lock true", "logsave build.log true"):
        assert bash(command, plan).behavior == bash("touch new.lock", plan).behavior == "deny"
    # In the workspace, away from protected files, the lock is an ordinary write.
    plain = ["flock build.lock true", "flock build.lock -c ls", "logsave build.log ls"]
    assert bash("touch build.lock", ctx).behavior == "allow"
    assert behaviors(plain, ctx) == dict.fromkeys(plain, "allow")
    # Without a rule naming the wrapper, its file is a write no rule allows, as touch's is.
    unnamed = make_ctx({"permissions": {"allow": ["Bash(true)", "Bash(ls *)"]}}, mode=mode)
    expected = "allow" if mode == "acceptEdits" else "ask"
    assert bash("touch build.lock", unnamed).behavior == expected
    assert behaviors(plain, unnamed) == dict.fromkeys(plain, expected)

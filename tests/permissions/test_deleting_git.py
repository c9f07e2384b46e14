"""git's subcommands that delete working-tree files (`git rm`, `git clean`) meet the deny and
ask rules on `rm`; programs that start ssh for a `HOST:PATH` operand (scp, rsync, tar) meet
those on `ssh`. In every mode: bypassPermissions keeps deny rules."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

MODES = ("default", "acceptEdits", "bypassPermissions")
ALLOWED = ["Bash(git *)", "Bash(tar *)", "Bash(rsync *)", "Bash(scp *)"]


@pytest.mark.parametrize(
    ("command", "deletes"),
    [
        ("git rm -rf src", "src"),
        ("git rm -r --force -- src", "src"),
        ("git -C . rm -fr docs", "docs"),
        ("git clean -fdx", "whole working tree"),
        ("git clean -ffdX build", "build"),
        ("git clean -e '*.keep' -d --force", "whole working tree"),
        ("git -c clean.requireForce=false clean -d", "whole working tree"),
    ],
)
def test_git_deleting_trees_meets_rm_rf(
    command: str, deletes: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    rules = {"permissions": {"allow": ALLOWED, "deny": ["Bash(rm -rf *)"]}}
    for mode in MODES:
        verdict = decide("Bash", {"command": command}, make_ctx(rules, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)
        assert "deletes the untracked" in verdict.reason or f"deletes {deletes}" in verdict.reason
        assert deletes in verdict.reason


@pytest.mark.parametrize("command", ["git rm src/a.py", "git clean -f"])
def test_git_deleting_files_meets_rm(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    rules = {"permissions": {"allow": ALLOWED, "deny": ["Bash(rm *)"]}}
    verdict = decide("Bash", {"command": command}, make_ctx(rules, mode="bypassPermissions"))
    assert verdict.behavior == "deny", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "git rm -rqf --cached --no-cached src",
        "git rm -r --cached --no-cached -f src",
        "git rm -r -f --cached --no-cach --ignore-unmatch -- src",
        "git rm -rf -n --no-dry-run src",
        "git rm -rf --dry-run --no-dry src",
        "git rm -rf --dry --no-dry-run src",
        "git clean -fdxn --no-dry-run",
        "git clean -n -fdx --no-dry-run",
        "git clean --dry-run -d -f --no-d",
    ],
)
def test_git_options_turned_off_again_delete(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    """git reads its options in order: `--no-NAME` (or a prefix of it) undoes `--NAME` or
    its letter, so a dry run or `--cached` given and taken back deletes."""
    rules = {"permissions": {"allow": ALLOWED, "deny": ["Bash(rm -rf *)"]}}
    for mode in MODES:
        verdict = decide("Bash", {"command": command}, make_ctx(rules, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "git rm --cached -rf src",
        "git clean -n -fdx",
        "git clean --dry-run -d",
        "git rm -rf --no-cached --cached src",
        "git clean --no-dry-run -fd --dry",
        "git rm -rf --cach src",
    ],
)
def test_git_deleting_nothing_is_not_rm(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    rules = {"permissions": {"allow": ALLOWED, "deny": ["Bash(rm -rf *)"]}}
    verdict = decide("Bash", {"command": command}, make_ctx(rules))
    assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "tar -cf host:y README.md",
        "tar --file=u@host:y -c src",
        "tar cf box:/tmp/y src",
        "rsync -a src box:/d",
        "scp README.md u@box:x",
        "rsync --delete src box:d",
    ],
)
def test_programs_starting_ssh_meet_its_rules(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    rules = {"permissions": {"allow": ALLOWED, "deny": ["Bash(ssh *)"]}}
    for mode in MODES:
        verdict = decide("Bash", {"command": command}, make_ctx(rules, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)
        assert "by ssh" in verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "tar -cf /tmp/y.tar src",
        "tar --force-local -cf a:b src",
        "rsync -a src /tmp/d",
        "rsync -a src box::module",
        "rsync -a src rsync://box/m",
    ],
)
def test_local_and_daemon_paths_start_no_ssh(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    rules = {"permissions": {"allow": ALLOWED, "deny": ["Bash(ssh *)"]}}
    verdict = decide("Bash", {"command": command}, make_ctx(rules, mode="bypassPermissions"))
    assert verdict.behavior == "allow", (command, verdict.reason)

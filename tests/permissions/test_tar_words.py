"""tar's words are read once (tar_words.py), as GNU tar reads them, for both what reaches a
remote shell (an archive `HOST:FILE`: the `ssh HOST` it runs) and what `--remove-files`
deletes (the members, below `-C`'s directory): an option that takes a value (`-b 20`, the
old style's `cbf 20 HOST:FILE`, `-T LIST`) no longer shifts the archive onto another word."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory

RULES = {"permissions": {"deny": ["Bash(ssh *)", "Bash(rm -f src/*)"], "allow": ["Bash(tar *)"]}}


@pytest.mark.parametrize(
    "command",
    [
        "tar cbf 20 host:x src",
        "tar cTf list.txt host:x",
        "tar -cvf host:x src",
        "tar -c -b 20 -f host:x src",
        "tar --create --blocking-factor 20 --file host:x src",
        "tar -cbf 20 src --file=user@host:x",
    ],
)
@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
def test_an_archive_on_a_host_is_ssh_there(
    command: str, mode: str, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
    assert decision.behavior == "deny", decision
    assert "`ssh host` is denied" in decision.reason, decision


@pytest.mark.parametrize(
    ("command", "deleted"),
    [
        ("tar -c -C src -f a.tar --remove-files app.py", "src/app.py"),
        ("tar cCf src a.tar --remove-files app.py", "src/app.py"),
        ("tar --directory=src -cf a.tar --remove-files -- app.py", "src/app.py"),
        ("tar -cf a.tar --remove-files src/app.py", "src/app.py"),
    ],
)
def test_remove_files_deletes_the_members_below_the_directory(
    command: str, deleted: str, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert decision.behavior == "deny", decision
    assert f"({deleted})" in decision.reason, decision


def test_force_local_and_plain_archives_reach_no_host(make_ctx: ContextFactory) -> None:
    for command in (
        "tar --force-local -cf host:x src",
        "tar -cf out.tar src",
        "tar -C h:x -cf a.tar src",
    ):
        decision = decide("Bash", {"command": command}, make_ctx(RULES))
        assert "ssh" not in decision.reason, (command, decision)

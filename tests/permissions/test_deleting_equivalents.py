"""Programs whose own options delete files do the work of `rm`: a deny or ask rule on rm holds
for `find -delete`, `rsync --delete*`/`--remove-source-files`, `tar --remove-files`, `zip -m`
and `shred -u`, whichever rule allows the program."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory

PROGRAMS = ["find", "rsync", "tar", "zip", "shred"]
ALLOW = [f"Bash({name} *)" for name in PROGRAMS]


@pytest.mark.parametrize(
    "command",
    [
        "find build -type f -delete",
        "find -L docs -name '*.orig' -delete",
        "find -O2 . -empty -delete -print",
        "rsync -a --delete-after src/ mirror/",
        "rsync -av --del src/ mirror/",
        "rsync -a --remove-sou src/ mirror/",
        "tar -czf logs.tgz --remove-files logs",
        "zip -rm logs.zip logs",
        "shred -zu notes.txt",
        "shred --remove=wipe notes.txt",
    ],
)
def test_a_deny_on_rm_holds_for_deleting_options(command: str, make_ctx: ContextFactory) -> None:
    rules = {"permissions": {"allow": ALLOW, "deny": ["Bash(rm:*)"]}}
    verdict = decide("Bash", {"command": command}, make_ctx(rules))
    assert verdict.behavior == "deny", (command, verdict.reason)
    assert " deletes " in verdict.reason, verdict.reason


def test_an_ask_on_rm_holds_for_find_delete(make_ctx: ContextFactory) -> None:
    rules = {"permissions": {"allow": ALLOW, "ask": ["Bash(rm -r -f:*)"]}}
    verdict = decide("Bash", {"command": "find -P dist -xdev -delete"}, make_ctx(rules))
    assert verdict.behavior == "ask", verdict.reason


def test_a_find_delete_with_tests_is_no_recursive_rm(make_ctx: ContextFactory) -> None:
    """`find . -name '*.pyc' -delete` deletes what its tests pick (a directory only once
    empty), as `rm -f` would: a deny on `rm -rf` does not hold for it, one on rm does."""
    command = "find . -name '*.pyc' -delete"
    recursive = {"permissions": {"allow": ALLOW, "deny": ["Bash(rm -rf:*)"]}}
    assert decide("Bash", {"command": command}, make_ctx(recursive)).behavior == "allow"
    every = {"permissions": {"allow": ALLOW, "deny": ["Bash(rm:*)"]}}
    assert decide("Bash", {"command": command}, make_ctx(every)).behavior == "deny"


@pytest.mark.parametrize(
    "command",
    [
        "find . -name '*.log' -print",
        "rsync -a src/ mirror/",
        "tar -czf logs.tgz logs",
        "zip -r logs.zip README.md",
        "find src -deletex",
    ],
)
def test_programs_that_delete_nothing_stay_allowed(command: str, make_ctx: ContextFactory) -> None:
    rules = {"permissions": {"allow": ALLOW, "deny": ["Bash(rm:*)"]}}
    verdict = decide("Bash", {"command": command}, make_ctx(rules))
    assert verdict.behavior != "deny", (command, verdict.reason)


@pytest.mark.parametrize(
    ("command", "says"),
    [
        (
            "rsync -a --delete build/ /srv/site/",
            "`rsync --delete` deletes the files in /srv/site/ that the sources lack: "
            "`rm -r -f -- /srv/site/`",
        ),
        (
            "rsync -rt --delete-excluded --exclude '*.tmp' a/ b/ mirror/",
            "`rsync --delete-excluded` deletes the files in mirror/ that the sources lack",
        ),
        (
            "rsync -a --remove-source-files inbox/ archive/",
            "`rsync --remove-source-files` deletes the files it sends from inbox/: "
            "`rm -r -f -- inbox/`",
        ),
        (
            "find . -name '*.pyc' -delete",
            "`find -delete` deletes the files its tests pick in .: `rm -f -- .`",
        ),
        (
            "find build dist -delete",
            "`find -delete` deletes build, dist and everything in it: `rm -r -f -- build dist`",
        ),
        (
            "tar -czf logs.tgz --remove-files logs",
            "`tar --remove-files` deletes the files it archives (logs): `rm -f -- logs`",
        ),
        (
            "tar cf out.tar notes --remove-files",
            "`tar --remove-files` deletes the files it archives (notes): `rm -f -- notes`",
        ),
        ("shred -u notes.txt", "`shred -u` overwrites and deletes notes.txt"),
        ("zip -m logs.zip a.log", "`zip -m` deletes the files it archives (a.log)"),
    ],
)
def test_the_reason_says_what_the_command_deletes(
    command: str, says: str, make_ctx: ContextFactory
) -> None:
    """The reason names what the command deletes (rsync --delete: the destination's extra
    files, not its sources; tar: what it archives, not the archive), then the rule."""
    rules = {"permissions": {"allow": ALLOW, "ask": ["Bash(rm:*)"]}}
    verdict = decide("Bash", {"command": command}, make_ctx(rules))
    assert verdict.behavior == "ask", (command, verdict.reason)
    assert verdict.reason.startswith(says), verdict.reason
    assert verdict.reason.endswith("needs confirmation (Bash(rm:*))"), verdict.reason

"""Programs that write the paths named inside their input (archives, patches): writes of a path
that may be anywhere, `.git/hooks` and `.claude/settings.json` included, as `tar -x` and `git
apply` are. Asked whatever a rule on the program allows, denied in plan mode; forms that
only list or test stay as the rule says."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory

EXTRACTING = [
    "patch -p1 -i src/h.diff",
    "patch --input=src/h.diff -p1",
    "patch -d src -p0 < fix.diff",
    "patch src/app.py fix.diff",
    "unzip -o src/x.zip",
    "unzip -qq src/x.zip -d src",
    "cpio -idv < src/x.cpio",
    "cpio --extract -F src/x.cpio",
    "cpio -pdm src/dest < list",
    "bsdtar -xf src/x.tar",
    "gtar xzf src/x.tgz",
    "7z x src/x.7z",
    "7za e -osrc src/x.7z",
    "jar xf src/x.jar",
    "jar --extract --file src/x.jar",
    "ar x lib.a",
    "ar -xv lib.a",
    "unrar x src/x.rar",
    "cabextract src/x.cab",
    "uudecode src/x.uu",
    "pax -r -f src/x.pax",
    "dpkg-deb -x x.deb src/out",
    "python3 -m zipfile -e src/x.zip .",
    "python3 -I -m tarfile --extract src/x.tar src",
    "busybox unzip src/x.zip",
    "busybox cpio -i < src/x.cpio",
]
LISTING = [
    "patch --dry-run -p1 -i src/h.diff",
    "unzip -l src/x.zip",
    "unzip -tq src/x.zip",
    "7z l src/x.7z",
    "jar tf src/x.jar",
    "ar t lib.a",
    "cpio -t < src/x.cpio",
    "python3 -m zipfile -l src/x.zip",
]
PROGRAMS = ["patch", "unzip", "cpio", "bsdtar", "gtar", "7z", "7za", "jar", "ar", "unrar"]
PROGRAMS += ["cabextract", "uudecode", "pax", "dpkg-deb", "python3", "busybox"]
ALLOW = [f"Bash({p} *)" for p in PROGRAMS] + ["Edit(**)"]


@pytest.mark.parametrize("command", EXTRACTING)
@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("default", "ask"),
        ("acceptEdits", "ask"),
        ("plan", "deny"),
        ("dontAsk", "deny"),
        ("bypassPermissions", "allow"),
    ],
)
def test_writing_what_the_input_names_is_asked_whatever_the_rule_on_the_program(
    command: str, mode: str, expected: str, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx({"permissions": {"allow": ALLOW}}, mode=mode)
    assert decide("Bash", {"command": command}, ctx).behavior == expected


@pytest.mark.parametrize("command", EXTRACTING)
def test_an_edit_deny_rule_holds_against_an_extraction_in_bypass_mode(
    command: str, make_ctx: ContextFactory
) -> None:
    settings = {"permissions": {"allow": ALLOW, "deny": ["Edit(.git/**)"]}}
    ctx = make_ctx(settings, mode="bypassPermissions")
    assert decide("Bash", {"command": command}, ctx).behavior == "ask"


@pytest.mark.parametrize("command", LISTING)
def test_listing_an_archive_stays_as_the_rule_says(command: str, make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"allow": ALLOW}})
    assert decide("Bash", {"command": command}, ctx).behavior == "allow"

"""A hidden file's other names (hard links) are hidden too: a cover hides a path, and a link
made outside under another name is the same file (an archive of a directory holding one
carried the secret). As root and as an unprivileged caller."""

from __future__ import annotations

import os
from pathlib import Path

from tether.sandbox.denied_links import DeniedLinks
from tether.sandbox.denied_reads import Budget, Denied

from .conftest import Layout, bash_runner, needs_bwrap
from .test_denied_reads import context, write

pytestmark = needs_bwrap

SHOW = "for f in {names}; do printf '%s=' $f; cat $f 2>&1 | tr -d '\\n'; echo; done"


async def run_show(boundary: Layout, names: list[str], *rules: str) -> dict[str, str]:
    boundary.hand_over()
    run = bash_runner(context(boundary, *rules))
    outcome = await run(command=SHOW.format(names=" ".join(names)))
    assert isinstance(outcome.content, str)
    return dict(line.split("=", 1) for line in outcome.content.splitlines())


async def test_a_hard_link_to_a_denied_file_reads_as_empty(boundary: Layout) -> None:
    ws = boundary.workspace
    write(ws / "config" / "prod.env", "PROD-SECRET\n")
    write(ws / "vault" / "inner" / "token", "VAULT-SECRET\n")
    write(ws / "plain.txt", "plain\n")
    (ws / "backup" / "deep").mkdir(parents=True)
    os.link(ws / "config" / "prod.env", ws / "backup" / "deep" / "copy-of-prod")
    os.link(ws / "vault" / "inner" / "token", ws / "tok")
    os.link(ws / "plain.txt", ws / "backup" / "plain-link")  # not denied: stays
    seen = await run_show(
        boundary,
        ["backup/deep/copy-of-prod", "tok", "backup/plain-link"],
        "Read(./config/*.env)",
        "Read(./vault/**)",
    )
    assert seen == {"backup/deep/copy-of-prod": "", "tok": "", "backup/plain-link": "plain"}


async def test_an_archive_of_a_directory_holding_a_link_carries_no_secret(
    boundary: Layout,
) -> None:
    ws = boundary.workspace
    write(ws / ".env.local", "ARCHIVED-SECRET\n")
    (ws / "notes").mkdir()
    write(ws / "notes" / "todo.md", "todo\n")
    os.link(ws / ".env.local", ws / "notes" / "saved")
    boundary.hand_over()
    run = bash_runner(context(boundary, "Read(**/.env*)"))
    outcome = await run(
        command='python3 -m tarfile -c "$TMPDIR/n.tar" notes && '
        'python3 -c \'import sys; print(open(sys.argv[1], "rb").read().count(b"SECRET"))\' '
        '"$TMPDIR/n.tar"'
    )
    assert outcome.content == "0"


async def test_a_link_made_outside_between_commands_is_hidden_at_the_next(
    boundary: Layout,
) -> None:
    ws = boundary.workspace
    write(ws / "keys" / "deploy.pem", "PEM-SECRET\n")
    (ws / "shared").mkdir()
    boundary.hand_over()
    run = bash_runner(context(boundary, "Read(./keys/deploy.pem)"))
    first = await run(command="ls shared | wc -l")
    assert first.content == "0"
    # The user (outside) links it, and also links a file under a new name in the
    # session's TMPDIR, another writable place.
    os.link(ws / "keys" / "deploy.pem", ws / "shared" / "k")
    boundary.hand_over()
    second = await run(command="cat shared/k; echo end")
    assert second.content == "end"


async def test_a_link_to_a_credential_of_the_home_is_hidden(boundary: Layout) -> None:
    write(boundary.home / ".netrc", "machine x password NETRC-SECRET\n")
    ws = boundary.workspace
    (ws / "docs").mkdir()
    os.link(boundary.home / ".netrc", ws / "docs" / "netrc.txt")
    seen = await run_show(boundary, ["docs/netrc.txt"])
    assert seen == {"docs/netrc.txt": ""}


def test_no_walk_when_no_hidden_file_has_another_name(tmp_path: Path) -> None:
    """The cost falls only where a hidden file has more than one link: a place that cannot
    be listed is never looked at otherwise."""
    write(tmp_path / "secret", "s\n")
    search = DeniedLinks(Budget(entries=1))
    found = search.find([(tmp_path / "secret", "rule")], [tmp_path])
    assert (found.paths, found.cut) == ((), None)
    for n in range(3):
        write(tmp_path / f"d{n}" / "f", "x\n")
    os.link(tmp_path / "secret", tmp_path / "d2" / "other")
    found = search.find([(tmp_path / "secret", "rule")], [tmp_path])
    assert found.paths == ()
    assert found.cut is not None
    assert "hard links" in found.cut
    assert "1 entries" in found.cut
    found = DeniedLinks().find([(tmp_path / "secret", "Read(secret)")], [tmp_path])
    assert found.paths == (
        Denied(tmp_path / "d2" / "other", False, "a hard link to a file hidden by Read(secret)"),
    )


def test_a_place_in_view_inside_a_hidden_directory_is_not_searched(tmp_path: Path) -> None:
    """The session's scratch directory lies in tether's hidden home: what commands make there
    is in view anyway, and is not looked at as a hidden file (nor counted against the bound)."""
    tether_home = tmp_path / "tether-home"
    scratch = tether_home / "scratch" / "s1"
    for n in range(30):
        write(scratch / f"built-{n}.o", "x\n")
    write(tether_home / "settings.json", "{}\n")
    found = DeniedLinks(source_entries=10).find([(tether_home, "a credential place")], [scratch])
    assert (found.paths, found.cut) == ((), None)

"""Mercurial reads more than `.hg/hgrc`: `hgrc-not-shared` after it, a share's source
repository's config (`.hg/sharedpath`), and the subrepositories `.hgsub` names. Each made
inside is swept like `.hgrc`, wherever under the writable roots they lead (a skipped
`node_modules` too). Measured before: each ran a hook or loaded an extension at the user's
`hg status`, `hg summary` or `hg commit` outside."""

from __future__ import annotations

from .conftest import Layout, bash_runner, needs_bwrap, sandboxed_context

pytestmark = needs_bwrap

HOOK = "[hooks]\\npre-status = echo RAN\\n"

MAKE = f"""set -e
mkdir -p sub/.hg && printf '{HOOK}' > sub/.hg/hgrc-not-shared
mkdir -p node_modules/src/.hg && printf '{HOOK}' > node_modules/src/.hg/hgrc
mkdir -p share/.hg && printf '../../node_modules/src/.hg' > share/.hg/sharedpath
mkdir -p outer/.hg outer/node_modules/s3/.hg && printf '{HOOK}' > outer/node_modules/s3/.hg/hgrc
printf 'node_modules/s3 = s3\\n' > outer/.hgsub
echo made
"""


async def test_what_hg_reads_besides_hgrc_is_swept(layout: Layout) -> None:
    run = bash_runner(sandboxed_context(layout))
    outcome = await run(command=MAKE)
    assert isinstance(outcome.content, str)
    assert outcome.content.startswith("made"), outcome.content
    ws = layout.workspace
    for config in (
        "sub/.hg/hgrc-not-shared",
        "node_modules/src/.hg/hgrc",
        "outer/node_modules/s3/.hg/hgrc",
    ):
        path = ws / config
        assert f"{path} set what hg outside" in outcome.content
        assert "RAN" not in path.read_text()
        assert "RAN" in path.with_name(path.name + ".tether-disabled").read_text()

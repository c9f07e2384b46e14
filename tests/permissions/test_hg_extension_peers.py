"""The repositories hg's bundled extensions and debugging commands open by their operands or
options (hg_peers.py): a local one outside the workspace has its `.hg/hgrc` loaded (an
extension there is any code) and its hooks run, as a pull's source has; asked as `hg pull
OUT` is. Operands that are revisions unless a flag says otherwise (`histedit ANCESTOR`,
`email REV`) stay revisions."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": ["Bash(hg *)"], "deny": ["Bash(curl *)"]}}
ALLOWING = {"permissions": {"allow": ["Bash(hg *)"]}}


@pytest.mark.parametrize(
    "command",
    [
        "hg convert {outside}/r conv",
        "hg convert -s git {outside}/r conv",
        "hg convert --filemap fm {outside}/r",
        "hg transplant -s {outside}/r tip",
        "hg transplant --source={outside}/r tip",
        "hg transplant -as{outside}/r",
        "hg transp --sour {outside}/r tip",
        "hg histedit --outgoing {outside}/r",
        "hg histedit -ko {outside}/r",
        "hg histedit --outg {outside}/r",
        "hg email -o {outside}/r",
        "hg email -b -t a@b {outside}/r",
        "hg lfconvert {outside}/r big",
        "hg lfpull -r tip {outside}/r",
        "hg qclone {outside}/r c",
        "hg qclone -p {outside}/p https://h/r c",
        "hg relink {outside}/r",
        "hg gc {outside}/r",
        "hg debugpeer {outside}/r",
        "hg debugcapabilities file://{outside}/r",
        "hg debugdiscovery {outside}/r",
        "hg debugknown {outside}/r 0",
        "hg debugpushkey {outside}/r namespaces",
        "hg debugwireargs {outside}/r a",
        "hg admin::chainsaw-update --rev x --source {outside}/r --dest d",
        "hg -R . convert {outside}/r conv",
        # Their ssh command is a program run.
        "hg lfpull -e curl -r tip https://h/r",
        "hg qclone --ssh=curl https://h/r c",
    ],
)
def test_an_extensions_peer_outside_meets_the_deny_rules(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert verdict.behavior == "deny", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "hg convert src {outside}/conv",
        "hg convert src conv {outside}/revmap",
        "hg email -m {outside}/mbox -r tip",
        "hg debuggetbundle https://h/r {outside}/b.hg",
        "hg admin::chainsaw-update --rev x --source https://h/r --dest {outside}/d",
    ],
)
def test_what_they_write_outside_is_asked(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": tree.fill(command)}, make_ctx(ALLOWING))
    assert verdict.behavior == "ask", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "hg histedit 3",
        "hg histedit -r 3",
        "hg histedit --continue",
        "hg email -r tip -t a@b",
        "hg transplant -b default 5",
        "hg convert src conv",
        "hg convert https://h/r conv",
        "hg lfpull -r tip",
        "hg relink",
    ],
)
def test_ordinary_uses_stay_allowed(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)

"""conda's package specs name their own channel (conda_environments): `CHANNEL::NAME` and
`NAME[channel=CHANNEL]` of install, create, update and search take packages, and the scripts
they run, from CHANNEL; one on this machine outside the workspace (a path, a `file:` URL, `~`)
is code not seen, asked as `-c DIR` is. A named or remote channel is nothing local: a search
or install over the network is judged by the rule allowing conda, as `-c URL` is."""

from __future__ import annotations

import pytest

from tether.permissions import Decision, decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(conda *)", "Bash(mamba *)", "Bash(python *)"],
        "deny": ["Read(.env)", "Read(~/.ssh/**)", "Bash(curl *)"],
    }
}


def _unseen(place: str) -> tuple[str, None, str]:
    return ("ask", None, f"runs code from {place}, outside the workspace: not seen")


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("conda install file:///opt/ch::pkg", _unseen("/opt/ch")),
        ("conda install file://{outside}/ch::pkg", _unseen("{outside}/ch")),
        ("conda install FILE://{outside}/ch::pkg", _unseen("{outside}/ch")),
        ("conda install 'file:{outside}/ch::numpy>=1'", _unseen("{outside}/ch")),
        ("conda create -n x {outside}/ch::pkg", _unseen("{outside}/ch")),
        ("conda create -n x /opt/ch::numpy=1.2", _unseen("/opt/ch")),
        ("conda install ../outside/ch::pkg", _unseen("../outside/ch")),
        ("conda install ~/ch::pkg", _unseen("~/ch")),
        ("conda update {outside}/chan::pkg", _unseen("{outside}/chan")),
        ("conda install 'numpy[channel=file://{outside}/ch]'", _unseen("{outside}/ch")),
        ("conda install \"numpy[version='>=1', channel={outside}/ch]\"", _unseen("{outside}/ch")),
        ("conda search {outside}/ch::numpy", _unseen("{outside}/ch")),
        ("mamba install {outside}/ch::pkg", _unseen("{outside}/ch")),
        ("python -m conda install {outside}/ch::pkg", _unseen("{outside}/ch")),
        ("conda install -c '~' pkg", _unseen("~")),
        ("conda install ~::pkg", ("ask", None, "runs code from …, chosen as it runs: not seen")),
        ("conda install $SPEC", ("ask", None, "runs code from …, chosen as it runs: not seen")),
    ],
)
def test_a_spec_naming_a_channel_outside_is_asked(
    command: str, expected: tuple[str, None, str], tree: Tree, make_ctx: ContextFactory
) -> None:
    behavior, rule, reason = expected
    verdict = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert verdict == Decision(behavior, rule, tree.fill(reason))


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("conda install conda-forge::numpy", "Bash(conda *)"),
        ("conda install conda-forge/linux-64::numpy", "Bash(conda *)"),
        ("conda install {ws}/ch::numpy", "Bash(conda *)"),
        ("conda install ./ch::numpy", "Bash(conda *)"),
        ("conda install 'numpy[channel=conda-forge]'", "Bash(conda *)"),
        ("conda search -c https://conda.anaconda.org/x pkg", "Bash(conda *)"),
        ("conda search --channel=https://conda.anaconda.org/x pkg", "Bash(conda *)"),
        ("conda search https://conda.anaconda.org/x::numpy", "Bash(conda *)"),
        ("mamba search -c https://conda.anaconda.org/x pkg", "Bash(mamba *)"),
        ('conda install "numpy=$V"', "Bash(conda *)"),
    ],
)
def test_named_remote_and_workspace_channels_stay_allowed(
    command: str, rule: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert verdict == Decision("allow", rule, f"allowed by {rule}")


def test_a_search_over_the_network_is_asked_as_other_network_reads_without_a_rule(
    make_ctx: ContextFactory,
) -> None:
    command = "conda search -c https://conda.anaconda.org/x pkg"
    verdict = decide("Bash", {"command": command}, make_ctx({"permissions": {"allow": []}}))
    assert verdict == Decision("ask", None, f"no rule allows `{command}`")

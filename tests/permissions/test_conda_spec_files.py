"""Where a conda spec names its package by URL (`pkg[url=...]`, MatchSpec's key as `channel`
is), and the specs a `--file` list gives (`conda install --file reqs.txt`, a line each, or an
`@EXPLICIT` list of package URLs): one on this machine outside the workspace is code not seen,
asked as `pkg[channel=DIR]` and an environment file's channels are. Allowed before."""

from __future__ import annotations

import pytest

from tether.permissions import Decision, decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(conda *)", "Bash(mamba *)"],
        "deny": ["Read(.env)", "Bash(curl *)"],
    }
}


@pytest.mark.parametrize(
    ("command", "place"),
    [
        ("conda install 'pkg[url=file://{outside}/pkg-1-0.tar.bz2]'", "{outside}/pkg-1-0.tar.bz2"),
        ("conda install 'pkg[url={outside}/p.tar.bz2]'", "{outside}/p.tar.bz2"),
        ("conda install 'pkg[version=1, url={outside}/p.conda]'", "{outside}/p.conda"),
        ("conda install \"pkg[URL='{outside}/p.conda']\"", "{outside}/p.conda"),
        ("mamba create -n x 'pkg[url=file://{outside}/p.conda]'", "{outside}/p.conda"),
    ],
)
def test_a_package_url_on_this_machine_is_asked_as_a_channel_is(
    command: str, place: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    reason = tree.fill(f"runs code from {place}, outside the workspace: not seen")
    verdict = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert verdict == Decision("ask", None, reason)


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("numpy\n{outside}/ch::evilpkg  # pinned\n", "{outside}/ch"),
        ("pkg[channel=file://{outside}/ch]\n", "{outside}/ch"),
        ("@EXPLICIT\nfile://{outside}/p-1-0.conda\n", "{outside}/p-1-0.conda"),
    ],
)
@pytest.mark.parametrize(
    "command", ["conda install --file reqs.txt", "conda create -n x --file reqs.txt"]
)
def test_a_spec_file_is_read_for_where_its_packages_come_from(
    command: str, text: str, place: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({"reqs.txt": tree.fill(text)})
    reason = tree.fill(f"reqs.txt takes packages from {place}, outside the workspace: not seen")
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict == Decision("ask", None, reason)


@pytest.mark.parametrize(
    ("command", "files"),
    [
        ("conda install 'pkg[channel=conda-forge]'", {}),
        ("conda install --file reqs.txt", {"reqs.txt": "numpy>=1\nconda-forge::scipy\n# c\n"}),
    ],
)
def test_named_and_remote_sources_are_judged_by_the_rule_as_before(
    command: str, files: dict[str, str], tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write(files)
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict == Decision("allow", "Bash(conda *)", "allowed by Bash(conda *)")

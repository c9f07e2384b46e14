"""Packages fetched from a place the user did not configure ask, as npm's `--registry URL`
does: pip's, uv's and pipx's indexes, link pages and trusted hosts given on the command line
or in a requirements file (read in turn), a requirement fetched by its own URL or from a git
host, cargo's `install`/`add` from a git URL or an index URL, conda's channels given as URLs.
Allowed before under a rule allowing the installer, each of the asked ones."""

from __future__ import annotations

import pytest

from tether.permissions import Decision

from .conftest import ContextFactory, Tree, bash, expected

ALLOW = [
    "Bash(pip *)",
    "Bash(pip3 *)",
    "Bash(uv *)",
    "Bash(pipx *)",
    "Bash(python3 -m pip *)",
    "Bash(cargo *)",
    "Bash(conda *)",
    "Bash(mamba *)",
]
DENY = ["Bash(curl *)"]
INDEX = ", an index its configuration does not name: not seen"
FETCHED = ", fetched with the build code it runs from a URL or a git host, not the index: not seen"
REGISTRY = ", not the registry its configuration names: not seen"
CHANNEL = ", which its configuration does not name: not seen"
CERTIFICATE = " without checking its certificate: any host on the way may answer for it"
BUILT = "installs packages, whose build and set-up code runs, from "
FILES = {
    "req.txt": "--extra-index-url https://mirror.example/simple\nrequests\n",
    "nested.txt": "-r more.txt\n",
    "more.txt": "pkg @ git+https://github.com/o/r\n",
    "ok.txt": "requests>=2\n",
}

ASKED = [
    (
        "pip install -i https://mirror.example/simple pkg",
        "ask",
        None,
        f"pip {BUILT}https://mirror.example/simple{INDEX}",
    ),
    (
        "pip install --index-url=https://mirror.example/simple pkg",
        "ask",
        None,
        f"pip {BUILT}https://mirror.example/simple{INDEX}",
    ),
    (
        "pip install --extra-index https://mirror.example/simple pkg",
        "ask",
        None,
        f"pip {BUILT}https://mirror.example/simple{INDEX}",
    ),
    (
        "pip3 install -qihttps://mirror.example/simple pkg",
        "ask",
        None,
        f"pip3 {BUILT}https://mirror.example/simple{INDEX}",
    ),
    (
        "pip --index-url https://mirror.example/simple install pkg",
        "ask",
        None,
        f"pip {BUILT}https://mirror.example/simple{INDEX}",
    ),
    (
        "pip install pkg -f https://mirror.example/links",
        "ask",
        None,
        f"pip {BUILT}https://mirror.example/links{INDEX}",
    ),
    (
        "pip install --trusted-host mirror.example pkg",
        "ask",
        None,
        f"pip takes packages from mirror.example{CERTIFICATE}",
    ),
    (
        "pip download -d dl --index-url https://mirror.example/simple pkg",
        "ask",
        None,
        f"pip {BUILT}https://mirror.example/simple{INDEX}",
    ),
    (
        "pip install https://mirror.example/pkg-1.0.tar.gz",
        "ask",
        None,
        f"pip installs https://mirror.example/pkg-1.0.tar.gz{FETCHED}",
    ),
    (
        "pip install git+https://github.com/o/r",
        "ask",
        None,
        f"pip installs git+https://github.com/o/r{FETCHED}",
    ),
    (
        "pip install 'pkg[extra] @ git+ssh://git@github.com/o/r'",
        "ask",
        None,
        f"pip installs pkg[extra] @ git+ssh://git@github.com/o/r{FETCHED}",
    ),
    (
        "pip install pkg @ https://mirror.example/pkg.whl",
        "ask",
        None,
        f"pip installs https://mirror.example/pkg.whl{FETCHED}",
    ),
    (
        "pip install -r req.txt",
        "ask",
        None,
        f"req.txt: pip {BUILT}https://mirror.example/simple{INDEX}",
    ),
    (
        "pip install -r nested.txt",
        "ask",
        None,
        f"more.txt: pip installs git+https://github.com/o/r{FETCHED}",
    ),
    (
        "python3 -m pip install --trusted-host mirror.example pkg",
        "ask",
        None,
        f"pip takes packages from mirror.example{CERTIFICATE}",
    ),
    (
        "uv pip install --extra-index-url https://mirror.example/simple pkg",
        "ask",
        None,
        f"uv {BUILT}https://mirror.example/simple{INDEX}",
    ),
    (
        "uv add --index name=https://mirror.example/simple pkg",
        "ask",
        None,
        f"uv {BUILT}name=https://mirror.example/simple{INDEX}",
    ),
    (
        "uv add --default-index https://mirror.example/simple pkg",
        "ask",
        None,
        f"uv {BUILT}https://mirror.example/simple{INDEX}",
    ),
    (
        "uv lock --index https://mirror.example/simple",
        "ask",
        None,
        f"uv {BUILT}https://mirror.example/simple{INDEX}",
    ),
    (
        "uv tool install git+https://github.com/o/r",
        "ask",
        None,
        f"uv installs git+https://github.com/o/r{FETCHED}",
    ),
    (
        "pipx install git+https://github.com/o/r",
        "ask",
        None,
        f"pipx installs git+https://github.com/o/r{FETCHED}",
    ),
    (
        "cargo install --git https://github.com/o/r",
        "ask",
        None,
        f"cargo install builds a crate, whose build script runs, from https://github.com/o/r{REGISTRY}",
    ),
    (
        "cargo install --git=git@github.com:o/r",
        "ask",
        None,
        f"cargo install builds a crate, whose build script runs, from git@github.com:o/r{REGISTRY}",
    ),
    (
        "cargo add --index sparse+https://mirror.example/index/ pkg",
        "ask",
        None,
        f"cargo add builds a crate, whose build script runs, from sparse+https://mirror.example/index/{REGISTRY}",
    ),
    (
        "conda install -c https://mirror.example/channel pkg",
        "ask",
        None,
        f"conda installs packages, whose link scripts run, from the channel https://mirror.example/channel{CHANNEL}",
    ),
    (
        "conda install --chan=https://mirror.example/channel pkg",
        "ask",
        None,
        f"conda installs packages, whose link scripts run, from the channel https://mirror.example/channel{CHANNEL}",
    ),
    (
        "conda create -n env --override-channels -c https://mirror.example/channel pkg",
        "ask",
        None,
        f"conda installs packages, whose link scripts run, from the channel https://mirror.example/channel{CHANNEL}",
    ),
    (
        "mamba install 'https://mirror.example/channel::pkg'",
        "ask",
        None,
        f"mamba installs packages, whose link scripts run, from the channel https://mirror.example/channel{CHANNEL}",
    ),
]

ALLOWED = [
    ("pip install pkg", "Bash(pip *)"),
    ("pip install -r ok.txt", "Bash(pip *)"),
    ("pip install -e .", "Bash(pip *)"),
    ("pip install --no-index pkg", "Bash(pip *)"),
    ("python3 -m pip install pkg", "Bash(python3 -m pip *), Bash(pip *)"),
    ("uv add pkg", "Bash(uv *)"),
    ("uv sync", "Bash(uv *)"),
    ("pipx install pkg", "Bash(pipx *)"),
    ("cargo install ripgrep", "Bash(cargo *)"),
    ("cargo add serde --features derive", "Bash(cargo *)"),
    ("conda install -c conda-forge pkg", "Bash(conda *)"),
    ("conda install conda-forge::pkg", "Bash(conda *)"),
    ("conda search -c https://mirror.example/channel pkg", "Bash(conda *)"),
]
"""The configured index, a named channel, a local project in the workspace, a search of a
channel (it runs none of its code)."""


def test_packages_from_a_place_not_configured_are_asked(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write(FILES)
    ctx = make_ctx({"permissions": {"allow": ALLOW, "deny": DENY}})
    wanted = expected(ASKED, tree)
    assert {c: bash(c, ctx) for c in wanted} == wanted


@pytest.mark.parametrize(("command", "rule"), ALLOWED)
def test_packages_from_the_configured_index_stay_allowed(
    command: str, rule: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write(FILES)
    ctx = make_ctx({"permissions": {"allow": ALLOW, "deny": DENY}})
    assert bash(command, ctx) == Decision("allow", rule, f"allowed by {rule}")


UV_RUNS = [
    ("uv run --with git+https://github.com/o/r pytest", "uv installs git+https://github.com/o/r"),
    (
        "uv run --with rich,pkg@https://example.com/p.whl x.py",
        "uv installs pkg@https://example.com/p.whl",
    ),
    ("uvx --from git+ssh://git@example.com/o/r tool", "uvx installs git+ssh://git@example.com/o/r"),
    ("uvx --from=https://example.com/p.whl tool", "uvx installs https://example.com/p.whl"),
    ("uvx --from ruff==0.5 ruff", None),
]


@pytest.mark.parametrize(("command", "asked"), UV_RUNS)
def test_packages_uv_fetches_for_one_run_by_their_url_are_asked(
    command: str, asked: str | None, make_ctx: ContextFactory
) -> None:
    """`uv run --with` and `uvx --from` install what they name for the run, as `uv pip
    install` does: from a URL or a git host, code not seen (allowed before); a package from
    the index stays allowed. No deny rule here: with one, `uv run` of a registry package is
    denied whatever it installs."""
    ctx = make_ctx({"permissions": {"allow": ["Bash(uv *)", "Bash(uvx *)"]}})
    rule = "Bash(uvx *)" if command.startswith("uvx") else "Bash(uv *)"
    want = (
        Decision("ask", None, f"{asked}{FETCHED}")
        if asked
        else Decision("allow", rule, f"allowed by {rule}")
    )
    assert bash(command, ctx) == want

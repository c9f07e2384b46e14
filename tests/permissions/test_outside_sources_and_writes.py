"""Code and writes outside the workspace that program rules do not cover: conda's (mamba's,
micromamba's) local channels, package files, recipes and environment files from elsewhere,
an environment file's `file://` channels (conda_environments.conda_sources); the packages
`npm pack DIR` packs, whose prepack scripts run (pack_writes.pack_sources); and writes of
the places `meson init -C DIR` (`--builddir`, where it runs), `meson setup DIR`, `meson
compile -C DIR`, `pytest --cov-report=TYPE:DEST` and `coverage html -d DIR` name."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

PROGRAMS = ("conda", "mamba", "micromamba", "npm", "pnpm", "meson", "pytest", "coverage")
RULES = {"permissions": {"allow": [f"Bash({p} *)" for p in PROGRAMS]}}


@pytest.mark.parametrize(
    "command",
    [
        "conda install -c {outside}/chan x",
        "conda install --channel=file://{outside}/chan x",
        "conda install --chan file://{outside} x",
        "mamba install -c {outside}/chan x",
        "micromamba create -n e -c {outside}/chan x",
        "conda install {outside}/x.conda",
        "conda install file://{outside}/x.tar.bz2",
        "conda build {outside}",
        "conda develop {outside}",
        "conda env create {outside}/environment.yml",
        "conda env update {outside}/environment.yml",
        "conda env create -f environment-chan.yml",
        "npm pack {outside}/pkg",
        "npm pack file:{outside}/pkg",
        "npm pack --pack-destination {outside}",
        "pnpm pack {outside}/pkg",
        "meson init -C {outside}",
        "meson init --builddir {outside}/b",
        "meson init -b --builddir={outside}/b",
        "meson init --builddir {outside}/b -b",
        "meson init -C sub --builddir {outside}/b",
        "cd {outside} && meson init",
        "meson setup {outside}/b",
        "meson setup --buildtype release {outside}/b",
        "meson {outside}/b",
        "meson compile -C {outside}/b",
        "meson test -C {outside}/b",
        "meson configure {outside}/b",
        # The machine files name the compilers and tools the build runs.
        "meson setup build --native-file {outside}/n.ini",
        "meson setup build --native-file={outside}/n.ini",
        "meson setup --cross-file {outside}/c.ini build",
        "meson setup --cross-file=~/c.ini build",
        "meson setup --nat {outside}/n.ini build",
        "meson build --cross-file {outside}/c.ini",
        "meson setup --reconfigure build --native-file ../n.ini",
        "meson setup build --native-file '$HOME/n.ini'",
        "coverage html -d {outside}/h",
        "coverage html --directory={outside}/h",
        "coverage html --dir={outside}/h",
        "coverage json -o {outside}/c.json",
        "coverage xml -o{outside}/c.xml",
        "coverage lcov -o {outside}/c.lcov",
        "coverage annotate -d {outside}/a",
        "coverage report --rcfile={outside}/rc",
        "coverage combine --data-file {outside}/d",
        "python3 -m coverage html --dir {outside}/h",
        "coverage html -qd {outside}/h",
        "coverage html -id {outside}/h",
        "coverage json -qo {outside}/c.json",
        "coverage xml -io {outside}/c.xml",
        "coverage lcov -qo {outside}/c.lcov",
        "coverage annotate -qd {outside}/a",
        "python -m coverage html -qd {outside}/h",
        "coverage combine {outside}/data",
        "coverage combine -a {outside}/data",
        "coverage combine -q {outside}/d1 {outside}/d2",
        "cd {outside} && coverage html",
        "cd {outside} && coverage json",
        "cd {outside}; python3 -m coverage xml -q",
        "pytest --cov --cov-config={outside}/rc",
        "pytest --cov --cov-config {outside}/rc",
        "pytest --cov-report=html:{outside}/c",
        "pytest --cov-report xml:{outside}/c.xml",
        "pytest --cov-report=markdown-append:{outside}/m.md",
    ],
)
def test_code_and_writes_outside_are_asked(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({"environment-chan.yml": f"channels:\n  - file://{tree.outside}/chan\n"})
    text = tree.fill(command)
    verdict = decide("Bash", {"command": text}, make_ctx(RULES))
    assert verdict.behavior == "ask", (text, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "conda install -c conda-forge numpy",
        "coverage html -qd build/h",
        "coverage json -q",
        "coverage combine",
        "coverage combine --keep {outside}/data",
        "cd src && coverage html",
        "conda install conda-forge::numpy",
        "conda create -p ./env numpy",
        "conda create -n e python=3.12",
        "conda install ./local.conda",
        "conda build recipe",
        "conda env create",
        "conda env create -n e",
        "conda env create -f environment-named.yml",
        "npm pack",
        "npm pack ./sub",
        "npm pack src/../sub",
        "npm install lodash @types/node",
        "npm pack --pack-destination dist",
        "meson init",
        "meson init -C sub",
        "meson init -b",
        "meson init -C sub -b --builddir b",
        "meson setup build",
        "meson setup --buildtype release build",
        "meson compile -C build",
        "meson configure build",
        "meson introspect build --targets",
        "meson setup build --native-file native.ini",
        "meson setup --cross-file=cross/arm.ini build",
        "coverage html",
        "coverage html -d htmlcov",
        "coverage xml -o coverage.xml",
        "coverage run -m pytest",
        "coverage report -m",
        "pytest --cov src",
        "pytest --cov --cov-report=term-missing",
        "pytest --cov-report html",
        "pytest --cov-report=html:cov",
        "pytest --cov-report=term-missing:skip-covered",
    ],
)
def test_the_same_inside_stay_allowed(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    tree.write({"environment-named.yml": "channels:\n  - conda-forge\ndependencies: [numpy]\n"})
    tree.write({"native.ini": "[binaries]\n", "cross/arm.ini": "[binaries]\n"})
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)


def test_a_denied_file_written_as_the_report_is_denied(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    rules = {"permissions": {"allow": ["Bash(pytest *)"], "deny": ["Edit(**/.env)"]}}
    verdict = decide("Bash", {"command": "pytest --cov-report=xml:.env"}, make_ctx(rules))
    assert verdict.behavior == "deny", verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "conda install -c ~/chan numpy",
        "conda install -c=~/chan numpy",
        'conda install -c "$HOME/chan" numpy',
        "conda install --override-channels -c ~/chan numpy",
        "conda install ~/x.conda",
        "conda create -p {outside}/env numpy",
        "conda install --prefix ~/env numpy",
        "micromamba create -p /opt/env python",
        "conda env create -p {outside}/env",
        "npm pack ~/pkg",
        'npm pack "$HOME/pkg"',
        "npm pack src/../../outside/pkg",
        "npm pack homelink/pkg",
        "npm install ~/pkg",
    ],
)
def test_the_home_dotdot_and_symlinks_are_resolved_as_any_path(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    """The tables pick a path however the shell wrote it (`~`, `$HOME`: the parser's HOME
    marker; `a/../..`; a symlink): the path resolver says where it is."""
    text = tree.fill(command)
    verdict = decide("Bash", {"command": text}, make_ctx(RULES))
    assert verdict.behavior == "ask", (text, verdict.reason)

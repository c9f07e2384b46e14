"""Where pip and uv write what they install, download or build (`pip_sources.pip_writes`), and
the places `-C`/`--config-settings KEY=PATH` hands the build backend (asked outside):
`--target`, `--prefix`, `--root`, `--user`, `download -d`, `wheel -w`, `uv pip install
--target/--prefix`, in every spelling pip takes. A rule allowing pip covers writes inside the
workspace only: elsewhere, or into a protected path, the install is asked."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": [f"Bash({p} *)" for p in ("pip", "pip3", "uv", "python3")]}}


@pytest.mark.parametrize(
    "command",
    [
        "pip install --target {outside}/site requests",
        "pip install --target={outside}/site requests",
        "pip install -t {outside}/site requests",
        "pip install -qt {outside}/site requests",
        "pip install --targ {outside}/site requests",
        "pip install --prefix {outside}/p requests",
        "pip install --prefix={outside}/p requests",
        "pip install --root {outside}/r requests",
        "pip install --user requests",
        "pip3 install -q --user requests",
        "python3 -m pip install --target {outside}/site requests",
        "pip download -d {outside}/dl requests",
        "pip download --dest={outside}/dl requests",
        "pip wheel -w {outside}/wh requests",
        "uv pip install --target {outside}/site requests",
        "uv pip install --prefix {outside}/p requests",
        "pip install --target .git/hooks requests",
        "pip install --target .claude requests",
        # general options before the subcommand, read as after it (any prefix)
        "pip --cache-dir={outside}/c install requests",
        "pip --cache-d {outside}/c install requests",
        "pip -q --cache-dir {outside}/c download requests",
        "python3 -m pip --cache-dir {outside}/c install requests",
        "uv --cache-dir {outside}/c pip install requests",
        # uv's own writes: the build's output directory, the environment it makes
        "uv build -o {outside}/dist",
        "uv build --out-dir={outside}/dist",
        "uv build --out-d {outside}/dist",
        "uv venv {outside}/v",
        "uv venv --seed -p 3.12 {outside}/v",
        "uv venv --prompt x -- {outside}/v",
        # places a build setting hands the backend (-C/--config-settings KEY=PATH)
        "pip install -e . --config-settings editable_mode=compat -C x={outside}",
        "pip install . -C builddir={outside}/b",
        "pip install . -Cbuilddir=../outside/b",
        "pip install . --config-settings=setup-args=-Dx={outside}/native.ini",
        "pip install . --config-setting setup-args={outside}/x",
        "pip wheel . -C cmake.define.X=../outside/x",
        "python3 -m pip install . -C x={outside}/y",
        "uv pip install . --config-setting builddir={outside}/b",
        "uv pip install . -C builddir=$D",
    ],
)
def test_installs_writing_outside_or_protected_places_are_asked(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    text = tree.fill(command)
    verdict = decide("Bash", {"command": text}, make_ctx(RULES))
    assert verdict.behavior == "ask", (text, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "pip install --target vendor requests",
        "pip install -t build/site requests",
        "pip download -d dist requests",
        "pip wheel -w wheels requests",
        "uv pip install --target build/t requests",
        "pip install --upgrade requests",
        "pip --cache-dir=build/cache install requests",
        "pip -q install requests",
        "uv build -o dist",
        "uv venv",
        "uv venv .venv --python 3.12",
        "pip install -e . --config-settings editable_mode=compat",
        "pip install . -C builddir=build",
        "uv pip install . --config-setting builddir=./build",
    ],
)
def test_installs_writing_inside_the_workspace_are_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "uv tool install ruff",
        "uv tool install --force ruff",
        "uv --quiet tool install ruff",
        "uv --directory src tool install ruff",
        "uv tool upgrade ruff",
        "uv tool uninstall ruff",
        "uv tool update-shell",
        "UV_TOOL_DIR=tools UV_TOOL_BIN_DIR=bin uv tool install ruff",
    ],
)
def test_uv_tool_installs_onto_the_users_path_are_asked(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    # Programs put on the user's PATH (~/.local/bin) run in later shells, outside the
    # workspace: asked, as `pip install --user` is. They were allowed by Bash(uv *).
    verdict = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert verdict.behavior == "ask", (command, verdict.reason)


def test_uv_tool_listing_stays_allowed(tree: Tree, make_ctx: ContextFactory) -> None:
    for command in ("uv tool list", "uv tool dir"):
        verdict = decide("Bash", {"command": command}, make_ctx(RULES))
        assert verdict.behavior == "allow", (command, verdict.reason)

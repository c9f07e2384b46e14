"""`poetry add`, `pdm add`, `rye add` and `uv add` of a local project (a path, `file:`,
`git+file:`, editable or not, rye's `--path`/`--git`) read by pip's reader of requirement
sources (pip_sources): the project's build backend and set-up code run, so one outside the
workspace is asked whatever rule allows the tool; an index package or a project inside is not."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": [f"Bash({p} *)" for p in ("poetry", "pdm", "rye", "uv")]}}


@pytest.mark.parametrize(
    "command",
    [
        "poetry add {outside}/pkg",
        "poetry add ../outside/pkg",
        "poetry add git+file://{outside}/repo",
        "poetry add --editable ../outside/pkg",
        "poetry add -G dev -e {outside}/pkg",
        "poetry add opkg@file://{outside}/pkg",
        "pdm add {outside}/pkg",
        "pdm add -e {outside}/pkg",
        "pdm add -de ../outside/pkg",
        "pdm add -d ../outside/pkg",
        "pdm add -dG test {outside}/pkg",
        "pdm add -e../outside/pkg",
        "poetry add -D ../outside/pkg",
        "pdm add --editable=../outside/pkg",
        "pdm add file://{outside}/pkg",
        "pdm add 'opkg @ file:///{outside}/pkg'",
        "pdm add -G test git+file://{outside}/repo",
        "rye add opkg --path {outside}/pkg",
        "rye add opkg --path=../outside/pkg",
        "rye add opkg --git file://{outside}/repo",
        "uv add --editable ../outside/pkg",
        "uv add git+file://{outside}/repo",
    ],
)
def test_adding_a_project_from_outside_is_asked(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    text = tree.fill(command)
    verdict = decide("Bash", {"command": text}, make_ctx(RULES))
    assert verdict.behavior == "ask", (text, verdict.reason)
    assert "outside the workspace" in verdict.reason, verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "poetry add requests",
        "poetry add -G dev pytest@^8",
        "poetry add ./src",
        "pdm add -e ./src",
        "pdm add -d pytest",
        "pdm add -dG test -e ./src pytest",
        "pdm add -G lint ruff --no-sync",
        "poetry add 'django>=4.2,<5' requests@^2.31 -E socks",
        "rye add opkg --path src",
        "uv add --dev ruff",
        "poetry show requests",
    ],
)
def test_adding_an_index_package_or_a_project_inside_is_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)

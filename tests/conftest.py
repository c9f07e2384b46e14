"""Shared fixtures: the fake model server and env come from the tether pytest plugin."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing.cli_runner import CliResult, run_cli


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def tether(model_env: object, workspace: Path) -> Callable[..., CliResult]:
    """Run `tether ARGS` in-process against the fake model, in the test's workspace."""

    def run(*argv: str, stdin: str = "") -> CliResult:
        return run_cli(["--cwd", str(workspace), *argv], stdin=stdin)

    return run

"""Fixtures of the command-line tests that drive tether through the Claude Agent SDK."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.repl_terminal import Terminal
from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer


@pytest.fixture
def sdk(model_env: FakeModelServer, workspace: Path, home: Path) -> SdkRun:
    """The real SDK, with tether as its CLI, against the test's fake model."""
    return SdkRun(workspace, home)


@pytest.fixture
def terminal() -> Terminal:
    """The REPL's terminal, driven through a pipe (`tests.cli.repl_terminal`)."""
    return Terminal()

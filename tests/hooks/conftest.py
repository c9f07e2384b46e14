"""Hooks run for real: scripts written into the test's directory, run by the hook runner."""

from __future__ import annotations

import os
import shlex
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tether.hooks import HookRunner, parse_hooks

Script = Callable[[str, str], str]
MakeRunner = Callable[..., HookRunner]


@pytest.fixture
def script(tmp_path: Path) -> Script:
    """Write a Python hook script; returns the command line that runs it."""
    scripts = tmp_path / "scripts"
    scripts.mkdir()

    def write(name: str, body: str) -> str:
        path = scripts / name
        path.write_text(textwrap.dedent(body), encoding="utf-8")
        return f"{shlex.quote(sys.executable)} {shlex.quote(str(path))}"

    return write


@pytest.fixture
def make_runner(workspace: Path) -> MakeRunner:
    """A runner for a `hooks` block as it would appear in `.claude/settings.json`."""

    def make(hooks: dict[str, Any], *, permission_mode: str = "default") -> HookRunner:
        specs = parse_hooks([(workspace / ".claude" / "settings.json", {"hooks": hooks})])
        env = {k: v for k, v in os.environ.items() if not k.endswith("_PROJECT_DIR")}
        return HookRunner(
            specs,
            session_id="session-1",
            transcript_path=str(workspace / "transcript.jsonl"),
            cwd=workspace,
            project_dir=workspace,
            permission_mode=lambda: permission_mode,
            env=env,
        )

    return make

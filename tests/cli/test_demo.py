"""`tether demo`: the scripted session really fixes the project, over the real loop and tools."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from rich.console import Console

from tether.cli import ledger_setup
from tether.testing import demo
from tether.testing.demo import BUG, FIX, MODULE


def test_demo_fixes_the_project_for_real(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(demo, "STREAM_DELAY_S", 0.0)
    assert BUG in MODULE  # the scripted Edit's old_string matches the file it edits
    buffer = io.StringIO()
    console = Console(file=buffer, width=100, force_terminal=False)
    code = demo.main(["--keep"], console=console)
    out = buffer.getvalue()
    kept = re.search(r"The demo project is kept in (\S+)", out)
    assert kept is not None, out
    repo = Path(kept.group(1))
    try:
        assert code == 0, out
        assert "SCRIPTED" in out
        assert "● Bash(" in out
        assert "● Read(textstats.py)" in out
        assert "● Edit(textstats.py)" in out
        assert "FAILED (failures=1)" in out  # the first test run, shown as it really came out
        assert "✓ The project's tests pass." in out
        assert "ANTHROPIC_API_KEY" in out
        assert FIX in (repo / "textstats.py").read_text()
        run = subprocess.run(
            [sys.executable, "-m", "unittest", "-q"], cwd=repo, capture_output=True, check=False
        )
        assert run.returncode == 0
    finally:
        shutil.rmtree(repo, ignore_errors=True)


def test_demo_cleans_up_without_keep(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(demo, "STREAM_DELAY_S", 0.0)
    buffer = io.StringIO()
    code = demo.main([], console=Console(file=buffer, width=100, force_terminal=False))
    assert code == 0, buffer.getvalue()
    assert "kept in" not in buffer.getvalue()
    # The session and its ledger writer are closed before its home goes: no thread is left
    # to write there (the writer once recreated ledger.db after the home was removed).
    assert [p for p in ledger_setup._WRITERS if p.is_relative_to(tmp_path)] == []  # pyright: ignore[reportPrivateUsage]
    assert list(tmp_path.iterdir()) == []


def test_the_next_steps_name_the_command_a_newcomer_can_run(tmp_path: Path) -> None:
    """From a clone, `scripts/tether demo` is the first command: `tether` itself is on no
    PATH (it is in the checkout's `.venv`), so the next steps name `scripts/tether`."""
    script = Path(__file__).resolve().parents[2] / "scripts" / "tether"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    run = subprocess.run(
        [str(script), "demo"], cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    assert f"\n  {script} -p " in run.stdout, run.stdout
    assert "\n  tether -p " not in run.stdout, run.stdout

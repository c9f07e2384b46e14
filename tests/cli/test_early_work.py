"""A headless run starts the sandbox probe before its imports (`tether.cli.early_work`), only
where its settings leave the sandbox on, and the session build then takes that probe's
answer instead of probing again. Real `tether -p` processes, a bwrap that notes each run."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from tether.testing import FakeModelServer, reply, text


def _logging_bwrap(bin_dir: Path, log: Path) -> None:
    """A bwrap whose sandbox always works, noting the command line of each run."""
    bin_dir.mkdir()
    program = bin_dir / "bwrap"
    program.write_text(
        f'#!/bin/sh\necho "$@" >> {shlex.quote(str(log))}\n'
        '[ "$1" = --help ] && echo "    --ro-bind-fd FD DEST    --disable-userns"\n'
        "exit 0\n"
    )
    program.chmod(0o755)


def _run(workspace: Path, bin_dir: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": str(home)}
    return subprocess.run(
        [str(Path(sys.executable).with_name("tether")), "-p", "hi"],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )


def _settings(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def test_the_probe_runs_once_for_the_early_start_and_the_build(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    model_env.script(reply(text("ok")))
    log = tmp_path / "bwrap.log"
    _logging_bwrap(tmp_path / "bin", log)
    done = _run(workspace, tmp_path / "bin", home)
    assert done.stdout == "ok\n"
    help_run, trial = log.read_text().splitlines()
    assert help_run == "--help"
    assert trial.endswith(" -- true")


def test_the_users_settings_turning_the_sandbox_off_run_no_bwrap(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    model_env.script(reply(text("ok")))
    _settings(home / ".claude" / "settings.json", {"sandbox": {"enabled": False}})
    log = tmp_path / "bwrap.log"
    _logging_bwrap(tmp_path / "bin", log)
    done = _run(workspace, tmp_path / "bin", home)
    assert done.stdout == "ok\n"
    assert not log.exists()


def test_an_untrusted_workspace_turning_it_off_is_probed_by_the_build(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    # Its `enabled: false` is left out (it only loosens), so the sandbox is on: the early
    # start leaves the probe to the build, which runs it once.
    model_env.script(reply(text("ok")))
    _settings(workspace / ".claude" / "settings.json", {"sandbox": {"enabled": False}})
    log = tmp_path / "bwrap.log"
    _logging_bwrap(tmp_path / "bin", log)
    done = _run(workspace, tmp_path / "bin", home)
    assert done.stdout == "ok\n"
    assert "sandbox" in done.stderr  # the notice of what the untrusted workspace asked
    assert [line.split()[0] for line in log.read_text().splitlines()] == ["--help", "--ro-bind"]

"""A session file that cannot be written (made immutable, or read-only to a user who is not
root): `-c`, `--resume` and stream-json's resume report it in one line and go on in a fork,
a new session file holding the loaded history, as when another process holds the file. The
file it could not write stays as it was."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tether.core.resume import restore
from tether.store import list_sessions, load_session
from tether.testing import FakeModelServer, reply, text

NOBODY = 65534


def _immutable(path: Path, on: bool) -> bool:
    ran = subprocess.run(["chattr", "+i" if on else "-i", str(path)], capture_output=True)
    return ran.returncode == 0


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A folder the unprivileged user can reach (the test's tmp dir is root's alone)."""
    made = Path(tempfile.mkdtemp(prefix="tether-ro-"))
    made.chmod(0o755)
    try:
        yield made
    finally:
        shutil.rmtree(made, ignore_errors=True)


def _as_nobody(argv: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`python -m tether ARGV` as an unprivileged user (root would write a 0444 file)."""
    drop = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    return subprocess.run(
        [*drop, sys.executable, "-m", "tether", *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("how", ["-c", "--resume"])
def test_a_read_only_session_file_goes_on_in_a_fork(
    model_env: FakeModelServer, shared_dir: Path, how: str
) -> None:
    """A normal user's session file made 0444: the resume says why in one line (permission
    denied, never "free space"), the prompt is answered and kept in a fork that holds the
    history before it; the read-only file is untouched."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root (to become another user) and setpriv")
    home, workspace = shared_dir / "home", shared_dir / "ws"
    for folder in (home, workspace):
        folder.mkdir()
        os.chown(folder, NOBODY, NOBODY)
    env = {**os.environ, "TETHER_HOME": str(home), "HOME": str(home)}
    argv = ["--cwd", str(workspace), "--permission-mode", "bypassPermissions", "-p"]
    model_env.script(reply(text("first")), reply(text("went on")))
    first = _as_nobody([*argv, "start"], env, workspace)
    assert first.returncode == 0, first.stderr
    [info] = list_sessions(home, workspace)
    info.path.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    before = info.path.read_bytes()
    start = ["-c"] if how == "-c" else ["--resume", info.session_id]

    ran = _as_nobody([*start, *argv, "go on"], env, workspace)

    assert (ran.returncode, ran.stdout.strip()) == (0, "went on"), ran.stderr
    assert "Traceback" not in ran.stderr
    assert "free space" not in ran.stderr
    assert "stopped before" not in ran.stderr
    said = [line for line in ran.stderr.splitlines() if info.session_id in line]
    assert said == [
        f"tether: session {info.session_id} cannot be written (permission denied): this one "
        "continues in a new session forked from it"
    ], ran.stderr
    assert info.path.read_bytes() == before
    _assert_forked(home, workspace, info.session_id, "go on", "went on")


def test_an_immutable_session_file_goes_on_in_a_fork(
    fake_model: FakeModelServer, model_env: FakeModelServer, workspace: Path
) -> None:
    """`-c` over stream-json on a file made immutable (`chattr +i`, which root cannot write
    either): said once, with the reason; both prompts are answered and kept in the fork."""
    if os.geteuid() != 0 or shutil.which("chattr") is None:
        pytest.skip("needs root and chattr")
    fake_model.script(reply(text("first")))
    argv = ["--cwd", str(workspace), "--permission-mode", "bypassPermissions"]
    assert run_first(argv) == 0
    home = Path(os.environ["TETHER_HOME"])
    [info] = list_sessions(home, workspace)
    if not _immutable(info.path, True):
        pytest.skip("this file system has no immutable files")
    fake_model.script(reply(text("went on")), reply(text("and more")))
    command = [sys.executable, "-m", "tether", "-c", *argv, "--verbose"]
    command += ["--input-format", "stream-json", "--output-format", "stream-json"]
    try:
        with subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ) as process:
            _send_prompt(process, "go on")
            answered = _result(process)
            _send_prompt(process, "and now")
            more = _result(process)
            assert process.stdin is not None
            assert process.stderr is not None
            process.stdin.close()
            err = process.stderr.read()
            assert process.wait(timeout=60) == 0, err
    finally:
        _immutable(info.path, False)
    assert (answered["is_error"], answered["result"]) == (False, "went on")
    assert (more["is_error"], more["result"]) == (False, "and more")
    assert "Traceback" not in err
    assert "free space" not in err
    assert err.count("cannot be written (not permitted: the file is immutable") == 1, err
    assert answered["session_id"] != info.session_id
    _assert_forked(home, workspace, info.session_id, "and now", "and more")


def run_first(argv: list[str]) -> int:
    from tether.testing.cli_runner import run_cli

    return run_cli([*argv, "-p", "start"]).exit_code


def _assert_forked(home: Path, workspace: Path, original: str, asked: str, said: str) -> None:
    [fork] = [s for s in list_sessions(home, workspace) if s.session_id != original]
    restored = restore(load_session(fork.path))
    assert restored.damage == ()
    messages = restored.history.messages
    assert "start" in str(messages[0].content)  # the history it was forked from
    assert asked in str(messages[-2].content)
    assert said in str(messages[-1].content)


def _send_prompt(process: subprocess.Popen[str], words: str) -> None:
    assert process.stdin is not None
    line = {"type": "user", "message": {"role": "user", "content": words}}
    process.stdin.write(json.dumps(line) + "\n")
    process.stdin.flush()


def _result(process: subprocess.Popen[str]) -> dict[str, Any]:
    assert process.stdout is not None
    for raw in process.stdout:
        line = json.loads(raw)
        if line["type"] == "result":
            return line
    raise AssertionError("tether ended before the turn's result")

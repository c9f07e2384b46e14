"""What a tether killed with SIGKILL leaves behind is cleaned up by the next tether that starts:
commands still running with the sandbox off, half-written `.tether-tmp` files, its scratch
directory. Real tether processes, really killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


def _start(workspace: Path, *argv: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tether", "--cwd", str(workspace), *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for_pid(path: Path, proc: subprocess.Popen[str]) -> int:
    for _ in range(6000):  # bounded: the command writes it as soon as it runs
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.01)
    raise AssertionError(f"{path} never written")


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _gone(pid: int) -> bool:
    for _ in range(1000):  # SIGKILL is delivered at once; the exit takes a moment
        if not _alive(pid):
            return True
        time.sleep(0.01)
    return False


def _kill_survivors(pids: list[int]) -> None:
    """A failing test must not leave its sleepers behind."""
    for pid in pids:
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def unsandboxed(trusted_workspace: Path) -> Path:
    (trusted_workspace / ".tether").mkdir()
    (trusted_workspace / ".tether" / "settings.json").write_text('{"sandbox": {"enabled": false}}')
    return trusted_workspace


def test_commands_a_killed_tether_left_running_are_stopped_at_the_next_start(
    fake_model: FakeModelServer, tether: Run, unsandboxed: Path, tmp_path: Path
) -> None:
    workspace = unsandboxed
    fake_model.script(
        reply(
            tool_use("Bash", command="echo $$ > bg.pid; exec sleep 600", run_in_background=True),
            tool_use("Bash", command="sleep 600 & echo $! > child.pid; echo $$ > fg.pid; wait"),
        )
    )
    proc = _start(workspace, "-p", "work", "--permission-mode", "bypassPermissions")
    pids = [_wait_for_pid(workspace / name, proc) for name in ("bg.pid", "child.pid", "fg.pid")]
    try:
        [scratch] = list((tmp_path / "home" / "scratch").iterdir())
        proc.kill()
        proc.communicate(timeout=30)
        assert all(_alive(pid) for pid in pids)  # what a SIGKILLed tether leaves running

        fake_model.reset()
        fake_model.script(reply(text("clean")))
        result = tether("-p", "hello again")
        assert (result.exit_code, result.stdout) == (0, "clean\n"), result.stderr
        assert all(_gone(pid) for pid in pids)
    finally:
        _kill_survivors(pids)
    assert (
        f"tether: an earlier tether (pid {proc.pid}, session {scratch.name}) was killed without "
        "cleaning up: stopped 3 process(es) it left running."
    ) in result.stderr.splitlines()
    assert not scratch.exists()
    assert list((tmp_path / "home" / "runs").iterdir()) == []


def test_temporary_files_of_a_write_cut_by_sigkill_are_removed_at_the_next_start(
    fake_model: FakeModelServer, tether: Run, unsandboxed: Path
) -> None:
    workspace = unsandboxed
    content = "x" * 500_000  # long enough to write that the kill can land mid-write
    for attempt in range(5):  # a kill that came too late leaves nothing to check: again
        target = f"big-{attempt}.txt"
        fake_model.reset()
        fake_model.script(
            reply(tool_use("Write", file_path=target, content=content)), reply(text("written"))
        )
        proc = _start(workspace, "-p", "write it", "--permission-mode", "bypassPermissions")
        leftovers: list[Path] = []
        while proc.poll() is None and not leftovers:
            leftovers = [p for p in workspace.iterdir() if p.name.endswith(".tether-tmp")]
        proc.kill()
        proc.communicate(timeout=30)
        leftovers = [p for p in workspace.iterdir() if p.name.endswith(".tether-tmp")]
        if leftovers:
            break
    else:
        pytest.fail("no kill landed in the middle of a write in 5 attempts")
    assert leftovers[0].name.startswith(f".{target}.")

    fake_model.reset()
    fake_model.script(reply(text("clean")))
    result = tether("-p", "hello again")
    assert result.exit_code == 0, result.stderr
    assert [p for p in workspace.iterdir() if p.name.endswith(".tether-tmp")] == []
    assert "removed 1 half-written temporary file(s)" in result.stderr


def test_a_session_that_ends_normally_leaves_no_scratch_directory_or_record(
    fake_model: FakeModelServer, tether: Run, unsandboxed: Path, tmp_path: Path
) -> None:
    fake_model.script(
        reply(
            tool_use("Bash", command="seq 1 100000"),  # spilled to a log in the scratch dir
            # -p waits for it, as Claude Code does, and its end wakes the model once more
            tool_use("Bash", command="sleep 0.1", run_in_background=True),
        ),
        reply(text("done")),
        reply(text("woken")),
    )
    result = tether("-p", "work")
    assert result.exit_code == 0, result.stderr
    assert "the full output is in" in fake_model.requests[1].tool_results()[0]
    assert list((tmp_path / "home" / "scratch").iterdir()) == []
    assert list((tmp_path / "home" / "runs").iterdir()) == []


def test_a_live_tether_is_left_alone_by_another_that_starts(
    fake_model: FakeModelServer, tether: Run, unsandboxed: Path, tmp_path: Path
) -> None:
    workspace = unsandboxed
    fake_model.script(
        reply(tool_use("Bash", command="echo $$ > fg.pid; sleep 600")),
        reply(text("second")),
    )
    first = _start(workspace, "-p", "work", "--permission-mode", "bypassPermissions")
    shell = _wait_for_pid(workspace / "fg.pid", first)
    try:
        result = tether("-p", "meanwhile")
        assert result.exit_code == 0, result.stderr
        assert _alive(shell)
        assert first.poll() is None
        assert len(list((tmp_path / "home" / "runs").iterdir())) == 1  # the first one's
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=30)
        assert _gone(shell)
    finally:
        if first.poll() is None:
            first.kill()
            first.communicate(timeout=30)
        _kill_survivors([shell])


def test_a_home_where_no_record_can_be_kept_still_runs(
    fake_model: FakeModelServer, tether: Run, tmp_path: Path
) -> None:
    (tmp_path / "home" / "runs").write_text("not a directory\n")
    fake_model.script(reply(text("fine")))
    result = tether("-p", "hi")
    assert (result.exit_code, result.stdout) == (0, "fine\n"), result.stderr
    assert result.stderr.splitlines() == [
        f"tether: cannot keep this run's record under {tmp_path / 'home'} "
        f"({tmp_path / 'home' / 'runs'} is not a directory): if tether is killed, the commands "
        "it leaves running are not stopped at the next start"
    ]


@pytest.mark.parametrize("end", ["normal", "SIGTERM", "SIGINT"])
def test_a_process_that_left_the_commands_group_is_stopped_when_tether_ends(
    fake_model: FakeModelServer, unsandboxed: Path, end: str
) -> None:
    """A command's child that made a session of its own (`setsid`) is in no process group
    tether stopped; it still carries the run's marker, and is stopped at every end."""
    workspace = unsandboxed
    escape = (
        "python3 -c \"import subprocess; p = subprocess.Popen(['sleep', '600'], "
        "start_new_session=True); open('escaped.pid', 'w').write(str(p.pid))\""
    )
    steps = [tool_use("Bash", command=escape)]
    if end != "normal":
        steps.append(tool_use("Bash", command="echo $$ > waiting.pid; exec sleep 600"))
    fake_model.script(reply(*steps[:1]), *([reply(steps[1])] if end != "normal" else []))
    fake_model.script(reply(text("done")))
    proc = _start(workspace, "-p", "escape", "--permission-mode", "bypassPermissions")
    escaped = _wait_for_pid(workspace / "escaped.pid", proc)
    try:
        if end != "normal":
            _wait_for_pid(workspace / "waiting.pid", proc)
            proc.send_signal(signal.SIGTERM if end == "SIGTERM" else signal.SIGINT)
        proc.communicate(timeout=120)
        assert _gone(escaped)
    finally:
        _kill_survivors([escaped])

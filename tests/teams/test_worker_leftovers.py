"""A single worker killed with SIGKILL while its sandbox is off leaves its command running:
the next `tether tasks` or `tether worker` to start stops it, through the run records the
killed worker's session kept, before that command can write any more."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use
from tether.testing.cli_runner import run_cli_process
from tether.testing.workers import task_answers

from .conftest import git, write
from .test_worker_worktrees import step, trusted
from .workers import WAIT_S, add_tasks, board, finish, start_worker, wait_for


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("next_start", ["tasks", "worker"])
def test_a_killed_workers_command_is_stopped_by_the_next_start(
    repo: Path, model_env: FakeModelServer, next_start: str
) -> None:
    settings = {"permissions": {"allow": ["Bash"]}, "sandbox": {"enabled": False}}
    write(repo / ".claude/settings.json", json.dumps(settings))
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "rules")
    pid_file = repo / ".tether/worktrees/1/sleeper.pid"  # in the worktree, where it may write
    started: list[bool] = []

    def answer(task_id: str, request: RecordedRequest) -> Turn:
        if step(request) == 0 and not started:
            started.append(True)
            return tool_use("Bash", command="echo $$ > sleeper.pid; exec sleep 600")
        return text(f"done task {task_id}")

    model_env.responder = task_answers(answer)
    add_tasks(repo, [], "sleeps")
    doomed = start_worker(repo, "--worktrees", "--lease", "2", env=trusted())
    sleeper = 0
    try:
        wait_for(lambda: pid_file.exists() and pid_file.read_text().strip() != "", "the sleep")
        sleeper = int(pid_file.read_text())
        os.kill(doomed.pid, signal.SIGKILL)  # the worker alone: its command lives on
        finish(doomed)
        assert _alive(sleeper)
        if next_start == "tasks":
            done = run_cli_process(["tasks", "list"], cwd=repo, timeout_s=WAIT_S)
            assert done.exit_code == 0, done.stderr
            err = done.stderr
        else:
            code, _, err = finish(start_worker(repo, "--until-idle", "--worktrees", env=trusted()))
            assert code == 0, err
            [task] = board(repo, [])["tasks"]
            assert (task["status"], task["attempts"]) == ("completed", 2)
        wait_for(lambda: not _alive(sleeper), "the killed worker's command to stop")
    finally:
        if doomed.poll() is None:  # failed before its kill: no worker of the test outlives it
            doomed.kill()
            finish(doomed)
        if sleeper and _alive(sleeper):
            os.kill(sleeper, signal.SIGKILL)
    assert f"an earlier tether (pid {doomed.pid}, session " in err
    assert "stopped 1 process(es) it left running" in err

"""A worktree taken over from a paused worker: the commands that worker left running are
stopped before the new run commits anything, so a fenced-out run adds nothing to the branch."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use
from tether.testing.workers import is_first_call, task_answers

from .conftest import git, write
from .workers import add_tasks, board, finish, read_lines, start_worker, wait_for


def _running_with(token: str) -> list[int]:
    """Live processes whose command line holds `token` (a zombie's is empty)."""
    found: list[int] = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
        except OSError:
            continue
        if token.encode() in cmdline:
            found.append(int(name))
    return found


def test_a_paused_workers_commands_are_stopped_before_its_worktree_is_taken_over(
    repo: Path, tmp_path: Path, model_env: FakeModelServer
) -> None:
    write(
        repo / ".claude/settings.json",
        json.dumps({"permissions": {"allow": ["Write", "Bash"]}}),
    )
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "rules")
    gate = tmp_path / "gate-of-the-paused-run"
    command = (
        f"echo started > started.txt; while [ ! -e {gate} ]; do sleep 0.05; done; "
        "echo late > late.txt"
    )
    opened: list[int] = []

    def answer(task_id: str, request: RecordedRequest) -> Turn:
        if is_first_call(request):
            opened.append(1)
            if len(opened) == 1:
                return tool_use("Bash", command=command)
        return text("run done")

    model_env.responder = task_answers(answer)
    add_tasks(repo, [], "contested")
    env = {**os.environ, "TETHER_TRUST_WORKSPACE": "1"}
    paused = start_worker(repo, "--worktrees", "--lease", "3", env=env)
    later: subprocess.Popen[str] | None = None
    tree = repo / ".tether/worktrees/1"
    try:
        wait_for(lambda: (tree / "started.txt").exists(), "the first run's command to start")
        wait_for(lambda: bool(_running_with(str(gate))), "the command to show")
        paused.send_signal(signal.SIGSTOP)  # its command runs on; its lease runs out
        later = start_worker(repo, "--until-idle", "--worktrees", "--lease", "3", env=env)
        code, out, err = finish(later)
        assert code == 0, err
        assert "completed #1" in out
        assert "process(es) that task 1's earlier holder" in out
        # The paused run's command was stopped: opening its gate can write nothing now.
        wait_for(lambda: not _running_with(str(gate)), "the paused run's command to end")
        gate.write_text("open\n")
        lines = read_lines(paused)
        paused.send_signal(signal.SIGCONT)
        wait_for(lambda: any("dropped #1" in line for line in lines), "the first run's drop")
        paused.send_signal(signal.SIGTERM)
        finish(paused)
    finally:
        gate.write_text("open\n")
        for proc in (paused, later):
            if proc is not None and proc.poll() is None:
                os.killpg(proc.pid, signal.SIGCONT)
                os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
    assert not tree.exists()
    assert git(repo, "ls-tree", "--name-only", "tether/1").splitlines() == [
        ".claude",
        "a.txt",
        "b.txt",
        "started.txt",
    ]
    assert board(repo, [])["tasks"][0]["status"] == "completed"

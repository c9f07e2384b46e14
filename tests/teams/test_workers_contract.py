"""What a worker records, over the wire (real `tether worker` processes, the fake model
server, real git): every completion through the TaskCompleted hooks, the session acting on
its own task through the worker's claim, the main workspace's settings in a task worktree,
work that was all denied, a model endpoint that is down, the worktree's warnings."""

from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path
from typing import Any

from tether.testing import FakeModelServer, RecordedRequest, Turn, http_error, text, tool_use
from tether.testing.workers import done_text, task_answers, task_of

from .conftest import git, write
from .workers import add_tasks, board, finish, read_lines, start_worker, wait_for

TRUSTED = {"TETHER_TRUST_WORKSPACE": "1"}


def tasks_of(repo: Path) -> list[dict[str, Any]]:
    """The board's tasks, by id."""
    return sorted(board(repo, [])["tasks"], key=lambda t: int(t["id"]))


def hook_settings(repo: Path) -> None:
    """A TaskCompleted hook that refuses a task whose subject says "never" every time, and
    any other task the first time (exit 2, its reason on stderr)."""
    hook = repo / "gate.sh"
    write(
        hook,
        "#!/bin/bash\ninput=$(cat)\n"
        'id=$(echo "$input" | python3 -c "import json,sys; '
        "print(json.load(sys.stdin)['task_id'])\")\n"
        'if [[ "$input" == *never* || ! -e "$CLAUDE_PROJECT_DIR/seen-$id" ]]; then\n'
        '  touch "$CLAUDE_PROJECT_DIR/seen-$id"; echo "tests are still red" >&2; exit 2\nfi\n',
    )
    hook.chmod(0o755)
    hooks = {"TaskCompleted": [{"hooks": [{"type": "command", "command": str(hook)}]}]}
    write(repo / ".claude/settings.json", json.dumps({"hooks": hooks}))


def test_a_task_completed_hook_gates_the_workers_own_completion(
    repo: Path, model_env: FakeModelServer
) -> None:
    hook_settings(repo)

    def answer(task_id: str, request: RecordedRequest) -> Turn:
        return text(f"answer {len(request.messages()) // 2 + 1} of task {task_id}")

    model_env.responder = task_answers(answer)
    add_tasks(repo, [], "fixed on the second try", "never good enough")
    code, out, err = finish(start_worker(repo, "--until-idle", env={**os.environ, **TRUSTED}))
    assert code == 0, err
    first, second = tasks_of(repo)
    # Refused once: the session heard why, answered again, and that answer was recorded.
    assert (first["status"], first["result"]) == ("completed", "answer 2 of task 1"), first
    told = [r for r in model_env.requests if task_of(r) == "1"][1].messages()[-1]
    assert "TaskCompleted hook refused to complete task #1: tests are still red" in str(told)
    # Refused every time: not completed, failed with the hook's reason (a person may retry it).
    assert second["status"] == "failed"
    assert second["error"].startswith(
        "TaskCompleted hook refused the completion: tests are still red. "
        "The session's answer: answer 3 of task 2"
    )
    # Three refusals, as the README says: the hook ran three times on it.
    assert out.count("TaskCompleted hook refused to complete task #2: tests are still red") == 3


def test_a_worker_session_completes_or_fails_its_own_task_through_the_claim(
    repo: Path, model_env: FakeModelServer
) -> None:
    def answer(task_id: str, request: RecordedRequest) -> Turn:
        if len(request.messages()) > 1:
            return text("reported")
        if task_id == "1":
            return tool_use("TaskUpdate", taskId="1", status="completed", result="via the tool")
        return tool_use("TaskUpdate", taskId="2", status="failed", result="cannot be done")

    model_env.responder = task_answers(answer)
    add_tasks(repo, [], "complete me", "fail me")
    code, out, err = finish(start_worker(repo, "--until-idle"))
    assert code == 0, err
    results = [r.tool_results() for r in model_env.requests if len(r.messages()) > 1]
    assert results == [["Updated task #1 status"], ["Updated task #2 status"]]
    first, second = tasks_of(repo)
    assert (first["status"], first["result"], first["attempts"]) == (
        "completed",
        "via the tool",
        1,
    )
    assert (second["status"], second["error"]) == ("failed", "cannot be done")
    assert "completed #1 (by its session)" in out
    assert "failed #2 (by its session)" in out
    assert first["metadata"]["run"]["session_id"]


def test_a_session_cannot_give_back_the_task_it_was_given(
    repo: Path, model_env: FakeModelServer
) -> None:
    def answer(task_id: str, request: RecordedRequest) -> Turn:
        if len(request.messages()) > 1:
            return text("done anyway")
        return tool_use("TaskUpdate", taskId=task_id, status="pending")

    model_env.responder = task_answers(answer)
    add_tasks(repo, [], "mine")
    code, _, err = finish(start_worker(repo, "--until-idle"))
    assert code == 0, err
    said = next(r for r in model_env.requests if len(r.messages()) > 1).tool_results()[0]
    assert said.startswith("Error: task #1 is the task this session was given to work on")
    assert tasks_of(repo)[0]["status"] == "completed"


def test_a_task_worktree_uses_the_main_workspaces_local_settings(
    repo: Path, model_env: FakeModelServer
) -> None:
    # Untracked, so git does not carry it into the task's worktree.
    write(repo / ".claude/settings.local.json", json.dumps({"permissions": {"allow": ["Write"]}}))

    def answer(task_id: str, request: RecordedRequest) -> Turn:
        if len(request.messages()) > 1:
            return text(f"wrote task {task_id}")
        where = repo / ".tether/worktrees" / task_id / f"out-{task_id}.txt"
        return tool_use("Write", file_path=str(where), content="x\n")

    model_env.responder = task_answers(answer)
    add_tasks(repo, [], "write a file")
    env = {**os.environ, **TRUSTED}
    code, _, err = finish(start_worker(repo, "--until-idle", "--worktrees", env=env))
    assert code == 0, err
    task = tasks_of(repo)[0]
    assert task["status"] == "completed", task["error"]
    assert git(repo, "show", "tether/1:out-1.txt") == "x"
    assert "settings.local.json" not in git(repo, "ls-tree", "-r", "--name-only", "tether/1")


def test_a_task_whose_every_call_was_denied_is_not_completed(
    repo: Path, model_env: FakeModelServer
) -> None:
    def answer(task_id: str, request: RecordedRequest) -> Turn:
        done = len(request.messages()) // 2
        if done < 2:
            return tool_use("Bash", command=f"rm -rf build{done}")
        return text("all done")

    model_env.responder = task_answers(answer)
    add_tasks(repo, [], "clean up")
    add_tasks(repo, [], "after it", after=["1"])
    code, out, err = finish(start_worker(repo, "--until-idle"))
    assert code == 0, err
    task = tasks_of(repo)[0]
    assert task["status"] == "failed"
    assert tasks_of(repo)[1]["status"] == "blocked"
    # --until-idle sums up what it leaves that no worker will run.
    assert out.rstrip().endswith(
        "left on the board: 1 failed (#1) and 1 blocked (#2); `tether tasks retry 1` runs a "
        "failed one again"
    )
    assert task["error"].startswith(
        "nothing was done: every tool call (2) was denied. The session's answer: all done\n\n"
        "Denied (no rule allowed them; a worker cannot ask):\n- Bash(rm -rf build0): "
    )
    # The worker's line says why, in one line.
    assert "failed #1 ($0.0" in out
    assert (
        "): nothing was done: every tool call (2) was denied. The session's answer: all done\n"
        in out
    )


def test_a_model_endpoint_down_gives_tasks_back_instead_of_failing_them(
    repo: Path, model_env: FakeModelServer
) -> None:
    down = threading.Event()
    down.set()
    failures: list[int] = []

    def answer(task_id: str, request: RecordedRequest) -> Turn:
        if down.is_set():
            failures.append(1)
            if len(failures) >= 2 * 11:  # two tasks' turns failed, 11 tries each (Claude Code's)
                down.clear()
            return http_error(503, retry_after_ms=0)
        return done_text(task_id, request)

    model_env.responder = task_answers(answer)
    add_tasks(repo, [], "one", "two")
    env = {**os.environ, "TETHER_RETRY_DELAY_MS": "1"}
    code, out, err = finish(start_worker(repo, "--until-idle", env=env))
    assert code == 0, err
    assert out.count("back to the board (attempt not counted): the model endpoint failed") >= 1
    assert "waiting 1 s before the next claim" in out
    tasks = tasks_of(repo)
    assert [(t["status"], t["attempts"], t["result"]) for t in tasks] == [
        ("completed", 1, "done task 1"),
        ("completed", 1, "done task 2"),
    ]


def test_a_worktrees_preflight_warnings_are_shown_and_recorded(
    repo: Path, model_env: FakeModelServer
) -> None:
    model_env.responder = task_answers(done_text)
    write(repo / "a.txt", "changed, not committed\n")
    add_tasks(repo, [], "isolated")
    code, out, err = finish(start_worker(repo, "--until-idle", "--worktrees"))
    assert code == 0, err
    warning = "the main worktree has 1 uncommitted change(s) (a.txt): task 1's worktree starts"
    assert f"preparing #1: warning: {warning}" in out
    task = tasks_of(repo)[0]
    assert f"Worktree warnings:\n- {warning}" in task["result"]
    assert task["metadata"]["run"]["worktree"]["warnings"][0].startswith(warning)


def test_a_worker_in_an_untrusted_workspace_says_so_and_trusts_with_the_flag(
    repo: Path, model_env: FakeModelServer
) -> None:
    hook_settings(repo)
    model_env.responder = task_answers(done_text)
    add_tasks(repo, [], "first", "second")
    code, _, err = finish(start_worker(repo, "--until-idle"))
    assert code == 0, err
    assert err.count("tether: the workspace is not trusted: skipped ") == 1
    assert "--trust-workspace" in err
    assert [t["status"] for t in tasks_of(repo)] == ["completed", "completed"]
    assert not list(repo.glob("seen-*"))  # its hook did not run
    add_tasks(repo, [], "third")
    code, _, err = finish(start_worker(repo, "--until-idle", "--trust-workspace"))
    assert code == 0, err
    assert "not trusted" not in err
    assert (repo / "seen-3").exists()  # its hook ran (and refused once)


def test_an_unreachable_model_endpoint_gives_the_task_back_uncounted(
    repo: Path, model_env: FakeModelServer, refused_port: int
) -> None:
    closed = f"http://127.0.0.1:{refused_port}"
    add_tasks(repo, [], "needs the model")
    env = {**os.environ, "ANTHROPIC_BASE_URL": closed, "TETHER_RETRY_DELAY_MS": "1"}
    worker = start_worker(repo, "--worktrees", env=env)
    lines = read_lines(worker)
    wait_for(lambda: any("waiting 2 s" in line for line in lines), "two tasks given back")
    worker.send_signal(signal.SIGTERM)
    code, _, err = finish(worker)
    assert code == 128 + signal.SIGTERM, err
    out = "".join(lines)
    assert f"the model endpoint failed: cannot reach {closed}" in out
    assert "failed #1" not in out
    task = tasks_of(repo)[0]
    assert (task["status"], task["attempts"], task["error"]) == ("pending", 0, None)
    # Its worktree's (empty) attempt was closed as interrupted, nothing left behind.
    assert not (repo / ".tether/worktrees/1").exists()


def test_a_completion_refused_while_the_worker_stops_gives_the_task_back(
    repo: Path, model_env: FakeModelServer
) -> None:
    hook = repo / "stop-and-refuse.sh"
    write(hook, '#!/bin/bash\nkill -TERM "$(cat "$CLAUDE_PROJECT_DIR/worker.pid")"\n'
          "echo 'not yet' >&2\nexit 2\n")  # fmt: skip
    hook.chmod(0o755)
    hooks = {"TaskCompleted": [{"hooks": [{"type": "command", "command": str(hook)}]}]}
    write(repo / ".claude/settings.json", json.dumps({"hooks": hooks}))
    known = threading.Event()

    def answer(task_id: str, request: RecordedRequest) -> Turn:
        known.wait(timeout=300)  # the hook can name the worker
        return text("finished")

    model_env.responder = task_answers(answer)
    add_tasks(repo, [], "stopped at the end")
    worker = start_worker(repo, "--trust-workspace")
    (repo / "worker.pid").write_text(str(worker.pid))
    known.set()
    code, out, err = finish(worker)
    assert code == 128 + signal.SIGTERM, err
    assert "TaskCompleted hook refused to complete task #1: not yet" in out
    assert "gave #1 back to the board (stopped by SIGTERM)" in out
    task = tasks_of(repo)[0]
    assert (task["status"], task["attempts"], task["result"]) == ("pending", 0, None)
    assert len(model_env.requests) == 1  # the session was not prompted again

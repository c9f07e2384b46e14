"""`tether -c` in a project where workers ran continues the user's own newest session, not
the session a worker ran a task in (newer, but the worker's: its prompt, its worktree)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, text
from tether.testing.workers import done_text, task_answers

from .workers import add_tasks, board, finish, start_worker, tether


def _ask(repo: Path, fake: FakeModelServer, answer: str, *argv: str) -> dict[str, object]:
    fake.responder = None
    fake.script(text(answer))
    return json.loads(tether(repo, "-p", *argv, "--output-format", "json", "go on"))


@pytest.mark.parametrize("isolation", [[], ["--worktrees"]], ids=["in-project", "worktree"])
def test_continue_passes_over_the_sessions_workers_ran_tasks_in(
    repo: Path, model_env: FakeModelServer, isolation: list[str]
) -> None:
    mine = _ask(repo, model_env, "my own")["session_id"]
    model_env.responder = task_answers(done_text)
    add_tasks(repo, [], "paint the zebra")
    code, _, err = finish(start_worker(repo, "--until-idle", *isolation))
    assert code == 0, err
    worker_session = board(repo, [])["tasks"][0]["metadata"]["run"]["session_id"]
    assert worker_session != mine

    continued = _ask(repo, model_env, "still mine", "--continue")
    assert (continued["session_id"], continued["result"]) == (mine, "still mine")
    # The task's session is still there, for whoever asks for it by id.
    resumed = _ask(repo, model_env, "the task's", "--resume", str(worker_session))
    assert resumed["session_id"] == worker_session


def test_continue_with_only_a_workers_session_starts_a_new_one(
    repo: Path, model_env: FakeModelServer
) -> None:
    model_env.responder = task_answers(done_text)
    add_tasks(repo, [], "paint the zebra")
    code, _, err = finish(start_worker(repo, "--until-idle"))
    assert code == 0, err
    worker_session = board(repo, [])["tasks"][0]["metadata"]["run"]["session_id"]
    continued = _ask(repo, model_env, "new", "--continue")
    assert continued["session_id"] != worker_session
    # Its request held only the user's prompt: nothing of the task's conversation.
    assert "paint the zebra" not in json.dumps(model_env.requests[-1].messages())

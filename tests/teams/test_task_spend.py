"""A task's cost on the board is every model call made for it, whoever made it and however
its session ended: the same figure as the ledger's for the task."""

from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path

import pytest

from tests.ledger.conftest import rows
from tether.testing import FakeModelServer, RecordedRequest, Turn, reply, text, tool_use
from tether.testing.teammates import Letter, mate_answers, polite
from tether.testing.workers import task_answers

from .mates import member, new_team, status
from .workers import add_tasks, board, finish, start_worker, tether, wait_for

USAGE = {"input_tokens": 1000, "output_tokens": 50}


def _ledger_cost(task_id: str, team: str) -> float:
    return sum(
        c["cost"] for c in rows("model_calls") if (c["task_id"], c["team"]) == (task_id, team)
    )


def test_a_killed_workers_spend_stays_on_its_task(repo: Path, model_env: FakeModelServer) -> None:
    release = threading.Event()
    first_session: list[str] = []

    def answer(task_id: str, request: RecordedRequest) -> Turn:
        if not first_session:
            first_session.append(request.system())
        if request.system() == first_session[0] and request.tool_results():
            release.wait(timeout=300)  # the killed attempt's second call: never answered
        if request.system() == first_session[0] and not request.tool_results():
            return reply(tool_use("Bash", command="true"), usage=USAGE)
        return reply(text(f"done task {task_id}"), usage=USAGE)

    model_env.responder = task_answers(answer)
    add_tasks(repo, [], "crashes once")
    doomed = start_worker(repo, "--lease", "1")
    try:
        wait_for(lambda: len(model_env.requests) == 2, "the attempt's second model call")
        os.killpg(doomed.pid, signal.SIGKILL)
        doomed.communicate()
        code, _, err = finish(start_worker(repo, "--lease", "1", "--until-idle"))
    finally:
        release.set()
    assert code == 0, err
    task = board(repo, [])["tasks"][0]
    assert (task["status"], task["attempts"]) == ("completed", 2)
    # Two calls answered: the killed attempt's first and the second attempt's one.
    assert len([c for c in rows("model_calls") if c["task_id"] == "1"]) == 2
    assert task["cost_usd"] > 0
    assert task["cost_usd"] == pytest.approx(_ledger_cost("1", "default"))


def test_a_teammates_work_on_a_board_task_is_the_tasks_cost(
    repo: Path, model_env: FakeModelServer
) -> None:
    def answer(mate: str, letters: list[Letter], request: RecordedRequest) -> Turn:
        if letters and letters[0].body == "take one":
            return reply(tool_use("TaskNext"), usage=USAGE)
        return polite(mate, letters, request)

    answered: list[str] = []

    def after_tools(mate: str, request: RecordedRequest) -> Turn:
        answered.append(mate)
        if len(answered) == 1:  # TaskNext's result: the work is done, and said so
            return reply(tool_use("TaskUpdate", taskId="1", status="completed"), usage=USAGE)
        return reply(text(f"{mate} finished"), usage=USAGE)

    model_env.responder = mate_answers(answer, after_tools=after_tools)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice")
    try:
        assert tether(repo, "tasks", "add", "write parser", "--team", team).strip() == "1"
        tether(repo, "team", "send", team, "alice", "take one")
        wait_for(
            lambda: board(repo, ["--team", team])["tasks"][0]["status"] == "completed",
            "alice to complete #1",
        )
        wait_for(lambda: member(status(repo, team), "alice")["state"] == "idle", "alice idle")
    finally:
        tether(repo, "team", "down", team)
    task = board(repo, ["--team", team])["tasks"][0]
    # The call that asked for TaskUpdate was made for #1: the one that claimed it (before the
    # claim) and the reply after its completion were not.
    assert len([c for c in rows("model_calls") if (c["task_id"], c["team"]) == ("1", team)]) == 1
    assert task["cost_usd"] > 0
    assert task["cost_usd"] == pytest.approx(_ledger_cost("1", team))


def test_a_worker_killed_mid_tool_and_its_successor_agree_with_the_ledger(
    repo: Path, model_env: FakeModelServer
) -> None:
    started = repo / "started"  # inside the workspace: the sandbox lets it write there

    def answer(task_id: str, request: RecordedRequest) -> Turn:
        if not request.tool_results():
            command = f"touch {started} && sleep 300"
            return reply(tool_use("Bash", command=command), usage=USAGE)
        return reply(text(f"done task {task_id}"), usage=USAGE)

    model_env.responder = task_answers(answer)
    settings = repo / ".claude" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(json.dumps({"permissions": {"allow": ["Bash"]}}))
    add_tasks(repo, [], "killed mid-tool")
    doomed = start_worker(repo, "--lease", "1", "--trust-workspace")
    wait_for(started.exists, "the tool to run")
    os.killpg(doomed.pid, signal.SIGKILL)  # the worker, its session and its Bash at once
    doomed.communicate()
    started.unlink()
    model_env.responder = task_answers(
        lambda task_id, request: reply(text(f"done task {task_id}"), usage=USAGE)
    )
    code, _, err = finish(start_worker(repo, "--lease", "1", "--until-idle"))
    assert code == 0, err
    task = board(repo, [])["tasks"][0]
    assert (task["status"], task["attempts"]) == ("completed", 2)
    assert len([c for c in rows("model_calls") if c["task_id"] == "1"]) == 2
    assert task["cost_usd"] == pytest.approx(_ledger_cost("1", "default"))


def test_a_teammate_killed_mid_reply_leaves_board_mailbox_and_ledger_agreeing(
    repo: Path, model_env: FakeModelServer
) -> None:
    settings = repo / ".claude" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(json.dumps({"permissions": {"allow": ["Bash"]}}))
    hold = threading.Event()
    held: list[str] = []

    def answer(mate: str, letters: list[Letter], request: RecordedRequest) -> Turn:
        if letters and letters[0].body == "take one" and not held:
            return reply(tool_use("TaskNext"), usage=USAGE)
        return polite(mate, letters, request)

    def after_tools(mate: str, request: RecordedRequest) -> Turn:
        if "ran-it" not in " ".join(request.tool_results()) and not held:
            return reply(tool_use("Bash", command="echo ran-it"), usage=USAGE)  # made for #1
        if not held:
            held.append(mate)
            hold.wait(timeout=300)  # mid-reply: killed meanwhile
        return reply(text(f"{mate} finished"), usage=USAGE)

    model_env.responder = mate_answers(answer, after_tools=after_tools)
    team = new_team()
    up = ("team", "up", team, "--member", "alice", "--lease", "1", "--trust-workspace")
    tether(repo, *up)
    try:
        assert tether(repo, "tasks", "add", "write parser", "--team", team).strip() == "1"
        tether(repo, "team", "send", team, "alice", "take one")
        wait_for(lambda: bool(held), "alice's reply after the tool to be under way")
        os.killpg(member(status(repo, team), "alice")["pid"], signal.SIGKILL)
        wait_for(lambda: not member(status(repo, team), "alice")["running"], "alice's death")
        hold.set()
        tether(repo, *up)  # its unfinished turn is run again
        wait_for(lambda: member(status(repo, team), "alice")["unread"] == 0, "the mail read")
        wait_for(lambda: member(status(repo, team), "alice")["state"] == "idle", "alice idle")
        alice = member(status(repo, team), "alice")
        assert alice["board_task"] == "1", alice  # its claim taken back as it started again
    finally:
        hold.set()
        tether(repo, "team", "down", team)
    task = board(repo, ["--team", team])["tasks"][0]
    assert task["cost_usd"] > 0
    assert task["cost_usd"] == pytest.approx(_ledger_cost("1", team))

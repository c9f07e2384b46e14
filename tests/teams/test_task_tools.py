"""The task tools in a live session against the fake model server: a scripted model creates,
claims and completes tasks on the team's board (SQLite and a real Redis), and a
TaskCompleted hook can refuse a completion, its reason reaching the model."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.store.task_records import NewTask
from tether.store.task_store import TaskStore, open_task_store
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


@pytest.fixture(params=["sqlite", "redis"])
def team_env(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str | None:
    """The session belongs to a team of the test's own; the store is the project's file or
    the run's Redis server. Returns the store URL (None: the project's file)."""
    monkeypatch.setenv("TETHER_TEAM", f"tools-{uuid.uuid4().hex[:8]}")
    monkeypatch.setenv("TETHER_TASK_OWNER", "agent-1")
    if request.param == "sqlite":
        return None
    url = str(request.getfixturevalue("redis_url"))
    monkeypatch.setenv("TETHER_TEAM_STORE", url)
    return url


def board(url: str | None, workspace: Path) -> TaskStore:
    return open_task_store(url, project=workspace, team=os.environ["TETHER_TEAM"])


def test_a_model_creates_claims_and_completes_tasks(
    fake_model: FakeModelServer, tether: Run, workspace: Path, team_env: str | None
) -> None:
    fake_model.script(
        reply(
            tool_use("TaskCreate", subject="write parser", description="parse the input"),
            tool_use("TaskCreate", subject="ship", description="release"),
        ),
        reply(tool_use("TaskUpdate", taskId="2", addBlockedBy=["1"]), tool_use("TaskNext")),
        reply(tool_use("TaskUpdate", taskId="1", status="completed", result="parser written")),
        reply(tool_use("TaskList")),
        reply(text("done")),
    )
    result = tether("-p", "plan and do the work")
    assert result.exit_code == 0, result.stderr
    results = [r.tool_results() for r in fake_model.requests[1:]]
    assert results[0] == [
        "Task #1 created successfully: write parser",
        "Task #2 created successfully: ship",
    ]
    assert results[1][0] == "Updated task #2 blockedBy"
    assert results[1][1].startswith("Claimed task #1 for agent-1.\nTask #1: write parser\n")
    assert results[2] == ["Updated task #1 status"]
    assert results[3] == ["#1 [completed] write parser (agent-1)\n#2 [pending] ship"]
    store = board(team_env, workspace)
    done = store.get("1")
    assert (done.status, done.result, done.owner, done.attempts) == (
        "completed",
        "parser written",
        "agent-1",
        1,
    )
    assert store.get("2").status == "pending"
    # The tools are offered with Claude Code's input names.
    tools = {t["name"]: t for t in fake_model.requests[0].body["tools"]}
    assert set(tools["TaskUpdate"]["input_schema"]["properties"]) >= {
        "taskId",
        "subject",
        "description",
        "activeForm",
        "status",
        "addBlocks",
        "addBlockedBy",
        "owner",
        "metadata",
    }


def test_the_board_refuses_with_a_reason_the_model_reads(
    fake_model: FakeModelServer, tether: Run, workspace: Path, team_env: str | None
) -> None:
    board(team_env, workspace).create(NewTask(subject="held elsewhere"))
    claim = board(team_env, workspace).claim("1", "someone-else")
    fake_model.script(
        reply(tool_use("TaskCreate", subject="x", description="y", addBlockedBy=["9"])),
        reply(tool_use("TaskUpdate", taskId="1", status="completed")),
        reply(tool_use("TaskGet", taskId="5")),
        reply(text("ok")),
    )
    assert tether("-p", "go").exit_code == 0
    errors = [r.tool_results()[0] for r in fake_model.requests[1:]]
    team = board(team_env, workspace).team
    assert errors == [
        f"Error: unknown dependency #9: no such task in team '{team}'",
        "Error: task #1 is held by someone-else, not by agent-1: only its holder changes its "
        "status (until its lease runs out)",
        f"Error: no task #5 in team '{team}'",
    ]
    assert board(team_env, workspace).get("1").fence == claim.fence


def test_a_task_completed_hook_refuses_and_the_model_hears_why(
    fake_model: FakeModelServer, tether: Run, trusted_workspace: Path, team_env: str | None
) -> None:
    workspace = trusted_workspace
    hook = workspace / "check.sh"
    hook.write_text(
        "#!/bin/bash\ninput=$(cat)\n"
        'echo "$input" > "$CLAUDE_PROJECT_DIR/hook-input.json"\n'
        "echo 'tests are still red' >&2\nexit 2\n"
    )
    hook.chmod(0o755)
    (workspace / ".tether").mkdir(exist_ok=True)
    (workspace / ".tether" / "settings.json").write_text(
        json.dumps(
            {"hooks": {"TaskCompleted": [{"hooks": [{"type": "command", "command": str(hook)}]}]}}
        )
    )
    board(team_env, workspace).create(NewTask(subject="make tests pass", description="all"))
    fake_model.script(
        reply(tool_use("TaskUpdate", taskId="1", status="in_progress")),
        reply(tool_use("TaskUpdate", taskId="1", status="completed", result="done")),
        reply(text("I will fix the tests first.")),
    )
    assert tether("-p", "work").exit_code == 0
    assert fake_model.requests[2].tool_results() == [
        "Error: TaskCompleted hook refused to complete task #1: tests are still red"
    ]
    hook_input = json.loads((workspace / "hook-input.json").read_text())
    assert {k: hook_input[k] for k in ("hook_event_name", "task_id", "task_subject")} == {
        "hook_event_name": "TaskCompleted",
        "task_id": "1",
        "task_subject": "make tests pass",
    }
    task = board(team_env, workspace).get("1")
    # Not recorded; and the session, ending, gave its claim back.
    assert (task.status, task.result, task.attempts) == ("pending", None, 0)


def test_the_owner_of_a_held_task_cannot_be_rewritten(
    fake_model: FakeModelServer, tether: Run, workspace: Path, team_env: str | None
) -> None:
    board(team_env, workspace).create(NewTask(subject="held elsewhere"))
    board(team_env, workspace).claim("1", "someone-else")
    fake_model.script(
        reply(tool_use("TaskUpdate", taskId="1", owner="agent-1")),
        reply(tool_use("TaskCreate", subject=" ", description="nothing")),
        reply(text("ok")),
    )
    assert tether("-p", "go").exit_code == 0
    errors = [r.tool_results()[0] for r in fake_model.requests[1:]]
    assert errors[0].startswith("Error: task #1 is held by someone-else (lease until ")
    assert errors[0].endswith(
        "its owner cannot change while a claim holds it; it changes "
        "when the claim ends (completed, failed, given back)"
    )
    assert errors[1] == "Error: a task's subject cannot be empty: say in a few words what it is"
    task = board(team_env, workspace).get("1")
    assert (task.owner, task.status) == ("someone-else", "in_progress")
    assert [t.id for t in board(team_env, workspace).list()] == ["1"]


def test_a_task_created_hook_is_told_of_each_task_and_one_it_refuses_is_not_kept(
    fake_model: FakeModelServer, tether: Run, trusted_workspace: Path, team_env: str | None
) -> None:
    workspace = trusted_workspace
    hook = workspace / "check.sh"
    hook.write_text(
        "#!/bin/bash\ninput=$(cat)\n"
        'echo "$input" >> "$CLAUDE_PROJECT_DIR/created.jsonl"\n'
        'if grep -q "later" <<<"$input"; then echo "no vague tasks" >&2; exit 2; fi\n'
    )
    hook.chmod(0o755)
    (workspace / ".tether").mkdir(exist_ok=True)
    (workspace / ".tether" / "settings.json").write_text(
        json.dumps(
            {"hooks": {"TaskCreated": [{"hooks": [{"type": "command", "command": str(hook)}]}]}}
        )
    )
    fake_model.script(
        reply(tool_use("TaskCreate", subject="write parser", description="parse the input")),
        reply(tool_use("TaskCreate", subject="fix it later", description="someday")),
        reply(text("done")),
    )
    assert tether("-p", "plan").exit_code == 0
    assert fake_model.requests[2].tool_results() == [
        "Error: TaskCreated hook refused to create the task: no vague tasks"
    ]
    told = [json.loads(line) for line in (workspace / "created.jsonl").read_text().splitlines()]
    assert [(t["hook_event_name"], t["task_id"], t["task_subject"]) for t in told] == [
        ("TaskCreated", "1", "write parser"),
        ("TaskCreated", "2", "fix it later"),
    ]
    assert [t.subject for t in board(team_env, workspace).list()] == ["write parser"]


def test_work_on_a_claimed_task_is_filed_under_it(
    fake_model: FakeModelServer, tether: Run, team_env: str | None
) -> None:
    """A session that claims a task on the board (a teammate's TaskNext) files what it does
    under that task while it holds it, in the event log and the ledger, and under none once
    it is completed (they were filed under no task at all)."""
    import sqlite3

    from tether.observe.records import LOG_NAME, log_dir

    fake_model.script(
        reply(tool_use("TaskCreate", subject="write parser", description="parse the input")),
        reply(tool_use("TaskNext")),
        reply(tool_use("Bash", command="echo parsing")),
        reply(tool_use("TaskUpdate", taskId="1", status="completed", result="parsed")),
        reply(text("done")),
    )
    result = tether("--permission-mode", "bypassPermissions", "-p", "do the work")
    assert result.exit_code == 0, result.stderr
    home = Path(os.environ["TETHER_HOME"])
    records = [json.loads(line) for line in (log_dir(home) / LOG_NAME).read_text().splitlines()]
    started = [(r["payload"]["name"], r["task_id"]) for r in records if r["kind"] == "tool_started"]
    assert started == [
        ("TaskCreate", None),
        ("TaskNext", None),
        ("Bash", "1"),
        ("TaskUpdate", "1"),
    ]
    assert records[-1]["task_id"] is None  # the turn's end, after the completion
    with sqlite3.connect(home / "ledger.db") as db:
        calls = [row[0] for row in db.execute("SELECT task_id FROM model_calls ORDER BY rowid")]
        tools = dict(db.execute("SELECT tool, task_id FROM tool_calls"))
    assert calls == [None, None, "1", "1", None]
    assert tools == {"TaskCreate": None, "TaskNext": None, "Bash": "1", "TaskUpdate": "1"}

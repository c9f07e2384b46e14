"""The event log over the wire: a session run by the CLI against the fake model records every
event of its own and of its subagent under $TETHER_HOME, and the `eventLog` setting is a view
of the same records."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.agents.conftest import MAIN, Router
from tether.observe.records import EventRecord, parse_record, read_records
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


def _records() -> list[EventRecord]:
    return list(read_records(Path(os.environ["TETHER_HOME"])))


def test_every_event_of_a_session_and_its_subagent_is_logged(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("the key is 7\n")
    routes = Router()
    routes.add(
        MAIN,
        reply(
            tool_use(
                "Task",
                description="find the key",
                prompt="find-key: read notes.txt",
                subagent_type="Explore",
            )
        ),
        reply(text("The key is 7.")),
    )
    routes.add("find-key", reply(tool_use("Read", file_path="notes.txt")), reply(text("7")))
    routes.install(fake_model)
    result = tether("-p", "what is the key?", "--output-format", "json")
    assert result.exit_code == 0, result.stderr
    session_id = json.loads(result.stdout)["session_id"]

    records = _records()
    assert {r.session_id for r in records} == {session_id}
    assert {r.task_id for r in records} == {None}
    [started] = [r for r in records if r.kind == "subagent_started"]
    child = started.payload["agent_id"]
    assert started.agent_id == "main"
    tools = [(r.agent_id, r.kind, r.payload["name"]) for r in records if r.kind == "tool_finished"]
    assert tools == [(child, "tool_finished", "Read"), ("main", "tool_finished", "Task")]
    main_kinds = [r.kind for r in records if r.agent_id == "main"]
    assert main_kinds[0] == "session_started" or main_kinds[0] == "turn_started"
    assert main_kinds[-1] == "turn_finished"
    replies = [(r.agent_id, r.kind) for r in records if r.kind == "message_completed"]
    assert replies.count((child, "message_completed")) == 3  # 2 replies, 1 message of results
    assert [r.ts for r in records] == sorted(r.ts for r in records)


def test_the_event_log_setting_is_a_view_of_the_records(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    (workspace / ".tether").mkdir()
    (workspace / ".tether" / "settings.local.json").write_text(
        json.dumps({"tether": {"eventLog": "logs/events.jsonl"}})
    )
    fake_model.script(reply(tool_use("Bash", command="echo hi")), reply(text("done")))
    trusted = tether("-p", "say hi", "--trust-workspace")
    assert trusted.exit_code == 0, trusted.stderr
    view = workspace / "logs" / "events.jsonl"
    lines = [parse_record(line) for line in view.read_text().splitlines()]
    assert lines == _records()
    assert "tool_finished" in [r.kind for r in lines]


def test_a_workers_session_carries_its_owner_and_task(
    fake_model: FakeModelServer,
    tether: Run,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TETHER_TASK_OWNER", "worker-3")
    monkeypatch.setenv("TETHER_TASK_CLAIM", "42@1@1700000000.0")
    fake_model.script(reply(tool_use("Bash", command="echo hi")), reply(text("done")))
    result = tether("-p", "say hi")
    assert result.exit_code == 0, result.stderr
    records = _records()
    assert {(r.agent_id, r.task_id) for r in records} == {("worker-3", "42")}


def test_a_teammates_session_carries_its_name(
    fake_model: FakeModelServer,
    tether: Run,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TETHER_TEAMMATE", "reviewer")
    fake_model.script(reply(text("done")))
    result = tether("-p", "hi")
    assert result.exit_code == 0, result.stderr
    assert {(r.agent_id, r.task_id) for r in _records()} == {("reviewer", None)}

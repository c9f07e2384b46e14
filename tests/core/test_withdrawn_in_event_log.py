"""A prompt taken back out of its session (refused as too long for the window) is taken back
in the event log too: its `turn_started` record holds the prompt, and a `prompt_withdrawn`
record after it says the conversation goes on without it, as the session file does. Both
shapes: refused before sending (never in the file) and refused by the endpoint (in the file,
marked as taken back). The real headless CLI over the wire."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.observe.records import EventRecord, read_records
from tether.store import list_sessions
from tether.testing import FakeModelServer, reply, text
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]
WINDOW = 20_000


def _turn_records(session_id: str) -> list[EventRecord]:
    kinds = {"turn_started", "prompt_withdrawn", "turn_finished"}
    home = Path(os.environ["TETHER_HOME"])
    return [
        r
        for r in read_records(home)
        if r.session_id == session_id and r.agent_id == "main" and r.kind in kinds
    ]


def _session(workspace: Path) -> tuple[str, str]:
    """The session's id and its file's text."""
    [info] = list_sessions(Path(os.environ["TETHER_HOME"]), workspace)
    return info.session_id, info.path.read_text()


def _said(records: list[EventRecord]) -> list[tuple[str, str]]:
    """Each record's kind, with the start of the prompt it names."""
    return [(r.kind, str(r.payload.get("prompt", ""))[:7]) for r in records]


@pytest.fixture
def small_window(fake_model: FakeModelServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", str(WINDOW))
    fake_model.context_window = WINDOW


@pytest.mark.usefixtures("small_window")
def test_a_prompt_refused_before_sending_is_withdrawn_in_the_event_log(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    fake_model.script(reply(text("fine")), reply(text("after")))
    assert tether("-p", "start").exit_code == 0
    refused = tether("-c", "-p", "TOOLONG " + "w " * 41_000)
    assert refused.exit_code == 1
    assert "Nothing of the prompt was sent or kept in the session" in refused.stderr
    assert tether("-c", "-p", "small").stdout == "after\n"
    session_id, saved = _session(workspace)
    assert "TOOLONG" not in saved
    records = _turn_records(session_id)
    assert _said(records) == [
        ("turn_started", "start"),
        ("turn_finished", ""),
        ("turn_started", "TOOLONG"),
        ("prompt_withdrawn", "TOOLONG"),
        ("turn_finished", ""),
        ("turn_started", "small"),
        ("turn_finished", ""),
    ]
    withdrawn = records[3].payload
    assert withdrawn["taken"] == "unsaved"
    assert str(withdrawn["reason"]).startswith("Prompt is too long")


@pytest.mark.usefixtures("small_window")
def test_a_prompt_the_endpoint_refuses_is_withdrawn_in_the_event_log(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    fake_model.expect_rejections = True
    fake_model.script(reply(text("fine")), reply(text("after")))
    assert tether("-p", "start").exit_code == 0
    fake_model.token_factor = 1.6  # it counts more than the estimate: sent, then refused
    refused = tether("-c", "-p", stdin="REFUSED " + "lorem ipsum dolor sit amet " * 1200)
    assert refused.exit_code == 1
    assert "marked as taken back" in refused.stderr
    session_id, saved = _session(workspace)
    entries = [json.loads(line) for line in saved.splitlines()]
    assert [e["type"] for e in entries if e["type"] == "withdrawn"] == ["withdrawn"]
    records = _turn_records(session_id)
    assert _said(records)[2:] == [
        ("turn_started", "REFUSED"),
        ("prompt_withdrawn", "REFUSED"),
        ("turn_finished", ""),
    ]
    assert records[3].payload["taken"] == "withdrawn"

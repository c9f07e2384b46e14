"""A model that makes the same failing call again and again is told it will fail again (from
the third time), then stopped (at the eighth), over the wire; the session it leaves goes on.
Failures with progress between (a call that works, with an outcome not seen before) are not
told. Near-identical loops: `test_no_progress`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]

TOLD = "has now failed"


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")


def _results(fake_model: FakeModelServer, request: int) -> list[dict[str, Any]]:
    """The newest message of a request: the previous reply's results and reminders."""
    return fake_model.requests[request].messages()[-1]["content"]


def _told(fake_model: FakeModelServer) -> list[int]:
    """The requests whose newest message tells the model its call will fail again."""
    return [
        n
        for n in range(len(fake_model.requests))
        if any(TOLD in str(block.get("text", "")) for block in _results(fake_model, n))
    ]


def test_the_same_failing_call_is_told_then_stopped_and_the_session_goes_on(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    missing = str(workspace / "missing.txt")
    fake_model.script(*(reply(tool_use("Read", file_path=missing)) for _ in range(8)))
    result = tether("-p", "read it", "--output-format", "json")
    assert result.exit_code == 1
    assert len(fake_model.requests) == 8  # the eighth failure ends the turn
    # Told from the third failure on: requests 4 to 8 carry the results of failures 3 to 7.
    assert _told(fake_model) == [3, 4, 5, 6, 7]
    note = next(b["text"] for b in _results(fake_model, 3) if TOLD in str(b.get("text")))
    assert "The same call (Read) has now failed 3 times," in note
    outcome = result.json()
    assert (outcome["subtype"], outcome["is_error"]) == ("error_during_execution", True)
    assert outcome["errors"][0].startswith(
        "stopped: the model made the same failing call 8 times in its last 8 replies (Read)"
    )
    assert result.stderr.count("failing call 8 times") <= 1  # said once, if on stderr at all
    fake_model.script(reply(text("I will look elsewhere.")))
    again = tether("-p", "-c", "try something else", "--output-format", "json")
    assert again.exit_code == 0, again.stderr
    assert again.json()["result"] == "I will look elsewhere."
    # The eighth call was answered (the fake API refuses a call left without its result).
    newest = fake_model.requests[-1].messages()[-1]["content"]
    assert [b["type"] for b in newest][:1] == ["tool_result"]
    assert "try something else" in str(newest[-1])


def test_failures_between_which_the_model_makes_progress_are_not_told(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    a = tool_use("Read", file_path=str(workspace / "a.txt"))
    b = tool_use("Read", file_path=str(workspace / "b.txt"))
    fake_model.script(
        reply(a),
        reply(a),
        reply(tool_use("Bash", command="echo one")),  # works, with a new outcome: progress
        reply(b),
        reply(b),
        reply(tool_use("Bash", command="echo two")),
        reply(text("done")),
    )
    result = tether("-p", "go", "--output-format", "json", "--dangerously-skip-permissions")
    assert result.exit_code == 0, result.stderr
    assert result.json()["result"] == "done"
    assert _told(fake_model) == []

"""What a turn the repeat guard ended says, where the user reads it: the text output's error
line and stream-json's result line, over the wire. It names the calls it stopped, tool by tool;
it said only the tools of the last reply before."""

from __future__ import annotations

import json
import random
import string
from pathlib import Path
from typing import Any

import pytest

from tests.core.idle_runs import Run
from tether.core.repeated_calls import IDLE_STOP_AT
from tether.testing import FakeModelServer, RecordedRequest, reply, text, tool_use

STOP = (
    f"stopped: the model looked at nothing new in {IDLE_STOP_AT} replies in a row (its calls "
    f"in them: Bash {IDLE_STOP_AT // 2}, Grep {IDLE_STOP_AT // 2}), and changed no file; the "
    "session is kept: say what to do differently and go on"
)
KEPT = "; the session is kept: say what to do differently and go on"


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TETHER_RETRY_DELAY_MS", "1")


def _runaway(request: RecordedRequest, ws: Path) -> Any:
    """A random word printed, then one searched for and not found, in turn."""
    word = "".join(random.choice(string.ascii_lowercase) for _ in range(10))
    if request.index % 2:
        return reply(tool_use("Grep", pattern=word, path=str(ws)))
    return reply(tool_use("Bash", command=f"echo {word}"))


def test_the_text_output_says_what_was_stopped_and_why(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    fake_model.responder = lambda r: _runaway(r, workspace)
    result = tether("-p", "go", "--dangerously-skip-permissions")
    assert result.exit_code == 1, result.stdout + result.stderr
    assert result.stderr.splitlines()[-1] == f"tether: {STOP}"


def test_stream_json_says_what_was_stopped_and_why(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    fake_model.responder = lambda r: _runaway(r, workspace)
    args = ["--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions"]
    result = tether("-p", "go", *args)
    assert result.exit_code == 1, result.stdout[-2000:] + result.stderr[-2000:]
    last = json.loads(result.stdout.splitlines()[-1])
    said = {k: last[k] for k in ("type", "subtype", "is_error", "terminal_reason", "errors")}
    assert said == {
        "type": "result",
        "subtype": "error_during_execution",
        "is_error": True,
        "terminal_reason": "error",
        "errors": [STOP],
    }


def _scripted(fake_model: FakeModelServer, calls: list[Any]) -> None:
    def respond(request: RecordedRequest) -> Any:
        n = len([r for r in fake_model.requests if r.index <= request.index])
        return reply(calls[n - 1]) if n <= len(calls) else text("gave up")

    fake_model.responder = respond


def test_a_stop_after_edits_that_changed_only_a_figure_says_the_file_was_changed(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    """A figure edited up and up, never shown by a run: the file changed, and the stop says
    so (it said "changed no file", sending the user to look for the wrong thing)."""
    (workspace / "limit.txt").write_text("LIMIT = 0\n")
    calls: list[Any] = [tool_use("Read", file_path=f"{workspace}/limit.txt")]
    for k in range(1, 2 * IDLE_STOP_AT):
        old, new = f"LIMIT = {k - 1}", f"LIMIT = {k}"
        calls.append(
            tool_use("Edit", file_path=f"{workspace}/limit.txt", old_string=old, new_string=new)
        )
    _scripted(fake_model, calls)
    result = tether("-p", "go", "--output-format", "json", "--dangerously-skip-permissions")
    assert result.exit_code == 1, result.stdout[-2000:] + result.stderr[-2000:]
    assert result.json()["errors"] == [
        f"stopped: the model looked at nothing new in {IDLE_STOP_AT} replies in a row (its calls "
        f"in them: Edit {IDLE_STOP_AT}), and changed 1 file (limit.txt) with nothing new in it "
        "(only its numbers, a content it had held in the turn, or a command's own words)" + KEPT
    ]


def test_a_stop_after_empty_files_made_says_how_many_were_made(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    _scripted(fake_model, [tool_use("Bash", command=f"touch junk_{k}.txt") for k in range(200)])
    result = tether("-p", "go", "--output-format", "json", "--dangerously-skip-permissions")
    assert result.exit_code == 1, result.stdout[-2000:] + result.stderr[-2000:]
    assert result.json()["errors"] == [
        f"stopped: the model looked at nothing new in {IDLE_STOP_AT} replies in a row (its calls "
        f"in them: Bash {IDLE_STOP_AT}), and made {IDLE_STOP_AT} files holding nothing new "
        "(empty, copies of what others held, or text new only in its numbers or a command's own "
        "words)" + KEPT
    ]

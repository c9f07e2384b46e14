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
from tether.testing import FakeModelServer, RecordedRequest, reply, tool_use

STOP = (
    f"stopped: the model changed no file and looked at nothing new in {IDLE_STOP_AT} replies "
    f"in a row (its calls in them: Bash {IDLE_STOP_AT // 2}, Grep {IDLE_STOP_AT // 2}); the "
    "session is kept: say what to do differently and go on"
)


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

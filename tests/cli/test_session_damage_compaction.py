"""A damaged line in the middle of a session, then a resume that compacts and whose turn ends
in an API error: the next resume still goes on from the newest entry, not from the entry
before the damage (the failed turn's prompt has only bookkeeping hanging off it, which must
not hide it as the newest leaf)."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.store import list_sessions
from tether.testing import FakeModelServer, HttpError, http_error, text
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


def _long_session(
    fake_model: FakeModelServer, tether: Run, workspace: Path, model: list[str]
) -> Path:
    """A real session file grown to 60 more exchanges (q0/a0 .. q59/a59), with the line of a30
    cut in half."""
    fake_model.script(text("base"))
    assert tether("-p", "base", *model).exit_code == 0
    [info] = list_sessions(Path(os.environ["TETHER_HOME"]), workspace)
    lines = info.path.read_text().splitlines()
    entries = [json.loads(line) for line in lines]
    asked = next(e for e in entries if e["type"] == "user")
    answered = next(e for e in entries if e["type"] == "assistant")
    parent = answered["uuid"]
    for i in range(60):
        for template, tag in ((asked, "q"), (answered, "a")):
            entry = json.loads(json.dumps(template))
            entry["uuid"], entry["parentUuid"] = str(uuid.uuid4()), parent
            parent = entry["uuid"]
            said = f"{tag}{i} " + "lorem ipsum " * 300
            entry["message"]["content"] = [{"type": "text", "text": said}]
            lines.append(json.dumps(entry))
    damaged = next(i for i, line in enumerate(lines) if '"a30 ' in line)
    lines[damaged] = lines[damaged][:60]
    info.path.write_text("\n".join(lines) + "\n")
    return info.path


@pytest.mark.parametrize(
    ("model", "error"),
    [
        ([], http_error(400, "bad request for test", "invalid_request_error")),
        (["--model", "openai/gpt-5"], http_error(400, "bad request for test")),
        ([], http_error(503, retry_after_ms=1)),  # an outage past the retries
    ],
    ids=["anthropic-400", "openai-400", "anthropic-503"],
)
def test_a_failed_turn_after_compaction_keeps_the_tail_past_a_damaged_line(
    fake_model: FakeModelServer,
    tether: Run,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
    model: list[str],
    error: HttpError,
) -> None:
    path = _long_session(fake_model, tether, workspace, model)
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", "60000")
    fake_model.reset()
    fake_model.script(text("SUMMARY-ONE"), *[error] * 12)  # type: ignore[list-item]
    failed = tether("-c", "-p", "first-resume", *model)
    assert failed.exit_code != 0
    assert "followed an entry missing from the file" in failed.stderr

    fake_model.reset()
    fake_model.script(text("SUMMARY-TWO"), text("reply B"))
    resumed = tether("-c", "-p", "second-resume", *model)
    assert resumed.exit_code == 0, resumed.stderr
    assert "not on the newest branch" not in resumed.stderr
    sent = json.dumps([request.body for request in fake_model.requests])
    for kept in ("first-resume", "a59 ", "SUMMARY-ONE"):
        assert kept in sent
    entries = [json.loads(line) for line in path.read_text().splitlines()[-8:] if '"q' not in line]
    [prompt] = [e for e in entries if e.get("type") == "user" and "second-resume" in str(e)]
    [earlier] = [e for e in entries if e.get("type") == "user" and "first-resume" in str(e)]
    assert prompt["parentUuid"] == earlier["uuid"]

"""A fixed prompt (system, tools, instructions) filling most of the window: every turn
compacts, and a compaction never ends the turn. The planned cut could fall just before the
newest prompt, the summary then merged into it, and every resume died with an internal error;
a session left in that state (a prompt unanswered at its end) resumes too."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.store import list_sessions
from tether.testing import FakeModelServer, RecordedRequest, Reply, reply, text
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]
WIRES = pytest.mark.parametrize(
    "model", [[], ["--model", "openai/gpt-5"]], ids=["anthropic", "openai"]
)


def _answer(request: RecordedRequest) -> Reply:
    if "is about to be replaced by a summary" in request.last_user_text():
        return reply(text("Summary: the user said go."))
    return reply(text("fine"))


@pytest.fixture
def big_instructions(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", "20000")
    (workspace / "CLAUDE.md").write_text(("Rule: be nice. " * 10_000)[:30_000])


@WIRES
def test_every_resume_compacts_or_keeps_the_history_and_answers(
    fake_model: FakeModelServer, tether: Run, big_instructions: None, model: list[str]
) -> None:
    fake_model.responder = _answer
    for args in (["-p", "go"], ["-c", "-p", "and now?"], ["-c", "-p", "third"]):
        result = tether(*args, *model)
        assert (result.exit_code, result.stdout) == (0, "fine\n"), result.stderr
        assert "internal error" not in result.stderr
    asked = [
        r.last_user_text()
        for r in fake_model.requests
        if "replaced by a summary" not in r.last_user_text()
    ]
    assert asked[-1].endswith("third")
    assert "and now?" not in asked[-1]  # answered once, not carried into every later prompt


@WIRES
def test_a_session_ending_in_an_unanswered_prompt_resumes(
    fake_model: FakeModelServer,
    tether: Run,
    workspace: Path,
    big_instructions: None,
    model: list[str],
) -> None:
    fake_model.responder = _answer
    assert tether("-p", "go", *model).exit_code == 0
    [info] = list_sessions(Path(os.environ["TETHER_HOME"]), workspace)
    lines = info.path.read_text().splitlines()
    entries = [json.loads(line) for line in lines]
    asked = next(e for e in entries if e["type"] == "user")
    last = next(e for e in reversed(entries) if e["type"] == "assistant")
    left = json.loads(json.dumps(asked))
    left["uuid"], left["parentUuid"] = str(uuid.uuid4()), last["uuid"]
    left["message"]["content"] = [{"type": "text", "text": "and now?"}]
    info.path.write_text("\n".join([*lines, json.dumps(left)]) + "\n")
    for prompt in ("third", "fourth"):
        result = tether("-c", "-p", prompt, *model)
        assert (result.exit_code, result.stdout) == (0, "fine\n"), result.stderr
    assert fake_model.requests[-1].last_user_text().endswith("fourth")

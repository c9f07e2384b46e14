"""Resuming a long session of many small messages over the wire: the oldest part is folded
away (see `core.folded`), and what is sent is still a valid, compacted conversation that
carries the user's newest prompts word for word and none of tether's own notes as theirs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tether.protocol import Message, TextBlock
from tether.store import SessionWriter, project_dir
from tether.testing import FakeModelServer, RecordedRequest, reply, text
from tether.testing.cli_runner import run_cli

ROUNDS = 1500
ASKED = "is about to be replaced by a summary"
EARLIER = "[The user's earlier message, verbatim]\n"


def _session(home: Path, workspace: Path) -> Path:
    with SessionWriter.create(project_dir(home, workspace), "small", cwd=workspace) as writer:
        for turn in range(ROUNDS):
            writer.user([TextBlock(text=f"Question {turn}: what is {turn} squared?")])
            answer = TextBlock(text=f"{turn} squared is {turn * turn}.")
            writer.assistant(Message(role="assistant", content=(answer,)), None)
    return writer.path


def _answer(request: RecordedRequest) -> object:
    return reply(text("Summary: squares." if ASKED in request.last_user_text() else "resumed"))


def test_a_resumed_session_of_many_small_messages_sends_a_compacted_conversation(
    model_env: FakeModelServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _session(Path(os.environ["TETHER_HOME"]), workspace)
    model_env.script(*[_answer] * 4)  # type: ignore[arg-type]
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", "20000")  # a few thousand messages: 160 KB kept
    result = run_cli(
        ["--cwd", str(workspace), "--permission-mode", "bypassPermissions", "-c", "-p", "go on"]
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "resumed\n"
    final = model_env.requests[-1]
    assert ASKED not in final.last_user_text()
    assert final.last_user_text().endswith("go on")
    first = final.messages()[0]
    sent = str(first["content"])
    assert "<summary of the earlier conversation>" in sent
    assert f"{EARLIER}Question {ROUNDS - 3}: what is" in sent.replace("\\n", "\n")
    # The note standing for the folded part is tether's, never carried as the user's words.
    assert f"{EARLIER}[tether:" not in sent.replace("\\n", "\n")

"""Input added between a prompt and its refusal as too long (typed ahead, steering, a queued
stream-json message: `Session.steer`), sent with it or not, does not stop the take-back:
exactly the refused prompt is taken back, the rest is kept, sent with the next prompt and
saved in the session file.
Both wire formats, the fake model server's window and its count (`token_factor`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tether.cli.setup import RunOptions, build_session
from tether.core.session import Session
from tether.protocol import TextBlock, TurnFinished, UserInput
from tether.store import UserRecord, list_sessions, load_session
from tether.testing import FakeModelServer, reply, text

WINDOW = 20_000
MODELS = ["claude-sonnet-4-5", "openai/gpt-4.1"]


def _session(workspace: Path, model: str) -> Session:
    return build_session(
        RunOptions(cwd=workspace, model=model, permission_mode="bypassPermissions")
    )


async def _turn(session: Session, said: str) -> TurnFinished:
    events = [e async for e in session.submit(UserInput(text=said))]
    finished = events[-1]
    assert isinstance(finished, TurnFinished)
    return finished


def _saved(workspace: Path) -> list[str]:
    """The user messages a resume replays, their texts joined."""
    [info] = list_sessions(Path(os.environ["TETHER_HOME"]), workspace)
    loaded = load_session(info.path)
    assert not loaded.warnings
    return [
        "\n".join(b.text for b in r.blocks if isinstance(b, TextBlock))
        for r in loaded.records()
        if isinstance(r, UserRecord)
    ]


@pytest.fixture
def window(model_env: FakeModelServer, monkeypatch: pytest.MonkeyPatch) -> FakeModelServer:
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", str(WINDOW))
    model_env.context_window = WINDOW
    model_env.responder = reply(text("ok"))
    return model_env


@pytest.mark.parametrize("model", MODELS)
async def test_input_queued_before_a_prompt_known_too_long_is_kept(
    window: FakeModelServer, workspace: Path, model: str
) -> None:
    session = _session(workspace, model)
    try:
        assert (await _turn(session, "start")).error is None
        session.steer("typed ahead")
        refused = await _turn(session, "HUGE " + "lorem ipsum dolor sit amet " * 4000)
        assert refused.error is not None
        assert "Prompt is too long" in refused.error
        assert session.prompt_withdrawn
        assert len(window.requests) == 1  # never sent
        assert (await _turn(session, "next")).error is None
    finally:
        await session.aclose()
    sent = window.requests[-1]
    assert "HUGE" not in json.dumps(sent.body)
    assert sent.last_user_text().split() == ["typed", "ahead", "next"]
    assert _saved(workspace) == ["start", "typed ahead", "next"]


@pytest.mark.parametrize("model", MODELS)
async def test_input_sent_with_a_prompt_the_endpoint_refuses_is_kept(
    window: FakeModelServer, workspace: Path, model: str
) -> None:
    window.expect_rejections = True
    session = _session(workspace, model)

    try:
        assert (await _turn(session, "start")).error is None
        window.token_factor = 1.6  # from now on it counts more than any estimate learnt
        session.steer("typed ahead")  # sent with the prompt, and refused with it
        refused = await _turn(session, "REFUSED " + "lorem ipsum dolor sit amet " * 1200)
        assert refused.error is not None
        assert "taken back" in refused.error, refused.error
        assert session.prompt_withdrawn
        assert len(window.rejections) == 1
        assert (await _turn(session, "next")).error is None
    finally:
        await session.aclose()
    sent = window.requests[-1]
    assert "REFUSED" not in json.dumps(sent.body)
    assert sent.last_user_text().split() == ["typed", "ahead", "next"]
    assert _saved(workspace) == ["start", "typed ahead", "next"]

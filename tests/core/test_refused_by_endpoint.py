"""A prompt tether's estimate says fits but the endpoint refuses as too long (its tokenizer
counts more: the fake server's `token_factor`): taken back as one refused before sending,
what the refusal said is learnt for the session (and its resumes), and every later prompt is
answered. Both wire formats, the real headless CLI."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tether.protocol import TextBlock
from tether.store import UserRecord, list_sessions, load_session
from tether.testing import FakeModelServer, reply, text
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]
WINDOW = 20_000
MODELS = ["claude-sonnet-4-5", "openai/gpt-4.1"]


def _entries(workspace: Path) -> list[dict[str, Any]]:
    [info] = list_sessions(Path(os.environ["TETHER_HOME"]), workspace)
    return [json.loads(line) for line in info.path.read_text().splitlines()]


def _prompts(workspace: Path) -> list[str]:
    [info] = list_sessions(Path(os.environ["TETHER_HOME"]), workspace)
    loaded = load_session(info.path)
    assert not loaded.warnings
    return [
        "".join(b.text for b in r.blocks if isinstance(b, TextBlock))[:20]
        for r in loaded.records()
        if isinstance(r, UserRecord)
    ]


@pytest.mark.parametrize("model", MODELS)
def test_a_prompt_the_endpoint_refuses_is_taken_back_and_the_session_goes_on(
    fake_model: FakeModelServer,
    tether: Run,
    monkeypatch: pytest.MonkeyPatch,
    workspace: Path,
    model: str,
) -> None:
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", str(WINDOW))
    fake_model.context_window = WINDOW
    fake_model.expect_rejections = True
    fake_model.script(reply(text("fine")), reply(text("one")), reply(text("two")))
    assert tether("-p", "start", "--model", model).exit_code == 0
    fake_model.token_factor = 1.6  # from now on it counts more than any estimate learnt
    big = "REFUSED " + "lorem ipsum dolor sit amet " * 1200  # ~8k tokens, ~13k as counted
    refused = tether("-c", "-p", "--model", model, stdin=big)
    assert refused.exit_code == 1
    assert "Prompt is too long" in refused.stderr
    assert "marked as taken back" in refused.stderr  # it was sent: the file keeps it, marked
    assert len(fake_model.rejections) == 1  # refused once: what it said made the estimate
    [withdrawn] = [e for e in _entries(workspace) if e["type"] == "withdrawn"]
    [taken] = [e for e in _entries(workspace) if e.get("uuid") == withdrawn["withdrawn"]]
    assert taken["type"] == "user"
    assert "REFUSED" in json.dumps(taken["message"])
    [window] = [e for e in _entries(workspace) if e["type"] == "window"]
    assert window["tokens"] == WINDOW
    assert 2.0 < window["charsPerToken"] < 3.0  # about 4 / 1.6: what the count taught
    for said in ("one", "two"):
        again = tether("-c", "-p", "small", "--model", model)
        assert (again.exit_code, again.stdout) == (0, f"{said}\n"), again.stderr
        assert "REFUSED" not in json.dumps(fake_model.requests[-1].body)
    assert len(fake_model.rejections) == 1
    assert _prompts(workspace) == ["start", "small", "small"]


@pytest.mark.parametrize("model", MODELS)
def test_a_resumed_session_estimates_with_what_its_replies_reported(
    fake_model: FakeModelServer,
    tether: Run,
    monkeypatch: pytest.MonkeyPatch,
    workspace: Path,
    model: str,
) -> None:
    """An endpoint that counts more than the ratio assumed before any answer: the resumed
    session's first request is estimated with the ratio its newest reply's usage gives, so
    it is cut to fit rather than refused."""
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", str(WINDOW))
    fake_model.context_window = WINDOW
    fake_model.token_factor = 1.8  # 2.2 characters a token: fewer than the 3 assumed
    fake_model.responder = reply(text("ok"))
    assert tether("-p", "start", "--model", model).exit_code == 0
    body = "lorem ipsum dolor sit amet " * 300  # ~3.6k tokens as counted
    for turn in range(3):
        again = tether("-c", "-p", f"turn {turn} {body}", "--model", model)
        assert (again.exit_code, again.stdout) == (0, "ok\n"), again.stderr
        assert f"turn {turn}" in fake_model.requests[-1].last_user_text()
    assert not fake_model.rejections


@pytest.mark.parametrize("model", MODELS)
def test_two_long_messages_fit_with_the_older_one_cut(
    fake_model: FakeModelServer,
    tether: Run,
    monkeypatch: pytest.MonkeyPatch,
    workspace: Path,
    model: str,
) -> None:
    """A prompt bigger than what a cut aims at (the compaction's target) but within the
    window: the older message is cut to make room, rather than "cannot be made to fit"."""
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", str(WINDOW))
    fake_model.context_window = WINDOW
    fake_model.responder = reply(text("ok"))
    for turn in range(3):
        said = f"message {turn} " + "lorem ipsum dolor " * 1400  # ~25k characters
        flags = ("-c", "-p") if turn else ("-p",)
        result = tether(*flags, "--model", model, stdin=said)
        assert (result.exit_code, result.stdout) == (0, "ok\n"), result.stderr
        assert f"message {turn}" in fake_model.requests[-1].last_user_text()
    assert not fake_model.rejections

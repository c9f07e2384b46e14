"""A prompt known not to fit the window (past it even at the most characters a token takes)
is refused before anything is sent, with the message a refusal gives, and the session goes
on. The fake server enforces the window."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.protocol import TextBlock
from tether.store import SessionWriter, UserRecord, list_sessions, load_session
from tether.testing import FakeModelServer, reply, text
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]
WINDOW = 20_000


@pytest.mark.parametrize("model", ["claude-sonnet-4-5", "openai/gpt-4.1"])
def test_a_prompt_past_the_window_is_refused_before_sending(
    fake_model: FakeModelServer, tether: Run, monkeypatch: pytest.MonkeyPatch, model: str
) -> None:
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", str(WINDOW))
    fake_model.context_window = WINDOW
    fake_model.script(reply(text("first")), reply(text("after")))
    assert tether("-p", "hello", "--model", model).exit_code == 0
    big = "".join(f"Paragraph {i}. " + "words " * 40 + "\n" for i in range(800))  # ~200k chars
    refused = tether("-c", "-p", "--model", model, stdin=big)
    assert refused.exit_code == 1
    assert "Prompt is too long" in refused.stderr
    assert "send less" in refused.stderr
    assert len(fake_model.requests) == 1  # nothing sent for it
    again = tether("-c", "-p", "and now?", "--model", model)
    assert (again.exit_code, again.stdout) == (0, "after\n"), again.stderr
    assert fake_model.requests[-1].last_user_text().endswith("and now?")
    assert not fake_model.rejections


def _session_file(workspace: Path) -> Path:
    [info] = list_sessions(Path(os.environ["TETHER_HOME"]), workspace)
    return info.path


@pytest.mark.parametrize(
    ("model", "words", "stdin"),
    [
        ("claude-sonnet-4-5", 41_000, False),
        ("claude-sonnet-4-5", 41_000, True),
        ("openai/gpt-4.1", 60_000, False),
    ],
)
def test_a_prompt_refused_as_too_long_is_not_kept_in_the_session(
    fake_model: FakeModelServer,
    tether: Run,
    monkeypatch: pytest.MonkeyPatch,
    workspace: Path,
    model: str,
    words: int,
    stdin: bool,
) -> None:
    """Just past the window by the calibrated estimate (not by the cautious bound): refused
    before sending, and never written to the session file, so later prompts go on."""
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", str(WINDOW))
    fake_model.context_window = WINDOW
    fake_model.script(reply(text("fine")), reply(text("one")), reply(text("two")))
    assert tether("-p", "start", "--model", model).exit_code == 0
    big = "w " * words
    refused = (
        tether("-c", "-p", "--model", model, stdin=big)
        if stdin
        else tether("-c", "-p", big, "--model", model)
    )
    assert refused.exit_code == 1
    assert "Prompt is too long" in refused.stderr
    assert "Nothing of the prompt was sent or kept in the session" in refused.stderr
    assert len(fake_model.requests) == 1  # nothing sent for it
    assert "w w w" not in _session_file(workspace).read_text()
    for said in ("one", "two"):
        again = tether("-c", "-p", "small", "--model", model)
        assert (again.exit_code, again.stdout) == (0, f"{said}\n"), again.stderr
        assert "w w w" not in json.dumps(fake_model.requests[-1].body)
    assert not fake_model.rejections
    loaded = load_session(_session_file(workspace))
    assert not loaded.warnings
    prompts = [r for r in loaded.records() if isinstance(r, UserRecord)]
    assert [_text(r) for r in prompts] == ["start", "small", "small"]


def _text(record: UserRecord) -> str:
    return "".join(b.text for b in record.blocks if isinstance(b, TextBlock))


@pytest.mark.parametrize("model", ["claude-sonnet-4-5", "openai/gpt-4.1"])
def test_a_session_already_holding_an_over_long_prompt_resumes(
    fake_model: FakeModelServer,
    tether: Run,
    monkeypatch: pytest.MonkeyPatch,
    workspace: Path,
    model: str,
) -> None:
    """A file written before refused prompts were taken back: prompts in a row with no reply
    between them, one of them past the window. Resuming it cuts the old prompt (with a note)
    and keeps the new one whole, and the request fits."""
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", str(WINDOW))
    fake_model.context_window = WINDOW
    fake_model.script(reply(text("fine")), reply(text("back")))
    assert tether("-p", "start", "--model", model).exit_code == 0
    path = _session_file(workspace)
    loaded = load_session(path)
    with SessionWriter.reopen(path, cwd=workspace, last_uuid=loaded.last_uuid) as writer:
        for said in ("w " * 41_000, "small", "small"):
            writer.user([TextBlock(text=said)])
    again = tether("-c", "-p", "the new prompt " * 20, "--model", model)
    assert (again.exit_code, again.stdout) == (0, "back\n"), again.stderr
    assert not fake_model.rejections
    sent = json.dumps(fake_model.requests[-1].body)
    assert "characters cut here to fit the context window" in sent
    assert ("the new prompt " * 20).strip() in fake_model.requests[-1].last_user_text()


@pytest.mark.parametrize("model", ["claude-sonnet-4-5", "openai/gpt-4.1"])
def test_a_prompt_too_long_after_several_turns_is_said_once_blaming_the_prompt(
    fake_model: FakeModelServer, tether: Run, monkeypatch: pytest.MonkeyPatch, model: str
) -> None:
    """With history enough to compact, the compaction is not blamed: the prompt is."""
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", str(WINDOW))
    fake_model.context_window = WINDOW
    fake_model.script(*[reply(text("fine"))] * 3)
    for turn in range(3):
        flags = ("-c", "-p") if turn else ("-p",)
        assert tether(*flags, f"turn {turn}", "--model", model).exit_code == 0
    refused = tether("-c", "-p", "w " * 41_000, "--model", model)
    assert refused.exit_code == 1
    assert refused.stderr.count("Prompt is too long") == 1, refused.stderr
    assert "compaction failed" not in refused.stderr
    assert len(fake_model.requests) == 3  # nothing sent for it


def test_a_refused_first_prompt_does_not_title_the_session_and_says_what_is_kept(
    fake_model: FakeModelServer, tether: Run, monkeypatch: pytest.MonkeyPatch, workspace: Path
) -> None:
    """The refused prompt was never sent: nothing of it is in the file, the message says so,
    and the session's title comes from the first prompt that was kept."""
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", str(WINDOW))
    fake_model.context_window = WINDOW
    fake_model.script(reply(text("fine")))
    refused = tether("-p", "SECRET-TOKEN-abc123 " + "x " * 41_000)
    assert refused.exit_code == 1
    assert "Prompt is too long" in refused.stderr
    assert "not saved" not in refused.stderr
    assert "Nothing of the prompt was sent or kept in the session" in refused.stderr
    assert not list_sessions(Path(os.environ["TETHER_HOME"]), workspace)  # nothing was kept
    assert tether("-c", "-p", "hello there").exit_code == 0
    [after] = list_sessions(Path(os.environ["TETHER_HOME"]), workspace)
    assert after.title is not None
    assert after.title.startswith("hello there")
    assert load_session(after.path).title == after.title
    assert "SECRET-TOKEN" not in after.path.read_text()

"""A teammate whose prompt never reaches its model (refused as too long for its window and
taken back out of its session, or blocked by a UserPromptSubmit hook): its messages are not
lost, nor shown again for ever. Each sender is told which of its messages was not read and
why; then they are acknowledged. A batch too long together runs one message at a time."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether.store.mailbox import Message
from tether.testing import FakeModelServer, RecordedRequest, Turn
from tether.testing.teammates import Letter, mate_answers, member_of, polite

from .mates import lead_reads_until, lead_store, member, new_team, status, wait_state
from .test_teammates import trust_with_hook
from .workers import tether

WINDOW = 20_000


def _big(tag: str, paragraphs: int) -> str:
    return "".join(f"{tag} {i}. " + "words " * 40 + "\n" for i in range(paragraphs))


@pytest.fixture
def small_window(model_env: FakeModelServer, monkeypatch: pytest.MonkeyPatch) -> FakeModelServer:
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", str(WINDOW))
    model_env.context_window = WINDOW
    return model_env


def _mate_prompts(server: FakeModelServer) -> list[RecordedRequest]:
    return [r for r in server.requests if member_of(r) == "alice" and not r.tool_results()]


def test_a_message_too_long_for_the_window_is_sent_back_and_not_lost(
    repo: Path, small_window: FakeModelServer, store: list[str]
) -> None:
    small_window.responder = mate_answers(polite)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice", *store)
    lead = lead_store(repo, team, store[1] if store else None)
    try:
        big = _big("Paragraph", 800)  # ~200k characters: ten times the window
        lead.send(Message(sender="team-lead", recipient="alice", text=big))
        got = lead_reads_until(lead, "alice did not read")
        [told] = [m for m in got if m.text.startswith("alice did not read")]
        assert told.kind == "message"
        assert "too long for its context window" in told.text
        assert "Prompt is too long" in told.text
        assert not _mate_prompts(small_window)  # never sent to its model
        tether(repo, "team", "send", team, "alice", "small one", *store)
        got = lead_reads_until(lead, "alice got: small one")
        alice = wait_state(repo, team, "alice", "idle", *store)
        assert alice["unread"] == 0
        prompts = _mate_prompts(small_window)
        assert len(prompts) == 1  # the long one neither shown nor tried again
        assert "Paragraph 1." not in prompts[0].last_user_text()
    finally:
        lead.close()
        tether(repo, "team", "down", team, *store)


def test_a_request_too_long_is_answered_as_such_so_its_sender_stops_waiting(
    repo: Path, small_window: FakeModelServer
) -> None:
    small_window.responder = mate_answers(polite)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice")
    lead = lead_store(repo, team)
    try:
        request = Message(
            sender="team-lead", recipient="alice", kind="request", text=_big("P", 800)
        )
        lead.send(request)
        got = lead_reads_until(lead, "alice did not read")
        [told] = [m for m in got if m.text.startswith("alice did not read")]
        assert (told.kind, told.reply_to) == ("reply", request.id)
        assert member(status(repo, team), "alice")["state"] == "idle"
    finally:
        lead.close()
        tether(repo, "team", "down", team)


def test_messages_too_long_together_are_run_one_at_a_time(
    repo: Path, small_window: FakeModelServer
) -> None:
    small_window.responder = mate_answers(polite)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice")
    tether(repo, "team", "down", team)  # stopped: the three wait in its mailbox
    lead = lead_store(repo, team)
    try:
        names = ["First", "Second", "Third"]
        for name in names:  # ~16k characters each: one fits, the three together do not
            lead.send(Message(sender="team-lead", recipient="alice", text=_big(name, 64)))
        tether(repo, "team", "up", team)
        got = lead_reads_until(lead, "alice got: Third")
        answered = [m.text for m in got if m.text.startswith("alice got")]
        assert answered == [f"alice got: {name} 0. " + "words " * 40 for name in names]
        assert not [m for m in got if m.text.startswith("alice did not read")]
        log = (repo / ".tether" / "teams" / team / "alice.log").read_text()
        assert log.count("error: Prompt is too long") == 1  # the three together, taken back
        assert wait_state(repo, team, "alice", "idle")["unread"] == 0
    finally:
        lead.close()
        tether(repo, "team", "down", team)


def test_a_prompt_a_hook_blocked_is_told_to_its_sender_once(
    repo: Path, model_env: FakeModelServer, store: list[str]
) -> None:
    trust_with_hook(
        repo,
        "UserPromptSubmit",
        "#!/bin/bash\nif grep -q forbidden; then echo 'no forbidden words' >&2; exit 2; fi\n",
    )
    model_env.responder = mate_answers(polite)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice", *store)
    lead = lead_store(repo, team, store[1] if store else None)
    try:
        tether(repo, "team", "send", team, "alice", "a forbidden thing", *store)
        got = lead_reads_until(lead, "alice did not read")
        [told] = [m for m in got if m.text.startswith("alice did not read")]
        assert "UserPromptSubmit hook blocked it: no forbidden words" in told.text
        tether(repo, "team", "send", team, "alice", "fine", *store)
        lead_reads_until(lead, "alice got: fine")
        assert wait_state(repo, team, "alice", "idle", *store)["unread"] == 0
        assert len(_mate_prompts(model_env)) == 1
    finally:
        lead.close()
        tether(repo, "team", "down", team, *store)


_ = (Letter, Turn)

"""Two teammates whose models give their SendMessage calls the same id (a provider or a local
server that numbers calls per response: `call_1`, `functions.SendMessage:0`): each message
and each reply is its own, stored and delivered, as a call id is unique only within its own
conversation. (The message id derived from the call id alone made the second one "posted"
already: skipped, while its tool said sent.)"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tether.store.mailbox import Message, TeamStore
from tether.teams.resend import message_id
from tether.testing import FakeModelServer
from tether.testing.recorded import RecordedRequest
from tether.testing.script import Turn, reply, text, tool_use
from tether.testing.teammates import Letter, mate_answers

from .mates import lead_reads, lead_store, member, new_team, status, wait_state
from .workers import tether

SHARED_IDS = ["call_1", "functions.SendMessage:0"]


def test_a_message_id_is_its_sending_session_s_and_member_s_and_the_same_on_a_rerun() -> None:
    ids = {
        message_id(session, sender, "call_1", "team-lead")
        for session in ("s-1", "s-2")
        for sender in ("alice", "bob")
    }
    assert len(ids) == 4
    assert message_id("s-1", "alice", "call_1", "team-lead") == message_id(
        "s-1", "alice", "call_1", "team-lead"
    )


def answering(call_id: str, kind: str) -> Callable[[str, list[Letter], RecordedRequest], Turn]:
    """Each member answers each letter of `kind` (a reply to a request), every call by the
    id `call_id`; a shutdown request it approves (`team down` is done when each has stopped,
    not after waiting out its `--wait` for an answer that never comes)."""

    def answer(name: str, letters: list[Letter], request: RecordedRequest) -> Turn:
        calls = [
            tool_use(
                "SendMessage",
                {"to": letter.sender, "message": f"{name} answers {letter.kind}"}
                | ({"reply_to": letter.id} if kind == "request" else {}),
                id=call_id,
            )
            for letter in letters
            if letter.kind == kind
        ]
        calls += [
            tool_use(
                "SendMessage",
                to=letter.sender,
                message={"type": "shutdown_response", "request_id": letter.id, "approve": True},
            )
            for letter in letters
            if letter.kind == "shutdown_request"
        ]
        return reply(*calls) if calls else text(f"{name}: nothing")

    return answer


def _alice_and_bob_up(repo: Path, store: list[str]) -> str:
    """A new team of alice and bob, up on `store`; its name."""
    team = new_team()
    tether(
        repo,
        "team",
        "up",
        team,
        "--member",
        "alice",
        "--member",
        "bob",
        "--trust-workspace",
        *store,
    )
    return team


@pytest.mark.parametrize("call_id", SHARED_IDS)
def test_two_teammates_whose_calls_share_an_id_each_reach_the_lead(
    repo: Path, model_env: FakeModelServer, store: list[str], call_id: str
) -> None:
    model_env.responder = mate_answers(answering(call_id, "message"))
    team = _alice_and_bob_up(repo, store)
    lead = lead_store(repo, team, store[1] if store else None)
    try:
        for name in ("alice", "bob"):
            lead.send(Message(sender="team-lead", recipient=name, kind="message", text="k1"))
        said = [m for m in lead_reads_until_all(lead, 2) if m.kind == "message"]
        assert sorted((m.sender, m.text) for m in said) == [
            ("alice", "alice answers message"),
            ("bob", "bob answers message"),
        ]
        assert len({m.id for m in said}) == 2
    finally:
        lead.close()
        tether(repo, "team", "down", team, *store)


def test_two_teammates_replies_whose_calls_share_an_id_each_reach_the_lead(
    repo: Path, model_env: FakeModelServer, store: list[str]
) -> None:
    model_env.responder = mate_answers(answering("call_1", "request"))
    team = _alice_and_bob_up(repo, store)
    lead = lead_store(repo, team, store[1] if store else None)
    try:
        replies: list[Message] = []
        for name in ("alice", "bob"):  # one after the other: bob's call comes after alice's
            request = Message(sender="team-lead", recipient=name, kind="request", text="q")
            lead.send(request)
            replies += [m for m in lead_reads_until_all(lead, 1) if m.kind == "reply"]
            assert [(m.sender, m.reply_to, m.text) for m in replies][-1] == (
                name,
                request.id,
                f"{name} answers request",
            )
        for name in ("alice", "bob"):
            wait_state(repo, team, name, "idle", *store)
            assert member(status(repo, team, *store), name)["requests_owed"] == []
    finally:
        lead.close()
        tether(repo, "team", "down", team, *store)


def lead_reads_until_all(store: TeamStore, replies: int) -> list[Message]:
    """The lead's messages up to the `replies`-th that is not an idle notice."""
    found: list[Message] = []
    while sum(m.kind in ("message", "reply") for m in found) < replies:
        found.extend(lead_reads(store, 1))
    return found

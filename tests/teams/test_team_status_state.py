"""`team status` says one state for a member, the one its event log says: a request that
reaches a teammate in the middle of its turn (here, while its model call runs) makes it
`responding` in the roster at once (its state column and `--json`), not when the turn ends.
Measured before: the event log said `idle -> responding` while the state column and `--json`
said `idle` until the turn ended."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tether.store.mailbox import Message
from tether.testing import FakeModelServer, RecordedRequest, Turn, text
from tether.testing.teammates import Letter, mate_answers, polite

from .mates import lead_store, member, new_team, status, wait_state
from .workers import tether, wait_for


def test_a_request_during_a_turn_shows_the_teammate_responding_at_once(
    repo: Path, model_env: FakeModelServer, store: list[str]
) -> None:
    url = store[1] if store else None
    team = new_team()
    asked: list[Message] = []
    seen: list[dict[str, Any]] = []
    shown: list[str] = []

    def answer(mate: str, letters: list[Letter], request: RecordedRequest) -> Turn:
        if letters and letters[0].body == "busy":
            # bob's turn runs (this model call) when the request comes.
            other = lead_store(repo, team, url)
            try:
                asked.append(
                    other.send(Message(sender="team-lead", recipient="bob", kind="request"))
                )
            finally:
                other.close()
            try:
                bob = wait_state(repo, team, "bob", "responding", *store)
                shown.append(tether(repo, "team", "status", team, *store))
                seen.append(bob)  # last: the test reads `shown` once `seen` has it
            except AssertionError as e:
                seen.append({"error": str(e), **member(status(repo, team, *store), "bob")})
            return text("bob was busy")
        return polite(mate, letters, request)

    model_env.responder = mate_answers(answer)
    tether(repo, "team", "up", team, "--member", "bob", *store)
    try:
        tether(repo, "team", "send", team, "bob", "busy", *store)
        wait_for(lambda: bool(seen), "bob's turn to have been asked")
        bob = seen[0]
        assert "error" not in bob, bob
        assert bob["events"][-1]["after"] == "responding"
        assert asked[0].id in bob["events"][-1]["cause"]
        line = next(x for x in shown[0].splitlines() if x.strip().startswith("bob "))
        assert line.split()[1] == "responding"
    finally:
        tether(repo, "team", "down", team, *store)

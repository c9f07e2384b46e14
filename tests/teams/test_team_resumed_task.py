"""A teammate that runs again a turn its killed run left unfinished says what it works on:
`team status` names that turn's task while it runs (measured before: no current task, the
record of its stop had cleared it, and nothing named it again while the resumed turn
worked on it), on either store."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

from tether.testing import FakeModelServer, RecordedRequest, Turn, reply, text
from tether.testing.teammates import Letter, mate_answers, member_of, polite

from .mates import member, new_team, status
from .workers import tether, wait_for

TASK = 'hang on "the <parser>"\nsecond line'


def test_a_resumed_turn_shows_its_task_again(
    repo: Path, model_env: FakeModelServer, store: list[str]
) -> None:
    def answer(mate: str, letters: list[Letter], request: RecordedRequest) -> Turn:
        if "hang on" in json.dumps(request.messages()):  # the first run's turn, and the resumed
            return reply(text("thinking"), stall_after=1)  # held until the process ends
        return polite(mate, letters, request)

    model_env.responder = mate_answers(answer)
    team = new_team()

    def calls() -> int:
        return sum(1 for r in model_env.requests if member_of(r) == "alice")

    tether(repo, "team", "up", team, "--member", "alice", *store)
    try:
        tether(repo, "team", "send", team, "alice", TASK, *store)
        wait_for(lambda: calls() == 1, "alice's call")
        assert member(status(repo, team, *store), "alice")["current_task"] == TASK
        os.kill(member(status(repo, team, *store), "alice")["pid"], signal.SIGKILL)
        wait_for(lambda: not member(status(repo, team, *store), "alice")["running"], "it gone")
        tether(repo, "team", "down", team, "--wait", "5", *store)  # its stop recorded
        assert member(status(repo, team, *store), "alice")["current_task"] is None

        tether(repo, "team", "up", team, *store)
        wait_for(lambda: calls() == 2, "the resumed turn's call")
        alice = member(status(repo, team, *store), "alice")
        assert (alice["running"], alice["current_task"]) == (True, TASK)
    finally:
        tether(repo, "team", "down", team, "--wait", "5", *store)

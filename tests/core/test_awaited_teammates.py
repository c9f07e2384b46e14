"""A lead polling while it waits on a teammate: a state of the teammate's seen before in the
turn is no headway (a chatty teammate saying the same again, one flipping between working and
idle kept such a lead polling for ever), and a teammate is named as looking hung only once it
has had no new state for `HUNG_AFTER_S` (it was after 20 polls, however fast: a teammate
working in silence for a minute was called hung, and the lead stopped at 40 one-second polls).
The guard as the loop calls it, after each of the lead's replies."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tether.core.awaited import HUNG_ENV
from tether.core.repeated_calls import WAITING_STOP_AT, Awaited, RepeatedFailures
from tether.protocol import HarnessError, ToolResultBlock, ToolUseBlock

POLLS = 5 * WAITING_STOP_AT


def _polls(states: Callable[[int], list[Awaited]]) -> tuple[int | None, list[str]]:
    """The lead's identical polls, with what it waits on at each: the poll the turn ended at
    (None: not within `POLLS`), and what it was told."""
    guard = RepeatedFailures()
    told: list[str] = []
    for i in range(1, POLLS + 1):
        call = ToolUseBlock(id=f"t{i}", name="Bash", input={"command": "sleep 5"})
        result = ToolResultBlock(tool_use_id=f"t{i}", content="", is_error=False)
        try:
            said = guard.saw([call], [result], awaited=states(i))
        except HarnessError as e:
            told.append(str(e))
            return i, told
        if said is not None:
            told.append(said)
    return None, told


WORDS = ["working on it", "still at it"]

REPEATS: dict[str, Callable[[int], list[Awaited]]] = {
    "flipping_working_and_idle": lambda i: [Awaited("helper", "said owes 0")] if i % 2 else [],
    "saying_the_same_again": lambda i: [Awaited("helper", "not yet owes 0")],
    "saying_one_of_two_things": lambda i: [Awaited("helper", f"{WORDS[i % 2]} owes 0")],
    "owing_then_answering": lambda i: [Awaited("helper", f"not yet owes {i % 2}")],
}


@pytest.mark.parametrize("shape", sorted(REPEATS))
def test_a_teammate_state_that_repeats_is_no_headway(
    shape: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(HUNG_ENV, "0")
    stopped, told = _polls(REPEATS[shape])
    assert stopped is not None, told[-1:]
    assert stopped <= WAITING_STOP_AT + 2  # each of its states was new once
    assert told[-1].startswith("stopped: the model looked at nothing new")
    if shape != "flipping_working_and_idle":  # stopped while it is not waited on
        assert "helper looks hung" in told[-1]


def test_new_words_from_a_teammate_are_headway(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(HUNG_ENV, "0")
    stopped, _ = _polls(lambda i: [Awaited("helper", f"finished task {i} owes 0")])
    assert stopped is None


def test_a_silent_teammate_is_not_called_hung_after_fast_polls() -> None:
    stopped, told = _polls(lambda i: [Awaited("builder", " owes 0")])
    assert stopped is None
    assert not any("looks hung" in said for said in told)


def test_a_teammate_silent_past_the_floor_is_hung_and_ends_the_polling(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(HUNG_ENV, "0")
    stopped, told = _polls(lambda i: [Awaited("builder", " owes 0")])
    assert stopped == WAITING_STOP_AT + 1  # its first state was new
    assert "builder looks hung: no change since " in told[-1]

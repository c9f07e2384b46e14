"""Shrinking any transcript to a budget its plain text fits: past cutting and stubbing, tool
exchanges fold into notes, and what is left is still a valid transcript that fits."""

from __future__ import annotations

import random

import pytest

from tests.core.test_compaction import random_history, transcript_problem
from tether.core.shrink import shrink_to_fit
from tether.protocol import Message, ToolResultBlock, ToolUseBlock


def _size(message: Message) -> int:
    return len(message.model_dump_json())


@pytest.mark.parametrize("seed", range(100))
def test_any_history_shrinks_to_a_valid_transcript_that_fits(seed: int) -> None:
    rng = random.Random(seed)
    history = random_history(rng)
    # Room for the notes only: no call keeps its block, each message a short note at most.
    budget = 400 * len(history)
    shrunk, fits = shrink_to_fit(history, _size, budget)
    assert fits, seed
    assert sum(_size(m) for m in shrunk) <= budget
    assert transcript_problem(shrunk) is None, seed


def test_many_small_parallel_calls_fold_into_one_note_each_side() -> None:
    calls = [
        ToolUseBlock(id=f"t{i}", name="Bash", input={"command": f"echo {i}"}) for i in range(300)
    ]
    results = [
        ToolResultBlock(tool_use_id=f"t{i}", content=str(i), is_error=i < 3) for i in range(300)
    ]
    history = [
        Message.user_text("go"),
        Message(role="assistant", content=tuple(calls)),
        Message(role="user", content=tuple(results)),
    ]
    shrunk, fits = shrink_to_fit(history, _size, 2_000)
    assert fits
    assert shrunk[0] is history[0]
    assert "300 tool calls made here (300 Bash) were folded" in shrunk[1].text()
    assert "297 succeeded, 3 failed" in shrunk[2].text()
    assert not shrunk[1].tool_uses()
    assert not shrunk[2].tool_results()

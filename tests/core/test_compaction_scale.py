"""Compaction at scale: sizing stays linear in the number of messages, and a compacted
conversation of thousands of prompts keeps its summary in every request."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.core.compaction import (
    EARLIER_PROMPT_MARK,
    SUMMARY_MARK,
    CompactionPolicy,
    compacted_messages,
    cut_points,
    plan_cut,
    recent_part,
)
from tether.core.message_size import message_chars
from tether.protocol import Message, TextBlock, ToolResultBlock, ToolUseBlock
from tether.store import SessionWriter, project_dir
from tether.testing import FakeModelServer, RecordedRequest, reply, text
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


class Counted(int):
    """A size that counts every addition made with it: sizing a conversation must add each
    message's size a bounded number of times, not once per cut point after it."""

    additions = 0

    def __add__(self, other: int) -> Counted:
        Counted.additions += 1
        return Counted(int(self) + int(other))

    __radd__ = __add__


def small_turns(count: int) -> list[Message]:
    """`count` rounds of a prompt, a call, its small result and an answer."""
    messages: list[Message] = []
    for n in range(count):
        call = ToolUseBlock(id=f"toolu_{n}", name="Bash", input={"command": f"echo {n}"})
        messages += [
            Message.user_text(f"q{n}"),
            Message(role="assistant", content=(call,)),
            Message(role="user", content=(ToolResultBlock(tool_use_id=call.id, content="x"),)),
            Message(role="assistant", content=(TextBlock(text=f"a{n}"),)),
        ]
    return messages


def additions_to_fit(count: int) -> int:
    messages = small_turns(count)
    Counted.additions = 0
    # A budget only the last exchange fits: every cut point is tried.
    recent_part(messages, lambda m: Counted(len(m.text()) + 20), 60)
    return Counted.additions


def test_fitting_a_long_history_adds_each_size_a_bounded_number_of_times() -> None:
    small, large = additions_to_fit(250), additions_to_fit(2000)
    # Linear: eight times the messages, about eight times the additions (quadratic: 64).
    assert large <= 9 * small
    assert large <= 3 * 4 * 2000


def test_plan_cut_on_a_long_history_keeps_the_newest_exchanges() -> None:
    messages = small_turns(3000)
    cut = plan_cut(messages, CompactionPolicy(window=200_000), 190_000)
    assert cut == cut_points(messages)[-2]


def test_carried_prompts_stay_within_their_budget_newest_first() -> None:
    messages = [*small_turns(2000), Message.user_text("the newest")]
    out = compacted_messages(messages, len(messages) - 1, "the summary", plan=None)
    first = [b.text for b in out[0].content if isinstance(b, TextBlock)]
    assert SUMMARY_MARK in first[0]
    carried = [t for t in first if t.startswith(EARLIER_PROMPT_MARK)]
    assert carried[-1] == EARLIER_PROMPT_MARK + "q1999"
    assert sum(len(t) for t in first[1:]) <= 60_000
    assert first[1].startswith(f"[tether: {2000 - len(carried):,} earlier messages of the user")
    # Compacted again, what was left out before is still counted.
    again = [*out, Message(role="assistant", content=(TextBlock(text="ok"),)), *small_turns(3)]
    second = compacted_messages(again, len(again) - 4, "later", plan=None, prompt_chars=2_000)
    notes = [b.text for b in second[0].content if isinstance(b, TextBlock)]
    kept = sum(t.startswith(EARLIER_PROMPT_MARK) for t in notes)
    assert notes[1].startswith(f"[tether: {2003 - kept:,} earlier messages of the user")
    assert notes[-3:] == [EARLIER_PROMPT_MARK + "q0", EARLIER_PROMPT_MARK + "q1", "q2"]


def test_a_newest_prompt_longer_than_the_budget_is_cut_not_dropped() -> None:
    pasted = "pasted line\n" * 20_000
    messages = [
        Message.user_text(pasted),
        Message(role="assistant", content=(TextBlock(text="ok"),)),
    ]
    messages.append(Message.user_text("go on"))
    out = compacted_messages(messages, 2, "summary", plan=None, prompt_chars=5_000)
    [carried] = [b.text for b in out[0].content if isinstance(b, TextBlock)][1:2]
    assert carried.startswith(EARLIER_PROMPT_MARK + "pasted line")
    assert "characters cut here" in carried
    assert len(carried) < 5_000


def _answer(request: RecordedRequest) -> object:
    if "is about to be replaced by a summary" in request.last_user_text():
        return reply(text("SUMMARY-MARK: the user asked a thousand short questions."))
    return reply(text("resumed"))


def test_resuming_thousands_of_prompts_keeps_the_summary_in_the_request(
    fake_model: FakeModelServer,
    tether: Run,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", "20000")
    fake_model.context_window = 20_000
    home = Path(os.environ["TETHER_HOME"])
    with SessionWriter.create(project_dir(home, workspace), "long", cwd=workspace) as writer:
        for message in small_turns(1100):
            if message.role == "assistant":
                writer.assistant(message, None)
            else:
                writer.user(list(message.content))
    fake_model.script(*[_answer] * 4)  # type: ignore[list-item]

    result = tether("-c", "-p", "after all that")
    assert (result.exit_code, result.stdout) == (0, "resumed\n"), result.stderr
    last = fake_model.requests[-1]
    assert last.last_user_text() == "after all that"
    first = str(last.messages()[0])
    assert "SUMMARY-MARK" in first
    assert "earlier messages of the user are not repeated here" in first
    assert EARLIER_PROMPT_MARK.strip() in first
    assert fake_model.rejections == []


def test_the_recent_part_fits_its_budget_whatever_message_it_starts_at() -> None:
    """The note of what was left out is a message of its own when the part starts with a
    reply: it was counted as a block merged into a prompt, so a budget a few characters over
    the part (one a system prompt's length happened to leave) ended over it, and a summary
    request that could be made to fit was said not to fit."""
    messages = [
        message
        for n in range(200)
        for message in (
            Message.user_text(f"Question {n}: what is {n} squared?"),
            Message(role="assistant", content=(TextBlock(text=f"{n} squared is {n * n}."),)),
        )
    ]
    messages.append(Message.user_text("go on"))
    over = [
        budget
        for budget in range(2_000, 2_400)
        if sum(map(message_chars, recent_part(messages, message_chars, budget))) > budget
    ]
    assert over == []

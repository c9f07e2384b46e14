"""The user's own earlier prompts, carried word for word into a compacted conversation.

A summary paraphrases; the user's requests are worth keeping as written. But a long session
has thousands of prompts, and each compaction carries the earlier ones again: carried whole,
they would outgrow the window, and the message holding them (and the summary with them) would
be left out of every request. So they are carried within a budget, newest first (the newest
say what the user wants now), a prompt too long for what is left cut in the middle, and a
note says how many were left out (the summary covers them).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tether.core.shrink import MIN_CAP, cut_middle
from tether.protocol import Message, TextBlock

EARLIER_PROMPT_MARK = "[The user's earlier message, verbatim]\n"
SUMMARY_MARK = "<summary of the earlier conversation>"
PLAN_MARK = "[Plan state at compaction]\n"
OLDEST_LEFT_OUT = (
    "[tether: the {count:,} oldest messages of this conversation are left out of this request: "
    "with them it would not fit the context window]"
)
"""The note for the oldest messages a request leaves out: tether's words, not the user's."""
_OLDEST_LEFT_OUT_START = OLDEST_LEFT_OUT[: OLDEST_LEFT_OUT.index("{")]
_REMINDER_START = "<system-reminder>"
_LEFT_OUT_NOTE = (
    "[tether: {count:,} earlier messages of the user are not repeated here word for word, to "
    "keep this message within the context window; the summary covers them]"
)
_LEFT_OUT_PATTERN = re.compile(r"^\[tether: ([\d,]+) earlier messages of the user are not")
_BLOCK_OVERHEAD = 30
"""Characters of JSON one text block takes besides its text."""


def carried_prompts(messages: Sequence[Message], budget_chars: int) -> list[TextBlock]:
    """The blocks that carry the user's prompts of `messages` into a compacted conversation:
    the newest that fit `budget_chars`, in their order, after a note of how many were left
    out (counting those an earlier compaction left out)."""
    prompts, left_out = user_prompts(messages)
    kept: list[str] = []
    room = budget_chars
    for prompt in reversed(prompts):
        cost = len(EARLIER_PROMPT_MARK) + len(prompt) + _BLOCK_OVERHEAD
        if cost > room:
            if room - len(EARLIER_PROMPT_MARK) - _BLOCK_OVERHEAD >= MIN_CAP and not kept:
                # The newest prompt alone is over the budget: keep its head and tail.
                kept.append(cut_middle(prompt, room - len(EARLIER_PROMPT_MARK) - _BLOCK_OVERHEAD))
            break
        kept.append(prompt)
        room -= cost
    left_out += len(prompts) - len(kept)
    blocks = [TextBlock(text=EARLIER_PROMPT_MARK + p) for p in reversed(kept)]
    if left_out:
        blocks.insert(0, left_out_note(left_out))
    return blocks


def left_out_note(count: int) -> TextBlock:
    """The note of how many of the user's earlier prompts are not carried."""
    return TextBlock(text=_LEFT_OUT_NOTE.format(count=count))


def is_compaction_text(text: str) -> bool:
    """Whether a text block is one a compaction wrote into the first message after it (the
    summary, a carried earlier prompt, the note of those left out, the plan state): tether's
    stand-in for earlier turns, which may be cut to fit, unlike the prompt it precedes."""
    return (
        SUMMARY_MARK in text
        or text.startswith((EARLIER_PROMPT_MARK, PLAN_MARK))
        or _LEFT_OUT_PATTERN.match(text) is not None
    )


def is_tether_text(text: str) -> bool:
    """Whether a user message's text block is one tether added for the model, not the user's
    words: a `<system-reminder>` (the agent types, hook context, a mentioned file, an
    instruction file), a compaction's stand-ins, the note of the oldest messages left out."""
    return text.startswith((_REMINDER_START, _OLDEST_LEFT_OUT_START)) or is_compaction_text(text)


def user_prompts(messages: Sequence[Message]) -> tuple[list[str], int]:
    """The user's own words, in order: text blocks of user messages, without tether's
    reminders; prompts carried by an earlier compaction are carried again, its summary not.
    The second value is how many an earlier compaction already left out."""
    prompts: list[str] = []
    left_out = 0
    for message in messages:
        if message.role != "user":
            continue
        for block in message.content:
            if not isinstance(block, TextBlock):
                continue
            text = block.text
            if text.startswith(EARLIER_PROMPT_MARK):
                prompts.append(text[len(EARLIER_PROMPT_MARK) :])
            elif (earlier := _LEFT_OUT_PATTERN.match(text)) is not None:
                left_out += int(earlier.group(1).replace(",", ""))
            elif SUMMARY_MARK in text or text.startswith(
                (PLAN_MARK, _REMINDER_START, _OLDEST_LEFT_OUT_START)
            ):
                continue
            elif text.strip():
                prompts.append(text)
    return prompts, left_out

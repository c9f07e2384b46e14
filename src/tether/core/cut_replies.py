"""A reply the model could not finish: cut at the output limit, or stopped by the provider's
safety classifier. As Claude Code: the turn goes on with a note that tells the model what
happened (up to three times in a turn for the output limit, once for a refusal), and the turn's
answer is the continued one; past that the turn ends with an error saying why.

The note is a user message of its own in the conversation (a reminder to the model); front ends
see it as a `MessageCompleted` whose `synthetic` names the cause.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from tether.core.history import History
from tether.core.lifecycle import reminder
from tether.protocol import (
    Event,
    HarnessError,
    Message,
    MessageCompleted,
    Notice,
    StopReason,
    TextBlock,
)
from tether.slotted import Slotted

Cut = Literal["output_limit", "refusal"]

OUTPUT_LIMIT_NOTE = (
    "Output token limit hit. Resume directly \u2014 no apology, no recap of what you were doing. "
    "Pick up mid-thought if that is where the cut happened. Break remaining work into smaller "
    "pieces."
)
REFUSAL_NOTE = (
    "Your response above was stopped by a safety classifier \u2014 this is not a tool or API "
    "error. The rest of it was withheld, and tool calls in it that had not finished did not run. "
    "Do not produce that content again, even reworded."
)
OUTPUT_LIMIT_RESUMES = 3
"""How often a turn goes on after a reply cut at the output limit (Claude Code's figure)."""
REFUSAL_RESUMES = 1

_NOTES: dict[Cut, str] = {"output_limit": OUTPUT_LIMIT_NOTE, "refusal": REFUSAL_NOTE}


class Resumed(Slotted):
    """How often the running turn went on after a cut reply, per cause."""

    __slots__ = ("output_limit", "refusal")
    output_limit: int
    refusal: int

    def __init__(self, output_limit: int = 0, refusal: int = 0) -> None:
        self.output_limit = output_limit
        self.refusal = refusal


def cut_by(stop_reason: StopReason | None) -> Cut | None:
    if stop_reason in ("max_tokens", "model_context_window_exceeded"):
        return "output_limit"
    if stop_reason == "refusal":
        return "refusal"
    return None


def resumption(
    stop_reason: StopReason | None, has_calls: bool, resumed: Resumed, model: str, max_tokens: int
) -> Cut | None:
    """Whether the turn goes on after this reply with a note (counted in `resumed`); raises
    `HarnessError` once a cause has been resumed as often as it may be. A reply cut at the
    output limit with calls in it needs no note: its calls are answered (a cut one says so)."""
    cut = cut_by(stop_reason)
    if cut == "output_limit" and not has_calls:
        if resumed.output_limit >= OUTPUT_LIMIT_RESUMES:
            raise HarnessError(
                f"the model's reply was cut at the output limit ({max_tokens} tokens) "
                f"{OUTPUT_LIMIT_RESUMES + 1} times in this turn; ask for the work in "
                "smaller pieces, or raise the limit (maxOutputTokens in settings)"
            )
        resumed.output_limit += 1
        return cut
    if cut == "refusal":
        if resumed.refusal >= REFUSAL_RESUMES:
            raise HarnessError(
                f"{display_name(model)} refused again after it was told its reply had been "
                "stopped by its safety classifier; start a new session to continue"
            )
        resumed.refusal += 1
        return cut
    return None


def nothing_said(stop_reason: StopReason | None, model: str, max_tokens: int) -> None:
    """A reply with nothing in it that was cut (its stop reason `refusal`, `max_tokens`):
    raises `HarnessError` saying why the turn has no answer; a plain empty reply passes."""
    cut = cut_by(stop_reason)
    if cut == "refusal":
        raise HarnessError(
            f"{display_name(model)} refused to answer (stop reason refusal, nothing said): "
            "its safeguards stopped the response; rephrase the request, or start a new session"
        )
    if cut == "output_limit":
        raise HarnessError(
            f"the model's reply was cut (stop reason {stop_reason}) before any of it came: "
            f"the output limit is {max_tokens} tokens; raise it (maxOutputTokens in settings) "
            "or make room in the context (/compact)"
        )


def add_note(history: History, emit: Callable[[Event], None], cut: Cut, model: str) -> None:
    """The note the model reads next, as a user message of its own."""
    if cut == "refusal":
        emit(Notice(message=refusal_told(model)))
    block = TextBlock(text=reminder(_NOTES[cut]))
    history.add_user([block])
    emit(MessageCompleted(message=Message(role="user", content=(block,)), synthetic=cut))


def note_text(cut: Cut) -> str:
    return _NOTES[cut]


def refusal_told(model: str) -> str:
    """What the user is told when the turn goes on after a refusal (Claude Code's words)."""
    return (
        f"{display_name(model)}'s safeguards stopped the response above \u00b7 continuing once "
        "with that noted"
    )


_CLAUDE = re.compile(r"^claude-(opus|sonnet|haiku)-(\d+)(?:-(\d{1,2}))?(?:-\d{8})?(?:\[1m\])?$")


def display_name(model: str) -> str:
    """`claude-sonnet-4-5` as "Sonnet 4.5"; any other model by its id."""
    match = _CLAUDE.match(model)
    if match is None:
        return model
    family, major, minor = match.groups()
    return f"{family.capitalize()} {major}{'.' + minor if minor else ''}"

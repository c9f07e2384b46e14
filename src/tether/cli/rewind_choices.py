"""The rewind menu's choices for the message picked, as Claude Code offers them: restore the
code and the conversation, the conversation only, the code only, summarise from here or up to
here (the chosen part of the conversation compacted by the session's compaction, the rest
verbatim), or never mind; with the warning of what restoring files does not undo."""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import TYPE_CHECKING

from prompt_toolkit import PromptSession
from rich.console import Console
from rich.text import Text

from tether.cli.picker_question import ask_picker

if TYPE_CHECKING:
    from tether.cli.repl_rewind import Checkpoint
    from tether.cli.startup import Ready
    from tether.protocol import Message


class Choice(Enum):
    BOTH = "Restore code and conversation"
    CONVERSATION = "Restore conversation"
    CODE = "Restore code"
    SUMMARIZE_FROM = "Summarize from here"
    SUMMARIZE_UP_TO = "Summarize up to here"
    NEVER_MIND = "Never mind"


CHOICES = tuple(Choice)
WARNING = (
    "⚠ Restored files go back whole, losing later changes by anyone. "
    "Bash changes to other files are not undone."
)
CHOICE_QUESTION = "choose (number, Enter for 1) "
NOT_SENT = (
    "That message is no longer sent as it was (an earlier compaction summarised it), "
    "so there is nothing to summarise there."
)


async def choose(console: Console, prompt: PromptSession[str], about: str) -> Choice | None:
    """The choice for the message `about`, read after the menu; None: never mind."""
    console.print(Text(f"Before {about!r}:", style="bold"), highlight=False)
    for number, choice in enumerate(CHOICES, 1):
        console.print(Text(f"  {number}. {choice.value}"), highlight=False)
    console.print(Text(WARNING, style="yellow"), highlight=False)
    answer = await ask_picker(prompt, CHOICE_QUESTION)
    if answer == "":
        return Choice.BOTH
    if answer is None or not answer.isdigit() or not 1 <= int(answer) <= len(CHOICES):
        if answer:
            console.print(Text(f"No choice {answer!r}: nothing changed.", style="yellow"))
        return None
    chosen = CHOICES[int(answer) - 1]
    return None if chosen is Choice.NEVER_MIND else chosen


async def summarize(
    console: Console, ready: Ready, taken: Sequence[Checkpoint], chosen: int, choice: Choice
) -> None:
    """Compact the part of the conversation from (or up to) the message `taken[chosen]`
    through the session's compaction; the conversation goes on from there."""
    from tether.protocol import Compact

    at = prompt_index(ready.session.sent_messages, taken, chosen)
    if at is None:
        console.print(Text(NOT_SENT, style="yellow"))
        return
    part = "from" if choice is Choice.SUMMARIZE_FROM else "before"
    async for event in ready.session.submit(Compact(at=at, part=part)):
        ready.renderer.render(event)


def prompt_index(view: Sequence[Message], taken: Sequence[Checkpoint], chosen: int) -> int | None:
    """Where the message `taken[chosen]` starts in what is sent (`view`): the user's prompts
    with its words, counted from the newest as the messages after it that have them too."""
    from tether.cli.seen_messages import typed_text

    words = taken[chosen].said
    if not words:
        return None
    later = sum(1 for c in taken[chosen + 1 :] if c.said == words)
    found = [
        index
        for index, message in enumerate(view)
        if message.role == "user"
        and not message.tool_results()
        and typed_text(message.content) == words
    ]
    return found[-1 - later] if later < len(found) else None

"""A headless prompt as Claude Code reads it, the same on every headless input path (`-p`,
stream-json input from SDK programs): `/name args` becomes its skill's, command's or MCP
prompt's message, a file it mentions (`@path`) is read into it with the Read tool, and
`/compact [focus]` compacts the conversation (a turn of its own, whose result says whether it
did; with nothing said yet, Claude Code's answer: "Error: No messages to compact" as a reply of
no model, and a result that is no error)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Final

from tether.cli.command_expansion import expansion_hooks
from tether.cli.custom_commands import command_model, expand_slash_prompt, unknown_command_note
from tether.cli.headless_commands import LOCAL_COMMANDS
from tether.cli.mentions import mentioned_paths
from tether.protocol import (
    Compact,
    ConfigError,
    ContextCompacted,
    ErrorOccurred,
    Event,
    ImageBlock,
    Message,
    MessageCompleted,
    Notice,
    TextBlock,
    TurnFinished,
    Usage,
    UserInput,
)
from tether.slotted import Slotted

if TYPE_CHECKING:
    from tether.core.session import Session

NO_MESSAGES_TO_COMPACT = "Error: No messages to compact"
"""What `/compact` answers when nothing was said yet (Claude Code's words)."""
SYNTHETIC_MODEL = "<synthetic>"
"""The model Claude Code names on a reply no model wrote (a local command's answer)."""

HEADLESS_BUILT_INS = ("compact", *LOCAL_COMMANDS)
"""Built-in commands a headless prompt runs (listed among the session's slash commands)."""


class LocalCommand(Slotted):
    """A built-in command answered here (`headless_commands`), not by the model."""

    __slots__ = ("args", "name")
    name: Final[str]
    args: Final[str]

    def __init__(self, name: str, args: str) -> None:
        self.name = name
        self.args = args


def clears(session: Session, text: str) -> bool:
    """Whether `text` is Claude Code's `/clear` (not a skill or command of that name): the
    front end starts a new session for it; the turn itself then answers nothing."""
    name = text.split(maxsplit=1)[0] if text.startswith("/") else ""
    return name == "/clear" and not _ours(session, "clear")


def _ours(session: Session, name: str) -> bool:
    return name in session.commands or session.skills.runnable(name) is not None


async def headless_input(
    session: Session, prompt: UserInput, said: list[Event] | None = None
) -> UserInput | Compact | LocalCommand:
    """What a headless prompt asks for: `/compact [focus]` compacts (unless a skill or command
    of that name wins), `/name args` becomes its command's message (`expand_slash_prompt`;
    images given with it stay), anything else is the prompt itself. Raises ConfigError when a
    command's file cannot be read, or a UserPromptExpansion hook blocks it; what the hooks
    say goes to `said`."""
    said = said if said is not None else []
    text = prompt.text
    if not text.startswith("/"):
        return await _read_mentions(session, prompt, said)
    name, *rest = text.split(maxsplit=1)
    if name[1:] in HEADLESS_BUILT_INS and not _ours(session, name[1:]):
        args = rest[0].strip() if rest else ""
        return (
            LocalCommand(name[1:], args) if name[1:] != "compact" else Compact(focus=args or None)
        )
    message = await expand_slash_prompt(session, text)
    if message == text:
        note = unknown_command_note(session, text)
        if note is None:  # a `/path`: a prompt as any other
            return await _read_mentions(session, prompt, said)
        # As Claude Code: the model is told no such command ran, with the message as typed.
        typed = prompt.content or (TextBlock(text=text),)
        return prompt.model_copy(update={"content": (*typed, TextBlock(text=note))})
    args = rest[0] if rest else ""
    message = await expansion_hooks(session, name[1:], args, message, said.append)
    images = tuple(b for b in prompt.content if isinstance(b, ImageBlock))
    content: tuple[TextBlock | ImageBlock, ...] = (
        (TextBlock(text=message), *images) if images else ()
    )
    if mentioned_paths(message):  # a command's `@file`s are read into it, as typed ones are
        from tether.cli.mentions import with_mentions

        content = (*await with_mentions(session, message, said.append), *images)
    return prompt.model_copy(update={"text": message, "content": content, "typed": text})


async def _read_mentions(session: Session, prompt: UserInput, said: list[Event]) -> UserInput:
    """The prompt with each `@file` it mentions read into it after what it says (its own
    blocks, images included), as Claude Code reads them in `-p` and from SDK programs."""
    if not mentioned_paths(prompt.text):
        return prompt
    from tether.cli.mentions import with_mentions

    _, *reads = await with_mentions(session, prompt.text, said.append)
    if not reads:  # no mention names a file: the prompt as it was
        return prompt
    own = prompt.content or (TextBlock(text=prompt.text),)
    return prompt.model_copy(update={"content": (*own, *reads)})


async def headless_turn(
    session: Session, prompt: UserInput, *, front_started: float
) -> AsyncIterator[Event]:
    """The events of the turn `prompt` asks for (see `headless_input`), ending with a
    `TurnFinished` whatever it was: a compaction's says whether it compacted, and a command
    whose file cannot be read ends the turn as an error that says so. `front_started`: when
    the front end started or last cleared, as `time.monotonic` (`/cost`'s wall time)."""
    started, usage, cost = time.perf_counter(), session.usage, session.cost_usd
    heard: list[Event] = []
    try:
        op = await headless_input(session, prompt, heard)
    except ConfigError as e:
        for event in heard:
            yield event
        yield ErrorOccurred(message=str(e))
        yield _finished(False, str(e), started, usage, session.usage, session.cost_usd - cost)
        return
    for event in heard:
        yield event
    if isinstance(op, UserInput):
        model = command_model(session, prompt.text)
        if model is None or session.switch_model is None:
            async for event in session.submit(op):
                yield event
            return
        from tether.cli.model_switch import model_for_turn

        # The model the command's front matter names, for its turn, as in Claude Code.
        async with model_for_turn(session.agent, session.switch_model, model):
            async for event in session.submit(op):
                yield event
        return
    if isinstance(op, LocalCommand):
        # As Claude Code: the command's answer as a reply of no model, and the result.
        wall_s = time.monotonic() - front_started
        done, answer = await LOCAL_COMMANDS[op.name](session, op.args, wall_s)
        if answer:  # `/clear` says nothing
            said_back = Message(role="assistant", content=(TextBlock(text=answer),))
            yield MessageCompleted(message=said_back, model=SYNTHETIC_MODEL, stop_reason="end_turn")
        spent = session.cost_usd - cost
        yield _finished(done, answer, started, usage, session.usage, spent, said=answer)
        return
    if not session.messages:
        # As Claude Code answers it: its local command's error as a reply of no model, and a
        # result that is no error.
        said_back = Message(role="assistant", content=(TextBlock(text=NO_MESSAGES_TO_COMPACT),))
        yield MessageCompleted(message=said_back, model=SYNTHETIC_MODEL, stop_reason="end_turn")
        yield _finished(True, "", started, usage, session.usage, session.cost_usd - cost)
        return
    compacted, said = False, ""
    async for event in session.submit(op):
        if isinstance(event, ContextCompacted):
            compacted = True
        elif isinstance(event, Notice):
            said = event.message
        yield event
    why = said or "nothing was compacted"
    yield _finished(compacted, why, started, usage, session.usage, session.cost_usd - cost)


def _finished(
    done: bool,
    why: str,
    started: float,
    before: Usage,
    now: Usage,
    cost_usd: float,
    *,
    said: str = "",
) -> TurnFinished:
    return TurnFinished(
        subtype="success" if done else "error_during_execution",
        is_error=not done,
        result=said if done else why,
        error=None if done else why,
        stop_reason=None,
        num_turns=0,
        usage=_spent_since(before, now),
        cost_usd=cost_usd,
        duration_ms=int((time.perf_counter() - started) * 1000),
        duration_api_ms=0,
    )


def _spent_since(before: Usage, now: Usage) -> Usage:
    return Usage(
        input_tokens=now.input_tokens - before.input_tokens,
        output_tokens=now.output_tokens - before.output_tokens,
        cache_creation_input_tokens=now.cache_creation_input_tokens
        - before.cache_creation_input_tokens,
        cache_read_input_tokens=now.cache_read_input_tokens - before.cache_read_input_tokens,
    )


async def prepared(session: Session) -> list[Event]:
    """The session's preparations (MCP servers connecting); a signal meanwhile stops them, and
    the turn then reports the interruption."""
    try:
        return await session.prepare()
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise
        return []

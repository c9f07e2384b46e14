"""A conversation as the user saw it, for the REPL to draw again (after Esc Esc's rewind, or
at the end of a resumed session): their messages as typed, the replies, the calls. What tether
added for the model alone (`<system-reminder>` blocks: hook context, a mentioned file's Read,
a subdirectory's CLAUDE.md, the agent types; a compaction's summary) is left out; an interrupt
mark reads as the REPL said it; a `!command` as typed. `seen_view` draws the calls as the live
turn drew them: `● Write(f.txt)` headline, then the change it made, the plan, or the result."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from rich.text import Text

from tether.cli.running_calls import RunningCalls
from tether.cli.terminal_text import terminal_safe, terminal_safe_event
from tether.cli.toolview import proposed_diff, tool_headline
from tether.core.carried import is_compaction_text
from tether.core.conversation import INTERRUPTED_MARK, INTERRUPTED_TOOLS_MARK
from tether.protocol import (
    ContentBlock,
    Message,
    TextBlock,
    ToolFinished,
    ToolResultBlock,
    ToolStarted,
    ToolUseBlock,
)

REMINDER_START = "<system-reminder>"
INTERRUPTED_SEEN = "⏹ Interrupted"
_SHELL = re.compile(
    r"^<bash-input>(?P<command>.*?)</bash-input>\n<bash-(?:stdout|stderr)>(?P<output>.*)"
    r"</bash-(?:stdout|stderr)>$",
    re.DOTALL,
)


def seen_messages(messages: Sequence[Message]) -> list[str]:
    """Each message of `messages` as the user saw it, as text; a message that held nothing
    they saw is left out."""
    from tether.cli.sessions_cmd import describe_message

    seen: list[str] = []
    for message in messages:
        if message.role != "user":
            seen.append(describe_message(message))
            continue
        lines: list[str] = []
        for block in message.content:
            shown = _seen(block)
            if isinstance(shown, str):
                lines.append(shown)
            elif shown is not None:
                lines.append(describe_message(message.model_copy(update={"content": [shown]})))
        if lines:
            seen.append("\n".join(lines))
    return seen


def typed_text(blocks: Sequence[ContentBlock]) -> str | None:
    """The user's own words in the blocks of a user message, as typed; None when it holds
    none (a tool's result, what tether added for the model, an interrupt mark)."""
    words = [b.text for b in blocks if isinstance(b, TextBlock) and isinstance(_seen(b), TextBlock)]
    return "\n".join(words) if words else None


def seen_view(messages: Sequence[Message], *, workspace: Path | None, width: int) -> list[Text]:
    """What the user saw of `messages`, one piece a message or a call: their messages and the
    replies' text (dim, as `seen_messages`), each call with its headline and, under it, what
    its result showed in the live turn."""
    from tether.cli.sessions_cmd import describe_message

    results = {
        block.tool_use_id: block
        for message in messages
        if message.role == "user"
        for block in message.content
        if isinstance(block, ToolResultBlock)
    }
    calls = RunningCalls()
    pieces: list[Text] = []
    for message in messages:
        said: list[str] = []
        for block in message.content:
            if isinstance(block, ToolUseBlock):
                if said:
                    pieces.append(_dim(said))
                    said = []
                pieces.append(_call(block, results.get(block.id), calls, workspace, width))
                continue
            if isinstance(block, ToolResultBlock):
                continue  # under its call
            shown = _seen(block) if message.role == "user" else block
            if isinstance(shown, str):
                said.append(shown)
            elif shown is not None:
                said.append(describe_message(message.model_copy(update={"content": [shown]})))
        if said:
            pieces.append(_dim(said))
    return pieces


def _dim(lines: list[str]) -> Text:
    return Text(terminal_safe("\n".join(lines)), style="dim")


def _call(
    block: ToolUseBlock,
    result: ToolResultBlock | None,
    calls: RunningCalls,
    workspace: Path | None,
    width: int,
) -> Text:
    started = terminal_safe_event(ToolStarted(call_id=block.id, name=block.name, input=block.input))
    view = tool_headline(started.name, started.input, workspace=workspace, width=width)
    if result is None:
        return view
    finished = terminal_safe_event(
        ToolFinished(
            call_id=block.id,
            name=block.name,
            content=result.content,
            is_error=result.is_error,
            # The file before the change is not kept: the change alone, as the call asked it.
            diff=proposed_diff(started.name, started.input, None),
        )
    )
    view.append("\n")
    view.append_text(
        calls.result_view(finished, started, workspace=workspace, width=width, verbose=False)
    )
    return view


def _seen(block: ContentBlock) -> ContentBlock | str | None:
    """The block as shown (a line of its own when not the user's words), or None."""
    if not isinstance(block, TextBlock):
        return block
    text = block.text
    if text.startswith(REMINDER_START) or is_compaction_text(text):
        return None
    if text.strip() in (INTERRUPTED_MARK, INTERRUPTED_TOOLS_MARK):
        return INTERRUPTED_SEEN
    shell = _SHELL.match(text)
    if shell is not None:
        output = shell["output"].rstrip().replace("\n", "\n    ")
        return f"! {shell['command']}" + (f"\n  ⎿ {output}" if output else "")
    return block

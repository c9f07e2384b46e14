"""A conversation as the user saw it, for the REPL to draw again (after Esc Esc's rewind, or
at the end of a resumed session): their messages as typed, the replies, the calls. What tether
added for the model alone (`<system-reminder>` blocks: hook context, a mentioned file's Read,
a subdirectory's CLAUDE.md, the agent types; a compaction's summary) is left out; an interrupt
mark reads as the REPL said it; a `!command` as typed."""

from __future__ import annotations

import re
from collections.abc import Sequence

from tether.core.carried import is_compaction_text
from tether.core.conversation import INTERRUPTED_MARK, INTERRUPTED_TOOLS_MARK
from tether.protocol import ContentBlock, Message, TextBlock

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

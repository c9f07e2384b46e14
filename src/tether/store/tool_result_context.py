"""What a tool's hooks added to its result, kept beside the result's entry rather than inside
it, as Claude Code keeps it: an `attachment` entry per hook name, with the call's `toolUseID`:
`hook_additional_context` for a PostToolUse or PostToolUseFailure hook's context (the text as
the model read it in `rendered`), `hook_stopped_continuation` for the reason a PreToolUse or
PostToolUse hook's `continue: false` gave. Readers of the conversation (the SDK's
`get_session_messages`) find the tool's output alone. The model reads each at the end of the
result's text, after a blank line (`core.result_context`); a resumed session puts it back
there, as Claude Code's own resume does."""

from __future__ import annotations

import re
from typing import Any

from tether.protocol import ContentBlock, ToolResultBlock

_OPEN, _CLOSE = "\n\n<system-reminder>\n", "\n</system-reminder>"
CONTEXT, STOPPED = "hook_additional_context", "hook_stopped_continuation"
WORDS = {CONTEXT: " hook additional context: ", STOPPED: " hook stopped continuation: "}
"""Each attachment kind, and the words the model reads between the hook's name and its text."""
_SAID = re.compile(
    r"(?:(PostToolUse|PostToolUseFailure):([^\s:]+) hook additional context: "
    r"|(PreToolUse|PostToolUse):([^\s:]+) hook stopped continuation: )"
)
AFTER_EVENTS = frozenset({"PostToolUse", "PostToolUseFailure"})
STOPPING_EVENTS = frozenset({"PreToolUse", "PostToolUse"})


def result_attachments(
    blocks: list[ContentBlock],
) -> tuple[list[ContentBlock], list[dict[str, Any]]]:
    """`blocks` with each tool result's text without what its hooks added at its end, and
    that as attachment entries' fields (one per hook name and kind, its texts in order)."""
    kept: list[ContentBlock] = []
    attachments: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, ToolResultBlock):
            content, found = _split(block.content)
            if found:
                block = block.model_copy(update={"content": content})
                attachments.extend(_attachment(block.tool_use_id, *each) for each in found)
        kept.append(block)
    return kept, attachments


def own_output(content: str) -> str:
    """A result's text without what its hooks added at its end (the tool's output alone, as
    a client program is shown it)."""
    return _split(content)[0]


def with_context(content: str, texts: list[str], hook_name: str, kind: str = CONTEXT) -> str:
    """A result's text with a hook's words put back at its end, as the model read them."""
    return content + "".join(f"{_OPEN}{hook_name}{WORDS[kind]}{t}{_CLOSE}" for t in texts)


def _split(content: str) -> tuple[str, list[tuple[str, str, str, list[str]]]]:
    """The result's own text, and what hooks added at its end: (kind, event, tool, texts),
    in order."""
    found: list[tuple[str, str, str, str]] = []
    while content.endswith(_CLOSE):
        start = content.rfind(_OPEN)
        said = _SAID.match(content, start + len(_OPEN)) if start >= 0 else None
        if said is None:
            break
        text = content[said.end() : -len(_CLOSE)]
        if said.group(1) is not None:
            found.append((CONTEXT, said.group(1), said.group(2), text))
        else:
            found.append((STOPPED, said.group(3), said.group(4), text))
        content = content[:start]
    grouped: dict[tuple[str, str, str], list[str]] = {}
    for kind, event, tool, text in reversed(found):
        grouped.setdefault((kind, event, tool), []).append(text)
    return content, [(kind, event, tool, texts) for (kind, event, tool), texts in grouped.items()]


def _attachment(call_id: str, kind: str, event: str, tool: str, texts: list[str]) -> dict[str, Any]:
    name = f"{event}:{tool}"
    # Claude Code's stop attachment holds its one reason as `message`, a context its texts.
    held: dict[str, Any] = {"message": "\n".join(texts)} if kind == STOPPED else {"content": texts}
    return {
        "attachment": {
            "type": kind,
            **held,
            "hookName": name,
            "toolUseID": call_id,
            "hookEvent": event,
        },
        "rendered": [
            {"content": f"{_OPEN.lstrip()}{name}{WORDS[kind]}{text}{_CLOSE}"} for text in texts
        ],
        "renderedRole": "system",
    }

"""What a PostToolUse or PostToolUseFailure hook added to a tool's result, kept beside the
result's entry rather than inside it, as Claude Code keeps it: an `attachment` entry
(`hook_additional_context`, `hookName` `<event>:<tool>`, the call's `toolUseID`, and the
text as the model read it in `rendered`), so that readers of the conversation (the SDK's
`get_session_messages`) find the tool's output alone. The model reads it at the end of the
result's text, after a blank line (`core.result_context`); a resumed session puts it back
there, as Claude Code's own resume does."""

from __future__ import annotations

import re
from typing import Any

from tether.protocol import ContentBlock, ToolResultBlock

_OPEN, _CLOSE = "\n\n<system-reminder>\n", "\n</system-reminder>"
_WORDS = " hook additional context: "
_SAID = re.compile(r"(PostToolUse|PostToolUseFailure):([^\s:]+) hook additional context: ")
AFTER_EVENTS = frozenset({"PostToolUse", "PostToolUseFailure"})


def result_attachments(
    blocks: list[ContentBlock],
) -> tuple[list[ContentBlock], list[dict[str, Any]]]:
    """`blocks` with each tool result's text without what its hooks added at its end, and
    that as attachment entries' fields (one per hook name, its texts in order)."""
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


def with_context(content: str, texts: list[str], hook_name: str) -> str:
    """A result's text with a hook's context put back at its end, as the model read it."""
    return content + "".join(f"{_OPEN}{hook_name}{_WORDS}{t}{_CLOSE}" for t in texts)


def _split(content: str) -> tuple[str, list[tuple[str, str, list[str]]]]:
    """The result's own text, and the contexts at its end: (event, tool, texts), in order."""
    found: list[tuple[str, str, str]] = []
    while content.endswith(_CLOSE):
        start = content.rfind(_OPEN)
        said = _SAID.match(content, start + len(_OPEN)) if start >= 0 else None
        if said is None:
            break
        text = content[said.end() : -len(_CLOSE)]
        found.append((said.group(1), said.group(2), text))
        content = content[:start]
    grouped: dict[tuple[str, str], list[str]] = {}
    for event, tool, text in reversed(found):
        grouped.setdefault((event, tool), []).append(text)
    return content, [(event, tool, texts) for (event, tool), texts in grouped.items()]


def _attachment(call_id: str, event: str, tool: str, texts: list[str]) -> dict[str, Any]:
    name = f"{event}:{tool}"
    return {
        "attachment": {
            "type": "hook_additional_context",
            "content": texts,
            "hookName": name,
            "toolUseID": call_id,
            "hookEvent": event,
        },
        "rendered": [
            {"content": f"{_OPEN.lstrip()}{name}{_WORDS}{text}{_CLOSE}"} for text in texts
        ],
        "renderedRole": "system",
    }

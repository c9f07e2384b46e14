"""Reading transcripts Claude Code wrote (the same JSONL layout as tether's, with more in it).

Claude Code's files hold, besides messages: bookkeeping lines with no place in the chain (no
`parentUuid`: request logs, costs, the last prompt, queue operations, titles and tags), entries on
the chain that are not messages (`attachment`, `system`), messages that are not part of the
conversation sent (`isMeta`, `isSidechain`), user content given as a plain string, content
blocks tether does not keep (documents, server tools) and blocks with fields tether does not
keep. This module turns what is a message into what tether's `Message` accepts; the rest is
left to the reader to skip, without warnings: none of it is damage.
"""

from __future__ import annotations

from typing import Any, cast

_KEPT_FIELDS: dict[str, tuple[str, ...]] = {
    "text": ("type", "text"),
    "thinking": ("type", "thinking", "signature"),
    "redacted_thinking": ("type", "data"),
    "tool_use": (
        "type",
        "id",
        "name",
        "input",
        "input_error",
        "raw_input",
        "input_refused",
    ),  # tether keeps its own
    "tool_result": ("type", "tool_use_id", "content", "is_error"),
    "image": ("type", "source"),
}
DROPPED_BLOCK = "[{kind} content from Claude Code, not kept by tether]"


def is_bookkeeping(fields: dict[str, Any]) -> bool:
    """A line that is not an entry of the conversation at all: no `parentUuid`, and not a
    message (a message without one is a damaged one). Every entry on the chain, Claude
    Code's and tether's, names its parent (null for the first); lines about the session have
    none, with a `uuid` or not: the SDK's `fork_session` writes its `custom-title` and
    `content-replacement` lines with one, `rename_session` and `tag_session` without."""
    return "parentUuid" not in fields and fields.get("type") not in ("user", "assistant")


def is_off_conversation(fields: dict[str, Any]) -> bool:
    """A message Claude Code keeps but does not send as the conversation."""
    return fields.get("isMeta") is True or fields.get("isSidechain") is True


def message_content(content: object) -> object:
    """`content` as tether's blocks: a string becomes a text block; blocks keep only the
    fields tether knows; a block of another kind becomes a short text saying so; a tool
    result's list of blocks becomes its text and its images. Anything else is returned as it
    is (and fails validation where it is checked)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content.strip() else []
    if not isinstance(content, list):
        return content
    blocks: list[object] = []
    for item in cast(list[Any], content):
        if not isinstance(item, dict):
            blocks.append(item)
            continue
        block = cast(dict[str, Any], item)
        kind = block.get("type")
        if not isinstance(kind, str):
            blocks.append(block)  # no kind at all: damage, which validation reports
            continue
        kept = _KEPT_FIELDS.get(kind)
        if kept is None:
            blocks.append({"type": "text", "text": DROPPED_BLOCK.format(kind=kind)})
            continue
        slim = {name: block[name] for name in kept if name in block}
        if kind == "tool_result":
            slim["content"] = _result_text(block.get("content"))
            slim["is_error"] = block.get("is_error") is True
            images = _result_images(block.get("content"))
            if images:
                slim["images"] = images
        blocks.append(slim)
    return blocks


def _result_text(content: object) -> object:
    if content is None:
        return ""
    if not isinstance(content, list):
        return content
    parts: list[str] = []
    for item in cast(list[Any], content):
        kind = cast(dict[str, Any], item).get("type") if isinstance(item, dict) else None
        if kind == "text":
            parts.append(str(cast(dict[str, Any], item).get("text", "")))
        elif isinstance(item, dict) and kind != "image":
            parts.append(f"[{kind} content not kept by tether]")
    return "\n".join(parts)


def _result_images(content: object) -> list[dict[str, Any]]:
    """The image blocks of a tool result's list of blocks (the file's form of `images`)."""
    if not isinstance(content, list):
        return []
    return [
        {"type": "image", "source": cast(dict[str, Any], item).get("source")}
        for item in cast(list[Any], content)
        if isinstance(item, dict) and cast(dict[str, Any], item).get("type") == "image"
    ]

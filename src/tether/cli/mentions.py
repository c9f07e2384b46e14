"""`@path` mentions in a message, read with the Read tool as Claude Code reads them, and calls
the user asks for, run through the session's gate. Kept apart from the prompt's completers
(`tether.cli.user_context`): a headless run reads a command's mentions without loading the
terminal's libraries."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tether.core.session import Session
    from tether.protocol import (
        Event,
        ImageBlock,
        PermissionAnswer,
        PermissionAsked,
        TextBlock,
        ToolResultBlock,
    )

MENTION = re.compile(r"(?:(?<=\s)|^)@((?:\\ |[^\s@])+)")
"""`@path`, at the start of a word; a space inside a path is written `\\ `."""


def mentioned_paths(text: str) -> list[str]:
    """The paths a message mentions, in order, each once."""
    seen: list[str] = []
    for match in MENTION.finditer(text):
        path = match.group(1).replace("\\ ", " ").rstrip(".,;:!?)")
        if path and path not in seen:
            seen.append(path)
    return seen


async def run_for_user(
    session: Session, tool: str, tool_input: dict[str, object], emit: Callable[[Event], None]
) -> tuple[str, bool]:
    """Run one call the user asked for through the session's gate; its result text and
    whether it failed (a denial is a failure that says why)."""
    block = await _run_for_user(session, tool, tool_input, emit)
    return block.content, block.is_error


async def _run_for_user(
    session: Session, tool: str, tool_input: dict[str, object], emit: Callable[[Event], None]
) -> ToolResultBlock:
    from tether.core.tool_calls import run_call
    from tether.protocol import PermissionAnswer, ToolUseBlock

    async def the_user_asked(request: PermissionAsked) -> PermissionAnswer:
        return PermissionAnswer(request_id=request.request_id, choice="allow_once")

    call = ToolUseBlock(id=f"user_{uuid.uuid4().hex[:12]}", name=tool, input=tool_input)
    result = await run_call(session.agent, call, emit, the_user_asked, [])
    return result.block


async def with_mentions(
    session: Session, text: str, emit: Callable[[Event], None]
) -> tuple[TextBlock | ImageBlock, ...]:
    """The message's blocks: its text, then for each mentioned file that exists the Read
    call and its result, as Claude Code sends them: the result's text, then the images it
    returned (a picture, a notebook's plots), which its text names. A mention that names no
    file stays text."""
    from tether.core.lifecycle import reminder
    from tether.protocol import TextBlock

    blocks: list[TextBlock | ImageBlock] = [TextBlock(text=text)]
    workspace = session.agent.tool_context.shell_cwd
    for mentioned in mentioned_paths(text):
        path = _existing_file(workspace, mentioned)
        if path is None:
            continue
        said = json.dumps({"file_path": str(path)})
        result = await _run_for_user(session, "Read", {"file_path": str(path)}, emit)
        blocks.append(
            TextBlock(text=reminder(f"Called the Read tool with the following input: {said}"))
        )
        what = "Error from" if result.is_error else "Result of"
        blocks.append(
            TextBlock(text=reminder(f"{what} calling the Read tool: {json.dumps(result.content)}"))
        )
        blocks.extend(result.images)
    return tuple(blocks)


def _existing_file(base: Path, mentioned: str) -> Path | None:
    path = (base / Path(mentioned).expanduser()).resolve()
    return path if path.is_file() else None

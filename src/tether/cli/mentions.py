"""`@path` mentions in a message, read as Claude Code reads them: a file with the Read tool, a
directory as its listing (the Glob tool: bounded, ignored files left out), `@server:uri` an MCP
server's resource (ReadMcpResourceTool); an image path dropped or pasted into the REPL's prompt is
read as an image. And calls the user asks for, run through the session's gate. Kept apart from
the prompt's completers (`tether.cli.user_context`): a headless run reads a command's mentions
without loading the terminal's libraries."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from tether.cli.written_paths import AFTER_A_PATH

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
RESOURCE = re.compile(r"([A-Za-z0-9_.-]+):([A-Za-z][A-Za-z0-9+.-]*://.*)")
"""`@server:proto://resource`, an MCP server's resource, as Claude Code writes it."""


def mentioned_paths(text: str) -> list[str]:
    """The paths a message mentions, in order, each once."""
    seen: list[str] = []
    for match in MENTION.finditer(text):
        path = match.group(1).replace("\\ ", " ").rstrip(AFTER_A_PATH)
        if path and path not in seen:
            seen.append(path)
    return seen


def mentioned_servers(text: str) -> list[str]:
    """The MCP servers whose resources the message mentions (`@server:proto://...`)."""
    found = (RESOURCE.fullmatch(mentioned) for mentioned in mentioned_paths(text))
    return [match.group(1) for match in found if match is not None]


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
    session: Session,
    text: str,
    emit: Callable[[Event], None],
    *,
    dropped_images: bool = False,
) -> tuple[TextBlock | ImageBlock, ...]:
    """The message's blocks: its text, then for each mention that names something the call
    that reads it and its result, as Claude Code sends them: a file's Read (the result's
    text, then the images it returned, which its text names), a directory's listing, an MCP
    resource. A mention that names nothing stays text. `dropped_images` (the REPL's prompt):
    an image file's path, as a terminal writes a dropped or pasted file, is read too; another
    file's path stays text, and a notice says so."""
    from tether.protocol import TextBlock

    blocks: list[TextBlock | ImageBlock] = [TextBlock(text=text)]
    workspace = session.agent.tool_context.shell_cwd
    calls = [call for m in mentioned_paths(text) if (call := _reading(session, workspace, m))]
    if dropped_images:
        from tether.cli.dropped_paths import dropped_paths, not_attached
        from tether.protocol import Notice

        images, others = dropped_paths(text, workspace)
        calls.extend(("Read", {"file_path": str(p)}) for p in images)
        for other in others:
            emit(Notice(message=not_attached(other)))
    for index, (tool, tool_input) in enumerate(calls):
        if (tool, tool_input) not in calls[:index]:  # `@src/` and `@src` name one directory
            blocks.extend(await _read_for_user(session, tool, tool_input, emit))
    return tuple(blocks)


async def _read_for_user(
    session: Session, tool: str, tool_input: dict[str, object], emit: Callable[[Event], None]
) -> list[TextBlock | ImageBlock]:
    from tether.core.lifecycle import reminder
    from tether.protocol import TextBlock

    said = json.dumps(tool_input)
    result = await _run_for_user(session, tool, tool_input, emit)
    what = "Error from" if result.is_error else "Result of"
    return [
        TextBlock(text=reminder(f"Called the {tool} tool with the following input: {said}")),
        TextBlock(text=reminder(f"{what} calling the {tool} tool: {json.dumps(result.content)}")),
        *result.images,
    ]


def _reading(session: Session, base: Path, mentioned: str) -> tuple[str, dict[str, object]] | None:
    """The call that reads what a mention names (None: it names nothing there is)."""
    resource = RESOURCE.fullmatch(mentioned)
    if resource is not None and session.agent.tools.get("ReadMcpResourceTool") is not None:
        server, uri = resource.groups()
        return "ReadMcpResourceTool", {"server": server, "uri": uri}
    from tether.cli.written_paths import kind_of, written_path

    path = written_path(mentioned, base)
    kind = None if path is None else kind_of(path)
    if path is not None and kind == "file":
        return "Read", {"file_path": str(path)}
    if path is not None and kind == "directory":  # what is in it, not its files' contents
        return "Glob", {"pattern": "**/*", "path": str(path)}
    return None  # nothing there, or a FIFO or a device: never read

"""What the user adds to a message at the prompt, as Claude Code adds it: `@path` mentions
(the file read with the Read tool, its call and result joining the message) and `!command`
(run with the Bash tool, the command and its output joining the conversation as the user's
own context for the next message).

Both go through the session's gate as a model's call would: deny rules and PreToolUse hooks
apply, the Bash tool's sandbox runs the command. The user typing it is the approval an ask
rule would seek, so nothing is asked.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

if TYPE_CHECKING:
    from tether.core.session import Session
    from tether.protocol import Event, PermissionAnswer, PermissionAsked, TextBlock

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
    from tether.core.tool_calls import run_call
    from tether.protocol import PermissionAnswer, ToolUseBlock

    async def the_user_asked(request: PermissionAsked) -> PermissionAnswer:
        return PermissionAnswer(request_id=request.request_id, choice="allow_once")

    call = ToolUseBlock(id=f"user_{uuid.uuid4().hex[:12]}", name=tool, input=tool_input)
    result = await run_call(session.agent, call, emit, the_user_asked, [])
    return result.block.content, result.block.is_error


async def with_mentions(
    session: Session, text: str, emit: Callable[[Event], None]
) -> tuple[TextBlock, ...]:
    """The message's blocks: its text, then for each mentioned file that exists the Read
    call and its result, as Claude Code sends them. A mention that names no file stays text."""
    from tether.core.lifecycle import reminder
    from tether.protocol import TextBlock

    blocks = [TextBlock(text=text)]
    workspace = session.agent.tool_context.shell_cwd
    for mentioned in mentioned_paths(text):
        path = _existing_file(workspace, mentioned)
        if path is None:
            continue
        said = json.dumps({"file_path": str(path)})
        result, failed = await run_for_user(session, "Read", {"file_path": str(path)}, emit)
        blocks.append(
            TextBlock(text=reminder(f"Called the Read tool with the following input: {said}"))
        )
        what = "Error from" if failed else "Result of"
        blocks.append(
            TextBlock(text=reminder(f"{what} calling the Read tool: {json.dumps(result)}"))
        )
    return tuple(blocks)


def _existing_file(base: Path, mentioned: str) -> Path | None:
    path = (base / Path(mentioned).expanduser()).resolve()
    return path if path.is_file() else None


def shell_context(command: str, output: str, failed: bool) -> str:
    """A `!command` and its output as the user's context, in Claude Code's tags."""
    stream = "bash-stderr" if failed else "bash-stdout"
    return f"<bash-input>{command}</bash-input>\n<{stream}>{output}</{stream}>"


class MentionCompleter(Completer):
    """Completes the path after `@` from the files under the directory the REPL works in."""

    def __init__(self, base: Callable[[], Path]) -> None:
        self.base = base

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        word = document.get_word_before_cursor(WORD=True)
        if not word.startswith("@"):
            return
        typed = word[1:].replace("\\ ", " ")
        folder, _, stem = typed.rpartition("/")
        directory = self.base() / folder if folder else self.base()
        try:
            entries = sorted(directory.iterdir(), key=lambda p: p.name)
        except OSError:
            return
        for entry in entries:
            if not entry.name.startswith(stem) or (entry.name.startswith(".") and not stem):
                continue
            shown = f"{folder}/{entry.name}" if folder else entry.name
            suffix = "/" if entry.is_dir() else ""
            yield Completion(
                f"@{shown}{suffix}".replace(" ", "\\ "),
                start_position=-len(word),
                display=entry.name + suffix,
            )


class SlashCompleter(Completer):
    """Completes a command typed at the start of the prompt (`/` then its first letters): the
    built-in commands, then the session's skills, custom and plugin commands and MCP prompts
    (`names`, once the session is built), each with its description."""

    def __init__(self, names: Callable[[], Iterable[tuple[str, str]]]) -> None:
        self.names = names

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        typed = document.text_before_cursor
        if not typed.startswith("/") or any(c.isspace() for c in typed):
            return
        for name, about in self.names():
            if name.startswith(typed):
                yield Completion(name, start_position=-len(typed), display_meta=about)

"""What the user adds to a message at the prompt, as Claude Code adds it: `@path` mentions
(the file read with the Read tool, its call and result joining the message) and `!command`
(run with the Bash tool, the command and its output joining the conversation as the user's
own context for the next message).

Both go through the session's gate as a model's call would: deny rules and PreToolUse hooks
apply, the Bash tool's sandbox runs the command. The user typing it is the approval an ask
rule would seek, so nothing is asked.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

if TYPE_CHECKING:
    from tether.cli.startup import SessionStartup
    from tether.mcp.manager import McpManager


def shell_context(command: str, output: str, failed: bool) -> str:
    """A `!command` and its output as the user's context, in Claude Code's tags."""
    stream = "bash-stderr" if failed else "bash-stdout"
    return f"<bash-input>{command}</bash-input>\n<{stream}>{output}</{stream}>"


class ResourceNames:
    """The MCP servers' resources as `server:uri`, for `@` to complete: listed in the
    background when the connected servers change (a completion never waits on a server), the
    completion menu refreshed when the list comes."""

    def __init__(self, startup: SessionStartup) -> None:
        self._startup = startup
        self._names: list[str] = []
        self._listed_for: tuple[str, ...] = ()
        self._listing: asyncio.Task[None] | None = None

    def __call__(self) -> Sequence[str]:
        ready = self._startup.ready
        manager = ready.mcp.manager if ready is not None and ready.mcp is not None else None
        if manager is None:
            return ()
        statuses = manager.statuses()
        connected = tuple(sorted(n for n, s in statuses.items() if s.state == "connected"))
        if connected != self._listed_for and self._listing is None:
            self._listing = asyncio.get_running_loop().create_task(self._list(manager, connected))
        return self._names

    async def _list(self, manager: McpManager, connected: tuple[str, ...]) -> None:
        from prompt_toolkit.application import get_app

        try:
            found = await manager.list_resources()
            self._names = [f"{resource.server}:{resource.uri}" for resource in found]
        finally:
            self._listed_for, self._listing = connected, None
        buffer = get_app().current_buffer
        if buffer.document.get_word_before_cursor(WORD=True).startswith("@"):
            buffer.complete_state = None  # a menu on screen is not computed again otherwise
            buffer.start_completion(select_first=False)


class MentionCompleter(Completer):
    """Completes the path after `@` from the files under the directory the REPL works in, and
    the MCP servers' resources (`resources`) as `@server:uri`."""

    def __init__(
        self, base: Callable[[], Path], resources: Callable[[], Sequence[str]] = lambda: ()
    ) -> None:
        self.base = base
        self.resources = resources

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        word = document.get_word_before_cursor(WORD=True)
        if not word.startswith("@"):
            return
        typed = word[1:].replace("\\ ", " ")
        for name in self.resources():
            if name.startswith(typed):
                yield Completion(
                    f"@{name}", start_position=-len(word), display=name, display_meta="MCP resource"
                )
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

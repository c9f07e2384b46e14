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
from collections.abc import AsyncGenerator, Callable, Iterable, Iterator, Sequence
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


_NAMES_AT_ONCE = 20
"""Names judged by the rules between two looks at the keyboard."""


class MentionCompleter(Completer):
    """Completes the path after `@` from the files under the directory the REPL works in, and
    the MCP servers' resources (`resources`) as `@server:uri`. What `hidden` says the user's
    Read deny rules cover is never listed, nor is what is in it: Glob leaves it out too."""

    def __init__(
        self,
        base: Callable[[], Path],
        resources: Callable[[], Sequence[str]] = lambda: (),
        hidden: Callable[[Path], bool] = lambda _path: False,
    ) -> None:
        self.base = base
        self.resources = resources
        self.hidden = hidden

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        yield from self._resources(document)
        yield from (path for path in self._paths(document) if path is not None)

    async def get_completions_async(
        self, document: Document, complete_event: CompleteEvent
    ) -> AsyncGenerator[Completion, None]:
        """The resources, then the paths, letting the prompt go on between the names: judging
        each by the rules takes a while in a big directory."""
        for completion in self._resources(document):
            yield completion
        for judged, path in enumerate(self._paths(document), start=1):
            if path is not None:
                yield path
            if judged % _NAMES_AT_ONCE == 0:
                await asyncio.sleep(0)

    def _resources(self, document: Document) -> Iterator[Completion]:
        word, typed = _mention(document)
        if not word:
            return
        for name in self.resources():
            if name.startswith(typed):
                yield Completion(
                    f"@{name}", start_position=-len(word), display=name, display_meta="MCP resource"
                )

    def _paths(self, document: Document) -> Iterator[Completion | None]:
        """The paths `@` completes to, and None for each name the rules leave out."""
        word, typed = _mention(document)
        if not word:
            return
        folder, _, stem = typed.rpartition("/")
        directory = self.base() / folder if folder else self.base()
        if self.hidden(directory):
            return
        try:
            entries = sorted(directory.iterdir(), key=lambda p: p.name)
        except OSError:
            return
        for entry in entries:
            if not entry.name.startswith(stem) or (entry.name.startswith(".") and not stem):
                continue
            if self.hidden(entry):
                yield None
                continue
            shown = f"{folder}/{entry.name}" if folder else entry.name
            suffix = "/" if entry.is_dir() else ""
            yield Completion(
                f"@{shown}{suffix}".replace(" ", "\\ "),
                start_position=-len(word),
                display=entry.name + suffix,
            )


def _mention(document: Document) -> tuple[str, str]:
    """The `@word` before the cursor and what it names, spaces unescaped ("": none)."""
    word = document.get_word_before_cursor(WORD=True)
    if not word.startswith("@"):
        return "", ""
    return word, word[1:].replace("\\ ", " ")


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

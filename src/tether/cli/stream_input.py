"""Reading stream-json input: its lines as they arrive, and the text of a user message."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from typing import Any, TextIO, cast

from tether.cli.terminal_text import terminal_safe


def user_text(line: dict[str, Any]) -> str | None:
    """The text of a stream-json user message (`content` a string or text blocks)."""
    message = line.get("message")
    content = cast(dict[str, Any], message).get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts: list[str] = []
    for block in cast(list[Any], content):
        if isinstance(block, dict) and cast(dict[str, Any], block).get("type") == "text":
            texts.append(str(cast(dict[str, Any], block).get("text", "")))
        else:
            _warn("only text blocks of user messages are read; another kind was left out")
    return "\n\n".join(texts) if texts else None


def read_lines(stdin: TextIO) -> asyncio.Queue[str | None]:
    """Lines of `stdin` as they arrive, then None; read on a thread of its own, so that any
    kind of input (a pipe, a test's file) works and the event loop never blocks on it."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str | None] = asyncio.Queue()

    def read() -> None:
        try:
            while line := stdin.readline():
                loop.call_soon_threadsafe(queue.put_nowait, line)
        finally:
            with contextlib.suppress(RuntimeError):  # the loop is already closed
                loop.call_soon_threadsafe(queue.put_nowait, None)

    threading.Thread(target=read, name="stream-json input", daemon=True).start()
    return queue


def _warn(message: str) -> None:
    print(f"tether: {terminal_safe(message)}", file=sys.stderr, flush=True)

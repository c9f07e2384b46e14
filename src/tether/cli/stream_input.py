"""Reading stream-json input: its lines as they arrive (each a JSON object), and a user message
as the session's input (its text and images)."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import json
import os
import select
import threading
from typing import TYPE_CHECKING, Any, TextIO, cast

from tether import bounded_json
from tether.cli.stream_stderr import warn
from tether.outside_text import encodable_value
from tether.protocol import ImageBlock, TextBlock, UserInput
from tether.store.images import image_problem

if TYPE_CHECKING:
    from pydantic import ValidationError


def input_line(raw: str) -> dict[str, Any] | None:
    """One line of input as a JSON object; None (with a warning, unless the line is blank)
    for anything else."""
    try:
        line = encodable_value(bounded_json.loads(raw))  # "\ud800" spelt in JSON
    except json.JSONDecodeError as e:
        if raw.strip():
            problem = bounded_json.error_text(e)
            warn(f"input line is not JSON ({problem}); ignored: {raw.strip()[:200]}")
        return None
    if not isinstance(line, dict):
        warn(f"input line is not a JSON object; ignored: {raw.strip()[:200]}")
        return None
    return cast(dict[str, Any], line)


def user_input(line: dict[str, Any]) -> UserInput | None:
    """A stream-json user message as the session's input: `content` a string, or text and
    image blocks (kept in their order). A block of another kind, or an image the wire formats
    cannot carry, is left out with a warning saying which; None when nothing is left."""
    message = line.get("message")
    content = cast(dict[str, Any], message).get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return UserInput(text=content)
    if not isinstance(content, list):
        return None
    from pydantic import ValidationError  # blocks are checked: a string content needs none

    blocks: list[TextBlock | ImageBlock] = []
    for index, block in enumerate(cast(list[Any], content)):
        kind = cast(dict[str, Any], block).get("type") if isinstance(block, dict) else None
        try:
            if kind == "text":
                blocks.append(TextBlock.model_validate(_only(block, "type", "text")))
                continue
            if kind == "image":
                image = ImageBlock.model_validate(_only(block, "type", "source"))
                # Sent, it would make this request and every later one of the session fail.
                problem = image_problem(image.model_dump(), "user")
                if problem is None:
                    blocks.append(image)
                else:
                    warn(f"content block {index} of a user message was left out: {problem}")
                continue
        except ValidationError as e:
            warn(f"content block {index} of a user message was left out: {_problem(e)}")
            continue
        warn(
            f"content block {index} of a user message was left out: tether reads text and "
            f"image blocks, not {kind!r}"
        )
    if not blocks:
        return None
    text = "\n\n".join(b.text for b in blocks if isinstance(b, TextBlock))
    if all(isinstance(b, TextBlock) for b in blocks):
        return UserInput(text=text)
    return UserInput(text=text, content=tuple(blocks))


def _only(block: Any, *names: str) -> dict[str, Any]:
    """The fields of a block tether keeps (`cache_control` and the like are the client's)."""
    fields = cast(dict[str, Any], block)
    return {name: fields[name] for name in names if name in fields}


def _problem(error: ValidationError) -> str:
    first = error.errors(include_url=False)[0]
    where = ".".join(str(p) for p in first["loc"]) or "block"
    return f"{where}: {first['msg']}"


BOM = "\ufeff"


class InputLines:
    """Lines of `stdin` as they arrive, then None (`queue`); read on a thread of its own, so
    that the event loop never blocks on it. `owed()` says whether input is still on its way:
    a line read and not yet taken, a part of one, or bytes waiting in the pipe unread. A pipe is
    read raw, a chunk at a time, under a lock that `owed()` takes too: a line is never in
    between, counted nowhere."""

    def __init__(self, stdin: TextIO) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._loop = asyncio.get_running_loop()
        self._lock = threading.Lock()
        self._posted = 0
        """Lines handed to the loop (under the lock)."""
        self._taken = 0
        """Lines the front end has dispatched (on the loop)."""
        self._partial = False
        self._ended = False
        try:
            fd: int | None = stdin.fileno()
        except (OSError, ValueError, AttributeError):  # no file behind it (a test's stream)
            fd = None
        self._fd = fd
        reader = self._read_raw if fd is not None else self._read_text
        threading.Thread(
            target=reader, args=(stdin,), name="stream-json input", daemon=True
        ).start()

    def took(self) -> None:
        """A line from `queue` has been dispatched."""
        self._taken += 1

    def owed(self) -> bool:
        with self._lock:
            if self._posted > self._taken or self._partial:
                return True
            if self._ended or self._fd is None:
                return False
            try:
                ready, _, _ = select.select([self._fd], [], [], 0)
            except (OSError, ValueError):
                return False
            return bool(ready)

    def _post(self, lines: list[str | None]) -> None:
        """Called under the lock."""
        self._posted += sum(line is not None for line in lines)
        with contextlib.suppress(RuntimeError):  # the loop is already closed
            for line in lines:
                self._loop.call_soon_threadsafe(self.queue.put_nowait, line)

    def _read_raw(self, stdin: TextIO) -> None:
        fd = self._fd
        assert fd is not None
        decoder = codecs.getincrementaldecoder(stdin.encoding or "utf-8")(stdin.errors or "strict")
        pending = ""
        first = True
        try:
            while True:
                select.select([fd], [], [])  # readable: data, or the end of input
                with self._lock:
                    chunk = os.read(fd, _CHUNK)
                    text = pending + decoder.decode(chunk, final=not chunk)
                    if first and text:
                        # A byte order mark before the first line (Windows PowerShell's pipes
                        # add one) is no part of it.
                        text, first = text.removeprefix(BOM), False
                    *lines, pending = text.split("\n")
                    found: list[str | None] = [line + "\n" for line in lines]
                    if not chunk:
                        self._ended = True
                        found.extend([pending, None] if pending else [None])
                        pending = ""
                    self._partial = bool(pending)
                    self._post(found)
                    if not chunk:
                        return
        except BaseException:
            with self._lock:
                self._ended, self._partial = True, False
                self._post([None])
            raise

    def _read_text(self, stdin: TextIO) -> None:
        try:
            line = stdin.readline().removeprefix(BOM)
            while line:
                with self._lock:
                    self._post([line])
                line = stdin.readline()
        finally:
            with self._lock:
                self._ended = True
                self._post([None])


_CHUNK = 1 << 16

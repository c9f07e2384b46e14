"""The project's memory joined to a session: the MemorySave and MemorySearch tools' index,
and the few memories most relevant to the first prompt offered with it.

Memory lives in `<home>/projects/<slug of the project>/memory.db` (`memory_path`), shared by
every session of the project. Nothing of `tether.memory` is imported, and no file opened,
until a memory tool is called or the file exists at the first prompt. Without the `memory`
extra (or with a model file that is not the pinned one), memory searches by words only, and
says so once, with why."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tether.cli.terminal_text import terminal_safe
from tether.core.memory import MEMORY_FILE_TAG, PIECES_PER_SESSION
from tether.core.session import Session
from tether.protocol import ToolError
from tether.store.sessions import project_dir
from tether.tools.base import Tool
from tether.tools.context import ToolContext
from tether.tools.memory_index import Hits, MemoryHit, Saved, memory_name, render_hits

if TYPE_CHECKING:
    from tether.memory.store import MemoryStore

MEMORY_OFF_ENV = "TETHER_NO_MEMORY"
"""Set (to anything but empty) for sessions with no memory: no tools of its, nothing offered."""
OFFERED = 3
"""How many memories at most are offered with the first prompt."""
OFFERED_CHARS = 1_600
"""How much of them at most (about 400 tokens): each is cut to its share."""
START_TIMEOUT_S = 1.5
"""How long an embeddings endpoint is waited for, each call, while a session starts (the
offer, the memory file's pieces): what is offered is optional, the first request is not;
without an answer the offer goes by words. Tools and `tether memory` wait longer."""

_told_words_only = False


def memory_path(home: Path, project: Path) -> Path:
    return project_dir(home, project) / "memory.db"


MEMORY_TOOLS = frozenset({"MemorySave", "MemorySearch"})


def memory_tools_unless_off(tools: list[Tool], env: Mapping[str, str]) -> list[Tool]:
    """`tools` without the memory's own when memory is off (`TETHER_NO_MEMORY`): a tool the
    model is offered must work, and with no memory each call of theirs would fail."""
    if not env.get(MEMORY_OFF_ENV):
        return tools
    return [tool for tool in tools if tool.name not in MEMORY_TOOLS]


def attach_memory(
    session: Session,
    context: ToolContext,
    *,
    home: Path,
    project: Path,
    env: Mapping[str, str],
    offer: bool = True,
    file_pieces: Sequence[str] = (),
) -> None:
    """Give `session` the project's memory: its tools' index, and (`offer`: not for a resumed
    conversation, which had its offer) the memories most relevant to the first prompt.
    `file_pieces`: the memory file's text in pieces, kept in the memory (once each) so that
    MemorySearch finds what the prompt has only an index of."""
    if env.get(MEMORY_OFF_ENV):
        return
    memory = ProjectMemory(memory_path(home, project), env, home=home)
    context.memory = memory
    if memory.path.exists() or file_pieces:  # loaded while the rest of the session is built
        pieces = tuple(file_pieces)
        threading.Thread(target=memory.warm, args=(pieces,), name="memory", daemon=True).start()
    if offer:
        session.lifecycle.first_prompt_context.append(memory.offer)

    async def close() -> None:
        memory.close()

    session.on_close.append(close)


class ProjectMemory:
    """The `MemoryIndex` the tools use, over the project's `MemoryStore`, opened at first use;
    its calls run in a thread (SQLite and the embedding never hold up the loop)."""

    def __init__(self, path: Path, env: Mapping[str, str], *, home: Path) -> None:
        self.path = path
        self.home = home
        self._env = dict(env)
        self._store: MemoryStore | None = None
        self._opening = threading.Lock()
        self._told: str | None = None

    async def save(self, text: str, tags: tuple[str, ...], replaces: int | None = None) -> Saved:
        return await asyncio.to_thread(self._save, text, tags, replaces)

    async def search(self, query: str, limit: int) -> Hits:
        return await asyncio.to_thread(self._search, query, limit, None)

    async def offer(self, prompt: str) -> str | None:
        """The memories most relevant to `prompt`, as a reminder's text; None when there are
        none (or no memory file yet). A memory that cannot be read is said, and the session
        goes on without."""
        if not self.path.exists() or not prompt.strip():
            return None
        try:
            hits = await asyncio.to_thread(self._search, prompt, OFFERED, START_TIMEOUT_S)
        except ToolError as e:
            _warn(str(e))
            return None
        if not hits:
            return None
        share = OFFERED_CHARS // len(hits)
        lines = [
            f"- {memory_name(h)}: {h.text if len(h.text) <= share else h.text[: share - 1] + '…'}"
            for h in hits
        ]
        return (
            "Memories saved in earlier sessions of this project that may bear on this request "
            "(MemorySearch finds more; they may be out of date: of two that disagree, the one "
            "saved later is likely the current one):\n" + "\n".join(lines)
        )

    def warm(self, file_pieces: Sequence[str] = ()) -> None:
        """Open the memory (and load its embedding model) ahead of its first use, and keep
        the memory file's pieces it does not have yet; what goes wrong is said at that use."""
        from tether.memory.store import MemoryFileError

        with contextlib.suppress(MemoryFileError), self._opening:
            # Under the lock: a search (the first prompt's offer) waits for the pieces.
            if self._store is None:
                self._store = open_store(self.path, self._env, home=self.home)
            added = 0
            for piece in reversed(file_pieces):  # the newest first
                if added >= PIECES_PER_SESSION:
                    break
                if not self._store.has(piece):
                    self._store.save(piece, (MEMORY_FILE_TAG,), timeout=START_TIMEOUT_S)
                    added += 1

    def close(self) -> None:
        with self._opening:
            if self._store is not None:
                self._store.close()
                self._store = None

    def _save(self, text: str, tags: tuple[str, ...], replaces: int | None = None) -> Saved:
        """Save in the memory; when it cannot be used, keep the text whole beside it (added at
        its next opening) and say where: what the model asked to keep is never lost."""
        from tether.memory.pending import keep
        from tether.memory.saving import NeverGiven
        from tether.memory.store import MemoryFileError

        try:
            store = self._opened()
            memory = store.save(text, tags, replaces=replaces)
        except NeverGiven as e:
            raise ToolError(str(e)) from None
        except MemoryFileError as e:
            why = str(e)
        else:
            if memory.already:
                return Saved(memory.id, already=True, replaced=memory.replaced)
            problem = store.embedding_problem
            if problem is not None:
                self._tell(f"memory: saving by words only for now: {problem}")
            near = tuple((n.id, n.text, n.similarity) for n in memory.near)
            return Saved(
                memory.id,
                None,
                problem,
                replaced=memory.replaced,
                not_found=memory.not_found,
                near=near,
            )
        _warn(f"Memory cannot be used: {why}")
        try:
            kept = keep(self.path, text, tags, why, replaces)
        except OSError as e:
            raise ToolError(
                f"Memory cannot be used: {why}; and the memory could not be kept aside "
                f"either ({e}). It is not saved: its text is only in this conversation."
            ) from None
        _warn(f"memory: the memory is kept in {kept}, to be added when the memory can be used")
        return Saved(None, str(kept), why)

    def _tell(self, message: str) -> None:
        """Said once for as long as it stays the same (each search would say it again)."""
        if message != self._told:
            self._told = message
            _warn(message)

    def _search(self, query: str, limit: int, timeout: float | None) -> Hits:
        """The memory's hits, then those of the memories kept aside while it could not be
        used (added to it first when it now can be): a memory saved is found, wherever it
        waits. When the memory cannot be used, the error says so with the kept ones that
        match."""
        from tether.memory.store import MemoryFileError

        try:
            found = self._with_pending().search(query, limit, timeout=timeout)
        except MemoryFileError as e:
            waiting = self._pending_hits(query, limit)
            if not waiting:
                raise ToolError(f"Memory cannot be used: {e}") from None
            raise ToolError(
                f"Memory cannot be used: {e}. Of the memories kept aside until it can be, "
                f"these match:\n\n{render_hits(waiting)}"
            ) from None
        if found.words_only:
            self._tell(f"memory: searching by words only: {found.words_only}")
        hits = [
            MemoryHit(f.memory.id, f.memory.text, f.memory.tags, f.by, f.memory.created_at)
            for f in found
        ]
        return Hits(hits + self._pending_hits(query, limit - len(hits)), found.words_only)

    def _with_pending(self) -> MemoryStore:
        """The memory, opened, with the memories kept aside since it was opened added to it
        (another process, or a save of this one that failed, may have kept some)."""
        from tether.memory.pending import pending_path

        with self._opening:
            if self._store is None:
                self._store = open_store(
                    self.path, self._env, home=self.home
                )  # adds what is kept aside
            elif _has_content(pending_path(self.path)):
                _add_pending(self._store)
            return self._store

    def _pending_hits(self, query: str, limit: int) -> list[MemoryHit]:
        from tether.memory.pending import matching_words, read_pending

        if limit <= 0:
            return []
        try:
            waiting = read_pending(self.path)
        except OSError as e:
            _warn(f"memory: the memories kept aside cannot be read: {e}")
            return []
        return [MemoryHit(None, m.text, m.tags, "words") for m in matching_words(waiting, query)][
            :limit
        ]

    def _opened(self) -> MemoryStore:
        with self._opening:
            if self._store is None:
                self._store = open_store(self.path, self._env, home=self.home)
            return self._store


def _has_content(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except FileNotFoundError:
        return False


def _add_pending(store: MemoryStore) -> None:
    """The memories kept aside while the memory could not be used, added now; one that still
    cannot be is left where it is (said)."""
    from tether.memory.pending import add_pending, pending_path
    from tether.memory.store import MemoryFileError

    try:
        added = add_pending(store)
    except (MemoryFileError, OSError) as e:
        _warn(f"memory: the memories kept in {pending_path(store.path)} stay there: {e}")
        return
    if added:
        _warn(f"memory: {added} memory(ies) kept aside earlier added to the memory")


def open_store(
    path: Path, env: Mapping[str, str], *, home: Path, patient: bool = False
) -> MemoryStore:
    """The memory in `path` with the embedder the environment configures; without one, by
    words only, said once a process. An endpoint's failures are remembered under `home` for
    every process (`patient`: tried even while remembered down). Raises `MemoryFileError`."""
    from tether.memory.embedders import NOT_INSTALLED, configured_embedder, local_problem
    from tether.memory.endpoint_health import health_path
    from tether.memory.store import MemoryStore

    global _told_words_only
    embedder = configured_embedder(env, health=health_path(home), patient=patient)
    store = MemoryStore(path, embedder)
    if not store.by_meaning and not _told_words_only:
        _told_words_only = True
        why = local_problem() or NOT_INSTALLED  # sqlite-vec there but not loadable
        _warn(f"memory: searching by words only ({why})")
    _add_pending(store)
    return store


def _warn(message: str) -> None:
    print(f"tether: {terminal_safe(message)}", file=sys.stderr)

"""A project's memories: one SQLite file, words in FTS5, vectors in sqlite-vec, the two
rankings fused (reciprocal rank fusion).

Shared by every session of the project at once: WAL, each write one transaction, writers wait
for each other (`connection.BUSY_TIMEOUT_MS`). Calls are synchronous and short; async callers
run them in a thread. Without an embedder (or without sqlite-vec) memories are found by words
only, and the vectors of those saved so are added once an embedder is there. How a search's
memories are ordered (fused, then the newer of two near in meaning first): `ranking.py`;
the search by words: `words.py`; the vectors in the file: `vector_table.py`; the tables and
their migration: `schema.py`."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from itertools import islice
from pathlib import Path
from typing import Any

from tether.memory import vector_table
from tether.memory.connection import connect, database_errors, explain
from tether.memory.embedders import Embedder, EmbeddingError
from tether.memory.ranking import By, by_of, fused, newer_first
from tether.memory.saving import (
    NEAR_COUNT,
    NEAR_SIMILARITY,
    Memory,
    Near,
    check_given,
    memory_of,
    new_id,
    packed,
    remove,
    rewrite,
    same_text,
)
from tether.memory.schema import MemoryFileError, Transaction, migrate
from tether.memory.subjects import (
    FILE_TAG,
    corrects,
    same_subject,
    subject_of,
    terms_of,
)
from tether.memory.vectors import Mark, VectorMatrix, mark_of
from tether.memory.words import by_words, correcting, matched_words, sharing_words

MEMORY_FILE = "memory.db"
MIN_SIMILARITY = 0.3
"""A memory found by meaning only counts when its cosine similarity to the query is at least
this (all-MiniLM-L6-v2 puts unrelated sentences at 0.0-0.2): the nearest vector always exists,
a relevant memory does not."""
BACKFILL_BATCH = 64
SUBJECT_DEPTH = 64
"""A new memory's subject is looked for among this many memories sharing a word with it,
newest first."""
EMBEDDING_RETRY_S = 30.0
"""After the embedder failed, how long memory goes by words only before trying it again."""


@dataclass(frozen=True)
class Found:
    memory: Memory
    by: By
    score: float
    """Its fused score (reciprocal rank fusion): only the order means anything (a newer
    memory near an older one may come before it with a lower score: `ranking.py`)."""


class Ranking(list[Found]):
    """A search's memories, best first; `words_only`: why they are ranked by their words only
    though an embedder is configured (it could not embed the query), else None."""

    def __init__(self, found: list[Found], words_only: str | None) -> None:
        super().__init__(found)
        self.words_only = words_only


class MemoryStore:
    """The memories kept in `path`; `embedder` None: by words only."""

    def __init__(
        self, path: Path, embedder: Embedder | None, *, retry_after: float = EMBEDDING_RETRY_S
    ) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._errors = database_errors()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db, loaded = connect(path, with_vectors=embedder is not None)
            migrate(self._db, path)
        except (OSError, *self._errors) as e:
            raise MemoryFileError(explain(path, e)) from None
        self.embedder = embedder if loaded else None
        self._vectors = False  # the vector table made for `embedder`: at its first use
        self._retry_after = retry_after
        self._down: str | None = None
        self._down_at: float | None = None
        """When the embedder last failed (`time.monotonic()`), not to be tried again before
        `retry_after` from then; None: it may be tried (a hurried use's timeout is no failure)."""
        self._matrix = VectorMatrix()
        self._complete_at: Mark | None = None
        """The file's mark when every memory had its vector: no backfill to look for."""

    @property
    def by_meaning(self) -> bool:
        """Whether memories are searched by meaning too (an embedder and sqlite-vec); a
        search whose query cannot be embedded is still by words only (`Ranking.words_only`)."""
        return self.embedder is not None

    @property
    def embedding_problem(self) -> str | None:
        """Why the embedder could not be used the last time it was tried (None: it could, or
        there is none): what was saved meanwhile is kept by its words, its vector made later."""
        return self._down

    def close(self) -> None:
        self._db.close()

    def save(
        self,
        text: str,
        tags: tuple[str, ...] = (),
        *,
        replaces: int | None = None,
        timeout: float | None = None,
    ) -> Memory:
        """Keep `text`; when the embedder cannot be used, by its words only (said in
        `embedding_problem`), its vector made at a later search. `timeout`: how long a remote
        embedder is waited for (None: its default). The same text saved again (spaces at its
        ends aside) is not kept twice: the earlier memory comes back, `already`, with the new
        tags added to its own, so a fact re-saved each session does not crowd the others out.
        `replaces`: the id of the memory the saver says this text corrects or supersedes:
        that memory becomes this text, its id kept (`saving.rewrite`); an id never given
        raises `NeverGiven`, nothing saved. Nothing is replaced otherwise: a new memory names
        those near it by meaning (`Memory.near`)."""

        highest: list[int] = []
        now = datetime.now(UTC).isoformat(timespec="microseconds")  # orders near ones

        def earlier() -> Memory | None:
            with self._transaction():
                highest.append(check_given(self._db, replaces))
                vectors = self._has_vector_table()
                return same_text(self._db, text, tags, replaces, now, vectors)

        if (found := self._guarded(earlier)) is not None:  # no embedding made for nothing
            return found
        vector = self._vector_of(text, timeout)

        def write() -> Memory:
            with self._transaction():
                check_given(self._db, replaces, highest[0])  # not one given meanwhile
                vectors = self._has_vector_table()
                if (found := same_text(self._db, text, tags, replaces, now, vectors)) is not None:
                    return found  # saved meanwhile
                if replaces is not None:
                    done = rewrite(self._db, replaces, text, tags, now, vector, vectors)
                    if done is not None:
                        return done
                rowid = new_id(self._db)
                self._db.execute(
                    "INSERT INTO memories (id, text, tags, created_at) VALUES (?, ?, ?, ?)",
                    (rowid, text, " ".join(tags), now),
                )
                self._db.execute(
                    "INSERT INTO memories_fts (rowid, text, tags) VALUES (?, ?, ?)",
                    (rowid, text, " ".join(tags)),
                )
                if vector is not None:
                    self._db.execute(
                        "INSERT INTO memories_vec (rowid, embedding) VALUES (?, ?)",
                        (rowid, packed(vector)),
                    )
            return Memory(rowid, text, tags, now, not_found=replaces)

        saved: Memory = self._guarded(write)
        if vector is None or saved.replaced is not None:
            return saved
        return replace(saved, near=self._guarded(self._near, vector, saved))

    def _near(self, vector: list[float], saved: Memory) -> tuple[Near, ...]:
        """The memories but `saved` within `NEAR_SIMILARITY` of `vector`, nearest first, then
        those further in meaning on its subject (`subjects.py`), newest first."""
        near = [
            (i, s)
            for i, s in self._nearest(vector, NEAR_COUNT + 1)
            if i != saved.id and s >= NEAR_SIMILARITY
        ][:NEAR_COUNT]
        subject = terms_of(saved.text, saved.tags)
        named = {saved.id, *(i for i, _ in near)}
        rows = [] if FILE_TAG in saved.tags else sharing_words(self._db, saved, SUBJECT_DEPTH)
        # A candidate's subject is worked out only until enough are found (the cost of a save).
        same = list(
            islice(
                (
                    (i, text)
                    for i, text, tags in rows
                    if i not in named and same_subject(subject, terms_of(text, tags))
                ),
                NEAR_COUNT,
            )
        )
        if not near and not same:
            return ()
        marks = ",".join("?" * len(near))
        sql = f"SELECT id, text FROM memories WHERE id IN ({marks})"
        texts = {int(r[0]): str(r[1]) for r in self._db.execute(sql, [i for i, _ in near])}
        found = [Near(i, texts[i], round(s, 3)) for i, s in near if i in texts]
        similar = vector_table.similarity(self._db, vector, [i for i, _ in same])
        return (*found, *(Near(i, text, round(similar.get(i, 0.0), 3)) for i, text in same))

    def _nearest(self, vector: list[float], depth: int) -> list[tuple[int, float]]:
        """The `depth` memories nearest `vector` by meaning and their cosine, nearest first."""
        near = self._matrix.nearest(self._db, vector, depth)
        if near is None:  # without NumPy: sqlite-vec's own scan
            near = vector_table.scan(self._db, vector, depth)
        return near

    def search(
        self,
        query: str,
        limit: int = 5,
        *,
        min_similarity: float = MIN_SIMILARITY,
        timeout: float | None = None,
    ) -> Ranking:
        """The memories that match `query` by words or by meaning, best first; by words only
        when the query cannot be embedded (`Ranking.words_only` says why). `timeout`: how
        long a remote embedder is waited for, each call (None: its default)."""
        depth = max(limit * 4, 20)
        vector = self._vector_of(query, timeout) if query.strip() else None
        if vector is not None:
            self._guarded(self._backfill, timeout)
        found = self._guarded(self._ranked, query, vector, depth, limit, min_similarity)
        failed = vector is None and query.strip() and self.embedder is not None
        return Ranking(found, self._down if failed else None)

    def list(self, limit: int | None = None) -> list[Memory]:
        """The newest first."""
        sql = "SELECT id, text, tags, created_at FROM memories ORDER BY id DESC"
        rows = self._guarded(self._rows, sql + (f" LIMIT {int(limit)}" if limit else ""), ())
        return [memory_of(row) for row in rows]

    def has(self, text: str) -> bool:
        """Whether a memory with exactly this text is kept."""
        sql = "SELECT 1 FROM memories WHERE text = ? LIMIT 1"
        return bool(self._guarded(self._rows, sql, (text,)))

    def count(self) -> int:
        return int(self._guarded(self._rows, "SELECT count(*) FROM memories", ())[0][0])

    def remove(self, ids: list[int]) -> list[int]:
        """Remove the memories with these ids; the ids that were there."""

        def delete() -> list[int]:
            with self._transaction():
                vectors = self._has_vector_table()
                return [i for i in ids if remove(self._db, i, vectors)]

        return self._guarded(delete)

    def _ranked(
        self, query: str, vector: list[float] | None, depth: int, limit: int, floor: float
    ) -> list[Found]:
        """Ordered as `ranking.py` says."""
        found_by_words = by_words(self._db, query, depth)
        by_meaning: list[int] = []
        if vector is not None:
            near = self._nearest(vector, depth)
            by_meaning = [rowid for rowid, similarity in near if similarity >= floor]
        scores = fused(found_by_words, by_meaning)
        best = list(scores)[: limit + NEAR_COUNT]  # a newer one just below may move up
        if not best:
            return []
        rows = self._memory_rows(list(scores))
        memories = {int(row[0]): memory_of(row) for row in rows}
        topics = [w for i in best if i in memories for w in _topic_words(memories[i])]
        for row in correcting(self._db, topics, list(memories), SUBJECT_DEPTH):
            memories[row[0]] = memory_of(row)
        corrections = _corrections(memories, best)
        best = list(dict.fromkeys([*best, *(newer for newer, _ in sorted(corrections))]))
        marks = ",".join("?" * len(best))
        words, meaning = set(found_by_words), set(by_meaning)
        by: dict[int, By] = {
            i: by_of(i in words, i in meaning) if i in scores else "correction"
            for i in best
            if i in memories
        }
        matched = dict.fromkeys(best, frozenset[str]())  # the query's words each one has
        if found_by_words:
            matched = matched_words(self._db, query, best)
        vectors: dict[int, bytes] = {}
        if by_meaning:
            sql = f"SELECT rowid, embedding FROM memories_vec WHERE rowid IN ({marks})"
            vectors = {int(r[0]): bytes(r[1]) for r in self._db.execute(sql, best)}
        age = {i: (m.created_at, i) for i, m in memories.items() if i in by}
        found = [i for i in best if i in memories]
        order = newer_first(found, by, matched, age, vectors, corrections)
        return [Found(memories[i], by[i], scores.get(i, 0.0)) for i in order[:limit]]

    def _memory_rows(self, ids: list[int]) -> list[Any]:
        marks = ",".join("?" * len(ids))
        sql = f"SELECT id, text, tags, created_at FROM memories WHERE id IN ({marks})"
        return self._db.execute(sql, ids).fetchall()

    def _vector_of(self, text: str, timeout: float | None) -> list[float] | None:
        """`text`'s vector; None without an embedder, or when it cannot be used (tried again
        `retry_after` seconds after it last failed)."""
        embedder = self.embedder
        if embedder is None:
            return None
        if self._down_at is not None and time.monotonic() - self._down_at < self._retry_after:
            return None
        try:
            vector = embedder.embed([text], timeout=timeout)[0]
        except EmbeddingError as e:
            self._down = f"cannot embed for memory: {e}"
            # Slow for a hurried use is not down for the tools, which wait longer.
            self._down_at = None if e.hurried else time.monotonic()
            return None
        if not self._vectors:
            self._guarded(self._prepare_vectors, embedder.name, len(vector))
        self._down = self._down_at = None
        return vector

    def _prepare_vectors(self, name: str, dimensions: int) -> None:
        """The vector table for the vectors of the embedder `name`; those of another embedder
        (or of other dimensions) are dropped, and remade from the text (`_backfill`)."""
        with self._transaction():
            vector_table.prepare(self._db, name, dimensions)
        self._vectors = True

    def _has_vector_table(self) -> bool:
        """Whether the file has vectors that can be changed here (sqlite-vec loaded): those of
        a removed memory go with it, even when the embedder is not usable now."""
        return self.embedder is not None and vector_table.has_table(self._db)

    def _backfill(self, timeout: float | None) -> None:
        """Vectors for memories saved without them (by words only, or by another embedder),
        a batch at a time; when the embedder fails, left for a later search."""
        assert self.embedder is not None
        mark = mark_of(self._db)
        if mark == self._complete_at:  # nothing written since every memory had its vector
            return
        rows = vector_table.missing(self._db, BACKFILL_BATCH)
        if not rows:
            self._complete_at = mark
            return
        try:
            vectors = self.embedder.embed([text for _, text in rows], timeout=timeout)
        except EmbeddingError as e:
            self._down = f"cannot embed for memory: {e}"
            self._down_at = None if e.hurried else time.monotonic()
            return
        with self._transaction():
            vector_table.add(self._db, rows, vectors)

    def _rows(self, sql: str, args: tuple[Any, ...]) -> list[Any]:
        return self._db.execute(sql, args).fetchall()

    def _transaction(self) -> Transaction:
        return Transaction(self._db)

    def _guarded(self, work: Any, *args: Any) -> Any:
        with self._lock:
            try:
                return work(*args)
            except self._errors as e:
                raise MemoryFileError(explain(self.path, e)) from None


def _topic_words(memory: Memory) -> list[str]:
    """The words of `memory` a correction of it may share (its topic words and key terms)."""
    subject = subject_of(memory.text, memory.tags)
    return [*subject.keys, *(w for w in subject.words if _stem_in(w, subject.topics))]


def _stem_in(word: str, topics: frozenset[str]) -> bool:
    return any(word.startswith(topic) for topic in topics)


def _corrections(memories: dict[int, Memory], best: list[int]) -> set[tuple[int, int]]:
    """(newer, older) pairs: a found memory worded as a correction of one of the `best`
    (`subjects.corrects`), saved after it."""
    subjects = {i: subject_of(m.text, m.tags) for i, m in memories.items()}
    return {
        (newer, older)
        for older in best
        if older in memories
        for newer in memories
        if subjects[newer].correction
        and (memories[newer].created_at, newer) > (memories[older].created_at, older)
        and corrects(subjects[newer], subjects[older])
    }

"""What a save does to the memories besides adding one, in the caller's transaction: the same
text saved again gives back the earlier memory (`same_text`); a memory named by the saver as
the one the new text corrects or supersedes is rewritten in place, keeping its id
(`rewrite`). Nothing is replaced on similarity alone: facts near in meaning can be different
facts ("The frontend is written in TypeScript" / "The backend is written in TypeScript", a
cosine of 0.92) and a correction can be further from its fact than a different fact is
("... port 8080" / "... port 9090", 0.79), so the memories near a new one are only named to
the saver (`Memory.near`, with those on its subject further in meaning: `subjects.py`),
which chooses."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

NEAR_SIMILARITY = 0.7
"""A memory this near a new one by meaning (cosine) is named to the saver, which may say the
new one replaces it: the corrections and rewordings measured were 0.79-0.93 from their fact;
different facts 0.34-0.95."""
NEAR_COUNT = 3
"""Named at most."""
MAX_ID = 2**63 - 1
"""SQLite's largest integer: an id above it names no memory."""
_LAST_ID = "last_id"
"""The `meta` key of the highest id ever given: ids are never given again, so an id the
saver carries from an earlier session names that memory or none (removed since), never one
saved after it."""


class NeverGiven(Exception):
    """`replaces` named an id no memory of this file ever had (above the highest given): a
    guess, or an id from another project. Nothing is saved, so a memory given that id later
    (by another session meanwhile) is not taken for the one meant."""

    def __init__(self, memory_id: int, highest: int) -> None:
        self.memory_id = memory_id
        self.highest = highest
        given = f"the highest given is {highest}" if highest else "none has been saved yet"
        super().__init__(
            f"There is no memory {memory_id}: no memory of this project ever had that id "
            f"({given}). Nothing was saved. Name in `replaces` only an id MemorySearch or "
            "MemorySave showed, or save without `replaces`."
        )


@dataclass(frozen=True)
class Near:
    id: int
    text: str
    similarity: float


@dataclass(frozen=True)
class Memory:
    id: int
    text: str
    tags: tuple[str, ...]
    created_at: str
    already: bool = False
    """Saved before with the same text (`save` gave back that memory, its tags merged)."""
    replaced: str | None = None
    """The text of the memory this one replaced, as its saver asked (`rewrite`)."""
    not_found: int | None = None
    """The id the saver asked to replace, not in the memory (removed meanwhile): nothing was
    replaced, the text saved as a new memory."""
    near: tuple[Near, ...] = ()
    """Other memories near this new one by meaning, nearest first, then those on its subject
    further in meaning, newest first: the saver may say it replaces one of them."""


def same_text(
    db: Any,
    text: str,
    tags: tuple[str, ...],
    replaces: int | None,
    now: str,
    with_vectors: bool,
) -> Memory | None:
    """The memory saved before with `text`, `tags` added. When the saver names another memory
    it `replaces` (a correction whose text that memory already holds), that one is removed and
    the one kept is dated `now`: the fact was said again now, and of two that disagree the
    later is taken as current. The removed memory's tags stay with it: they name its subject,
    which may not be this one's."""
    found = db.execute(
        "SELECT id, tags, created_at FROM memories WHERE trim(text) = ? LIMIT 1",
        (text.strip(),),
    ).fetchone()
    if found is None:
        return None
    rowid, had, created_at = int(found[0]), str(found[1]).split(), str(found[2])
    replaced: str | None = None
    if replaces is not None and replaces != rowid:
        old = _row(db, replaces)
        if old is not None:
            replaced, created_at = old[0], now
            remove(db, replaces, with_vectors)
            db.execute("UPDATE memories SET created_at = ? WHERE id = ?", (now, rowid))
    merged = tuple(dict.fromkeys([*had, *tags]))
    if len(merged) > len(had):
        joined = " ".join(merged)
        db.execute("UPDATE memories SET tags = ? WHERE id = ?", (joined, rowid))
        db.execute("UPDATE memories_fts SET tags = ? WHERE rowid = ?", (joined, rowid))
    return Memory(rowid, text, merged, created_at, already=True, replaced=replaced)


def rewrite(
    db: Any,
    memory_id: int,
    text: str,
    tags: tuple[str, ...],
    now: str,
    vector: list[float] | None,
    with_vectors: bool,
) -> Memory | None:
    """Memory `memory_id` made `text`, its tags and `tags` merged, its words and vector
    made again; None when it is not there."""
    old = _row(db, memory_id)
    if old is None:
        return None
    merged = tuple(dict.fromkeys([*old[1], *tags]))
    joined = " ".join(merged)
    db.execute(
        "UPDATE memories SET text = ?, tags = ?, created_at = ? WHERE id = ?",
        (text, joined, now, memory_id),
    )
    db.execute(
        "UPDATE memories_fts SET text = ?, tags = ? WHERE rowid = ?", (text, joined, memory_id)
    )
    if with_vectors:  # the old text's vector goes; the new one's, or a later search's
        db.execute("DELETE FROM memories_vec WHERE rowid = ?", (memory_id,))
        if vector is not None:
            db.execute(
                "INSERT INTO memories_vec (rowid, embedding) VALUES (?, ?)",
                (memory_id, packed(vector)),
            )
    return Memory(memory_id, text, merged, now, replaced=old[0])


def check_given(db: Any, replaces: int | None, before: int | None = None) -> int:
    """The highest id given so far; raises `NeverGiven` when `replaces` is above it, or above
    `before` (the highest when the save began: an id given since, by another writer, cannot
    be the one the saver saw)."""
    highest = _highest(db) if before is None else min(before, _highest(db))
    if replaces is not None and replaces > highest:
        raise NeverGiven(replaces, highest)
    return highest


def _highest(db: Any) -> int:
    top = db.execute("SELECT max(id) FROM memories").fetchone()[0]
    return max(_mark(db), int(top or 0))


def new_id(db: Any) -> int:
    """The id of a memory about to be added: above every id given before (the mark kept in
    `meta`, or, in a file from before the mark, the highest id there), marked as given."""
    given = _highest(db) + 1
    _set_mark(db, given)
    return given


def remove(db: Any, memory_id: int, with_vectors: bool) -> bool:
    """Remove memory `memory_id` (its words, and its vector `with_vectors`: the file has
    them and they can be changed here); whether it was there. Its id is not given again."""
    if not 1 <= memory_id <= MAX_ID:
        return False
    if not db.execute("DELETE FROM memories WHERE id = ?", (memory_id,)).rowcount:
        return False
    if _mark(db) < memory_id:  # the highest id, or one given before the mark was kept
        _set_mark(db, memory_id)
    db.execute("DELETE FROM memories_fts WHERE rowid = ?", (memory_id,))
    if with_vectors:
        db.execute("DELETE FROM memories_vec WHERE rowid = ?", (memory_id,))
    return True


def _mark(db: Any) -> int:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (_LAST_ID,)).fetchone()
    return 0 if row is None else int(row[0])


def _set_mark(db: Any, given: int) -> None:
    db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (_LAST_ID, str(given)))


def _row(db: Any, memory_id: int) -> tuple[str, tuple[str, ...]] | None:
    if not 1 <= memory_id <= MAX_ID:
        return None
    row = db.execute("SELECT text, tags FROM memories WHERE id = ?", (memory_id,)).fetchone()
    return None if row is None else (str(row[0]), tuple(str(row[1]).split()))


def memory_of(row: Any) -> Memory:
    return Memory(int(row[0]), str(row[1]), tuple(str(row[2]).split()), str(row[3]))


def packed(vector: list[float]) -> bytes:
    return struct.pack(f"{len(vector)}f", *vector)

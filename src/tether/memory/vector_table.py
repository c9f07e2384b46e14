"""The memories' vectors in the file: sqlite-vec's `memories_vec` (`vec0`, cosine), made for
one embedder (its name and dimensions kept in `meta`), the memories still without a vector,
and sqlite-vec's own scan where NumPy is missing (`vectors.py` holds them in the process)."""

from __future__ import annotations

from typing import Any

from tether.memory.saving import packed


def prepare(db: Any, name: str, dimensions: int) -> None:
    """The vector table for the vectors of the embedder `name`, in the caller's transaction;
    those of another embedder (or of other dimensions) are dropped, to be made again from the
    text (`missing`)."""
    wanted = f"{name}:{dimensions}"
    row = db.execute("SELECT value FROM meta WHERE key = 'vectors'").fetchone()
    if row is None or row[0] != wanted:
        db.execute("DROP TABLE IF EXISTS memories_vec")
        db.execute(
            "CREATE VIRTUAL TABLE memories_vec USING vec0("
            f"embedding float[{dimensions}] distance_metric=cosine)"
        )
        db.execute("INSERT OR REPLACE INTO meta VALUES ('vectors', ?)", (wanted,))


def has_table(db: Any) -> bool:
    sql = "SELECT 1 FROM sqlite_master WHERE name = 'memories_vec'"
    return db.execute(sql).fetchone() is not None


def missing(db: Any, batch: int) -> list[tuple[int, str]]:
    """Up to `batch` memories without a vector: (id, text)."""
    rows = db.execute(
        "SELECT id, text FROM memories WHERE id NOT IN (SELECT rowid FROM memories_vec) LIMIT ?",
        (batch,),
    ).fetchall()
    return [(int(memory_id), str(text)) for memory_id, text in rows]


def add(db: Any, rows: list[tuple[int, str]], vectors: list[list[float]]) -> None:
    """The vectors of `rows` (from `missing`), in the caller's transaction; one added
    meanwhile is kept."""
    for (memory_id, _), vector in zip(rows, vectors, strict=True):
        db.execute(
            "INSERT OR IGNORE INTO memories_vec (rowid, embedding) VALUES (?, ?)",
            (memory_id, packed(vector)),
        )


def similarity(db: Any, vector: list[float], ids: list[int]) -> dict[int, float]:
    """The cosine of `vector` with each of the memories `ids` that has a vector."""
    if not ids or not has_table(db):
        return {}
    marks = ",".join("?" * len(ids))
    sql = (
        "SELECT rowid, vec_distance_cosine(embedding, ?) FROM memories_vec "
        f"WHERE rowid IN ({marks})"
    )
    return {int(i): 1 - float(d) for i, d in db.execute(sql, [packed(vector), *ids])}


def scan(db: Any, vector: list[float], depth: int) -> list[tuple[int, float]]:
    """sqlite-vec's exact scan: the `depth` memories nearest `vector` and their cosine."""
    rows = db.execute(
        "SELECT rowid, distance FROM memories_vec WHERE embedding MATCH ? AND k = ?",
        (packed(vector), depth),
    ).fetchall()
    return [(int(rowid), 1 - distance) for rowid, distance in rows]

"""A memory saved before that says what a new one says in other words (or an earlier state of
it): found by meaning, the nearest vector at a cosine of at least `RESTATED_SIMILARITY`.

The threshold was measured with the local MiniLM embedder on pairs of project facts
(`tests/memory/test_restated.py` holds some): the same fact reworded scored 0.55-0.96, most
0.88-0.96 ("Deploys go through the blue-green pipeline" ~ "Deployments use the blue-green
pipeline": 0.92); distinct facts about the same things at most 0.81 ("Run unit tests with
pytest tests/unit" ~ "Run integration tests with pytest tests/integration"; "The staging
database is Postgres 15" ~ "The production database is Postgres 16": 0.79). A fact and its
update score highest of all ("…pytest -n 4" ~ "…pytest -n 8": 0.97; "prefers tabs over
spaces" ~ "prefers spaces over tabs": 0.99): a cosine cannot tell a rewording from an
update, so the newer text is the one kept, never both (a merge would keep a stale fact beside
its correction)."""

from __future__ import annotations

from typing import Any

from tether.memory.vectors import VectorMatrix, nearest, packed

RESTATED_SIMILARITY = 0.87
"""At least this cosine to the nearest memory: the same fact (0.06 above the closest distinct
pair measured; rewordings under it are kept apart, as before)."""
_LOOKED_AT = 4
"""The nearest memories looked at (those kept apart by their tags skipped)."""


def restated(
    db: Any, matrix: VectorMatrix, vector: list[float], apart: frozenset[str]
) -> tuple[int, str, tuple[str, ...]] | None:
    """The memory nearest `vector` at `RESTATED_SIMILARITY` or more, none tagged with one of
    `apart`: its id, text and tags (in the caller's transaction)."""
    for rowid, similarity in nearest(db, matrix, vector, _LOOKED_AT):
        if similarity < RESTATED_SIMILARITY:
            return None
        row = db.execute("SELECT text, tags FROM memories WHERE id = ?", (rowid,)).fetchone()
        if row is None:
            continue
        tags = tuple(str(row[1]).split())
        if not apart.intersection(tags):
            return rowid, str(row[0]), tags
    return None


def replace(
    db: Any, rowid: int, text: str, tags: tuple[str, ...], vector: list[float], now: str
) -> None:
    """Memory `rowid` given `text`, its `vector` and `tags`, saved `now` (in the caller's
    transaction)."""
    joined = " ".join(tags)
    db.execute(
        "UPDATE memories SET text = ?, tags = ?, created_at = ? WHERE id = ?",
        (text, joined, now, rowid),
    )
    db.execute("UPDATE memories_fts SET text = ?, tags = ? WHERE rowid = ?", (text, joined, rowid))
    db.execute("DELETE FROM memories_vec WHERE rowid = ?", (rowid,))
    db.execute("INSERT INTO memories_vec (rowid, embedding) VALUES (?, ?)", (rowid, packed(vector)))

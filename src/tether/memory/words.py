"""The search by words: FTS5 over the memories' text and tags (porter stemming), a query taken
as words, never as FTS syntax, common English words left out."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tether.memory.saving import Memory
from tether.memory.subjects import FILE_TAG

_STOPWORD_TEXT = (
    "a an and are as at be by can do does for from how i in is it its me my of on or our "
    "should so that the their there this to was we what when where which who why will with "
    "you your"
)
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def query_words(query: str) -> list[str]:
    """The query's words, lower case, each once, common English words left out."""
    words = [w for w in re.findall(r"\w+", query.lower()) if w not in STOPWORDS]
    return list(dict.fromkeys(words))


def by_words(db: Any, query: str, depth: int) -> list[int]:
    """The ids of the `depth` memories best matching any of the query's words (bm25, equal
    ranks the higher id first)."""
    words = query_words(query)
    if not words:
        return []
    rows = db.execute(
        "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? "
        "ORDER BY rank, rowid DESC LIMIT ?",
        (" OR ".join(map(phrase, words)), depth),
    ).fetchall()
    return [int(row[0]) for row in rows]


def matched_words(db: Any, query: str, ids: Sequence[int]) -> dict[int, frozenset[str]]:
    """The query's words each of the memories `ids` has."""
    matched = {i: frozenset[str]() for i in ids}
    marks = ",".join("?" * len(ids))
    sql = f"SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? AND rowid IN ({marks})"
    for word in query_words(query):
        for row in db.execute(sql, [phrase(word), *ids]):
            matched[int(row[0])] |= {word}
    return matched


def sharing_words(db: Any, memory: Memory, depth: int) -> list[tuple[int, str, tuple[str, ...]]]:
    """Up to `depth` memories having a word or a tag of `memory`, newest first, but the
    memory file's pieces (tag `FILE_TAG`): (id, text, tags)."""
    words = [*query_words(memory.text), *(t.lower() for t in memory.tags)]
    if not words:
        return []
    rows = db.execute(
        "SELECT m.id, m.text, m.tags FROM memories_fts JOIN memories m ON m.id = "
        "memories_fts.rowid WHERE memories_fts MATCH ? AND ' ' || m.tags || ' ' NOT LIKE ? "
        "ORDER BY m.id DESC LIMIT ?",
        (" OR ".join(map(phrase, dict.fromkeys(words))), f"% {FILE_TAG} %", depth),
    ).fetchall()
    return [(int(i), str(t), tuple(str(g).split())) for i, t, g in rows]


_CHANGE_TEXT = (
    "actually longer anymore instead nowadays days now switched replaced retired deprecated "
    "migrated renamed moved gone dropped removed upgraded changed swapped shut obsolete used "
    "stop update updated correction corrected not never don "
    "statt anstatt stattdessen mehr ersetzt umgestellt umgezogen abgeschafft veraltet "
    "neuerdings sofort inzwischen mittlerweile korrektur aktualisierung désormais dorénavant "
    "lieu plus remplacé remplacée remplacés remplacées obsolète migré maintenant ya lugar vez "
    "reemplazado reemplazada reemplazados reemplazadas sustituido sustituida obsoleto "
    "obsoleta ahora agora migrado migrada mais já invés substituído substituída più invece "
    "posto sostituito sostituita sostituiti poi niet plaats vervangen verouderd voortaan "
    "gemigreerd corrección actualización correção atualização correzione aggiornamento "
    "correctie"
)
CHANGE_WORDS = _CHANGE_TEXT.split()
"""Words one of which a memory worded as a correction has (`subjects.py`'s `_CORRECTION`):
the search for corrections asks the file for these first."""


def correcting(
    db: Any, words: Sequence[str], known: Sequence[int], depth: int
) -> list[tuple[int, str, str, str]]:
    """Up to `depth` memories but `known` having one of `words` and one of `CHANGE_WORDS`,
    newest first, but the memory file's pieces: (id, text, tags, created_at), the rows that
    may correct a found memory (`subjects.corrects` says which do)."""
    if not words:
        return []
    topic = " OR ".join(map(phrase, dict.fromkeys(words)))
    change = " OR ".join(map(phrase, CHANGE_WORDS))
    marks = ",".join("?" * len(known))
    rows = db.execute(
        "SELECT m.id, m.text, m.tags, m.created_at FROM memories_fts JOIN memories m "
        "ON m.id = memories_fts.rowid WHERE memories_fts MATCH ? "
        f"AND ' ' || m.tags || ' ' NOT LIKE ? AND m.id NOT IN ({marks}) "
        "ORDER BY m.id DESC LIMIT ?",
        (f"({topic}) AND ({change})", f"% {FILE_TAG} %", *known, depth),
    ).fetchall()
    return [(int(i), str(t), str(g), str(c)) for i, t, g, c in rows]


def phrase(word: str) -> str:
    """`word` as an FTS5 string: taken as a word, never as query syntax."""
    return '"' + word.replace('"', '""') + '"'

"""Corrections in the wordings people use, and newer facts that merely hold a change word: a
correction is read before the fact it corrects (with a search's first place: `limit=1`), and
a change word bears on a memory only in the clause that holds what the two share. Two other
memories, then the older fact, then the newer one, as a user saves them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether.memory.embedders import Embedder, local_embedder
from tether.memory.store import MemoryStore
from tether.memory.subjects import corrects, subject_of

CORRECTIONS = (
    ("Deploys use kubectl apply.", "Correction: deploys use helm.", "how do we deploy"),
    (
        "Run the test suite with nose.",
        "Don't use nose; the tests run under pytest.",
        "how do I run the tests",
    ),
    (
        "The database is MySQL 5.7.",
        "Update: the database is Postgres 16 since March.",
        "which database do we use",
    ),
    (
        "Bugs are tracked in Jira.",
        "Jira was shut down; file bugs in Linear.",
        "where are bugs tracked",
    ),
    ("CI runs on Travis.", "CI is on GitHub Actions, not Travis.", "where does CI run"),
    ("Use tabs for indentation.", "Stop using tabs; indent with 4 spaces.", "indentation style"),
    (
        "Deploys use kubectl apply.",
        "kubectl apply is obsolete for deploys, use helm upgrade.",
        "how do we deploy",
    ),
    (
        "The staging URL is staging.example.com.",
        "The staging URL changed to stg.example.com.",
        "staging url",
    ),
    (
        "Deploys use kubectl apply.",
        "We used to deploy with kubectl apply, now it's helm.",
        "how do we deploy",
    ),
)
"""Nine of a user's ten; the tenth, in German, is among `OTHER_LANGUAGES`."""

OTHER_LANGUAGES = (
    (
        "Deploys use kubectl apply.",
        "Wir deployen jetzt mit helm statt kubectl apply.",
        "how do we deploy",
    ),
    ("Die Datenbank ist MySQL 5.7.", "Korrektur: die Datenbank ist Postgres 16.", "Datenbank"),
    (
        "Bugs are tracked in Jira.",
        "Jira wird nicht mehr benutzt; Bugs kommen nach Linear.",
        "where are bugs tracked",
    ),
    (
        "Les tests tournent avec nose.",
        "On n'utilise plus nose, les tests tournent sous pytest.",
        "tests",
    ),
    (
        "La CI tourne sur Travis.",
        "La CI tourne désormais sur GitHub Actions au lieu de Travis.",
        "CI",
    ),
    ("Usamos MySQL 5.7.", "Ya no usamos MySQL, ahora es Postgres 16.", "MySQL"),
    ("Deploy com kubectl apply.", "Deploy com helm em vez de kubectl apply.", "deploy"),
    ("I deploy usano kubectl apply.", "I deploy usano helm invece di kubectl apply.", "deploy"),
    (
        "Deploys gaan via kubectl apply.",
        "Deploys gaan voortaan via helm in plaats van kubectl apply.",
        "deploy",
    ),
)
"""Corrections in German, French, Spanish, Portuguese, Italian and Dutch, of a fact in English
or in their own language."""

NOT_CORRECTIONS = (
    (
        "Deploys use kubectl apply.",
        "Mehr Speicher für den Redis-Server von kubectl.",
        "how do we deploy",
    ),
    (
        "Les tests tournent avec nose.",
        "Les logs des tests sont gardés trente jours.",
        "tests",
    ),
    (
        "Deploys use kubectl apply.",
        "Deploys to staging no longer need approval.",
        "how do we deploy",
    ),
    (
        "The backend uses Postgres 15.",
        "The frontend was moved to the backend's monorepo.",
        "which postgres does the backend use",
    ),
    (
        "Run the tests with pytest -x.",
        "Tests for the old API were removed; instead see tests/v2.",
        "how do I run the tests",
    ),
    (
        "Deploys use kubectl apply.",
        "Nobody has actually deployed on a Friday since 2024.",
        "how do we deploy",
    ),
)
"""A newer fact with a change word that bears on something else: a narrower subject, the place
something moved to, another clause, "actually" as mere stress."""


def _embedder() -> Embedder:
    embedder = local_embedder()
    assert embedder is not None
    return embedder


def _first(path: Path, older: str, newer: str, query: str) -> list[str]:
    store = MemoryStore(path, _embedder())
    try:
        store.save("Production logs are kept for thirty days.")
        store.save("The API is written in Go.")
        store.save(older)
        store.save(newer)
        return [found.memory.text for found in store.search(query, limit=1)]
    finally:
        store.close()


@pytest.mark.parametrize(("older", "correction", "query"), CORRECTIONS + OTHER_LANGUAGES)
def test_a_correction_as_people_word_it_is_read_first(
    tmp_path: Path, older: str, correction: str, query: str
) -> None:
    assert corrects(subject_of(correction, ()), subject_of(older, ()))
    assert _first(tmp_path / "memory.db", older, correction, query) == [correction]


@pytest.mark.parametrize(("older", "newer", "query"), NOT_CORRECTIONS)
def test_a_change_word_about_something_else_corrects_nothing(
    tmp_path: Path, older: str, newer: str, query: str
) -> None:
    assert not corrects(subject_of(newer, ()), subject_of(older, ()))
    assert _first(tmp_path / "memory.db", older, newer, query) == [older]

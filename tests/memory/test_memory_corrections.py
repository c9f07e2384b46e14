"""A newer memory worded as a correction of an older one on its subject is read before it,
however far apart in meaning and whatever the query's words (`ranking.py` step 2,
`subjects.corrects`); a newer fact that corrects nothing keeps its place. The local embedding
model, the memory file, and a `tether -p` session against the fake model."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tether.memory.embedders import Embedder, local_embedder
from tether.memory.saving import NEAR_SIMILARITY
from tether.memory.store import MemoryStore
from tether.memory.subjects import corrects, subject_of
from tether.testing import FakeModelServer, text, tool_use
from tether.testing.cli_runner import CliResult

from .conftest import undated
from .test_memory_replace import DISTINCT

FAR_CORRECTIONS = (
    ("Deploys use kubectl apply.", "Actually we deploy with helm now.", "how do we deploy"),
    (
        "The team tracks bugs in Jira.",
        "Bugs moved to Linear last month; Jira is read-only.",
        "where are bugs tracked",
    ),
    ("Run the test suite with nose.", "We switched to pytest, nose is gone.", "run the tests"),
    (
        "Frontend assets are built with webpack.",
        "The frontend build is Vite now.",
        "how is the frontend built",
    ),
    (
        "Releases are cut every Friday.",
        "We no longer release weekly; releases go out on demand.",
        "when do releases happen",
    ),
    (
        "Store uploads in the uploads bucket on S3.",
        "Uploads go to GCS these days instead.",
        "where do uploads go",
    ),
    (
        "The docs site is hosted on Netlify.",
        "Docs are served from GitHub Pages from now on.",
        "where is the docs site hosted",
    ),
)
"""A fact, then its correction worded far from it (cosine 0.43-0.67 with the local model)."""

NOT_CORRECTIONS = (
    (
        "In development, Redis listens on port 6379.",
        "The rate limiter keeps its counters in Redis, keyed by user id.",
        "which port does redis listen on",
    ),
    ("Metrics are shipped to Datadog.", "Logs are now shipped to Datadog.", "metrics datadog"),
    ("Deploys use kubectl apply.", "Deploy previews now run on every pull request.", "kubectl"),
    (
        "Run the test suite with nose.",
        "Tests now need Docker running for the integration suite.",
        "nose test suite",
    ),
    ("The backend uses Postgres 15.", "We now use pnpm for the frontend.", "backend postgres"),
    ("Deploys use kubectl apply.", "Actually the user prefers spaces, not tabs.", "kubectl apply"),
)
"""A fact, then a newer one on a near subject or worded as a change that corrects it not:
the older stays the answer to a query about it."""


def _embedder() -> Embedder:
    embedder = local_embedder()
    assert embedder is not None
    return embedder


def _texts(store: MemoryStore, query: str, limit: int = 10) -> list[str]:
    return [found.memory.text for found in store.search(query, limit=limit)]


def _store_among_others(path: Path) -> MemoryStore:
    store = MemoryStore(path, _embedder())
    for a, b in DISTINCT:  # other facts around them
        store.save(a)
        store.save(b)
    return store


@pytest.mark.parametrize(("stale", "correction", "query"), FAR_CORRECTIONS)
def test_a_correction_worded_far_from_its_fact_is_read_before_it(
    tmp_path: Path, stale: str, correction: str, query: str
) -> None:
    # It ranked below the stale fact unless the model replaced it (`replaces`).
    embedder = _embedder()
    stale_vector, correction_vector = embedder.embed([stale, correction])
    cosine = sum(x * y for x, y in zip(stale_vector, correction_vector, strict=True))
    assert cosine < NEAR_SIMILARITY  # far in meaning: the near-meaning rule does not see it
    store = _store_among_others(tmp_path / "memory.db")
    store.save(stale)
    store.save(correction)
    for asked in (query, stale):  # even a query worded as the stale fact is
        found = _texts(store, asked)
        assert stale in found, asked
        assert correction in found, (asked, found)
        assert found.index(correction) < found.index(stale), (asked, found)
    assert {m.text for m in store.list()} >= {stale, correction}  # both kept
    store.close()


def test_a_correction_outside_the_best_few_is_brought_above_its_fact(tmp_path: Path) -> None:
    # Found by the query only far down (limit 1): still read first.
    store = _store_among_others(tmp_path / "memory.db")
    store.save("Deploys use kubectl apply.")
    store.save("Actually we deploy with helm now.")
    assert _texts(store, "kubectl apply", limit=1) == ["Actually we deploy with helm now."]
    store.close()


@pytest.mark.parametrize(("exact", "newer", "query"), NOT_CORRECTIONS)
def test_a_newer_fact_that_corrects_nothing_stays_below_the_answer(
    tmp_path: Path, exact: str, newer: str, query: str
) -> None:
    assert not corrects(subject_of(newer, ()), subject_of(exact, ()))
    store = _store_among_others(tmp_path / "memory.db")
    store.save(exact)
    store.save(newer)
    assert _texts(store, query, limit=1) == [exact]
    store.close()


def test_no_distinct_fact_is_taken_for_a_correction_of_another() -> None:
    facts = [t for pair in DISTINCT for t in pair]
    taken = [
        (older, newer)
        for i, older in enumerate(facts)
        for newer in facts[i + 1 :]
        if corrects(subject_of(newer, ()), subject_of(older, ()))
    ]
    assert taken == []


def test_what_is_worded_as_a_correction() -> None:
    worded = [
        "Actually we deploy with helm now.",
        "The frontend build is Vite now.",
        "We no longer release weekly.",
        "Uploads go to GCS these days instead.",
        "The staging database was upgraded to Postgres 16",
        "Jenkins is gone: deploys run from ArgoCD.",
        "Docs are served from GitHub Pages from now on.",
    ]
    stated = [
        "Logs are now shipped to Datadog.",
        "Deploy previews now run on every pull request.",
        "Knowledge of the codebase is kept in the wiki.",
        "The service for billing keeps its retries in the job queue.",
    ]
    assert [subject_of(t, ()).correction for t in worded] == [True] * len(worded)
    assert [subject_of(t, ()).correction for t in stated] == [False] * len(stated)
    assert subject_of("Deploys use kubectl apply.", ()).topics == {"deploy", "kubectl", "apply"}


def test_a_session_searching_reads_the_correction_first(
    fake_model: FakeModelServer, tether: Callable[..., CliResult]
) -> None:
    fake_model.script(
        tool_use("MemorySave", text="Deploys use kubectl apply."),
        tool_use("MemorySave", text="Production logs are kept for thirty days."),
        tool_use("MemorySave", text="Actually we deploy with helm now."),
        tool_use("MemorySearch", query="how do we deploy with kubectl"),
        text("done"),
    )
    result = tether("-p", "remember, then look up how we deploy")
    assert result.exit_code == 0, result.stderr
    assert undated(fake_model.requests[4].tool_results()) == [
        "Memory 3: Actually we deploy with helm now.\n\nMemory 1: Deploys use kubectl apply."
    ]

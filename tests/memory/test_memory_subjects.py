"""Two memories far apart in meaning (a cosine under 0.7 with the local model) on the same
subject: one names what the other names, or they share a tag (`subjects.py`). A save names the
older to the model, which says whether the new one replaces it (`replaces`); the ranking never
takes a shared key term for supersession (`ranking.py`). The local embedding model, the memory
file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tether.memory.embedders import Embedder, local_embedder
from tether.memory.saving import NEAR_SIMILARITY
from tether.memory.store import MemoryStore
from tether.memory.subjects import same_subject, subject_of, terms_of
from tether.testing import FakeModelServer, text, tool_use
from tether.testing.cli_runner import CliResult

from .conftest import memory_cli
from .test_memory_replace import DISTINCT

JENKINS = "Deploy to production with the Jenkins job deploy-prod."
ARGO = "Jenkins is gone: production deploys now run from ArgoCD when a tag is pushed."
ALICE = "Alice owns the billing service."
PASSED = "Billing ownership passed to the payments team in March."
SETTINGS = "The config lives in settings.yaml at the repo root."
MOVED = "settings.yaml moved under config/ and is now TOML."
REDIS_PORT = "In development, Redis listens on port 6379."
RATE_LIMITER = "The rate limiter keeps its counters in Redis, keyed by user id."
NO_PUSH = "Never push directly to the `main` branch; open a pull request."
CI = "CI runs on every push to `main` and takes about 20 minutes."


def _embedder() -> Embedder:
    embedder = local_embedder()
    assert embedder is not None
    return embedder


def _cosine(embedder: Embedder, a: str, b: str) -> float:
    va, vb = embedder.embed([a, b])
    return sum(x * y for x, y in zip(va, vb, strict=True))


def _texts(store: MemoryStore, query: str, limit: int = 2) -> list[str]:
    return [found.memory.text for found in store.search(query, limit=limit)]


@pytest.mark.parametrize(
    ("stale", "correction", "tags", "query"),
    [
        (JENKINS, ARGO, (), "how do I deploy to production"),
        (SETTINGS, MOVED, (), "where is settings.yaml"),
        (ALICE, PASSED, ("billing",), "who owns billing"),
    ],
)
def test_a_save_names_the_stale_fact_and_the_model_replaces_it(
    tmp_path: Path, stale: str, correction: str, tags: tuple[str, ...], query: str
) -> None:
    # Far in meaning, on one subject: the save names the stale fact (the model's cue), and
    # the model's `replaces` is the supersession; ranking alone does not guess it.
    embedder = _embedder()
    assert _cosine(embedder, stale, correction) < NEAR_SIMILARITY  # far in meaning
    store = MemoryStore(tmp_path / "memory.db", embedder)
    for a, b in DISTINCT:  # other facts around them
        store.save(a)
        store.save(b)
    first = store.save(stale, tags)
    saved = store.save(correction, tags)
    assert first.id in [near.id for near in saved.near]
    store.save(correction, tags, replaces=first.id)
    found = _texts(store, query, limit=10)
    assert correction in found
    assert stale not in found
    assert stale not in [m.text for m in store.list()]
    store.close()


@pytest.mark.parametrize(
    ("exact", "newer", "queries"),
    [
        (REDIS_PORT, RATE_LIMITER, ("which port does redis listen on", "redis port")),
        (NO_PUSH, CI, ("can I push to main directly",)),
    ],
)
def test_a_newer_different_fact_sharing_a_key_term_stays_below_the_exact_answer(
    tmp_path: Path, exact: str, newer: str, queries: tuple[str, ...]
) -> None:
    # A shared key term (Redis, `main`) is not supersession: the newer fact says something
    # else, and the query's distinguishing words are in the older.
    store = MemoryStore(tmp_path / "memory.db", _embedder())
    store.save(exact)
    saved = store.save(newer)
    assert 1 in [near.id for near in saved.near]  # still shown to the saver, kept as is
    for query in queries:
        assert _texts(store, query) == [exact, newer], query
    store.close()


def test_a_correction_is_read_first_even_for_what_only_the_stale_fact_names(
    tmp_path: Path,
) -> None:
    # ARGO is worded as a correction of JENKINS ("is gone"): the stale fact, though the query
    # names only its job, is read after it (`ranking.py`; it was read first).
    store = MemoryStore(tmp_path / "memory.db", _embedder())
    store.save(JENKINS)
    store.save(ARGO)
    assert _texts(store, "the deploy-prod job") == [ARGO, JENKINS]
    store.close()


def test_facts_far_apart_on_different_subjects_keep_their_order(tmp_path: Path) -> None:
    # Newer, found the same ways, but naming nothing the older names and with no tag shared.
    store = MemoryStore(tmp_path / "memory.db", _embedder())
    store.save("Deploy to production with the Jenkins job deploy-prod.", ("deploy",))
    store.save("Production logs are kept for thirty days.", ("logs",))
    assert _texts(store, "production deploy job") == [
        "Deploy to production with the Jenkins job deploy-prod.",
        "Production logs are kept for thirty days.",
    ]
    store.close()


def test_what_names_a_subject() -> None:
    subject = subject_of(
        "Postgres runs in `docker compose`; see src/db.py and the ArgoCD app, API v2.", ("db",)
    )
    assert subject.keys == {"docker compose", "src/db.py", "argocd", "api"}
    assert "postgres" not in subject.keys  # a sentence's first word: capitalised anyway
    assert subject.tags == {"db"}
    assert subject_of("Python 3.11 and port 8080.", ()).keys == set()  # numbers name nothing
    assert same_subject(subject_of(JENKINS, ()), subject_of(ARGO, ()))
    assert same_subject(subject_of(ALICE, ("billing",)), subject_of(PASSED, ("billing",)))
    assert not same_subject(subject_of(ALICE, ("memory.md",)), subject_of(PASSED, ("memory.md",)))


def test_the_saver_is_shown_a_stale_fact_far_in_meaning_on_the_same_subject(
    fake_model: FakeModelServer, tether: Callable[..., CliResult], workspace: Path
) -> None:
    # Named beside the new memory (not near in meaning: 0.65), so the model can say the new
    # one replaces it; a fact on another subject is not named.
    fake_model.script(
        tool_use("MemorySave", text=JENKINS),
        tool_use("MemorySave", text="Production logs are kept for thirty days."),
        tool_use("MemorySave", text=ARGO),
        tool_use("MemorySave", text=ARGO, replaces=1),
        text("saved"),
    )
    assert tether("-p", "remember these").exit_code == 0
    said = [r.tool_results()[0] for r in fake_model.requests[1:]]
    assert said[1] == "Saved as memory 2."
    assert said[2].startswith(
        "Saved as memory 3.\n\nSaved before, near in meaning or on the same subject (kept as "
        f"they are):\n- Memory 1: {JENKINS}\n\n"
    ), said[2]
    assert said[3] == f'Memory 1 ("{JENKINS}") is removed: memory 3 already says this.'
    listed = memory_cli("--cwd", str(workspace), "list")
    assert "Jenkins job" not in listed.stdout
    assert "ArgoCD" in listed.stdout


def test_a_save_works_out_only_the_terms_it_has_not_seen(tmp_path: Path) -> None:
    # Comparing a save with the 64 newest memories sharing its words worked out each one's
    # subject again at every save (most of its cost: bench/memory_save_bench.py), and the
    # first save of a process worked out all of their topics and changes, which no save needs.
    store = MemoryStore(tmp_path / "memory.db", _embedder())
    for area in ("billing", "search", "upload", "export"):
        store.save(f"The service for {area} keeps its retries in the job queue.")
    subject_of.cache_clear()
    store.save("Note one: the service job writes to the queue.")
    before = terms_of.cache_info()
    store.save("Note two: the service job writes to the queue.")
    after = terms_of.cache_info()
    assert after.misses - before.misses == 1  # its own; the others' were kept
    assert after.hits > before.hits
    assert subject_of.cache_info().currsize == 0
    store.close()

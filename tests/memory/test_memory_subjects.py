"""A correction worded far from the fact it corrects (a cosine under 0.7 with the local model)
ranks above it when the two are on the same subject: one names what the other names, or they
share a tag (`ranking.py`, `subjects.py`). The local embedding model, the memory file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tether.memory.embedders import Embedder, local_embedder
from tether.memory.saving import NEAR_SIMILARITY
from tether.memory.store import MemoryStore
from tether.memory.subjects import same_subject, subject_of
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
    ("stale", "correction", "tags"),
    [(JENKINS, ARGO, ()), (SETTINGS, MOVED, ()), (ALICE, PASSED, ("billing",))],
)
def test_a_correction_worded_far_from_its_fact_ranks_above_it(
    tmp_path: Path, stale: str, correction: str, tags: tuple[str, ...]
) -> None:
    embedder = _embedder()
    assert _cosine(embedder, stale, correction) < NEAR_SIMILARITY  # far in meaning
    store = MemoryStore(tmp_path / "memory.db", embedder)
    for a, b in DISTINCT:  # other facts around them
        store.save(a)
        store.save(b)
    store.save(stale, tags)
    store.save(correction, tags)  # no `replaces`: the saver did not name the stale fact
    queries = {
        JENKINS: "how do I deploy to production",
        SETTINGS: "where is settings.yaml",
        ALICE: "who owns billing",
    }
    assert _texts(store, queries[stale]) == [correction, stale]
    store.close()


def test_a_query_naming_what_only_the_stale_fact_names_finds_it_first(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "memory.db", _embedder())
    store.save(JENKINS)
    store.save(ARGO)
    assert _texts(store, "the deploy-prod job") == [JENKINS, ARGO]
    assert _texts(store, "production deploys") == [ARGO, JENKINS]
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

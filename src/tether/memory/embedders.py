"""What turns text into vectors: a local model run from what PyPI packages carry, or an
OpenAI-compatible `/v1/embeddings` endpoint. None of it is imported before memory is used.

`local_embedder()` is all-MiniLM-L6-v2 on onnxruntime (`minilm.py`) when the `memory` extra
is installed and its files are the pinned ones, else None (memory then searches by words
only). `bench/memory_bench.py` measured the candidates; the package README gives the figures
and the choice."""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from tether.shown_urls import shown_url

if TYPE_CHECKING:
    from tether.memory.endpoint_health import EndpointHealth


class Embedder(Protocol):
    """Text to unit vectors of `dimensions` floats; `name` tells stored vectors apart.
    `timeout`: how long a remote embedder waits for its answer, fitted to the use (None: its
    own default); a local one has nothing to wait for."""

    @property
    def name(self) -> str: ...

    @property
    def dimensions(self) -> int: ...

    def embed(self, texts: list[str], *, timeout: float | None = None) -> list[list[float]]: ...


class EmbeddingError(Exception):
    """The embedder could not give vectors; the message says why."""

    hurried: bool = False
    """It gave no answer within a limit shorter than its own (a session start's offer, which
    must not hold the first request up): not yet known to be down, only slow for that use,
    so nothing that waits longer is kept from trying it."""


URL_ENV = "TETHER_MEMORY_EMBEDDINGS_URL"
"""An OpenAI-compatible endpoint's base URL (up to `/v1`): memory embeds through it."""
MODEL_ENV = "TETHER_MEMORY_EMBEDDINGS_MODEL"
KEY_ENV = "TETHER_MEMORY_EMBEDDINGS_KEY_ENV"
"""The name of the variable that holds the endpoint's key (default `OPENAI_API_KEY`)."""


NOT_INSTALLED = (
    "the memory extra is not installed: pip install 'tether[memory]' adds search by meaning"
)


def vectors_available() -> bool:
    """Whether the `memory` extra is installed (checked without importing it)."""
    from tether.memory.minilm import find_model

    needed = ("numpy", "tokenizers", "onnxruntime", "sqlite_vec")
    return all(importlib.util.find_spec(m) is not None for m in needed) and (
        find_model() is not None
    )


def local_embedder() -> Embedder | None:
    """all-MiniLM-L6-v2 from the installed model (loaded once a process), or None when the
    extra is missing or its files are not the pinned ones (`local_problem` says which)."""
    return _local()[0]


def local_problem() -> str:
    """Why `local_embedder()` is None ("" when it is not)."""
    return _local()[1]


@cache
def _local() -> tuple[Embedder | None, str]:
    if not vectors_available():
        from tether.memory.minilm import missing_files

        needed = ("numpy", "tokenizers", "onnxruntime", "sqlite_vec")
        if all(importlib.util.find_spec(m) is not None for m in needed) and missing_files():
            # The extra is there but a model file is not (deleted, a broken install).
            return None, "the embedding model's files are not all there: " + "; ".join(
                missing_files()
            )
        return None, NOT_INSTALLED
    from tether.memory.minilm import MiniLM, ModelFileError, find_model

    files = find_model()
    assert files is not None
    try:
        return MiniLM(files), ""
    except ModelFileError as e:
        return None, str(e)
    except ImportError:  # a package of the extra is there but broken
        return None, NOT_INSTALLED


def configured_embedder(
    env: Mapping[str, str], *, health: Path | None = None, patient: bool = False
) -> Embedder | None:
    """The endpoint the environment names, else the local model, else None. `health`: the
    file where an endpoint's failures are remembered across processes (`endpoint_health`);
    `patient`: the endpoint is tried even while that file says it is down (a command the
    user gave, which then tells the others whether it answers)."""
    url = env.get(URL_ENV, "").strip()
    if url:
        from tether.memory.endpoint_health import EndpointHealth

        key = env.get(env.get(KEY_ENV) or "OPENAI_API_KEY")
        model = env.get(MODEL_ENV) or "text-embedding-3-small"
        known = None if health is None else EndpointHealth(health, shown_url(url, path=True))
        return HttpEmbedder(url, model, key, health=known, patient=patient)
    return local_embedder()


TIMEOUT_S = 10.0
"""How long an embeddings endpoint is waited for when the use says nothing shorter."""


@dataclass
class HttpEmbedder:
    """An OpenAI-compatible `/v1/embeddings` endpoint; vectors normalised here (some servers
    do not), the dimensions learnt from the first answer. With `health`, a failure is
    remembered for the other processes, and (unless `patient`) an endpoint they found down
    is not waited for again before its retry time: the call fails at once, saying so."""

    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = TIMEOUT_S
    _dimensions: int | None = None
    health: EndpointHealth | None = None
    patient: bool = False

    @property
    def name(self) -> str:
        return f"{self.model}@{self.base_url}"

    @property
    def dimensions(self) -> int:
        if self._dimensions is None:
            self._dimensions = len(self.embed(["dimensions"])[0])
        return self._dimensions

    def embed(self, texts: list[str], *, timeout: float | None = None) -> list[list[float]]:
        url = self.base_url.rstrip("/") + "/embeddings"
        shown = shown_url(url, path=True)
        limit = self.timeout if timeout is None else timeout
        hurried = limit < self.timeout
        if self.health is not None and not self.patient:
            down = self.health.down(hurried=hurried)
            if down is not None:
                skipped = EmbeddingError(str(down))
                skipped.hurried = hurried  # a patient use asks the health for itself
                raise skipped
        try:
            vectors = self._post(url, shown, texts, limit)
        except _NoAnswer as e:
            e.hurried = hurried  # slow for this use, not yet known to be down
            if self.health is not None:
                self.health.failed(str(e), hurried=hurried)
            raise
        except EmbeddingError as e:
            if self.health is not None:
                self.health.failed(str(e))
            raise
        if self.health is not None:
            self.health.answered(hurried=hurried)
        self._dimensions = len(vectors[0]) if vectors else self._dimensions
        return vectors

    def _post(self, url: str, shown: str, texts: list[str], timeout: float) -> list[list[float]]:
        """The unit vectors of `texts`; `EmbeddingError` says what went wrong."""
        import httpx2

        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        try:
            response = httpx2.post(
                url, json={"model": self.model, "input": texts}, headers=headers, timeout=timeout
            )
        except httpx2.TimeoutException:
            raise _NoAnswer(f"{shown}: no answer within {timeout:g} s") from None
        except httpx2.HTTPError as e:
            raise EmbeddingError(f"{shown}: {e}") from None
        if response.status_code != 200:
            raise EmbeddingError(f"{shown} answered {response.status_code}: {response.text[:200]}")
        try:
            rows: list[dict[str, Any]] = sorted(response.json()["data"], key=_index)
            vectors = [[float(x) for x in row["embedding"]] for row in rows]
        except (ValueError, KeyError, TypeError) as e:
            raise EmbeddingError(f"{shown}: not an embeddings answer ({e})") from None
        if len(vectors) != len(texts):
            raise EmbeddingError(f"{shown}: {len(vectors)} vectors for {len(texts)} texts")
        return [_unit(v) for v in vectors]


class _NoAnswer(EmbeddingError):
    """The endpoint gave no answer in time."""


def _unit(vector: list[float]) -> list[float]:
    size = sum(x * x for x in vector) ** 0.5 or 1.0
    return [x / size for x in vector]


def _index(row: dict[str, Any]) -> int:
    return int(row["index"])

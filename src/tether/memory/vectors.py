"""The memories' vectors held in this process as one NumPy matrix, for the search by meaning:
sqlite-vec's exact scan reads every vector out of the file at each search (10,000 x 384
floats: about 20 ms, most of a search's time); a product with the matrix takes under 1 ms.

The matrix is read again from the file when the file changed since (`Mark`: another
connection's commit moves `PRAGMA data_version`, this one's its `total_changes`), so it is
never staler than the file. Without NumPy the file is asked (`nearest` returns None)."""

from __future__ import annotations

from typing import Any

Mark = tuple[int, int]


def mark_of(db: Any) -> Mark:
    """What changes whenever the file does: another connection's commit, or this one's."""
    return int(db.execute("PRAGMA data_version").fetchone()[0]), int(db.total_changes)


class VectorMatrix:
    """`nearest(db, vector, k)`: the k memories nearest `vector` and their cosine similarity,
    from the matrix, read from `memories_vec` again when the file changed."""

    def __init__(self) -> None:
        self._mark: Mark | None = None
        self._ids: Any = None
        self._matrix: Any = None

    def forget(self) -> None:
        self._mark = None
        self._ids = self._matrix = None

    def nearest(self, db: Any, vector: list[float], k: int) -> list[tuple[int, float]] | None:
        """Best first; None without NumPy (the caller asks sqlite-vec)."""
        try:
            import numpy as np
        except ImportError:
            return None
        mark = mark_of(db)
        if mark != self._mark:
            rows = db.execute("SELECT rowid, embedding FROM memories_vec").fetchall()
            self._ids = np.array([int(r[0]) for r in rows], dtype=np.int64)
            vectors = [np.frombuffer(r[1], dtype=np.float32) for r in rows]
            matrix = np.vstack(vectors) if vectors else np.zeros((0, len(vector)), np.float32)
            norms = np.linalg.norm(matrix, axis=1, keepdims=True)
            self._matrix = matrix / np.maximum(norms, 1e-12)
            self._mark = mark
        matrix, ids = self._matrix, self._ids
        if not len(ids):
            return []
        if matrix.shape[1] != len(vector):
            return None
        query = np.asarray(vector, dtype=np.float32)
        query /= max(float(np.linalg.norm(query)), 1e-12)
        # einsum's own loop, not BLAS: OpenBLAS wakes its threads for each product, which
        # on a busy machine took 10-25 ms against 0.6 ms on one thread (bench/memory_bench.py).
        similarity = np.einsum("ij,j->i", matrix, query)
        k = min(k, len(ids))
        best = np.argpartition(-similarity, k - 1)[:k]
        best = best[np.argsort(-similarity[best], kind="stable")]
        return [(int(ids[i]), float(similarity[i])) for i in best]

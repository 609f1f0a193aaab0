"""The in-memory matrix of stored vectors: a cache of the ``embeddings`` table.

The store holds every vector; this cache only makes cosine search a matrix
product. It stays coherent with writes and erasures made by this process and by
others: before each use it compares the store's ``data_version``; when that moved
it loads rows added since its high-water mark and, if the live row count no longer
matches (something was erased or replaced), reloads in full.
"""

from __future__ import annotations

import threading

import numpy as np
import numpy.typing as npt

from .store import Store

Matrix = npt.NDArray[np.float32]


class VectorCache:
    def __init__(self, owner_kind: str, model: str, dim: int) -> None:
        self.owner_kind = owner_kind
        self.model = model
        self.dim = dim
        self._lock = threading.Lock()
        self._matrix: Matrix = np.zeros((0, dim), dtype=np.float32)
        self._size = 0
        self._ids: list[str | None] = []
        self._pos: dict[str, int] = {}
        self._high_rowid = 0
        self._version: int | None = None

    # ------------------------------------------------------------------ refresh
    def refresh(self, store: Store) -> None:
        version = store.data_version()
        with self._lock:
            if version == self._version:
                return
            self._load_since(store, self._high_rowid)
            live = int(store.query_one(
                "SELECT count(*) FROM embeddings WHERE owner_kind = ? AND model = ?", (self.owner_kind, self.model)
            )[0])
            if live != len(self._pos):
                self._reset()
                self._load_since(store, 0)
            self._version = version

    def _reset(self) -> None:
        self._matrix = np.zeros((0, self.dim), dtype=np.float32)
        self._size = 0
        self._ids = []
        self._pos = {}
        self._high_rowid = 0

    def _load_since(self, store: Store, rowid: int) -> None:
        rows = store.query(
            "SELECT rowid, owner_id, vector FROM embeddings WHERE owner_kind = ? AND model = ? AND rowid > ? ORDER BY rowid",
            (self.owner_kind, self.model, rowid),
        )
        if not rows:
            return
        vectors = np.frombuffer(b"".join(bytes(r[2]) for r in rows), dtype=np.float32).reshape(len(rows), self.dim)
        self._grow(self._size + len(rows))
        for (rid, owner_id, _), vec in zip(rows, vectors, strict=True):
            old = self._pos.get(owner_id)
            if old is not None:  # replaced: the old slot is dead
                self._ids[old] = None
                self._matrix[old] = 0.0
            self._matrix[self._size] = vec
            self._ids.append(owner_id)
            self._pos[owner_id] = self._size
            self._size += 1
            self._high_rowid = max(self._high_rowid, int(rid))

    def _grow(self, needed: int) -> None:
        if needed <= self._matrix.shape[0]:
            return
        capacity = max(needed, int(self._matrix.shape[0] * 1.5) + 64)
        bigger = np.zeros((capacity, self.dim), dtype=np.float32)
        bigger[: self._size] = self._matrix[: self._size]
        self._matrix = bigger

    # ------------------------------------------------------------------ query
    def positions(self, ids: list[str]) -> npt.NDArray[np.int64]:
        with self._lock:
            return np.fromiter((self._pos[i] for i in ids if i in self._pos), dtype=np.int64)

    def top(self, query: Matrix, allowed: npt.NDArray[np.int64], n: int) -> list[tuple[str, float]]:
        """The ``n`` best (id, cosine) among the ``allowed`` positions only."""
        with self._lock:
            if allowed.size == 0 or self._size == 0:
                return []
            allowed = allowed[allowed < self._size]
            scores = self._matrix[: self._size] @ query.reshape(-1)
            sub = scores[allowed]
            n = min(n, sub.size)
            best = np.argpartition(-sub, n - 1)[:n] if n < sub.size else np.arange(sub.size)
            order = best[np.argsort(-sub[best], kind="stable")]
            out = []
            for j in order:
                owner = self._ids[int(allowed[j])]
                if owner is not None:
                    out.append((owner, float(sub[j])))
            return out

    def vector(self, owner_id: str) -> Matrix | None:
        with self._lock:
            pos = self._pos.get(owner_id)
            return None if pos is None else self._matrix[pos].copy()

    def __len__(self) -> int:
        return len(self._pos)


def to_blob(vector: Matrix) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()

"""The in-memory matrix of stored vectors: a cache of the ``embeddings`` table.

The store holds every vector; this cache only makes cosine search a matrix
product. It stays coherent with writes and erasures made by this process and by
others: before each use it compares the store's ``data_version``; when that moved
it loads rows added since its high-water mark and, if the live row count no longer
matches (something was erased or replaced), reloads in full.

Scoring every row is exact but reads the whole matrix on every query (150 MB at
100,000 rows of 384 floats), which memory bandwidth makes the dearest step of a
search. Past ``exact_up_to`` rows the cache also keeps each row projected on the
principal directions of the stored vectors (a 384×128 basis), ranks every allowed
row by that projection, and scores exactly only the best ``10·n`` (at least 1,000)
of them. Sentence embeddings put almost all their energy in those directions; the
basis is used only when it holds at least 90% of it, and refitted as the store
doubles. ``veramem bench`` reports how many of the exact top 100 this recovers.

Memory: once the cache holds more than ``exact_up_to`` rows it keeps the full vectors in
half precision (77 MB instead of 154 at 100,000 rows): there they are only read for the
few thousand rows rescored per query (or in chunks, for an exact scan), converted to
float32 first, so a score moves by about 1e-5 at most. Rows are read from the store a
few thousand at a time and written straight into a matrix sized once, in its final
precision, for every pending row, so loading 100,000 rows never holds them twice (it used
to hold the rows, their joined bytes and the matrix at once: about 470 MB at 100,000 rows).
"""

from __future__ import annotations

import sys
import threading

import numpy as np
import numpy.typing as npt
from veramem_desktop.core.storage.store import Store

Matrix = npt.NDArray[np.float32]


#: directions kept by the projection, and the share of the vectors' energy they must hold
REDUCED_DIM = 128
MIN_ENERGY = 0.9
#: rows scored exactly per row wanted, and at least
RESCORE_FACTOR = 10
RESCORE_MIN = 1_000
#: rows read from the store per query while loading, and rows converted per step in half precision
LOAD_CHUNK = 2_048
SCORE_CHUNK = 4_096


class VectorCache:
    def __init__(self, owner_kind: str, model: str, dim: int, *, exact_up_to: int = 50_000) -> None:
        self.owner_kind = owner_kind
        self.model = model
        self.dim = dim
        self.exact_up_to = exact_up_to
        #: (dim × REDUCED_DIM) basis, the projected rows, and the row count when it was fitted
        self._basis: Matrix | None = None
        self._reduced: Matrix = np.zeros((0, 0), dtype=np.float32)
        self._fitted_at = 0
        self._lock = threading.Lock()
        self._matrix: Matrix = np.zeros((0, dim), dtype=np.float32)
        self._size = 0
        self._ids: list[str | None] = []
        self._pos: dict[str, int] = {}
        self._high_rowid = 0
        self._version: int | None = None

    # ------------------------------------------------------------------ refresh
    def refresh(self, store: Store, version: int | None = None) -> None:
        """Load what changed since the last refresh. ``version`` is the store's data version as the
        caller already read it (search reads it once per query, see ``SearchEngine._version``);
        without it the store is asked."""
        version = store.data_version() if version is None else version
        # The store's lock first, as a writer holding it takes this cache's lock next (Writer.derive
        # inside a transaction): the other order lets a refresh and a write wait on each other forever.
        with store.lock, self._lock:
            if version == self._version:
                return
            self._load_since(store, self._high_rowid)
            live = int(
                store.query_one(
                    "SELECT count(*) FROM embeddings WHERE owner_kind = ? AND model = ?",
                    (self.owner_kind, self.model),
                )[0]
            )
            if live != len(self._pos):
                self._reset()
                self._load_since(store, 0)
            if self._size > self.exact_up_to and self._size >= 2 * self._fitted_at:
                self._fit()
            self._version = version

    def _fit(self) -> None:
        """Fit the projection on the rows held now (or drop it when it would lose too much)."""
        gram = np.zeros((self.dim, self.dim), dtype=np.float32)
        for lo in range(0, self._size, SCORE_CHUNK):
            rows = self._rows(lo, min(lo + SCORE_CHUNK, self._size))
            gram += rows.T @ rows
            del rows  # the next chunk is converted without this one still held
        values, vectors = np.linalg.eigh(gram)  # ascending
        keep = min(REDUCED_DIM, self.dim)
        energy = float(values[-keep:].sum() / max(float(values.sum()), 1e-12))
        self._fitted_at = self._size
        if keep >= self.dim or energy < MIN_ENERGY:
            self._basis, self._reduced = None, np.zeros((0, 0), dtype=np.float32)
            return
        self._basis = np.ascontiguousarray(vectors[:, ::-1][:, :keep], dtype=np.float32)
        self._reduced = np.zeros((0, 0), dtype=np.float32)  # the old projection goes before the new one comes
        self._reduced = np.zeros((self._matrix.shape[0], keep), dtype=np.float32)
        self._project(0, self._size)

    def _rows(self, lo: int, hi: int) -> Matrix:
        """Rows ``lo:hi`` of the matrix as float32 (a view when the matrix is float32)."""
        return self._matrix[lo:hi].astype(np.float32, copy=False)

    def _project(self, lo: int, hi: int) -> None:
        assert self._basis is not None
        for start in range(lo, hi, SCORE_CHUNK):
            end = min(start + SCORE_CHUNK, hi)
            self._reduced[start:end] = self._rows(start, end) @ self._basis

    def _reset(self) -> None:
        self._matrix = np.zeros((0, self.dim), dtype=np.float32)
        self._basis, self._reduced, self._fitted_at = None, np.zeros((0, 0), dtype=np.float32), 0
        self._size = 0
        self._ids = []
        self._pos = {}
        self._high_rowid = 0

    def _load_since(self, store: Store, rowid: int) -> None:
        where = "owner_kind = ? AND model = ? AND rowid > ?"
        pending = int(
            store.query_one(
                f"SELECT count(*) FROM embeddings WHERE {where}", (self.owner_kind, self.model, rowid)
            )[0]
        )
        if not pending:
            return
        self._grow(self._size + pending)
        first = self._size
        while True:
            # The unary plus keeps SQLite off the (owner_kind, owner_id, model) index: through it,
            # ORDER BY rowid sorts every matching row (vectors included) in a temporary b-tree for
            # each chunk; along the rowid it reads each chunk in order and stops at LIMIT.
            rows = store.query(
                "SELECT rowid, owner_id, vector FROM embeddings WHERE +owner_kind = ? "
                "AND +model = ? AND rowid > ? ORDER BY rowid LIMIT ?",
                (self.owner_kind, self.model, rowid, LOAD_CHUNK),
            )
            if not rows:
                break
            self._grow(self._size + len(rows))  # more than counted: written since the count
            vectors = np.frombuffer(b"".join(vector for _, _, vector in rows), dtype=np.float32).reshape(
                len(rows), self.dim
            )
            for (_, stored_id, _), vec in zip(rows, vectors, strict=True):
                owner_id = sys.intern(stored_id)  # one string per id, shared with the allowed sets
                old = self._pos.get(owner_id)
                if old is not None:  # replaced: the old slot is dead
                    self._ids[old] = None
                    self._matrix[old] = 0.0
                    if self._basis is not None:
                        self._reduced[old] = 0.0
                self._matrix[self._size] = vec
                self._ids.append(owner_id)
                self._pos[owner_id] = self._size
                self._size += 1
            rowid = int(rows[-1][0])
            self._high_rowid = max(self._high_rowid, rowid)
            if len(rows) < LOAD_CHUNK:
                break
        if self._basis is not None:
            self._project(first, self._size)

    def _grow(self, needed: int) -> None:
        """Room for ``needed`` rows; past ``exact_up_to`` rows the matrix is kept in half precision.

        A half-precision matrix stays so until :meth:`_reset`: a load sizes it for all its pending
        rows, then asks for room chunk by chunk with counts that start below ``exact_up_to``, which
        must not turn it into a float32 matrix of the full capacity (and back, holding both)."""
        half = needed > self.exact_up_to or self._matrix.dtype == np.float16
        if needed <= self._matrix.shape[0] and (self._matrix.dtype == np.float16) == half:
            return
        capacity = (
            max(needed, int(self._matrix.shape[0] * 1.5) + 64)
            if needed > self._matrix.shape[0]
            else self._matrix.shape[0]
        )
        bigger = np.zeros((capacity, self.dim), dtype=np.float16 if half else np.float32)
        bigger[: self._size] = self._matrix[: self._size]
        self._matrix = bigger
        if self._basis is not None and capacity > self._reduced.shape[0]:
            reduced = np.zeros((capacity, self._basis.shape[1]), dtype=np.float32)
            reduced[: self._size] = self._reduced[: self._size]
            self._reduced = reduced

    # ------------------------------------------------------------------ query
    def positions(self, ids: list[str]) -> npt.NDArray[np.int64]:
        with self._lock:
            return np.fromiter((self._pos[i] for i in ids if i in self._pos), dtype=np.int64)

    def held_positions(self) -> npt.NDArray[np.int64]:
        """The positions of every row the cache holds (what :meth:`positions` gives for every stored
        id, without building the list of ids)."""
        with self._lock:
            return np.fromiter(
                (pos for pos, owner in enumerate(self._ids) if owner is not None), dtype=np.int64
            )

    def top(
        self, query: Matrix, allowed: npt.NDArray[np.int64], n: int, *, exact: bool = False
    ) -> list[tuple[str, float]]:
        """The ``n`` best (id, cosine) among the ``allowed`` positions only.

        With a projection fitted (see the module's docstring) and unless ``exact``, the allowed
        rows are ranked by their projections and only the best ``10·n`` are scored exactly."""
        with self._lock:
            if allowed.size == 0 or self._size == 0:
                return []
            allowed = allowed[allowed < self._size]
            query = query.reshape(-1)
            rescore = max(RESCORE_FACTOR * n, RESCORE_MIN)
            if self._basis is not None and not exact and allowed.size > rescore:
                rough = (self._reduced[: self._size] @ (self._basis.T @ query))[allowed]
                allowed = allowed[np.argpartition(-rough, rescore - 1)[:rescore]]
                sub = self._matrix[allowed].astype(np.float32, copy=False) @ query
            elif self._matrix.dtype == np.float32:
                sub = (self._matrix[: self._size] @ query)[allowed]
            else:  # half precision: converted a chunk at a time, never the whole matrix at once
                sub = np.empty(allowed.size, dtype=np.float32)
                for lo in range(0, allowed.size, SCORE_CHUNK):
                    part = allowed[lo : lo + SCORE_CHUNK]
                    sub[lo : lo + part.size] = self._matrix[part].astype(np.float32) @ query
            n = min(n, sub.size)
            best = np.argpartition(-sub, n - 1)[:n] if n < sub.size else np.arange(sub.size)
            order = best[np.argsort(-sub[best], kind="stable")]
            out = []
            for j in order:
                owner = self._ids[int(allowed[j])]
                if owner is not None:
                    out.append((owner, float(sub[j])))
            return out

    @property
    def approximate(self) -> bool:
        """Whether searches rank by the projection first (the store outgrew ``exact_up_to``)."""
        return self._basis is not None

    def vector(self, owner_id: str) -> Matrix | None:
        with self._lock:
            pos = self._pos.get(owner_id)
            return None if pos is None else self._matrix[pos].astype(np.float32)

    def __len__(self) -> int:
        return len(self._pos)


#: the kinds of vectors the store holds: memories, messages, and each with its context
KINDS = ("memory", "episode", "episode_ctx", "memory_ctx")


class VectorIndex:
    """One cache per kind of stored vector (:data:`KINDS`) for one embedding model.

    The composition root builds one per open store and passes it to everything that reads
    vectors: search, the write path (neighbours of a candidate), the linker and consolidation,
    so each vector is loaded into memory once per process."""

    def __init__(self, model: str, dim: int, *, exact_up_to: int = 50_000) -> None:
        self.caches = {kind: VectorCache(kind, model, dim, exact_up_to=exact_up_to) for kind in KINDS}

    def __getitem__(self, kind: str) -> VectorCache:
        return self.caches[kind]

    @property
    def memory(self) -> VectorCache:
        """The memories' vectors (what the write path, the linker and consolidation compare)."""
        return self.caches["memory"]


def to_blob(vector: Matrix) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()

"""The dense channel: cosine similarity between a question's vector and the stored vectors of the
rows a caller may see (memories, episodes, and the context vectors of each).

The vectors live in the store; each kind has an in-memory matrix (core/storage/vectors.py) that
refreshes when the store's version moves. Only the allowed rows (core/recall/candidates.py, the
access predicate in SQL) are scored, through their matrix positions, cached with the allowed set.
The question is embedded on a small shared pool of threads, so the lexical channels run meanwhile;
the "hyde" channel embeds a model's hypothetical answer instead.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np
import numpy.typing as npt
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.recall.candidates import Candidates, keep_per_minute
from veramem_desktop.core.recall.recipes import SearchConfig
from veramem_desktop.core.storage.vectors import VectorCache, VectorIndex

#: question embeddings kept for reuse
RECENT_EMBEDDINGS = 4


class Dense:
    """The dense channel of one store: the vector caches, the allowed rows' positions in them, and
    the question's embedding."""

    def __init__(
        self,
        candidates: Candidates,
        embedder: Embedder,
        config: SearchConfig,
        vectors: VectorIndex | None = None,
    ) -> None:
        self.candidates = candidates
        self.embedder = embedder
        #: the vector caches, shared with the write path, the linker and consolidation when given
        self.vectors = vectors or VectorIndex(
            embedder.name, embedder.dim, exact_up_to=config.dense_exact_up_to
        )
        self.caches: dict[str, VectorCache] = self.vectors.caches
        self._lock = threading.Lock()
        self._positions: dict[tuple[Any, ...], tuple[int, npt.NDArray[np.int64]]] = {}
        #: the last few questions' embeddings (a search embeds its question and maybe its topic; the raw
        #: fill-in, the answer ladder and the closeness labels ask again at once)
        self._recent: dict[tuple[str, str], Future[npt.NDArray[np.float32]]] = {}

    def rank(
        self,
        cache_kind: str,
        qvec: npt.NDArray[np.float32],
        allowed: tuple[tuple[Any, ...], list[str]],
        n: int,
    ) -> list[str]:
        """Cosine over the allowed rows only; their matrix positions are cached with the allowed set."""
        cache = self.caches[cache_kind]
        version = self.candidates.version()
        cache.refresh(self.candidates.store, version)
        key = (cache_kind, *allowed[0])
        with self._lock:
            hit = self._positions.get(key)
        if hit is not None and hit[0] == version:
            positions = hit[1]
        else:
            positions = cache.positions(allowed[1])
            with self._lock:
                # A new minute's positions replace the last ones of the same caller (the minute ends the key).
                keep_per_minute(self._positions, key, (version, positions))
        return [i for i, _ in cache.top(qvec, positions, n)]

    def embedding(self, query: str) -> Future[npt.NDArray[np.float32]]:
        """The query's embedding, started on another thread. The last few are reused when the same
        query is ranked again at once (the raw fill-in of a search, the answer ladder and the closeness
        labels do)."""
        key = (self.embedder.name, query)
        with self._lock:
            last = self._recent.get(key)
        if last is not None and not (last.done() and last.exception() is not None):
            return last
        future = _embed_later(self.embedder, query)
        with self._lock:
            self._recent.pop(key, None)
            self._recent[key] = future
            while len(self._recent) > RECENT_EMBEDDINGS:
                del self._recent[next(iter(self._recent))]
        return future

    def hypothesis(
        self, hypothesise: Callable[[str], str | None] | None, query: str
    ) -> npt.NDArray[np.float32] | None:
        """The vector of a model's hypothetical answer, or None (no model, or it failed: fail open)."""
        if hypothesise is None:
            return None
        try:
            text = hypothesise(query)
        except Exception:  # the channel is optional; search never fails for it
            return None
        return self.embedder.embed([text])[0] if text and text.strip() else None


_EMBED_POOL: ThreadPoolExecutor | None = None
_EMBED_POOL_LOCK = threading.Lock()


def _embed_later(embedder: Embedder, query: str) -> Future[npt.NDArray[np.float32]]:
    """The query's embedding, computed on a small shared pool of threads."""
    global _EMBED_POOL
    with _EMBED_POOL_LOCK:
        if _EMBED_POOL is None:
            _EMBED_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="veramem-query-embed")
        pool = _EMBED_POOL
    return pool.submit(embedder.embed, [query])

"""Storing episodes together with their search indexes (vectors and entities).

Vectors are computed before the write transaction (the model is slow); the rows,
their vectors and entities are then written in one transaction. Each turn gets two
vectors: its own words ('episode') and its words with the neighbouring turns of
its session ('episode_ctx'); when a new turn arrives, the previous turn's context
vector is recomputed to include it.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import episodes, index
from .episodes import Episode, EpisodeInput, Scope
from .protocols import Embedder
from .store import Store
from .textproc import context_text
from .text import for_index


def _speaker(role: str, name: str | None) -> str:
    return name or role


def _own_text(speaker: str, content: str) -> str:
    return for_index(f"{speaker}: {content}")


def store_episodes(store: Store, embedder: Embedder, inputs: Sequence[EpisodeInput], scope: Scope, *,
                   device: str) -> list[Episode]:
    prev: Episode | None = None
    prev_prev: Episode | None = None
    if scope.session_id is not None:
        last_two = episodes.list_episodes(store, session_id=scope.session_id, limit=2, newest_first=True)
        prev = last_two[0] if last_two else None
        prev_prev = last_two[1] if len(last_two) > 1 else None
    own = [_own_text(_speaker(i.role, i.name), i.content) for i in inputs]
    chain = ([_own_text(_speaker(prev.role, prev.source_name), prev.content)] if prev else []) + own
    offset = 1 if prev else 0
    contexts = [
        context_text(chain[j - 1] if j > 0 else None, chain[j], chain[j + 1] if j + 1 < len(chain) else None)
        for j in range(offset, len(chain))
    ]
    prev_ctx: list[str] = []
    if prev is not None:
        before = _own_text(_speaker(prev_prev.role, prev_prev.source_name), prev_prev.content) if prev_prev else None
        prev_ctx = [context_text(before, chain[0], chain[1] if len(chain) > 1 else None)]
    vectors = index.embed_texts(embedder, own + contexts + prev_ctx)
    n = len(own)
    with store.atomic() as conn:
        stored = episodes.insert(conn, inputs, scope, device=device)
        ids = [e.id for e in stored]
        index.store_vectors(conn, "episode", embedder.name, ids, vectors[:n])
        index.store_vectors(conn, "episode_ctx", embedder.name, ids, vectors[n : 2 * n])
        if prev is not None:
            index.store_vectors(conn, "episode_ctx", embedder.name, [prev.id], vectors[2 * n :])
        for ep, text in zip(stored, own, strict=True):
            index.store_entities(conn, "episode", ep.id, text)
    return stored

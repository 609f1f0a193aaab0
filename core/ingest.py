"""Storing episodes together with their search indexes (full text, vectors and entities).

Vectors are computed before the write transaction (the model is slow); the rows,
their vectors and entities are then written in one transaction. Each turn's line is
"speaker: words". Each turn gets:

- a full-text row of the previous turn of its session and the turn ('prev + this'),
  so a reply is found by the words of the question it answers;
- a vector of its own line ('episode');
- a vector of the previous, own and next lines in that order ('episode_ctx'); when a
  new turn arrives, the previous turn's context vector is recomputed to include it.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import episodes, index
from .episodes import Episode, EpisodeInput, Scope
from .protocols import Embedder
from .store import Store
from .text import for_index
from .textproc import context_text, episode_fts_text, speaker_line


def line_of(role: str, name: str | None, content: str) -> str:
    """A turn's line: the speaker (its name, else its role) and the words."""
    return for_index(speaker_line(name or role, content))


def store_episodes(store: Store, embedder: Embedder, inputs: Sequence[EpisodeInput], scope: Scope, *,
                   device: str) -> list[Episode]:
    prev: Episode | None = None
    prev_prev: Episode | None = None
    if scope.session_id is not None:
        last_two = episodes.list_episodes(store, session_id=scope.session_id, limit=2, newest_first=True)
        prev = last_two[0] if last_two else None
        prev_prev = last_two[1] if len(last_two) > 1 else None
    own = [line_of(i.role, i.name, i.content) for i in inputs]
    # Without a session, the messages of one add are still one conversation, in order.
    chain = ([line_of(prev.role, prev.source_name, prev.content)] if prev else []) + own
    offset = 1 if prev else 0
    before = [chain[j - 1] if j > 0 else None for j in range(offset, len(chain))]
    after = [chain[j + 1] if j + 1 < len(chain) else None for j in range(offset, len(chain))]
    fts_texts = [episode_fts_text(line, p) for line, p in zip(own, before, strict=True)]
    contexts = [context_text(p, line, n) for p, line, n in zip(before, own, after, strict=True)]
    prev_ctx: list[str] = []
    if prev is not None:
        earlier = line_of(prev_prev.role, prev_prev.source_name, prev_prev.content) if prev_prev else None
        prev_ctx = [context_text(earlier, chain[0], chain[1])]
    vectors = index.embed_texts(embedder, own + contexts + prev_ctx)
    n = len(own)
    with store.atomic() as conn:
        stored = episodes.insert(conn, inputs, scope, device=device, fts_texts=fts_texts)
        ids = [e.id for e in stored]
        index.store_vectors(conn, "episode", embedder.name, ids, vectors[:n])
        index.store_vectors(conn, "episode_ctx", embedder.name, ids, vectors[n : 2 * n])
        if prev is not None:
            index.store_vectors(conn, "episode_ctx", embedder.name, [prev.id], vectors[2 * n :])
        for ep, text in zip(stored, own, strict=True):
            index.store_entities(conn, "episode", ep.id, text)
    return stored


def recompute_context(store: Store, embedder: Embedder, episode_ids: Sequence[str]) -> int:
    """Rebuild the context vectors of ``episode_ids`` from the turns that surround them now
    (after a forget dropped the ones that held erased words). Returns how many were rebuilt."""
    cols = episodes.EPISODE_COLUMNS
    owners: list[str] = []
    contexts: list[str] = []
    for eid in episode_ids:
        row = store.query_one(f"SELECT {cols} FROM episodes WHERE id = ?", (eid,))
        if row is None:
            continue
        ep = episodes.row_to_episode(row)
        around = []
        for op, order in (("<", "DESC"), (">", "ASC")):
            found = store.query_one(f"SELECT {cols} FROM episodes WHERE session_id = ? AND turn_index {op} ? "
                                    f"ORDER BY turn_index {order} LIMIT 1", (ep.session_id, ep.turn_index))
            around.append(episodes.row_to_episode(found) if found is not None else None)
        prev, nxt = around
        owners.append(ep.id)
        contexts.append(context_text(line_of(prev.role, prev.source_name, prev.content) if prev else None,
                                     line_of(ep.role, ep.source_name, ep.content),
                                     line_of(nxt.role, nxt.source_name, nxt.content) if nxt else None))
    if owners:
        vectors = index.embed_texts(embedder, contexts)
        with store.atomic() as conn:
            index.store_vectors(conn, "episode_ctx", embedder.name, owners, vectors)
    return len(owners)

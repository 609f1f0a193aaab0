"""Storing episodes together with their search indexes (full text, vectors and entities).

Vectors are computed before the write transaction (the model is slow); the rows,
their vectors and entities are then written in one transaction. Each turn's line is
"speaker: words". Each turn gets:

- a full-text row of the previous turn of its session and the turn ('prev + this'),
  so a reply is found by the words of the question it answers;
- a vector of its own line ('episode'), the one text the model embeds per turn;
- a context vector ('episode_ctx'): the previous, own and next line vectors summed,
  each weighted by its message's length in characters (the neighbours' cut at 400, the
  turn's at 1,200), then normalised. Mean pooling over the three lines joined would
  weigh each line by its length in the same way, so this stands in for embedding that
  joined text (three times as many tokens as the line) without running the model
  again. When a new turn arrives, the previous turn's context vector is rebuilt from
  the stored line vectors to include it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from veramem_desktop.core.protocols import Embedder, Vectors
from veramem_desktop.core.storage import episode_turns, episodes, index, index_rows, ledger
from veramem_desktop.core.storage.episodes import Episode, EpisodeInput, Scope
from veramem_desktop.core.storage.store import Connection, Store
from veramem_desktop.core.storage.text import for_index, storable
from veramem_desktop.core.text.turns import episode_fts_text, speaker_line

#: characters of a neighbour's and of the turn's own message that weigh in its context vector
NEIGHBOUR_CHARS = 400
OWN_CHARS = 1200


def line_of(role: str, name: str | None, content: str) -> str:
    """A turn's line: the speaker (its name, else its role) and the words."""
    return for_index(speaker_line(name or role, content))


Lined = tuple[Vectors, str]  # a line's vector and its message's text


def ledger_added(
    conn: Connection,
    episode: Episode,
    *,
    device: str,
    details: dict[str, Any],
    speaker_role: str | None = None,
) -> None:
    """The ``episode.add`` ledger entry of an episode written whole as a row (imported, or a redacted
    message's kept sentences): its commitment covers the episode's hash and role."""
    ledger.append(
        conn,
        op="episode.add",
        target_kind="episode",
        target_id=episode.id,
        commitment_hex=ledger.commit_to(conn, episode.id, {"sha256": episode.sha256, "role": episode.role}),
        device=device,
        details=details,
        speaker_role=speaker_role,
    )


def context_vector(prev: Lined | None, own: Lined, nxt: Lined | None) -> Vectors:
    """A turn's context vector (unit length) from the line vectors of the turn and its neighbours,
    each weighted by its message's length (see the module's docstring)."""
    total = min(len(own[1]), OWN_CHARS) * np.asarray(own[0], dtype=np.float32)
    for other in (prev, nxt):
        if other is not None:
            total = total + min(len(other[1]), NEIGHBOUR_CHARS) * other[0]
    norm = float(np.linalg.norm(total))
    return (total / norm).astype(np.float32) if norm > 0 else np.asarray(own[0], dtype=np.float32)


def stored_line_vectors(store: Store, embedder: Embedder, eps: Sequence[Episode]) -> dict[str, Vectors]:
    """The line vectors of ``eps`` as stored ('episode'); any missing (another model's store) are embedded."""
    if not eps:
        return {}
    found = {
        owner_id: np.frombuffer(bytes(blob), dtype=np.float32)
        for owner_id, blob in index_rows.stored_vectors(store, "episode", embedder.name, [e.id for e in eps])
    }
    missing = [e for e in eps if e.id not in found or found[e.id].shape != (embedder.dim,)]
    if missing:
        vectors = index.embed_texts(embedder, [line_of(e.role, e.source_name, e.content) for e in missing])
        found.update({e.id: v for e, v in zip(missing, vectors, strict=True)})
    return found


def store_episodes(
    store: Store, embedder: Embedder, inputs: Sequence[EpisodeInput], scope: Scope, *, device: str
) -> list[Episode]:
    prev: Episode | None = None
    prev_prev: Episode | None = None
    if scope.session_id is not None:
        last_two = episodes.list_episodes(store, session_id=scope.session_id, limit=2, newest_first=True)
        prev = last_two[0] if last_two else None
        prev_prev = last_two[1] if len(last_two) > 1 else None
    own = [line_of(i.role, i.name, i.content) for i in inputs]
    before = ([line_of(prev.role, prev.source_name, prev.content)] if prev else [None]) + own[:-1]
    fts_texts = [episode_fts_text(line, p) for line, p in zip(own, before, strict=True)]
    vectors = index.embed_texts(embedder, own)
    # Without a session, the messages of one add are still one conversation, in order.
    earlier = stored_line_vectors(store, embedder, [e for e in (prev_prev, prev) if e is not None])
    lined: list[Lined] = [(v, storable(i.content)[0]) for v, i in zip(vectors, inputs, strict=True)]
    chain: list[Lined | None] = [(earlier[prev.id], prev.content) if prev else None, *lined, None]
    contexts = (
        np.stack([context_vector(chain[j - 1], lined[j - 1], chain[j + 1]) for j in range(1, len(chain) - 1)])
        if inputs
        else vectors
    )
    n = len(own)
    with store.atomic() as conn:
        stored = episodes.insert(conn, inputs, scope, device=device, fts_texts=fts_texts)
        ids = [e.id for e in stored]
        index.store_vectors(conn, "episode", embedder.name, ids, vectors[:n])
        index.store_vectors(conn, "episode_ctx", embedder.name, ids, contexts)
        if prev is not None and n:
            prev_ctx = context_vector(
                (earlier[prev_prev.id], prev_prev.content) if prev_prev else None,
                (earlier[prev.id], prev.content),
                lined[0],
            )
            index.store_vectors(conn, "episode_ctx", embedder.name, [prev.id], prev_ctx.reshape(1, -1))
        for ep, text in zip(stored, own, strict=True):
            index.store_entities(conn, "episode", ep.id, text)
    return stored


def recompute_context(store: Store, embedder: Embedder, episode_ids: Sequence[str]) -> int:
    """Rebuild the context vectors of ``episode_ids`` from the turns that surround them now
    (after a forget dropped the ones that held erased words). Returns how many were rebuilt."""
    triples: list[tuple[Episode | None, Episode, Episode | None]] = []
    for eid in episode_ids:
        ep = episodes.get(store, eid)
        if ep is None:
            continue
        around = [
            episode_turns.turn_beside(store, ep.session_id, ep.turn_index, after=after)
            for after in (False, True)
        ]
        triples.append((around[0], ep, around[1]))
    if triples:
        lines = stored_line_vectors(
            store, embedder, list({e.id: e for t in triples for e in t if e}.values())
        )
        vectors = np.stack(
            [
                context_vector(
                    (lines[p.id], p.content) if p else None,
                    (lines[ep.id], ep.content),
                    (lines[n.id], n.content) if n else None,
                )
                for p, ep, n in triples
            ]
        )
        with store.atomic() as conn:
            index.store_vectors(conn, "episode_ctx", embedder.name, [ep.id for _, ep, _ in triples], vectors)
    return len(triples)

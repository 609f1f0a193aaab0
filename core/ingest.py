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


def reindex_neighbours(store: Store, embedder: Embedder, session_id: str | None, turn_index: int) -> None:
    """Call after erasing the turn at ``turn_index`` of ``session_id``: the indexes of its
    neighbours held its words (the next turn's full-text row, and the context vectors of the
    turns before and after), so they are rebuilt from the turns that remain."""
    if session_id is None:
        return
    cols = episodes.EPISODE_COLUMNS
    before = [episodes.row_to_episode(r) for r in store.query(
        f"SELECT {cols} FROM episodes WHERE session_id = ? AND turn_index < ? ORDER BY turn_index DESC LIMIT 2",
        (session_id, turn_index))][::-1]
    after = [episodes.row_to_episode(r) for r in store.query(
        f"SELECT {cols} FROM episodes WHERE session_id = ? AND turn_index > ? ORDER BY turn_index LIMIT 2",
        (session_id, turn_index))]
    lines = [line_of(e.role, e.source_name, e.content) for e in before + after]
    owners: list[str] = []
    contexts: list[str] = []
    split = len(before)
    for j in ([split - 1] if before else []) + ([split] if after else []):
        owners.append((before + after)[j].id)
        contexts.append(context_text(lines[j - 1] if j > 0 else None, lines[j], lines[j + 1] if j + 1 < len(lines) else None))
    vectors = index.embed_texts(embedder, contexts)
    with store.atomic() as conn:
        index.store_vectors(conn, "episode_ctx", embedder.name, owners, vectors)
        if after:
            row = conn.execute("SELECT rowid FROM fts_rows WHERE owner_kind = 'episode' AND owner_id = ?",
                               (after[0].id,)).fetchone()
            if row is not None:
                conn.execute("DELETE FROM episode_fts WHERE rowid = ?", (row[0],))
                conn.execute("INSERT INTO episode_fts(rowid, text) VALUES (?, ?)",
                             (row[0], episode_fts_text(lines[split], lines[split - 1] if before else None)))

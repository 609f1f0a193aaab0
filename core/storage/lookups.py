"""Plain lookups over the whole store for reports, imports and benchmarks.

Each answers one question by id or over every row, with no access predicate: they serve the
person's own tools (the import's duplicate check, the benchmarks' scoring), never an agent.
By-id reads made for a caller go through core/curation/reads.py.
"""

from __future__ import annotations

from collections.abc import Sequence

from veramem_desktop.core.storage.store import Store


def embedded_ids(store: Store, owner_kind: str, model: str) -> list[str]:
    """Ids of the ``owner_kind`` rows (memory, episode) that hold a vector from ``model``."""
    rows = store.query(
        "SELECT owner_id FROM embeddings WHERE owner_kind = ? AND model = ?", (owner_kind, model)
    )
    return [r[0] for r in rows]


def vector_model(store: Store) -> str | None:
    """The model id of one stored vector (a store's vectors come from one model), or ``None`` when it holds none."""
    row = store.query_one("SELECT model FROM embeddings LIMIT 1")
    return None if row is None else str(row[0])


def evidence_map(store: Store) -> dict[str, list[str]]:
    """Every memory's evidence as the episode ids it stands in, in the order the evidence was recorded."""
    found: dict[str, list[str]] = {}
    for memory_id, episode_id in store.query("SELECT memory_id, episode_id FROM evidence ORDER BY id"):
        found.setdefault(memory_id, []).append(episode_id)
    return found


def texts_of(store: Store, ids: Sequence[str]) -> dict[str, str]:
    """The text of each id found: a memory's text or an episode's content (missing ids are left out)."""
    found: dict[str, str] = {}
    for i in ids:
        row = store.query_one(
            "SELECT text FROM memory_items WHERE id = ? UNION ALL SELECT content FROM episodes WHERE id = ?",
            (i, i),
        )
        if row is not None:
            found[i] = str(row[0])
    return found


def import_keys(store: Store, session_id: str, user_id: str | None) -> set[str]:
    """The import keys of the messages already stored in one session of one user (an import skips those)."""
    rows = store.query(
        "SELECT json_extract(metadata, '$.import_key') FROM episodes WHERE session_id = ? AND "
        "user_id IS ? AND json_extract(metadata, '$.import_key') IS NOT NULL",
        (session_id, user_id),
    )
    return {r[0] for r in rows}


def any_current(store: Store, memory_ids: Sequence[str]) -> bool:
    """True when any of ``memory_ids`` is active and not rejected (a conflict with it is still open)."""
    if not memory_ids:
        return False
    marks = ",".join("?" * len(memory_ids))
    row = store.query_one(
        f"SELECT 1 FROM memory_items WHERE id IN ({marks}) AND status = 'active' AND trust != 'rejected' LIMIT 1",
        list(memory_ids),
    )
    return row is not None

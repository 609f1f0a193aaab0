"""Memories of one scope (user, team, agent, visibility) or of one key (subject and predicate):
the current ones, the rejected keys, the peers consolidation weighs, the shared pool and the
per-source usage budgets count.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from veramem_desktop.core.storage.id_sets import marks
from veramem_desktop.core.storage.items import ITEM_COLUMNS, MemoryItem, row_to_item
from veramem_desktop.core.storage.store import Connection, Store


def _current_ids(store: Store, where: str, params: Sequence[Any]) -> list[str]:
    """Ids of the active, unrejected memories that also meet ``where`` (its ``?`` bound to ``params``)."""
    rows = store.query(
        f"SELECT id FROM memory_items WHERE status = 'active' AND trust != 'rejected' AND {where}", params
    )
    return [memory_id for (memory_id,) in rows]


def current_with_key(
    conn: Connection,
    *,
    user_id: str | None,
    team_id: str | None,
    subject: str,
    predicate: str,
    other_than: str,
) -> list[MemoryItem]:
    """The active, unrejected memories of one scope whose subject and predicate are these (compared
    without case), ``other_than`` left out."""
    rows = conn.execute(
        f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE status = 'active' AND trust != 'rejected' "
        "AND user_id IS ? AND team_id IS ? AND lower(subject) = lower(?) AND lower(predicate) = lower(?) "
        "AND id != ?",
        (user_id, team_id, subject, predicate, other_than),
    ).fetchall()
    return [row_to_item(row) for row in rows]


def current_ids_with_key(
    store: Store, user_id: str | None, team_id: str | None, subject: str, predicate: str
) -> list[str]:
    """Ids of the active, unrejected memories of one scope with exactly this subject and predicate."""
    return _current_ids(
        store,
        "user_id IS ? AND team_id IS ? AND subject = ? AND predicate = ?",
        (user_id, team_id, subject, predicate),
    )


class KeyedVersion(NamedTuple):
    """A memory stating one version of a key: its id, predicate, value, status and the time it began."""

    id: str
    predicate: str
    value: str | None
    status: str
    valid_from: str


def keyed_versions(
    store: Store, user_id: str, subject: str, predicates: Sequence[str], limit: int = 50
) -> list[KeyedVersion]:
    """The unrejected memories of ``user_id``'s own scope stating one of ``predicates`` of ``subject`` that
    held for a time: current, replaced, or ended (retracted with the day it stopped), newest first."""
    if not predicates:
        return []
    rows = store.query(
        "SELECT id, predicate, value, status, valid_from FROM memory_items WHERE user_id = ? AND team_id IS NULL "
        f"AND subject = ? AND predicate IN ({marks(predicates)}) AND trust != 'rejected' AND (status IN "
        "('active', 'superseded') OR (status = 'retracted' AND valid_to IS NOT NULL)) ORDER BY valid_from DESC "
        "LIMIT ?",
        (user_id, subject, *predicates, limit),
    )
    return [KeyedVersion(*row) for row in rows]


def rejected_keys(
    store: Store, user_id: str | None, team_id: str | None
) -> list[tuple[str, str | None, str | None]]:
    """``(id, subject, predicate)`` of every rejected memory of one scope."""
    rows = store.query(
        "SELECT id, subject, predicate FROM memory_items WHERE trust = 'rejected' AND user_id IS ? AND team_id IS ?",
        (user_id, team_id),
    )
    return [(memory_id, subject, predicate) for memory_id, subject, predicate in rows]


def key_holders(store: Store, keys: list[tuple[str | None, ...]]) -> list[str]:
    """The active, not rejected memories (at most 20 per key) stating each key's ``(user, subject, predicate,
    team)`` as stored (an indexed lookup per key, a statement per 100 keys)."""
    one = (
        "SELECT id FROM (SELECT id FROM memory_items INDEXED BY memory_key WHERE user_id IS ? AND subject = ? "
        "AND predicate = ? AND team_id IS ? AND status = 'active' AND trust != 'rejected' LIMIT 20)"
    )
    found: list[str] = []
    for lo in range(0, len(keys), 100):
        part = keys[lo : lo + 100]
        found += [
            r[0] for r in store.query(" UNION ALL ".join([one] * len(part)), [v for k in part for v in k])
        ]
    return found


def current_ids_in_scope(store: Store, user_id: str | None, team_id: str | None) -> list[str]:
    """Ids of the active, unrejected memories of one scope, summaries left out."""
    return _current_ids(store, "kind != 'summary' AND user_id IS ? AND team_id IS ?", (user_id, team_id))


def scope_peers(
    store: Store,
    item_id: str,
    user_id: str | None,
    team_id: str | None,
    agent_id: str | None,
    visibility: str,
) -> list[str]:
    """Ids of the other active, unrejected memories of one scope (user, team, agent, visibility)."""
    return _current_ids(
        store,
        "id != ? AND user_id IS ? AND team_id IS ? AND agent_id IS ? AND visibility = ?",
        (item_id, user_id, team_id, agent_id, visibility),
    )


def experience_ids(
    store: Store,
    user_id: str | None,
    team_id: str | None,
    agent_id: str | None,
    visibility: str,
    authority: str,
) -> list[str]:
    """Ids of the active, unrejected experiences consolidation wrote in one scope, of one authority."""
    return [
        memory_id
        for (memory_id,) in store.query(
            "SELECT id FROM memory_items WHERE kind = 'experience' AND source = 'derived' AND status = 'active' "
            "AND trust != 'rejected' AND user_id IS ? AND team_id IS ? AND agent_id IS ? AND visibility = ? "
            "AND authority = ?",
            (user_id, team_id, agent_id, visibility, authority),
        )
    ]


def own_active(store: Store, user_id: str) -> list[MemoryItem]:
    """The user's active memories, shared copies left out."""
    rows = store.query(
        f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE user_id = ? AND status = 'active' "
        "AND (source != 'shared' OR source IS NULL)",
        (user_id,),
    )
    return [row_to_item(r) for r in rows]


def shared_pool(store: Store, visibility: str, team_id: str | None) -> list[str]:
    """Ids of the active shared copies of one visibility and team."""
    return [
        memory_id
        for (memory_id,) in store.query(
            "SELECT id FROM memory_items WHERE source = 'shared' AND status = 'active' AND visibility = ? "
            "AND team_id IS ?",
            (visibility, team_id),
        )
    ]


def active_of_sources(store: Store, sources: Sequence[str]) -> list[MemoryItem]:
    """The active, unrejected memories of ``sources``, in time order."""
    rows = store.query(
        f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE status = 'active' AND trust != 'rejected' "
        f"AND source IN ({marks(sources)}) ORDER BY valid_from, id",
        list(sources),
    )
    return [row_to_item(r) for r in rows]


def source_usage(store: Store, sources: Sequence[str]) -> list[tuple[str, int, int | None]]:
    """``(source, memories, estimated tokens)`` of the standing active memories of ``sources``, per user
    and source."""
    rows = store.query(
        "SELECT source, count(*), sum((length(text) + 3) / 4) FROM memory_items WHERE status = 'active' "
        f"AND trust != 'rejected' AND source IN ({marks(sources)}) GROUP BY user_id, source",
        list(sources),
    )
    return [(source, memories, tokens) for source, memories, tokens in rows]

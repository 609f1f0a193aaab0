"""Reads of memories and their evidence for the lifecycle: consolidation's stages, the linker,
conflicts, budgets, outcome feedback and sharing.

The item family's writes and its reads by id, version and list are in core/storage/items.py;
these are the sweeps and checks the background work makes. A function taking a ``Connection``
reads inside the caller's transaction (what it then writes depends on it); one taking the
``Store`` reads on its own. "Standing" means active or in cold storage (archived) and not
rejected.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from veramem_desktop.core.storage.items import ITEM_COLUMNS, Evidence, MemoryItem, row_to_item
from veramem_desktop.core.storage.store import Connection, Store
from veramem_desktop.core.vocabulary import Status

_EVIDENCE = "SELECT episode_id, quote, span_start, span_end, score, role FROM evidence WHERE memory_id = ? ORDER BY id"


def _marks(values: Sequence[Any]) -> str:
    return ",".join("?" * len(values))


# ------------------------------------------------------------------ one memory
def find(store: Store, item_id: str) -> MemoryItem | None:
    """The memory ``item_id``, or None when there is none."""
    row = store.query_one(f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE id = ?", (item_id,))
    return row_to_item(row) if row is not None else None


def read(conn: Connection, item_id: str) -> MemoryItem | None:
    """The memory ``item_id`` as the caller's transaction sees it, or None."""
    row = conn.execute(f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE id = ?", (item_id,)).fetchone()
    return row_to_item(row) if row is not None else None


def status_of(conn: Connection, item_id: str) -> str | None:
    """The memory's status, or None when it is gone."""
    row = conn.execute("SELECT status FROM memory_items WHERE id = ?", (item_id,)).fetchone()
    return None if row is None else str(row[0])


def status_and_pinned(conn: Connection, item_id: str) -> tuple[str, bool] | None:
    """The memory's status and whether it is pinned, or None when it is gone."""
    row = conn.execute("SELECT status, pinned FROM memory_items WHERE id = ?", (item_id,)).fetchone()
    return None if row is None else (str(row[0]), bool(row[1]))


def active_head(conn: Connection, root_id: str) -> MemoryItem | None:
    """The newest active version of the chain ``root_id``, or None."""
    row = conn.execute(
        f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE root_id = ? AND status = 'active' "
        "ORDER BY version DESC LIMIT 1",
        (root_id,),
    ).fetchone()
    return row_to_item(row) if row is not None else None


def standing_version(store: Store, item_id: str) -> MemoryItem | None:
    """The newest active, unrejected version of the chain ``item_id`` belongs to, or None."""
    row = store.query_one(
        f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE root_id = (SELECT root_id FROM memory_items WHERE id = ?) "
        "AND status = 'active' AND trust != 'rejected' ORDER BY version DESC LIMIT 1",
        (item_id,),
    )
    return row_to_item(row) if row is not None else None


def merged_into(store: Store, source_id: str, kinds: Sequence[str]) -> MemoryItem | None:
    """An active, unrejected memory of one of ``kinds`` made from ``source_id`` (a merge), or None."""
    row = store.query_one(
        f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE id IN (SELECT derived_id FROM derivations WHERE "
        f"source_id = ?) AND kind IN ({_marks(kinds)}) AND status = 'active' AND trust != 'rejected' LIMIT 1",
        (source_id, *kinds),
    )
    return row_to_item(row) if row is not None else None


# ------------------------------------------------------------------ many memories
def standing(
    store: Store,
    *,
    statuses: Sequence[str] = (Status.ACTIVE,),
    kinds: Sequence[str] = (),
    unpinned: bool = False,
    in_session: bool = False,
    derived: bool = False,
    created_since: str | None = None,
    unfused: bool = False,
) -> list[MemoryItem]:
    """Unrejected memories of ``statuses`` in time order, narrowed to ``kinds``, unpinned ones, those of
    a session, those consolidation wrote (``derived``), those made since ``created_since``, and those
    not fused from others (``unfused``), as asked."""
    sql = f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE status IN ({_marks(statuses)}) AND trust != 'rejected'"
    params: list[Any] = [*statuses]
    if kinds:
        sql += f" AND kind IN ({_marks(kinds)})"
        params += kinds
    for wanted, clause in (
        (unpinned, "pinned = 0"),
        (in_session, "session_id IS NOT NULL"),
        (derived, "source = 'derived'"),
        (created_since is not None, "created_at >= ?"),
        (unfused, "json_extract(metadata, '$.fused_from') IS NULL"),
    ):
        if wanted:
            sql += f" AND {clause}"
    if created_since is not None:
        params.append(created_since)
    return [row_to_item(r) for r in store.query(sql + " ORDER BY valid_from, id", params)]


def count_active(conn: Connection, ids: Sequence[str]) -> int:
    """How many of ``ids`` are active memories."""
    row = conn.execute(
        f"SELECT count(*) FROM memory_items WHERE status = 'active' AND id IN ({_marks(ids)})", list(ids)
    ).fetchone()
    return int(row[0])


def count_standing(conn: Connection, ids: Sequence[str]) -> int:
    """How many of ``ids`` are standing memories (active or archived, not rejected)."""
    row = conn.execute(
        f"SELECT count(*) FROM memory_items WHERE id IN ({_marks(ids)}) AND status IN ('active', 'archived') "
        "AND trust != 'rejected'",
        list(ids),
    ).fetchone()
    return int(row[0])


def standing_ids(conn: Connection, ids: Sequence[str]) -> set[str]:
    """Those of ``ids`` that are standing memories."""
    return {
        r[0]
        for r in conn.execute(
            f"SELECT id FROM memory_items WHERE id IN ({_marks(ids)}) "
            "AND status IN ('active', 'archived') AND trust != 'rejected'",
            list(ids),
        ).fetchall()
    }


def chain_ids(conn: Connection, root_id: str) -> list[str]:
    """Every version's id of the chain ``root_id``."""
    return [
        r[0] for r in conn.execute("SELECT id FROM memory_items WHERE root_id = ?", (root_id,)).fetchall()
    ]


def cold_by_any(conn: Connection, ids: Sequence[str]) -> list[str]:
    """Unrejected memories in cold storage that one of ``ids`` sent there (``metadata.cold_by``)."""
    return [
        r[0]
        for r in conn.execute(
            f"SELECT id FROM memory_items WHERE status = 'archived' AND trust != 'rejected' "
            f"AND json_extract(metadata, '$.cold_by') IN ({_marks(ids)})",
            list(ids),
        ).fetchall()
    ]


def conflict_records(conn: Connection, memory_id: str | None = None) -> list[tuple[str, str | None]]:
    """``(id, recorded partners as JSON)`` of each standing memory that records a conflict (only
    ``memory_id``, when given)."""
    sql = (
        "SELECT id, json_extract(metadata, '$.conflicts_with') FROM memory_items "
        "WHERE metadata LIKE '%conflicts_with%' AND status IN ('active', 'archived') AND trust != 'rejected'"
    )
    if memory_id is None:
        return [(r[0], r[1]) for r in conn.execute(sql).fetchall()]
    return [(r[0], r[1]) for r in conn.execute(sql + " AND id = ?", (memory_id,)).fetchall()]


def scope_peers(
    store: Store,
    item_id: str,
    user_id: str | None,
    team_id: str | None,
    agent_id: str | None,
    visibility: str,
) -> list[str]:
    """Ids of the other active, unrejected memories of one scope (user, team, agent, visibility)."""
    return [
        r[0]
        for r in store.query(
            "SELECT id FROM memory_items WHERE status = 'active' AND trust != 'rejected' AND id != ? "
            "AND user_id IS ? AND team_id IS ? AND agent_id IS ? AND visibility = ?",
            (item_id, user_id, team_id, agent_id, visibility),
        )
    ]


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
        r[0]
        for r in store.query(
            "SELECT id FROM memory_items WHERE kind = 'experience' AND source = 'derived' AND status = 'active' "
            "AND trust != 'rejected' AND user_id IS ? AND team_id IS ? AND agent_id IS ? AND visibility = ? "
            "AND authority = ?",
            (user_id, team_id, agent_id, visibility, authority),
        )
    ]


def source_usage(store: Store, sources: Sequence[str]) -> list[tuple[str, int, int | None]]:
    """``(source, memories, estimated tokens)`` of the standing active memories of ``sources``, per user
    and source."""
    rows = store.query(
        "SELECT source, count(*), sum((length(text) + 3) / 4) FROM memory_items WHERE status = 'active' "
        f"AND trust != 'rejected' AND source IN ({_marks(sources)}) GROUP BY user_id, source",
        list(sources),
    )
    return [(r[0], r[1], r[2]) for r in rows]


def active_of_sources(store: Store, sources: Sequence[str]) -> list[MemoryItem]:
    """The active, unrejected memories of ``sources``, in time order."""
    rows = store.query(
        f"SELECT {ITEM_COLUMNS} FROM memory_items WHERE status = 'active' AND trust != 'rejected' "
        f"AND source IN ({_marks(sources)}) ORDER BY valid_from, id",
        list(sources),
    )
    return [row_to_item(r) for r in rows]


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
        r[0]
        for r in store.query(
            "SELECT id FROM memory_items WHERE source = 'shared' AND status = 'active' AND visibility = ? "
            "AND team_id IS ?",
            (visibility, team_id),
        )
    ]


# ------------------------------------------------------------------ evidence
def evidence_on(conn: Connection, memory_id: str) -> list[Evidence]:
    """The memory's evidence in the order it was added, as the caller's transaction sees it."""
    return [
        Evidence(r[0], r[1], int(r[2]), int(r[3]), float(r[4]), r[5])
        for r in conn.execute(_EVIDENCE, (memory_id,)).fetchall()
    ]


def evidence_spans(conn: Connection, memory_id: str) -> set[tuple[str, int, int]]:
    """``(episode, span start, span end)`` of each of the memory's quotes."""
    return {
        (r[0], int(r[1]), int(r[2]))
        for r in conn.execute(
            "SELECT episode_id, span_start, span_end FROM evidence WHERE memory_id = ?", (memory_id,)
        ).fetchall()
    }


def first_episode(store: Store, memory_id: str) -> str | None:
    """The episode of the memory's first evidence, or None when it has none."""
    row = store.query_one(
        "SELECT episode_id FROM evidence WHERE memory_id = ? ORDER BY id LIMIT 1", (memory_id,)
    )
    return None if row is None else row[0]

"""The link graph's rows: typed edges between memories (``links``) and the linking queue (``pending_links``).

Every statement on the two tables is here except forget's erasure (core/lifecycle/forget.py).
What an edge means, when one is made and what is ledgered with it is decided by the lifecycle
(core/lifecycle/links.py and the linker, core/lifecycle/linker.py), which calls these functions
in its own transactions. Search reads the graph through :func:`linked_pairs` (the links
between seeds and the memories the caller may see).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from veramem_desktop.core.storage import access
from veramem_desktop.core.storage.access import Caller
from veramem_desktop.core.storage.columns import select_list
from veramem_desktop.core.storage.store import Connection, Store


# ------------------------------------------------------------------ the queue
def queue(conn: Connection, memory_ids: Sequence[str], queued_at: str) -> None:
    """Queue memories for linking at ``queued_at`` (one already queued keeps its place)."""
    conn.executemany(
        "INSERT OR IGNORE INTO pending_links(memory_id, queued_at) VALUES (?, ?)",
        [(m, queued_at) for m in memory_ids],
    )


def unqueue(conn: Connection, memory_id: str) -> None:
    """Take a memory off the queue."""
    conn.execute("DELETE FROM pending_links WHERE memory_id = ?", (memory_id,))


def count_failure(conn: Connection, memory_id: str, error: str) -> None:
    """One more failed attempt on a queued memory, keeping the error's name."""
    conn.execute(
        "UPDATE pending_links SET attempts = attempts + 1, last_error = ? WHERE memory_id = ?",
        (error, memory_id),
    )


def queued(store: Store, *, limit: int, max_attempts: int) -> list[str]:
    """Queued memories tried fewer than ``max_attempts`` times, oldest first, at most ``limit``; those
    queued together in the order they were given (their ids end in random bits: an order by id would
    link one add's memories in a different order each run)."""
    rows = store.query(
        "SELECT memory_id FROM pending_links WHERE attempts < ? ORDER BY queued_at, rowid LIMIT ?",
        (max_attempts, limit),
    )
    return [memory_id for (memory_id,) in rows]


def queued_count(store: Store) -> int:
    """How many memories are queued, whatever their attempts."""
    return int(store.query_one("SELECT count(*) FROM pending_links")[0])


# ------------------------------------------------------------------ edges
def insert(conn: Connection, src: str, dst: str, link_type: str, score: float, created_at: str) -> bool:
    """Add one edge; False when the same edge (source, destination, type) is already there."""
    cur = conn.execute(
        "INSERT OR IGNORE INTO links(src, dst, type, score, created_at) VALUES (?,?,?,?,?)",
        (src, dst, link_type, score, created_at),
    )
    return bool(cur.rowcount != 0)


def set_created_at(conn: Connection, src: str, dst: str, link_type: str, created_at: str) -> None:
    """Give an edge another creation time."""
    conn.execute(
        "UPDATE links SET created_at = ? WHERE src = ? AND dst = ? AND type = ?",
        (created_at, src, dst, link_type),
    )


class Edge(NamedTuple):
    """One typed edge of the link graph, from ``src`` to ``dst``."""

    src: str
    dst: str
    type: str
    score: float
    created_at: str


def touching(store: Store, memory_id: str) -> list[Edge]:
    """Every edge from or to ``memory_id``, oldest first."""
    rows = store.query(
        f"SELECT {select_list(Edge._fields)} FROM links WHERE src = ? OR dst = ? ORDER BY created_at, src, dst",
        (memory_id, memory_id),
    )
    return [Edge._make(r) for r in rows]


def pair_linked(conn: Connection, a: str, b: str) -> bool:
    """True when an edge of any type joins ``a`` and ``b``, in either direction."""
    return (
        conn.execute(
            "SELECT 1 FROM links WHERE (src = ? AND dst = ?) OR (src = ? AND dst = ?) LIMIT 1", (a, b, b, a)
        ).fetchone()
        is not None
    )


def every_edge(store: Store) -> list[Edge]:
    """Every edge, by source, destination and type (the memory export)."""
    rows = store.query(f"SELECT {select_list(Edge._fields)} FROM links ORDER BY src, dst, type")
    return [Edge._make(r) for r in rows]


def has_edge(conn: Connection, src: str, dst: str, link_type: str) -> bool:
    """True when the edge (source, destination, type) is here (the import of an export)."""
    return (
        conn.execute(
            "SELECT 1 FROM links WHERE src = ? AND dst = ? AND type = ?", (src, dst, link_type)
        ).fetchone()
        is not None
    )


def linked_pairs(
    store: Store,
    seeds: list[str],
    link_types: tuple[str, ...],
    caller: Caller,
    kinds: tuple[str, ...],
    include_archived: bool,
    now: str,
) -> list[Any]:
    """The rows (seed, linked memory), one for each link of the ``link_types`` between a seed and a memory
    of the ``kinds`` the caller may see."""
    params: dict[str, Any] = {
        **access.params(caller, now),
        **{f"s{i}": d for i, d in enumerate(seeds)},
        **{f"k{i}": k for i, k in enumerate(kinds)},
        **{f"t{i}": t for i, t in enumerate(link_types)},
    }
    in_seeds = ",".join(f":s{i}" for i in range(len(seeds)))
    in_kinds = ",".join(f":k{i}" for i in range(len(kinds)))
    in_types = ",".join(f":t{i}" for i in range(len(link_types)))
    pred = access.memory_predicate("m", include_archived=include_archived)
    return store.query(
        f"SELECT l.src, l.dst FROM links l JOIN memory_items m ON m.id = l.dst WHERE l.src IN ({in_seeds}) "
        f"AND l.type IN ({in_types}) AND m.kind IN ({in_kinds}) AND {pred} "
        f"UNION SELECT l.dst, l.src FROM links l JOIN memory_items m ON m.id = l.src WHERE l.dst IN ({in_seeds}) "
        f"AND l.type IN ({in_types}) AND m.kind IN ({in_kinds}) AND {pred}",
        params,
    )

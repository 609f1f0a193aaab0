"""Counts and sizes of a store: what ``status``, ``doctor``, ``verify`` and the benchmarks report.

Read-only, and cheap enough to call on every ``status`` (each is one count over a table or an index).
"""

from __future__ import annotations

import sqlcipher3
from veramem_desktop.core.storage.store import Store

#: the tables ``status`` counts, in the order it shows them
STATUS_TABLES = ("episodes", "memory_items", "ledger", "traces")


def status_counts(store: Store) -> dict[str, int]:
    """Rows in each of :data:`STATUS_TABLES`, and ``active_memories``: memories with status active."""
    counts = {table: int(store.query_one(f"SELECT count(*) FROM {table}")[0]) for table in STATUS_TABLES}
    counts["active_memories"] = int(
        store.query_one("SELECT count(*) FROM memory_items WHERE status = 'active'")[0]
    )
    return counts


def ledger_length(store: Store) -> int:
    """How many entries the ledger holds (tombstones included)."""
    return int(store.query_one("SELECT count(*) FROM ledger")[0])


def memory_count(store: Store) -> int:
    """How many memory rows the store holds, every status and version included."""
    return int(store.query_one("SELECT count(*) FROM memory_items")[0])


def sqlite_version() -> str:
    """The SQLite library under SQLCipher (benchmark reports name it)."""
    return str(sqlcipher3.sqlite_version)

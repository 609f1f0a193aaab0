"""The ``meta`` table: one value per key, for the store's own settings and state.

Each key belongs to one module, which decides its value (the ledger's head, the next expiry,
the learned ranking model, the per-store secrets of provenance and rejections, sync's
``sync_…`` keys); every write of any key, and a read inside the caller's transaction, goes
through the functions here. ``Store.get_meta`` and ``Store.set_meta`` are the store-level forms.

``conn`` is a store connection (``Connection`` of core/storage/store.py, which is ``Any``); it
is not imported from there because the store writes ``meta`` through this module.
"""

from __future__ import annotations

from typing import Any


def get(conn: Any, key: str) -> str | None:
    """The value of ``key``, or None when it is not there."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def put(conn: Any, key: str, value: str) -> None:
    """Set ``key`` to ``value``, replacing a value already there."""
    conn.execute(
        "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


def add(conn: Any, key: str, value: str) -> None:
    """Add a key that is not there yet (one already there is an error)."""
    conn.execute("INSERT INTO meta(key, value) VALUES (?, ?)", (key, value))


def add_once(conn: Any, key: str, value: str) -> None:
    """Add a key unless it is there already (then the value already there is kept)."""
    conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)", (key, value))


def delete(conn: Any, key: str) -> None:
    """Remove ``key`` (nothing happens when it is not there)."""
    conn.execute("DELETE FROM meta WHERE key = ?", (key,))

"""Episodes as plain rows: column values by name, the same on every device.

:mod:`.episodes` stores new messages (hash, index, ledger). This module reads and writes the
rows as they are, with their ids, for episodes stored on another device (sync lands them
through :mod:`.landing`): the caller indexes and records them. A row is a dict in
``EPISODE_FIELDS`` order holding the stored values (``metadata`` as its JSON text).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from veramem_desktop.core.storage.episodes import EPISODE_COLUMNS
from veramem_desktop.core.storage.id_sets import IN_IDS, ids_param
from veramem_desktop.core.storage.store import Connection, Store

EPISODE_FIELDS = [c.strip() for c in EPISODE_COLUMNS.split(",")]


def row(conn: Connection, episode_id: str) -> dict[str, Any] | None:
    found = conn.execute(f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE id = ?", (episode_id,)).fetchone()
    return None if found is None else dict(zip(EPISODE_FIELDS, found, strict=True))


def digest(conn: Connection, episode_id: str) -> tuple[str, str] | None:
    """(sha256, role) of the episode, if it is here: what its ledger commitment covers."""
    found = conn.execute("SELECT sha256, role FROM episodes WHERE id = ?", (episode_id,)).fetchone()
    return None if found is None else (str(found[0]), str(found[1]))


def digests(conn: Connection, episode_ids: Iterable[str]) -> dict[str, tuple[str, str]]:
    """:func:`digest` of those of ``episode_ids`` that are here, in one query."""
    return {
        eid: (sha, role)
        for eid, sha, role in conn.execute(
            f"SELECT id, sha256, role FROM episodes WHERE id {IN_IDS}", (ids_param(episode_ids),)
        )
    }


def exists(store: Store, episode_id: str) -> bool:
    return store.query_one("SELECT 1 FROM episodes WHERE id = ?", (episode_id,)) is not None


def insert_rows(conn: Connection, values: Sequence[Sequence[Any]]) -> None:
    """Insert episodes stored elsewhere, each a list of values in ``EPISODE_FIELDS`` order."""
    conn.executemany(_INSERT, values)


_INSERT = f"INSERT INTO episodes({EPISODE_COLUMNS}) VALUES ({','.join('?' * len(EPISODE_FIELDS))})"


def all_rows(store: Store) -> list[Sequence[Any]]:
    """Every episode's columns (``EPISODE_FIELDS``), by id."""
    return list(store.query(f"SELECT {EPISODE_COLUMNS} FROM episodes ORDER BY id"))

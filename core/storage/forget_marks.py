"""Marks of forgotten episodes and the secrets they are keyed under (tables ``forget_marks`` and
``admission_keys``).

A mark is an HMAC-SHA256 digest, under one of the store's admission keys, of something that identifies
an episode (core/trust/admission.py decides what): never its words, and useless for confirming a guess
without the key. ``local`` is this store's own key; a synced account adds a key every device of it
derives alike (sync/service.py registers it), so a mark made on one device is recognised on another.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from veramem_desktop.core.storage.columns import select_list
from veramem_desktop.core.storage.id_sets import IN_IDS, ids_param
from veramem_desktop.core.storage.ids import now_iso
from veramem_desktop.core.storage.store import Connection
from veramem_desktop.core.vocabulary import Trust

LOCAL_KEY = "local"
#: a shared key's id: this prefix and 16 random hex digits (made by the first forget of a store)
SHARED_PREFIX = "shared:"
#: a mark as it is kept and as it travels: (key id, digest, forgotten at)
Mark = tuple[str, str, str]


def keys(conn: Connection) -> dict[str, bytes]:
    """Every admission key by id (a read: :func:`ensure_local` makes this store's own)."""
    return {str(k): bytes(v) for k, v in conn.execute("SELECT key_id, secret FROM admission_keys")}


def ensure_local(conn: Connection) -> None:
    """Make this store's own key on first use (inside the caller's write transaction)."""
    conn.execute(
        "INSERT OR IGNORE INTO admission_keys(key_id, secret, added_at) VALUES (?, ?, ?)",
        (LOCAL_KEY, os.urandom(32), now_iso()),
    )


def shared_key(conn: Connection) -> tuple[str, bytes] | None:
    """A shared key this store holds (the first by id), or None."""
    row = conn.execute(
        "SELECT key_id, secret FROM admission_keys WHERE key_id LIKE ? ORDER BY key_id LIMIT 1",
        (SHARED_PREFIX + "%",),
    ).fetchone()
    if row is None:
        return None
    key_id, secret = row
    return str(key_id), bytes(secret)


def new_shared_key(conn: Connection) -> str:
    """Make a shared key (random id and secret) and return its id."""
    key_id = SHARED_PREFIX + os.urandom(8).hex()
    add_key(conn, key_id, os.urandom(32))
    return key_id


def add_key(conn: Connection, key_id: str, secret: bytes) -> bool:
    """Keep a shared key (one already kept under ``key_id`` stays); True when it is new."""
    cur = conn.execute(
        "INSERT OR IGNORE INTO admission_keys(key_id, secret, added_at) VALUES (?, ?, ?)",
        (key_id, secret, now_iso()),
    )
    return bool(cur.rowcount)


def add(conn: Connection, target_id: str, marks: Iterable[Mark]) -> None:
    """Keep ``marks`` of the forgotten ``target_id``; a digest kept already keeps its first date."""
    conn.executemany(
        "INSERT OR IGNORE INTO forget_marks(key_id, digest, target_id, forgotten_at) VALUES (?, ?, ?, ?)",
        [(k, d, target_id, at) for k, d, at in marks],
    )


def of_target(conn: Connection, target_id: str) -> list[Mark]:
    """The marks kept for one forgotten id."""
    return [
        (str(k), str(d), str(at))
        for k, d, at in conn.execute(
            "SELECT key_id, digest, forgotten_at FROM forget_marks WHERE target_id = ? ORDER BY key_id, digest",
            (target_id,),
        )
    ]


def found(conn: Connection, digests: Sequence[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """Of ``digests`` ((key id, digest) pairs), those marked: each with the date it was forgotten
    (one query for them all)."""
    wanted = set(digests)
    if not wanted:
        return {}
    rows = conn.execute(
        f"SELECT key_id, digest, forgotten_at FROM forget_marks WHERE digest {IN_IDS}",
        (ids_param(d for _, d in wanted),),
    )
    return {(str(k), str(d)): str(at) for k, d, at in rows if (k, d) in wanted}


def any_marks(conn: Connection) -> bool:
    """Whether anything was ever forgotten here (a store with no marks reads no digests)."""
    return conn.execute("SELECT 1 FROM forget_marks LIMIT 1").fetchone() is not None


def forgotten_at(conn: Connection, ids: Sequence[str]) -> dict[str, str]:
    """Of ``ids``, those the ledger holds a forget tombstone for, each with the tombstone's time."""
    return {
        str(t): str(ts)
        for t, ts in conn.execute(
            f"SELECT target_id, min(ts) FROM ledger WHERE op = 'forget' AND target_id {IN_IDS} GROUP BY target_id",
            (ids_param(ids),),
        )
    }


def has_op(conn: Connection, target_id: str, op: str) -> bool:
    """Whether the ledger records ``op`` on ``target_id`` (read through its index on the target)."""
    return (
        conn.execute(
            "SELECT 1 FROM ledger WHERE target_id = ? AND op = ? LIMIT 1", (target_id, op)
        ).fetchone()
        is not None
    )


def forgotten_targets(conn: Connection) -> list[tuple[str, str]]:
    """(id, kind) of every memory and episode the ledger holds a forget tombstone for."""
    return [
        (str(t), str(k))
        for t, k in conn.execute(
            "SELECT DISTINCT target_id, target_kind FROM ledger WHERE op = 'forget' "
            "AND target_kind IN ('memory', 'episode') ORDER BY target_id"
        )
    ]


def all_marks(conn: Connection) -> list[tuple[str, str, str, str]]:
    """Every mark as (key id, digest, target id, forgotten at)."""
    return [
        (str(k), str(d), str(t), str(at))
        for k, d, t, at in conn.execute("SELECT key_id, digest, target_id, forgotten_at FROM forget_marks")
    ]


def all_keys(conn: Connection) -> list[tuple[str, bytes]]:
    return [(str(k), bytes(v)) for k, v in conn.execute("SELECT key_id, secret FROM admission_keys")]


def add_rows(conn: Connection, marks: Sequence[tuple[str, str, str, str]]) -> None:
    """Keep marks carried over from another copy of this store (one already kept stays)."""
    conn.executemany(
        "INSERT OR IGNORE INTO forget_marks(key_id, digest, target_id, forgotten_at) VALUES (?, ?, ?, ?)",
        marks,
    )


class EpisodeIdentity(NamedTuple):
    """What identifies a stored episode for making or matching marks (``metadata`` as its JSON text)."""

    id: str
    role: str
    content: str
    user_id: str | None
    event_time: str
    metadata: str


def episode_identities(conn: Connection, ids: Sequence[str] | None = None) -> list[EpisodeIdentity]:
    """The identities of the episodes ``ids`` (None: every episode)."""
    sql = f"SELECT {select_list(EpisodeIdentity._fields)} FROM episodes"
    found = conn.execute(sql) if ids is None else conn.execute(f"{sql} WHERE id {IN_IDS}", (ids_param(ids),))
    return [
        EpisodeIdentity(
            id=str(episode_id),
            role=str(role),
            content=str(content),
            user_id=user_id,
            event_time=str(event_time),
            metadata=str(metadata),
        )
        for episode_id, role, content, user_id, event_time, metadata in found
    ]


def targets_of_op(conn: Connection, op: str) -> list[str]:
    """The ids the ledger records ``op`` on (e.g. the memories a person rejected)."""
    return [
        str(target_id)
        for (target_id,) in conn.execute("SELECT DISTINCT target_id FROM ledger WHERE op = ?", (op,))
    ]


def not_rejected(conn: Connection, memory_id: str) -> bool:
    """Whether the memory is here and not (yet) marked rejected."""
    row = conn.execute("SELECT trust FROM memory_items WHERE id = ?", (memory_id,)).fetchone()
    return row is not None and row[0] != Trust.REJECTED


def scopes(conn: Connection) -> list[tuple[str | None, str | None]]:
    """Every (user id, team id) that holds an episode or a memory."""
    return [
        (user_id, team_id)
        for user_id, team_id in conn.execute(
            "SELECT user_id, team_id FROM episodes UNION SELECT user_id, team_id FROM memory_items"
        )
    ]


def tables_exist(conn: Connection) -> bool:
    """Whether this store has the gate's tables (a copy from before migration 6 has not, until opened)."""
    found = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'forget_marks'")
    return found.fetchone() is not None


def present(conn: Connection, targets: Sequence[tuple[str, str]]) -> set[str]:
    """Of (id, kind) memories and episodes, the ids still here."""
    table = {"memory": "memory_items", "episode": "episodes"}
    return {
        target
        for target, kind in targets
        if kind in table
        and conn.execute(f"SELECT 1 FROM {table[kind]} WHERE id = ?", (target,)).fetchone() is not None
    }

"""Rejected values and withheld rows: every statement on the ``rejected_values`` and ``withheld`` tables.

core/storage/rejections.py decides what a rejection records (keyed digests, never the words) and
which rows hold a rejected value; this module reads and writes the two tables for it, in the
caller's transaction. A ``rejected_values`` row is one key of a rejected value in a scope
(``user|team``); a ``withheld`` row holds one episode or memory out of recall, with its reason
(``rejected``, or ``resembles`` while a person has not decided) and the rejected memory it
came from. The access predicate (core/storage/access.py) reads ``withheld`` in every channel's SQL.
``forget`` (core/lifecycle/forget.py) erases rows of both tables with what they name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from veramem_desktop.core.storage.columns import select_list
from veramem_desktop.core.storage.ids import now_iso
from veramem_desktop.core.storage.store import Connection, Store

_ANY_IN_SCOPE = "SELECT 1 FROM rejected_values WHERE scope = ? LIMIT 1"


# ---------------------------------------------------------------- rejected_values
def add_value(
    conn: Connection,
    *,
    user_id: str | None,
    subject: str,
    predicate: str,
    scope: str,
    norm_value: str,
    skeleton: str,
    memory_id: str,
) -> None:
    """Record one key of a value rejected in ``scope`` (a key already there is kept)."""
    conn.execute(
        "INSERT OR IGNORE INTO rejected_values(user_id, subject, predicate, scope, norm_value, skeleton, memory_id, created_at)"
        " VALUES (?,?,?,?,?,?,?,?)",
        (user_id, subject, predicate, scope, norm_value, skeleton, memory_id, now_iso()),
    )


def scope_has_values(conn: Connection, scope: str) -> bool:
    """Whether any value is rejected in ``scope`` (:func:`core.storage.rejections.scope_of`); where none is, nothing is withheld."""
    return conn.execute(_ANY_IN_SCOPE, (scope,)).fetchone() is not None


def any_in_scope(store: Store, scope: str) -> bool:
    """As :func:`scope_has_values`, read outside a transaction (the write path's planning)."""
    return bool(store.query(_ANY_IN_SCOPE, (scope,)))


def has_key(conn: Connection, *, subject: str, predicate: str, scope: str, skeleton: str) -> bool:
    """Whether the keyed ``(subject, predicate, skeleton)`` is rejected in ``scope``."""
    row = conn.execute(
        "SELECT 1 FROM rejected_values WHERE subject = ? AND predicate = ? AND scope = ? AND skeleton = ?",
        (subject, predicate, scope, skeleton),
    ).fetchone()
    return row is not None


class PhraseKey(NamedTuple):
    """A rejected phrase as kept: the digest of its first word (``norm_value``) and of its words (``skeleton``)."""

    norm_value: str
    skeleton: str


def phrase_keys(conn: Connection, scope: str, subject: str, predicate: str) -> list[PhraseKey]:
    """The phrase keys of the rows of ``scope`` kept under the keyed ``(subject, predicate)``."""
    rows = conn.execute(
        f"SELECT {select_list(PhraseKey._fields)} FROM rejected_values WHERE scope = ? AND subject = ? AND predicate = ?",
        (scope, subject, predicate),
    ).fetchall()
    return [PhraseKey._make(r) for r in rows]


def has_values_of(conn: Connection, memory_id: str) -> bool:
    """Whether rejected values recorded from the memory ``memory_id`` are here."""
    return (
        conn.execute("SELECT 1 FROM rejected_values WHERE memory_id = ?", (memory_id,)).fetchone() is not None
    )


# ---------------------------------------------------------------- withheld
def is_recorded(conn: Connection, memory_id: str) -> bool:
    """Whether the rejection of ``memory_id`` was recorded here already (it withholds the memory itself)."""
    done = conn.execute(
        "SELECT 1 FROM withheld WHERE owner_kind = 'memory' AND owner_id = ? AND memory_id = ?",
        (memory_id, memory_id),
    ).fetchone()
    return done is not None


def withhold_rejected(conn: Connection, memory_id: str) -> None:
    """Hold the rejected memory ``memory_id`` itself out of recall, whatever held it before."""
    conn.execute(
        "INSERT OR REPLACE INTO withheld(owner_kind, owner_id, reason, memory_id, created_at) "
        "VALUES ('memory', ?, 'rejected', ?, ?)",
        (memory_id, memory_id, now_iso()),
    )


def withhold(conn: Connection, owner_kind: str, owner_id: str, reason: str, memory_id: str | None) -> bool:
    """Hold a row out of recall (True when it was not held already)."""
    cur = conn.execute(
        "INSERT OR IGNORE INTO withheld(owner_kind, owner_id, reason, memory_id, created_at) "
        "VALUES (?,?,?,?,?)",
        (owner_kind, owner_id, reason, memory_id, now_iso()),
    )
    return bool(cur.rowcount > 0)


def all_values(conn: Connection) -> list[tuple[str | None, str, str, str, str, str, str]]:
    """Every rejected-value key as (user id, subject, predicate, scope, norm value, skeleton, memory id)."""
    return [
        (
            user_id,
            str(subject),
            str(predicate),
            str(scope),
            str(norm_value),
            str(skeleton),
            str(memory_id or ""),
        )
        for user_id, subject, predicate, scope, norm_value, skeleton, memory_id in conn.execute(
            "SELECT user_id, subject, predicate, scope, norm_value, skeleton, memory_id FROM rejected_values"
        )
    ]


def rejected_memories(conn: Connection) -> list[tuple[str, str | None, str | None, str | None]]:
    """(id, user id, team id, value) of every memory marked rejected."""
    return [
        (str(memory_id), user_id, team_id, value)
        for memory_id, user_id, team_id, value in conn.execute(
            "SELECT id, user_id, team_id, value FROM memory_items WHERE trust = 'rejected'"
        )
    ]


def cites_held(conn: Connection, memory_id: str) -> bool:
    """Whether the memory's evidence stands in an episode held for resembling a rejected value."""
    return (
        conn.execute(
            "SELECT 1 FROM evidence e JOIN withheld w ON w.owner_kind = 'episode' AND w.owner_id = e.episode_id "
            "AND w.reason = 'resembles' WHERE e.memory_id = ? LIMIT 1",
            (memory_id,),
        ).fetchone()
        is not None
    )


def release(conn: Connection, owner_kind: str, owner_id: str) -> None:
    """A person approved a row that only resembled a rejected value: it may be recalled again."""
    conn.execute(
        "DELETE FROM withheld WHERE owner_kind = ? AND owner_id = ? AND reason = 'resembles'",
        (owner_kind, owner_id),
    )


def is_withheld(conn: Connection, owner_kind: str, owner_id: str) -> str | None:
    row = conn.execute(
        "SELECT reason FROM withheld WHERE owner_kind = ? AND owner_id = ?", (owner_kind, owner_id)
    ).fetchone()
    return str(row[0]) if row is not None else None


def withheld_ids(conn: Connection, owner_kind: str, ids: Sequence[str]) -> set[str]:
    """Which of ``ids`` are held out of recall."""
    out: set[str] = set()
    for i in range(0, len(ids), 500):
        chunk = list(ids[i : i + 500])
        out |= {
            owner_id
            for (owner_id,) in conn.execute(
                f"SELECT owner_id FROM withheld WHERE owner_kind = ? AND owner_id IN ({','.join('?' * len(chunk))})",
                [owner_kind, *chunk],
            ).fetchall()
        }
    return out

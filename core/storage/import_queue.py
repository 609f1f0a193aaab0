"""The messages a bulk import has stored but not yet derived memories from, and where derivation stands.

An import stores its messages first, in the order its source gives them, then derives memories
from them in message-time order (veramem_desktop/services/import_derive.py). Between the two, and
across a kill, the store remembers which messages wait: one ``meta`` row per user, holding the id
before which no waiting message was stored (ids grow with the time they are stored, see
core/storage/ids.py) and the place in message-time order of the last message derived. Both are
written in the transaction that stores or derives, so a resumed import derives exactly what is left.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from veramem_desktop.core.storage import meta
from veramem_desktop.core.storage.episodes import EPISODE_COLUMNS, Episode, row_to_episode
from veramem_desktop.core.storage.store import Store

#: a message's place in message-time order: its time, then its session and its turn there
Place = tuple[str, str, int]


def _key(user_id: str | None) -> str:
    return f"import_pending:{user_id or ''}"


def note_stored(conn: Any, user_id: str | None, ids: Sequence[str]) -> None:
    """Mark the messages ``ids`` of ``user_id``, just stored by an import, as waiting (in the transaction
    that stored them). The row keeps the smallest id stored, so every later one is found too."""
    if not ids:
        return
    raw = meta.get(conn, _key(user_id))
    value = {"from": min(ids), "after": None} if raw is None else json.loads(raw)
    value["from"] = min(str(value["from"]), *ids)
    meta.put(conn, _key(user_id), json.dumps(value))


def state(store: Store, user_id: str | None) -> tuple[str, Place | None] | None:
    """``(first id, place of the last message derived)`` of the messages waiting, or None when none wait."""
    raw = store.get_meta(_key(user_id))
    if raw is None:
        return None
    value = json.loads(raw)
    after = value.get("after")
    return str(value["from"]), (None if after is None else (str(after[0]), str(after[1]), int(after[2])))


def waiting(store: Store, user_id: str | None, first_id: str, after: Place | None) -> list[tuple[Place, str]]:
    """The waiting messages of ``user_id`` in message-time order, after ``after``: ``(place, episode id)``.
    Only the places are read here, so a long import's messages are never held whole."""
    rows = store.query(
        "SELECT event_time, coalesce(session_id, ''), turn_index, id FROM episodes "
        "WHERE id >= ? AND user_id IS ? AND json_extract(metadata, '$.import_key') IS NOT NULL",
        (first_id, user_id),
    )
    found = sorted(
        ((str(event_time), str(session), int(turn)), str(episode_id))
        for event_time, session, turn, episode_id in rows
    )
    return [p for p in found if after is None or p[0] > after]


def read(store: Store, ids: Sequence[str]) -> list[Episode]:
    """The episodes ``ids`` that are still here, in the order given."""
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    found = store.query(f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE id IN ({marks})", list(ids))
    rows = {r[0]: row_to_episode(r) for r in found}
    return [rows[i] for i in ids if i in rows]


def advance(conn: Any, user_id: str | None, place: Place) -> None:
    """Record, in the transaction that derived them, that the waiting messages up to ``place`` are derived."""
    raw = meta.get(conn, _key(user_id))
    if raw is not None:
        meta.put(conn, _key(user_id), json.dumps({**json.loads(raw), "after": list(place)}))


def finish(conn: Any, user_id: str | None) -> None:
    """Nothing waits any more."""
    meta.delete(conn, _key(user_id))

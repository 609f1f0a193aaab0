"""Reads of episodes for trust, the write path and transfer.

The episode family's writes and its reads by id and list are in core/storage/episodes.py (and
episode_rows.py, rows as they are); these are the reads that reads-by-caller (core/curation/reads.py),
the write path (an add's earlier turns, context vectors rebuilt after a forget: core/write/), and
the memory and training exports and the import (core/transfer/) make. A function taking a
``Connection`` reads inside the caller's transaction; one taking the ``Store`` reads on its own.
The caller's visibility is the access predicate (core/storage/access.py), in the statement's own SQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from veramem_desktop.core.storage import access
from veramem_desktop.core.storage.access import Caller
from veramem_desktop.core.storage.episodes import EPISODE_COLUMNS, Episode, row_to_episode
from veramem_desktop.core.storage.store import Connection, Store

#: most ids bound in one statement
_CHUNK = 500


def _ids_where(store: Store, ids: Sequence[str], pred: str, params: dict[str, Any]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        names = {f"id{n}": value for n, value in enumerate(chunk)}
        marks = ",".join(f":{name}" for name in names)
        rows = store.query(
            f"SELECT e.id FROM episodes e WHERE e.id IN ({marks}) AND {pred}", {**params, **names}
        )
        found |= {r[0] for r in rows}
    return found


def existing_ids(store: Store, ids: Sequence[str]) -> set[str]:
    """Those of ``ids`` that are episodes here."""
    return _ids_where(store, ids, "1", {})


def visible_ids(store: Store, ids: Sequence[str], caller: Caller, now: str) -> set[str]:
    """Those of ``ids`` that are episodes ``caller`` may see at ``now``."""
    return _ids_where(store, ids, access.episode_predicate("e"), access.params(caller, now))


def earlier_turns(
    conn: Connection,
    *,
    session_id: str | None,
    user_id: str | None,
    team_id: str | None,
    before_turn: int,
    moment: str,
    limit: int,
) -> list[Episode]:
    """The session's turns of one user and team before ``before_turn`` and not expired at ``moment``,
    newest first, at most ``limit``."""
    rows = conn.execute(
        f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE session_id = ? AND user_id IS ? AND team_id IS ? "
        "AND turn_index < ? AND coalesce(json_extract(metadata, '$.expires_at') > ?, 1) "
        "ORDER BY turn_index DESC, event_time DESC LIMIT ?",
        (session_id, user_id, team_id, before_turn, moment, limit),
    ).fetchall()
    return [row_to_episode(r) for r in rows]


def turn_beside(store: Store, session_id: str | None, turn_index: int, *, after: bool) -> Episode | None:
    """The session's nearest turn after ``turn_index`` (``after``) or before it, or None."""
    op, order = (">", "ASC") if after else ("<", "DESC")
    found = store.query_one(
        f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE session_id = ? AND turn_index {op} ? "
        f"ORDER BY turn_index {order} LIMIT 1",
        (session_id, turn_index),
    )
    return row_to_episode(found) if found is not None else None


def in_session_order(store: Store, ids: Sequence[str]) -> list[Episode]:
    """Those of ``ids`` (one ``?`` per id) that are here, by session, turn and time."""
    marks = ",".join("?" * len(ids))
    return [
        row_to_episode(r)
        for r in store.query(
            f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE id IN ({marks}) "
            "ORDER BY session_id, turn_index, event_time",
            list(ids),
        )
    ]


def ids_in_order(store: Store, user_id: str | None) -> list[str]:
    """Ids of every episode (or of ``user_id``'s), by session, turn and time: what a full export writes."""
    where, params = ("", ()) if user_id is None else (" WHERE user_id = ?", (user_id,))
    return [
        r[0]
        for r in store.query(
            f"SELECT id FROM episodes{where} ORDER BY session_id, turn_index, event_time", params
        )
    ]


def briefs(conn: Connection, ids: Sequence[str]) -> list[tuple[str, str, str | None, str, str]]:
    """``(id, role, source_name, event_time, content)`` of those of ``ids`` (one ``?`` per id) that are here."""
    rows = conn.execute(
        f"SELECT id, role, source_name, event_time, content FROM episodes WHERE id IN "
        f"({','.join('?' * len(ids))})",
        list(ids),
    ).fetchall()
    return [(r[0], r[1], r[2], r[3], r[4]) for r in rows]


def content_and_role(store: Store, episode_id: str) -> tuple[str, str] | None:
    """The episode's words and role, or None when it is not here."""
    row = store.query_one("SELECT content, role FROM episodes WHERE id = ?", (episode_id,))
    return None if row is None else (row[0], row[1])
